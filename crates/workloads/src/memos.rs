//! Workload models after Memos' evaluation (Liu et al., IEEE TC;
//! ../shared/papers/003_4ce7a4cbf1361ba3.txt): SPEC CPU 2006-like models
//! (section 3, Figures 3, 4 and 10, section 6.1, the appendix's mixes),
//! cloud-like models (footnote 4 and section 6.1: Memcached, Redis,
//! Aerospike, MySQL-slap, "1.6GB-24GB footprints") and a STREAM-like model
//! (Figure 4). They are **models of memory behaviour, not the programs**:
//! each is a MASIM config (so it runs unchanged on either machine and can be
//! saved and edited), written by [`config`] from a table of regions and
//! phases.
//!
//! What the paper gives: the applications' names, that libquantum is
//! "stream-like", STREAM's one TLB miss per page per half second, mcf's
//! irregular per-page TLB-miss counts (Figure 4), lbm being write-heavy
//! (Figure 10), libquantum having many cold pages, astar's changing
//! behaviour, Memcached's random requests, Redis' Zipfian ones and the
//! cloud footprints (Memcached 4 GB, Aerospike 6 GB; 1.6-24 GB in all).
//! **Everything else is inferred** and stated per model: the SPEC
//! footprints (ref inputs' commonly reported resident sizes), the regions
//! and their shares, the read/write mix, the hot fraction, the access shape
//! (MASIM `0` sequential = streaming, `1` random = pointer chasing or hash
//! lookups) and the phase lengths. Redis' and MySQL-slap's footprints are
//! inferred as the ends of the paper's 1.6-24 GB range.
//!
//! Sizes: the presets (`memos-NAME`) run at a small scale (at most 1.5 GiB,
//! see [`MemosModel::small_bytes`]) for 30 s of work at the run's access
//! rate (a sweep phase lasts one pass at that rate, see [`PASS`]);
//! `memos:NAME:GIB[:SECONDS]` gives any footprint (the paper's with
//! `GIB` = [`MemosModel::paper_bytes`]) and length. Region shares and phase
//! lengths do not change with the size; per-page access rates do.

use crate::WorkloadError;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// Access shape of a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Sequential 64-byte strides (streaming).
    Stream,
    /// Uniformly random lines (pointer chasing, hash lookups).
    Random,
}

/// One pattern of a phase: (region index, shape, relative weight, mode).
pub type Pat = (usize, Shape, u32, &'static str);

/// A phase: name, length (ms; [`PASS`]: one pass of its first pattern's
/// region), patterns.
pub type PhaseSpec = (&'static str, u64, &'static [Pat]);

/// A phase length of one sequential pass over its (one) pattern's region
/// at the run's access rate, in whole MASIM bursts: a program sweeps
/// whole arrays, and a phase cut mid-array would restart its sweep (MASIM
/// restarts a sequential pattern at each phase) and give the first pages
/// of the array more passes than the rest. Regions of 8 MiB and more are
/// whole bursts of lines (rounded to 8 MiB), so a pass is exact at
/// masim's default burst (`workload.masim_burst` changes it; other bursts
/// make partial passes).
pub const PASS: u64 = 0;

/// Bytes of the lines one MASIM burst touches with a 64-byte stride.
const BURST_BYTES: u64 = crate::masim::DEFAULT_BURST * 64;

/// The bytes of a region of `share` of `bytes`.
fn region_bytes(bytes: u64, share: f64) -> u64 {
    let b = bytes as f64 * share;
    if b >= BURST_BYTES as f64 {
        ((b / BURST_BYTES as f64).round() as u64) * BURST_BYTES
    } else {
        ((b as u64) / 4096 * 4096).max(1 << 16)
    }
}

/// The length (ms) of one pass over `region` bytes at `rate` accesses/s.
fn pass_ms(region: u64, rate: f64) -> u64 {
    let bursts = (region / 64).div_ceil(crate::masim::DEFAULT_BURST);
    let ms = (bursts * crate::masim::DEFAULT_BURST) as f64 * 1000.0 / rate;
    (ms.floor() as u64).max(1)
}

/// One Memos-like model.
pub struct MemosModel {
    /// Short name (`mcf`, `memcached`...): preset `memos-NAME`.
    pub name: &'static str,
    /// What it is built after, for `thermocline list`.
    pub description: &'static str,
    /// The footprint the paper ran (or, for SPEC, the ref input's;
    /// inferred), bytes.
    pub paper_bytes: u64,
    /// The presets' footprint, bytes.
    pub small_bytes: u64,
    /// Regions: name and share of the footprint (the shares sum to 1).
    pub regions: &'static [(&'static str, f64)],
    /// Phases, repeated in order until the run's length is filled.
    pub phases: &'static [PhaseSpec],
}

