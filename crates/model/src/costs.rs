//! The costs the simulated backends charge for each primitive, in one place so
//! that reports can cite them and a reader can check them.
//!
//! Sources: ../shared/reference/devices.md (HeteroOS Table 6 migration costs,
//! Memos section 5.3 copy costs), Thermostat section 4.2 (BadgerTrap fault ~1 us).
//! Values marked *inferred* have no measurement behind them in the papers; they
//! are order-of-magnitude estimates from the Intel optimisation manual and kernel
//! folklore, stated here so they can be changed in one place.

use serde::{Deserialize, Serialize};

/// Costs in nanoseconds of CPU time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CostTable {
    /// Software read (and optional clear) of one leaf page-table entry,
    /// including the walk to it from the root: *inferred*, ~4 dependent
    /// cache-hitting loads. An upper-level entry costs its share of the walk
    /// ([`CostTable::entry_access_at`]).
    pub entry_access_ns: f64,
    /// INVLPG of one page on one core: *inferred* (~250 cycles at 2.5 GHz).
    pub invlpg_ns: f64,
    /// Full TLB flush on one core: *inferred*.
    pub full_flush_ns: f64,
    /// Inter-processor interrupt for a shootdown, per remote core: *inferred*
    /// (a few microseconds is the usual figure).
    pub shootdown_ipi_ns: f64,
    /// One BadgerTrap poison fault: Thermostat section 4.2 measured ~1 us.
    pub poison_fault_ns: f64,
    /// A minor page fault that allocates and zeroes a 4 KiB page: *inferred*.
    pub first_touch_fault_ns: f64,
    /// Splitting a huge page into 512 PTEs: *inferred* (filling a page of
    /// entries plus a PMD update).
    pub split_huge_ns: f64,
    /// Handling one PEBS record (buffer drain, per sample): *inferred*.
    pub sample_ns: f64,
    /// Per-4 KiB migration cost (page move + page walk) by batch size, from
    /// HeteroOS Table 6: (batch pages, move us, walk us). Interpolated in
    /// log(batch), clamped at the ends.
    pub migration_table: Vec<(f64, f64, f64)>,
    /// Copy bandwidth of one kernel thread for a 2 MiB migration (GB/s):
    /// *inferred* (no measured 2 MiB migration cost was found; see devices.md).
    pub huge_copy_gbps: f64,
    /// CPU time of a DMA page copy (its set-up) as a share of a CPU copy's:
    /// Memos 5.3, 4 200 vs 16 800 cycles per 4 KiB page.
    pub dma_cpu_share: f64,
    /// The DMA engine's time per page as a multiple of a CPU copy's: Memos
    /// 5.2, 57 vs 43 ms per 10 000 pages (the engine copies one page at a
    /// time, beside the CPU).
    pub dma_time_ratio: f64,
}

impl Default for CostTable {
    fn default() -> Self {
        CostTable {
            entry_access_ns: 20.0,
            invlpg_ns: 100.0,
            full_flush_ns: 500.0,
            shootdown_ipi_ns: 2_000.0,
            poison_fault_ns: 1_000.0,
            first_touch_fault_ns: 1_000.0,
            sample_ns: 200.0,
            split_huge_ns: 5_000.0,
            migration_table: vec![
                (8.0 * 1024.0, 25.5, 43.21),
                (64.0 * 1024.0, 15.7, 26.32),
                (128.0 * 1024.0, 11.12, 10.25),
            ],
            huge_copy_gbps: 10.0,
            dma_cpu_share: 4_200.0 / 16_800.0,
            dma_time_ratio: 57.0 / 43.0,
        }
    }
}

impl CostTable {
    /// Cost of reading an entry at `level`: the walk from the root stops
    /// there, so a PGD entry costs a quarter of a PTE (*inferred*).
    pub fn entry_access_at(&self, level: thermocline_vocab::Level) -> f64 {
        use thermocline_vocab::Level::*;
        let depth = match level {
            Pgd => 1.0,
            Pud => 2.0,
            Pmd => 3.0,
            Pte => 4.0,
        };
        self.entry_access_ns * depth / 4.0
    }

    /// Cost in ns of migrating one 4 KiB page when `batch` pages move together.
    pub fn base_page_migration_ns(&self, batch: u64) -> f64 {
        let t = &self.migration_table;
        let total = |i: usize| (t[i].1 + t[i].2) * 1_000.0;
        if t.is_empty() {
            return 0.0;
        }
        let b = batch.max(1) as f64;
        if b <= t[0].0 {
            return total(0);
        }
        for i in 1..t.len() {
            if b <= t[i].0 {
                let x = (b.ln() - t[i - 1].0.ln()) / (t[i].0.ln() - t[i - 1].0.ln());
                return total(i - 1) + x * (total(i) - total(i - 1));
            }
        }
        total(t.len() - 1)
    }

    /// Cost in ns of migrating one 2 MiB page: copy time at `huge_copy_gbps`
    /// plus the page walk of the smallest batch (*inferred*, see devices.md).
    pub fn huge_page_migration_ns(&self) -> f64 {
        let copy = (2u64 << 20) as f64 / self.huge_copy_gbps;
        let walk = self.migration_table.first().map_or(0.0, |r| r.2 * 1_000.0);
        copy + walk
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migration_cost_follows_heteroos_table6() {
        let c = CostTable::default();
        assert!((c.base_page_migration_ns(1) - 68_710.0).abs() < 1e-6);
        assert!((c.base_page_migration_ns(8192) - 68_710.0).abs() < 1e-6);
        assert!((c.base_page_migration_ns(65536) - 42_020.0).abs() < 1e-6);
        assert!((c.base_page_migration_ns(1 << 20) - 21_370.0).abs() < 1e-6);
        let mid = c.base_page_migration_ns(20_000);
        assert!(mid < 68_710.0 && mid > 42_020.0);
    }
}

/// Above this many pages a TLB flush drops the whole address space instead of
/// page by page, as Linux does (`tlb_single_page_flush_ceiling`, 33).
pub const FLUSH_CEILING_PAGES: u64 = 33;

/// What one TLB shootdown costs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shootdown {
    /// CPU time of the manager's core: the INVLPGs and one IPI per core.
    pub manager_ns: f64,
    /// Stall of every core at once: the IPI and the INVLPGs.
    pub all_core_stall_ns: f64,
}

impl CostTable {
    /// The cost of a shootdown of `invlpgs` page invalidations on `cores`
    /// cores, which both simulated machines charge the same way.
    pub fn shootdown(&self, invlpgs: u64, cores: usize) -> Shootdown {
        Shootdown {
            manager_ns: invlpgs as f64 * self.invlpg_ns + cores as f64 * self.shootdown_ipi_ns,
            all_core_stall_ns: self.shootdown_ipi_ns + invlpgs as f64 * self.invlpg_ns,
        }
    }
}
