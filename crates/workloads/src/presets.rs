//! Named workloads, and the one function that turns a user's workload string
//! into a [`Workload`]: a MASIM config path, `lackey:PATH`, `trace:PATH`, or a
//! preset name.

use crate::ambix;
use crate::heteroos::{self, HeteroSpec};
use crate::memos;
use crate::models::{BuiltModel, ModelSpec, ModelStream};
use crate::npb::{self, NpbSpec};
use crate::rates::RateStream;
use crate::sweep::{SweepSpec, SweepStream};
use crate::synthetic::{Distribution, SyntheticSpec, SyntheticStream};
use crate::telescope;
use crate::telescope::kv::{self, KvSpec};
use crate::thermostat;
use crate::{lackey, lay_out, masim, trace, PhaseMark, Stream, Workload, WorkloadError};
use thermocline_vocab::PageType;

/// How to build a workload.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadOptions {
    /// Seed of the workload's random stream.
    pub seed: u64,
    /// Nominal accesses per second per thread (MASIM phases, synthetic
    /// presets); `None` takes the workload's own rate (application models) or
    /// [`crate::DEFAULT_ACCESS_RATE`].
    pub access_rate: Option<f64>,
    /// Core time per access (ns), excluding memory stalls; `None` derives it
    /// from `access_rate` (see [`crate::compute_ns_for_rate`]).
    pub compute_ns: Option<f64>,
    /// Back regions with transparent huge pages; `None` takes the workload's
    /// own choice (on for application models, off otherwise).
    pub thp: Option<bool>,
    /// Where MASIM regions are mapped from (2 MiB-aligned); `None`: 1 GiB.
    pub base_va: Option<u64>,
    /// Accesses a MASIM config makes on a drawn pattern before the next
    /// draw (masim's `--nr_accesses_per_region`); `None`:
    /// [`masim::DEFAULT_BURST`].
    pub masim_burst: Option<u64>,
    /// The fast tier's read latency and the machine's MLP, to derive compute time.
    pub fast_read_ns: f64,
    /// Memory-level parallelism of the machine.
    pub mlp: f64,
}

/// The built-in multi-phase workload of the main job, as a MASIM config: four
/// 64 MiB regions; the hot set moves between them, then a full sequential
/// sweep, then a mixed phase. 8 s nominal.
pub const MULTIPHASE_CFG: &str = "\
# thermocline built-in multi-phase workload (MASIM format)
a, 67108864
b, 67108864
c, 67108864
d, 67108864

hot a
2000
a, 1, 64, 90, rw
b, 1, 64, 10, ro

hot c
2000
c, 1, 64, 90, rw
d, 1, 64, 10, ro

sweep
2000
a, 0, 64, 25, ro
b, 0, 64, 25, ro
c, 0, 64, 25, ro
d, 0, 64, 25, ro

hot b and d
2000
b, 1, 64, 50, wo
d, 1, 64, 50, ro
";

/// The main job's workload (`thermocline compare` with no workload):
/// [`MULTIPHASE_CFG`]'s phases at 30 s each, long enough for Thermostat's
/// first decisions (two 30 s periods) and kstaled's (10 s idle), over four
/// 32 MiB regions so that a linear Accessed-bit scan every 10 ms stays
/// affordable on the rate machine.
pub const MULTIPHASE_2MIN_CFG: &str = "\
# thermocline main-job workload (MASIM format): multiphase at 30 s a phase
a, 33554432
b, 33554432
c, 33554432
d, 33554432

hot a
30000
a, 1, 64, 90, rw
b, 1, 64, 10, ro

hot c
30000
c, 1, 64, 90, rw
d, 1, 64, 10, ro

sweep
30000
a, 0, 64, 25, ro
b, 0, 64, 25, ro
c, 0, 64, 25, ro
d, 0, 64, 25, ro

hot b and d
30000
b, 1, 64, 50, wo
d, 1, 64, 50, ro
";

