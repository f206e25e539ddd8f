//! Memos (Liu, Yang, Peng and Li, IEEE TC;
//! ../shared/papers/003_4ce7a4cbf1361ba3.txt): HyMM monitoring and
//! channel-level placement between DRAM and NVM.
//!
//! **What is built so far (issue #21, in progress).** HyMM (section 3) and
//! the channel-level part of section 4.2: the DRAM/NVM choice by hotness and
//! write dominance, bandwidth scheduling and DRAM reclamation, with the
//! hybrid migration engine of 5.2: CPU copies to DRAM, lockless DMA copies
//! back to NVM (where the backend has a DMA engine: the exact machine) that
//! a store during the copy aborts. Reports carry NVM lifetime and energy
//! per tier (6.3). On a machine with banks and LLC slabs (`dram+pcm-memos`),
//! pages moved to DRAM are placed by bank and slab (4.2 (1)-(4), 5.1; see
//! *Placement* below), and hot pages move from busy to idle banks within
//! each channel (4.3; see *Bank moves* below). Ambix's simplified
//! `memos-placement` baseline is a different thing and stays as it is.
//!
//! **Placement** (`colour_placement`, on by default; `places.rs`). Where
//! the backend has colours, Memos turns on its coloured allocator at start
//! (Memos' two-tiered buddy system: new pages take the colours in turn),
//! keeps Algorithm 1's tables (reset at the end of each counting: NVM pages
//! that missed the TLB; then DRAM pages Accessed in each 2 s scan), and
//! moves each queued page into the first free (bank, slab) of its class:
//! the coldest DRAM bank first, a stream-like page in the reserved slab 0
//! (grown by one slab when every bank's is full, 4.2 (4)), another page in
//! the least used of slabs 1-14. Each placement counts in the tables, so
//! the next page goes elsewhere. Step 3's N: a period moves at most as many
//! pages as DRAM has free frames, in MigrateQue's order; a page that finds
//! no free frame of its class stays in NVM. Stream-like hot pages left in
//! NVM then move into NVM's stream slabs (4.3 case 4), within what is left
//! of the period's budget (*inferred*: the paper's 10 000 pages per period
//! bound every move; `nvm_stream_placed_pages_count`). Pages going back to
//! NVM are copied into the reserved rarely-touched slab 15 (4.2 (1), 4.3
//! case 2; any bank), or into any NVM frame when no frame of slab 15 is
//! free when the copy finishes (*inferred*: the paper grows a reservation
//! that is full, 4.2 (4), but says so for streams only).
//!
//! **Bank moves** (`bank_moves`, on by default, with `colour_placement`,
//! scope `full`; `balance_banks`). What the paper says: HyMM gets "the bank
//! balance information" by "examining the values of the bank index bits in
//! PFN ... and counting the hot pages assigned to each memory bank" (3.1);
//! bank imbalance compares "the hot pages number of every bank with that
//! of the coldest bank" and "By rebalancing bank accesses via data
//! migration, underutilized memory banks can share the responsibilities of
//! these 'hot' ones" (2.2.1); and "Even for a specific channel, hot pages
//! are migrated from highly utilized banks to lower ones to balance the
//! overall utilization" (4.3). It gives no threshold, no bound and no time
//! for these moves. What is done: at the start of each action period,
//! after the moves between channels (also in a period bandwidth
//! scheduling stops: a bank move keeps the page's channel), each channel's
//! banks are counted afresh as Algorithm 1 counts them: NVM by this
//! preparation's pages that missed the TLB, DRAM by the pages Memos placed
//! there that its last 2 s scan found Accessed or that moved there this
//! period. While the busiest bank that still has a hot page to move holds
//! more than `1 + bank_tolerance` times the channel's mean (0: any excess)
//! and at least two pages more than the coldest bank, its hot page with the
//! most TLB misses (NVM, as MigrateQue's priority, 4.2 (3); DRAM pages in
//! the order they moved) moves, by a CPU copy like Memos' other moves
//! (`Colours::migrate_placed` within the tier, charged by the backend), to
//! the coldest bank that has a free frame in the page's own LLC slab, so
//! that its slab class (4.2 (1)) stays. A page with no such frame stays
//! where it is. *Inferred*, all of it: the threshold (none given), the
//! time, the order of pages and keeping the slab. At most `max_bank_moves` (10 000) moves a
//! period over both channels (*inferred*: the bound of 4.2 on a period's
//! moves to DRAM). The Bank_Freq_Table follows each move. Huge pages span
//! every bank and are neither counted nor moved. Counting utilization in
//! pages, not accesses, is the paper's (Algorithm 1); what the reports
//! measure (`bank_imbalance`) is accesses, so pages of unequal heat can
//! leave banks with equal page counts uneven in accesses.
//! `bank_moved_pages_count` counts the moves. On a machine without banks
//! (the rate machine, presets without a memory system) the backend answers
//! `Unsupported(Colours)`: Memos places by channel only and says so in a
//! note, rather than differing silently.
//!
//! **Figure 9's steps** (`scope`, section 4.4): `full` is Memos. `cache`
//! (step 1) and `cache+bank` (step 2) interleave pages over the channels
//! and never move them between channels: HyMM's preparation looks at every
//! page, and at its end each hot page moves within its channel into a slab
//! of its class (stream-like: slab 0, others: the least used of 1-14; for
//! `cache+bank` the coldest bank first), at most `max_migrate_pages` per
//! cycle; there is no reclamation or bandwidth scheduling (nothing to
//! reclaim to), and no bank moves (4.3 describes Memos, step 3).
//! *Inferred*: the paper names step 1 "cache partitioning
//! [48]" without its rule; Memos' own slab classes stand for it. A full
//! stream reservation is not grown in step 1.
//!
//! One cycle (section 3.5, Figure 5), repeated:
//! - **Preparation** (21 s = 5 + 8 x 2 s). Application data starts in NVM
//!   (6.1: "we initially map applications to NVM"). HyMM counts the TLB
//!   misses of every NVM page for 5 s (3.2); a page's counting stops at 200
//!   misses (3.5); a page with fewer than 10 is cold. Adjacent hot pages
//!   form hot regions. Then eight 2 s intervals of Dirty-bit sampling in hot
//!   regions only (3.3): the first three read (and clear) the Dirty bit of
//!   every hot page; after them adjacent pages of the same dominance (2 of 3
//!   records dirty) form sub-regions, and one random page per sub-region
//!   (its representative) is read in the next five. A representative's 8
//!   records decide its sub-region: write-dominated (WD) when at least half
//!   are dirty (window of 8, Figure 3). A hot region whose pages' miss
//!   counts have an interquartile range under `stream_iqr` is stream-like
//!   (3.4). Hot pages go into MigrateQue.
//! - **Action** (20 s). Up to `max_migrate_pages` (10 000) queued pages move
//!   to DRAM, WD pages first, then by TLB misses (4.2 (3): "higher
//!   migration priority (i.e., higher number of TLB misses)"), at most as
//!   many as DRAM has free frames (4.2 (3)'s N). Pages in DRAM are tracked by
//!   their Accessed bits every 2 s; one idle in 2 consecutive scans goes
//!   back to NVM (4.2 (5)) by DMA: its Dirty bit is cleared, the engine
//!   copies it beside the CPU (57 vs 43 ms per 10 000 pages, at a quarter of
//!   a CPU copy's CPU time: 4 200 vs 16 800 cycles, 5.2-5.3), and a page
//!   written meanwhile stays in DRAM and goes on being tracked
//!   (`dma_moved_pages_count`, `dma_aborted_pages_count`; paper: 1.4%
//!   aborted in one Aerospike snapshot). Without a DMA engine (the rate
//!   machine) the move is a CPU copy.
//! - **Bandwidth scheduling** (4.2): after each action period, if DRAM's
//!   bandwidth gained less than in the previous period the next period
//!   moves 1/5 as many pages; if NVM's bandwidth fell by more than DRAM's
//!   rose, the next period moves none.
//!
//! Inferences and deviations:
//! - **TLB-miss counting by poisoning.** The paper counts per-page TLB
//!   misses in "a shadow array in VMA" without saying how a miss reaches
//!   it; the cap at 200 "to reduce the monitoring overhead" implies a cost
//!   per counted miss, so each miss here is a fault on a poisoned PTE
//!   (BadgerTrap, as Thermostat counts them) that the backend charges. The
//!   pages of a range are poisoned with one TLB flush. **What that costs**
//!   is the open question of this reading: every counted miss stalls the
//!   application for a fault (~1 us), up to 200 per NVM page per cycle. On
//!   the built-in `multiphase` workload (256 MiB, random accesses that
//!   miss the TLB almost every time) the first 5 s of counting take Memos'
//!   slowdown to 74.4% where first-touch has 16.5% (`thermocline compare`,
//!   8 s nominal); the paper reports HyMM's overhead as low (Figure 6),
//!   which fits workloads whose pages miss the TLB far less often, or a
//!   cheaper counter (sampled TLB-miss events), which the paper does not
//!   describe.
//! - The counts are read once a second to stop counting at the cap (a
//!   kernel would stop in the fault handler), so a page may count up to one
//!   second of misses past 200; its count is read as 200.
//! - **Stream threshold.** The paper gives no threshold, only Figure 4's
//!   averages (STREAM 0.28, mcf 24.4). `stream_iqr` = 2.6 is their
//!   geometric mean. Pages counted at random (Poisson-like) have an IQR of
//!   about 1.35 x sqrt(mean), above 2.6 from the hot threshold (10 misses)
//!   up, while a stream's counts differ by at most a pass. Regions of fewer
//!   than 4 pages, or whose median is at the cap, are not judged.
//! - Hot regions are maximal runs of adjacent hot pages (the paper: "divide
//!   the memory address space into many regions based on hot or cold
//!   patterns"). Huge pages count as one page each.
//! - The first cycle starts 1 s into the run, so that the pages the
//!   workload touches first are there to count.
//! - DRAM pages' Accessed bits are read and cleared every 2 s with one TLB
//!   flush of the address space (the paper does not say how it keeps cached
//!   translations from hiding accesses).
//! - After a period whose DRAM gain was not smaller, the next period moves
//!   up to `max_migrate_pages` again (the paper only says when to cut).
//!   "Memos may migrate some pages back to NVM" after a stop is not done.
//! - The monitor's own walks of the shadow array (which pages to count,
//!   sample or move) are not charged; every PTE it reads or changes, every
//!   fault and every migration is, by the backend.
//! - `very_hot_check` (off by default) reproduces 3.2's side study: the
//!   Accessed bits of cold pages are read in the first three 2 s intervals
//!   and pages set in all three are counted (`very_hot_cold_pages`; paper:
//!   0.18% of Memcached's pages). The paper's design ignores them.
//!
//! **Census** (Figures 10-11; `reproduce memos-pages`): once a preparation
//! has classified the NVM pages, the gauges `dram_wd_pages`,
//! `dram_rd_pages` (pages Memos placed in DRAM, by their sub-region's
//! dominance when they moved; copies in flight included), `nvm_wd_pages`,
//! `nvm_rd_pages` and `nvm_cold_pages` (NVM pages as that preparation
//! classified them, less those that moved since; a page reclaimed to NVM
//! counts as cold) say where each class is. Pages first touched after a
//! preparation began are counted from the next one.
//!
//! **Schemes** (issue #24; `schemes`, none by default, and `placement`,
//! on by default). After each counting (the 5 s of 3.2/3.5) HyMM's profile
//! goes to the DAMOS-like schemes (`crate::schemes`) through
//! `SchemeSet::apply_known`: memory the profile leaves out is unknown to
//! HyMM, not idle, and no scheme sees it. With `placement = false` HyMM
//! monitors as always (application data still starts bound to NVM, 6.1,
//! since HyMM counts NVM pages) but Memos moves nothing itself: no action
//! period moves, no reclamation, no bank or slab placement (and so no
//! coloured allocator); the schemes decide. The profile, and what in it is
//! inferred:
//! - The pages counted (NVM pages; every page for `scope` cache and
//!   cache+bank) count their TLB misses, capped at `miss_cap`: the most a
//!   page can count (`max_count` = `miss_cap`) in an aggregation of
//!   `tlb_count_s` (a scheme's `min_access_pct = 5` is 10 misses, HyMM's
//!   own hot test). Cold pages are in it with their few misses, 0 included.
//! - DRAM pages are what HyMM does not count; Memos tracks them by their
//!   Accessed bits every `interval_s` in the action period (4.2 (5)).
//!   *Inferred*: with schemes that scan covers every application page in
//!   DRAM (Memos tracks only the pages it placed, and schemes place others),
//!   and a DRAM page counts `miss_cap` x (scans that found it Accessed /
//!   its scans since the last profile), as DAMON counts the samples that
//!   found a region accessed. The first scan of an action period only
//!   clears the bits: they were set at any time since the last period's
//!   scans, or before the page moved to DRAM (a move keeps the bit), so it
//!   says nothing of one interval. So a page idle in every other scan of
//!   the last action period (8 of 9 by default) counts 0 and a `migrate_cold` rule with
//!   `max_access_pct = 0` finds it; one accessed in every scan counts as
//!   much as a page at the miss cap. The readings are those of the last
//!   action period, up to 7 s old at the profile (none in the first cycle:
//!   DRAM pages are then unknown and left out).
//! - A page both scanned in DRAM and counted since (it went to NVM between)
//!   takes its count: it is newer. Adjacent pages of one count are one
//!   region; regions are sorted by (address space, start).
//! - A profile comes once a cycle (41 s) but counts 5 s, its aggregation:
//!   a scheme's `min_age_s` counts 5 s per profile (`min_age_s = 10` asks
//!   for two profiles in a row, 41 s apart), and a quota whose charge
//!   interval is under 41 s (`quota_reset_ms`, 1 s by default) is whole
//!   again at each profile, the only time schemes apply.
//! - Memos' gauges about its own moves (promoted, reclaimed, census) do not
//!   follow the schemes' moves; the schemes' gauges and notes say those.
//!
//! **Studies** (for `thermocline reproduce memos-monitor`, off by default;
//! reports without them are unchanged):
//! - `study`: counting is not stopped at the cap, so the misses a
//!   TLB-miss-only monitor would count over the same 5 s are measured
//!   (`uncapped_faults_count`); decisions still use the capped counts. The
//!   application then pays every miss's fault, so it runs slower than under
//!   plain HyMM and counts a little fewer misses per page. Gauges: HyMM's
//!   own work in preparations (`hymm_faults_count`: counted misses up to
//!   the cap, as a kernel that stops in its fault handler would count them;
//!   `hymm_pte_reads_count`: Dirty bits of hot pages and representatives;
//!   the very-hot side study and the action period's tracking of DRAM
//!   pages are left out), the NVM pages looked at, the representatives,
//!   and Figure 4's spread (`iqr_sum` over `iqr_regions_count` ranges:
//!   Figure 4 boxes "the TLB miss count for pages in a range of specific
//!   memory addresses", read here as aligned 2 MiB ranges (inferred): the
//!   hot pages of a range (HyMM's stream test looks at hot regions only),
//!   ranges of at least 4 of them, uncapped counts, as Figure 4 shows raw
//!   counts).
//! - `history_study`: Figure 3's trace analysis instead of Memos (no cycle,
//!   no migration): every `interval_s` every mapped page's Accessed and
//!   Dirty bits are read and cleared (one flush), and `hymm::HistoryTally`
//!   scores the dominance of the last `w` records (`w` = 1 to
//!   `history_max_window`) against that of the next `history_future` (10,
//!   inferred from "stable for 10 sampling intervals"; the paper does not
//!   say how it scored accuracy), for pages accessed on both sides.

