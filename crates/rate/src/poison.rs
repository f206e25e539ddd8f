//! Poisoned pages (every TLB miss on them faults, and faults are counted)
//! and armed hint faults (the next operation on the page faults, once).

use crate::profile::Span;
use std::collections::BTreeMap;

/// A poisoned page or an armed hint fault.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PoisonRec {
    /// Progress when faults were last counted.
    pub since: f64,
    /// Faults counted and not yet reset.
    pub faults: u64,
    /// Armed hint fault: fires once, at this progress.
    pub hint_at: Option<f64>,
    /// Page bytes.
    pub bytes: u64,
}

/// The poisoned pages and armed hint faults, by (address space, page base).
#[derive(Default)]
pub(crate) struct Poison {
    pages: BTreeMap<(u16, u64), PoisonRec>,
}

impl Poison {
    /// Poisons the page at `base` from progress `now` on.
    pub fn poison(&mut self, asid: u16, base: u64, bytes: u64, now: f64) {
        let rec = PoisonRec {
            since: now,
            faults: 0,
            hint_at: None,
            bytes,
        };
        self.pages.insert((asid, base), rec);
    }

    /// Arms a hint fault on the page at `base` at progress `now`; it fires
    /// at progress `at`.
    pub fn arm_hint(&mut self, asid: u16, base: u64, bytes: u64, now: f64, at: f64) {
        let rec = PoisonRec {
            since: now,
            faults: 0,
            hint_at: Some(at),
            bytes,
        };
        self.pages.insert((asid, base), rec);
    }

    /// Forgets the page at `base` (unpoisoned, or its hint fault reset).
    pub fn remove(&mut self, asid: u16, base: u64) {
        self.pages.remove(&(asid, base));
    }

    /// The record of the page at `base`, if poisoned or armed.
    pub fn get(&self, asid: u16, base: u64) -> Option<PoisonRec> {
        self.pages.get(&(asid, base)).copied()
    }

    /// Faults of the page at `base` counted up to progress `now`: `faults`
    /// not yet reset.
    pub fn counted(&mut self, asid: u16, base: u64, now: f64, faults: u64) {
        if let Some(r) = self.pages.get_mut(&(asid, base)) {
            r.since = now;
            r.faults = faults;
        }
    }

    /// The poisoned pages (not armed hint faults), in address order.
    pub fn poisoned(&self) -> impl Iterator<Item = Span> + '_ {
        self.pages
            .iter()
            .filter(|(_, r)| r.hint_at.is_none())
            .map(|(&(asid, base), r)| Span {
                asid,
                start: base,
                end: base + r.bytes,
            })
    }
}
