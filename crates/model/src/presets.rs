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

impl MachinePreset {
    /// A preset of `tiers` alone: no fitted MLP or saturation, no fixed
    /// FastMem size, the default LLC and memory system.
    const fn new(
        name: &'static str,
        description: &'static str,
        tiers: fn() -> Vec<TierSpec>,
    ) -> Self {
        MachinePreset {
            name,
            description,
            tiers,
            mlp: None,
            saturation_exponent: None,
            fast_capacity: None,
            llc: None,
            memory: None,
        }
    }
}

/// Every machine preset; the first is the default.
pub const MACHINE_PRESETS: [MachinePreset; 14] = [
    MachinePreset::new(
        "dram+dcpmm",
        "DRAM (80 ns) + Optane-DCPMM-like NVM (305 ns reads; 39.4/13.9 GB/s read/write)",
        || vec![dram(), dcpmm()],
    ),
    MachinePreset::new(
        "dram+cxl",
        "DRAM (80 ns) + CXL expander (DRAM + 80 ns; 32 GB/s)",
        || vec![dram(), cxl()],
    ),
    MachinePreset::new(
        "dram+pcm",
        "DRAM (80 ns) + PCM (150/450 ns read/write; 2 GB/s; 1e7 write endurance)",
        || vec![dram(), pcm()],
    ),
    MachinePreset::new(
        "dram+zswap",
        "DRAM (80 ns) + zswap-like compressed pool (6 us fault per TLB miss)",
        || vec![dram(), zswap()],
    ),
    MachinePreset::new(
        "dram+badgertrap",
        "DRAM + slow memory emulated as in Thermostat: DRAM-resident pages whose every TLB miss faults for 1 us",
        || vec![dram(), badgertrap()],
    ),
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
    MachinePreset::new(
        "fastmem+slowmem-heteroos",
        "HeteroOS's emulated machine (Table 3, section 5.1): FastMem 60 ns / 24 GB/s, SlowMem throttled to L:5,B:9 (354 ns, 2.67 GB/s); FastMem set per run (the paper: 0.25-4 GiB beside 8 GiB SlowMem)",
        || vec![heteroos_fastmem(), heteroos_slowmem()],
    ),
    MachinePreset::new(
        "fastmem+slowmem+swap-heteroos",
        "HeteroOS's emulated machine with a swap device behind SlowMem (an NVMe SSD of the paper's time, inferred: 20 us per swapped page touched), for overcommitted VMs; size the tiers with machine.tier_capacities",
        || vec![heteroos_fastmem(), heteroos_slowmem(), heteroos_swap()],
    ),
    MachinePreset::new(
        "fastmem+slowmem-heteroos-l2b2",
        "HeteroOS Table 3's L:2,B:2 column: FastMem 60 ns / 24 GB/s, SlowMem as measured at L:2,B:2 (128 ns, 12.4 GB/s)",
        || vec![heteroos_fastmem(), heteroos_table3_slowmem(&HETEROOS_TABLE3[0])],
    ),
    MachinePreset::new(
        "fastmem+slowmem-heteroos-l5b5",
        "HeteroOS Table 3's L:5,B:5 column: FastMem 60 ns / 24 GB/s, SlowMem as measured at L:5,B:5 (354 ns, 5.1 GB/s)",
        || vec![heteroos_fastmem(), heteroos_table3_slowmem(&HETEROOS_TABLE3[1])],
    ),
    MachinePreset::new(
        "fastmem+slowmem-heteroos-l5b12",
        "HeteroOS Table 3's L:5,B:12 column: FastMem 60 ns / 24 GB/s, SlowMem as measured at L:5,B:12 (960 ns, 1.38 GB/s)",
        || vec![heteroos_fastmem(), heteroos_table3_slowmem(&HETEROOS_TABLE3[2])],
    ),
    MachinePreset::new(
        "fastmem+remote-heteroos",
        "HeteroOS Fig. 1's Remote NUMA: FastMem 60 ns / 24 GB/s, and FastMem on the other socket of a Xeon X5560 pair (105 ns: 75% over local; 12.8 GB/s: one QPI direction)",
        || vec![heteroos_fastmem(), heteroos_remote_fastmem()],
    ),
];

