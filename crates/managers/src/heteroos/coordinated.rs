//! HeteroOS-coordinated (../shared/papers/001_f8c99e4789a9a37b.txt,
//! section 4.1, Table 5): HeteroOS-LRU in the guest, and when on-demand
//! allocation and HeteroOS-LRU cannot find free FastMem, the VMM's hotness
//! tracking, guided by the guest:
//!
//! - **what to track**: the guest's tracking list, its heap VMAs; the page
//!   cache, buffer cache, slab, page tables and DMA pages are on the
//!   exception list (short-lived I/O pages that HeteroOS-LRU evicts anyway,
//!   and pages Linux cannot migrate);
//! - **when to track**: Equation 1 over the LLC misses of each tracking
//!   epoch, clamped to 50 ms - 1 s ([`super::interval`]);
//! - **who migrates**: the guest, after its page-state checks (the page is
//!   still mapped and in SlowMem; freed pages are gone from the table, so a
//!   page being freed is never moved), making room with HeteroOS-LRU's
//!   clock (inactive FastMem pages of any type) first.
//!
//! The tracking itself is VMM-exclusive's ([`super::vmm::Tracker`]: the
//! paper "reuses HeteroVisor's hotness-tracking implementation"), with its
//! batch size and Table 6 walk cost, over the tracked ranges only. It reads
//! only SlowMem pages' Accessed bits: FastMem pages' activity is the
//! guest's LRU's to judge. *Inferred*: on a real machine the VMM reads the
//! EPT's Accessed bits and the guest its own PTEs', two sets of bits; the
//! simulated machine has one set, and two scanners clearing it would each
//! hide the other's accesses from the other (a page the VMM just cleared
//! would look inactive to the LRU, be evicted, and be promoted again).
//!
//! *Inferred*: tracking starts at the first statistics interval with
//! FastMem allocation misses (after HeteroOS-LRU's evictions) and goes on
//! from then, at the first interval of 100 ms; the LLC misses of an epoch
//! are the machine's (every access that misses the LLC, all of them when
//! no LLC is modelled).

use super::guest::{GuestParams, HeteroOsGuest, Mechanism};
use super::interval::{next_interval_ns, MIN_INTERVAL_NS};
use super::lru::Thresholds;
use super::vmm::Tracker;
use crate::Manager;
use serde::{Deserialize, Serialize};
use thermocline_backend::{Backend, BackendError};
use thermocline_vocab::{Asid, MemEvent, PageType};

/// Parameters of HeteroOS-coordinated: the guest's (as `heteroos-lru`)
/// and the VMM tracker's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CoordinatedParams {
    /// The guest's statistics and LRU period (ms): 100.
    pub interval_ms: f64,
    /// HeteroOS-LRU's FastMem free watermark (see `heteroos-lru`).
    pub fast_free_watermark: f64,
    /// HeteroOS-LRU's per-type thresholds (see `heteroos-lru`).
    pub thresholds: Thresholds,
    /// Tracked pages scanned per tracking epoch: as VMM-exclusive's 16 K.
    pub scan_pages: u64,
    /// The first tracking interval (ms), before Equation 1 adapts it.
    pub first_tracking_interval_ms: f64,
}

impl Default for CoordinatedParams {
    fn default() -> Self {
        let g = GuestParams::default();
        CoordinatedParams {
            interval_ms: g.interval_ms,
            fast_free_watermark: g.fast_free_watermark,
            thresholds: g.thresholds,
            scan_pages: 16 * 1024,
            first_tracking_interval_ms: 100.0,
        }
    }
}

impl CoordinatedParams {
    pub(crate) fn guest(&self) -> GuestParams {
        GuestParams {
            interval_ms: self.interval_ms,
            fast_free_watermark: self.fast_free_watermark,
            thresholds: self.thresholds,
        }
    }

    /// Why these parameters cannot be used, if they cannot.
    pub fn check(&self) -> Result<(), String> {
        self.guest().check()?;
        if self.scan_pages == 0 {
            return Err("scan_pages: must be at least 1".into());
        }
        let ms = self.first_tracking_interval_ms;
        if !(50.0..=1000.0).contains(&ms) {
            return Err(format!(
                "first_tracking_interval_ms: {ms} is outside Equation 1's 50-1000 ms"
            ));
        }
        Ok(())
    }
}

/// The HeteroOS-coordinated manager.
pub struct Coordinated {
    params: CoordinatedParams,
    /// The one address space (VM) it manages, or `None`: every one.
    scope: Option<Asid>,
    guest: HeteroOsGuest,
    tracker: Option<Tracker>,
    started: bool,
    next_guest_ns: u64,
    next_track_ns: u64,
    track_interval_ns: u64,
    llc_at_epoch: u64,
    last_epoch_misses: Option<u64>,
    epochs: u64,
}

impl Coordinated {
    /// The manager with `params` (checked by the caller).
    pub fn new(params: CoordinatedParams) -> Self {
        Coordinated {
            guest: HeteroOsGuest::new(Mechanism::Lru, params.guest()),
            scope: None,
            track_interval_ns: (params.first_tracking_interval_ms * 1e6) as u64,
            params,
            tracker: None,
            started: false,
            next_guest_ns: 0,
            next_track_ns: 0,
            llc_at_epoch: 0,
            last_epoch_misses: None,
            epochs: 0,
        }
    }

