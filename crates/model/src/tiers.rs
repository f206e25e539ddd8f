//! Memory-tier presets. Every value cites its source; see
//! ../shared/reference/devices.md for the table they come from.

use serde::{Deserialize, Serialize};

/// The physical characteristics of one tier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TierSpec {
    /// Preset name.
    pub name: String,
    /// Bytes; 0 means "size it from the run" (see the experiment's capacity rules).
    #[serde(default)]
    pub capacity_bytes: u64,
    /// Idle load-to-use latency of one line (ns).
    pub read_ns: f64,
    /// Latency a store stalls the core (ns).
    pub write_ns: f64,
    /// Peak read bandwidth shared by all cores (GB/s = bytes/ns).
    pub read_gbps: f64,
    /// Peak write bandwidth shared by all cores (GB/s).
    pub write_gbps: f64,
    /// Dynamic read energy (pJ per bit).
    pub read_pj_per_bit: f64,
    /// Dynamic write energy (pJ per bit).
    pub write_pj_per_bit: f64,
    /// Standby plus refresh power (W per GiB of capacity).
    pub standby_w_per_gb: f64,
    /// Writes a cell endures, if limited.
    #[serde(default)]
    pub endurance_writes: Option<f64>,
    /// If set, the tier is not byte-addressable: a TLB miss to one of its pages
    /// faults for this long (e.g. zswap decompression), and the page moves to
    /// the fastest tier above it that has room (frames, and the address
    /// space's quota there).
    #[serde(default)]
    pub fault_on_access_ns: Option<f64>,
    /// With `fault_on_access_ns`: the faulting page stays where it is instead
    /// of moving to the fast tier (BadgerTrap emulation of slow memory).
    #[serde(default)]
    pub keep_on_fault: bool,
}

/// DRAM. Latency: devices.md "60-100 ns idle" (80 ns taken); bandwidth: DDR4
/// ~20-25 GB/s per channel (devices.md), four channels assumed (*inferred*);
/// energy, standby and refresh: Memos Table 1 (1.17 / 0.39 pJ/bit, 1 + 0.032 W/GB).
pub fn dram() -> TierSpec {
    TierSpec {
        name: "dram".into(),
        capacity_bytes: 0,
        read_ns: 80.0,
        write_ns: 80.0,
        read_gbps: 90.0,
        write_gbps: 90.0,
        read_pj_per_bit: 1.17,
        write_pj_per_bit: 0.39,
        standby_w_per_gb: 1.032,
        endurance_writes: None,
        fault_on_access_ns: None,
        keep_on_fault: false,
    }
}

/// Optane DCPMM in App Direct mode. Read latency ~305 ns idle random load
/// (Izraelevitz et al. 2019, devices.md); stores are absorbed by the memory
/// controller's write-pending queue, so a store stalls about as long as a DRAM
/// store (*inferred*: 100 ns) while the write bandwidth is the real limit;
/// bandwidth per 6-DIMM socket 39.4 GB/s read, 13.9 GB/s write (devices.md).
/// Energy: no DCPMM figure in the sources; Memos Table 1's PCM-based NVM values
/// (2.47 / 16.82 pJ/bit) are used as the closest stand-in (*inferred*), and
/// standby power is taken as a tenth of DRAM's (*inferred*: no refresh).
pub fn dcpmm() -> TierSpec {
    TierSpec {
        name: "dcpmm".into(),
        capacity_bytes: 0,
        read_ns: 305.0,
        write_ns: 100.0,
        read_gbps: 39.4,
        write_gbps: 13.9,
        read_pj_per_bit: 2.47,
        write_pj_per_bit: 16.82,
        standby_w_per_gb: 0.1,
        endurance_writes: None,
        fault_on_access_ns: None,
        keep_on_fault: false,
    }
}

/// A CXL memory expander: local DRAM + 70-90 ns (Pond, ASPLOS'23; devices.md),
/// 80 ns added; bandwidth "tens of GB/s" (32 GB/s taken, *inferred*: about a
/// PCIe 5 x8 link); DRAM energy plus nothing for the link (*inferred*).
pub fn cxl() -> TierSpec {
    TierSpec {
        name: "cxl".into(),
        read_ns: 160.0,
        write_ns: 160.0,
        read_gbps: 32.0,
        write_gbps: 32.0,
        ..dram()
    }
}

/// Phase-change memory: 150 ns loads, 300-600 ns stores (450 taken), ~2 GB/s
/// (HeteroOS Table 1); endurance 1e7 writes per cell and 2.47 / 16.82 pJ/bit
/// (Memos Table 1); standby as for DCPMM (*inferred*).
pub fn pcm() -> TierSpec {
    TierSpec {
        name: "pcm".into(),
        capacity_bytes: 0,
        read_ns: 150.0,
        write_ns: 450.0,
        read_gbps: 2.0,
        write_gbps: 2.0,
        read_pj_per_bit: 2.47,
        write_pj_per_bit: 16.82,
        standby_w_per_gb: 0.1,
        endurance_writes: Some(1e7),
        fault_on_access_ns: None,
        keep_on_fault: false,
    }
}

