//! A model of the memory controllers behind the LLC, one per channel (one
//! channel per tier), as Memos' simulator has them
//! (../shared/papers/003_4ce7a4cbf1361ba3.txt, section 5.3: "memory
//! controllers for DRAM and NVM, respectively ... FR-FCFS scheduling policy,
//! 64-bit channel, 64-entry read request queue and 32-entry write buffer");
//! the mapping and timings are `thermocline_model::memsys` (Fig. 8, Table 1).
//!
//! What is modelled:
//! - **Address decoding**: the bank is the gather of the mapping's bank bits,
//!   the row every bit above the column that is neither a bank nor the
//!   channel bit, the LLC slab the gather of the slab bits ([`Decoder`]);
//! - **row buffers**: an open-page policy: a bank keeps its last row open;
//!   a request to it is a *hit*, to a precharged bank *empty*, to another
//!   row a *conflict* ([`RowOutcome`]);
//! - **FR-FCFS**: among queued requests the oldest row hit is served first,
//!   else the oldest ([`fr_fcfs`]);
//! - **bank-level parallelism**: each bank accumulates its service time
//!   (burst, plus activate unless a hit, plus precharge on a conflict, plus
//!   write recovery when the row being closed was written); banks work in
//!   parallel, so the busiest bank bounds the epoch;
//! - **wear**: writes to a tier whose cells have limited endurance are
//!   counted per group of `wear_group_bytes` (migrations' copies included).
//!
//! **The approximation.** The exact machine has no per-request clock: time
//! is computed per epoch from counts (`thermocline_model::perf`). So the
//! controller does not know arrival times; it knows the order of requests.
//! A read waits in the read queue until the queue holds as many reads as the
//! cores can have outstanding (`min(read_queue, ceil(mlp) x threads)`: a
//! core with memory-level parallelism m has about m misses in flight, so
//! FR-FCFS can only reorder among those); then one is served. Writes
//! (LLC write-backs) are posted to the write buffer and, when it is full,
//! drained to `write_drain_to` entries, FR-FCFS among writes. A request is
//! charged when it is served: its row-buffer outcome changes the latency the
//! core sees (reads only: posted writes do not stall the core; they count
//! against the tier's write bandwidth, `thermocline_model::perf`), and its
//! service time loads its bank. Requests still queued when an epoch ends are charged in a later
//! one. Refresh, bus turnaround, rank timing (t_FAW, t_RRD) and the command
//! bus are not modelled.
//!
//! The per-request path allocates nothing (queues are allocated at
//! construction) and takes no dynamic dispatch.

use thermocline_model::memsys::{BankTimings, ChannelStats, MemSysConfig, MemSysStats};
use thermocline_model::AddressMap;
use thermocline_model::TierSpec;

/// No row open (the bank is precharged).
const NO_ROW: u64 = u64::MAX;

/// What a request found in its bank's row buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowOutcome {
    /// Its row was open.
    Hit,
    /// No row was open.
    Empty,
    /// Another row was open and had to be closed; `written` if that row had
    /// been written since it was opened (write recovery first).
    Conflict {
        /// The closed row had been written.
        written: bool,
    },
}

/// One queued request: its bank and row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Bank within the channel.
    pub bank: u16,
    /// Row (the address with the column, bank and channel bits cleared).
    pub row: u64,
}

/// FR-FCFS: the index of the first (oldest) request in `queue` whose row is
/// open in its bank (`open[bank]`), else 0 (the oldest). `queue` must not
/// be empty; it is in arrival order.
pub fn fr_fcfs(queue: &[Request], open: &[u64]) -> usize {
    queue
        .iter()
        .position(|r| open.get(r.bank as usize) == Some(&r.row))
        .unwrap_or(0)
}

/// The address mapping, precomputed.
#[derive(Clone, Debug)]
pub struct Decoder {
    bank_bits: [u8; 8],
    n_bank: usize,
    slab_bits: [u8; 8],
    n_slab: usize,
    row_mask: u64,
    /// Line-address bits of the set within a slab.
    low_set_bits: u32,
}

