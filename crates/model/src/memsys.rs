//! The memory system's description: which physical-address bits select the
//! channel, the bank, the row and the LLC slab, and each channel's bank
//! timings and controller queues. Off unless a machine preset or
//! `machine.memory` turns it on; the exact machine's memory controllers
//! (`thermocline_sim::memctl`) implement it.
//!
//! Source: Memos (../shared/papers/003_4ce7a4cbf1361ba3.txt):
//! - section 4.2 and Fig. 8: bit 32 is the channel bit (DRAM below 4 GB,
//!   NVM above); bits 12-14 and 20-21 index the bank; bits 15-18 index both
//!   the cache set and the row, and dictate 16 LLC slabs of 512 sets
//!   (an 8 MB LLC);
//! - section 7(9): the BIOS mapping the experiments use, where 15-18 index
//!   the cache sets and rows only (no bank), which is the default here;
//! - section 5.3: one controller per channel (DRAM, NVM), FR-FCFS, a
//!   64-bit channel, a 64-entry read queue and a 32-entry write buffer;
//! - Table 1: t_RC, t_RP and t_WR in cycles per device.
//!
//! *Inferred* (the paper does not say):
//! - the row buffer is 4 KiB: bits below bit 12 are the column (footnote 1:
//!   "page-level interleaving"; bank bit 12 leaves nothing wider), and the
//!   row is every bit at or above `column_bits` that selects neither the
//!   channel nor the bank;
//! - the cycles of Table 1 are memory-clock cycles of the i7-860's DDR3-1333
//!   (section 5.3), 1.5 ns;
//! - Table 1's "t_RC" is the activate-to-column delay (t_RCD): with t_RP it
//!   makes a row conflict cost t_RP + t_RCD;
//! - a 64 B line crosses the 64-bit channel in a burst of 8, 4 cycles;
//! - the write buffer drains, when full, to half full.
//!
//! Validation returns a message (the callers wrap it in their typed errors):
//! no bad configuration panics.

use serde::{Deserialize, Serialize};

/// Which physical-address bits select what (Memos Fig. 8).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AddressMap {
    /// Tier `t`'s physical addresses start at `t << channel_bit`: with two
    /// tiers, DRAM lies below 4 GB and NVM above, and this bit is the
    /// channel bit (one channel per tier, as the paper's simulator has "memory
    /// controllers for DRAM and NVM, respectively"). Every tier but the last
    /// must fit below the next one's start.
    pub channel_bit: u8,
    /// Bits that index the bank within a channel (2^n banks per channel).
    pub bank_bits: Vec<u8>,
    /// Bits below this are the column: a row buffer holds `2^column_bits`
    /// bytes. The row is every higher bit that is neither the channel bit
    /// nor a bank bit.
    pub column_bits: u8,
    /// Bits that pick the LLC slab (page colour). The set within a slab is
    /// the line-address bits just above the 64 B offset, as many as the
    /// LLC's sets per slab need; they must lie below the slab bits.
    pub slab_bits: Vec<u8>,
}

impl Default for AddressMap {
    fn default() -> Self {
        AddressMap {
            channel_bit: 32,
            bank_bits: vec![12, 13, 14, 20, 21],
            column_bits: 12,
            slab_bits: vec![15, 16, 17, 18],
        }
    }
}

/// Bank timings of one channel's device, in memory-clock cycles (Table 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BankTimings {
    /// Activate to column command (Table 1's t_RC; see the module's notes).
    pub t_rcd: f64,
    /// Precharge (closing the open row).
    pub t_rp: f64,
    /// Write recovery before a written row can be precharged.
    pub t_wr: f64,
    /// Data burst of one 64 B line on the 64-bit channel (*inferred*: BL8).
    pub t_burst: f64,
}

impl BankTimings {
    /// Table 1's DRAM: t_RC = 5, t_RP = 5, t_WR = 6 cycles.
    pub fn dram() -> Self {
        BankTimings {
            t_rcd: 5.0,
            t_rp: 5.0,
            t_wr: 6.0,
            t_burst: 4.0,
        }
    }

    /// Table 1's NVM (PCM): t_RC = 22, t_RP = 60, t_WR = 6 cycles.
    pub fn nvm() -> Self {
        BankTimings {
            t_rcd: 22.0,
            t_rp: 60.0,
            t_wr: 6.0,
            t_burst: 4.0,
        }
    }
}

/// The memory system: mapping, controllers, device timings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MemSysConfig {
    /// On or off (a preset's memory system can be turned off with
    /// `machine.memory.enabled=false`).
    pub enabled: bool,
    /// The address mapping.
    pub map: AddressMap,
    /// Length of a memory-clock cycle (ns; *inferred* DDR3-1333: 1.5).
    pub cycle_ns: f64,
    /// Per tier (channel), fastest first: its banks' timings.
    pub timings: Vec<BankTimings>,
    /// Read-queue entries per controller (section 5.3: 64).
    pub read_queue: usize,
    /// Write-buffer entries per controller (section 5.3: 32).
    pub write_queue: usize,
    /// A full write buffer drains down to this many entries (*inferred*: half).
    pub write_drain_to: usize,
    /// Writes to a tier with limited endurance are counted per group of
    /// this many bytes (a power of two, 64 to 2 MiB): 64 counts every line;
    /// the default 4096 keeps 4 host bytes per simulated 4 KiB page.
    pub wear_group_bytes: u64,
}

