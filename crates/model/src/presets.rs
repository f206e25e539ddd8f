//! Named machines: a tier preset per tier, and for Memos' machine an LLC
//! and a memory system. Every value cites its source; see
//! ../shared/reference/devices.md and the tier presets in [`crate::tiers`].

use crate::config::LlcConfig;
use crate::memsys::MemSysConfig;
use crate::tiers::*;

/// A named machine preset: DRAM and one slow tier.
pub struct MachinePreset {
    /// Name, as given to `--machine`.
    pub name: &'static str,
    /// One line for `thermocline list`.
    pub description: &'static str,
    /// Builds the tiers, fastest first.
    pub tiers: fn() -> Vec<TierSpec>,
    /// Memory-level parallelism the tier latencies were fitted at, if any.
    pub mlp: Option<f64>,
    /// The soft-saturation exponent (see `PerfConfig::saturation_exponent`).
    pub saturation_exponent: Option<f64>,
    /// The machine's fast-tier size, when it models a specific machine (used
    /// unless the user or the manager says otherwise).
    pub fast_capacity: Option<u64>,
    /// The machine's last-level cache, used unless `machine.llc` is set.
    pub llc: Option<LlcConfig>,
    /// The machine's memory system (address mapping, banks, controllers),
    /// used unless `machine.memory` is set.
    pub memory: Option<fn() -> MemSysConfig>,
}

/// Every machine preset; the first is the default.
pub const MACHINE_PRESETS: [MachinePreset; 9] = [
    MachinePreset {
        name: "dram+dcpmm",
        description:
            "DRAM (80 ns) + Optane-DCPMM-like NVM (305 ns reads; 39.4/13.9 GB/s read/write)",
        tiers: || vec![dram(), dcpmm()],
        mlp: None,
        saturation_exponent: None,
        fast_capacity: None,
        llc: None,
        memory: None,
    },
    MachinePreset {
        name: "dram+cxl",
        description: "DRAM (80 ns) + CXL expander (DRAM + 80 ns; 32 GB/s)",
        tiers: || vec![dram(), cxl()],
        mlp: None,
        saturation_exponent: None,
        fast_capacity: None,
        llc: None,
        memory: None,
    },
    MachinePreset {
        name: "dram+pcm",
        description: "DRAM (80 ns) + PCM (150/450 ns read/write; 2 GB/s; 1e7 write endurance)",
        tiers: || vec![dram(), pcm()],
        mlp: None,
        saturation_exponent: None,
        fast_capacity: None,
        llc: None,
        memory: None,
    },
    MachinePreset {
        name: "dram+zswap",
        description: "DRAM (80 ns) + zswap-like compressed pool (6 us fault per TLB miss)",
        tiers: || vec![dram(), zswap()],
        mlp: None,
        saturation_exponent: None,
        fast_capacity: None,
        llc: None,
        memory: None,
    },
    MachinePreset {
        name: "dram+badgertrap",
        description: "DRAM + slow memory emulated as in Thermostat: DRAM-resident pages whose every TLB miss faults for 1 us",
        tiers: || vec![dram(), badgertrap()],
        mlp: None,
        saturation_exponent: None,
        fast_capacity: None,
        llc: None,
        memory: None,
    },
    MachinePreset {
        name: "dram+dcpmm-ambix",
        description: "Ambix's socket (2-channel DRAM + 2 DCPMM DIMMs) fitted to its IWB tables: 15.7/10.0 GB/s DRAM, 3.8/0.87 GB/s DCPMM read/write; 864 MiB DRAM (27 GB at 1/32 scale)",
        tiers: || vec![ambix_dram(), ambix_dcpmm()],
        mlp: Some(4.0),
        saturation_exponent: Some(1.599),
        // 27 GB usable of 32 (section 3.1), at the 1/32 scale of the Ambix
        // workloads (`thermocline_workloads::ambix_bench`).
        fast_capacity: Some(27 << 25),
        llc: None,
        memory: None,
    },
    MachinePreset {
        name: "dram+pcm-memos",
        description: "Memos' machine: DRAM below 4 GB + PCM above (bit 32 the channel bit), 32 banks per channel (bits 12-14, 20-21) with row buffers and FR-FCFS controllers (Table 1 timings), an 8 MB LLC of 16 slabs (bits 15-18)",
        tiers: || vec![dram(), pcm()],
        mlp: None,
        saturation_exponent: None,
        fast_capacity: None,
        // Table 1: "L3 cache 8MB"; section 4.2: 16 slabs of 512 sets, so
        // 16-way. Hit latency as the default LLC's.
        llc: Some(LlcConfig {
            bytes: 8 << 20,
            ways: 16,
            hit_ns: 15.0,
        }),
        memory: Some(MemSysConfig::default),
    },
    MachinePreset {
        name: "dram+dram-memos",
        description: "Memos' machine for its Figure 9 steps (section 4.4: \"DRAM in both of the DRAM and NVM channels\"): two DRAM channels (bit 32), 32 banks each with row buffers and FR-FCFS controllers (Table 1's DRAM timings), an 8 MB LLC of 16 slabs",
        tiers: || {
            vec![
                dram(),
                TierSpec {
                    name: "dram1".into(),
                    ..dram()
                },
            ]
        },
        mlp: None,
        saturation_exponent: None,
        fast_capacity: None,
        llc: Some(LlcConfig {
            bytes: 8 << 20,
            ways: 16,
            hit_ns: 15.0,
        }),
        memory: Some(|| MemSysConfig {
            timings: vec![
                crate::memsys::BankTimings::dram(),
                crate::memsys::BankTimings::dram(),
            ],
            ..MemSysConfig::default()
        }),
    },
    MachinePreset {
        name: "fastmem+slowmem-heteroos",
        description: "HeteroOS's emulated machine (Table 3, section 5.1): FastMem 60 ns / 24 GB/s, SlowMem throttled to L:5,B:9 (354 ns, 2.67 GB/s); FastMem set per run (the paper: 0.25-4 GiB beside 8 GiB SlowMem)",
        tiers: || vec![heteroos_fastmem(), heteroos_slowmem()],
        mlp: None,
        saturation_exponent: None,
        fast_capacity: None,
        llc: None,
        memory: None,
    },
];

/// Looks a machine preset up by name.
pub fn machine_preset(name: &str) -> Option<&'static MachinePreset> {
    MACHINE_PRESETS.iter().find(|p| p.name == name)
}