    /// HeteroOS-coordinated for one VM of several: its guest runs address
    /// space `asid` within `fast_budget` FastMem and `slow_budget` SlowMem
    /// pages
    /// ([`HeteroOsGuest::for_vm`]) and the VMM tracks that space's heap.
    /// *Inferred*: Equation 1 reads the machine's LLC misses, not the VM's
    /// (the paper does not say how a VMM would count them per VM).
    pub fn for_vm(
        params: CoordinatedParams,
        asid: Asid,
        fast_budget: u64,
        slow_budget: u64,
    ) -> Self {
        Coordinated {
            guest: HeteroOsGuest::for_vm(
                Mechanism::Lru,
                params.guest(),
                asid,
                fast_budget,
                slow_budget,
            ),
            scope: Some(asid),
            ..Coordinated::new(params)
        }
    }

    /// The VM's new SlowMem quota, after the VMM's ballooning.
    pub fn set_slow_budget(&mut self, pages: u64) {
        self.guest.set_slow_budget(pages);
    }

    /// A tick of a VM's manager, with its address space's memory events
    /// (see [`HeteroOsGuest::tick_with_events`]).
    pub fn tick_with_events(
        &mut self,
        b: &mut dyn Backend,
        events: &[MemEvent],
    ) -> Result<(), BackendError> {
        self.step(b, Some(events))
    }

    fn step(
        &mut self,
        b: &mut dyn Backend,
        events: Option<&[MemEvent]>,
    ) -> Result<(), BackendError> {
        let now = b.now_ns();
        if now < self.next_guest_ns {
            // The VMM ticks more often than the guest: keep a VM's events
            // for the guest's next tick.
            if let Some(events) = events {
                self.guest.queue_events(events);
            }
        } else {
            match events {
                Some(events) => self.guest.tick_with_events(b, events)?,
                None => {
                    self.guest.tick(b)?;
                }
            }
            self.next_guest_ns = now + self.guest.interval_ns();
            if !self.started && self.guest.interval_misses() > 0 {
                self.started = true;
                self.next_track_ns = now;
                self.llc_at_epoch = b.llc_misses()?;
            }
        }
        if self.started && now >= self.next_track_ns {
            self.track(b, now)?;
        }
        Ok(())
    }

    /// One tracking epoch: the interval for the next from Equation 1, then
    /// the VMM's scan and the guest's migrations.
    fn track(&mut self, b: &mut dyn Backend, now: u64) -> Result<(), BackendError> {
        let llc = b.llc_misses()?;
        let misses = llc.saturating_sub(self.llc_at_epoch);
        self.llc_at_epoch = llc;
        if let Some(previous) = self.last_epoch_misses {
            self.track_interval_ns =
                next_interval_ns(self.track_interval_ns, previous as f64, misses as f64);
        }
        self.last_epoch_misses = Some(misses);
        if let Some(t) = self.tracker.as_mut() {
            let hot = t.scan_round(b)?;
            // The guest makes room first with HeteroOS-LRU (any type's
            // inactive pages), then migrates.
            let (_, free) = self.guest.fast_view(b)?;
            if hot > free {
                self.guest.reclaim(b, hot - free)?;
            }
            t.promote(b)?;
        }
        self.epochs += 1;
        self.next_track_ns = now + self.track_interval_ns;
        Ok(())
    }
}

impl Manager for Coordinated {
    fn name(&self) -> &'static str {
        "heteroos-coordinated"
    }

    fn gauges(&self) -> Vec<(&'static str, f64)> {
        let mut g = self.guest.gauges();
        let t = self.tracker.as_ref();
        let n = |f: fn(&Tracker) -> u64| t.map_or(0.0, |t| f(t) as f64);
        g.extend([
            ("scanned_pages_count", n(|t| t.scanned)),
            ("promoted_pages_count", n(|t| t.promoted)),
            ("evicted_pages_count", n(|t| t.evicted)),
            ("tracking_epochs_count", self.epochs as f64),
            ("tracking_interval_ms", self.track_interval_ns as f64 / 1e6),
        ]);
        g
    }

    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        self.guest.start(b)?;
        let slow = super::slow_tier(b);
        let tracking: Vec<_> = b
            .regions()
            .iter()
            .filter(|r| r.page_type == PageType::Anon && self.scope.is_none_or(|own| own == r.asid))
            .map(|r| (r.asid, r.start, r.end()))
            .collect();
        let tracker = Tracker::new(tracking, self.params.scan_pages, slow, false);
        self.tracker = Some(match (self.scope, self.guest.fast_budget()) {
            (Some(asid), Some(budget)) => tracker.with_budget(asid, budget),
            _ => tracker,
        });
        // The guest's first statistics come at the first tick.
        self.next_guest_ns = b.now_ns();
        Ok(())
    }

    fn tick_ns(&self) -> Option<u64> {
        Some(MIN_INTERVAL_NS)
    }

    fn tick(&mut self, b: &mut dyn Backend) -> Result<Option<crate::HotSet>, BackendError> {
        self.step(b, None)?;
        Ok(None)
    }
}