use Shape::{Random as R, Stream as S};

/// Every model, SPEC-like first, then cloud-like, then STREAM.
pub const MODELS: &[MemosModel] = &[
    // mcf (network simplex, section 3.4 / Fig. 4's non-stream case): a
    // node array with potentials written on pivots, an arc array chased at
    // random with a hot share, and price-out scans of the arcs.
    // Inferred: 1.7 GB (ref), nodes 15% / hot arcs 25% / other arcs 60%,
    // ~12% stores (node potentials), 4 s of pivots then one price-out
    // pass over the arcs.
    MemosModel {
        name: "mcf",
        description: "mcf-like model (not mcf; Memos Fig. 4's non-stream case): pointer chasing over nodes (15%, 25% stores) and arcs (a hot 25% chased 6x as often), a sequential price-out pass over the arcs every 4 s",
        paper_bytes: 1700 * MIB,
        small_bytes: 256 * MIB,
        regions: &[("nodes", 0.15), ("arcs_hot", 0.25), ("arcs", 0.60)],
        phases: &[
            (
                "pivots",
                4000,
                &[
                    (0, R, 30, "ro"),
                    (0, R, 10, "wo"),
                    (1, R, 45, "ro"),
                    (2, R, 15, "ro"),
                ],
            ),
            ("price-out-hot", PASS, &[(1, S, 1, "ro")]),
            ("price-out", PASS, &[(2, S, 1, "ro")]),
        ],
    },
    // lbm (Fig. 10: write-heavy, most pages end in DRAM): two lattices,
    // one read and the other written each time step, swapped every step.
    // Inferred: 410 MB (ref), 2 x 50%, a step is one pass over each.
    MemosModel {
        name: "lbm",
        description: "lbm-like model (not lbm; Memos Fig. 10's write-heavy case): two lattices streamed, one read and one written per time step, swapped each step",
        paper_bytes: 410 * MIB,
        small_bytes: 128 * MIB,
        regions: &[("src", 0.5), ("dst", 0.5)],
        phases: &[
            ("read-src", PASS, &[(0, S, 1, "ro")]),
            ("write-dst", PASS, &[(1, S, 1, "wo")]),
            ("read-dst", PASS, &[(1, S, 1, "ro")]),
            ("write-src", PASS, &[(0, S, 1, "wo")]),
        ],
    },
    // libquantum (the appendix: "provides stream-like memory pattern";
    // 6.1: "many cold pages"): a quantum register streamed by gates
    // (read-modify-write) and measurements (reads), beside a large
    // allocation touched rarely. Inferred: 100 MB (ref), register 40%,
    // three passes of gates and one of measurement, twice, then one read
    // pass over the rest (once per eight register passes: its pages miss
    // the TLB an eighth as often, under HyMM's hot threshold; a random
    // visit would not do: MASIM's smallest is a burst of 131 072 loads,
    // each a TLB miss).
    MemosModel {
        name: "libquantum",
        description: "libquantum-like model (not libquantum; Memos' stream-like SPEC case): a register streamed by gates (stores) and measurements (loads), the other 60% of the footprint read once per 8 register passes",
        paper_bytes: 100 * MIB,
        small_bytes: 96 * MIB,
        regions: &[("reg", 0.4), ("spare", 0.6)],
        phases: &[
            ("gate-1", PASS, &[(0, S, 1, "rw")]),
            ("gate-2", PASS, &[(0, S, 1, "rw")]),
            ("gate-3", PASS, &[(0, S, 1, "rw")]),
            ("measure", PASS, &[(0, S, 1, "ro")]),
            ("gate-4", PASS, &[(0, S, 1, "rw")]),
            ("gate-5", PASS, &[(0, S, 1, "rw")]),
            ("gate-6", PASS, &[(0, S, 1, "rw")]),
            ("measure-2", PASS, &[(0, S, 1, "ro")]),
            ("spare", PASS, &[(1, S, 1, "ro")]),
        ],
    },
    // astar (6.1: "diverse and dynamically changing memory access
    // behaviors"): a map read at random during searches, an open list and
    // path buffers written, and region-update phases that rewrite part of
    // the map. Inferred: 330 MB (ref), map 60% / lists 25% / rest 15%,
    // 3 s search, 2 s update.
    MemosModel {
        name: "astar",
        description: "astar-like model (not astar; Memos Fig. 10's changing case): map read at random during 3 s searches (open lists written), then 2 s updates rewriting part of the map",
        paper_bytes: 330 * MIB,
        small_bytes: 96 * MIB,
        regions: &[("map", 0.6), ("lists", 0.25), ("rest", 0.15)],
        phases: &[
            (
                "search",
                3000,
                &[(0, R, 60, "ro"), (1, R, 20, "ro"), (1, R, 18, "wo"), (2, R, 2, "ro")],
            ),
            ("update", 2000, &[(0, R, 50, "ro"), (0, R, 30, "wo"), (1, R, 20, "ro")]),
        ],
    },
    // GemsFDTD (an FDTD stencil): E and H fields updated in turn, each
    // update streaming the other field and read-only coefficients.
    // Inferred: 850 MB (ref), E 35% / H 35% / coefficients 30%, a
    // half-step is one pass over each array it touches.
    MemosModel {
        name: "gemsfdtd",
        description: "GemsFDTD-like model (not GemsFDTD): E and H fields streamed in turn (one updated, the other and coefficients read), one pass each per half-step",
        paper_bytes: 850 * MIB,
        small_bytes: 192 * MIB,
        regions: &[("e", 0.35), ("h", 0.35), ("coef", 0.30)],
        phases: &[
            ("h-read-e", PASS, &[(0, S, 1, "ro")]),
            ("h-read-coef", PASS, &[(2, S, 1, "ro")]),
            ("h-update", PASS, &[(1, S, 1, "rw")]),
            ("e-read-h", PASS, &[(1, S, 1, "ro")]),
            ("e-read-coef", PASS, &[(2, S, 1, "ro")]),
            ("e-update", PASS, &[(0, S, 1, "rw")]),
        ],
    },
    // hmmer (Table 2's "hmm"): a small dynamic-programming matrix streamed
    // with stores, a profile read at random, a sequence database streamed.
    // Inferred: 64 MB, matrix 25% / profile 15% / database 60%; a pass
    // over the matrix, 50 ms on the profile, a pass over the database.
    MemosModel {
        name: "hmmer",
        description: "hmmer-like model (not hmmer; Memos Table 2's hmm): a DP matrix streamed with stores, a profile read at random, a sequence database streamed",
        paper_bytes: 64 * MIB,
        small_bytes: 64 * MIB,
        regions: &[("dp", 0.25), ("profile", 0.15), ("seqdb", 0.6)],
        phases: &[
            ("dp", PASS, &[(0, S, 1, "rw")]),
            ("profile", 50, &[(1, R, 1, "ro")]),
            ("seqdb", PASS, &[(2, S, 1, "ro")]),
        ],
    },
    // xalancbmk (Table 2's "xal"): a DOM tree built by appends, then
    // chased at random by the transform while output is appended.
    // Inferred: 430 MB (ref), tree 70% / strings 20% / output 10%, one
    // pass building the tree and strings, then 7 s of transform.
    MemosModel {
        name: "xalancbmk",
        description: "xalancbmk-like model (not Xalan; Memos Table 2's xal): a DOM tree written in one pass, then chased at random for 7 s while output is appended",
        paper_bytes: 430 * MIB,
        small_bytes: 128 * MIB,
        regions: &[("tree", 0.7), ("strings", 0.2), ("output", 0.1)],
        phases: &[
            ("parse-tree", PASS, &[(0, S, 1, "wo")]),
            ("parse-strings", PASS, &[(1, S, 1, "wo")]),
            (
                "transform",
                7000,
                &[(0, R, 70, "ro"), (1, R, 20, "ro"), (2, S, 10, "wo")],
            ),
        ],
    },
    // Memcached (footnote 4: Twitter dataset, random requests, 195 K/s;
    // Fig. 6 at 4 GB; 6.1: "only a small number of pages are hot, and the
    // hot/cold status of these pages changes frequently"). Inferred: hash
    // table 4%, slabs in 8 classes of which one is popular for 10 s before
    // the next; 90:10 get:set.
    MemosModel {
        name: "memcached",
        description: "Memcached-like model (not Memcached; Memos Fig. 6, 4 GB): a hash table and slabs read at random, one popular slab class at a time (10 s each), 90:10 get:set",
        paper_bytes: 4 * GIB,
        small_bytes: 256 * MIB,
        regions: &[
            ("hash", 0.04),
            ("slab0", 0.12),
            ("slab1", 0.12),
            ("slab2", 0.12),
            ("slab3", 0.12),
            ("slab4", 0.12),
            ("slab5", 0.12),
            ("slab6", 0.12),
            ("slab7", 0.12),
        ],
        phases: &[
            ("class0", 10_000, &[(0, R, 20, "ro"), (1, R, 63, "ro"), (1, R, 7, "wo"), (5, R, 10, "ro")]),
            ("class1", 10_000, &[(0, R, 20, "ro"), (2, R, 63, "ro"), (2, R, 7, "wo"), (6, R, 10, "ro")]),
            ("class2", 10_000, &[(0, R, 20, "ro"), (3, R, 63, "ro"), (3, R, 7, "wo"), (7, R, 10, "ro")]),
            ("class3", 10_000, &[(0, R, 20, "ro"), (4, R, 63, "ro"), (4, R, 7, "wo"), (8, R, 10, "ro")]),
        ],
    },
    // Redis (footnote 4: redis-benchmark, 50 clients, Zipfian requests at
    // 290 K/s). Inferred: 1.6 GB (the low end of the paper's range), a
    // dict 5%, values with Zipf-like nesting (1% of them take 45% of
    // requests, 10% take 30%), half the requests SETs.
    MemosModel {
        name: "redis",
        description: "Redis-like model (not Redis; Memos footnote 4, Zipfian redis-benchmark): a dict and values with a nested hot 1% / 10%, half the requests SETs",
        paper_bytes: 1638 * MIB,
        small_bytes: 128 * MIB,
        regions: &[("dict", 0.05), ("top", 0.01), ("warm", 0.09), ("tail", 0.85)],
        phases: &[(
            "serve",
            2000,
            &[
                (0, R, 20, "ro"),
                (1, R, 18, "ro"),
                (1, R, 18, "wo"),
                (2, R, 12, "ro"),
                (2, R, 12, "wo"),
                (3, R, 10, "ro"),
                (3, R, 10, "wo"),
            ],
        )],
    },
    // Aerospike (footnote 4: C client benchmark, 145 K ops/s; Fig. 6 at
    // 6 GB). Inferred: a primary index 10% read and updated on every
    // operation, records with a 20% hot share, 50:50 read:update (the
    // benchmark's default RU,50).
    MemosModel {
        name: "aerospike",
        description: "Aerospike-like model (not Aerospike; Memos Fig. 6, 6 GB): an index touched per operation, records with a hot 20%, 50:50 read:update",
        paper_bytes: 6 * GIB,
        small_bytes: 384 * MIB,
        regions: &[("index", 0.1), ("hot", 0.2), ("records", 0.7)],
        phases: &[(
            "serve",
            2000,
            &[
                (0, R, 30, "ro"),
                (0, R, 5, "wo"),
                (1, R, 20, "ro"),
                (1, R, 20, "wo"),
                (2, R, 12, "ro"),
                (2, R, 13, "wo"),
            ],
        )],
    },
    // MySQL-slap (footnote 4: default mysqlslap, 40 connections, mixed
    // load). Inferred: 24 GB (the high end of the paper's range), a
    // buffer pool of index pages (hot upper levels 5%) and table pages
    // read at random, half the queries inserts appended at the table's end
    // and the redo log.
    MemosModel {
        name: "mysql",
        description: "MySQL-slap-like model (not MySQL; Memos footnote 4, mysqlslap mixed load): index and table pages read at random, inserts appended to the table and the log",
        paper_bytes: 24 * GIB,
        small_bytes: 1536 * MIB,
        regions: &[("index", 0.05), ("table", 0.85), ("log", 0.1)],
        phases: &[(
            "mixed",
            2000,
            &[(0, R, 40, "ro"), (1, R, 30, "ro"), (1, S, 15, "wo"), (2, S, 15, "wo")],
        )],
    },
    // STREAM (Fig. 4's stream case: "1 per page per half-second"): three
    // arrays, copy, scale, add and triad in turn. Inferred: 10 M doubles
    // per array (STREAM's usual size), one pass over each array a kernel
    // reads or writes.
    MemosModel {
        name: "stream",
        description: "STREAM-like model (not STREAM; Memos Fig. 4's stream case): three arrays of 10 M doubles, copy / scale / add / triad streamed in turn, one pass per array each",
        paper_bytes: 240 * 1_000_000,
        small_bytes: 240 * 1_000_000,
        regions: &[("a", 1.0 / 3.0), ("b", 1.0 / 3.0), ("c", 1.0 / 3.0)],
        phases: &[
            ("copy-a", PASS, &[(0, S, 1, "ro")]),
            ("copy-c", PASS, &[(2, S, 1, "wo")]),
            ("scale-c", PASS, &[(2, S, 1, "ro")]),
            ("scale-b", PASS, &[(1, S, 1, "wo")]),
            ("add-a", PASS, &[(0, S, 1, "ro")]),
            ("add-b", PASS, &[(1, S, 1, "ro")]),
            ("add-c", PASS, &[(2, S, 1, "wo")]),
            ("triad-b", PASS, &[(1, S, 1, "ro")]),
            ("triad-c", PASS, &[(2, S, 1, "ro")]),
            ("triad-a", PASS, &[(0, S, 1, "wo")]),
        ],
    },
];