pub mod hymm;
pub mod places;

use crate::schemes::{SchemeParams, SchemeSet};
use crate::telemetry::Counted;
use crate::{HotSet, Manager};
use hymm::Dominance;
use serde::{Deserialize, Serialize};
use thermocline_backend::{Backend, BackendError, Capability, Flush, MemPolicy, TierCounters};
use thermocline_vocab::{Asid, Level, PageSize, Rng, TierId};

/// The most pages Memos tracks: 256 GiB of 4 KiB pages, ten times the
/// paper's largest footprint (24 GB), about 2.5 GiB of host memory.
const MAX_PAGES: u64 = 1 << 26;

/// Memos' parameters, with the paper's defaults.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MemosParams {
    /// TLB-miss counting at the start of preparation (s; 3.5: 5).
    pub tlb_count_s: u32,
    /// A page with fewer misses in that time is cold (3.2: 10).
    pub cold_misses: u32,
    /// Counting of a page stops at this many misses (3.5: 200).
    pub miss_cap: u32,
    /// Dirty- and Accessed-bit sampling interval (s; 3.3, 3.5: 2).
    pub interval_s: u32,
    /// Intervals that read every hot page's Dirty bit (3.3: 3).
    pub full_scan_intervals: u32,
    /// Intervals that read only each sub-region's representative (3.3: 5);
    /// with the full scans, the history window (8).
    pub representative_intervals: u32,
    /// Length of the action period (s; 3.5: 20).
    pub action_s: u32,
    /// A hot region is stream-like below this IQR of miss counts (inferred:
    /// the geometric mean of Figure 4's 0.28 and 24.4).
    pub stream_iqr: f64,
    /// Pages moved to DRAM per action period at most (4.2: 10 000).
    pub max_migrate_pages: u64,
    /// Share of the last period's moves when DRAM's gain shrinks (4.2: 1/5).
    pub backoff: f64,
    /// A DRAM page idle in this many consecutive scans goes back to NVM
    /// (4.2 (5): 2).
    pub reclaim_idle_intervals: u32,
    /// Count the "very hot" pages that TLB counting calls cold (3.2).
    pub very_hot_check: bool,
    /// Seed of the representatives' draws.
    pub seed: u64,
    /// Figure 6's study: counting is not stopped at the cap, so that the
    /// misses a TLB-miss-only monitor would count are measured; decisions
    /// still use the capped counts. Adds the monitor-work gauges.
    pub study: bool,
    /// Figure 3's study instead of Memos: no cycle, no migration; every
    /// `interval_s` the Accessed and Dirty bits of every mapped page are
    /// read and cleared (one TLB flush) and the history window's
    /// predictions are scored (`hymm::HistoryTally`).
    pub history_study: bool,
    /// Place pages by bank and LLC slab where the machine has a memory
    /// system (4.2 (1)-(3), 5.1): Memos' coloured buddy allocator, Algorithm
    /// 1's frequency tables, stream-like pages in slab 0 and the others in
    /// the coldest bank's coldest slab. Off: channel-level placement only.
    pub colour_placement: bool,
    /// How much of the hierarchy Memos schedules (Figure 9's steps): the
    /// whole of it (`full`, Memos), or, with pages interleaved over the
    /// channels and never moved between them, only their LLC slab
    /// (`cache`, step 1) or their bank and slab (`cache+bank`, step 2).
    pub scope: Scope,
    /// Longest window length the history study scores (Figure 3: up to 16).
    pub history_max_window: u32,
    /// Future records a prediction is scored against (3.3: "stable for 10
    /// sampling intervals").
    pub history_future: u32,
    /// Memos' own moves (action periods, reclamation, bank and slab
    /// placement). Off: HyMM monitors as always but Memos moves nothing;
    /// the schemes decide (see *Schemes* in the module docs).
    pub placement: bool,
    /// Bank moves within a channel (4.3: "Even for a specific channel, hot
    /// pages are migrated from highly utilized banks to lower ones"): at
    /// the start of each action period, after the moves between channels,
    /// hot pages move from the busiest bank of each channel to its coldest
    /// (see *Bank moves* in the module docs). Part of bank and slab
    /// placement: only with `colour_placement`, scope `full`, on a machine
    /// with banks.
    pub bank_moves: bool,
    /// A bank is busy enough to move pages from while it holds more than
    /// `1 + bank_tolerance` times its channel's mean of accessed pages (and
    /// at least two more than the coldest bank). Inferred: the paper gives
    /// no threshold; 0 levels the banks to within a page.
    pub bank_tolerance: f64,
    /// Bank moves per action period at most, over both channels (inferred:
    /// the paper's bound on one period's moves, 10 000 pages, 4.2).
    pub max_bank_moves: u64,
    /// Schemes acting on HyMM's profile after each counting (none by
    /// default).
    pub schemes: Vec<SchemeParams>,
}