/// One SlowMem column of HeteroOS' Table 3
/// (../shared/papers/001_f8c99e4789a9a37b.txt, section 2.1): DRAM throttled
/// through its thermal registers by a latency factor and a bandwidth
/// factor, and the latency and bandwidth measured at that setting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeteroOsColumn {
    /// The column's `L:x`: latency increase factor asked of the throttle.
    pub latency_factor: u32,
    /// The column's `B:y`: bandwidth reduction factor asked of the throttle.
    pub bandwidth_factor: u32,
    /// Latency measured at that setting (ns).
    pub latency_ns: f64,
    /// Bandwidth measured at that setting (GB/s).
    pub bandwidth_gbps: f64,
    /// The machine preset built from it.
    pub preset: &'static str,
}

/// Table 3's SlowMem columns, in the table's order (its first column,
/// L:1,B:1 = 60 ns / 24 GB/s, is FastMem: [`heteroos_fastmem`]). The
/// measured values are not the nominal factors times FastMem's: L:5 measures
/// 5.9x FastMem's latency at B:5 and 16x at B:12, and B:12 measures 17.4x
/// less bandwidth; the presets take the measured values, as the paper's
/// emulation ran at them. The evaluation's L:5,B:9 is not in the table (see
/// [`heteroos_slowmem`] and the `fastmem+slowmem-heteroos` preset).
pub const HETEROOS_TABLE3: [HeteroOsColumn; 3] = [
    HeteroOsColumn {
        latency_factor: 2,
        bandwidth_factor: 2,
        latency_ns: 128.0,
        bandwidth_gbps: 12.4,
        preset: "fastmem+slowmem-heteroos-l2b2",
    },
    HeteroOsColumn {
        latency_factor: 5,
        bandwidth_factor: 5,
        latency_ns: 354.0,
        bandwidth_gbps: 5.1,
        preset: "fastmem+slowmem-heteroos-l5b5",
    },
    HeteroOsColumn {
        latency_factor: 5,
        bandwidth_factor: 12,
        latency_ns: 960.0,
        bandwidth_gbps: 1.38,
        preset: "fastmem+slowmem-heteroos-l5b12",
    },
];

/// SlowMem at a column of Table 3: throttled DRAM (energy as [`dram`]),
/// loads and stores at the measured latency and bandwidth.
pub fn heteroos_table3_slowmem(c: &HeteroOsColumn) -> TierSpec {
    TierSpec {
        name: "slowmem".into(),
        read_ns: c.latency_ns,
        write_ns: c.latency_ns,
        read_gbps: c.bandwidth_gbps,
        write_gbps: c.bandwidth_gbps,
        ..dram()
    }
}

/// Remote-socket latency over local on Xeon 5500/5600 (Nehalem-EP, the
/// X5560 of HeteroOS' Figure 1): "almost 75% higher than local memory
/// access" (IBM System x3550 M3 product guide, memory section; retrieved
/// from <https://manualshive.com/en/manual/ibm/7944e2u/3620105?page=6>).
/// The paper gives no remote-socket latency and ../shared/reference/ has no
/// remote-socket row: an outside source, so *inferred* for this model.
pub const REMOTE_LATENCY_FACTOR: f64 = 1.75;

/// Remote-socket bandwidth (GB/s): one direction of the Xeon 5500's
/// QuickPath link, "two uni-directional links ... with a total bandwidth up
/// to 25.6GB/s" (HP technology brief on the Xeon 5500 series, retrieved from
/// <https://manualsdump.com/en/manuals/hp-smartcache/285990/3>), half of it
/// per direction; below the 24 GB/s HeteroOS measured locally. *Inferred*
/// as [`REMOTE_LATENCY_FACTOR`].
pub const REMOTE_GBPS: f64 = 12.8;

/// HeteroOS Figure 1's "Remote NUMA": FastMem on the other socket, reached
/// over QPI: [`heteroos_fastmem`]'s 60 ns times [`REMOTE_LATENCY_FACTOR`]
/// and [`REMOTE_GBPS`]. DRAM: energy as [`dram`].
pub fn heteroos_remote_fastmem() -> TierSpec {
    let local = heteroos_fastmem();
    TierSpec {
        name: "fastmem-remote".into(),
        read_ns: local.read_ns * REMOTE_LATENCY_FACTOR,
        write_ns: local.write_ns * REMOTE_LATENCY_FACTOR,
        read_gbps: REMOTE_GBPS,
        write_gbps: REMOTE_GBPS,
        ..local
    }
}

