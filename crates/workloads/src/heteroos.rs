//! Page-typed workload models after HeteroOS (Kannan et al., ISCA 2017;
//! ../shared/papers/001_f8c99e4789a9a37b.txt): the applications of its
//! Table 2 (GraphChi, X-Stream, Metis, LevelDB, Redis, Nginx) and the
//! memlat and Stream microbenchmarks of section 5.2. They are **models of
//! memory behaviour, not the programs**: each says how much heap, page
//! cache, buffer cache and slab memory an application-like loop uses, how
//! often that memory is allocated and released, and how hard it is used.
//!
//! Every model is one address space (asid 0) with up to four regions, one
//! page type each (the machine gives a first-touched page its region's
//! type): `heap` ([`PageType::Anon`]) of chunk slots, and the rings
//! `page-cache` ([`PageType::FileCache`]), `buffer-cache`
//! ([`PageType::IoBuffer`]) and `slab` ([`PageType::Slab`]). A model with no
//! bytes of a type has no such region. The stream issues accesses and
//! [`MemEvent`]s (see [`crate::Stream::fill_with_events`]).
//!
//! A run is a load phase (one store to every page of `live_chunks` heap
//! chunks) and then rounds; each round, in order:
//! 1. **Heap churn** (every `churn_every` rounds; never if 0): a chunk is
//!    allocated in a free slot (one store per 4 KiB page), then the oldest
//!    live chunk is released ([`MemEvent::Release`]), so `live_chunks`
//!    stay live. GraphChi churns each round (it loads sub-graph shards per
//!    interval, section 2.2 / 5.3); Metis hardly ever ("seldom releases
//!    memory", section 5.3).
//! 2. **Heap work**: `heap_ops` accesses over the live chunks' pages,
//!    uniform, Zipfian (rank spread over the pages by a fixed permutation)
//!    or sequential, a random 64-byte line in the page, `heap_store_frac`
//!    of them stores.
//! 3. **Page cache**: `ops` read I/Os of `pages_per_op` pages at the ring
//!    cursor. If the ring has wrapped, the range is first released (the old
//!    file pages are dropped); then one store per page (the data arriving),
//!    then `touches_per_page` accesses per page, line after line through
//!    the range (the paper's OS pages are "short-lived and have high
//!    reuse", Observation 3), then [`MemEvent::IoDone`].
//! 4. **Buffer cache**: the same without the release (log buffers are
//!    rewritten in place), with `store_frac` of the touches stores (log
//!    appends).
//! 5. **Slab**: `ops` allocations of `pages_per_op` pages at the ring
//!    cursor: a store per page, the touches, then a release (the skbuff is
//!    freed after the send).
//!
//! So a released range is always one that was touched, and its next
//! access is a store (a fresh page is written first).
//!
//! **What the paper gives**: the applications, their MPKI (Table 4), that
//! GraphChi and X-Stream are capacity- and memory-intensive, GraphChi
//! "frequently allocate-deallocate[s] memory", GraphChi's Twitter run has a
//! 1.5 GB active working set (section 5.5), Metis has a ~5 GB working set
//! (5.4 GB in 5.5) and seldom frees, X-Stream is page-cache intensive ("it
//! maps input graph to page cache"), LevelDB is filesystem intensive (buffer
//! cache for its log, page cache for its memory-mapped database) with a
//! small working set, Redis is heap plus network slab buffers (skbuff),
//! Nginx is storage and network intensive with under 60 MB active, the VM's
//! 8 GB SlowMem and 0.25-4 GB FastMem, and memlat / Stream are heap-only
//! with 0.25-2 GB working sets (Figures 6 and 7). **Everything else is
//! inferred**: the paper's page-type mix (Figure 4) is an image with no byte
//! counts, so the mixes below follow its text; the chunk sizes, ring sizes,
//! I/O sizes, reuse counts, access shapes, store fractions (except Redis'
//! 80% gets), thread counts and run lengths are choices, stated per model.
//!
//! **MPKI to compute time**: each generated access stands for one
//! last-level-cache miss, so a model makes `1000 / MPKI` instructions per
//! access; at a nominal [`NS_PER_INSTRUCTION`] (1 ns: a 2 GHz core at IPC
//! 0.5) its compute time per access is `1000 / MPKI` ns (GraphChi 36.5 ns,
//! X-Stream 40.3, Metis 67.1, Redis 90.1, LevelDB 212.8, Nginx 476.2), which
//! keeps Table 4's order of memory intensity. memlat and Stream have no
//! MPKI in the paper: they are memory-bound (no compute), as the
//! microbenchmarks are. memlat's loads are dependent in the real benchmark;
//! the simulator has no dependences, so here they are independent uniform
//! random loads (the latency shows as the average access time).
//!
//! **Sizes**: the presets (`heteroos-NAME`) use at most ~5.3 GiB (Metis)
//! and make 150-215 M accesses; `heteroos:NAME:SCALE` multiplies every size
//! and every per-round count by SCALE (the number of rounds stays), so
//! accesses scale with it too. `heteroos-memlat:WSGIB` and
//! `heteroos-stream:WSGIB` set the working set (the presets
//! `heteroos-memlat` and `heteroos-stream` use 1 GiB).

use crate::zipf::Zipf;
use crate::WorkloadError;
use std::collections::VecDeque;
use thermocline_vocab::{Access, Asid, MemEvent, PageType, RegionInfo, Rng};

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
const PAGE: u64 = 4096;
const LINES: u64 = PAGE / 64;
/// Heap-work accesses generated at a time (the reused buffer's size).
const STEP: u64 = 1 << 16;

/// Nominal core time per instruction (ns) used to turn MPKI into compute
/// time per access (see the module docs).
pub const NS_PER_INSTRUCTION: f64 = 1.0;

/// How heap work picks pages of the live chunks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HeapPattern {
    /// Uniformly random pages.
    Uniform,
    /// Zipfian pages with this exponent (rank 0 hottest), ranks spread
    /// over the live pages by a fixed permutation.
    Zipf(f64),
    /// Line after line through the live chunks, wrapping.
    Sequential,
}

/// A ring of OS pages used by I/Os (page cache, buffer cache) or slab
/// allocations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ring {
    /// Bytes (0: no such region).
    pub bytes: u64,
    /// I/Os (allocations) per round.
    pub ops: u64,
    /// Pages each I/O (allocation) covers.
    pub pages_per_op: u64,
    /// Accesses per page after the data is stored (reuse).
    pub touches_per_page: u64,
    /// Share of the reuse accesses that are stores.
    pub store_frac: f64,
}

