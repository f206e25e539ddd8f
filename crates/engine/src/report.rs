//! The JSON report of one run. Everything in it is simulated or counted: no
//! wall-clock figure goes in, so the same inputs give byte-identical JSON.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thermocline_model::MachineStats;
use thermocline_workloads::PhaseMark;

/// One tier's totals.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TierReport {
    /// Preset name.
    pub name: String,
    /// Capacity in bytes.
    pub capacity_bytes: u64,
    /// Time-weighted mean of the bytes backing pages.
    pub avg_resident_bytes: f64,
    /// Application line reads served.
    pub reads: u64,
    /// Application line writes absorbed.
    pub writes: u64,
    /// Dynamic (all traffic, migrations included) plus standby energy, joules.
    pub energy_j: f64,
    /// For a tier whose cells endure a limited number of writes: years
    /// until wear-out at this run's write rate (migrations included), with
    /// wear levelling that reaches 95% of the average cell's lifetime
    /// (Memos 6.3: Start-Gap, 64 B blocks; the model of its reference [71],
    /// endurance x capacity / write bandwidth). Absent without an endurance
    /// limit or without writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lifetime_years: Option<f64>,
}

/// Migration totals.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MigrationTotals {
    /// Pages moved to a faster tier.
    pub promoted_pages: u64,
    /// Pages moved to a slower tier.
    pub demoted_pages: u64,
    /// Bytes moved.
    pub bytes: u64,
}

/// One report window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// Simulated time at the end of the window (s).
    pub t_s: f64,
    /// Bytes backing pages per tier at the end of the window.
    pub resident_bytes: Vec<u64>,
    /// Workload accesses per second of simulated time in the window.
    pub accesses_per_s: f64,
    /// Application accesses served by tiers other than the fastest, per second.
    pub slow_tier_accesses_per_s: f64,
    /// TLB misses to pages of faulting tiers (zswap-like, BadgerTrap-emulated)
    /// per second: each one is a fault, so this is the rate that costs.
    pub slow_tier_faults_per_s: f64,
    /// Mean precision of the hot sets reported in the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precision: Option<f64>,
    /// Mean recall of the hot sets reported in the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recall: Option<f64>,
    /// The manager's gauges at the end of the window (see `Manager::gauges`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub manager: BTreeMap<String, f64>,
}

/// The version of the report's JSON layout (docs/report-schema.md). It
/// changes only when a field is renamed, removed or changes meaning; new
/// fields may appear without it changing.
pub const SCHEMA_VERSION: u32 = 1;

/// A report's `schema_version`: [`SCHEMA_VERSION`] unless read from an
/// older file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SchemaVersion(pub u32);

impl Default for SchemaVersion {
    fn default() -> Self {
        SchemaVersion(SCHEMA_VERSION)
    }
}

/// A byte count as people read it ("1.5 GiB", "4096 B").
pub fn human_bytes(bytes: u64) -> String {
    thermocline_vocab::ByteSize(bytes).to_string()
}