impl Default for MemosParams {
    fn default() -> Self {
        MemosParams {
            tlb_count_s: 5,
            cold_misses: 10,
            miss_cap: 200,
            interval_s: 2,
            full_scan_intervals: 3,
            representative_intervals: 5,
            action_s: 20,
            stream_iqr: 2.6,
            max_migrate_pages: 10_000,
            backoff: 0.2,
            reclaim_idle_intervals: 2,
            very_hot_check: false,
            seed: 1,
            study: false,
            history_study: false,
            colour_placement: true,
            scope: Scope::Full,
            history_max_window: 12,
            history_future: 10,
            placement: true,
            bank_moves: true,
            bank_tolerance: 0.0,
            max_bank_moves: 10_000,
            schemes: Vec::new(),
        }
    }
}

/// Figure 9's steps (section 4.4).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub enum Scope {
    /// Memos: channel, bank and slab (step 3).
    #[serde(rename = "full")]
    Full,
    /// Cache partitioning only: pages interleaved over the channels, each
    /// hot page moved within its channel into a slab of its class (step 1).
    #[serde(rename = "cache")]
    Cache,
    /// Cache and bank mapping without the channel: as `cache`, into the
    /// coldest bank too (step 2).
    #[serde(rename = "cache+bank")]
    CacheBank,
}

impl MemosParams {
    /// Preparation length: counting plus the sampling intervals (21 s).
    pub fn preparation_s(&self) -> u32 {
        self.tlb_count_s
            + self.interval_s * (self.full_scan_intervals + self.representative_intervals)
    }

    /// Why these parameters cannot run, if they cannot.
    pub fn check(&self) -> Result<(), &'static str> {
        if self.tlb_count_s == 0 || self.interval_s == 0 || self.action_s == 0 {
            return Err("periods and intervals must be at least 1 s");
        }
        if self.full_scan_intervals == 0
            || self.full_scan_intervals + self.representative_intervals > 32
        {
            return Err("1 to 32 history records, at least one full scan");
        }
        if !(self.backoff > 0.0 && self.backoff <= 1.0) {
            return Err("backoff must be in (0, 1]");
        }
        if !(self.bank_tolerance >= 0.0 && self.bank_tolerance.is_finite()) {
            return Err("bank_tolerance must be a finite share of at least 0");
        }
        if self.history_max_window == 0
            || self.history_future == 0
            || self.history_max_window + self.history_future > 64
            || self.history_max_window as usize > HISTORY_GAUGES.len()
        {
            return Err("history windows: 1 to 16 records, 1 to 48 future ones");
        }
        Ok(())
    }
}

/// One page HyMM analyses (a 4 KiB page, or a huge page as one).
#[derive(Clone, Copy, Debug)]
struct Page {
    asid: Asid,
    va: u64,
    huge: bool,
    misses: u32,
    /// Misses counted without the cap (the study only; else `misses`).
    raw: u32,
    counting: bool,
    hot: bool,
    /// Bit i: record i read Dirty.
    records: u32,
    /// Sub-region this page belongs to (hot pages only).
    sub: u32,
    /// Accessed in every very-hot scan so far.
    very_hot: bool,
    /// In a hot region HyMM's IQR test calls stream-like.
    stream: bool,
}

/// A page whose bank Memos weighs, and may move if hot (4.3).
#[derive(Clone, Copy, Debug)]
struct BankPage {
    asid: Asid,
    va: u64,
    hot: bool,
    /// Which hot pages of a bank move first: the highest (TLB misses).
    rank: u32,
}

/// A hot page a bank move may take: its rank, its address (reversed, so
/// that of equal ranks the lowest address sorts last, popped first) and its
/// LLC slab.
type Mover = (u32, std::cmp::Reverse<(Asid, u64)>, u16);

/// A page Memos placed in DRAM: idle scans in a row.
#[derive(Clone, Copy, Debug)]
struct InDram {
    asid: Asid,
    va: u64,
    idle: u32,
    /// Write-dominated when it moved (its sub-region's dominance).
    wd: bool,
}

/// Figures 10-11: NVM pages as the last preparation classified them, kept
/// up to date as pages move (a page reclaimed to NVM counts as cold).
#[derive(Clone, Copy, Debug, Default)]
struct Census {
    nvm_wd: u64,
    nvm_rd: u64,
    nvm_cold: u64,
}

/// Cumulative counts, for the gauges.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    hot: u64,
    wd: u64,
    rd: u64,
    stream: u64,
    promoted: u64,
    reclaimed: u64,
    very_hot: u64,
    stopped_periods: u64,
    cut_periods: u64,
    dma_moved: u64,
    dma_aborted: u64,
    /// Pages moved to DRAM into a chosen bank and slab, and of those the
    /// stream-like ones (into a reserved stream slab).
    placed: u64,
    placed_stream: u64,
    /// Pages that found no free frame in any bank and slab of their class.
    unplaced: u64,
    /// Stream-like hot pages left in NVM moved into its stream slabs.
    nvm_stream_placed: u64,
    /// Hot pages moved between banks of their channel (4.3).
    bank_moved: u64,
    /// HyMM's own monitoring work in preparations (not the very-hot side
    /// study, not the action period's tracking of DRAM pages).
    work: hymm::MonitorWork,
    /// Misses a monitor without the cap would have counted (the study).
    uncapped_faults: u64,
    /// NVM pages HyMM looked at, over all preparations.
    nvm_pages: u64,
    /// Sub-region representatives, over all preparations.
    representatives: u64,
    /// Figure 4: the IQR of raw miss counts summed over aligned 2 MiB
    /// ranges with at least 4 hot pages, and how many such ranges.
    iqr_sum: f64,
    iqr_regions: u64,
}

