//! One memory access, as workloads issue it and machines replay it.

/// One memory access of the workload.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// Virtual address.
    pub va: u64,
    /// Address space.
    pub asid: u16,
    /// Core (thread) issuing it.
    pub core: u16,
    /// A store (else a load).
    pub write: bool,
}