/// The report of one run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`SCHEMA_VERSION`] of the code that wrote it.
    #[serde(default)]
    pub schema_version: SchemaVersion,
    /// Workload as given.
    pub workload: String,
    /// Manager name.
    pub manager: String,
    /// Machine preset.
    pub machine: String,
    /// The seed.
    pub seed: u64,
    /// "exact".
    pub backend: String,
    /// Bytes mapped by the workload's regions.
    pub footprint_bytes: u64,
    /// Bytes the workload touched (4 KiB pages or 2 MiB pages backed).
    pub touched_bytes: u64,
    /// Simulated execution time (s).
    pub sim_time_s: f64,
    /// Simulated time with every page in the fast tier and no manager (s).
    pub ideal_time_s: f64,
    /// Accesses simulated.
    pub accesses: u64,
    /// sim_time / ideal_time - 1.
    pub slowdown: f64,
    /// Per tier.
    pub tiers: Vec<TierReport>,
    /// Migration totals.
    pub migrations: MigrationTotals,
    /// Manager CPU time / simulated time (fraction of one core).
    pub manager_cpu_util: f64,
    /// The ground-truth rule behind precision and recall.
    pub hot_rule: String,
    /// Mean precision over every scored profiling window, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_precision: Option<f64>,
    /// Mean recall over every scored profiling window, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_recall: Option<f64>,
    /// Machine event counts.
    pub stats: MachineStats,
    /// Workload phases.
    pub phases: Vec<PhaseMark>,
    /// Simulated time (s) at which each phase that was reached began.
    pub phase_starts_s: Vec<f64>,
    /// Time series.
    pub windows: Vec<Window>,
    /// What the manager reported hot, per window and address bin (when
    /// `metrics.hot_map_bins` > 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hot_map: Option<HotMap>,
    /// Channels, banks, row buffers, LLC slabs, energy and wear, when the
    /// machine models a memory system (`machine.memory`, the
    /// `dram+pcm-memos` preset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_system: Option<MemorySystemReport>,
    /// Where the simulated time went and what the manager's CPU time was
    /// for (the exact machine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_breakdown: Option<TimeBreakdown>,
    /// What the manager did differently from its paper's fixed mechanism
    /// (`Manager::notes`), for the summaries to show.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Pages allocated per page type (`anon`, `file-cache`, `slab`,
    /// `io-buffer`, `page-table`): 4 KiB pages first touched, a page counted
    /// again each time it is released and touched anew, summed over the
    /// address spaces (the machine's per-type allocation counts). Only for
    /// workloads with regions of a type other than `anon` (the HeteroOS-like
    /// models), on a backend that counts typed allocations; otherwise
    /// absent (for an untyped workload it would be every first touch,
    /// `stats.first_touch_faults` in 4 KiB pages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_allocs: Option<BTreeMap<String, u64>>,
    /// Each tenant of a shared machine (each component of a `mix:A+B`
    /// workload, in its own address space), on the exact machine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tenants: Vec<TenantReport>,
    /// Where each region's pages are at the end, per tier (asked for with
    /// `metrics.region_tiers = true`; on a live host, read back from the
    /// kernel).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regions: Vec<RegionTiers>,
    /// On a live host: what the kernel's own migration and tiering
    /// counters (/proc/vmstat: pgpromote_success, pgdemote_kswapd,
    /// pgdemote_direct, pgmigrate_success, ...) rose by during the run,
    /// host-wide; the daemon fills it in. Absent from simulated runs.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub kernel_vmstat: BTreeMap<String, u64>,
    /// DAMON's regions at every aggregation interval (asked for with
    /// `metrics.damon_regions = true`, from a manager that keeps
    /// DAMON-style regions; on the guest, the kernel's own DAMON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damon: Option<DamonTrace>,
}

/// DAMON's view over a run: its regions with their counts at the end of
/// every aggregation interval, beside the workload's regions and phases on
/// the same clock and in the same address space.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DamonTrace {
    /// Where the snapshots come from (`simulator`; on the guest,
    /// `kernel-trace` for the `damon:damon_aggregated` tracepoint, every
    /// aggregation, or `damon-record` for its snapshots).
    pub source: String,
    /// Samples per aggregation interval: the most `nr_accesses` can be.
    pub max_nr_accesses: u32,
    /// The workload's regions: name, start, end (exclusive).
    pub workload_regions: Vec<(String, u64, u64)>,
    /// The workload's phases as they ran: name, start (s).
    pub phases: Vec<(String, f64)>,
    /// When the workload ended (s).
    pub end_s: f64,
    /// DAMON's regions, one snapshot per aggregation interval.
    pub snapshots: Vec<DamonSnapshot>,
    /// Further views of the same run (on the guest: damon-record's own
    /// snapshots beside the tracepoint's), same fields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<DamonTrace>,
}

/// DAMON's regions at the end of one aggregation interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DamonSnapshot {
    /// When (s, the trace's clock).
    pub t_s: f64,
    /// `[start, end, nr_accesses]`, in address order.
    pub regions: Vec<[u64; 3]>,
}

/// Where one region's pages are at the end of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RegionTiers {
    /// The region's name.
    pub name: String,
    /// Its length in bytes.
    pub bytes: u64,
    /// 4 KiB pages in each tier, fastest first.
    pub pages: Vec<u64>,
    /// Pages neither in a tier nor mapped (never touched, or swapped
    /// outside any tier).
    pub elsewhere: u64,
}