/// Gauge names of the history study, by window length - 1.
const HISTORY_GAUGES: [(&str, &str); 16] = [
    ("history_judged_w1", "history_correct_w1"),
    ("history_judged_w2", "history_correct_w2"),
    ("history_judged_w3", "history_correct_w3"),
    ("history_judged_w4", "history_correct_w4"),
    ("history_judged_w5", "history_correct_w5"),
    ("history_judged_w6", "history_correct_w6"),
    ("history_judged_w7", "history_correct_w7"),
    ("history_judged_w8", "history_correct_w8"),
    ("history_judged_w9", "history_correct_w9"),
    ("history_judged_w10", "history_correct_w10"),
    ("history_judged_w11", "history_correct_w11"),
    ("history_judged_w12", "history_correct_w12"),
    ("history_judged_w13", "history_correct_w13"),
    ("history_judged_w14", "history_correct_w14"),
    ("history_judged_w15", "history_correct_w15"),
    ("history_judged_w16", "history_correct_w16"),
];

/// The history study's records of one page: Dirty and Accessed, newest
/// first, and how many.
#[derive(Clone, Copy, Debug, Default)]
struct Records {
    dirty: u64,
    accessed: u64,
    n: u32,
}

/// Memos (HyMM and channel-level placement).
pub struct Memos {
    p: MemosParams,
    rng: Rng,
    fast: TierId,
    slow: TierId,
    /// Seconds into the current cycle.
    t: u32,
    /// NVM pages of this cycle's preparation, in (asid, va) order.
    pages: Vec<Page>,
    /// Per sub-region, its representative (index into `pages`).
    reps: Vec<usize>,
    /// MigrateQue: hot pages in the order they move (indices into `pages`).
    queue: Vec<usize>,
    in_dram: Vec<InDram>,
    /// DRAM pages the DMA engine is copying to NVM.
    in_flight: Vec<InDram>,
    budget: u64,
    skip_next: bool,
    /// Tier counters at the start of the last action period (fast, slow).
    action_start: Option<(TierCounters, TierCounters)>,
    /// Bandwidth of the last measured period (fast, slow, lines/s) and the
    /// DRAM gain it showed.
    last_bw: Option<(f64, f64)>,
    last_gain: Option<f64>,
    tally: Tally,
    /// The history study's records, by page.
    history: std::collections::BTreeMap<(Asid, u64), Records>,
    history_tally: hymm::HistoryTally,
    /// Algorithm 1's tables, when pages are placed by bank and slab.
    places: Option<places::FreqTables>,
    /// Slabs the stream reservation has grown by (4.2 (4)).
    stream_grown: usize,
    /// NVM pages by class, once a preparation has classified them.
    census: Option<Census>,
    schemes: SchemeSet,
    /// With schemes: DRAM pages' Accessed-bit scans since the last profile.
    dram_seen: std::collections::BTreeMap<(Asid, u64), DramSeen>,
    /// Bank and slab placement or bank moves were asked for on a machine
    /// without banks (`Unsupported(Colours)`): said in the notes.
    no_colours: bool,
}

/// A DRAM page's Accessed-bit scans since the last profile (schemes only).
#[derive(Clone, Copy, Debug)]
struct DramSeen {
    bytes: u64,
    /// Scans that found it Accessed, of `scans`.
    accessed: u32,
    scans: u32,
}

impl Memos {
    /// Memos with `p`.
    pub fn new(p: MemosParams) -> Self {
        let windows = p.history_max_window.min(HISTORY_GAUGES.len() as u32);
        Memos {
            rng: Rng::derive(p.seed, "memos"),
            budget: p.max_migrate_pages,
            p,
            fast: TierId::FAST,
            slow: TierId::SLOW,
            t: 0,
            pages: Vec::new(),
            reps: Vec::new(),
            queue: Vec::new(),
            in_dram: Vec::new(),
            in_flight: Vec::new(),
            skip_next: false,
            action_start: None,
            last_bw: None,
            last_gain: None,
            tally: Tally::default(),
            history: std::collections::BTreeMap::new(),
            history_tally: hymm::HistoryTally::new(windows),
            places: None,
            stream_grown: 0,
            census: None,
            schemes: SchemeSet::default(),
            dram_seen: std::collections::BTreeMap::new(),
            no_colours: false,
        }
    }

    fn cycle_s(&self) -> u32 {
        self.p.preparation_s() + self.p.action_s
    }

    fn records(&self) -> u32 {
        self.p.full_scan_intervals + self.p.representative_intervals
    }

    /// The application's pages in NVM, poisoned so that their TLB misses count.
    fn begin_preparation(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        self.pages.clear();
        self.reps.clear();
        self.queue.clear();
        let regions: Vec<_> = b
            .regions()
            .iter()
            .map(|r| (r.asid, r.start, r.end()))
            .collect();
        for (asid, start, end) in regions {
            let mut va = start & !0xfff;
            while let Some((base, t)) = b.next_mapped(asid, va, end)? {
                if t.tier == self.slow || self.p.scope != Scope::Full {
                    self.pages.push(Page {
                        asid,
                        va: base,
                        huge: t.size == PageSize::Huge,
                        misses: 0,
                        raw: 0,
                        counting: true,
                        hot: false,
                        records: 0,
                        sub: 0,
                        very_hot: true,
                        stream: false,
                    });
                }
                va = base + t.size.bytes();
            }
        }
        self.tally.nvm_pages += self.pages.len() as u64;
        for (asid, start, len) in self.nvm_runs() {
            b.poisoning()?.set_poison_range(asid, start, len, true)?;
        }
        for p in &self.pages {
            b.poisoning()?.poison_faults(p.asid, p.va, true)?;
        }
        Ok(())
    }

    /// The NVM pages of this preparation as runs of adjacent pages.
    fn nvm_runs(&self) -> Vec<(Asid, u64, u64)> {
        let adjacent = |a: &Page, c: &Page| a.asid == c.asid && a.va + size(a.huge) == c.va;
        hymm::runs(&self.pages, adjacent)
            .into_iter()
            .map(|r| {
                let (first, last) = (self.pages[r.start], self.pages[r.end - 1]);
                (first.asid, first.va, last.va + size(last.huge) - first.va)
            })
            .collect()
    }

    /// Stops counting pages that reached the cap.
    fn cap_counts(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        if self.p.study {
            // The study counts on to the end, as a monitor without the cap.
            return Ok(());
        }
        for p in self.pages.iter_mut().filter(|p| p.counting) {
            let n = b.poisoning()?.poison_faults(p.asid, p.va, false)?;
            if n >= u64::from(self.p.miss_cap) {
                p.misses = self.p.miss_cap;
                p.raw = self.p.miss_cap;
                p.counting = false;
                b.poisoning()?.set_poison(p.asid, p.va, false)?;
            }
        }
        Ok(())
    }

    /// End of counting: hot/cold, hot regions, stream test; the first
    /// Dirty interval starts.
    fn end_counting(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        self.cap_counts(b)?;
        let cap = self.p.miss_cap;
        for p in self.pages.iter_mut().filter(|p| p.counting) {
            let n = b.poisoning()?.poison_faults(p.asid, p.va, true)?;
            p.misses = n.min(u64::from(cap)) as u32;
            p.raw = n.min(u64::from(u32::MAX)) as u32;
            p.counting = false;
        }
        for p in &self.pages {
            self.tally.work.faults += u64::from(p.misses);
            self.tally.uncapped_faults += u64::from(p.raw);
        }
        for (asid, start, len) in self.nvm_runs() {
            b.poisoning()?.set_poison_range(asid, start, len, false)?;
        }
        for p in &mut self.pages {
            p.hot = p.misses >= self.p.cold_misses;
        }
        let adjacent_hot =
            |a: &Page, c: &Page| a.hot && c.hot && a.asid == c.asid && a.va + size(a.huge) == c.va;
        for r in hymm::runs(&self.pages, adjacent_hot) {
            if !self.pages[r.start].hot {
                continue;
            }
            self.tally.hot += r.len() as u64;
            let misses: Vec<u32> = self.pages[r.clone()].iter().map(|p| p.misses).collect();
            if hymm::stream_like(&misses, self.p.stream_iqr, cap) {
                self.tally.stream += r.len() as u64;
                self.pages[r].iter_mut().for_each(|p| p.stream = true);
            }
        }
        self.count_nvm_places(b)?;
        // Figure 4: the spread of raw counts over aligned 2 MiB ranges.
        let same_range = |a: &Page, c: &Page| a.asid == c.asid && a.va >> 21 == c.va >> 21;
        for r in hymm::runs(&self.pages, same_range) {
            let raw: Vec<u32> = self.pages[r]
                .iter()
                .filter(|p| p.hot)
                .map(|p| p.raw)
                .collect();
            if raw.len() >= 4 {
                if let Some((iqr, _)) = hymm::iqr_and_median(&raw) {
                    self.tally.iqr_sum += iqr;
                    self.tally.iqr_regions += 1;
                }
            }
        }
        for i in 0..self.pages.len() {
            let p = self.pages[i];
            if p.hot {
                b.dirty(p.asid, p.va, true)?;
                self.tally.work.pte_reads += 1;
            } else if self.p.very_hot_check {
                b.accessed(p.asid, p.va, Level::Pte, true)?;
            }
        }
        if self.p.very_hot_check {
            self.flush_all(b)?;
        }
        Ok(())
    }

