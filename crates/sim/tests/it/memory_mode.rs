//! Memory Mode on the exact machine against a reference: a direct-mapped,
//! write-back, write-allocate cache of 64-byte lines written here from the
//! specification (and, with an LLC, a set-associative LRU write-back LLC in
//! front of it). A read that leaves the LLC reads the DRAM cache; a dirty
//! LLC victim of a slow-tier page is written into it; a dirty line it evicts
//! is written back to the slow tier. Fast-tier pages bypass it.

use proptest::prelude::*;
use std::collections::HashMap;
use thermocline_backend::{Backend, MemPolicy, MemoryMode};
use thermocline_model::{tiers, LlcConfig, MachineConfig};
use thermocline_sim::Machine;
use thermocline_vocab::{Access, Asid, PageType, RegionInfo, TierId};

const SLOW: u64 = 1 << 30;
const FAST: u64 = 2 << 30;
/// 64 KiB of slow-tier pages (address space 0), 16 KiB of fast-tier ones
/// (address space 1).
const SLOW_LINES: u64 = 1024;
const FAST_LINES: u64 = 256;
/// 16 KiB of DRAM: a 256-line cache, a quarter of the slow footprint.
const DRAM_BYTES: u64 = 16 << 10;
/// The LLC, when on: 4 KiB, 4-way (16 sets).
const LLC_BYTES: u64 = 4 << 10;
const LLC_WAYS: usize = 4;

/// The reference DRAM cache: per set, the line it holds and whether dirty.
struct RefCache {
    sets: Vec<Option<(u64, bool)>>,
    hits: u64,
    misses: u64,
    /// Dirty lines evicted.
    writebacks: u64,
    /// Reads that missed: each is a read of the slow tier.
    read_misses: u64,
}

impl RefCache {
    fn new(lines: u64) -> Self {
        RefCache {
            sets: vec![None; lines as usize],
            hits: 0,
            misses: 0,
            writebacks: 0,
            read_misses: 0,
        }
    }

    fn access(&mut self, line: u64, write: bool) {
        let n = self.sets.len() as u64;
        let set = &mut self.sets[(line % n) as usize];
        match set {
            Some((l, dirty)) if *l == line => {
                self.hits += 1;
                *dirty |= write;
            }
            _ => {
                self.misses += 1;
                if let Some((_, true)) = set {
                    self.writebacks += 1;
                }
                if !write {
                    self.read_misses += 1;
                }
                *set = Some((line, write));
            }
        }
    }
}

/// The reference LLC: per set, (line, dirty), most recent first.
struct RefLlc {
    sets: Vec<Vec<(u64, bool)>>,
    ways: usize,
}

impl RefLlc {
    fn new(bytes: u64, ways: usize) -> Self {
        let sets = (bytes / 64) as usize / ways;
        RefLlc {
            sets: vec![Vec::new(); sets],
            ways,
        }
    }

    /// `None` on a hit; on a miss, `Some(the line evicted dirty, if any)`.
    fn access(&mut self, line: u64, write: bool) -> Option<Option<u64>> {
        let n = self.sets.len() as u64;
        let set = &mut self.sets[(line % n) as usize];
        if let Some(i) = set.iter().position(|&(l, _)| l == line) {
            let (l, dirty) = set.remove(i);
            set.insert(0, (l, dirty || write));
            return None;
        }
        set.insert(0, (line, write));
        let victim = (set.len() > self.ways).then(|| set.pop().unwrap());
        Some(victim.and_then(|(l, dirty)| dirty.then_some(l)))
    }
}

fn machine(llc: bool) -> Machine {
    let mut t = vec![tiers::dram(), tiers::dcpmm()];
    t[0].capacity_bytes = DRAM_BYTES;
    t[1].capacity_bytes = 1 << 20;
    let mut cfg = MachineConfig::with_tiers(t);
    cfg.llc = LlcConfig {
        bytes: if llc { LLC_BYTES } else { 0 },
        ways: LLC_WAYS,
        ..Default::default()
    };
    let region = |asid, start, lines: u64| RegionInfo {
        asid: Asid(asid),
        name: "r".into(),
        start,
        len: lines * 64,
        page_type: PageType::Anon,
        thp: false,
    };
    let mut m = Machine::new(
        cfg,
        vec![region(0, SLOW, SLOW_LINES), region(1, FAST, FAST_LINES)],
    )
    .unwrap();
    m.set_policy(Asid(0), MemPolicy::Bind { tier: TierId(1) })
        .unwrap();
    m.set_policy(Asid(1), MemPolicy::Bind { tier: TierId(0) })
        .unwrap();
    m.set_memory_mode(true).unwrap();
    m
}