impl Default for MemSysConfig {
    fn default() -> Self {
        MemSysConfig {
            enabled: true,
            map: AddressMap::default(),
            cycle_ns: 1.5,
            timings: vec![BankTimings::dram(), BankTimings::nvm()],
            read_queue: 64,
            write_queue: 32,
            write_drain_to: 16,
            wear_group_bytes: 4096,
        }
    }
}

/// The widest physical address the mapping may use (x86-64: 52 bits).
pub const PHYS_BITS: u8 = 52;
/// At most this many bank bits (256 banks per channel).
pub const MAX_BANK_BITS: usize = 8;
/// At most this many slab bits (256 slabs).
pub const MAX_SLAB_BITS: usize = 8;
/// Queue entries a controller may have.
pub const MAX_QUEUE: usize = 4096;

impl AddressMap {
    /// Checks the mapping on its own.
    pub fn check(&self) -> Result<(), String> {
        let m = self;
        if !(12..=PHYS_BITS).contains(&m.column_bits) {
            return Err(format!(
                "memory.map.column_bits = {}: must be 12..{PHYS_BITS} (a row holds at least a 4 KiB page)",
                m.column_bits
            ));
        }
        if !(21..PHYS_BITS).contains(&m.channel_bit) {
            return Err(format!(
                "memory.map.channel_bit = {}: must be 21..{} (tiers start 2 MiB-aligned)",
                m.channel_bit,
                PHYS_BITS - 1
            ));
        }
        if m.bank_bits.len() > MAX_BANK_BITS {
            return Err(format!(
                "memory.map.bank_bits: {} bits, at most {MAX_BANK_BITS}",
                m.bank_bits.len()
            ));
        }
        if m.slab_bits.len() > MAX_SLAB_BITS {
            return Err(format!(
                "memory.map.slab_bits: {} bits, at most {MAX_SLAB_BITS}",
                m.slab_bits.len()
            ));
        }
        let mut seen = 0u64;
        for &b in &m.bank_bits {
            if b < m.column_bits || b >= PHYS_BITS {
                return Err(format!(
                    "memory.map.bank_bits: bit {b} must be at or above column_bits ({}) and below {PHYS_BITS}",
                    m.column_bits
                ));
            }
            if b == m.channel_bit || seen & 1 << b != 0 {
                return Err(format!(
                    "memory.map.bank_bits: bit {b} is used twice (or is the channel bit)"
                ));
            }
            seen |= 1 << b;
        }
        let mut slabs = 0u64;
        for &b in &m.slab_bits {
            if !(6..PHYS_BITS).contains(&b) || slabs & 1 << b != 0 {
                return Err(format!(
                    "memory.map.slab_bits: bit {b} is repeated or outside 6..{}",
                    PHYS_BITS - 1
                ));
            }
            slabs |= 1 << b;
        }
        Ok(())
    }

    /// The number of LLC sets per slab for an LLC of `sets` sets, if the
    /// slab bits leave room for them: the set within a slab comes from the
    /// line-address bits below every slab bit.
    pub fn sets_per_slab(&self, sets: u64) -> Result<u64, String> {
        let slabs = 1u64 << self.slab_bits.len();
        if !sets.is_power_of_two() || sets < slabs {
            return Err(format!(
                "an LLC of {sets} sets cannot be split into {slabs} slabs"
            ));
        }
        let per = sets / slabs;
        let low_bits = per.trailing_zeros() as u8;
        if let Some(&b) = self.slab_bits.iter().find(|&&b| b < 6 + low_bits) {
            return Err(format!(
                "memory.map.slab_bits: bit {b} falls among the {low_bits} set bits within a slab (address bits 6..{}): an LLC of {sets} sets has {per} sets per slab",
                6 + low_bits - 1
            ));
        }
        Ok(per)
    }
}

