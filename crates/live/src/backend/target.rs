//! The processes the live backend was given: one pid, every process of a
//! cgroup v2 directory, or a command it started itself.

use crate::pagemap::Pagemap;
use crate::procfs;
use crate::sys;
use crate::LiveError;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use thermocline_vocab::Asid;

/// What to tier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetSpec {
    /// One process.
    Pid(i32),
    /// Every process in a cgroup v2 directory, as they come and go.
    Cgroup(PathBuf),
}

/// One process being tiered: an address space of the backend interface.
pub struct Process {
    /// Its pid.
    pub pid: i32,
    /// Its address space id in the backend interface.
    pub asid: Asid,
    /// Its pagemap, kept open.
    pub(crate) pagemap: Pagemap,
    /// A pidfd for process_madvise (None on kernels without pidfd_open).
    pub(crate) pidfd: Option<OwnedFd>,
    /// Its /proc/PID/mem, read-only, to fault a swapped page back in (None
    /// without ptrace-attach access).
    pub(crate) mem: Option<std::fs::File>,
    /// False once it has exited.
    pub alive: bool,
}

impl Process {
    /// Attaches to `pid`: opens its pagemap (ptrace-read access) and a
    /// pidfd. Typed errors: [`LiveError::Exited`], [`LiveError::Permission`].
    pub fn attach(pid: i32, asid: Asid) -> Result<Self, LiveError> {
        let pagemap = Pagemap::open(pid)?;
        let pidfd = match sys::pidfd_open(pid) {
            Ok(fd) => Some(fd),
            Err(e) if e.raw_os_error() == Some(libc::ESRCH) => {
                return Err(LiveError::Exited { pid })
            }
            Err(_) => None,
        };
        let mem = std::fs::File::open(format!("/proc/{pid}/mem")).ok();
        Ok(Process {
            pid,
            asid,
            pagemap,
            pidfd,
            mem,
            alive: true,
        })
    }

    /// Faults the page of `va` back in by reading one byte of it through
    /// /proc/PID/mem (the kernel swaps it in and maps it, as a touch by the
    /// process would; nothing is written). Returns whether it worked.
    pub(crate) fn fault_in(&self, va: u64) -> bool {
        use std::os::unix::fs::FileExt;
        let mut b = [0u8; 1];
        self.mem
            .as_ref()
            .is_some_and(|m| m.read_at(&mut b, va).is_ok_and(|n| n == 1))
    }

    /// Whether the process still exists (and is not a zombie).
    pub fn check_alive(&mut self) -> bool {
        if self.alive {
            let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid));
            self.alive = match stat {
                Ok(s) => !s
                    .rfind(')')
                    .map(|i| s[i + 1..].trim_start().starts_with(['Z', 'X']))
                    .unwrap_or(true),
                Err(_) => false,
            };
        }
        self.alive
    }
}

/// The pids in a cgroup v2 directory now.
pub fn cgroup_pids(dir: &Path) -> Result<Vec<i32>, LiveError> {
    let path = dir.join("cgroup.procs");
    let text = procfs::read(&path, None)?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            l.trim().parse().map_err(|_| LiveError::Parse {
                path: path.clone(),
                line: i + 1,
                why: format!("not a pid: {l:?}"),
            })
        })
        .collect()
}