const NONE: Ring = Ring {
    bytes: 0,
    ops: 0,
    pages_per_op: 1,
    touches_per_page: 0,
    store_frac: 0.0,
};

impl Ring {
    fn accesses_per_round(&self) -> u64 {
        self.ops * self.pages_per_op * (1 + self.touches_per_page)
    }
}

/// One HeteroOS-like model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeteroSpec {
    /// Short name (`graphchi`...): preset `heteroos-NAME`.
    pub name: &'static str,
    /// What it is built after, for `thermocline list`.
    pub description: &'static str,
    /// Threads (accesses go to them in turn).
    pub threads: usize,
    /// Table 4's MPKI; `None`: memory-bound (no compute).
    pub mpki: Option<f64>,
    /// Bytes of a heap chunk.
    pub chunk_bytes: u64,
    /// Chunks live after the load phase and after each churn.
    pub live_chunks: u64,
    /// A chunk is allocated and the oldest released every this many
    /// rounds; 0: never.
    pub churn_every: u64,
    /// Heap-work accesses per round.
    pub heap_ops: u64,
    /// How heap work picks pages.
    pub pattern: HeapPattern,
    /// Share of heap-work accesses that are stores.
    pub heap_store_frac: f64,
    /// Page cache (read I/Os).
    pub page_cache: Ring,
    /// Buffer cache (write I/Os).
    pub buffer_cache: Ring,
    /// Slab (network buffers, filesystem metadata).
    pub slab: Ring,
    /// Rounds after the load phase.
    pub rounds: u64,
    /// Heap beyond the working set, seldom touched.
    pub cold: ColdHeap,
}

/// Heap an application keeps but seldom touches (section 5.5's GraphChi
/// "requires 6GB of total heap capacity with an active working set size of
/// just 1.5GB"): its own region, stored once in the load phase, then `ops`
/// uniform accesses per round (after the slab), stores at the heap's
/// store fraction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColdHeap {
    /// Bytes (0: none).
    pub bytes: u64,
    /// Accesses per round.
    pub ops: u64,
}

/// No cold heap (every model of Table 2 as the paper's figures use it).
pub const NO_COLD: ColdHeap = ColdHeap { bytes: 0, ops: 0 };

/// The application models (Table 2), in Table 4's order.
pub const MODELS: [HeteroSpec; 6] = [
    // GraphChi: heap-heavy, a shard (chunk) loaded and the oldest freed
    // every round, 1.5 GiB live (the Twitter run's active set, 5.5),
    // power-law vertex popularity, shards read through the page cache.
    // Inferred: 128 MiB chunks x 12 live, Zipf 0.8, 30% stores, 32 reads
    // of 256 KiB per round each streamed 32 touches per page, 4 threads.
    HeteroSpec {
        name: "graphchi",
        description: "GraphChi-like model (not GraphChi; HeteroOS Table 2): 1.5 GiB of heap in 128 MiB shards, one loaded and the oldest freed every round, Zipfian vertex accesses, shards read through a 256 MiB page cache",
        threads: 4,
        mpki: Some(27.4),
        chunk_bytes: 128 * MIB,
        live_chunks: 12,
        churn_every: 1,
        heap_ops: 1_500_000,
        pattern: HeapPattern::Zipf(0.8),
        heap_store_frac: 0.3,
        page_cache: Ring {
            bytes: 256 * MIB,
            ops: 32,
            pages_per_op: 64,
            touches_per_page: 32,
            store_frac: 0.0,
        },
        buffer_cache: NONE,
        slab: NONE,
        rounds: 125,
        cold: NO_COLD,
    },
    // X-Stream: the input graph streamed through the page cache (each
    // page read 4 times line by line), vertex state on a smaller heap.
    // Inferred: 1 GiB of page cache (wrapped about twice, so pages are
    // dropped), 16 MiB of reads per round, 512 MiB heap in 64 MiB chunks
    // with a chunk replaced every 4 rounds, uniform, 30% stores, 4 threads.
    HeteroSpec {
        name: "xstream",
        description: "X-Stream-like model (not X-Stream; HeteroOS Table 2): the input graph streamed through a 1 GiB page cache (16 MiB read per round, each page read 4 times), 512 MiB of vertex state on the heap",
        threads: 4,
        mpki: Some(24.8),
        chunk_bytes: 64 * MIB,
        live_chunks: 8,
        churn_every: 4,
        heap_ops: 400_000,
        pattern: HeapPattern::Uniform,
        heap_store_frac: 0.3,
        page_cache: Ring {
            bytes: GIB,
            ops: 64,
            pages_per_op: 64,
            touches_per_page: 256,
            store_frac: 0.0,
        },
        buffer_cache: NONE,
        slab: NONE,
        rounds: 140,
        cold: NO_COLD,
    },
    // Metis: map-reduce over a 5 GiB heap (5.4 GB in 5.5) that is hardly
    // ever freed. Inferred: 256 MiB chunks x 20, one replaced every 40
    // rounds (twice a run), uniform hash-table accesses, 40% stores, a
    // small page cache for its input, 4 threads.
    HeteroSpec {
        name: "metis",
        description: "Metis-like model (not Metis; HeteroOS Table 2): a 5 GiB heap of 256 MiB chunks seldom freed (one every 40 rounds), uniform hash-table accesses with 40% stores, a small page cache for its input",
        threads: 4,
        mpki: Some(14.9),
        chunk_bytes: 256 * MIB,
        live_chunks: 20,
        churn_every: 40,
        heap_ops: 2_000_000,
        pattern: HeapPattern::Uniform,
        heap_store_frac: 0.4,
        page_cache: Ring {
            bytes: 64 * MIB,
            ops: 4,
            pages_per_op: 64,
            touches_per_page: 16,
            store_frac: 0.0,
        },
        buffer_cache: NONE,
        slab: NONE,
        rounds: 100,
        cold: NO_COLD,
    },
    // Redis: a heap of values with Zipfian keys, 80% gets (20% stores),
    // and network buffers (skbuff) allocated, used and freed per request.
    // Inferred: 1 GiB heap in 32 MiB chunks, one replaced every 8 rounds,
    // Zipf 0.99, 512 two-page skbuffs per round from a 64 MiB slab, 1
    // thread (Redis serves from one).
    HeteroSpec {
        name: "redis",
        description: "Redis-like model (not Redis; HeteroOS Table 2): a 1 GiB heap with Zipfian keys and 80% gets, network buffers (skbuff) allocated, used and freed from the slab per request",
        threads: 1,
        mpki: Some(11.1),
        chunk_bytes: 32 * MIB,
        live_chunks: 32,
        churn_every: 8,
        heap_ops: 500_000,
        pattern: HeapPattern::Zipf(0.99),
        heap_store_frac: 0.2,
        page_cache: NONE,
        buffer_cache: NONE,
        slab: Ring {
            bytes: 64 * MIB,
            ops: 512,
            pages_per_op: 2,
            touches_per_page: 128,
            store_frac: 0.5,
        },
        rounds: 300,
        cold: NO_COLD,
    },
    // LevelDB: filesystem intensive; a memory-mapped database read
    // through the page cache, a log written through the buffer cache,
    // filesystem metadata in the slab, a small memtable heap; 480 MiB in
    // all (fits FastMem above 0.5 GiB). Inferred: 64 MiB memtable (4 x 16
    // MiB, one flushed every 2 rounds, Zipf 0.9, 30% stores), 64 reads of
    // 64 KiB per round (128 touches per page), 64 log writes of 64 KiB
    // (64 touches, 80% stores), 16 four-page metadata allocations, 2
    // threads.
    HeteroSpec {
        name: "leveldb",
        description: "LevelDB-like model (not LevelDB; HeteroOS Table 2): a memory-mapped DB read through a 256 MiB page cache, a log appended through a 128 MiB buffer cache, metadata slab, a 64 MiB memtable heap (480 MiB in all)",
        threads: 2,
        mpki: Some(4.7),
        chunk_bytes: 16 * MIB,
        live_chunks: 4,
        churn_every: 2,
        heap_ops: 300_000,
        pattern: HeapPattern::Zipf(0.9),
        heap_store_frac: 0.3,
        page_cache: Ring {
            bytes: 256 * MIB,
            ops: 64,
            pages_per_op: 16,
            touches_per_page: 128,
            store_frac: 0.0,
        },
        buffer_cache: Ring {
            bytes: 128 * MIB,
            ops: 64,
            pages_per_op: 16,
            touches_per_page: 64,
            store_frac: 0.8,
        },
        slab: Ring {
            bytes: 16 * MIB,
            ops: 16,
            pages_per_op: 4,
            touches_per_page: 32,
            store_frac: 0.3,
        },
        rounds: 400,
        cold: NO_COLD,
    },
    // Nginx: under 60 MB active; static files through the page cache,
    // responses through slab network buffers, per-request pools on a small
    // heap. Inferred: 16 MiB heap (4 x 4 MiB, one replaced per round,
    // uniform, 30% stores), 24 MiB page cache (32 reads of 32 KiB, 64
    // touches per page), 8 MiB slab (128 two-page buffers, 64 touches,
    // 50% stores), 1 thread: 52 MiB in all.
    HeteroSpec {
        name: "nginx",
        description: "Nginx-like model (not Nginx; HeteroOS Table 2): 52 MiB in all, static files read through a 24 MiB page cache, responses through slab network buffers, per-request pools on a 16 MiB heap",
        threads: 1,
        mpki: Some(2.1),
        chunk_bytes: 4 * MIB,
        live_chunks: 4,
        churn_every: 1,
        heap_ops: 60_000,
        pattern: HeapPattern::Uniform,
        heap_store_frac: 0.3,
        page_cache: Ring {
            bytes: 24 * MIB,
            ops: 32,
            pages_per_op: 8,
            touches_per_page: 64,
            store_frac: 0.0,
        },
        buffer_cache: NONE,
        slab: Ring {
            bytes: 8 * MIB,
            ops: 128,
            pages_per_op: 2,
            touches_per_page: 64,
            store_frac: 0.5,
        },
        rounds: 2000,
        cold: NO_COLD,
    },
];

