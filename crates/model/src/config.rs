//! Configuration of the exact machine: plain serde types, kept apart from state.

use crate::costs::CostTable;
use crate::memsys::MemSysConfig;
use crate::tiers::TierSpec;
use serde::{Deserialize, Serialize};

/// TLB geometry and translation costs. Defaults: a Skylake-SP-like core
/// (../shared/reference/paging.md): L1 dTLB 64 entries 4-way for 4 KiB and
/// 32 entries 4-way for 2 MiB, a unified 1536-entry 12-way STLB.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TlbConfig {
    /// L1 dTLB entries for 4 KiB pages.
    pub l1_base_entries: usize,
    /// Their associativity.
    pub l1_base_ways: usize,
    /// L1 dTLB entries for 2 MiB pages.
    pub l1_huge_entries: usize,
    /// Their associativity.
    pub l1_huge_ways: usize,
    /// Unified second-level TLB entries (4 KiB and 2 MiB).
    pub stlb_entries: usize,
    /// Its associativity.
    pub stlb_ways: usize,
    /// Extra latency of an L1 miss that hits the STLB: 9 cycles at 2.5 GHz
    /// (Intel optimisation manual, Skylake).
    pub stlb_hit_ns: f64,
    /// Cost of each page-table entry a hardware walk reads (*inferred*: ~20
    /// cycles, an L2 hit, since page-table lines are usually cached).
    pub walk_level_ns: f64,
    /// Paging-structure-cache entries: PML4, PDPTE, PDE caches (*inferred*).
    pub psc_entries: [usize; 3],
}

impl Default for TlbConfig {
    fn default() -> Self {
        TlbConfig {
            l1_base_entries: 64,
            l1_base_ways: 4,
            l1_huge_entries: 32,
            l1_huge_ways: 4,
            stlb_entries: 1536,
            stlb_ways: 12,
            stlb_hit_ns: 3.6,
            walk_level_ns: 8.0,
            psc_entries: [2, 4, 32],
        }
    }
}

/// The largest TLB simulated (every core holds its own): 40 times a
/// Skylake STLB, and a bound on the memory a configuration can ask for.
pub const MAX_TLB_ENTRIES: usize = 1 << 16;

/// The largest paging-structure cache simulated.
pub const MAX_PSC_ENTRIES: usize = 1024;

/// The number of sets of a TLB of `entries` entries and `ways` ways, if both
/// machines can simulate it: at most [`MAX_TLB_ENTRIES`], a whole number of
/// sets, and a power of two of them (sets are indexed by page-number bits).
pub fn tlb_sets(entries: usize, ways: usize) -> Result<usize, String> {
    if entries > MAX_TLB_ENTRIES {
        return Err(format!(
            "TLB of {entries} entries: at most {MAX_TLB_ENTRIES} are simulated"
        ));
    }
    if ways == 0 || entries == 0 || !entries.is_multiple_of(ways) {
        return Err(format!(
            "TLB of {entries} entries cannot be {ways}-way set-associative"
        ));
    }
    let sets = entries / ways;
    if !sets.is_power_of_two() {
        return Err(format!(
            "TLB of {entries} entries, {ways}-way, has {sets} sets: not a power of two"
        ));
    }
    Ok(sets)
}

impl TlbConfig {
    /// Checks the geometry both machines need (see [`tlb_sets`]) and the
    /// paging-structure caches' sizes.
    pub fn check(&self) -> Result<(), String> {
        tlb_sets(self.l1_base_entries, self.l1_base_ways)?;
        tlb_sets(self.l1_huge_entries, self.l1_huge_ways)?;
        tlb_sets(self.stlb_entries, self.stlb_ways)?;
        if self.psc_entries.iter().any(|&n| n > MAX_PSC_ENTRIES) {
            return Err(format!(
                "paging-structure caches of {:?} entries: at most {MAX_PSC_ENTRIES} each",
                self.psc_entries
            ));
        }
        let costs = [self.stlb_hit_ns, self.walk_level_ns];
        if costs.iter().any(|c| !(c.is_finite() && *c >= 0.0)) {
            return Err("tlb.stlb_hit_ns and tlb.walk_level_ns must be finite and >= 0".into());
        }
        Ok(())
    }
}

/// The optional last-level cache. Off by default: then every access the
/// workload makes is a memory access.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LlcConfig {
    /// Size in bytes; 0 turns the LLC off.
    pub bytes: u64,
    /// Associativity.
    pub ways: usize,
    /// Latency of a hit (ns), charged as core time.
    pub hit_ns: f64,
}

impl Default for LlcConfig {
    fn default() -> Self {
        LlcConfig {
            bytes: 0,
            ways: 16,
            hit_ns: 15.0,
        }
    }
}

/// How accesses become time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PerfConfig {
    /// Memory-level parallelism: misses a core overlaps on average, so a miss
    /// stalls it for latency / mlp (*inferred* default 4; an out-of-order core
    /// has ~10 line-fill buffers, pointer chasing gets 1).
    pub mlp: f64,
    /// Core time between two memory accesses of one thread (ns); set from the
    /// workload.
    pub compute_ns: f64,
    /// Threads running the workload, one per core; set from the workload.
    pub threads: usize,
    /// How latency-bound and bandwidth-bound time combine: `None` takes the
    /// larger (a hard knee); `Some(n)` takes (lat^n + bw^n)^(1/n), which
    /// rounds the knee as queueing does near saturation (fitted to Ambix's
    /// IWB tables for the `dram+dcpmm-ambix` machine).
    #[serde(default)]
    pub saturation_exponent: Option<f64>,
}

impl Default for PerfConfig {
    fn default() -> Self {
        PerfConfig {
            mlp: 4.0,
            compute_ns: 0.0,
            threads: 1,
            saturation_exponent: None,
        }
    }
}

/// The whole machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineConfig {
    /// Tiers, fastest first; capacities must be set.
    pub tiers: Vec<TierSpec>,
    /// TLBs and walks.
    #[serde(default)]
    pub tlb: TlbConfig,
    /// Last-level cache.
    #[serde(default)]
    pub llc: LlcConfig,
    /// Performance model.
    #[serde(default)]
    pub perf: PerfConfig,
    /// Costs charged for primitives.
    #[serde(default)]
    pub costs: CostTable,
    /// Seed of the machine's own random streams (sample jitter, random policy).
    #[serde(default)]
    pub seed: u64,
    /// The memory system (channels, banks, row buffers, controllers), if
    /// modelled; `None` (the default) keeps memory a latency and a
    /// bandwidth per tier.
    #[serde(default)]
    pub memory: Option<MemSysConfig>,
}

impl MachineConfig {
    /// The memory system, if it is modelled and enabled.
    pub fn memory_system(&self) -> Option<&MemSysConfig> {
        self.memory.as_ref().filter(|m| m.enabled)
    }
}

impl MachineConfig {
    /// A machine of `tiers` (capacities set) with every other part at its
    /// default and seed 1, for tests and benches that vary one part:
    /// `MachineConfig { perf, ..MachineConfig::with_tiers(t) }`.
    pub fn with_tiers(tiers: Vec<TierSpec>) -> Self {
        MachineConfig {
            tiers,
            tlb: Default::default(),
            llc: Default::default(),
            perf: Default::default(),
            costs: Default::default(),
            seed: 1,
            memory: None,
        }
    }
}