/// Looks a machine preset up by name.
pub fn machine_preset(name: &str) -> Option<&'static MachinePreset> {
    MACHINE_PRESETS.iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slow_tier(name: &str) -> TierSpec {
        let p = machine_preset(name).expect("preset exists");
        let t = (p.tiers)();
        assert_eq!(t.len(), 2, "{name}");
        assert_eq!(t[0], heteroos_fastmem(), "{name}: FastMem is L:1,B:1");
        t[1].clone()
    }

    /// Each Table 3 column's preset runs SlowMem at the column's measured
    /// latency and bandwidth against FastMem's 60 ns and 24 GB/s, its name
    /// spells the column's factors, and the factors order as the table's.
    #[test]
    fn table3_presets_have_the_tables_latency_and_bandwidth() {
        let fast = heteroos_fastmem();
        assert_eq!((fast.read_ns, fast.read_gbps), (60.0, 24.0));
        for c in &HETEROOS_TABLE3 {
            let s = slow_tier(c.preset);
            assert_eq!((s.read_ns, s.write_ns), (c.latency_ns, c.latency_ns));
            assert_eq!(
                (s.read_gbps, s.write_gbps),
                (c.bandwidth_gbps, c.bandwidth_gbps)
            );
            assert_eq!(
                c.preset,
                format!(
                    "fastmem+slowmem-heteroos-l{}b{}",
                    c.latency_factor, c.bandwidth_factor
                )
            );
            let d = machine_preset(c.preset).unwrap().description;
            let said = format!("({} ns, {} GB/s)", c.latency_ns, c.bandwidth_gbps);
            assert!(d.contains(&said), "{}: {d} lacks {said}", c.preset);
            // The throttle gives about the factors asked or more (within
            // 10%: 24 / 12.4 = 1.94 for B:2, 24 / 5.1 = 4.7 for B:5).
            let lat = s.read_ns / fast.read_ns;
            let bw = fast.read_gbps / s.read_gbps;
            assert!(
                lat >= 0.9 * f64::from(c.latency_factor),
                "{}: x{lat}",
                c.preset
            );
            assert!(
                bw >= 0.9 * f64::from(c.bandwidth_factor),
                "{}: /{bw}",
                c.preset
            );
        }
        // Slower column after column.
        for w in HETEROOS_TABLE3.windows(2) {
            assert!(w[1].latency_ns >= w[0].latency_ns);
            assert!(w[1].bandwidth_gbps < w[0].bandwidth_gbps);
            assert!(w[1].bandwidth_factor > w[0].bandwidth_factor);
        }
    }

    /// The evaluation's L:5,B:9 preset is the one it always was.
    #[test]
    fn the_evaluation_preset_is_l5_b9() {
        let s = slow_tier("fastmem+slowmem-heteroos");
        assert_eq!(s, heteroos_slowmem());
        assert_eq!(s.read_ns, 354.0);
        assert!((24.0 / s.read_gbps - 9.0).abs() < 1e-9);
    }

    /// Remote NUMA: FastMem's device, 75% more latency, QPI's bandwidth;
    /// slower than local FastMem, faster than the mildest SlowMem.
    #[test]
    fn remote_socket_is_between_fastmem_and_slowmem() {
        let r = slow_tier("fastmem+remote-heteroos");
        let fast = heteroos_fastmem();
        assert!((r.read_ns - 105.0).abs() < 1e-9 && r.write_ns == r.read_ns);
        assert_eq!((r.read_gbps, r.write_gbps), (12.8, 12.8));
        assert!(r.read_ns > fast.read_ns && r.read_gbps < fast.read_gbps);
        let mildest = heteroos_table3_slowmem(&HETEROOS_TABLE3[0]);
        assert!(r.read_ns < mildest.read_ns && r.read_gbps > mildest.read_gbps);
        assert_eq!(r.standby_w_per_gb, fast.standby_w_per_gb);
    }

    #[test]
    fn preset_names_are_unique() {
        let mut names: Vec<&str> = MACHINE_PRESETS.iter().map(|p| p.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), MACHINE_PRESETS.len());
    }
}