impl Decoder {
    /// The decoder of `map`, for an LLC of `llc_sets` sets (the slab bits
    /// must leave room for the sets within a slab).
    pub fn new(map: &AddressMap, llc_sets: u64) -> Result<Self, String> {
        map.check()?;
        let per_slab = map.sets_per_slab(llc_sets)?;
        let mut bank_bits = [0u8; 8];
        bank_bits[..map.bank_bits.len()].copy_from_slice(&map.bank_bits);
        let mut slab_bits = [0u8; 8];
        slab_bits[..map.slab_bits.len()].copy_from_slice(&map.slab_bits);
        let mut row_mask = !((1u64 << map.column_bits) - 1) & !(1u64 << map.channel_bit);
        for &b in &map.bank_bits {
            row_mask &= !(1u64 << b);
        }
        Ok(Decoder {
            bank_bits,
            n_bank: map.bank_bits.len(),
            slab_bits,
            n_slab: map.slab_bits.len(),
            row_mask,
            low_set_bits: per_slab.trailing_zeros(),
        })
    }

    /// Banks per channel.
    pub fn banks(&self) -> usize {
        1 << self.n_bank
    }

    /// LLC slabs.
    pub fn slabs(&self) -> usize {
        1 << self.n_slab
    }

    /// The bank of physical address `paddr`: its bank bits, the first one
    /// lowest.
    #[inline]
    pub fn bank(&self, paddr: u64) -> u16 {
        gather(paddr, &self.bank_bits[..self.n_bank])
    }

    /// The row of `paddr` within its bank (equal for two addresses exactly
    /// when they lie in the same row of the same bank and channel).
    #[inline]
    pub fn row(&self, paddr: u64) -> u64 {
        paddr & self.row_mask
    }

    /// The LLC slab (page colour) of `paddr`.
    #[inline]
    pub fn slab(&self, paddr: u64) -> u16 {
        gather(paddr, &self.slab_bits[..self.n_slab])
    }

    /// The LLC set of physical line `pline`: the set within the slab from
    /// the low line-address bits, the slab above them.
    #[inline]
    pub fn llc_set(&self, pline: u64) -> u64 {
        let low = pline & ((1u64 << self.low_set_bits) - 1);
        low | u64::from(self.slab(pline << 6)) << self.low_set_bits
    }
}

/// Bits `bits` of `x`, the first one lowest.
#[inline]
fn gather(x: u64, bits: &[u8]) -> u16 {
    let mut v = 0u16;
    for (i, &b) in bits.iter().enumerate() {
        v |= (((x >> b) & 1) as u16) << i;
    }
    v
}

/// Bank timings in ns.
#[derive(Clone, Copy, Debug)]
struct Ns {
    rcd: f64,
    rp: f64,
    wr: f64,
    burst: f64,
}

impl Ns {
    fn new(t: &BankTimings, cycle_ns: f64) -> Self {
        Ns {
            rcd: t.t_rcd * cycle_ns,
            rp: t.t_rp * cycle_ns,
            wr: t.t_wr * cycle_ns,
            burst: t.t_burst * cycle_ns,
        }
    }

    /// Latency added to an access of a precharged bank (the tier's idle
    /// latency) by `o`.
    fn delta(&self, o: RowOutcome) -> f64 {
        match o {
            RowOutcome::Hit => -self.rcd,
            RowOutcome::Empty => 0.0,
            RowOutcome::Conflict { written } => self.rp + if written { self.wr } else { 0.0 },
        }
    }

    /// Time the bank is busy serving a request that found `o`.
    fn occupancy(&self, o: RowOutcome) -> f64 {
        self.burst
            + match o {
                RowOutcome::Hit => 0.0,
                RowOutcome::Empty => self.rcd,
                RowOutcome::Conflict { written } => {
                    self.rcd + self.rp + if written { self.wr } else { 0.0 }
                }
            }
    }
}

/// One channel's controller and banks.
#[derive(Clone, Debug)]
struct Channel {
    open: Vec<u64>,
    written: Vec<bool>,
    busy_ns: Vec<f64>,
    busy_ideal_ns: Vec<f64>,
    reads: Vec<Request>,
    writes: Vec<Request>,
    ns: Ns,
    fast_ns: Ns,
    stats: ChannelStats,
    /// Epoch: row-buffer latency of served reads, actual and at fast timings.
    stall_ns: f64,
    stall_ideal_ns: f64,
    /// First physical address of the channel.
    base: u64,
    /// Writes per wear group, for tiers of limited endurance.
    wear: Vec<u32>,
}