/// Rounds of the microbenchmarks: 150 of [`MICRO_OPS`] accesses.
const MICRO_ROUNDS: u64 = 150;
/// Accesses per round of the microbenchmarks.
const MICRO_OPS: u64 = 1_000_000;

fn micro(name: &'static str, description: &'static str, ws: u64) -> HeteroSpec {
    HeteroSpec {
        name,
        description,
        threads: 1,
        mpki: None,
        chunk_bytes: ws.div_ceil(PAGE).max(1) * PAGE,
        live_chunks: 1,
        churn_every: 0,
        heap_ops: MICRO_OPS,
        pattern: HeapPattern::Uniform,
        heap_store_frac: 0.0,
        page_cache: NONE,
        buffer_cache: NONE,
        slab: NONE,
        rounds: MICRO_ROUNDS,
        cold: NO_COLD,
    }
}

/// The description of [`memlat`].
pub const MEMLAT_DESCRIPTION: &str = "memlat-like model (not memlat; HeteroOS Fig. 6): random loads over a heap-only working set (1 GiB; heteroos-memlat:WSGIB sets it), memory-bound";

/// The description of [`stream`].
pub const STREAM_DESCRIPTION: &str = "Stream-like model (not STREAM; HeteroOS Fig. 7): sequential sweeps with a third stores over a heap-only working set (1 GiB; heteroos-stream:WSGIB sets it), memory-bound";

/// memlat-like (Fig. 6): uniform random loads over a `ws`-byte heap, one
/// thread, memory-bound, 150 M accesses after the load phase.
pub fn memlat(ws: u64) -> HeteroSpec {
    micro("memlat", MEMLAT_DESCRIPTION, ws)
}

/// Stream-like (Fig. 7): sequential sweeps over a `ws`-byte heap, a third
/// of the accesses stores (triad's two loads and a store), one thread,
/// memory-bound, 150 M accesses after the load phase.
pub fn stream(ws: u64) -> HeteroSpec {
    HeteroSpec {
        pattern: HeapPattern::Sequential,
        heap_store_frac: 1.0 / 3.0,
        ..micro("stream", STREAM_DESCRIPTION, ws)
    }
}

/// The application model called `name`.
pub fn model(name: &str) -> Option<HeteroSpec> {
    MODELS.iter().find(|m| m.name == name).copied()
}

