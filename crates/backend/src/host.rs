//! What kind of failure a live host's refusal is: shared by the live
//! backend, which classifies its errors, the engine, whose typed run error
//! carries the kind, and the binaries, which give each kind an exit code.

/// What kind of host failure an error is: the host refused or lacks
/// something, as opposed to a value the caller gave. Each has its own exit
/// code in the CLI and its own advice ([`HostKind::advice`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostKind {
    /// The kernel refused for lack of privilege (EPERM, EACCES).
    Permission,
    /// The kernel lacks a feature (ENOSYS, EOPNOTSUPP, a missing sysfs or
    /// procfs knob, the live backend's typed `Unsupported`).
    MissingFeature,
    /// The target process is gone (ESRCH, its /proc directory vanished).
    TargetGone,
    /// The host is out of memory (ENOMEM).
    OutOfMemory,
}

impl HostKind {
    /// A short name, for logs and messages (`permission`, `missing-feature`,
    /// `target-gone`, `out-of-memory`).
    pub fn name(self) -> &'static str {
        match self {
            HostKind::Permission => "permission",
            HostKind::MissingFeature => "missing-feature",
            HostKind::TargetGone => "target-gone",
            HostKind::OutOfMemory => "out-of-memory",
        }
    }

    /// What to do about it, in a clause.
    pub fn advice(self) -> &'static str {
        match self {
            HostKind::Permission => "run thermocline as root, or grant it CAP_SYS_ADMIN and CAP_SYS_NICE (and ptrace access to the target)",
            HostKind::MissingFeature => "this kernel lacks it: enable the kernel option (CONFIG_NUMA, CONFIG_MIGRATION, CONFIG_DAMON_VADDR, CONFIG_DAMON_PADDR, CONFIG_MEM_SOFT_DIRTY, CONFIG_SWAP...) or load its module; `thermocline probe` lists what this host has",
            HostKind::TargetGone => "start the target again, or name a running process",
            HostKind::OutOfMemory => "the host is out of memory: free memory (or room on the target node), or ask for less",
        }
    }
}