    /// The history study's interval: every mapped page's Accessed and
    /// Dirty bits read and cleared, recorded, and the predictions made
    /// `history_future` intervals ago scored.
    fn history_record(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        let regions: Vec<_> = b
            .regions()
            .iter()
            .map(|r| (r.asid, r.start, r.end()))
            .collect();
        let future = self.p.history_future;
        for (asid, start, end) in regions {
            let mut va = start & !0xfff;
            while let Some((base, t)) = b.next_mapped(asid, va, end)? {
                let level = if t.size == PageSize::Huge {
                    Level::Pmd
                } else {
                    Level::Pte
                };
                let a = b.accessed(asid, base, level, true)?;
                let d = b.dirty(asid, base, true)?;
                let r = self.history.entry((asid, base)).or_default();
                r.dirty = r.dirty << 1 | u64::from(d);
                r.accessed = r.accessed << 1 | u64::from(a);
                r.n = r.n.saturating_add(1);
                self.history_tally.judge(r.dirty, r.accessed, r.n, future);
                va = base + t.size.bytes();
            }
        }
        self.flush_all(b)
    }

    fn flush_all(&self, b: &mut dyn Backend) -> Result<(), BackendError> {
        let mut asids: Vec<Asid> = b.regions().iter().map(|r| r.asid).collect();
        asids.dedup();
        for a in asids {
            b.flush_tlb(a, Flush::All)?;
        }
        Ok(())
    }

    /// One Dirty interval ends: record `k` of the pages being watched.
    fn dirty_record(&mut self, b: &mut dyn Backend, k: u32) -> Result<(), BackendError> {
        let full = k < self.p.full_scan_intervals;
        let watched: Vec<usize> = if full {
            (0..self.pages.len())
                .filter(|&i| self.pages[i].hot)
                .collect()
        } else {
            self.reps.clone()
        };
        self.tally.work.pte_reads += watched.len() as u64;
        for i in watched {
            let p = self.pages[i];
            if b.dirty(p.asid, p.va, true)? {
                self.pages[i].records |= 1 << k;
            }
        }
        if self.p.very_hot_check && k < 3 {
            for i in 0..self.pages.len() {
                let p = self.pages[i];
                if !p.hot && p.very_hot {
                    self.pages[i].very_hot = b.accessed(p.asid, p.va, Level::Pte, true)?;
                }
            }
            if k == 2 {
                self.tally.very_hot +=
                    self.pages.iter().filter(|p| !p.hot && p.very_hot).count() as u64;
            } else {
                self.flush_all(b)?;
            }
        }
        if k + 1 == self.p.full_scan_intervals {
            self.pick_representatives();
        }
        Ok(())
    }

    /// Sub-regions: adjacent hot pages of one dominance over the full
    /// scans; one random representative each.
    fn pick_representatives(&mut self) {
        let len = self.p.full_scan_intervals;
        let same = |a: &Page, c: &Page| {
            a.hot
                && c.hot
                && a.asid == c.asid
                && a.va + size(a.huge) == c.va
                && hymm::dominance(a.records, len) == hymm::dominance(c.records, len)
        };
        self.reps.clear();
        for r in hymm::runs(&self.pages, same) {
            if !self.pages[r.start].hot {
                continue;
            }
            let sub = self.reps.len() as u32;
            for p in &mut self.pages[r.clone()] {
                p.sub = sub;
            }
            let pick = r.start + self.rng.below(r.len() as u64) as usize;
            self.reps.push(pick);
        }
        self.tally.representatives += self.reps.len() as u64;
    }

    /// End of preparation: each sub-region takes its representative's
    /// dominance; MigrateQue holds the hot pages, WD first, then by misses.
    fn build_queue(&mut self) {
        let len = self.records();
        let dom: Vec<Dominance> = self
            .reps
            .iter()
            .map(|&i| hymm::dominance(self.pages[i].records, len))
            .collect();
        let mut q: Vec<(bool, u32, usize)> = Vec::new();
        let mut census = Census::default();
        for (i, p) in self.pages.iter().enumerate() {
            if !p.hot {
                census.nvm_cold += 1;
                continue;
            }
            let wd = dom[p.sub as usize] == Dominance::Write;
            if wd {
                self.tally.wd += 1;
                census.nvm_wd += 1;
            } else {
                self.tally.rd += 1;
                census.nvm_rd += 1;
            }
            q.push((wd, p.misses, i));
        }
        self.census = Some(census);
        q.sort_by(|a, c| (c.0, c.1).cmp(&(a.0, a.1)).then(a.2.cmp(&c.2)));
        self.queue = q.into_iter().map(|(.., i)| i).collect();
    }

    /// The action period starts: queued pages move to DRAM (the queue is
    /// WD pages first, see `build_queue`).
    fn act(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        if self.p.scope != Scope::Full {
            return self.place_within_channels(b);
        }
        self.action_start = Some((b.tier_counters(self.fast)?, b.tier_counters(self.slow)?));
        if std::mem::take(&mut self.skip_next) {
            // Bank moves stay within a channel: no bandwidth moves between
            // channels, so bandwidth scheduling does not stop them.
            return self.balance_banks(b);
        }
        let free_pages = b.tiers()[self.fast.index()].free_bytes / 4096;
        let mut room = free_pages;
        let mut moved = 0;
        // A copy (a few thousand indices per cycle): placing a page borrows
        // `self`, and an error must leave the queue as it was.
        let wd_pages = self.census.map_or(0, |c| c.nvm_wd);
        for (rank, i) in self.queue.clone().into_iter().enumerate() {
            if moved >= self.budget {
                break;
            }
            let p = self.pages[i];
            let wd = (rank as u64) < wd_pages;
            let need = size(p.huge) / 4096;
            if need > room {
                continue;
            }
            let moved_it = if self.places.is_some() && !p.huge {
                self.place_in_dram(b, &p)?
            } else {
                b.migrate(p.asid, &[p.va], self.fast)?.pages > 0
            };
            if moved_it {
                room -= need;
                moved += 1;
                self.in_dram.push(InDram {
                    asid: p.asid,
                    va: p.va,
                    idle: 0,
                    wd,
                });
                if let Some(c) = self.census.as_mut() {
                    let class = if wd { &mut c.nvm_wd } else { &mut c.nvm_rd };
                    *class = class.saturating_sub(1);
                }
            }
        }
        self.tally.promoted += moved;
        if self.places.is_some() {
            self.place_nvm_streams(b, self.budget.saturating_sub(moved))?;
        }
        self.balance_banks(b)
    }

    /// 4.3's bank moves within a channel (see *Bank moves* in the module
    /// docs): NVM's banks by this preparation's pages that missed the TLB
    /// (Algorithm 1, lines 7-10), moving its hot pages, most misses first;
    /// then DRAM's by the pages Memos placed there that its last scan found
    /// Accessed, or that moved there this period (lines 3-5), moving those.
    fn balance_banks(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        if !self.p.bank_moves || self.p.scope != Scope::Full || self.places.is_none() {
            return Ok(());
        }
        let nvm: Vec<BankPage> = self
            .pages
            .iter()
            .filter(|p| p.misses > 0 && !p.huge)
            .map(|p| BankPage {
                asid: p.asid,
                va: p.va,
                hot: p.hot,
                rank: p.misses,
            })
            .collect();
        let mut left = self.p.max_bank_moves;
        left -= self.balance_channel(b, self.slow, &nvm, left)?;
        let dram: Vec<BankPage> = self
            .in_dram
            .iter()
            .filter(|d| d.idle == 0)
            .map(|d| BankPage {
                asid: d.asid,
                va: d.va,
                hot: true,
                rank: 0,
            })
            .collect();
        self.balance_channel(b, self.fast, &dram, left)?;
        Ok(())
    }

