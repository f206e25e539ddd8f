//! Keeps each reproduction run's report on disk, so that an interrupted
//! `reproduce --cache DIR` resumes where it stopped instead of starting the
//! hours-long reproductions over.
//!
//! A run is keyed by everything that decides its report: the commit of the
//! code, the seed, the duration cap, the workload, the manager and the
//! overrides. Runs are deterministic, so a stored report is the report a
//! rerun would give; the commit in the key keeps a cache from one version of
//! the code out of another's results. A tree with uncommitted changes has no
//! such name, so the cache refuses it.

use crate::error::{ConfigError, RunError};
use crate::report::Report;
use crate::reproduction::{Options, RunSpec};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A directory of stored run reports for one commit.
#[derive(Clone, Debug)]
pub struct RunCache {
    dir: PathBuf,
    commit: String,
}

/// One stored run: its full key (checked on load, so a hash collision reads
/// as a miss) and its report.
#[derive(Serialize, Deserialize)]
struct Entry {
    key: String,
    report: Report,
}

impl RunCache {
    /// A cache in `dir` (created if missing) for the code at `commit`.
    /// Refuses a dirty or unknown commit: its runs could not be told apart
    /// from those of the next edit.
    pub fn open(dir: impl Into<PathBuf>, commit: &str) -> Result<Self, RunError> {
        let dir = dir.into();
        if commit.is_empty() || commit == "unknown" || commit.ends_with("-dirty") {
            return Err(ConfigError::invalid(
                "--cache",
                format!("runs are keyed by commit and this tree is at {commit:?}: commit (or stash) the changes first"),
            )
            .into());
        }
        std::fs::create_dir_all(&dir).map_err(|e| RunError::Output {
            path: dir.display().to_string(),
            msg: e.to_string(),
        })?;
        Ok(RunCache {
            dir,
            commit: commit.to_string(),
        })
    }

    fn key(&self, spec: &RunSpec, o: &Options) -> String {
        format!(
            "commit={}\nseed={}\nduration_s={:?}\nworkload={}\nmanager={}\nsets={}",
            self.commit,
            o.seed,
            o.duration_s,
            spec.workload,
            spec.manager,
            spec.sets.join("\n     ")
        )
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir
            .join(format!("{:016x}.json", fnv1a(key.as_bytes())))
    }

    /// The stored report of this run, if there is one for this commit.
    /// An unreadable or foreign file is a miss: the run is made again.
    pub fn load(&self, spec: &RunSpec, o: &Options) -> Option<Report> {
        let key = self.key(spec, o);
        let text = std::fs::read_to_string(self.path(&key)).ok()?;
        let entry: Entry = serde_json::from_str(&text).ok()?;
        (entry.key == key).then_some(entry.report)
    }

    /// Stores a run's report. A report that would not read back identical
    /// (a NaN in it, say) is not stored: a resumed reproduction must give
    /// the bytes a fresh one gives. Written whole, then renamed into place,
    /// so an interruption leaves no half file.
    pub fn store(&self, spec: &RunSpec, o: &Options, report: &Report) -> Result<(), RunError> {
        let key = self.key(spec, o);
        let entry = Entry {
            key: key.clone(),
            report: report.clone(),
        };
        let text = serde_json::to_string(&entry).expect("reports serialise");
        match serde_json::from_str::<Entry>(&text) {
            Ok(back) if back.report == *report => {}
            _ => return Ok(()),
        }
        let path = self.path(&key);
        let tmp = path.with_extension("json.tmp");
        let fail = |e: std::io::Error| RunError::Output {
            path: path.display().to_string(),
            msg: e.to_string(),
        };
        std::fs::write(&tmp, text).map_err(fail)?;
        std::fs::rename(&tmp, &path).map_err(fail)
    }
}

/// 64-bit FNV-1a: a file name that is the same on every machine and every
/// Rust version (the standard hasher promises neither).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{TierReport, Window};

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("thermocline-cache-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn report() -> Report {
        Report {
            workload: "w".into(),
            slowdown: 0.1 + 0.2,
            sim_time_s: 1.0 / 3.0,
            tiers: vec![TierReport {
                name: "t".into(),
                energy_j: 1e-300,
                lifetime_years: Some(std::f64::consts::PI),
                ..Default::default()
            }],
            windows: vec![Window {
                t_s: 0.7,
                precision: Some(2.0f64.sqrt()),
                ..Default::default()
            }],
            notes: vec!["n".into()],
            ..Default::default()
        }
    }

    const O: Options = Options {
        duration_s: Some(2.5),
        seed: 7,
    };

    #[test]
    fn a_stored_report_reads_back_identical_and_only_for_its_own_key() {
        let c = RunCache::open(dir("roundtrip"), "abc123").unwrap();
        let spec = RunSpec::new("w", "m", &["a.b=1"]);
        assert!(c.load(&spec, &O).is_none());
        c.store(&spec, &O, &report()).unwrap();
        assert_eq!(c.load(&spec, &O), Some(report()));
        assert_eq!(c.load(&spec, &O).unwrap().to_json(), report().to_json());
        let other = RunSpec::new("w", "m", &["a.b=2"]);
        assert!(c.load(&other, &O).is_none());
        assert!(c.load(&spec, &Options { seed: 8, ..O }).is_none());
        let next_commit = RunCache::open(&c.dir, "def456").unwrap();
        assert!(next_commit.load(&spec, &O).is_none());
    }

    #[test]
    fn a_report_that_would_not_read_back_is_not_stored() {
        let c = RunCache::open(dir("nan"), "abc123").unwrap();
        let spec = RunSpec::new("w", "m", &[]);
        let mut r = report();
        r.slowdown = f64::NAN;
        c.store(&spec, &O, &r).unwrap();
        assert!(c.load(&spec, &O).is_none());
    }

    #[test]
    fn a_dirty_tree_has_no_cache() {
        for commit in ["abc-dirty", "unknown", ""] {
            let e = RunCache::open(dir("dirty"), commit).unwrap_err();
            assert!(e.to_string().contains("--cache"), "{e}");
            assert_eq!(e.exit_code(), 2);
        }
    }
}