impl Channel {
    /// Serves `r`, a read or a write, and charges it.
    #[inline]
    fn serve(&mut self, r: Request, write: bool) {
        let b = r.bank as usize;
        let o = if self.open[b] == r.row {
            RowOutcome::Hit
        } else if self.open[b] == NO_ROW {
            RowOutcome::Empty
        } else {
            RowOutcome::Conflict {
                written: self.written[b],
            }
        };
        if o == RowOutcome::Hit {
            self.written[b] |= write;
        } else {
            self.open[b] = r.row;
            self.written[b] = write;
        }
        self.busy_ns[b] += self.ns.occupancy(o);
        self.busy_ideal_ns[b] += self.fast_ns.occupancy(o);
        let s = &mut self.stats;
        match o {
            RowOutcome::Hit => s.row_hits += 1,
            RowOutcome::Empty => s.row_empty += 1,
            RowOutcome::Conflict { .. } => s.row_conflicts += 1,
        }
        if !write {
            self.stall_ns += self.ns.delta(o);
            self.stall_ideal_ns += self.fast_ns.delta(o);
        }
    }

    fn serve_one_read(&mut self) {
        let i = fr_fcfs(&self.reads, &self.open);
        let r = self.reads.remove(i);
        self.serve(r, false);
    }

    fn drain_writes(&mut self, to: usize) {
        while self.writes.len() > to {
            let i = fr_fcfs(&self.writes, &self.open);
            let r = self.writes.remove(i);
            self.serve(r, true);
        }
    }

    fn wear_add(&mut self, paddr: u64, shift: u32, lines: u64) {
        if let Some(w) = self
            .wear
            .get_mut((paddr.wrapping_sub(self.base) >> shift) as usize)
        {
            *w = w.saturating_add(lines.min(u64::from(u32::MAX)) as u32);
        }
    }
}

/// The memory controllers of the machine, one per tier.
#[derive(Clone, Debug)]
pub struct MemCtl {
    decoder: Decoder,
    channels: Vec<Channel>,
    read_window: usize,
    write_queue: usize,
    drain_to: usize,
    wear_shift: u32,
    slab_misses: Vec<u64>,
}

impl MemCtl {
    /// Controllers for `tiers` (channel `t` starting at physical address
    /// `t << channel_bit`), behind an LLC of `llc_sets` sets, fed by
    /// `threads` cores of memory-level parallelism `mlp`.
    pub fn new(
        cfg: &MemSysConfig,
        tiers: &[TierSpec],
        llc_sets: u64,
        mlp: f64,
        threads: usize,
    ) -> Result<Self, String> {
        let caps: Vec<u64> = tiers.iter().map(|t| t.capacity_bytes).collect();
        cfg.check(&caps)?;
        let decoder = Decoder::new(&cfg.map, llc_sets)?;
        let banks = decoder.banks();
        let fast_ns = Ns::new(&cfg.timings[0], cfg.cycle_ns);
        let wear_shift = cfg.wear_group_bytes.trailing_zeros();
        let read_window = cfg
            .read_queue
            .min((mlp.ceil().max(1.0) as usize).saturating_mul(threads.max(1)));
        let channels = tiers
            .iter()
            .enumerate()
            .map(|(t, spec)| Channel {
                open: vec![NO_ROW; banks],
                written: vec![false; banks],
                busy_ns: vec![0.0; banks],
                busy_ideal_ns: vec![0.0; banks],
                reads: Vec::with_capacity(read_window),
                writes: Vec::with_capacity(cfg.write_queue),
                ns: Ns::new(&cfg.timings[t], cfg.cycle_ns),
                fast_ns,
                stats: ChannelStats {
                    tier: spec.name.clone(),
                    bank_reads: vec![0; banks],
                    bank_writes: vec![0; banks],
                    bank_wear: if spec.endurance_writes.is_some() {
                        vec![0; banks]
                    } else {
                        Vec::new()
                    },
                    wear_group_bytes: cfg.wear_group_bytes,
                    ..Default::default()
                },
                stall_ns: 0.0,
                stall_ideal_ns: 0.0,
                base: (t as u64) << cfg.map.channel_bit,
                wear: if spec.endurance_writes.is_some() {
                    vec![0; spec.capacity_bytes.div_ceil(cfg.wear_group_bytes) as usize]
                } else {
                    Vec::new()
                },
            })
            .collect();
        Ok(MemCtl {
            channels,
            read_window,
            write_queue: cfg.write_queue,
            drain_to: cfg.write_drain_to,
            wear_shift,
            slab_misses: vec![0; decoder.slabs()],
            decoder,
        })
    }