    /// Levels the banks of `tier` by the accessed pages `pages` (those of
    /// them still in 4 KiB frames of `tier`): while a bank with a hot page
    /// left to move is the busiest (`places::BankLoads::source`), its
    /// highest-ranked hot page (ties: the lowest address) moves to the
    /// coldest bank that has a free frame in the page's own slab, so its
    /// LLC slab class stays. A page with no such frame stays. At most
    /// `left` moves; returns how many.
    fn balance_channel(
        &mut self,
        b: &mut dyn Backend,
        tier: TierId,
        pages: &[BankPage],
        left: u64,
    ) -> Result<u64, BackendError> {
        let (banks, _) = b.colours()?.place_counts()?;
        let mut loads = places::BankLoads::new(banks as usize);
        // Per bank, its hot pages, sorted to pop the best.
        let mut movers: Vec<Vec<Mover>> = vec![Vec::new(); banks as usize];
        for p in pages {
            let Some(tr) = b.translate(p.asid, p.va)? else {
                continue;
            };
            if tr.tier != tier || tr.size != PageSize::Base {
                continue;
            }
            let place = b.colours()?.frame_place(tr.frame)?;
            loads.add(place.bank);
            if p.hot {
                if let Some(m) = movers.get_mut(place.bank as usize) {
                    m.push((p.rank, std::cmp::Reverse((p.asid, p.va)), place.slab));
                }
            }
        }
        movers.iter_mut().for_each(|m| m.sort_unstable());
        let mut moved = 0;
        while moved < left {
            let Some(src) = loads.source(self.p.bank_tolerance, |bank| {
                !movers[bank as usize].is_empty()
            }) else {
                break;
            };
            let Some((_, std::cmp::Reverse((asid, va)), slab)) = movers[src as usize].pop() else {
                break;
            };
            for to in loads.targets(src) {
                if b.colours()?
                    .migrate_placed(asid, va, tier, Some(to), Some(slab))?
                {
                    loads.shift(src, to);
                    if let Some(t) = self.places.as_mut() {
                        t.shift_bank(tier.index(), src, to);
                    }
                    moved += 1;
                    break;
                }
            }
        }
        self.tally.bank_moved += moved;
        Ok(moved)
    }

    /// Algorithm 1 for NVM (lines 1, 7-10, 13-15), at the end of counting:
    /// the tables start again from the NVM pages that missed the TLB.
    fn count_nvm_places(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        let Some(t) = self.places.as_mut() else {
            return Ok(());
        };
        t.clear();
        for p in self.pages.iter().filter(|p| p.misses > 0) {
            if let Some(tr) = b.translate(p.asid, p.va)? {
                let place = b.colours()?.frame_place(tr.frame)?;
                t.count(tr.tier.index(), place.bank, place.slab);
            }
        }
        Ok(())
    }

    /// Moves `p` to DRAM into the first free (bank, slab) of its class,
    /// coldest first (4.2 (2)-(3)); a stream-like page's reserved slabs
    /// grow by one when every bank's are full (4.2 (4)). Returns whether
    /// it moved.
    fn place_in_dram(&mut self, b: &mut dyn Backend, p: &Page) -> Result<bool, BackendError> {
        let placed = self.place_in(b, p, self.fast)?;
        if placed {
            self.tally.placed += 1;
            self.tally.placed_stream += u64::from(p.stream);
        } else {
            self.tally.unplaced += 1;
        }
        Ok(placed)
    }

    /// Moves `p` into the first free (bank, slab) of its class in `tier`,
    /// coldest first, growing the stream reservation as needed.
    fn place_in(
        &mut self,
        b: &mut dyn Backend,
        p: &Page,
        tier: TierId,
    ) -> Result<bool, BackendError> {
        let class = if p.stream {
            places::SlabClass::Stream
        } else {
            places::SlabClass::Frequent
        };
        loop {
            let Some(t) = self.places.as_ref() else {
                return Ok(false);
            };
            let grown = if p.stream { self.stream_grown } else { 0 };
            let max_grown = t.class_slabs(class, usize::MAX).len() - 1;
            for (bank, slab) in t.candidates(tier.index(), class, grown) {
                if b.colours()?
                    .migrate_placed(p.asid, p.va, tier, Some(bank), Some(slab))?
                {
                    if let Some(t) = self.places.as_mut() {
                        t.count(tier.index(), bank, slab);
                    }
                    return Ok(true);
                }
            }
            if !p.stream || self.stream_grown >= max_grown {
                return Ok(false);
            }
            self.stream_grown += 1;
        }
    }

    /// Figure 9's steps 1-2: each queued (hot) page moves, within its own
    /// channel, into a slab of its class (and for `cache+bank` the coldest
    /// bank first), unless its frame is in such a slab already; at most
    /// `max_migrate_pages` per period.
    fn place_within_channels(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        let mut moved = 0;
        for i in self.queue.clone() {
            if moved >= self.p.max_migrate_pages {
                break;
            }
            let p = self.pages[i];
            if p.huge {
                continue;
            }
            let Some(tr) = b.translate(p.asid, p.va)? else {
                continue;
            };
            let class = if p.stream {
                places::SlabClass::Stream
            } else {
                places::SlabClass::Frequent
            };
            let Some(t) = self.places.as_ref() else {
                return Ok(());
            };
            let slabs = t.class_slabs(class, if p.stream { self.stream_grown } else { 0 });
            if slabs.contains(&b.colours()?.frame_place(tr.frame)?.slab) {
                continue;
            }
            let placed = if self.p.scope == Scope::CacheBank {
                self.place_in(b, &p, tr.tier)?
            } else {
                let mut placed = false;
                for slab in slabs {
                    if b.colours()?
                        .migrate_placed(p.asid, p.va, tr.tier, None, Some(slab))?
                    {
                        placed = true;
                        break;
                    }
                }
                placed
            };
            if placed {
                moved += 1;
            }
        }
        self.tally.placed += moved;
        Ok(())
    }

    /// 4.3 case 4: stream-like hot pages left in NVM move into NVM's stream
    /// slabs, within what is left of this period's budget. Returns how
    /// many moved.
    fn place_nvm_streams(&mut self, b: &mut dyn Backend, left: u64) -> Result<u64, BackendError> {
        let mut moved = 0;
        for i in self.queue.clone() {
            if moved >= left {
                break;
            }
            let p = self.pages[i];
            if !p.stream || p.huge {
                continue;
            }
            let Some(tr) = b.translate(p.asid, p.va)? else {
                continue;
            };
            let slab = b.colours()?.frame_place(tr.frame)?.slab;
            let in_stream_slab = self.places.as_ref().is_some_and(|t| {
                t.class_slabs(places::SlabClass::Stream, self.stream_grown)
                    .contains(&slab)
            });
            if tr.tier != self.slow || in_stream_slab {
                continue;
            }
            if self.place_in(b, &p, self.slow)? {
                moved += 1;
            }
        }
        self.tally.nvm_stream_placed += moved;
        Ok(moved)
    }

    /// An Accessed-bit scan of the pages in DRAM; idle ones go back. With
    /// schemes, every application page in DRAM is scanned and recorded for
    /// their profile (`track_dram`), not only those Memos placed.
    fn reclaim_scan(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        let mut back: Vec<InDram> = Vec::new();
        let track = !self.schemes.is_empty();
        // What this scan read of the pages Memos placed, so that the
        // schemes' walk neither reads a bit twice nor misses the reading.
        let mut read: Vec<(Asid, u64, bool)> = Vec::new();
        for d in &mut self.in_dram {
            let accessed = b.accessed(d.asid, d.va, Level::Pte, true)?;
            if track {
                read.push((d.asid, d.va, accessed));
            }
            if accessed {
                d.idle = 0;
                // Algorithm 1, lines 3-5: a DRAM page accessed in the period.
                if let Some(t) = self.places.as_mut() {
                    if let Some(tr) = b.translate(d.asid, d.va)? {
                        let place = b.colours()?.frame_place(tr.frame)?;
                        t.count(tr.tier.index(), place.bank, place.slab);
                    }
                }
            } else {
                d.idle += 1;
            }
            if d.idle >= self.p.reclaim_idle_intervals {
                back.push(*d);
            }
        }
        self.in_dram
            .retain(|d| d.idle < self.p.reclaim_idle_intervals);
        if b.capabilities().has(Capability::Dma) {
            // Lockless DMA for cold pages (5.2): a page written during its
            // copy stays in DRAM (see `dma_finish`).
            let rare = self.rare_slab();
            for d in back {
                if rare.is_some() {
                    b.dma()?
                        .dma_start_placed(d.asid, d.va, self.slow, None, rare)?;
                } else {
                    b.dma()?.dma_start(d.asid, &[d.va], self.slow)?;
                }
                self.in_flight.push(InDram { idle: 0, ..d });
            }
        } else {
            for d in back {
                let r = b.migrate(d.asid, &[d.va], self.slow)?;
                self.tally.reclaimed += r.pages;
                self.count_reclaimed(r.pages);
            }
        }
        if track {
            self.track_dram(b, &mut read)?;
        }
        self.flush_all(b)
    }

