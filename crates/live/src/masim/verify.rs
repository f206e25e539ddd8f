//! A verification of every region and the line it prints.

use super::content::PAGE;
use super::region::Region;
use serde::Serialize;

/// What asked for a verification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    /// SIGUSR1.
    Signal,
    /// The end of the run.
    End,
}

/// One verification of every region.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verification {
    /// Seconds since the run started.
    pub at_s: f64,
    /// Why it ran.
    pub trigger: Trigger,
    /// Pages checked.
    pub pages: u64,
    /// Bytes checked.
    pub bytes: u64,
    /// Bytes that differ from what they should hold.
    pub corrupted_bytes: u64,
    /// Writes that did not reach memory (page and shadow counters apart).
    pub lost_writes: u64,
    /// Pages with either.
    pub bad_pages: u64,
}

impl Verification {
    /// Every byte and every write as it should be.
    pub fn clean(&self) -> bool {
        self.corrupted_bytes == 0 && self.lost_writes == 0
    }

    /// The line printed on stdout.
    pub fn line(&self) -> String {
        format!(
            "masim: verified {} pages ({:.1} MiB), {} corrupted bytes, {} lost writes",
            self.pages,
            self.bytes as f64 / (1u64 << 20) as f64,
            self.corrupted_bytes,
            self.lost_writes
        )
    }
}

/// Checks every region.
pub(super) fn verify(regions: &[Region], at_s: f64, trigger: Trigger) -> Verification {
    let mut v = Verification {
        at_s,
        trigger,
        pages: 0,
        bytes: 0,
        corrupted_bytes: 0,
        lost_writes: 0,
        bad_pages: 0,
    };
    for r in regions {
        let t = r.check();
        v.pages += r.pages() as u64;
        v.corrupted_bytes += t.corrupted_bytes;
        v.lost_writes += t.lost_writes;
        v.bad_pages += t.bad_pages;
    }
    v.bytes = v.pages * PAGE;
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_pages_size_and_findings() {
        let regions = [
            Region::new("a", 0, 12000, 1).unwrap(),
            Region::new("b", 1, 800, 1).unwrap(),
        ];
        let v = verify(&regions, 1.5, Trigger::End);
        assert!(v.clean());
        assert_eq!(
            v.line(),
            "masim: verified 12800 pages (50.0 MiB), 0 corrupted bytes, 0 lost writes"
        );
    }
}