/// One tenant of a shared machine: what it got from each tier.
///
/// The machine's clock is shared (the tenants take turns), so a tenant's
/// own slowdown is estimated from its accesses: `memory_bound_slowdown` is
/// `T / T_fast - 1` with `T = n * compute + sum over tiers of (loads *
/// read_ns + stores * write_ns) / mlp + faults on access x their cost`
/// (swap, zswap), its own core time per access and its own accesses to
/// pages in each tier, and `T_fast` the same with every access priced at
/// the fastest tier and no fault. It counts every access as reaching memory
/// and leaves out TLB misses, first-touch and monitoring faults, migrations
/// and bandwidth queueing: an estimate for comparing tenants and managers,
/// not the machine's clock.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TenantReport {
    /// The component's workload.
    pub workload: String,
    /// Its address space.
    pub asid: u16,
    /// Bytes its regions map.
    pub footprint_bytes: u64,
    /// Per tier, fastest first: bytes its pages held there at the end.
    pub resident_bytes: Vec<u64>,
    /// Per tier: its accesses to pages there.
    pub accesses: Vec<u64>,
    /// Its accesses outside the fastest tier over all of its accesses.
    pub slow_access_share: f64,
    /// Its faults on access to pages in a tier that faults (a swapped page
    /// touched, say).
    #[serde(default)]
    pub tier_faults: u64,
    /// The estimate above.
    pub memory_bound_slowdown: f64,
}

/// Where a run's simulated time went, and what its manager's CPU time was
/// for (seconds). The first five add up to `sim_time_s`: the cores' work
/// per access, the memory hierarchy (TLB walks, LLC, tiers' latency and
/// bandwidth, first-touch and tier faults), monitoring faults and samples,
/// and the all-core stalls of the shootdowns monitoring (flushes after
/// clearing Accessed bits, poisoning) and migrations issued. The manager's
/// CPU time (`manager_cpu_util` x `sim_time_s`) splits into monitoring and
/// migration (copies, remaps, DMA set-up) the same way.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeBreakdown {
    /// The cores' own work per access.
    pub compute_s: f64,
    /// The memory hierarchy.
    pub memory_s: f64,
    /// Monitoring faults (poisoned entries) and samples.
    pub sampling_s: f64,
    /// Shootdowns issued by monitoring.
    pub monitor_shootdown_s: f64,
    /// Shootdowns issued by migrations.
    pub migration_shootdown_s: f64,
    /// Manager CPU time spent monitoring.
    pub monitor_cpu_s: f64,
    /// Manager CPU time spent migrating.
    pub migration_cpu_s: f64,
}

impl TimeBreakdown {
    /// From a machine's time parts (ns), its manager time (ns) and, of
    /// those, the migrations' (manager ns, all-core stall ns).
    pub fn of(
        p: &thermocline_model::TimeParts,
        manager_ns: f64,
        (migration_cpu, migration_stall): (f64, f64),
    ) -> Self {
        TimeBreakdown {
            compute_s: p.compute_ns / 1e9,
            memory_s: p.memory_ns / 1e9,
            sampling_s: p.sampling_ns / 1e9,
            monitor_shootdown_s: (p.shootdown_ns - migration_stall).max(0.0) / 1e9,
            migration_shootdown_s: migration_stall.min(p.shootdown_ns) / 1e9,
            monitor_cpu_s: (manager_ns - migration_cpu).max(0.0) / 1e9,
            migration_cpu_s: migration_cpu / 1e9,
        }
    }
}

/// The memory system's counts (Memos sections 4.2 and 6.3).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MemorySystemReport {
    /// LLC misses per slab (page colour, the mapping's slab bits).
    pub llc_slab_misses: Vec<u64>,
    /// Most-missed slab's misses over the mean (1 = even; 0 without misses).
    pub llc_slab_imbalance: f64,
    /// One per channel (tier), fastest first.
    pub channels: Vec<ChannelReport>,
}