    /// The address decoder.
    pub fn decoder(&self) -> &Decoder {
        &self.decoder
    }

    /// Reads queued but not yet served, per channel (for tests).
    pub fn queued_reads(&self, tier: usize) -> &[Request] {
        &self.channels[tier].reads
    }

    /// The open row of each bank of `tier`'s channel (`u64::MAX`: none).
    pub fn open_rows(&self, tier: usize) -> &[u64] {
        &self.channels[tier].open
    }

    /// An LLC miss on physical line `pline` (for the per-slab count).
    #[inline]
    pub fn llc_miss(&mut self, pline: u64) {
        let s = self.decoder.slab(pline << 6) as usize;
        if let Some(m) = self.slab_misses.get_mut(s) {
            *m += 1;
        }
    }

    /// A line read of `paddr` from `tier`'s channel.
    #[inline]
    pub fn read(&mut self, tier: usize, paddr: u64) {
        let r = Request {
            bank: self.decoder.bank(paddr),
            row: self.decoder.row(paddr),
        };
        let window = self.read_window;
        let Some(c) = self.channels.get_mut(tier) else {
            return;
        };
        c.stats.bank_reads[r.bank as usize] += 1;
        if c.reads.len() >= window {
            c.serve_one_read();
        }
        c.reads.push(r);
    }

    /// A line written to `paddr` in `tier`'s channel (an LLC write-back).
    #[inline]
    pub fn write(&mut self, tier: usize, paddr: u64) {
        let r = Request {
            bank: self.decoder.bank(paddr),
            row: self.decoder.row(paddr),
        };
        let (cap, to, shift) = (self.write_queue, self.drain_to, self.wear_shift);
        let Some(c) = self.channels.get_mut(tier) else {
            return;
        };
        c.stats.bank_writes[r.bank as usize] += 1;
        if !c.wear.is_empty() {
            c.wear_add(paddr, shift, 1);
            c.stats.bank_wear[r.bank as usize] += 1;
        }
        if c.writes.len() >= cap {
            c.drain_writes(to);
        }
        c.writes.push(r);
    }

    /// A page of `bytes` copied into `paddr` of `tier` by a migration: the
    /// copy wears the cells (it does not go through the queues: migration
    /// traffic stays bandwidth, as without a memory system).
    pub fn page_written(&mut self, tier: usize, paddr: u64, bytes: u64) {
        let shift = self.wear_shift;
        let Some(c) = self.channels.get_mut(tier) else {
            return;
        };
        if c.wear.is_empty() {
            return;
        }
        // Steps within one wear group and one bank (bank bits lie at or
        // above bit 12).
        let step = (1u64 << shift).min(4096);
        let mut at = paddr;
        while at < paddr + bytes {
            let n = step.min(paddr + bytes - at);
            c.wear_add(at, shift, n / 64);
            c.stats.bank_wear[self.decoder.bank(at) as usize] += n / 64;
            at += n;
        }
    }

    /// Moves the epoch's row-buffer latency and bank loads into the epoch's
    /// fields and starts the next epoch: `row_stall[t]` gets tier t's,
    /// returns (ideal row stall, busiest bank, busiest bank at fast timings).
    pub fn settle(&mut self, row_stall: &mut [f64]) -> (f64, f64, f64) {
        let (mut ideal, mut busy, mut busy_ideal) = (0.0, 0.0f64, 0.0f64);
        for (t, c) in self.channels.iter_mut().enumerate() {
            if let Some(s) = row_stall.get_mut(t) {
                *s = c.stall_ns;
            }
            ideal += c.stall_ideal_ns;
            c.stall_ns = 0.0;
            c.stall_ideal_ns = 0.0;
            for b in c.busy_ns.iter_mut() {
                busy = busy.max(*b);
                *b = 0.0;
            }
            for b in c.busy_ideal_ns.iter_mut() {
                busy_ideal = busy_ideal.max(*b);
                *b = 0.0;
            }
        }
        (ideal, busy, busy_ideal)
    }