/// A zswap-like compressed pool in DRAM: ~6 us per access that faults
/// (Lagar-Cavilla et al., ASPLOS'19; devices.md). Its pages live compressed
/// in DRAM, so once faulted in they are read at DRAM speed; the standby power
/// is DRAM's divided by an assumed 3x compression ratio (*inferred*).
pub fn zswap() -> TierSpec {
    TierSpec {
        name: "zswap".into(),
        standby_w_per_gb: 1.032 / 3.0,
        fault_on_access_ns: Some(6_000.0),
        ..dram()
    }
}

/// The swap device behind HeteroOS's guests (section 4.2: balloon drivers
/// "swap pages to the disk"), for VMs whose memory is overcommitted.
/// *Inferred*: the paper names no device; this is a datacenter NVMe SSD of
/// its time, Intel's DC P3700 (product specification 330566: 20 us typical
/// 4 KiB latency, 2.8 / 2.0 GB/s sequential read / write). A TLB miss to a
/// swapped page faults for the device's read, and the page comes back into
/// the fastest tier the VM has room in; the fault handler's own time and
/// the write of a page swapped out are not charged. Its pages are not in
/// memory: no standby power.
pub fn heteroos_swap() -> TierSpec {
    TierSpec {
        name: "swap".into(),
        read_gbps: 2.8,
        write_gbps: 2.0,
        read_pj_per_bit: 0.0,
        write_pj_per_bit: 0.0,
        standby_w_per_gb: 0.0,
        fault_on_access_ns: Some(20_000.0),
        ..heteroos_slowmem()
    }
}

/// Slow memory emulated the way Thermostat's evaluation did it (section 4.2 of
/// ../shared/papers/000_5488ae48d80721cc.txt): the pages stay in DRAM, and
/// every TLB miss to one of them takes a BadgerTrap fault of about 1 us
/// ("about 1us in our kernel"). Accesses that hit the TLB cost nothing extra,
/// as in the paper's emulation.
pub fn badgertrap() -> TierSpec {
    TierSpec {
        name: "badgertrap".into(),
        fault_on_access_ns: Some(1_000.0),
        keep_on_fault: true,
        ..dram()
    }
}

/// DRAM of Ambix's machine (../shared/papers/004_5016d0e3a63ff357.txt,
/// section 3.1: one Xeon Gold 5218 socket, 2 of 6 channels populated), as
/// fitted to the IWB tables (Figures 2-3, ../shared/reference/ambix-iwb.csv)
/// by `tools/fit_dcpmm.py`: effective per-thread times of a sequential sweep
/// (20.95 ns per line read, 0.20 ns per line written, at MLP 4 stored as
/// 83.8 / 0.81 ns), 15.66 / 10.03 GB/s read / write bandwidth. The latencies
/// are sequential-stream (prefetched) costs, not idle random latency.
/// Energy as [`dram`].
pub fn ambix_dram() -> TierSpec {
    TierSpec {
        name: "dram".into(),
        read_ns: 83.8,
        write_ns: 0.81,
        read_gbps: 15.66,
        write_gbps: 10.03,
        ..dram()
    }
}

/// DCPMM of Ambix's machine (2 DIMMs), fitted with [`ambix_dram`]:
/// 48.68 / 20.81 ns per line read / written per thread (194.7 / 83.2 ns at
/// MLP 4), 3.84 / 0.867 GB/s read / write bandwidth: writes cost 4.4x reads
/// of bandwidth, the asymmetry Ambix is built on. Energy as [`dcpmm`].
pub fn ambix_dcpmm() -> TierSpec {
    TierSpec {
        name: "dcpmm".into(),
        read_ns: 194.7,
        write_ns: 83.2,
        read_gbps: 3.839,
        write_gbps: 0.8674,
        ..dcpmm()
    }
}

/// HeteroOS's FastMem (../shared/papers/001_f8c99e4789a9a37b.txt, Table 3,
/// L:1,B:1): DRAM measured at 60 ns and 24 GB/s on its emulation host.
/// Energy as [`dram`].
pub fn heteroos_fastmem() -> TierSpec {
    TierSpec {
        name: "fastmem".into(),
        read_ns: 60.0,
        write_ns: 60.0,
        read_gbps: 24.0,
        write_gbps: 24.0,
        ..dram()
    }
}

/// HeteroOS's SlowMem as evaluated (section 5.1: DRAM throttled to about 9x
/// less bandwidth and 5x more latency): Table 3's measured L:5 latency,
/// 354 ns, and 24 / 9 = 2.67 GB/s. *Inferred*: the paper measures L:5,B:5
/// and L:5,B:12 but not the L:5,B:9 it evaluates with; the latency is the
/// L:5 columns' (both 354 ns at B:5) and the bandwidth the ninth of
/// FastMem's. Throttled DRAM: energy as [`dram`].
pub fn heteroos_slowmem() -> TierSpec {
    TierSpec {
        name: "slowmem".into(),
        read_ns: 354.0,
        write_ns: 354.0,
        read_gbps: 24.0 / 9.0,
        write_gbps: 24.0 / 9.0,
        ..dram()
    }
}