/// Default length of a preset run (s): one preparation and part of the
/// first action period (Memos' cycle is 41 s).
pub const DEFAULT_SECONDS: u64 = 30;

/// The SPEC-like models (the paper's SPEC CPU 2006 applications).
pub const SPEC: [&str; 7] = [
    "mcf",
    "lbm",
    "libquantum",
    "astar",
    "gemsfdtd",
    "hmmer",
    "xalancbmk",
];

/// The cloud-like models (footnote 4).
pub const CLOUD: [&str; 4] = ["memcached", "redis", "aerospike", "mysql"];

/// The model called `name`.
pub fn model(name: &str) -> Option<&'static MemosModel> {
    MODELS.iter().find(|m| m.name == name)
}

/// The MASIM config of model `m` at `bytes` of footprint, its phases
/// repeated for `seconds` (the last repeat cut to fit), for a run at
/// `rate` accesses per second (the length of a [`PASS`]).
pub fn config(m: &MemosModel, bytes: u64, seconds: u64, rate: f64) -> String {
    let mut s = format!(
        "# {} (thermocline::workloads::memos), {} bytes, {} s\n",
        m.description, bytes, seconds
    );
    let sizes: Vec<u64> = m.regions.iter().map(|r| region_bytes(bytes, r.1)).collect();
    for ((name, _), b) in m.regions.iter().zip(&sizes) {
        s += &format!("{name}, {b}\n");
    }
    let mut left = seconds * 1000;
    let mut i = 0;
    while left > 0 {
        let (name, ms, pats) = m.phases[i % m.phases.len()];
        let ms = match (ms, pats.first()) {
            (PASS, Some(p)) => pass_ms(sizes[p.0], rate),
            (PASS, None) => 1,
            (ms, _) => ms,
        };
        let d = ms.min(left);
        s += &format!("\n{name}\n{d}\n");
        for &(r, shape, w, mode) in pats {
            let random = u8::from(shape == Shape::Random);
            s += &format!("{}, {random}, 64, {w}, {mode}\n", m.regions[r].0);
        }
        left -= d;
        i += 1;
    }
    s
}