/// (fast page?, line, store) as an access.
fn access((fast, line, write): (bool, u64, bool)) -> Access {
    let (asid, va) = if fast {
        (1, FAST + (line % FAST_LINES) * 64)
    } else {
        (0, SLOW + line * 64)
    };
    Access {
        va,
        asid,
        core: 0,
        write,
    }
}

/// Runs `stream` on the machine and through the reference; checks that the
/// DRAM cache's hits, misses and write-backs, and the slow tier's traffic,
/// are the reference's. Returns the reference's write-backs.
fn check(stream: &[(bool, u64, bool)], llc: bool) -> Result<u64, TestCaseError> {
    let mut m = machine(llc);
    let accesses: Vec<Access> = stream.iter().copied().map(access).collect();
    for a in &accesses {
        m.access(*a);
    }
    m.settle();
    // Pages do not move: their frames now are their frames throughout.
    let mut tier_of = HashMap::new();
    let mut pline = Vec::new();
    for a in &accesses {
        let t = m.translate(Asid(a.asid), a.va).unwrap().unwrap();
        prop_assert_eq!(t.tier, TierId(u8::from(a.asid == 0)));
        tier_of.insert(t.frame, t.tier);
        pline.push(((t.frame << 12) | (a.va & 0xfff)) >> 6);
    }
    let slow = |line: u64| tier_of[&(line >> 6)] != TierId(0);
    let mut cache = RefCache::new(DRAM_BYTES / 64);
    let mut llc_ref = RefLlc::new(LLC_BYTES, LLC_WAYS);
    for (a, &line) in accesses.iter().zip(&pline) {
        if !llc {
            if slow(line) {
                cache.access(line, a.write);
            }
            continue;
        }
        if let Some(victim) = llc_ref.access(line, a.write) {
            // The victim's write-back first, then the miss's read.
            if let Some(v) = victim.filter(|&v| slow(v)) {
                cache.access(v, true);
            }
            if slow(line) {
                cache.access(line, false);
            }
        }
    }
    let got = m.dram_cache_counts().expect("Memory Mode is on");
    prop_assert_eq!(
        (got.hits, got.misses, got.writebacks),
        (cache.hits, cache.misses, cache.writebacks)
    );
    // The slow tier reads what missed (a store's line too, without an LLC)
    // and is written only by the cache's write-backs.
    let slow_tier = m.tier_counters(TierId(1)).unwrap();
    let reads = if llc { cache.read_misses } else { cache.misses };
    prop_assert_eq!(
        (slow_tier.reads, slow_tier.writes),
        (reads, cache.writebacks)
    );
    Ok(cache.writebacks)
}

fn stream() -> impl Strategy<Value = Vec<(bool, u64, bool)>> {
    proptest::collection::vec(
        (prop::bool::weighted(0.2), 0..SLOW_LINES, any::<bool>()),
        0..3000,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Random loads and stores over slow- and fast-tier lines, with and
    /// without an LLC: the machine's Memory Mode is the reference cache.
    #[test]
    fn memory_mode_is_a_direct_mapped_write_back_cache(s in stream(), llc in any::<bool>()) {
        check(&s, llc)?;
    }
}

/// Stores swept twice over the slow footprint (four times the cache) with
/// an LLC: every store reaches the DRAM cache through an LLC write-back,
/// and the cache writes the dirty lines back to the slow tier when the
/// sweep comes round to their sets.
#[test]
fn stores_behind_an_llc_dirty_the_dram_cache() {
    let sweep: Vec<_> = (0..2)
        .flat_map(|_| (0..SLOW_LINES).map(|l| (false, l, true)))
        .collect();
    let writebacks = check(&sweep, true).unwrap();
    // Each line but the last cache-full is evicted dirty at least once.
    assert!(
        writebacks >= 2 * SLOW_LINES - DRAM_BYTES / 64 - LLC_BYTES / 64,
        "{writebacks}"
    );
}