/// Section 5.5's VMs: (preset suffix, model, heap in all, description).
/// GraphChi's Twitter run "requires 6GB of total heap capacity with an
/// active working set size of just 1.5GB"; Metis "uses 8GB of the heap and
/// has a working set size of 5.4GB". Each is the model (its working set)
/// plus a cold heap up to the total, each cold page touched about once a
/// run (*inferred*: the paper says only that the rest is not active).
pub const SECTION_5_5: [(&str, &str, u64, &str); 2] = [
    (
        "graphchi-6g",
        "graphchi",
        6 * GIB,
        "GraphChi-like model with section 5.5's 6 GiB heap (not GraphChi; HeteroOS 5.5): heteroos-graphchi plus 4.1 GiB of cold heap, each cold page touched about once a run",
    ),
    (
        "metis-8g",
        "metis",
        8 * GIB,
        "Metis-like model with section 5.5's 8 GiB heap (not Metis; HeteroOS 5.5): heteroos-metis plus 2.7 GiB of cold heap, each cold page touched about once a run",
    ),
];

/// The section-5.5 variant `heteroos-NAME` (`graphchi-6g`, `metis-8g`).
pub fn section_5_5(name: &str) -> Option<HeteroSpec> {
    let &(_, base, total, description) = SECTION_5_5.iter().find(|v| v.0 == name)?;
    let m = model(base)?;
    let warm: u64 = m.bytes_by_type().iter().map(|t| t.1).sum();
    let bytes = total.saturating_sub(warm);
    Some(HeteroSpec {
        description,
        cold: ColdHeap {
            bytes,
            ops: (bytes / PAGE).div_ceil(m.rounds.max(1)),
        },
        ..m
    })
}

fn scale_bytes(b: u64, s: f64, unit: u64) -> u64 {
    if b == 0 {
        0
    } else {
        (((b as f64 * s) / unit as f64).round() as u64).max(1) * unit
    }
}

fn scale_count(n: u64, s: f64) -> u64 {
    if n == 0 {
        0
    } else {
        ((n as f64 * s).round() as u64).max(1)
    }
}

impl HeteroSpec {
    /// Every size and per-round count times `s` (rounds unchanged); rings
    /// stay whole I/Os.
    pub fn scaled(&self, s: f64) -> HeteroSpec {
        let ring = |r: Ring| Ring {
            bytes: scale_bytes(r.bytes, s, r.pages_per_op * PAGE),
            ops: scale_count(r.ops, s),
            ..r
        };
        HeteroSpec {
            chunk_bytes: scale_bytes(self.chunk_bytes, s, PAGE),
            heap_ops: scale_count(self.heap_ops, s),
            page_cache: ring(self.page_cache),
            buffer_cache: ring(self.buffer_cache),
            slab: ring(self.slab),
            cold: ColdHeap {
                bytes: scale_bytes(self.cold.bytes, s, PAGE),
                ops: scale_count(self.cold.ops, s),
            },
            ..*self
        }
    }

    /// Heap slots: the live chunks, and one more if chunks churn.
    pub fn heap_slots(&self) -> u64 {
        self.live_chunks + u64::from(self.churn_every > 0)
    }

    /// Bytes per page type: heap, page cache, buffer cache, slab.
    pub fn bytes_by_type(&self) -> [(PageType, u64); 4] {
        [
            (
                PageType::Anon,
                self.heap_slots() * self.chunk_bytes + self.cold.bytes,
            ),
            (PageType::FileCache, self.page_cache.bytes),
            (PageType::IoBuffer, self.buffer_cache.bytes),
            (PageType::Slab, self.slab.bytes),
        ]
    }

    /// Compute time per access (ns): `1000 / MPKI` instructions at
    /// [`NS_PER_INSTRUCTION`], 0 when memory-bound.
    pub fn compute_ns(&self) -> f64 {
        self.mpki.map_or(0.0, |m| 1000.0 / m * NS_PER_INSTRUCTION)
    }

    /// Accesses of the load phase.
    pub fn load_accesses(&self) -> u64 {
        (self.live_chunks * self.chunk_bytes + self.cold.bytes) / PAGE
    }

    /// Accesses after the load phase.
    pub fn run_accesses(&self) -> u64 {
        let churns = self.rounds.checked_div(self.churn_every).unwrap_or(0);
        churns * (self.chunk_bytes / PAGE)
            + self.rounds
                * (self.heap_ops
                    + self.page_cache.accesses_per_round()
                    + self.buffer_cache.accesses_per_round()
                    + self.slab.accesses_per_round()
                    + self.cold.ops)
    }

    fn validate(&self) -> Result<(), String> {
        let ok_ring = |r: &Ring| {
            r.pages_per_op > 0
                && (0.0..=1.0).contains(&r.store_frac)
                && (r.bytes == 0) == (r.ops == 0)
                && r.bytes.is_multiple_of(r.pages_per_op * PAGE)
        };
        if self.threads == 0 || self.threads > u16::MAX as usize {
            return Err("threads must be 1..=65535".into());
        }
        if self.live_chunks == 0 || self.chunk_bytes == 0 || !self.chunk_bytes.is_multiple_of(PAGE)
        {
            return Err("the heap needs live chunks of whole pages".into());
        }
        if !(0.0..=1.0).contains(&self.heap_store_frac) {
            return Err("store fractions must be in [0, 1]".into());
        }
        if !(ok_ring(&self.page_cache) && ok_ring(&self.buffer_cache) && ok_ring(&self.slab)) {
            return Err("a ring must be whole I/Os and have I/Os iff it has bytes".into());
        }
        if !self.cold.bytes.is_multiple_of(PAGE) || (self.cold.bytes == 0 && self.cold.ops > 0) {
            return Err("a cold heap is whole pages, and touched only if it has bytes".into());
        }
        Ok(())
    }
}

/// The regions of `spec` (heap, then the rings it has, each with its page
/// type) laid out as [`crate::lay_out`] does, and its stream.
pub fn build(
    spec: &HeteroSpec,
    thp: bool,
    seed: u64,
) -> Result<(Vec<RegionInfo>, HeteroStream), WorkloadError> {
    spec.validate()
        .map_err(|e| WorkloadError::Invalid(format!("heteroos-{}: {e}", spec.name)))?;
    let names = ["heap", "page-cache", "buffer-cache", "slab"];
    let mut by_type = spec.bytes_by_type();
    by_type[0].1 -= spec.cold.bytes;
    // The cold heap last, so that the other regions lie where they would
    // without it.
    let typed: Vec<(String, u64, PageType)> = by_type
        .iter()
        .zip(names)
        .chain([(&(PageType::Anon, spec.cold.bytes), "cold-heap")])
        .filter(|((_, b), _)| *b > 0)
        .map(|(&(t, b), n)| (n.to_string(), b, t))
        .collect();
    let sizes: Vec<(String, u64)> = typed.iter().map(|t| (t.0.clone(), t.1)).collect();
    let mut regions = crate::lay_out(&sizes, thp);
    for (r, t) in regions.iter_mut().zip(&typed) {
        r.page_type = t.2;
    }
    let base = |n: &str| regions.iter().find(|r| r.name == n).map_or(0, |r| r.start);
    let bases = [
        base("heap"),
        base("page-cache"),
        base("buffer-cache"),
        base("slab"),
        base("cold-heap"),
    ];
    Ok((regions, HeteroStream::new(*spec, bases, seed)))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Load,
    Churn,
    Heap,
    PageCache,
    BufferCache,
    Slab,
    Cold,
    Done,
}