    /// Schemes: every application page now in DRAM enters `dram_seen` with
    /// whether this scan found it Accessed (read here and cleared, or taken
    /// from `read` for the pages Memos placed); pages Memos just sent back
    /// to NVM by CPU copy are in NVM and left out. The first scan of an
    /// action period is read (to clear the bits) but not recorded: its bits
    /// were set at any time since the last period, or before a page's move
    /// to DRAM (a move keeps the bit), not in one `interval_s`.
    fn track_dram(
        &mut self,
        b: &mut dyn Backend,
        read: &mut [(Asid, u64, bool)],
    ) -> Result<(), BackendError> {
        read.sort_unstable_by_key(|r| (r.0, r.1));
        let record = self.t > self.p.preparation_s() + self.p.interval_s;
        let regions: Vec<_> = b
            .regions()
            .iter()
            .map(|r| (r.asid, r.start, r.end()))
            .collect();
        for (asid, start, end) in regions {
            let mut va = start & !0xfff;
            while let Some((base, t)) = b.next_mapped(asid, va, end)? {
                va = base + t.size.bytes();
                if t.tier == self.slow {
                    continue;
                }
                let accessed = match read.binary_search_by_key(&(asid, base), |r| (r.0, r.1)) {
                    Ok(i) => read[i].2,
                    Err(_) => {
                        let level = if t.size == PageSize::Huge {
                            Level::Pmd
                        } else {
                            Level::Pte
                        };
                        b.accessed(asid, base, level, true)?
                    }
                };
                if !record {
                    continue;
                }
                let seen = self.dram_seen.entry((asid, base)).or_insert(DramSeen {
                    bytes: t.size.bytes(),
                    accessed: 0,
                    scans: 0,
                });
                // a page split or collapsed since counts at its size now
                seen.bytes = t.size.bytes();
                seen.scans += 1;
                seen.accessed += u32::from(accessed);
            }
        }
        Ok(())
    }

    /// The schemes' profile at the end of a counting (see *Schemes* in the
    /// module docs): the counted pages by their capped TLB misses, the DRAM
    /// pages scanned since the last profile by the share of scans that
    /// found them Accessed, scaled to `miss_cap`; sorted, not overlapping,
    /// adjacent pages of equal count merged. Takes `dram_seen`.
    fn scheme_profile(&mut self) -> Vec<Counted> {
        let max = f64::from(self.p.miss_cap);
        // (asid, start, end, count, from the DRAM scans)
        let mut entries: Vec<(Asid, u64, u64, f64, bool)> = self
            .pages
            .iter()
            .map(|p| {
                (
                    p.asid,
                    p.va,
                    p.va + size(p.huge),
                    f64::from(p.misses),
                    false,
                )
            })
            .collect();
        for ((asid, va), s) in std::mem::take(&mut self.dram_seen) {
            if s.scans > 0 {
                let count = max * f64::from(s.accessed) / f64::from(s.scans);
                entries.push((asid, va, va + s.bytes, count, true));
            }
        }
        // At one address the counted page first: a page scanned in DRAM
        // and counted since is in NVM now, and its count is the newer.
        entries.sort_unstable_by_key(|e| (e.0, e.1, e.4));
        let mut out: Vec<Counted> = Vec::new();
        for (asid, start, end, count, _) in entries {
            match out.last_mut() {
                // covered already (the same page, or a huge page split or
                // collapsed between the scan and the counting)
                Some(c) if c.asid == asid && start < c.end => {}
                Some(c) if c.asid == asid && start == c.end && c.count == count => c.end = end,
                _ => out.push(Counted {
                    asid,
                    start,
                    end,
                    count,
                }),
            }
        }
        out
    }

    /// Copies the DMA engine finished: moved pages are reclaimed, pages
    /// written during their copy go on being tracked in DRAM.
    fn dma_finish(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        if self.in_flight.is_empty() {
            return Ok(());
        }
        let r = b.dma()?.dma_poll()?;
        self.tally.reclaimed += r.moved;
        self.tally.dma_moved += r.moved;
        self.tally.dma_aborted += r.aborted;
        if r.pending > 0 {
            return Ok(());
        }
        for d in std::mem::take(&mut self.in_flight) {
            if b.translate(d.asid, d.va)?
                .is_some_and(|t| t.tier != self.slow)
            {
                self.in_dram.push(d);
            } else {
                self.count_reclaimed(1);
            }
        }
        Ok(())
    }

    /// The reserved slab of rarely-touched pages (4.2 (1): slab 15 of 16),
    /// where pages reclaimed to NVM go (4.3 case 2), when pages are placed
    /// by slab.
    fn rare_slab(&self) -> Option<u16> {
        let t = self.places.as_ref()?;
        t.class_slabs(places::SlabClass::Rare, 0).first().copied()
    }

    /// `n` pages went back to NVM: they count as cold there.
    fn count_reclaimed(&mut self, n: u64) {
        if let Some(c) = self.census.as_mut() {
            c.nvm_cold += n;
        }
    }

    /// End of the action period: bandwidth scheduling for the next one.
    fn schedule(&mut self, b: &mut dyn Backend, period_s: f64) -> Result<(), BackendError> {
        let Some((f0, s0)) = self.action_start.take() else {
            return Ok(());
        };
        let lines = |now: TierCounters, then: TierCounters| {
            (now.reads + now.writes - then.reads - then.writes) as f64 / period_s
        };
        let (dram, nvm) = (
            lines(b.tier_counters(self.fast)?, f0),
            lines(b.tier_counters(self.slow)?, s0),
        );
        let (prev_dram, prev_nvm) = self.last_bw.unwrap_or((dram, nvm));
        let gain = dram - prev_dram;
        if self.last_gain.is_some_and(|last| gain < last) {
            self.budget = ((self.budget as f64 * self.p.backoff).ceil() as u64).max(1);
            self.tally.cut_periods += 1;
        } else {
            self.budget = self.p.max_migrate_pages;
        }
        // "NVM bandwidth decreases drastically more than the DRAM
        // bandwidth increases": a fall in NVM larger than DRAM's gain.
        let nvm_drop = prev_nvm - nvm;
        if nvm_drop > 0.0 && nvm_drop > gain {
            self.skip_next = true;
            self.tally.stopped_periods += 1;
        }
        self.last_bw = Some((dram, nvm));
        self.last_gain = Some(gain);
        Ok(())
    }

    /// The hot set HyMM knows now: hot NVM pages and DRAM pages not idle.
    fn hot_set(&self) -> HotSet {
        let mut pages: Vec<(Asid, u64, u64)> = self
            .pages
            .iter()
            .filter(|p| p.hot)
            .map(|p| (p.asid, p.va, size(p.huge)))
            .chain(
                self.in_dram
                    .iter()
                    .filter(|d| d.idle == 0)
                    .map(|d| (d.asid, d.va, 4096)),
            )
            .collect();
        pages.sort_unstable();
        let mut ranges: Vec<(Asid, u64, u64)> = Vec::new();
        for (asid, va, len) in pages {
            match ranges.last_mut() {
                Some(r) if r.0 == asid && r.1 + r.2 >= va => r.2 = r.2.max(va + len - r.1),
                _ => ranges.push((asid, va, len)),
            }
        }
        HotSet { ranges }
    }
}

fn size(huge: bool) -> u64 {
    if huge {
        PageSize::Huge.bytes()
    } else {
        PageSize::Base.bytes()
    }
}

