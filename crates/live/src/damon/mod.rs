//! DAMON's sysfs interface (/sys/kernel/mm/damon/admin, Linux >= 5.18).
//!
//! Writing `nr_kdamonds` rebuilds every kdamond directory, so the live
//! backend only uses DAMON when no kdamond exists that it did not create: it
//! never takes over another user's (../shared/reference/live-testbed.md).

mod session;

pub use session::{DamonAttrs, DamonOps, DamonRegion, DamonSession, Range, Scheme, SchemeStats};

use crate::procfs::read;
use crate::LiveError;
use std::path::{Path, PathBuf};

/// DAMON's sysfs root.
pub const ADMIN: &str = "/sys/kernel/mm/damon/admin";

/// One kdamond as sysfs shows it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Kdamond {
    /// Its index under kdamonds/.
    pub index: u32,
    /// `on` or `off`.
    pub state: String,
    /// Its kernel thread's pid when on.
    pub pid: Option<i32>,
}

/// The kdamonds that exist now; `Unsupported` without DAMON's sysfs.
pub fn kdamonds() -> Result<Vec<Kdamond>, LiveError> {
    kdamonds_in(Path::new(ADMIN))
}

fn kdamonds_in(admin: &Path) -> Result<Vec<Kdamond>, LiveError> {
    let dir = admin.join("kdamonds");
    let nr_path = dir.join("nr_kdamonds");
    if !nr_path.exists() {
        return Err(LiveError::Unsupported {
            feature: "damon",
            why: format!("{} is missing (CONFIG_DAMON_SYSFS)", nr_path.display()),
        });
    }
    let nr: u32 = read(&nr_path, None)?
        .trim()
        .parse()
        .map_err(|_| LiveError::Parse {
            path: nr_path.clone(),
            line: 1,
            why: "not a number".into(),
        })?;
    let mut out = Vec::new();
    for index in 0..nr {
        let k: PathBuf = dir.join(index.to_string());
        let state = read(&k.join("state"), None)?.trim().to_string();
        let pid = read(&k.join("pid"), None)?
            .trim()
            .parse()
            .ok()
            .filter(|&p: &i32| p > 0);
        out.push(Kdamond { index, state, pid });
    }
    Ok(out)
}

/// Refuses to use DAMON when kdamonds exist that this process did not
/// create, naming them.
pub fn ensure_unowned(ours: &[u32]) -> Result<(), LiveError> {
    let others: Vec<Kdamond> = kdamonds()?
        .into_iter()
        .filter(|k| !ours.contains(&k.index))
        .collect();
    if others.is_empty() {
        return Ok(());
    }
    refuse(&others)
}

/// The error that names other users' kdamonds.
fn refuse(others: &[Kdamond]) -> Result<(), LiveError> {
    let names: Vec<String> = others
        .iter()
        .map(|k| match k.pid {
            Some(p) => format!("kdamond {} ({}, pid {p})", k.index, k.state),
            None => format!("kdamond {} ({})", k.index, k.state),
        })
        .collect();
    Err(LiveError::Busy(format!(
        "DAMON is in use by someone else: {}; thermocline does not take over kdamonds it did not create (writing nr_kdamonds would rebuild theirs): use another telemetry or stop them",
        names.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake(nr: u32, states: &[(&str, i32)]) -> tempdir::Dir {
        let d = tempdir::Dir::new();
        let k = d.path().join("kdamonds");
        std::fs::create_dir_all(&k).unwrap();
        std::fs::write(k.join("nr_kdamonds"), format!("{nr}\n")).unwrap();
        for (i, (state, pid)) in states.iter().enumerate() {
            let e = k.join(i.to_string());
            std::fs::create_dir_all(&e).unwrap();
            std::fs::write(e.join("state"), format!("{state}\n")).unwrap();
            std::fs::write(e.join("pid"), format!("{pid}\n")).unwrap();
        }
        d
    }

    mod tempdir {
        pub struct Dir(std::path::PathBuf);
        impl Dir {
            pub fn new() -> Self {
                use std::sync::atomic::{AtomicU32, Ordering};
                static N: AtomicU32 = AtomicU32::new(0);
                let p = std::env::temp_dir().join(format!(
                    "thermocline-damon-{}-{}",
                    std::process::id(),
                    N.fetch_add(1, Ordering::Relaxed)
                ));
                std::fs::create_dir_all(&p).unwrap();
                Dir(p)
            }
            pub fn path(&self) -> &std::path::Path {
                &self.0
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    #[test]
    fn kdamonds_read_with_their_state_and_pid() {
        let d = fake(2, &[("on", 77), ("off", -1)]);
        let k = kdamonds_in(d.path()).unwrap();
        assert_eq!(k.len(), 2);
        assert_eq!(k[0].pid, Some(77));
        assert_eq!(k[1].state, "off");
        assert_eq!(k[1].pid, None);
    }

    #[test]
    fn no_sysfs_is_unsupported() {
        let d = tempdir::Dir::new();
        let e = kdamonds_in(d.path()).unwrap_err();
        assert!(
            matches!(
                e,
                LiveError::Unsupported {
                    feature: "damon",
                    ..
                }
            ),
            "{e}"
        );
    }
}
