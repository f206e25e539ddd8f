//! Zipf-distributed ranks by rejection-inversion (Hörmann and Derflinger, 1996):
//! O(1) per draw with no table, so it works for any item count.

use thermocline_vocab::Rng;

/// Draws ranks in `0..n` with P(k) proportional to 1/(k+1)^s.
#[derive(Clone, Debug)]
pub struct Zipf {
    n: f64,
    s: f64,
    h_x1: f64,
    h_n: f64,
    threshold: f64,
}

impl Zipf {
    /// A generator for `n` >= 1 items and exponent `s` > 0.
    pub fn new(n: u64, s: f64) -> Self {
        let n = n.max(1) as f64;
        let mut z = Zipf {
            n,
            s,
            h_x1: 0.0,
            h_n: 0.0,
            threshold: 0.0,
        };
        z.h_x1 = z.h(1.5) - 1.0;
        z.h_n = z.h(n + 0.5);
        z.threshold = 2.0 - z.h_inv(z.h(2.5) - 2f64.powf(-s));
        z
    }

    fn h(&self, x: f64) -> f64 {
        let e = 1.0 - self.s;
        if e.abs() < 1e-9 {
            x.ln()
        } else {
            (x.powf(e) - 1.0) / e
        }
    }

    fn h_inv(&self, x: f64) -> f64 {
        let e = 1.0 - self.s;
        if e.abs() < 1e-9 {
            x.exp()
        } else {
            (1.0 + e * x).powf(1.0 / e)
        }
    }

    /// One rank in `0..n`; rank 0 is the most popular.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        loop {
            let u = self.h_n + rng.unit() * (self.h_x1 - self.h_n);
            let x = self.h_inv(u);
            let k = (x + 0.5).floor().clamp(1.0, self.n);
            if k - x <= self.threshold || u >= self.h(k + 0.5) - k.powf(-self.s) {
                return k as u64 - 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequencies_follow_power_law() {
        let z = Zipf::new(1000, 1.0);
        let mut rng = Rng::new(3);
        let mut hist = vec![0u32; 1000];
        for _ in 0..200_000 {
            hist[z.sample(&mut rng) as usize] += 1;
        }
        // P(0)/P(1) = 2 and P(0)/P(9) = 10 for s = 1.
        let r1 = hist[0] as f64 / hist[1] as f64;
        let r9 = hist[0] as f64 / hist[9] as f64;
        assert!((1.8..2.2).contains(&r1), "{r1}");
        assert!((8.5..11.5).contains(&r9), "{r9}");
    }
}