impl Manager for Memos {
    fn name(&self) -> &'static str {
        "memos"
    }

    fn gauges(&self) -> Vec<(&'static str, f64)> {
        let t = &self.tally;
        let mut g = vec![
            ("hot_pages_count", t.hot as f64),
            ("wd_pages_count", t.wd as f64),
            ("rd_pages_count", t.rd as f64),
            ("stream_pages_count", t.stream as f64),
            ("promoted_pages_count", t.promoted as f64),
            ("reclaimed_pages_count", t.reclaimed as f64),
            ("very_hot_cold_pages_count", t.very_hot as f64),
            ("stopped_periods_count", t.stopped_periods as f64),
            ("cut_periods_count", t.cut_periods as f64),
            ("dma_moved_pages_count", t.dma_moved as f64),
            ("dma_aborted_pages_count", t.dma_aborted as f64),
            ("migrate_budget_pages", self.budget as f64),
            ("dram_pages", self.in_dram.len() as f64),
        ];
        if let Some(c) = self.census {
            let dram_wd = self
                .in_dram
                .iter()
                .chain(&self.in_flight)
                .filter(|d| d.wd)
                .count();
            let dram = self.in_dram.len() + self.in_flight.len();
            g.extend([
                ("dram_wd_pages", dram_wd as f64),
                ("dram_rd_pages", (dram - dram_wd) as f64),
                ("nvm_wd_pages", c.nvm_wd as f64),
                ("nvm_rd_pages", c.nvm_rd as f64),
                ("nvm_cold_pages", c.nvm_cold as f64),
            ]);
        }
        if self.places.is_some() {
            g.extend([
                ("placed_pages_count", t.placed as f64),
                ("placed_stream_pages_count", t.placed_stream as f64),
                ("unplaced_pages_count", t.unplaced as f64),
                ("nvm_stream_placed_pages_count", t.nvm_stream_placed as f64),
                ("bank_moved_pages_count", t.bank_moved as f64),
                ("stream_slabs_grown", self.stream_grown as f64),
            ]);
        }
        if self.p.study {
            g.extend([
                ("hymm_faults_count", t.work.faults as f64),
                ("hymm_pte_reads_count", t.work.pte_reads as f64),
                ("hymm_flushes_count", t.work.flushes as f64),
                ("uncapped_faults_count", t.uncapped_faults as f64),
                ("nvm_pages_count", t.nvm_pages as f64),
                ("representatives_count", t.representatives as f64),
                ("iqr_sum", t.iqr_sum),
                ("iqr_regions_count", t.iqr_regions as f64),
            ]);
        }
        if self.p.history_study {
            let h = &self.history_tally;
            for (i, (judged, correct)) in HISTORY_GAUGES.iter().enumerate().take(h.judged.len()) {
                g.push((judged, h.judged[i] as f64));
                g.push((correct, h.correct[i] as f64));
            }
        }
        g.extend(self.schemes.gauges());
        g
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.no_colours {
            notes.push(
                "this machine has no banks or LLC slabs (Colours unsupported): pages are placed by channel only, with no bank or slab placement (4.2, 5.1) and no bank moves within a channel (4.3)"
                    .to_string(),
            );
        }
        notes.extend(self.schemes.notes());
        notes
    }

    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        self.p
            .check()
            .map_err(|why| BackendError::Invalid { va: 0, why })?;
        let pages: u64 = b.regions().iter().map(|r| r.len.div_ceil(4096)).sum();
        if pages > MAX_PAGES {
            return Err(BackendError::Unfit(
                "memos keeps a record per 4 KiB page (its shadow array): footprints above 256 GiB are beyond it (the paper's largest is 24 GB)".into(),
            ));
        }
        self.schemes = SchemeSet::start(&self.p.schemes, b)?;
        let tiers = b.tiers().len();
        self.slow = TierId(tiers.saturating_sub(1) as u8);
        let mut asids: Vec<Asid> = b.regions().iter().map(|r| r.asid).collect();
        asids.dedup();
        let policy = if self.p.scope == Scope::Full {
            MemPolicy::Bind { tier: self.slow }
        } else {
            // Steps 1-2: "dual-channel interleaving scheme".
            MemPolicy::Interleave
        };
        for a in asids {
            b.set_policy(a, policy)?;
        }
        // Memos' two-tiered buddy system where the machine has banks and
        // slabs to place pages in (5.1).
        if self.p.scope != Scope::Full && !b.capabilities().has(Capability::Colours) {
            return Err(BackendError::Invalid {
                va: 0,
                why: "memos.scope cache and cache+bank place pages by slab: they need a machine with a memory system (dram+dram-memos, dram+pcm-memos)",
            });
        }
        self.no_colours = self.p.placement
            && self.p.colour_placement
            && !self.p.history_study
            && !b.capabilities().has(Capability::Colours);
        if self.p.placement
            && (self.p.colour_placement || self.p.scope != Scope::Full)
            && !self.p.history_study
            && b.capabilities().has(Capability::Colours)
        {
            b.colours()?.set_coloured_allocation(true)?;
            let (banks, slabs) = b.colours()?.place_counts()?;
            if self.p.scope != Scope::Full && b.tiers().len() < 2 {
                return Err(BackendError::Invalid {
                    va: 0,
                    why: "memos.scope cache and cache+bank interleave pages over two channels",
                });
            }
            self.places = Some(places::FreqTables::new(
                tiers,
                banks as usize,
                slabs as usize,
            ));
        }
        // The first cycle begins at the first tick (see the module docs).
        self.t = if self.p.history_study {
            0
        } else {
            self.cycle_s() - 1
        };
        Ok(())
    }

    fn tick_ns(&self) -> Option<u64> {
        Some(1_000_000_000)
    }

    /// One second of the cycle.
    fn tick(&mut self, b: &mut dyn Backend) -> Result<Option<HotSet>, BackendError> {
        self.t += 1;
        if self.p.history_study {
            if self.t.is_multiple_of(self.p.interval_s) {
                self.history_record(b)?;
            }
            return Ok(None);
        }
        self.dma_finish(b)?;
        let (count, iv, prep) = (
            self.p.tlb_count_s,
            self.p.interval_s,
            self.p.preparation_s(),
        );
        if self.t >= self.cycle_s() {
            self.schedule(b, f64::from(self.p.action_s))?;
            self.t = 0;
            self.begin_preparation(b)?;
            return Ok(None);
        }
        let t = self.t;
        let mut hot = None;
        if t < count {
            self.cap_counts(b)?;
        } else if t == count {
            self.end_counting(b)?;
            hot = Some(self.hot_set());
            if !self.schemes.is_empty() {
                let profile = self.scheme_profile();
                let aggregation_ns = u64::from(self.p.tlb_count_s) * 1_000_000_000;
                self.schemes.apply_known(
                    b,
                    &profile,
                    f64::from(self.p.miss_cap),
                    aggregation_ns,
                )?;
            }
        } else if t <= prep && (t - count).is_multiple_of(iv) {
            let k = (t - count) / iv - 1;
            self.dirty_record(b, k)?;
            if t == prep {
                self.build_queue();
                if self.p.placement {
                    self.act(b)?;
                }
            }
        } else if t > prep
            && (t - prep).is_multiple_of(iv)
            && self.p.scope == Scope::Full
            && (self.p.placement || !self.schemes.is_empty())
        {
            // without placement Memos placed nothing: the scan is for the
            // schemes' profile only
            self.reclaim_scan(b)?;
        }
        Ok(hot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(asid: u16, va: u64, misses: u32) -> Page {
        Page {
            asid: Asid(asid),
            va,
            huge: false,
            misses,
            raw: misses,
            counting: false,
            hot: false,
            records: 0,
            sub: 0,
            very_hot: false,
            stream: false,
        }
    }

    fn seen(accessed: u32, scans: u32) -> DramSeen {
        DramSeen {
            bytes: 4096,
            accessed,
            scans,
        }
    }

    /// The profile the schemes get: sorted by (address space, start), no
    /// overlap, a page counted and scanned taking its count, adjacent
    /// pages of one count merged, DRAM pages at `miss_cap` x their share
    /// of Accessed scans; `dram_seen` starts again.
    #[test]
    fn the_schemes_profile_is_sorted_merged_and_takes_the_count_over_the_scan() {
        let mut m = Memos::new(MemosParams::default());
        m.pages = vec![
            page(1, 0x1000, 3),
            page(0, 0x1000, 15),
            page(0, 0x2000, 15),
            page(0, 0x3000, 15),
        ];
        m.dram_seen.insert((Asid(0), 0x3000), seen(8, 8));
        m.dram_seen.insert((Asid(0), 0x4000), seen(8, 8));
        m.dram_seen.insert((Asid(0), 0x5000), seen(4, 4));
        m.dram_seen.insert((Asid(0), 0x6000), seen(0, 8));
        m.dram_seen.insert((Asid(0), 0x7000), seen(2, 8));
        m.dram_seen.insert((Asid(0), 0x9000), seen(0, 0));
        let got: Vec<(u16, u64, u64, f64)> = m
            .scheme_profile()
            .into_iter()
            .map(|c| (c.asid.0, c.start, c.end, c.count))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, 0x1000, 0x4000, 15.0),
                (0, 0x4000, 0x6000, 200.0),
                (0, 0x6000, 0x7000, 0.0),
                (0, 0x7000, 0x8000, 50.0),
                (1, 0x1000, 0x2000, 3.0),
            ]
        );
        assert!(m.dram_seen.is_empty());
    }
}
