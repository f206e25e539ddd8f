//! What Memos' evaluation runs (../shared/papers/003_4ce7a4cbf1361ba3.txt,
//! sections 4.4 and 6): the models, the compared systems and each run's
//! settings, shared by the reproductions (`memos_eval.rs`,
//! `memos_breakdown.rs`, `memos_steps.rs`) and their claims
//! (`memos_eval_claims.rs`). `memos_eval.rs` says why the capacities scale
//! as they do.

use crate::reproduction::RunSpec;
use thermocline_workloads::memos as models;

/// Nominal work of each run (s).
pub const WORK_S: u64 = 120;
/// Table 2's models (its multi-programmed row is not run).
pub const TABLE2: [&str; 7] = [
    "mcf",
    "hmmer",
    "xalancbmk",
    "memcached",
    "redis",
    "aerospike",
    "mysql",
];

/// Table 2's rows that are single models (years: random mapping, Memos):
/// printed beside ours (`eval.rs`) and checked (`eval_claims.rs`). Its
/// multi-programmed row is not run, and xalancbmk has no row of its own.
pub const PAPER_TABLE2: [(&str, f64, f64); 6] = [
    ("mcf", 0.27, 9.3),
    ("hmmer", 3.6, 15.8),
    ("memcached", 0.50, 12.2),
    ("aerospike", 0.43, 10.1),
    ("redis", 0.52, 13.4),
    ("mysql", 1.44, 15.6),
];
/// Figure 10's single-program models, run under Memos only.
pub const FIG10: [&str; 3] = ["astar", "lbm", "libquantum"];
/// Models of the energy comparison (SPEC- and cloud-like).
pub const ENERGY: [&str; 4] = ["mcf", "hmmer", "memcached", "aerospike"];
/// The cloud-like models (Figure 11).
pub const CLOUD: [&str; 4] = models::CLOUD;

const MACHINE: &str = "run.machine=\"dram+pcm-memos\"";
/// The paper's DRAM (GB) beside NVM in its hybrid machine.
pub const DRAM_GB: f64 = 4.0;
/// An all-DRAM system is a DRAM channel of up to 256 GiB (the hybrid
/// machine's channel bit 32 caps DRAM at 4 GiB); banks and slabs are
/// indexed by the same bits.
pub const ALL_DRAM_CHANNEL: &str = "machine.memory.map.channel_bit=38";

/// One system Figure 12 or the energy study compares.
#[derive(Clone, Copy, Debug)]
pub struct System {
    /// Label in the summary.
    pub label: &'static str,
    /// The manager it runs.
    pub manager: &'static str,
    /// Its DRAM (GB, at the paper's scale).
    pub dram_gb: f64,
    /// Its NVM (GB, at the paper's scale).
    pub nvm_gb: f64,
}

/// Figure 12's systems, the baseline first.
pub const FIG12: [System; 5] = [
    System {
        label: "32GB DRAM",
        manager: "all-fast",
        dram_gb: 32.0,
        nvm_gb: 32.0,
    },
    System {
        label: "all NVM",
        manager: "all-slow",
        dram_gb: DRAM_GB,
        nvm_gb: 32.0,
    },
    System {
        label: "random 4-32",
        manager: "random",
        dram_gb: DRAM_GB,
        nvm_gb: 32.0,
    },
    System {
        label: "DRAM cache 4-32",
        manager: "memory-mode",
        dram_gb: DRAM_GB,
        nvm_gb: 32.0,
    },
    System {
        label: "Memos 4-32",
        manager: "memos",
        dram_gb: DRAM_GB,
        nvm_gb: 32.0,
    },
];
/// Figure 12's 32 GB of DRAM alone.
pub const ALL_DRAM_32: System = FIG12[0];
/// Figure 12's random placement.
pub const RANDOM: System = FIG12[2];
/// Figure 12's Memos.
pub const MEMOS: System = FIG12[4];
/// 128 GB of DRAM alone (the energy study's reference).
pub const ALL_DRAM_128: System = System {
    label: "128GB DRAM",
    manager: "all-fast",
    dram_gb: 128.0,
    nvm_gb: 32.0,
};
/// Memos with 128 GB of DRAM (the energy study).
pub const MEMOS_128: System = System {
    label: "Memos 4-128",
    manager: "memos",
    dram_gb: DRAM_GB,
    nvm_gb: 128.0,
};

/// `gb` of the paper's machine, scaled to model `m`'s footprint.
fn scaled(m: &models::MemosModel, gb: f64) -> String {
    let share = m.small_bytes as f64 / m.paper_bytes as f64;
    let mib = (gb * 1024.0 * share).floor().max(1.0);
    format!("{mib}MiB")
}

fn model(name: &str) -> &'static models::MemosModel {
    models::model(name).expect("a listed Memos model")
}

/// The run of `sys` on model `name`.
pub fn spec(name: &str, sys: System) -> RunSpec {
    let m = model(name);
    let gib = m.small_bytes as f64 / (1u64 << 30) as f64;
    let fast = format!("run.fast_capacity=\"{}\"", scaled(m, sys.dram_gb));
    let slow = format!("machine.slow_capacity=\"{}\"", scaled(m, sys.nvm_gb));
    let p = format!(
        "random.fast_probability={}",
        sys.dram_gb / (sys.dram_gb + sys.nvm_gb)
    );
    // Figure 13's case 2 starts in NVM, as Memos does, where the manager
    // can (kstaled).
    let start_slow = thermocline_managers::registry::traits(sys.manager)
        .start_slow
        .map(|key| format!("{}.{key}=true", sys.manager));
    let mut sets = vec![MACHINE, fast.as_str(), slow.as_str()];
    if sys.manager == "random" {
        sets.push(&p);
    }
    if sys.dram_gb > DRAM_GB {
        sets.push(ALL_DRAM_CHANNEL);
    }
    if let Some(set) = &start_slow {
        sets.push(set);
    }
    RunSpec::new(
        &format!("memos:{}:{gib}:{WORK_S}", m.name),
        sys.manager,
        &sets,
    )
}

/// Figure 9's mixes: the appendix's workloads, restricted to the modelled
/// applications (see `memos_steps.rs`).
pub const MIXES: [(&str, &[&str]); 5] = [
    ("W1", &["libquantum", "mcf", "xalancbmk"]),
    ("W2", &["libquantum", "libquantum", "lbm", "astar"]),
    (
        "W4",
        &["libquantum", "libquantum", "libquantum", "mcf", "astar"],
    ),
    ("W7", &["libquantum", "libquantum", "lbm"]),
    (
        "W10",
        &[
            "libquantum",
            "libquantum",
            "libquantum",
            "libquantum",
            "mcf",
            "astar",
        ],
    ),
];