/// The preset `memos-NAME` at the nominal rate: the small footprint,
/// [`DEFAULT_SECONDS`].
pub fn preset(name: &str) -> String {
    let m = model(name).expect("a listed model");
    config(
        m,
        m.small_bytes,
        DEFAULT_SECONDS,
        crate::DEFAULT_ACCESS_RATE,
    )
}

/// The config of `memos-NAME` (a preset) or `memos:NAME:GIB[:SECONDS]` for
/// a run at `rate` accesses per second; `None` when `spec` is neither.
pub fn parameterized(spec: &str, rate: f64) -> Option<Result<String, WorkloadError>> {
    if let Some(m) = spec.strip_prefix("memos-").and_then(model) {
        return Some(Ok(config(m, m.small_bytes, DEFAULT_SECONDS, rate)));
    }
    let rest = spec.strip_prefix("memos:")?;
    let bad = |why: String| {
        Some(Err(WorkloadError::Invalid(format!(
            "workload {spec:?}: {why}"
        ))))
    };
    let parts: Vec<&str> = rest.split(':').collect();
    if !(2..=3).contains(&parts.len()) {
        return bad("expected memos:NAME:GIB or memos:NAME:GIB:SECONDS".into());
    }
    let Some(m) = model(parts[0]) else {
        let names: Vec<&str> = MODELS.iter().map(|m| m.name).collect();
        return bad(format!(
            "model must be one of {}, got {:?}",
            names.join(", "),
            parts[0]
        ));
    };
    let bytes = match parts[1].parse::<f64>() {
        Ok(g) if (0.01..=256.0).contains(&g) => (g * GIB as f64) as u64,
        _ => return bad(format!("size must be 0.01 to 256 GiB, got {:?}", parts[1])),
    };
    let seconds = match parts.get(2).map(|s| s.parse::<u64>()) {
        None => DEFAULT_SECONDS,
        Some(Ok(t)) if (1..=3600).contains(&t) => t,
        Some(_) => return bad(format!("seconds must be 1 to 3600, got {:?}", parts[2])),
    };
    Some(Ok(config(m, bytes, seconds, rate)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::masim::{self, RwMode};

    #[test]
    fn every_model_is_a_valid_masim_config_with_its_footprint() {
        for m in MODELS {
            let share: f64 = m.regions.iter().map(|r| r.1).sum();
            assert!((share - 1.0).abs() < 1e-9, "{}: shares {share}", m.name);
            assert!(m.description.contains("-like model"), "{}", m.name);
            let cfg = masim::parse(&preset(m.name), m.name).unwrap();
            let bytes: u64 = cfg.regions.iter().map(|r| r.1).sum();
            let want = m.small_bytes as f64;
            let slack = m.regions.len() as f64 * (BURST_BYTES / 2 + 65536) as f64;
            assert!((bytes as f64 - want).abs() <= slack, "{}: {bytes}", m.name);
            for (_, ms, pats) in m.phases {
                assert!(
                    *ms != PASS || pats.len() == 1,
                    "{}: a pass has one pattern",
                    m.name
                );
            }
            let ms: u64 = cfg.phases.iter().map(|p| p.duration_ms).sum();
            assert_eq!(ms, DEFAULT_SECONDS * 1000, "{}", m.name);
        }
    }

    #[test]
    fn shapes_and_modes_reach_the_config() {
        let cfg = masim::parse(&preset("stream"), "stream").unwrap();
        assert!(cfg
            .phases
            .iter()
            .flat_map(|p| &p.patterns)
            .all(|p| !p.random));
        let cfg = masim::parse(&preset("mcf"), "mcf").unwrap();
        let pivots = &cfg.phases[0];
        assert!(pivots.patterns.iter().all(|p| p.random));
        assert!(pivots
            .patterns
            .iter()
            .any(|p| p.region == 0 && p.mode == RwMode::WriteOnly));
    }

    #[test]
    fn a_pass_phase_is_one_sweep_of_its_region_in_whole_bursts() {
        let burst = crate::masim::DEFAULT_BURST;
        // 64 MiB: 1 M lines, 8 bursts, 104.9 ms at 10 M/s.
        assert_eq!(region_bytes(128 << 20, 0.5), 64 << 20);
        assert_eq!(pass_ms(64 << 20, 1e7), 104);
        let budget =
            |ms: u64| (ms as f64 / 1000.0 * crate::DEFAULT_ACCESS_RATE / burst as f64).ceil();
        assert_eq!(budget(pass_ms(64 << 20, 1e7)), 8.0);
        // At a fifth of the rate a pass lasts five times as long.
        assert_eq!(pass_ms(64 << 20, 2e6), 524);
        // STREAM's 80 MB arrays round to 80 MiB, 10 bursts.
        assert_eq!(region_bytes(240_000_000, 1.0 / 3.0), 80 << 20);
        assert_eq!(budget(pass_ms(80 << 20, 1e7)), 10.0);
        // Small regions stay as they are (4 KiB-aligned).
        assert_eq!(region_bytes(1 << 20, 0.5), 512 << 10);
    }

    fn parameterized_at(spec: &str) -> Option<Result<String, WorkloadError>> {
        parameterized(spec, crate::DEFAULT_ACCESS_RATE)
    }

    #[test]
    fn sizes_and_lengths_are_parameters() {
        let text = parameterized_at("memos:memcached:4").unwrap().unwrap();
        let cfg = masim::parse(&text, "m").unwrap();
        let bytes: u64 = cfg.regions.iter().map(|r| r.1).sum();
        // Nine regions, each rounded to 8 MiB.
        assert!((bytes as f64 / GIB as f64 - 4.0).abs() < 0.04, "{bytes}");
        let text = parameterized_at("memos:lbm:0.1:7").unwrap().unwrap();
        let cfg = masim::parse(&text, "m").unwrap();
        assert_eq!(cfg.phases.iter().map(|p| p.duration_ms).sum::<u64>(), 7000);
        assert!(parameterized_at("mcf").is_none());
        for bad in [
            "memos:mcf",
            "memos:gcc:1",
            "memos:mcf:0",
            "memos:mcf:nan",
            "memos:mcf:1:0",
            "memos:mcf:1:x",
            "memos:mcf:1:2:3",
        ] {
            let e = parameterized_at(bad).unwrap().unwrap_err().to_string();
            assert!(e.contains(bad), "{e}");
        }
    }
}