/// The generator of a [`HeteroSpec`]: accesses and memory events, a step
/// at a time into reused buffers.
pub struct HeteroStream {
    spec: HeteroSpec,
    rng: Rng,
    zipf: Option<Zipf>,
    /// Multiplier of the page permutation (coprime with the live pages).
    perm: u64,
    /// Pages per chunk.
    ppc: u64,
    /// Bases of heap, page cache, buffer cache, slab, cold heap.
    bases: [u64; 5],
    /// Cold-heap pages stored so far in the load phase.
    cold_loaded: u64,
    /// Live chunks' slots, oldest first.
    live: VecDeque<u64>,
    /// Free slots, in the order they were freed.
    free: VecDeque<u64>,
    /// Ring cursors (bytes) and whether each ring has wrapped.
    cursor: [u64; 3],
    wrapped: [bool; 3],
    /// Sequential heap cursor (lines).
    seq: u64,
    round: u64,
    phase: Phase,
    left: u64,
    core: usize,
    acc: Vec<Access>,
    at: usize,
    /// (index in `acc` of the access it precedes, event).
    evs: Vec<(usize, MemEvent)>,
    next_ev: usize,
    scratch: Vec<(usize, MemEvent)>,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl HeteroStream {
    fn new(spec: HeteroSpec, bases: [u64; 5], seed: u64) -> Self {
        let ppc = spec.chunk_bytes / PAGE;
        let n = spec.live_chunks * ppc;
        let zipf = match spec.pattern {
            HeapPattern::Zipf(s) => Some(Zipf::new(n, s)),
            _ => None,
        };
        let mut perm = (0x9E37_79B9_7F4A_7C15 % n.max(2)) | 1;
        while gcd(perm, n) != 1 {
            perm += 2;
        }
        HeteroStream {
            spec,
            rng: Rng::derive(seed, "heteroos"),
            zipf,
            perm,
            ppc,
            bases,
            cold_loaded: 0,
            live: VecDeque::new(),
            free: (0..spec.heap_slots()).collect(),
            cursor: [0; 3],
            wrapped: [false; 3],
            seq: 0,
            round: 0,
            phase: Phase::Load,
            left: 0,
            core: 0,
            acc: Vec::with_capacity(STEP as usize),
            at: 0,
            evs: Vec::new(),
            next_ev: 0,
            scratch: Vec::new(),
        }
    }

    /// The spec it generates.
    pub fn spec(&self) -> &HeteroSpec {
        &self.spec
    }

    #[inline]
    fn push(&mut self, va: u64, write: bool) {
        self.acc.push(Access {
            va,
            asid: 0,
            core: self.core as u16,
            write,
        });
        self.core = (self.core + 1) % self.spec.threads;
    }

    fn event(&mut self, ev: MemEvent) {
        self.evs.push((self.acc.len(), ev));
    }

    /// One store per page of a free slot, which becomes the newest live chunk.
    fn allocate_chunk(&mut self) {
        let slot = self.free.pop_front().expect("a free heap slot");
        let base = self.bases[0] + slot * self.spec.chunk_bytes;
        for p in 0..self.ppc {
            self.push(base + p * PAGE, true);
        }
        self.live.push_back(slot);
    }

    fn heap_work(&mut self, n: u64) {
        let live_pages = self.live.len() as u64 * self.ppc;
        for _ in 0..n {
            let (page, line) = match self.spec.pattern {
                HeapPattern::Sequential => {
                    let l = self.seq;
                    self.seq = (self.seq + 1) % (live_pages * LINES);
                    (l / LINES, l % LINES)
                }
                HeapPattern::Uniform => (self.rng.below(live_pages), self.rng.below(LINES)),
                HeapPattern::Zipf(_) => {
                    let r = self.zipf.as_ref().expect("zipf").sample(&mut self.rng);
                    let p = (r as u128 * self.perm as u128 % live_pages as u128) as u64;
                    (p, self.rng.below(LINES))
                }
            };
            let slot = self.live[(page / self.ppc) as usize];
            let va =
                self.bases[0] + slot * self.spec.chunk_bytes + (page % self.ppc) * PAGE + line * 64;
            let write = self.rng.chance(self.spec.heap_store_frac);
            self.push(va, write);
        }
    }

    /// `n` uniform accesses over the cold heap.
    fn cold_work(&mut self, n: u64) {
        let pages = self.spec.cold.bytes / PAGE;
        for _ in 0..n {
            let va = self.bases[4] + self.rng.below(pages) * PAGE + self.rng.below(LINES) * 64;
            let write = self.rng.chance(self.spec.heap_store_frac);
            self.push(va, write);
        }
    }

    /// One I/O (or slab allocation) on ring `i` (0 page cache, 1 buffer
    /// cache, 2 slab).
    fn ring_op(&mut self, i: usize) {
        let r = [self.spec.page_cache, self.spec.buffer_cache, self.spec.slab][i];
        let len = r.pages_per_op * PAGE;
        let start = self.bases[i + 1] + self.cursor[i];
        let range = (Asid(0), start, len);
        if i == 0 && self.wrapped[0] {
            self.event(MemEvent::Release {
                asid: range.0,
                start,
                len,
            });
        }
        for p in 0..r.pages_per_op {
            self.push(start + p * PAGE, true);
        }
        let lines = r.pages_per_op * LINES;
        for t in 0..r.pages_per_op * r.touches_per_page {
            let write = self.rng.chance(r.store_frac);
            self.push(start + (t % lines) * 64, write);
        }
        self.event(if i == 2 {
            MemEvent::Release {
                asid: range.0,
                start,
                len,
            }
        } else {
            MemEvent::IoDone {
                asid: range.0,
                start,
                len,
            }
        });
        self.cursor[i] += len;
        if self.cursor[i] >= r.bytes {
            self.cursor[i] = 0;
            self.wrapped[i] = true;
        }
    }

    fn begin_round(&mut self) {
        self.phase = if self.round < self.spec.rounds {
            Phase::Churn
        } else {
            Phase::Done
        };
    }

    /// Generates the next step into the buffers; false at the end.
    fn generate(&mut self) -> bool {
        self.acc.clear();
        self.evs.clear();
        self.at = 0;
        self.next_ev = 0;
        loop {
            match self.phase {
                Phase::Load => {
                    if (self.live.len() as u64) < self.spec.live_chunks {
                        self.allocate_chunk();
                        return true;
                    }
                    let cold_pages = self.spec.cold.bytes / PAGE;
                    if self.cold_loaded < cold_pages {
                        let n = (cold_pages - self.cold_loaded).min(STEP);
                        for p in self.cold_loaded..self.cold_loaded + n {
                            self.push(self.bases[4] + p * PAGE, true);
                        }
                        self.cold_loaded += n;
                        return true;
                    }
                    self.begin_round();
                }
                Phase::Churn => {
                    self.phase = Phase::Heap;
                    self.left = self.spec.heap_ops;
                    let every = self.spec.churn_every;
                    if every > 0 && (self.round + 1).is_multiple_of(every) {
                        self.allocate_chunk();
                        let old = self.live.pop_front().expect("a live chunk");
                        self.event(MemEvent::Release {
                            asid: Asid(0),
                            start: self.bases[0] + old * self.spec.chunk_bytes,
                            len: self.spec.chunk_bytes,
                        });
                        self.free.push_back(old);
                        return true;
                    }
                }
                Phase::Heap => {
                    if self.left == 0 {
                        self.phase = Phase::PageCache;
                        self.left = self.spec.page_cache.ops;
                        continue;
                    }
                    let n = self.left.min(STEP);
                    self.heap_work(n);
                    self.left -= n;
                    return true;
                }
                Phase::PageCache | Phase::BufferCache | Phase::Slab => {
                    let i = match self.phase {
                        Phase::PageCache => 0,
                        Phase::BufferCache => 1,
                        _ => 2,
                    };
                    if self.left == 0 {
                        match i {
                            0 => {
                                self.phase = Phase::BufferCache;
                                self.left = self.spec.buffer_cache.ops;
                            }
                            1 => {
                                self.phase = Phase::Slab;
                                self.left = self.spec.slab.ops;
                            }
                            _ => {
                                self.phase = Phase::Cold;
                                self.left = self.spec.cold.ops;
                            }
                        }
                        continue;
                    }
                    self.ring_op(i);
                    self.left -= 1;
                    return true;
                }
                Phase::Cold => {
                    if self.left == 0 {
                        self.round += 1;
                        self.begin_round();
                        continue;
                    }
                    let n = self.left.min(STEP);
                    self.cold_work(n);
                    self.left -= n;
                    return true;
                }
                Phase::Done => return false,
            }
        }
    }

    /// Up to `buf.len()` accesses, and the events before and between them
    /// pushed onto `out` with the index in `buf` of the access each
    /// precedes (see [`crate::Stream::fill_with_events`]); 0 and no event
    /// at the end.
    pub fn fill_with_events(
        &mut self,
        buf: &mut [Access],
        out: &mut Vec<(usize, MemEvent)>,
    ) -> usize {
        let mut n = 0;
        loop {
            while let Some(&(i, ev)) = self.evs.get(self.next_ev) {
                if i > self.at {
                    break;
                }
                out.push((n, ev));
                self.next_ev += 1;
            }
            if n == buf.len() {
                break;
            }
            if self.at == self.acc.len() {
                if !self.generate() {
                    break;
                }
                continue;
            }
            let until = self.evs.get(self.next_ev).map_or(self.acc.len(), |e| e.0);
            let take = (until - self.at).min(buf.len() - n);
            buf[n..n + take].copy_from_slice(&self.acc[self.at..self.at + take]);
            n += take;
            self.at += take;
        }
        n
    }

    /// [`HeteroStream::fill_with_events`] dropping the events.
    pub fn fill(&mut self, buf: &mut [Access]) -> usize {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        let n = self.fill_with_events(buf, &mut scratch);
        self.scratch = scratch;
        n
    }
}

/// The model of `heteroos-NAME` (a preset name),
/// `heteroos:NAME:SCALE`, `heteroos-memlat:WSGIB` or
/// `heteroos-stream:WSGIB`; `None` when `spec` is none of them.
pub fn parameterized(spec: &str) -> Option<Result<HeteroSpec, WorkloadError>> {
    let bad = |why: String| {
        Some(Err(WorkloadError::Invalid(format!(
            "workload {spec:?}: {why}"
        ))))
    };
    let gib = |s: &str| match s.parse::<f64>() {
        Ok(g) if (0.01..=6.0).contains(&g) => Ok((g * GIB as f64) as u64),
        _ => Err(format!("working set must be 0.01 to 6 GiB, got {s:?}")),
    };
    if let Some(rest) = spec.strip_prefix("heteroos-memlat:") {
        return Some(
            gib(rest)
                .map(memlat)
                .map_err(|e| WorkloadError::Invalid(format!("workload {spec:?}: {e}"))),
        );
    }
    if let Some(rest) = spec.strip_prefix("heteroos-stream:") {
        return Some(
            gib(rest)
                .map(stream)
                .map_err(|e| WorkloadError::Invalid(format!("workload {spec:?}: {e}"))),
        );
    }
    match spec {
        "heteroos-memlat" => return Some(Ok(memlat(GIB))),
        "heteroos-stream" => return Some(Ok(stream(GIB))),
        _ => {}
    }
    if let Some(m) = spec.strip_prefix("heteroos-").and_then(model) {
        return Some(Ok(m));
    }
    if let Some(m) = spec.strip_prefix("heteroos-").and_then(section_5_5) {
        return Some(Ok(m));
    }
    let rest = spec.strip_prefix("heteroos:")?;
    let Some((name, scale)) = rest.split_once(':') else {
        return bad("expected heteroos:NAME:SCALE, e.g. heteroos:redis:0.5".into());
    };
    let Some(m) = model(name).or_else(|| section_5_5(name)) else {
        let names: Vec<&str> = MODELS
            .iter()
            .map(|m| m.name)
            .chain(SECTION_5_5.iter().map(|v| v.0))
            .collect();
        return bad(format!(
            "model must be one of {}, got {name:?}",
            names.join(", ")
        ));
    };
    match scale.parse::<f64>() {
        Ok(s) if (0.001..=4.0).contains(&s) => Some(Ok(m.scaled(s))),
        _ => bad(format!("scale must be 0.001 to 4, got {scale:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIB: u64 = 1 << 10;

    /// Every access and event of `spec` at `seed` through
    /// [`crate::Stream::fill_with_events`], events with the global index of
    /// the access they precede, handed out in small batches.
    fn run(spec: &HeteroSpec, seed: u64) -> (Vec<RegionInfo>, Vec<Access>, Vec<(u64, MemEvent)>) {
        let (regions, s) = build(spec, false, seed).unwrap();
        let mut s = crate::Stream::Hetero(Box::new(s));
        let mut buf = vec![Access::default(); 1000];
        let mut out = Vec::new();
        let (mut acc, mut evs) = (Vec::new(), Vec::new());
        loop {
            let n = s.fill_with_events(&mut buf, &mut out).unwrap();
            for &(i, ev) in &out {
                assert!(i <= n);
                evs.push((acc.len() as u64 + i as u64, ev));
            }
            if n == 0 {
                assert!(out.is_empty());
                break;
            }
            acc.extend_from_slice(&buf[..n]);
        }
        (regions, acc, evs)
    }

    fn small(m: &HeteroSpec) -> HeteroSpec {
        HeteroSpec {
            rounds: 6,
            ..m.scaled(0.01)
        }
    }

    fn region_of(regions: &[RegionInfo], va: u64) -> &RegionInfo {
        regions
            .iter()
            .find(|r| r.start <= va && va < r.end())
            .expect("inside a region")
    }

    /// A spec whose rings wrap within a few rounds and whose heap churns.
    fn wrapping(m: &HeteroSpec) -> HeteroSpec {
        let ring = |r: Ring| Ring {
            bytes: if r.bytes == 0 {
                0
            } else {
                4 * r.pages_per_op * PAGE
            },
            ops: r.ops.min(3),
            touches_per_page: r.touches_per_page.min(4),
            ..r
        };
        HeteroSpec {
            chunk_bytes: 64 * KIB,
            heap_ops: 500,
            churn_every: m.churn_every.min(2),
            page_cache: ring(m.page_cache),
            buffer_cache: ring(m.buffer_cache),
            slab: ring(m.slab),
            rounds: 8,
            ..*m
        }
    }

    #[test]
    fn counts_footprints_and_descriptions_are_as_documented() {
        for m in MODELS.iter().chain([&memlat(GIB), &stream(GIB)]) {
            assert!(m.description.contains("-like model (not "), "{}", m.name);
            let bytes: u64 = m.bytes_by_type().iter().map(|t| t.1).sum();
            assert!(bytes <= 6 * GIB, "{}: {bytes}", m.name);
            let total = m.load_accesses() + m.run_accesses();
            assert!(
                (150_000_000..=300_000_000).contains(&total),
                "{}: {total}",
                m.name
            );
            let s = small(m);
            let (regions, acc, _) = run(&s, 1);
            assert_eq!(
                acc.len() as u64,
                s.load_accesses() + s.run_accesses(),
                "{}",
                m.name
            );
            assert_eq!(
                regions.iter().map(|r| r.len).sum::<u64>(),
                s.bytes_by_type().iter().map(|t| t.1).sum::<u64>()
            );
            assert!(acc
                .iter()
                .all(|a| a.asid == 0 && (a.core as usize) < m.threads));
        }
    }

    #[test]
    fn mpki_order_of_table_4_holds_in_compute_time() {
        let c = |n| model(n).unwrap().compute_ns();
        let order = ["graphchi", "xstream", "metis", "redis", "leveldb", "nginx"];
        for w in order.windows(2) {
            assert!(c(w[0]) < c(w[1]), "{w:?}");
        }
        assert_eq!(memlat(GIB).compute_ns(), 0.0);
    }

    #[test]
    fn events_are_in_order_on_regions_of_the_right_type_after_touches() {
        for m in &MODELS {
            let s = wrapping(m);
            let (regions, acc, evs) = run(&s, 7);
            assert!(evs.windows(2).all(|w| w[0].0 <= w[1].0), "{}", m.name);
            let mut kinds = [0u32; 2];
            for &(at, ev) in &evs {
                ev.check().unwrap();
                let (asid, start, len) = ev.range();
                assert_eq!(asid, Asid(0));
                let r = region_of(&regions, start);
                assert!(start + len <= r.end(), "{}: {ev:?}", m.name);
                match ev {
                    MemEvent::IoDone { .. } => {
                        kinds[0] += 1;
                        assert!(
                            matches!(r.page_type, PageType::FileCache | PageType::IoBuffer),
                            "{}: {ev:?} on {}",
                            m.name,
                            r.name
                        );
                    }
                    MemEvent::Release { .. } => {
                        kinds[1] += 1;
                        assert!(
                            matches!(
                                r.page_type,
                                PageType::Anon | PageType::FileCache | PageType::Slab
                            ),
                            "{}: {ev:?} on {}",
                            m.name,
                            r.name
                        );
                    }
                }
                let inside = |a: &Access| start <= a.va && a.va < start + len;
                // Every page of a released range was touched before.
                if matches!(ev, MemEvent::Release { .. }) {
                    for p in (start..start + len).step_by(PAGE as usize) {
                        assert!(
                            acc[..at as usize].iter().any(|a| a.va & !(PAGE - 1) == p),
                            "{}: {p:#x} released untouched",
                            m.name
                        );
                    }
                    // The next access to the range is a store.
                    if let Some(a) = acc[at as usize..].iter().find(|a| inside(a)) {
                        assert!(a.write, "{}: a load after {ev:?}", m.name);
                    }
                }
            }
            assert!(kinds[1] > 0, "{}: no release", m.name);
            let io = m.page_cache.bytes + m.buffer_cache.bytes > 0;
            assert_eq!(kinds[0] > 0, io, "{}", m.name);
        }
    }

    /// Share of accesses on each page type: Anon, FileCache, IoBuffer, Slab.
    fn shares(m: &HeteroSpec) -> [f64; 4] {
        let (regions, acc, _) = run(&small(m), 3);
        let mut c = [0u64; 4];
        for a in &acc {
            let i = match region_of(&regions, a.va).page_type {
                PageType::Anon => 0,
                PageType::FileCache => 1,
                PageType::IoBuffer => 2,
                _ => 3,
            };
            c[i] += 1;
        }
        c.map(|x| x as f64 / acc.len() as f64)
    }

    #[test]
    fn page_type_shares_order_as_the_paper_says() {
        let s = |n| shares(&model(n).unwrap());
        let (graphchi, xstream, metis, leveldb, redis, nginx) = (
            s("graphchi"),
            s("xstream"),
            s("metis"),
            s("leveldb"),
            s("redis"),
            s("nginx"),
        );
        // Slab (network buffers): Redis above Metis and GraphChi.
        assert!(redis[3] > 0.1 && metis[3] == 0.0 && graphchi[3] == 0.0);
        // Page cache: X-Stream is page-cache intensive, GraphChi heap-heavy.
        assert!(xstream[1] > 0.5 && xstream[1] > graphchi[1] && graphchi[0] > 0.8);
        // Metis: heap almost only.
        assert!(metis[0] > 0.95);
        // LevelDB: the only buffer-cache user, and filesystem-heavy.
        assert!(leveldb[2] > 0.05 && leveldb[1] + leveldb[2] > 0.3);
        assert!([graphchi, xstream, metis, redis, nginx]
            .iter()
            .all(|s| s[2] == 0.0));
        // Nginx: page cache and slab besides its heap.
        assert!(nginx[1] > 0.1 && nginx[3] > 0.1);
    }

    #[test]
    fn redis_makes_80_percent_gets_on_its_heap() {
        let (regions, acc, _) = run(&small(&model("redis").unwrap()), 5);
        let heap: Vec<&Access> = acc
            .iter()
            .filter(|a| region_of(&regions, a.va).page_type == PageType::Anon)
            .collect();
        let loads = heap.iter().filter(|a| !a.write).count() as f64 / heap.len() as f64;
        // 80% gets; the load phase's stores and churn pull it a little down.
        assert!((0.72..0.82).contains(&loads), "{loads}");
    }

    #[test]
    fn the_same_seed_gives_the_same_stream() {
        let m = wrapping(&model("leveldb").unwrap());
        let a = run(&m, 11);
        let b = run(&m, 11);
        assert_eq!(a.1, b.1);
        assert_eq!(a.2, b.2);
        let c = run(&m, 12);
        assert_ne!(a.1, c.1);
    }

    #[test]
    fn microbenchmarks_touch_only_the_heap() {
        for m in [memlat(4 * MIB), stream(4 * MIB)] {
            let m = HeteroSpec {
                rounds: 3,
                heap_ops: 50_000,
                ..m
            };
            let (regions, acc, evs) = run(&m, 2);
            assert_eq!(regions.len(), 1);
            assert_eq!(regions[0].page_type, PageType::Anon);
            assert!(evs.is_empty());
            assert!(acc.iter().all(|a| region_of(&regions, a.va).name == "heap"));
            let load = m.load_accesses() as usize;
            let stores = acc[load..].iter().filter(|a| a.write).count() as f64;
            let share = stores / (acc.len() - load) as f64;
            if m.name == "memlat" {
                assert_eq!(share, 0.0);
            } else {
                assert!((0.3..0.37).contains(&share), "{share}");
                // Sequential: each access the next line, wrapping.
                assert!(acc[load..load + 100]
                    .windows(2)
                    .all(|w| w[1].va == w[0].va + 64));
            }
        }
    }

    #[test]
    fn names_parse_and_bad_ones_say_why() {
        assert_eq!(parameterized("heteroos-redis").unwrap().unwrap(), MODELS[3]);
        let m = parameterized("heteroos-memlat:0.25").unwrap().unwrap();
        assert_eq!(m.chunk_bytes, GIB / 4);
        let s = parameterized("heteroos:metis:0.5").unwrap().unwrap();
        assert_eq!(s.chunk_bytes, 128 * MIB);
        assert_eq!(s.heap_ops, 1_000_000);
        assert!(parameterized("redis").is_none());
        for bad in [
            "heteroos:metis",
            "heteroos:gcc:1",
            "heteroos:metis:0",
            "heteroos:metis:x",
            "heteroos-stream:9",
            "heteroos-memlat:x",
        ] {
            let e = parameterized(bad).unwrap().unwrap_err().to_string();
            assert!(e.contains(bad), "{e}");
        }
    }

    /// Section 5.5's variants: the paper's heaps in all, the cold heap a
    /// region of its own after the others, stored once in the load phase
    /// and then touched about once per page a run, uniformly.
    #[test]
    fn section_5_5_models_add_a_cold_heap_to_the_working_set() {
        for (name, base, total, _) in SECTION_5_5 {
            let m = section_5_5(name).unwrap();
            assert_eq!(m.bytes_by_type().iter().map(|t| t.1).sum::<u64>(), total);
            let warm = model(base).unwrap();
            let (warm_regions, _) = build(&warm, false, 1).unwrap();
            let (regions, _) = build(&m, false, 1).unwrap();
            assert_eq!(&regions[..warm_regions.len()], &warm_regions[..], "{name}");
            let cold = regions.last().unwrap();
            assert_eq!(
                (cold.name.as_str(), cold.page_type),
                ("cold-heap", PageType::Anon)
            );
            let pages = m.cold.bytes / PAGE;
            assert!(m.cold.ops * m.rounds >= pages && m.cold.ops * m.rounds < pages + m.rounds);
            // A small copy: the cold accesses land in the region, and
            // every cold page is stored once before the rounds.
            let s = HeteroSpec {
                rounds: 3,
                ..m.scaled(0.01)
            };
            let (regions, acc, _) = run(&s, 7);
            let cold = regions.last().unwrap();
            let in_cold: Vec<&Access> = acc
                .iter()
                .filter(|a| cold.start <= a.va && a.va < cold.end())
                .collect();
            let cold_pages = s.cold.bytes / PAGE;
            assert_eq!(in_cold.len() as u64, cold_pages + 3 * s.cold.ops, "{name}");
            assert!(in_cold[..cold_pages as usize].iter().all(|a| a.write));
            assert_eq!(acc.len() as u64, s.load_accesses() + s.run_accesses());
        }
        assert!(section_5_5("graphchi").is_none());
        assert!(parameterized("heteroos-metis-8g").unwrap().is_ok());
    }
}