impl MemSysConfig {
    /// Checks the configuration against a machine of `tiers` tiers of
    /// `capacities` bytes.
    pub fn check(&self, capacities: &[u64]) -> Result<(), String> {
        self.map.check()?;
        if self.timings.len() != capacities.len() {
            return Err(format!(
                "memory.timings: {} entries for {} tiers (one per tier, fastest first)",
                self.timings.len(),
                capacities.len()
            ));
        }
        for t in &self.timings {
            let v = [t.t_rcd, t.t_rp, t.t_wr, t.t_burst];
            if v.iter().any(|x| !(x.is_finite() && *x >= 0.0)) {
                return Err("memory.timings: cycles must be finite and >= 0".into());
            }
        }
        if !(self.cycle_ns.is_finite() && self.cycle_ns > 0.0) {
            return Err("memory.cycle_ns must be a positive number of ns".into());
        }
        if self.read_queue == 0 || self.read_queue > MAX_QUEUE {
            return Err(format!("memory.read_queue must be 1..{MAX_QUEUE}"));
        }
        if self.write_queue == 0 || self.write_queue > MAX_QUEUE {
            return Err(format!("memory.write_queue must be 1..{MAX_QUEUE}"));
        }
        if self.write_drain_to >= self.write_queue {
            return Err("memory.write_drain_to must be below memory.write_queue".into());
        }
        let g = self.wear_group_bytes;
        if !(g.is_power_of_two() && (64..=2 << 20).contains(&g)) {
            return Err(format!(
                "memory.wear_group_bytes = {g}: must be a power of two from 64 to 2 MiB"
            ));
        }
        if capacities.is_empty() {
            return Err("memory: a machine needs a tier".into());
        }
        let span = 1u64 << self.map.channel_bit;
        let last = capacities.len() - 1;
        if let Some((t, c)) = capacities[..last]
            .iter()
            .enumerate()
            .find(|(_, &c)| c > span)
        {
            return Err(format!(
                "tier {t} holds {c} B but the channel bit {} gives each tier but the last {span} B",
                self.map.channel_bit
            ));
        }
        // Tier t starts at t << channel_bit: the last must end within the
        // physical address width.
        let end = last as u128 * u128::from(span) + u128::from(capacities[last]);
        if end > 1u128 << PHYS_BITS {
            return Err("memory: the tiers do not fit in 52-bit physical addresses".into());
        }
        Ok(())
    }
}

/// What one channel's controller counted.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ChannelStats {
    /// The tier behind the channel.
    pub tier: String,
    /// Line reads that reached each bank (LLC misses).
    pub bank_reads: Vec<u64>,
    /// Line writes that reached each bank (LLC write-backs).
    pub bank_writes: Vec<u64>,
    /// Line writes that wore each bank's cells (write-backs and migration
    /// copies; empty if the tier's cells do not wear).
    pub bank_wear: Vec<u64>,
    /// Requests served from the open row.
    pub row_hits: u64,
    /// Requests served by a precharged bank.
    pub row_empty: u64,
    /// Requests that closed another row.
    pub row_conflicts: u64,
    /// Bytes per wear group (writes to tiers of limited endurance).
    pub wear_group_bytes: u64,
    /// Wear groups of the tier (0 if its cells do not wear).
    pub wear_groups: u64,
    /// Line writes to the most written group (migrations included).
    pub wear_max_group_writes: u64,
    /// Line writes to every group.
    pub wear_total_writes: u64,
}

/// What the memory controllers counted.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MemSysStats {
    /// Per channel (tier), fastest first.
    pub channels: Vec<ChannelStats>,
    /// LLC misses per slab (page colour).
    pub llc_slab_misses: Vec<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_mapping_is_valid_and_gives_16_slabs_of_512_sets() {
        let c = MemSysConfig::default();
        c.check(&[4 << 30, 64 << 30]).unwrap();
        // 8 MiB, 16-way: 8192 sets.
        assert_eq!(c.map.sets_per_slab(8192), Ok(512));
    }

    #[test]
    fn bad_mappings_are_errors() {
        let caps = [1 << 30, 1 << 30];
        let bad = |f: fn(&mut MemSysConfig)| {
            let mut c = MemSysConfig::default();
            f(&mut c);
            c.check(&caps).unwrap_err()
        };
        assert!(bad(|c| c.map.bank_bits = vec![12, 12]).contains("twice"));
        assert!(bad(|c| c.map.bank_bits = vec![32]).contains("channel"));
        assert!(bad(|c| c.map.bank_bits = vec![6]).contains("column_bits"));
        assert!(bad(|c| c.map.channel_bit = 12).contains("channel_bit"));
        assert!(bad(|c| c.map.channel_bit = 200).contains("channel_bit"));
        assert!(bad(|c| c.map.bank_bits = (12..22).collect()).contains("at most"));
        assert!(bad(|c| c.timings.pop().map(drop).unwrap_or(())).contains("timings"));
        assert!(bad(|c| c.cycle_ns = f64::NAN).contains("cycle_ns"));
        assert!(bad(|c| c.write_drain_to = 40).contains("drain"));
        assert!(bad(|c| c.wear_group_bytes = 100).contains("wear_group"));
        let mut c = MemSysConfig::default();
        assert!(c.check(&[8 << 30, 1 << 30]).unwrap_err().contains("tier 0"));
        c.map.slab_bits = vec![10];
        assert!(c
            .map
            .sets_per_slab(8192)
            .unwrap_err()
            .contains("falls among"));
        assert!(c.map.sets_per_slab(1000).is_err());
    }
}
