//! Event counters both simulated machines keep for reports.

/// Counts the machine keeps for reports.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MachineStats {
    /// Workload accesses.
    pub accesses: u64,
    /// Accesses that missed the L1 dTLB.
    pub l1_tlb_misses: u64,
    /// Accesses that missed the STLB too (hardware walks).
    pub walks: u64,
    /// Page-table entries read by hardware walks.
    pub walk_entries: u64,
    /// LLC misses (every access when the LLC is off).
    pub llc_misses: u64,
    /// Demand-paging faults (first touch).
    pub first_touch_faults: u64,
    /// BadgerTrap-style faults on poisoned pages.
    pub poison_faults: u64,
    /// Faults on pages of a tier that is not byte-addressable.
    pub tier_faults: u64,
    /// Pages moved to the fast tier by such faults.
    pub tier_fault_promotions: u64,
    /// Pages moved to a faster tier by the manager.
    pub promoted_pages: u64,
    /// Pages moved to a slower tier by the manager.
    pub demoted_pages: u64,
    /// Bytes moved by the manager.
    pub migrated_bytes: u64,
    /// TLB shootdowns (each interrupts every core).
    pub shootdowns: u64,
    /// PEBS-like samples taken.
    pub samples: u64,
}