    /// Counts so far.
    pub fn stats(&self) -> MemSysStats {
        MemSysStats {
            channels: self
                .channels
                .iter()
                .map(|c| {
                    let mut s = c.stats.clone();
                    if !c.wear.is_empty() {
                        s.wear_groups = c.wear.len() as u64;
                        s.wear_max_group_writes = c.wear.iter().copied().max().unwrap_or(0).into();
                        s.wear_total_writes = c.wear.iter().map(|&w| u64::from(w)).sum();
                    }
                    s
                })
                .collect(),
            llc_slab_misses: self.slab_misses.clone(),
        }
    }

    /// Host bytes used.
    pub fn host_bytes(&self) -> usize {
        self.channels
            .iter()
            .map(|c| {
                c.open.len() * (8 + 1 + 8 + 8 + 8 + 8)
                    + (c.reads.capacity() + c.writes.capacity()) * 16
                    + c.wear.len() * 4
            })
            .sum::<usize>()
            + self.slab_misses.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use thermocline_model::tiers;

    fn ctl(window_mlp: f64) -> MemCtl {
        let mut t = vec![tiers::dram(), tiers::pcm()];
        t[0].capacity_bytes = 1 << 30;
        t[1].capacity_bytes = 1 << 30;
        MemCtl::new(&MemSysConfig::default(), &t, 8192, window_mlp, 1).unwrap()
    }

    /// The paper's mapping: bank = bits 12,13,14,20,21 (first lowest).
    #[test]
    fn fig8_bank_and_slab_bits() {
        let c = ctl(1.0);
        let d = c.decoder();
        assert_eq!(d.banks(), 32);
        assert_eq!(d.slabs(), 16);
        assert_eq!(d.bank(0x1000), 1);
        assert_eq!(d.bank(0x4000), 4);
        assert_eq!(d.bank(0x10_0000), 8);
        assert_eq!(d.bank(0x20_0000), 16);
        assert_eq!(d.bank(0x8000), 0, "bit 15 is a row and slab bit");
        assert_eq!(d.slab(0x8000), 1);
        assert_eq!(d.slab(0x7_8000), 15);
        // Same row: differ only in the column; another row: bit 15.
        assert_eq!(d.row(0x1040), d.row(0x1f80));
        assert_ne!(d.row(0x1000), d.row(0x9000));
        // The channel bit is not part of the row.
        assert_eq!(d.row(1 << 32), d.row(0));
        // Sets: 512 per slab from line bits 0-8 (address 6-14), slab above:
        // the conventional index of an 8192-set cache.
        for pline in [0u64, 1, 511, 512, 8191, 8192, 123_456_789] {
            assert_eq!(d.llc_set(pline), pline & 8191);
        }
    }

    #[test]
    fn row_buffer_hit_empty_conflict() {
        let mut c = ctl(1.0);
        // Window 1: a read is served when the next arrives.
        c.read(1, 0x1000);
        c.read(1, 0x1040); // serves 0x1000: empty bank
        c.read(1, 0x9000); // serves 0x1040: hit
        c.read(1, 0x0); // serves 0x9000 (bank 1, row of bit 15): conflict
        let s = &c.stats().channels[1];
        assert_eq!((s.row_empty, s.row_hits, s.row_conflicts), (1, 1, 1));
        assert_eq!(c.open_rows(1)[1], c.decoder().row(0x9000));
        // NVM: hit -22 cy, conflict +60 cy (Table 1), empty 0, at 1.5 ns.
        let mut stall = [0.0; 2];
        let (ideal, busy, busy_ideal) = c.settle(&mut stall);
        assert!((stall[1] - (-22.0 + 60.0) * 1.5).abs() < 1e-9, "{stall:?}");
        assert!((ideal - (-5.0 + 5.0) * 1.5).abs() < 1e-9);
        // Bank 1 served all three: bursts 3 x 4, activates 2 x 22, precharge 60.
        assert!((busy - (12.0 + 44.0 + 60.0) * 1.5).abs() < 1e-9, "{busy}");
        assert!((busy_ideal - (12.0 + 10.0 + 5.0) * 1.5).abs() < 1e-9);
        let (_, b, _) = c.settle(&mut stall);
        assert_eq!((stall[1], b), (0.0, 0.0), "an epoch starts from zero");
    }

    #[test]
    fn fr_fcfs_serves_the_open_row_first() {
        let mut c = ctl(2.0);
        c.read(0, 0x1000); // bank 1, row 0
        c.read(0, 0x1040);
        c.read(0, 0x9000); // serves 0x1000 (oldest, empty bank)
        c.read(0, 0x1080); // queue [0x1040, 0x9000]: 0x1040 hits
        c.read(0, 0x10c0); // queue [0x9000, 0x1080]: 0x1080 hits, before the older 0x9000
        let q = c.queued_reads(0);
        assert_eq!(q.len(), 2);
        assert_eq!(q[0].row, c.decoder().row(0x9000));
        let s = &c.stats().channels[0];
        assert_eq!((s.row_empty, s.row_hits, s.row_conflicts), (1, 2, 0));
    }

    #[test]
    fn writes_drain_to_half_when_the_buffer_fills() {
        let mut c = ctl(1.0);
        for i in 0..33u64 {
            c.write(1, (1 << 32) + (i << 12));
        }
        let s = &c.stats().channels[1];
        assert_eq!(s.row_hits + s.row_empty + s.row_conflicts, 16);
        assert_eq!(s.bank_writes.iter().sum::<u64>(), 33);
        // 33 writes in 4 KiB groups of the first 132 KiB.
        assert_eq!(c.stats().channels[1].wear_total_writes, 33);
        assert_eq!(c.stats().channels[1].wear_max_group_writes, 1);
        assert_eq!(c.stats().channels[0].wear_groups, 0, "DRAM wears nothing");
    }

    #[test]
    fn migrations_wear_their_groups() {
        let mut c = ctl(1.0);
        c.page_written(1, (1 << 32) + (2 << 20), 2 << 20);
        let s = &c.stats().channels[1];
        assert_eq!(s.wear_total_writes, 32768);
        assert_eq!(s.wear_max_group_writes, 64);
        // 2 MiB from 2 MiB up: bits 12-14 and 20 take every value, 21 is
        // 1: banks 16-31, 2048 lines each.
        for (b, &n) in s.bank_wear.iter().enumerate() {
            assert_eq!(n, if b >= 16 { 2048 } else { 0 }, "bank {b}");
        }
    }

    fn reference_fr_fcfs(q: &[Request], open: &[u64]) -> usize {
        for (i, r) in q.iter().enumerate() {
            if open[r.bank as usize] == r.row {
                return i;
            }
        }
        0
    }

    proptest! {
        /// FR-FCFS: a row hit if any (the oldest of them), else the oldest.
        #[test]
        fn fr_fcfs_matches_the_reference(
            q in prop::collection::vec((0u16..4, 0u64..3), 1..20),
            open in prop::collection::vec(0u64..4, 4),
        ) {
            let q: Vec<Request> = q.into_iter().map(|(bank, row)| Request { bank, row }).collect();
            let i = fr_fcfs(&q, &open);
            prop_assert_eq!(i, reference_fr_fcfs(&q, &open));
            let hit = |r: &Request| open[r.bank as usize] == r.row;
            if hit(&q[i]) {
                prop_assert!(q[..i].iter().all(|r| !hit(r)));
            } else {
                prop_assert!(q.iter().all(|r| !hit(r)) && i == 0);
            }
        }

        /// Bank, slab and row decoding equal the bit masks of any valid mapping.
        #[test]
        fn decoding_matches_the_bit_masks(
            bits in prop::sample::subsequence((12u8..40).collect::<Vec<_>>(), 0..8),
            slab in prop::sample::subsequence((19u8..40).collect::<Vec<_>>(), 0..5),
            addr in any::<u64>(),
        ) {
            let bits: Vec<u8> = bits.into_iter().filter(|&b| b != 32).collect();
            let map = AddressMap { channel_bit: 32, bank_bits: bits.clone(), column_bits: 12, slab_bits: slab.clone() };
            let d = Decoder::new(&map, 1 << 13 << slab.len()).unwrap();
            let addr = addr & ((1 << 52) - 1);
            let mut bank = 0;
            for (i, b) in bits.iter().enumerate() {
                bank += ((addr >> b) & 1) << i;
            }
            prop_assert_eq!(u64::from(d.bank(addr)), bank);
            let mut s = 0;
            for (i, b) in slab.iter().enumerate() {
                s += ((addr >> b) & 1) << i;
            }
            prop_assert_eq!(u64::from(d.slab(addr)), s);
            // Two addresses share a row exactly when they agree on every bit
            // but the column, bank and channel bits.
            let other = addr ^ (1 << 13);
            let same = bits.contains(&13);
            prop_assert_eq!(d.row(addr) == d.row(other), same);
        }
    }
}
