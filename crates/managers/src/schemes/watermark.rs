//! DAMOS watermarks: a scheme runs only while a metric (a tier's free
//! share) sits between its low and high marks, and starts only once it
//! falls to the middle one (Linux mm/damon/core.c, `damos_wmark_wait_us`).

/// What the marks watch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatermarkMetric {
    /// Nothing: always active.
    None,
    /// A tier's free share, in per mille (the kernel's free_mem_rate, of
    /// the whole system there; of one tier here).
    FreeMemRate(u8),
}

/// The marks, in the metric's unit, high >= mid >= low.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Watermarks {
    /// What they watch.
    pub metric: WatermarkMetric,
    /// How often it is checked (ns).
    pub interval_ns: u64,
    /// Above: deactivate.
    pub high: f64,
    /// At or below, while inactive: activate.
    pub mid: f64,
    /// Below: deactivate.
    pub low: f64,
}

impl Default for Watermarks {
    fn default() -> Self {
        Watermarks {
            metric: WatermarkMetric::None,
            interval_ns: 5_000_000_000,
            high: 0.0,
            mid: 0.0,
            low: 0.0,
        }
    }
}

/// Whether the scheme is active, and when the metric is next read.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WatermarkState {
    /// Active now.
    pub active: bool,
    /// The next check (ns).
    pub next_check_ns: u64,
    /// Whether it was ever checked.
    pub checked: bool,
}

impl WatermarkState {
    /// At `now_ns`: whether the scheme is active, reading the metric with
    /// `read` when a check is due.
    pub fn update(&mut self, w: &Watermarks, now_ns: u64, read: &mut dyn FnMut() -> f64) -> bool {
        if w.metric == WatermarkMetric::None {
            return true;
        }
        if self.checked && now_ns < self.next_check_ns {
            return self.active;
        }
        self.checked = true;
        self.next_check_ns = now_ns + w.interval_ns;
        let m = read();
        if m > w.high || m < w.low {
            self.active = false;
        } else if m >= w.mid && !self.active {
            // between mid and high while inactive: stay inactive
        } else {
            self.active = true;
        }
        self.active
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The marks against a reference: the kernel's three rules in order.
    #[test]
    fn the_marks_follow_the_kernels_rules() {
        let w = Watermarks {
            metric: WatermarkMetric::FreeMemRate(0),
            interval_ns: 1,
            high: 500.0,
            mid: 400.0,
            low: 200.0,
        };
        let mut s = WatermarkState::default();
        let mut expect = false;
        for (t, m) in [
            450.0, 390.0, 450.0, 600.0, 450.0, 300.0, 150.0, 300.0, 390.0, 500.0, 501.0,
        ]
        .into_iter()
        .enumerate()
        {
            // inside [low, high], and already on or come down below mid
            expect = (w.low..=w.high).contains(&m) && (expect || m < w.mid);
            assert_eq!(s.update(&w, t as u64, &mut || m), expect, "at {m}");
        }
        // only every interval
        let slow = Watermarks {
            interval_ns: 10,
            ..w
        };
        let mut s = WatermarkState::default();
        assert!(s.update(&slow, 0, &mut || 300.0));
        assert!(s.update(&slow, 5, &mut || 900.0), "not checked again yet");
        assert!(!s.update(&slow, 10, &mut || 900.0));
        let none = Watermarks::default();
        assert!(WatermarkState::default().update(&none, 0, &mut || unreachable!()));
    }
}
