//! `thermocline torture`: moves random pages of a process between every
//! tier (NUMA nodes and the compressed tier) as fast as the kernel lets it,
//! through the same [`LinuxBackend`] the daemon uses. Run it against
//! `thermocline masim`, whose data checks itself, to show that the live
//! backend loses and corrupts nothing (the live tests do).

use crate::backend::{LinuxBackend, LiveOptions, TargetSpec};
use crate::LiveError;
use thermocline_backend::Backend;
use thermocline_vocab::{Rng, TierId};

/// Rounds in a row without a page to move before a run gives up.
const MAX_IDLE_ROUNDS: u32 = 100;

/// What a torture run did.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Tortured {
    /// Pages moved between nodes (a THP moved whole counts once).
    pub migrations: u64,
    /// Bytes moved between nodes (a THP's 2 MiB, a page's 4 KiB).
    pub migrated_bytes: u64,
    /// Pages paged out to swap.
    pub pageouts: u64,
    /// Pages the kernel refused to move (busy, no memory, ...).
    pub failed: u64,
    /// Of those, busy (EBUSY, EAGAIN: the page was in use, e.g. being
    /// written).
    pub busy: u64,
    /// Of those, for lack of memory on the destination.
    pub nomem: u64,
    /// Rounds done.
    pub rounds: u64,
}

/// Moves batches of `batch` random resident pages of `pid` to a random
/// other tier until `moves` pages have moved or the process exits.
/// `page_out`: the compressed tier is one of the tiers (else only NUMA
/// nodes: moves that never split a THP).
pub fn torture(
    pid: i32,
    moves: u64,
    batch: usize,
    seed: u64,
    page_out: bool,
) -> Result<Tortured, LiveError> {
    let mut b = LinuxBackend::new(
        TargetSpec::Pid(pid),
        LiveOptions {
            tiers: None,
            compressed_tier: page_out,
            dry_run: false,
            ..Default::default()
        },
    )?;
    let tiers = b.live_tiers().len() as u64;
    // no tier when there is no compressed one
    let compressed = if page_out {
        TierId((tiers - 1) as u8)
    } else {
        TierId(u8::MAX)
    };
    let mut rng = Rng::derive(seed, "torture");
    let mut t = Tortured::default();
    // rounds in a row that found nothing to move (every page swapped out
    // and the process not touching them): give up rather than spin
    let mut idle = 0;
    while t.migrations + t.pageouts < moves && b.any_alive() && idle < MAX_IDLE_ROUNDS {
        t.rounds += 1;
        let to = TierId(rng.below(tiers) as u8);
        // resident pages not already in `to`
        let mut cand: Vec<(thermocline_vocab::Asid, u64)> = Vec::new();
        for r in b.regions() {
            let mut va = r.start;
            while let Ok(Some((base, tr))) = b.next_mapped(r.asid, va, r.end()) {
                if tr.tier != to && tr.tier != compressed {
                    cand.push((r.asid, base));
                }
                // past the page: a THP is one page of 2 MiB
                va = base + tr.size.bytes();
            }
        }
        if cand.is_empty() {
            idle += 1;
            std::thread::sleep(std::time::Duration::from_millis(20));
            b.refresh()?;
            continue;
        }
        idle = 0;
        let asid = cand[rng.below(cand.len() as u64) as usize].0;
        cand.retain(|c| c.0 == asid);
        let mut vas = Vec::with_capacity(batch);
        for _ in 0..batch.min(cand.len()) {
            vas.push(cand[rng.below(cand.len() as u64) as usize].1);
        }
        vas.sort_unstable();
        vas.dedup();
        match b.migrate(asid, &vas, to) {
            Ok(r) => {
                if to == compressed {
                    t.pageouts += r.pages;
                } else {
                    t.migrations += r.pages;
                    t.migrated_bytes += r.bytes;
                }
                t.failed += r.failed;
            }
            Err(e) => return Err(LiveError::Busy(format!("the backend failed: {e}"))),
        }
        match b.refresh() {
            Ok(()) => {}
            Err(LiveError::Exited { .. }) => break,
            Err(e) => return Err(e),
        }
    }
    t.busy = b.counters().failed_busy;
    t.nomem = b.counters().failed_nomem;
    Ok(t)
}