/// One channel's banks, row buffers, energy and wear.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChannelReport {
    /// The tier behind the channel.
    pub tier: String,
    /// Line reads and write-backs that reached each bank.
    pub bank_accesses: Vec<u64>,
    /// Busiest bank's accesses over the mean (1 = even; 0 without any).
    pub bank_imbalance: f64,
    /// Requests served from the open row.
    pub row_hits: u64,
    /// Requests served by a precharged bank.
    pub row_empty: u64,
    /// Requests that closed another row.
    pub row_conflicts: u64,
    /// row_hits over every request served (0 without any).
    pub row_hit_rate: f64,
    /// Dynamic read energy of every line read (migrations included), J:
    /// the tier's pJ/bit (Memos Table 1: DRAM 1.17, NVM 2.47).
    pub read_energy_j: f64,
    /// Dynamic write energy, J (Table 1: DRAM 0.39, NVM 16.82 pJ/bit).
    pub write_energy_j: f64,
    /// Standby (and refresh) energy over the run, J: DRAM 1 + 0.032 W/GB
    /// (Table 1); Table 1 gives none for NVM, which the presets take as
    /// 0.1 W/GB, no refresh (*inferred*).
    pub standby_energy_j: f64,
    /// Wear of a tier whose cells endure a limited number of writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wear: Option<WearReport>,
}

/// Write wear and the lifetime it implies (Memos 6.3: endurance 1e7, 64 B
/// blocks, Start-Gap levelling that reaches 95% of the average cell's
/// lifetime).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WearReport {
    /// Bytes per counted group (64: every line).
    pub group_bytes: u64,
    /// Line writes to the most written group (migration copies included).
    pub max_group_writes: u64,
    /// Mean line writes per group.
    pub mean_group_writes: f64,
    /// Line writes per bank.
    pub bank_writes: Vec<u64>,
    /// Years until the first bank wears out with Start-Gap levelling each
    /// bank on its own (Start-Gap's regions; Table 1's NVM has one per bank):
    /// 0.95 x endurance x lines per bank / the busiest bank's line writes
    /// per second. Absent without writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lifetime_years_start_gap: Option<f64>,
    /// Years until the most written group wears out without levelling,
    /// its writes taken as spread over its lines (exact when
    /// `group_bytes` is 64, else an upper bound). Absent without writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lifetime_years_unlevelled: Option<f64>,
}

/// Reported hot sets over time, as Telescope's Figure 7 draws them: for each
/// report window, the fraction of each address bin (of address space 0,
/// from its lowest to its highest mapped byte) that the manager's last report
/// in the window called hot.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HotMap {
    /// First byte of the first bin.
    pub lo: u64,
    /// One past the last byte of the last bin.
    pub hi: u64,
    /// `rows[window][bin]`, in [0, 1].
    pub rows: Vec<Vec<f32>>,
}

impl HotMap {
    /// An empty map of `bins` bins over `[lo, hi)`.
    pub fn new(lo: u64, hi: u64, bins: usize) -> (Self, Vec<f32>) {
        (
            HotMap {
                lo,
                hi,
                rows: Vec::new(),
            },
            vec![0.0; bins],
        )
    }

    /// The coverage of `ranges` (address space 0) over `bins` bins.
    pub fn coverage(&self, ranges: &[(u16, u64, u64)], bins: &mut [f32]) {
        bins.iter_mut().for_each(|b| *b = 0.0);
        let n = bins.len() as u64;
        if n == 0 || self.hi <= self.lo {
            return;
        }
        let span = self.hi - self.lo;
        let bin_bytes = span as f64 / n as f64;
        for &(asid, start, len) in ranges {
            if asid != 0 {
                continue;
            }
            let (a, b) = (start.max(self.lo), (start + len).min(self.hi));
            if b <= a {
                continue;
            }
            let first = ((a - self.lo) as f64 / bin_bytes) as usize;
            let last = (((b - self.lo) as f64 / bin_bytes).ceil() as usize).min(bins.len());
            for (i, bin) in bins.iter_mut().enumerate().take(last).skip(first) {
                let lo = self.lo as f64 + i as f64 * bin_bytes;
                let hi = lo + bin_bytes;
                let overlap = (b as f64).min(hi) - (a as f64).max(lo);
                if overlap > 0.0 {
                    *bin += (overlap / bin_bytes) as f32;
                }
            }
        }
        bins.iter_mut().for_each(|b| *b = b.min(1.0));
    }
}

impl Report {
    /// A manager gauge as the last window recorded it (0 when the run has
    /// no window or the manager no such gauge): the run's final count of a
    /// cumulative `..._count` gauge.
    pub fn last_gauge(&self, name: &str) -> f64 {
        self.windows
            .last()
            .and_then(|w| w.manager.get(name))
            .copied()
            .unwrap_or(0.0)
    }

    /// Pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("reports serialise");
        s.push('\n');
        s
    }
}