enum Kind {
    Masim(&'static str),
    /// A MASIM config whose named regions hold pages of other types than
    /// anonymous memory.
    MasimTyped(&'static str, &'static [(&'static str, PageType)]),
    MasimText(fn() -> String),
    Kv(fn() -> KvSpec),
    Synthetic(fn(f64) -> SyntheticSpec),
    Model(fn() -> ModelSpec),
    Sweep(fn() -> SweepSpec),
    Npb(fn() -> NpbSpec),
    Hetero(fn() -> HeteroSpec),
}

/// A named workload.
pub struct Preset {
    /// Name.
    pub name: &'static str,
    /// One line for `thermocline list`.
    pub description: &'static str,
    kind: Kind,
}

const GIB: u64 = 1 << 30;

fn synth(
    distribution: Distribution,
    items: u64,
    item_bytes: u64,
    write_fraction: f64,
    seconds: f64,
    rate: f64,
) -> SyntheticSpec {
    SyntheticSpec {
        distribution,
        items,
        item_bytes,
        write_fraction,
        threads: 1,
        accesses: (seconds * rate) as u64,
    }
}

/// Every preset.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "multiphase",
        description: "built-in 4-phase MASIM-style workload, 256 MiB: hot set moves a -> c -> sweep -> b+d (8 s nominal)",
        kind: Kind::Masim(MULTIPHASE_CFG),
    },
    Preset {
        name: "multiphase-2min",
        description: "the main job's workload: multiphase's four phases at 30 s each (2 min), 128 MiB in 4 KiB pages: region b a file in the page cache (read, then written), a, c and d heap",
        kind: Kind::MasimTyped(MULTIPHASE_2MIN_CFG, &[("b", PageType::FileCache)]),
    },
    Preset {
        name: "uniform-1g",
        description: "uniform random accesses over 1 GiB of 4 KiB items, 20% stores (5 s nominal)",
        kind: Kind::Synthetic(|r| synth(Distribution::Uniform, GIB / 4096, 4096, 0.2, 5.0, r)),
    },
    Preset {
        name: "zipf-1g",
        description: "zipfian (s = 0.99) accesses over 1 GiB of 4 KiB items, 20% stores (5 s nominal)",
        kind: Kind::Synthetic(|r| synth(Distribution::Zipf { s: 0.99 }, GIB / 4096, 4096, 0.2, 5.0, r)),
    },
    Preset {
        name: "hotspot-1g",
        description: "10% of 1 GiB of 4 KiB items get 90% of accesses, 20% stores (5 s nominal)",
        kind: Kind::Synthetic(|r| {
            synth(Distribution::Hotspot { hot_fraction: 0.1, hot_share: 0.9 }, GIB / 4096, 4096, 0.2, 5.0, r)
        }),
    },
    Preset {
        name: "seq-1g",
        description: "sequential 64-byte-stride sweeps over 1 GiB, loads only (5 s nominal)",
        kind: Kind::Synthetic(|r| synth(Distribution::Sequential, GIB / 64, 64, 0.0, 5.0, r)),
    },
    Preset {
        name: "redis-hotspot",
        description: "Redis-like model (not Redis): 17.1 GiB of dict, entries, keys and ETC-sized values, 0.01% of keys get 90% of 188 K ops/s, 1 thread, 600 s; 30 K/s warm tail over its footprint",
        kind: Kind::Model(thermostat::redis_hotspot),
    },
    Preset {
        name: "aerospike-read",
        description: "Aerospike-like model (not Aerospike): 12.2 GiB, YCSB zipfian over 5 M 20-field records, 95:5 read:update, 176 K ops/s, 8 threads, 200 M ops (1136 s); 30 K/s warm tail over its footprint",
        kind: Kind::Model(thermostat::aerospike_read),
    },
    Preset {
        name: "aerospike-write",
        description: "Aerospike-like model (not Aerospike): as aerospike-read with 5:95 read:update, 215 K ops/s (930 s)",
        kind: Kind::Model(thermostat::aerospike_write),
    },
    Preset {
        name: "cassandra-read",
        description: "Cassandra-like model (not Cassandra): 4 GiB heap (key cache, growing memtable) + 4 GiB file-mapped SSTables, YCSB zipfian, 95:5, 21 K ops/s, 8 threads, 50 M ops (2381 s); 30 K/s warm tail over its footprint",
        kind: Kind::Model(thermostat::cassandra_read),
    },
    Preset {
        name: "cassandra-write",
        description: "Cassandra-like model (not Cassandra): as cassandra-read with 5:95 read:update, 45 K ops/s (1111 s)",
        kind: Kind::Model(thermostat::cassandra_write),
    },
    Preset {
        name: "tpcc",
        description: "MySQL-TPCC-like model (not MySQL): 2.5 GiB of hot tables next to a 3.5 GiB rarely read order-line table, 8 threads, 1200 s (600 s warm-up + 600 s); 30 K/s warm tail over its footprint",
        kind: Kind::Model(thermostat::tpcc),
    },
    Preset {
        name: "analytics",
        description: "in-memory-analytics-like model (not Spark): a 6.2 GiB heap that fills during the 317 s run, recency-skewed reads, 8 threads; 30 K/s warm tail over what it has allocated",
        kind: Kind::Model(thermostat::analytics),
    },
    Preset {
        name: "websearch",
        description: "web-search-like model (not Solr): 2.2 GiB zipfian posting-block index + heap + stored fields, 8 threads, 600 s; 30 K/s warm tail over its footprint",
        kind: Kind::Model(thermostat::websearch),
    },
    Preset {
        name: "npb-bt-sketch-small",
        description: "sketch of NPB BT (a sweep, not the algorithm; see npb-bt-small): BT-like (3.5R:1W: u and rhs updated, lhs and forcing read) model of the memory behaviour, not the benchmark: 0.8x DRAM (scaled 1/32: 0.8 GiB), 32 threads",
        kind: Kind::Sweep(|| ambix::npb("bt", 0.8, NPB_ACCESSES).expect("known kernel")),
    },
    Preset {
        name: "npb-bt-sketch-medium",
        description: "sketch of NPB BT (a sweep, not the algorithm; see npb-bt-medium): BT-like (3.5R:1W: u and rhs updated, lhs and forcing read) model of the memory behaviour, not the benchmark: 1.5x DRAM (scaled 1/32: 1.5 GiB), 32 threads",
        kind: Kind::Sweep(|| ambix::npb("bt", 1.5, NPB_ACCESSES).expect("known kernel")),
    },
    Preset {
        name: "npb-bt-sketch-large",
        description: "sketch of NPB BT (a sweep, not the algorithm; see npb-bt-large): BT-like (3.5R:1W: u and rhs updated, lhs and forcing read) model of the memory behaviour, not the benchmark: 3.5x DRAM (scaled 1/32: 3.5 GiB), 32 threads",
        kind: Kind::Sweep(|| ambix::npb("bt", 3.5, NPB_ACCESSES).expect("known kernel")),
    },
    Preset {
        name: "npb-ft-sketch-small",
        description: "sketch of NPB FT (a sweep, not the algorithm; see npb-ft-small): FT-like (1.7R:1W: two complex arrays transformed in place) model of the memory behaviour, not the benchmark: 0.8x DRAM (scaled 1/32: 0.8 GiB), 32 threads",
        kind: Kind::Sweep(|| ambix::npb("ft", 0.8, NPB_ACCESSES).expect("known kernel")),
    },
    Preset {
        name: "npb-ft-sketch-medium",
        description: "sketch of NPB FT (a sweep, not the algorithm; see npb-ft-medium): FT-like (1.7R:1W: two complex arrays transformed in place) model of the memory behaviour, not the benchmark: 1.5x DRAM (scaled 1/32: 1.5 GiB), 32 threads",
        kind: Kind::Sweep(|| ambix::npb("ft", 1.5, NPB_ACCESSES).expect("known kernel")),
    },
    Preset {
        name: "npb-ft-sketch-large",
        description: "sketch of NPB FT (a sweep, not the algorithm; see npb-ft-large): FT-like (1.7R:1W: two complex arrays transformed in place) model of the memory behaviour, not the benchmark: 3.5x DRAM (scaled 1/32: 3.5 GiB), 32 threads",
        kind: Kind::Sweep(|| ambix::npb("ft", 3.5, NPB_ACCESSES).expect("known kernel")),
    },
    Preset {
        name: "npb-mg-sketch-small",
        description: "sketch of NPB MG (a sweep, not the algorithm; see npb-mg-small): MG-like (4R:1W: u relaxed in place, r and v read) model of the memory behaviour, not the benchmark: 0.8x DRAM (scaled 1/32: 0.8 GiB), 32 threads",
        kind: Kind::Sweep(|| ambix::npb("mg", 0.8, NPB_ACCESSES).expect("known kernel")),
    },
    Preset {
        name: "npb-mg-sketch-medium",
        description: "sketch of NPB MG (a sweep, not the algorithm; see npb-mg-medium): MG-like (4R:1W: u relaxed in place, r and v read) model of the memory behaviour, not the benchmark: 1.5x DRAM (scaled 1/32: 1.5 GiB), 32 threads",
        kind: Kind::Sweep(|| ambix::npb("mg", 1.5, NPB_ACCESSES).expect("known kernel")),
    },
    Preset {
        name: "npb-mg-sketch-large",
        description: "sketch of NPB MG (a sweep, not the algorithm; see npb-mg-large): MG-like (4R:1W: u relaxed in place, r and v read) model of the memory behaviour, not the benchmark: 3.5x DRAM (scaled 1/32: 3.5 GiB), 32 threads",
        kind: Kind::Sweep(|| ambix::npb("mg", 3.5, NPB_ACCESSES).expect("known kernel")),
    },
    Preset {
        name: "npb-cg-sketch-small",
        description: "sketch of NPB CG (a sweep, not the algorithm; see npb-cg-small): CG-like (61R:1W: sparse matrix streamed, vectors updated) model of the memory behaviour, not the benchmark: 0.8x DRAM (scaled 1/32: 0.8 GiB), 32 threads",
        kind: Kind::Sweep(|| ambix::npb("cg", 0.8, NPB_ACCESSES).expect("known kernel")),
    },
    Preset {
        name: "npb-cg-sketch-medium",
        description: "sketch of NPB CG (a sweep, not the algorithm; see npb-cg-medium): CG-like (61R:1W: sparse matrix streamed, vectors updated) model of the memory behaviour, not the benchmark: 1.5x DRAM (scaled 1/32: 1.5 GiB), 32 threads",
        kind: Kind::Sweep(|| ambix::npb("cg", 1.5, NPB_ACCESSES).expect("known kernel")),
    },
    Preset {
        name: "npb-cg-sketch-large",
        description: "sketch of NPB CG (a sweep, not the algorithm; see npb-cg-large): CG-like (61R:1W: sparse matrix streamed, vectors updated) model of the memory behaviour, not the benchmark: 3.5x DRAM (scaled 1/32: 3.5 GiB), 32 threads",
        kind: Kind::Sweep(|| ambix::npb("cg", 3.5, NPB_ACCESSES).expect("known kernel")),
    },
    Preset {
        name: "npb-cg-small",
        description: "NPB CG executed (cg.c ported; class C's nonzer 15, order set by size): 0.8x DRAM (scaled 1/32: 0.8 GiB), 32 threads, 3 G accesses after the load phase",
        kind: Kind::Npb(|| npb_spec("cg", 0.8)),
    },
    Preset {
        name: "npb-cg-medium",
        description: "NPB CG executed (cg.c ported; class C's nonzer 15, order set by size): 1.5x DRAM (scaled 1/32: 1.5 GiB), 32 threads, 3 G accesses after the load phase",
        kind: Kind::Npb(|| npb_spec("cg", 1.5)),
    },
    Preset {
        name: "npb-cg-large",
        description: "NPB CG executed (cg.c ported; class C's nonzer 15, order set by size): 3.5x DRAM (scaled 1/32: 3.5 GiB), 32 threads, 3 G accesses after the load phase",
        kind: Kind::Npb(|| npb_spec("cg", 3.5)),
    },
    Preset {
        name: "npb-mg-small",
        description: "NPB MG executed (mg.c ported; class B's 20 cycles): 256x256x512 grid, 0.84 GiB (0.8x DRAM scaled 1/32), 32 threads, 3 G accesses after the load phase",
        kind: Kind::Npb(|| npb_spec("mg", 0.8)),
    },
    Preset {
        name: "npb-mg-medium",
        description: "NPB MG executed (mg.c ported; class B's 20 cycles): 256x256x1024 grid, 1.7 GiB (1.5x DRAM asked: the nearest box), 32 threads, 3 G accesses after the load phase",
        kind: Kind::Npb(|| npb_spec("mg", 1.5)),
    },
    Preset {
        name: "npb-mg-large",
        description: "NPB MG executed (mg.c ported; class B's 20 cycles): 512^3 grid, 3.3 GiB (3.5x DRAM asked: the nearest box), 32 threads, 3 G accesses after the load phase",
        kind: Kind::Npb(|| npb_spec("mg", 3.5)),
    },
    Preset {
        name: "npb-ft-small",
        description: "NPB FT executed (ft.c ported; class B's 20 steps): 256^3 grid, 0.82 GiB (0.8x DRAM scaled 1/32), 32 threads, 3 G accesses after the load phase",
        kind: Kind::Npb(|| npb_spec("ft", 0.8)),
    },
    Preset {
        name: "npb-ft-medium",
        description: "NPB FT executed (ft.c ported; class B's 20 steps): 512x256x256 grid, 1.6 GiB (1.5x DRAM asked: the nearest power-of-two box), 32 threads, 3 G accesses after the load phase",
        kind: Kind::Npb(|| npb_spec("ft", 1.5)),
    },
    Preset {
        name: "npb-ft-large",
        description: "NPB FT executed (ft.c ported; class B's 20 steps): 512x512x256 grid, 3.3 GiB (3.5x DRAM asked: the nearest power-of-two box), 32 threads, 3 G accesses after the load phase",
        kind: Kind::Npb(|| npb_spec("ft", 3.5)),
    },
    Preset {
        name: "npb-bt-small",
        description: "NPB BT executed (bt.c ported; 200 steps, class B's dt): 89^3 grid, 0.77 GiB (0.8x DRAM asked: the largest cube that fits), 32 threads, 3 G accesses after the load phase",
        kind: Kind::Npb(|| npb_spec("bt", 0.8)),
    },
    Preset {
        name: "npb-bt-medium",
        description: "NPB BT executed (bt.c ported; 200 steps, class C's dt): 110^3 grid, 1.49 GiB (1.5x DRAM asked: the largest cube that fits), 32 threads, 3 G accesses after the load phase",
        kind: Kind::Npb(|| npb_spec("bt", 1.5)),
    },
    Preset {
        name: "npb-bt-large",
        description: "NPB BT executed (bt.c ported; 200 steps, class C's dt): 147^3 grid, 3.48 GiB (3.5x DRAM asked: the largest cube that fits), 32 threads, 3 G accesses after the load phase",
        kind: Kind::Npb(|| npb_spec("bt", 3.5)),
    },
    Preset {
        name: "telescope-multiphase",
        description: "Telescope 6.2.1 (MASIM): 5 TiB heap; random loads in one 10 GiB region, another, then two (80 s each)",
        kind: Kind::MasimText(telescope::multiphase),
    },
    Preset {
        name: "telescope-subtb-1g",
        description: "Telescope 6.2.2 (MASIM): 1 GiB heap, random loads in a 10% hot region (60 s)",
        kind: Kind::MasimText(|| telescope::subtb(1)),
    },
    Preset {
        name: "telescope-subtb-10g",
        description: "Telescope 6.2.2 (MASIM): 10 GiB heap, random loads in a 10% hot region (60 s)",
        kind: Kind::MasimText(|| telescope::subtb(10)),
    },
    Preset {
        name: "telescope-subtb-100g",
        description: "Telescope 6.2.2 (MASIM): 100 GiB heap, random loads in a 10% hot region (60 s)",
        kind: Kind::MasimText(|| telescope::subtb(100)),
    },
    Preset {
        name: "telescope-needle",
        description: "Telescope 6.2.3 (MASIM): a 50 MiB hot region in a 5 TiB heap (120 s)",
        kind: Kind::MasimText(telescope::needle),
    },
    Preset {
        name: "telescope-scattered",
        description: "Beyond Telescope 6.2 (MASIM): 5 TiB heap, eight 30 s phases of 1-16 hot regions of 10 MiB-100 GiB at densities 1x-10x, scattered",
        kind: Kind::MasimText(|| telescope::scattered(&telescope::Scattered::family())),
    },
    Preset {
        name: "memcached-memtier",
        description: "Memcached-like model (not Memcached) under memtier: 1 TB, 200 K keys of 5 MB, Gaussian keys (sd 100), 1:10 SET:GET, 4 threads at 40 M accesses/s (300 s)",
        kind: Kind::Kv(|| kv::memtier(4)),
    },
    Preset {
        name: "redis-memtier",
        description: "Redis-like model (not Redis) under memtier: 1 TB, 200 K keys of 5 MB, Gaussian keys (sd 100), 1:10 SET:GET, 1 thread at 40 M accesses/s (300 s)",
        kind: Kind::Kv(|| kv::memtier(1)),
    },
    Preset {
        name: "memcached-ycsb",
        description: "Memcached-like model (not Memcached) under YCSB: 2 TB, 1 M keys of 2 MB, hotspot 99% of ops on 1%, 95:5 read:update, 4 threads at 40 M accesses/s (300 s)",
        kind: Kind::Kv(|| kv::ycsb(4)),
    },
    Preset {
        name: "redis-ycsb",
        description: "Redis-like model (not Redis) under YCSB: 2 TB, 1 M keys of 2 MB, hotspot 99% of ops on 1%, 95:5 read:update, 1 thread at 40 M accesses/s (300 s)",
        kind: Kind::Kv(|| kv::ycsb(1)),
    },
    Preset {
        name: "memos-mcf",
        description: memos::MODELS[0].description,
        kind: Kind::MasimText(|| memos::preset("mcf")),
    },
    Preset {
        name: "memos-lbm",
        description: memos::MODELS[1].description,
        kind: Kind::MasimText(|| memos::preset("lbm")),
    },
    Preset {
        name: "memos-libquantum",
        description: memos::MODELS[2].description,
        kind: Kind::MasimText(|| memos::preset("libquantum")),
    },
    Preset {
        name: "memos-astar",
        description: memos::MODELS[3].description,
        kind: Kind::MasimText(|| memos::preset("astar")),
    },
    Preset {
        name: "memos-gemsfdtd",
        description: memos::MODELS[4].description,
        kind: Kind::MasimText(|| memos::preset("gemsfdtd")),
    },
    Preset {
        name: "memos-hmmer",
        description: memos::MODELS[5].description,
        kind: Kind::MasimText(|| memos::preset("hmmer")),
    },
    Preset {
        name: "memos-xalancbmk",
        description: memos::MODELS[6].description,
        kind: Kind::MasimText(|| memos::preset("xalancbmk")),
    },
    Preset {
        name: "memos-memcached",
        description: memos::MODELS[7].description,
        kind: Kind::MasimText(|| memos::preset("memcached")),
    },
    Preset {
        name: "memos-redis",
        description: memos::MODELS[8].description,
        kind: Kind::MasimText(|| memos::preset("redis")),
    },
    Preset {
        name: "memos-aerospike",
        description: memos::MODELS[9].description,
        kind: Kind::MasimText(|| memos::preset("aerospike")),
    },
    Preset {
        name: "memos-mysql",
        description: memos::MODELS[10].description,
        kind: Kind::MasimText(|| memos::preset("mysql")),
    },
    Preset {
        name: "memos-stream",
        description: memos::MODELS[11].description,
        kind: Kind::MasimText(|| memos::preset("stream")),
    },
    Preset {
        name: "heteroos-graphchi",
        description: heteroos::MODELS[0].description,
        kind: Kind::Hetero(|| heteroos::MODELS[0]),
    },
    Preset {
        name: "heteroos-xstream",
        description: heteroos::MODELS[1].description,
        kind: Kind::Hetero(|| heteroos::MODELS[1]),
    },
    Preset {
        name: "heteroos-metis",
        description: heteroos::MODELS[2].description,
        kind: Kind::Hetero(|| heteroos::MODELS[2]),
    },
    Preset {
        name: "heteroos-redis",
        description: heteroos::MODELS[3].description,
        kind: Kind::Hetero(|| heteroos::MODELS[3]),
    },
    Preset {
        name: "heteroos-leveldb",
        description: heteroos::MODELS[4].description,
        kind: Kind::Hetero(|| heteroos::MODELS[4]),
    },
    Preset {
        name: "heteroos-nginx",
        description: heteroos::MODELS[5].description,
        kind: Kind::Hetero(|| heteroos::MODELS[5]),
    },
    Preset {
        name: "heteroos-graphchi-6g",
        description: heteroos::SECTION_5_5[0].3,
        kind: Kind::Hetero(|| heteroos::section_5_5("graphchi-6g").expect("a section-5.5 model")),
    },
    Preset {
        name: "heteroos-metis-8g",
        description: heteroos::SECTION_5_5[1].3,
        kind: Kind::Hetero(|| heteroos::section_5_5("metis-8g").expect("a section-5.5 model")),
    },
    Preset {
        name: "heteroos-memlat",
        description: heteroos::MEMLAT_DESCRIPTION,
        kind: Kind::Hetero(|| heteroos::memlat(GIB)),
    },
    Preset {
        name: "heteroos-stream",
        description: heteroos::STREAM_DESCRIPTION,
        kind: Kind::Hetero(|| heteroos::stream(GIB)),
    },
];

/// Sweep accesses of an NPB-like run: 15-70 s of simulated time, tens of
/// Ambix's 2 s periods (the paper's NPB runs last minutes; with 1 G accesses
/// Ambix had not converged: 1.04x adm-default on the medium sizes against
/// 1.40x on MG-medium with 4 G).
pub const NPB_ACCESSES: u64 = 3_000_000_000;

/// An executed NPB kernel at `size_x` times DRAM, as the Ambix presets run
/// it: 32 threads, [`NPB_ACCESSES`] after the load phase.
fn npb_spec(kernel: &'static str, size_x: f64) -> NpbSpec {
    NpbSpec {
        kernel,
        size_x,
        threads: 32,
        accesses: NPB_ACCESSES,
    }
}

/// Parses `npb:KERNEL:SIZE` (an executed kernel at SIZE times DRAM).
fn parameterized_npb(spec: &str) -> Option<Result<NpbSpec, WorkloadError>> {
    let rest = spec.strip_prefix("npb:")?;
    let bad = |why: String| {
        Some(Err(WorkloadError::Invalid(format!(
            "workload {spec:?}: {why}"
        ))))
    };
    let Some((kernel, size)) = rest.split_once(':') else {
        return bad("expected npb:KERNEL:SIZE, e.g. npb:cg:2.5".into());
    };
    let Some(&k) = npb::KERNELS.iter().find(|&&k| k == kernel) else {
        return bad(format!(
            "kernel must be one of {}, got {kernel:?}",
            npb::KERNELS.join(", ")
        ));
    };
    match size.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= npb::MAX_SIZE_X => Some(Ok(npb_spec(k, x))),
        _ => bad(format!(
            "size must be a multiple of DRAM in (0, {}], got {size:?}",
            npb::MAX_SIZE_X
        )),
    }
}

/// Parses `ambix-iwb:MODE:THREADS` and `ambix-pb:SIZE:ORDER`.
fn parameterized(spec: &str) -> Option<Result<SweepSpec, WorkloadError>> {
    let bad = |why: String| {
        Some(Err(WorkloadError::Invalid(format!(
            "workload {spec:?}: {why}"
        ))))
    };
    let parts: Vec<&str> = spec.split(':').collect();
    match parts.as_slice() {
        ["ambix-iwb", mode, threads] => {
            let write = match *mode {
                "ro" => false,
                "wo" => true,
                m => return bad(format!("mode must be ro or wo, got {m:?}")),
            };
            match threads.parse::<usize>() {
                Ok(t) if (1..=1024).contains(&t) => Some(Ok(ambix::iwb(write, t, 8_000_000))),
                _ => bad(format!("threads must be 1..=1024, got {threads:?}")),
            }
        }
        ["ambix-pb", size, order] => {
            let write_first = match *order {
                "write-first" => true,
                "read-first" => false,
                o => {
                    return bad(format!(
                        "order must be write-first or read-first, got {o:?}"
                    ))
                }
            };
            match size.parse::<f64>() {
                Ok(x) if x > 0.0 && x <= 64.0 => Some(Ok(ambix::pb(x, write_first, 50_000_000))),
                _ => bad(format!(
                    "size must be a multiple of DRAM in (0, 64], got {size:?}"
                )),
            }
        }
        [first, ..] if *first == "ambix-iwb" || *first == "ambix-pb" => {
            bad("expected ambix-iwb:ro|wo:THREADS or ambix-pb:SIZE:write-first|read-first".into())
        }
        _ => None,
    }
}

/// Looks a preset up.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// Builds the workload `spec` names.
pub fn load(spec: &str, o: &WorkloadOptions) -> Result<Workload, WorkloadError> {
    if let Some(b) = o.base_va {
        let total: u64 = 1 << 47;
        if b % (2 << 20) != 0 || b == 0 || b >= total {
            return Err(WorkloadError::Invalid(format!(
                "workload.base_va {b:#x} must be a non-zero multiple of 2 MiB below 2^47"
            )));
        }
    }
    if o.masim_burst == Some(0) {
        return Err(WorkloadError::Invalid(
            "workload.masim_burst must be at least 1".into(),
        ));
    }
    if let Some(r) = o.access_rate {
        if !(r.is_finite() && r > 0.0) {
            return Err(WorkloadError::Invalid(
                "workload.access_rate must be positive".into(),
            ));
        }
    }
    if let Some(names) = crate::mix::components(spec) {
        let parts = names
            .iter()
            .map(|n| {
                if n.starts_with("mix:") {
                    Err(WorkloadError::Invalid(format!(
                        "workload {spec:?}: a mix cannot hold a mix"
                    )))
                } else {
                    load(n, o)
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        return crate::mix::mix(spec, parts);
    }
    // The name is looked up once; every preset kind is built from that entry.
    let found = preset(spec);
    if let Some(p) = found {
        match &p.kind {
            Kind::Model(f) => return model_workload(spec, f(), o),
            Kind::Sweep(f) => return sweep_workload(spec, f(), o),
            Kind::Npb(f) => return npb_workload(spec, &f(), o),
            Kind::Hetero(f) => return hetero_workload(spec, &f(), o),
            Kind::Kv(f) => {
                let kv = f();
                let rate = o.access_rate.unwrap_or(kv.access_rate);
                let compute = o
                    .compute_ns
                    .unwrap_or_else(|| crate::compute_ns_for_rate(rate, o.fast_read_ns, o.mlp));
                return kv_workload(spec, &kv, o, rate, compute);
            }
            Kind::Masim(_) | Kind::MasimTyped(..) | Kind::MasimText(_) | Kind::Synthetic(_) => {}
        }
    } else if let Some(s) = parameterized(spec) {
        return sweep_workload(spec, s?, o);
    } else if let Some(s) = parameterized_npb(spec) {
        return npb_workload(spec, &s?, o);
    } else if let Some(h) = heteroos::parameterized(spec) {
        return hetero_workload(spec, &h?, o);
    } else if let Some(m) = thermostat::with_threads(spec) {
        return model_workload(spec, m?, o);
    }

    let rate = o.access_rate.unwrap_or(crate::DEFAULT_ACCESS_RATE);
    let o = &WorkloadOptions {
        access_rate: Some(rate),
        thp: Some(o.thp.unwrap_or(false)),
        ..o.clone()
    };
    let compute = o
        .compute_ns
        .unwrap_or_else(|| crate::compute_ns_for_rate(rate, o.fast_read_ns, o.mlp));
    // Memos' models: their sweeps' phases last one pass at this rate.
    if let Some(text) = memos::parameterized(spec, rate) {
        return masim_workload(spec, masim::parse(&text?, spec)?, o, compute);
    }
    if let Some(path) = spec.strip_prefix("lackey:") {
        let scanned = lackey::scanned(path)?;
        return Ok(Workload {
            name: spec.to_string(),
            regions: scanned.regions,
            threads: 1,
            access_rate: rate,
            compute_ns: compute,
            total_accesses: scanned.accesses,
            phases: vec![PhaseMark {
                name: "trace".into(),
                first_access: 0,
            }],
            stream: Stream::Lackey(Box::new(lackey::LackeyReader::open(path)?)),
            rates: None,
        });
    }
    if let Some(path) = spec.strip_prefix("trace:") {
        let (reader, regions) = trace::TraceReader::open(path)?;
        return Ok(Workload {
            name: spec.to_string(),
            total_accesses: reader.records(),
            regions,
            threads: reader.threads(),
            access_rate: rate,
            compute_ns: compute,
            phases: vec![PhaseMark {
                name: "trace".into(),
                first_access: 0,
            }],
            stream: Stream::Trace(reader),
            rates: None,
        });
    }
    if let Some(p) = found {
        return Ok(match p.kind {
            Kind::Masim(text) => masim_workload(spec, masim::parse(text, spec)?, o, compute)?,
            Kind::MasimTyped(text, types) => {
                masim_workload_typed(spec, masim::parse(text, spec)?, o, compute, types)?
            }
            Kind::MasimText(f) => masim_workload(spec, masim::parse(&f(), spec)?, o, compute)?,
            Kind::Model(_) | Kind::Sweep(_) | Kind::Kv(_) | Kind::Npb(_) | Kind::Hetero(_) => {
                return Err(WorkloadError::Invalid(format!(
                    "preset {spec:?} was not built (a bug; please report it)"
                )))
            }
            Kind::Synthetic(f) => {
                let s = f(rate);
                s.validate()?;
                let regions = lay_out(&[("items".to_string(), s.bytes())], o.thp == Some(true));
                let rates = crate::synthetic::rate_profile(&s, &regions[0]);
                Workload {
                    name: spec.to_string(),
                    threads: s.threads,
                    access_rate: rate,
                    compute_ns: compute,
                    total_accesses: s.accesses,
                    phases: vec![PhaseMark {
                        name: p.name.into(),
                        first_access: 0,
                    }],
                    stream: Stream::Synthetic(SyntheticStream::new(s, regions[0].start, o.seed)),
                    regions,
                    rates,
                }
            }
        });
    }
    if std::path::Path::new(spec).exists() {
        let text = std::fs::read_to_string(spec).map_err(|e| WorkloadError::File {
            file: spec.to_string(),
            msg: format!("cannot read: {e}"),
        })?;
        return masim_workload(spec, masim::parse(&text, spec)?, o, compute);
    }
    Err(WorkloadError::Invalid(unknown_workload(spec)))
}

/// Why `spec` names no workload: a path that is not there, or a name that
/// is not a preset (with the closest preset's name when one is close).
fn unknown_workload(spec: &str) -> String {
    let path = std::path::Path::new(spec);
    if spec.contains('/') || path.extension().is_some_and(|e| e == "cfg") {
        let from = std::env::current_dir()
            .map(|d| format!(" (relative paths are from {})", d.display()))
            .unwrap_or_default();
        return format!("unknown workload {spec:?}: no MASIM config file there{from}");
    }
    format!(
        "unknown workload {spec:?}: not a preset (see `thermocline list`), a MASIM config file, lackey:PATH or trace:PATH{}",
        thermocline_vocab::hint(spec, PRESETS.iter().map(|p| p.name))
    )
}

fn masim_workload(
    name: &str,
    cfg: masim::MasimConfig,
    o: &WorkloadOptions,
    compute: f64,
) -> Result<Workload, WorkloadError> {
    masim_workload_typed(name, cfg, o, compute, &[])
}

/// [`masim_workload`] with the regions named in `types` holding pages of
/// those types (the others anonymous).
fn masim_workload_typed(
    name: &str,
    cfg: masim::MasimConfig,
    o: &WorkloadOptions,
    compute: f64,
    types: &[(&str, PageType)],
) -> Result<Workload, WorkloadError> {
    let rate = o.access_rate.unwrap_or(crate::DEFAULT_ACCESS_RATE);
    let base = o.base_va.unwrap_or(crate::DEFAULT_BASE_VA);
    let mut regions = crate::lay_out_at(&cfg.regions, o.thp == Some(true), base);
    for r in &mut regions {
        if let Some(&(_, t)) = types.iter().find(|(n, _)| *n == r.name) {
            r.page_type = t;
        }
    }
    if let Some(r) = regions.iter().find(|r| r.end() > 1 << 47) {
        return Err(WorkloadError::Invalid(format!(
            "workload {name:?}: region {} ends at {:#x}, above the 47-bit address space (lower workload.base_va)",
            r.name,
            r.end()
        )));
    }
    let burst = o.masim_burst.unwrap_or(masim::DEFAULT_BURST);
    let rates = masim::rate_profile(&cfg, &regions, rate, burst);
    let stream = masim::MasimStream::new(cfg, &regions, rate, burst, o.seed);
    let (total, phases) = stream.plan();
    Ok(Workload {
        rates: Some(rates),
        name: name.to_string(),
        regions,
        threads: 1,
        access_rate: rate,
        compute_ns: compute,
        total_accesses: total,
        phases,
        stream: Stream::Masim(stream),
    })
}

/// A key-value model: its rate profile, replayed access by access on the
/// exact machine.
fn kv_workload(
    name: &str,
    spec: &KvSpec,
    o: &WorkloadOptions,
    rate: f64,
    compute: f64,
) -> Result<Workload, WorkloadError> {
    let (regions, profile) = kv::build(spec, o.thp == Some(true), rate)?;
    Ok(Workload {
        name: name.to_string(),
        regions,
        threads: spec.threads,
        access_rate: rate,
        compute_ns: compute,
        total_accesses: profile.total_accesses(),
        phases: profile.marks(),
        stream: Stream::Rate(RateStream::new(profile.clone(), spec.threads, o.seed)),
        rates: Some(profile),
    })
}

/// An application model: its own rate and THP unless the options override
/// them; a load phase, then the measured run.
fn model_workload(
    name: &str,
    spec: ModelSpec,
    o: &WorkloadOptions,
) -> Result<Workload, WorkloadError> {
    let model = BuiltModel::new(spec, o.seed)?;
    let threads = model.threads();
    let natural = model.access_rate() / threads as f64;
    let rate = o.access_rate.unwrap_or(natural);
    let compute = o
        .compute_ns
        .unwrap_or_else(|| crate::compute_ns_for_rate(rate, o.fast_read_ns, o.mlp));
    let regions = lay_out(&model.region_sizes(), o.thp.unwrap_or(true));
    let starts: Vec<u64> = regions.iter().map(|r| r.start).collect();
    let load = model.load_accesses();
    let run = model.run_accesses();
    let stream = ModelStream::new(&model, &starts, run, o.seed, true);
    Ok(Workload {
        name: name.to_string(),
        regions,
        threads,
        access_rate: rate,
        compute_ns: compute,
        total_accesses: load + run,
        phases: vec![
            PhaseMark {
                name: "load".into(),
                first_access: 0,
            },
            PhaseMark {
                name: "run".into(),
                first_access: load,
            },
        ],
        stream: Stream::Model(Box::new(stream)),
        rates: None,
    })
}

/// An array sweep: memory-bound threads (no compute between accesses unless
/// the options say otherwise); a load phase, then the sweep.
fn sweep_workload(
    name: &str,
    spec: SweepSpec,
    o: &WorkloadOptions,
) -> Result<Workload, WorkloadError> {
    spec.validate()
        .map_err(|e| WorkloadError::Invalid(format!("workload {name:?}: {e}")))?;
    let rate = o.access_rate.unwrap_or(1e9 * o.mlp / o.fast_read_ns);
    let compute = o
        .compute_ns
        .unwrap_or_else(|| crate::compute_ns_for_rate(rate, o.fast_read_ns, o.mlp));
    let sizes: Vec<(String, u64)> = spec
        .arrays
        .iter()
        .map(|a| (a.name.clone(), a.bytes))
        .collect();
    let regions = lay_out(&sizes, o.thp.unwrap_or(false));
    let bases = regions.iter().map(|r| r.start).collect();
    let load = spec.load_accesses();
    Ok(Workload {
        name: name.to_string(),
        threads: spec.threads,
        access_rate: rate,
        compute_ns: compute,
        total_accesses: load + spec.accesses,
        phases: vec![
            PhaseMark {
                name: "load".into(),
                first_access: 0,
            },
            PhaseMark {
                name: "sweep".into(),
                first_access: load,
            },
        ],
        stream: Stream::Sweep(SweepStream::new(spec, bases)),
        regions,
        rates: None,
    })
}

/// An executed NPB kernel: memory-bound threads as in [`sweep_workload`] (no
/// compute between accesses unless the options say otherwise), so that the
/// kernels and the sketches compare on the same terms; a load phase, then the
/// kernel.
fn npb_workload(
    name: &str,
    spec: &NpbSpec,
    o: &WorkloadOptions,
) -> Result<Workload, WorkloadError> {
    let (regions, stream) = npb::build(spec, o.thp.unwrap_or(false))
        .map_err(|e| WorkloadError::Invalid(format!("workload {name:?}: {e}")))?;
    let rate = o.access_rate.unwrap_or(1e9 * o.mlp / o.fast_read_ns);
    let compute = o
        .compute_ns
        .unwrap_or_else(|| crate::compute_ns_for_rate(rate, o.fast_read_ns, o.mlp));
    let load = stream.load_accesses();
    Ok(Workload {
        name: name.to_string(),
        threads: spec.threads,
        access_rate: rate,
        compute_ns: compute,
        total_accesses: load + spec.accesses,
        phases: vec![
            PhaseMark {
                name: "load".into(),
                first_access: 0,
            },
            PhaseMark {
                name: spec.kernel.into(),
                first_access: load,
            },
        ],
        stream: Stream::Npb(Box::new(stream)),
        regions,
        rates: None,
    })
}

/// A HeteroOS-like model: its own compute time per access (from Table 4's
/// MPKI, see [`heteroos`]; none for the microbenchmarks) and no THP unless
/// the options say otherwise; a load phase, then the rounds.
fn hetero_workload(
    name: &str,
    spec: &HeteroSpec,
    o: &WorkloadOptions,
) -> Result<Workload, WorkloadError> {
    let (regions, stream) = heteroos::build(spec, o.thp.unwrap_or(false), o.seed)?;
    let (rate, compute) = match (o.access_rate, o.compute_ns) {
        (Some(r), c) => (
            r,
            c.unwrap_or_else(|| crate::compute_ns_for_rate(r, o.fast_read_ns, o.mlp)),
        ),
        (None, c) => {
            let c = c.unwrap_or(spec.compute_ns());
            (1e9 / (c + o.fast_read_ns / o.mlp), c)
        }
    };
    let load = spec.load_accesses();
    Ok(Workload {
        name: name.to_string(),
        regions,
        threads: spec.threads,
        access_rate: rate,
        compute_ns: compute,
        total_accesses: load + spec.run_accesses(),
        phases: vec![
            PhaseMark {
                name: "load".into(),
                first_access: 0,
            },
            PhaseMark {
                name: "run".into(),
                first_access: load,
            },
        ],
        stream: Stream::Hetero(Box::new(stream)),
        rates: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Access;

    fn opts() -> WorkloadOptions {
        WorkloadOptions {
            seed: 1,
            access_rate: None,
            compute_ns: None,
            thp: None,
            base_va: None,
            fast_read_ns: 80.0,
            mlp: 4.0,
            masim_burst: None,
        }
    }

    #[test]
    fn memos_models_are_presets_named_after_their_model() {
        for m in crate::memos::MODELS {
            let p = preset(&format!("memos-{}", m.name)).expect(m.name);
            assert_eq!(p.description, m.description);
            assert!(load(p.name, &opts()).is_ok(), "{}", p.name);
        }
        assert!(load("memos:stream:0.05:3", &opts()).is_ok());
        let e = load("memos:stream:x", &opts()).err().unwrap().to_string();
        assert!(e.contains("memos:stream:x"), "{e}");
    }

    #[test]
    fn heteroos_models_are_presets_with_typed_regions_and_events() {
        use thermocline_vocab::PageType;
        for m in crate::heteroos::MODELS {
            let name = format!("heteroos-{}", m.name);
            let p = preset(&name).expect(m.name);
            assert_eq!(p.description, m.description);
            let w = load(&name, &opts()).unwrap();
            assert_eq!(w.total_accesses, m.load_accesses() + m.run_accesses());
            assert!((w.compute_ns - m.compute_ns()).abs() < 1e-9);
            assert!(w.footprint_bytes() <= 6 << 30, "{name}");
        }
        let w = load("heteroos-leveldb", &opts()).unwrap();
        let types: Vec<PageType> = w.regions.iter().map(|r| r.page_type).collect();
        assert_eq!(
            types,
            [
                PageType::Anon,
                PageType::FileCache,
                PageType::IoBuffer,
                PageType::Slab
            ]
        );
        // Events come through the workload's stream.
        let mut w = load("heteroos:nginx:0.05", &opts()).unwrap();
        let mut buf = vec![Access::default(); 4096];
        let mut events = Vec::new();
        let mut seen = 0;
        for _ in 0..100 {
            w.stream.fill_with_events(&mut buf, &mut events).unwrap();
            seen += events.len();
        }
        assert!(seen > 0);
        for (spec, gib) in [("heteroos-memlat", 1.0), ("heteroos-stream:0.5", 0.5)] {
            let w = load(spec, &opts()).unwrap();
            assert_eq!(w.footprint_bytes(), (gib * (1u64 << 30) as f64) as u64);
            assert_eq!(w.compute_ns, 0.0);
        }
        assert!(load("heteroos:nginx:9", &opts()).is_err());
    }

    #[test]
    fn thermostat_application_models_are_presets() {
        for name in crate::thermostat::APPLICATION_MODELS {
            assert!(load(name, &opts()).is_ok(), "{name}");
        }
    }

    #[test]
    fn npb_specs_build_the_kernel_or_say_why_not() {
        let mut w = load("npb:cg:0.02", &opts()).unwrap();
        assert_eq!(w.threads, 32);
        assert_eq!(w.phases[1].name, "cg");
        let mib = w.footprint_bytes() as f64 / (1 << 20) as f64;
        assert!((18.0..23.0).contains(&mib), "{mib} MiB");
        // The load phase and the first kernel accesses, all inside the regions.
        let mut buf = vec![Access::default(); 1 << 16];
        let mut seen = 0u64;
        while seen < w.phases[1].first_access + 100_000 {
            let n = w.stream.fill(&mut buf).unwrap();
            assert!(n > 0);
            assert!(buf[..n]
                .iter()
                .all(|a| w.regions.iter().any(|r| r.start <= a.va && a.va < r.end())));
            seen += n as u64;
        }
        for bad in [
            "npb:cg",
            "npb:lu:1",
            "npb:cg:0",
            "npb:cg:9",
            "npb:cg:nan",
            "npb:cg:x",
        ] {
            let e = load(bad, &opts()).err().expect(bad).to_string();
            assert!(e.contains(&format!("{bad:?}")), "{e}");
        }
    }

    #[test]
    fn npb_mg_ft_and_bt_presets_have_the_footprints_they_describe() {
        for (name, lo, hi) in [
            ("npb-mg-small", 0.8, 0.9),
            ("npb-mg-medium", 1.6, 1.75),
            ("npb-mg-large", 3.2, 3.4),
            ("npb-ft-small", 0.8, 0.85),
            ("npb-ft-medium", 1.6, 1.7),
            ("npb-ft-large", 3.2, 3.4),
            ("npb-bt-small", 0.75, 0.82),
            ("npb-bt-medium", 1.45, 1.55),
            ("npb-bt-large", 3.4, 3.55),
        ] {
            let w = load(name, &opts()).unwrap();
            let gib = w.footprint_bytes() as f64 / (1u64 << 30) as f64;
            assert!((lo..hi).contains(&gib), "{name}: {gib} GiB");
        }
    }

    #[test]
    fn npb_presets_name_kernels_and_sketches_apart() {
        for s in ["small", "medium", "large"] {
            let p = preset(&format!("npb-cg-{s}")).unwrap();
            assert!(matches!(p.kind, Kind::Npb(_)) && p.description.contains("executed"));
            let p = preset(&format!("npb-cg-sketch-{s}")).unwrap();
            assert!(matches!(p.kind, Kind::Sweep(_)) && p.description.starts_with("sketch"));
            let p = preset(&format!("npb-mg-{s}")).unwrap();
            assert!(matches!(p.kind, Kind::Npb(_)) && p.description.contains("executed"));
            let p = preset(&format!("npb-mg-sketch-{s}")).unwrap();
            assert!(matches!(p.kind, Kind::Sweep(_)) && p.description.starts_with("sketch"));
            let p = preset(&format!("npb-ft-{s}")).unwrap();
            assert!(matches!(p.kind, Kind::Npb(_)) && p.description.contains("executed"));
            let p = preset(&format!("npb-ft-sketch-{s}")).unwrap();
            assert!(matches!(p.kind, Kind::Sweep(_)) && p.description.starts_with("sketch"));
            let p = preset(&format!("npb-bt-{s}")).unwrap();
            assert!(matches!(p.kind, Kind::Npb(_)) && p.description.contains("executed"));
            let p = preset(&format!("npb-bt-sketch-{s}")).unwrap();
            assert!(matches!(p.kind, Kind::Sweep(_)) && p.description.starts_with("sketch"));
        }
    }
}
