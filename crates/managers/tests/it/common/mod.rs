//! A tiny two-tier backend for testing managers' rules in isolation.
//!
//! Every page is a 4 KiB page; there is no TLB, so every access sets the
//! Accessed bit (and a store the Dirty bit), every access to a poisoned page
//! counts a fault, and an armed hint fault fires on the next access. Tests
//! set the bits, tiers and traffic counters directly, so a rule can be
//! checked without a workload around it. Every migration and exchange is
//! logged.
#![allow(dead_code)]

use std::collections::BTreeMap;
use thermocline_backend::{
    Backend, BackendError, Capabilities, Capability, Dma, Exchange, Flush, HugePages, MemPolicy,
    MigrationReport, MonitorAttrs, MonitorRegion, Poisoning, RegionInfo, TierCounters, TierInfo,
    Translation,
};
use thermocline_vocab::{Asid, Level, PageSize, PageType, TierId};

pub const PAGE: u64 = 4096;
pub const FAST: TierId = TierId::FAST;
pub const SLOW: TierId = TierId::SLOW;
pub const A0: Asid = Asid(0);

/// One mapped 4 KiB page.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Page {
    pub tier: u8,
    pub accessed: bool,
    pub dirty: bool,
    pub poisoned: bool,
    pub hint_armed: bool,
    pub faults: u64,
    /// Times the Accessed bit was read with `clear`.
    pub a_clears: u64,
}

/// What the manager asked the backend to do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event {
    Migrate { va: u64, to: TierId },
    Exchange { a: u64, b: u64 },
    Flush,
}

pub struct Fake {
    pub regions: Vec<RegionInfo>,
    pub pages: BTreeMap<(u16, u64), Page>,
    /// Capacity of each tier in 4 KiB pages.
    pub capacity: [u64; 2],
    pub counters: [TierCounters; 2],
    pub policy: Option<MemPolicy>,
    pub log: Vec<Event>,
    pub now: u64,
    pub manager_ns: f64,
    /// With a DMA engine: the copies queued (every one finishes at the
    /// next poll). `None`: no engine.
    pub dma: Option<Vec<(u64, TierId)>>,
    /// All-core stall (ns) the backend reports; tests raise it by hand.
    pub stall_ns: f64,
    /// A host region monitor: the regions it answers (`None`: none), and
    /// the attributes it was last asked with.
    pub monitor: Option<Vec<MonitorRegion>>,
    pub monitor_attrs: Option<MonitorAttrs>,
    /// Refuse every allocation policy, as a live host does for another
    /// process.
    pub no_policy: bool,
}

impl Fake {
    /// One region of `pages` 4 KiB pages at `start` in address space 0,
    /// with `fast` and `slow` pages of capacity; nothing mapped yet.
    pub fn new(start: u64, pages: u64, fast: u64, slow: u64, thp: bool) -> Self {
        Fake {
            regions: vec![RegionInfo {
                asid: A0,
                name: "r".into(),
                start,
                len: pages * PAGE,
                page_type: PageType::Anon,
                thp,
            }],
            pages: BTreeMap::new(),
            capacity: [fast, slow],
            counters: [TierCounters::default(); 2],
            policy: None,
            log: Vec::new(),
            now: 0,
            manager_ns: 0.0,
            dma: None,
            stall_ns: 0.0,
            monitor: None,
            monitor_attrs: None,
            no_policy: false,
        }
    }

    pub fn used(&self, tier: TierId) -> u64 {
        self.pages.values().filter(|p| p.tier == tier.0).count() as u64
    }

    /// Maps the page of `va` in `tier` with the given bits (test setup).
    pub fn place(&mut self, va: u64, tier: TierId, accessed: bool, dirty: bool) {
        self.pages.insert(
            (0, va & !(PAGE - 1)),
            Page {
                tier: tier.0,
                accessed,
                dirty,
                ..Default::default()
            },
        );
    }

    pub fn page(&self, va: u64) -> Page {
        self.pages[&(0, va & !(PAGE - 1))]
    }

    pub fn tier_of(&self, va: u64) -> TierId {
        TierId(self.page(va).tier)
    }

    pub fn set_bits(&mut self, va: u64, accessed: bool, dirty: bool) {
        let p = self.pages.get_mut(&(0, va & !(PAGE - 1))).unwrap();
        p.accessed = accessed;
        p.dirty = dirty;
    }

    fn alloc_tier(&self) -> u8 {
        let room = |t: u8| self.used(TierId(t)) < self.capacity[t as usize];
        let want = match self.policy {
            Some(MemPolicy::Bind { tier }) => tier.0,
            _ => 0,
        };
        if room(want) {
            want
        } else {
            1 - want
        }
    }

    /// One access by the workload: maps the page on first touch (by the
    /// allocation policy), sets A (and D on a store), counts faults.
    pub fn touch(&mut self, va: u64, write: bool) {
        let key = (0, va & !(PAGE - 1));
        if !self.pages.contains_key(&key) {
            let tier = self.alloc_tier();
            self.pages.insert(
                key,
                Page {
                    tier,
                    ..Default::default()
                },
            );
        }
        let p = self.pages.get_mut(&key).unwrap();
        p.accessed = true;
        p.dirty |= write;
        if p.poisoned {
            p.faults += 1;
        }
        if p.hint_armed {
            p.hint_armed = false;
            p.faults += 1;
        }
        let c = &mut self.counters[p.tier as usize];
        if write {
            c.writes += 1;
        } else {
            c.reads += 1;
        }
    }

    /// Base addresses of the mapped pages in `tier`, in address order.
    pub fn in_tier(&self, tier: TierId) -> Vec<u64> {
        self.pages
            .iter()
            .filter(|(_, p)| p.tier == tier.0)
            .map(|(k, _)| k.1)
            .collect()
    }

    pub fn poisoned(&self) -> Vec<u64> {
        self.pages
            .iter()
            .filter(|(_, p)| p.poisoned)
            .map(|(k, _)| k.1)
            .collect()
    }

    pub fn armed(&self) -> Vec<u64> {
        self.pages
            .iter()
            .filter(|(_, p)| p.hint_armed)
            .map(|(k, _)| k.1)
            .collect()
    }

    /// Migrations logged since `from`, as (va, destination).
    pub fn migrations_since(&self, from: usize) -> Vec<(u64, TierId)> {
        self.log[from..]
            .iter()
            .filter_map(|e| match *e {
                Event::Migrate { va, to } => Some((va, to)),
                _ => None,
            })
            .collect()
    }

    pub fn exchanges_since(&self, from: usize) -> Vec<(u64, u64)> {
        self.log[from..]
            .iter()
            .filter_map(|e| match *e {
                Event::Exchange { a, b } => Some((a, b)),
                _ => None,
            })
            .collect()
    }

    fn get_mut(&mut self, asid: Asid, va: u64) -> Result<&mut Page, BackendError> {
        self.pages
            .get_mut(&(asid.0, va & !(PAGE - 1)))
            .ok_or(BackendError::NotMapped { asid, va })
    }
}

impl Backend for Fake {
    fn kind(&self) -> &'static str {
        "fake"
    }

    fn capabilities(&self) -> Capabilities {
        let c = Capabilities::all()
            .without(Capability::Sampling)
            .without(Capability::HugePages)
            .without(Capability::MemoryMode)
            .without(Capability::ReverseMap)
            .without(Capability::MemEvents)
            .without(Capability::TypedAlloc)
            .without(Capability::Colours);
        let c = if self.monitor.is_some() {
            c
        } else {
            c.without(Capability::RegionMonitor)
        };
        if self.dma.is_some() {
            c
        } else {
            c.without(Capability::Dma)
        }
    }

    fn now_ns(&self) -> u64 {
        self.now
    }

    fn regions(&self) -> &[RegionInfo] {
        &self.regions
    }

    fn tiers(&self) -> Vec<TierInfo> {
        (0..2u8)
            .map(|t| TierInfo {
                id: TierId(t),
                name: if t == 0 { "dram" } else { "slow" }.into(),
                capacity_bytes: self.capacity[t as usize] * PAGE,
                free_bytes: (self.capacity[t as usize] - self.used(TierId(t))) * PAGE,
                read_latency_ns: 100.0 * f64::from(t + 1),
                write_latency_ns: 100.0 * f64::from(t + 1),
                first_frame: None,
            })
            .collect()
    }

    fn translate(&self, asid: Asid, va: u64) -> Result<Option<Translation>, BackendError> {
        Ok(self.pages.get(&(asid.0, va & !(PAGE - 1))).map(|p| {
            let frame = (va >> 12) + u64::from(p.tier) * (1 << 40);
            Translation {
                size: PageSize::Base,
                tier: TierId(p.tier),
                frame,
            }
        }))
    }

    fn accessed(
        &mut self,
        asid: Asid,
        va: u64,
        _level: Level,
        clear: bool,
    ) -> Result<bool, BackendError> {
        let p = self.get_mut(asid, va)?;
        let a = p.accessed;
        if clear {
            p.accessed = false;
            p.a_clears += 1;
        }
        Ok(a)
    }

    fn dirty(&mut self, asid: Asid, va: u64, clear: bool) -> Result<bool, BackendError> {
        let p = self.get_mut(asid, va)?;
        let d = p.dirty;
        if clear {
            p.dirty = false;
        }
        Ok(d)
    }

    fn flush_tlb(&mut self, _asid: Asid, _what: Flush) -> Result<(), BackendError> {
        self.log.push(Event::Flush);
        Ok(())
    }

    fn tier_counters(&self, tier: TierId) -> Result<TierCounters, BackendError> {
        self.counters
            .get(tier.index())
            .copied()
            .ok_or(BackendError::NoSuchTier(tier))
    }

    fn llc_misses(&self) -> Result<u64, BackendError> {
        Ok(self.counters.iter().map(|c| c.reads + c.writes).sum())
    }

    fn migrate(
        &mut self,
        asid: Asid,
        vas: &[u64],
        to: TierId,
    ) -> Result<MigrationReport, BackendError> {
        let mut r = MigrationReport::default();
        for &va in vas {
            let key = (asid.0, va & !(PAGE - 1));
            let Some(p) = self.pages.get(&key).copied() else {
                continue;
            };
            if p.tier == to.0 {
                r.already_there += 1;
            } else if self.used(to) >= self.capacity[to.index()] {
                r.failed += 1;
            } else {
                self.pages.get_mut(&key).unwrap().tier = to.0;
                r.pages += 1;
                r.bytes += PAGE;
                self.log.push(Event::Migrate { va: key.1, to });
            }
        }
        Ok(r)
    }

    fn set_policy(&mut self, _asid: Asid, policy: MemPolicy) -> Result<(), BackendError> {
        if self.no_policy {
            return Err(BackendError::Unsupported(Capability::AllocPolicy));
        }
        self.policy = Some(policy);
        Ok(())
    }

    fn monitor_regions(&mut self, attrs: MonitorAttrs) -> Result<Vec<MonitorRegion>, BackendError> {
        self.monitor_attrs = Some(attrs);
        self.monitor
            .clone()
            .ok_or(BackendError::Unsupported(Capability::RegionMonitor))
    }

    fn charge_manager(&mut self, ns: f64) {
        self.manager_ns += ns;
    }

    fn manager_ns(&self) -> f64 {
        self.manager_ns
    }

    fn stall_ns(&self) -> f64 {
        self.stall_ns
    }

    fn poisoning(&mut self) -> Result<&mut dyn Poisoning, BackendError> {
        Ok(self)
    }

    /// Offered although its capabilities leave `HugePages` out: the fake
    /// has no huge pages, and its split and collapse say so with `Invalid`
    /// (as they did before the interfaces were split), not `Unsupported`.
    fn huge_pages(&mut self) -> Result<&mut dyn HugePages, BackendError> {
        Ok(self)
    }

    fn exchanges(&mut self) -> Result<&mut dyn Exchange, BackendError> {
        Ok(self)
    }

    fn dma(&mut self) -> Result<&mut dyn Dma, BackendError> {
        if self.dma.is_some() {
            Ok(self)
        } else {
            Err(BackendError::Unsupported(Capability::Dma))
        }
    }
}

impl Poisoning for Fake {
    fn set_poison(&mut self, asid: Asid, va: u64, poisoned: bool) -> Result<(), BackendError> {
        let p = self.get_mut(asid, va)?;
        p.poisoned = poisoned;
        if !poisoned {
            p.hint_armed = false;
        }
        Ok(())
    }

    fn arm_hint_fault(&mut self, asid: Asid, va: u64) -> Result<(), BackendError> {
        self.get_mut(asid, va)?.hint_armed = true;
        Ok(())
    }

    fn poison_faults(&mut self, asid: Asid, va: u64, reset: bool) -> Result<u64, BackendError> {
        let p = self.get_mut(asid, va)?;
        let n = p.faults;
        if reset {
            p.faults = 0;
        }
        Ok(n)
    }
}

impl HugePages for Fake {
    fn split_huge(&mut self, _asid: Asid, va: u64) -> Result<(), BackendError> {
        Err(BackendError::Invalid {
            va,
            why: "the fake backend has no huge pages",
        })
    }

    fn collapse_huge(&mut self, _asid: Asid, va: u64) -> Result<(), BackendError> {
        Err(BackendError::Invalid {
            va,
            why: "the fake backend has no huge pages",
        })
    }
}

impl Exchange for Fake {
    fn exchange(&mut self, asid: Asid, a: u64, b: u64) -> Result<(), BackendError> {
        let ta = self.get_mut(asid, a)?.tier;
        let tb = self.get_mut(asid, b)?.tier;
        if ta == tb {
            return Err(BackendError::Invalid {
                va: a,
                why: "exchange needs pages in different tiers",
            });
        }
        self.get_mut(asid, a)?.tier = tb;
        self.get_mut(asid, b)?.tier = ta;
        self.log.push(Event::Exchange {
            a: a & !(PAGE - 1),
            b: b & !(PAGE - 1),
        });
        Ok(())
    }
}

impl Dma for Fake {
    fn dma_start(&mut self, asid: Asid, vas: &[u64], to: TierId) -> Result<u64, BackendError> {
        let mut queued = 0;
        for &va in vas {
            let key = (asid.0, va & !(PAGE - 1));
            let Some(p) = self.pages.get_mut(&key) else {
                continue;
            };
            if p.tier != to.0 {
                p.dirty = false;
                self.dma.as_mut().expect("a DMA engine").push((key.1, to));
                queued += 1;
            }
        }
        Ok(queued)
    }

    fn dma_poll(&mut self) -> Result<thermocline_backend::DmaReport, BackendError> {
        let mut r = thermocline_backend::DmaReport::default();
        for (va, to) in std::mem::take(self.dma.as_mut().expect("a DMA engine")) {
            if self.page(va).dirty {
                r.aborted += 1;
            } else {
                r.moved += self.migrate(A0, &[va], to)?.pages;
            }
        }
        Ok(r)
    }
}

/// An exact machine of DRAM (`fast` bytes) and DCPMM (`slow` bytes) mapping
/// one region `[start, start + len)` of address space 0, with huge pages when
/// `thp`: for the rules that need real TLBs and page tables.
#[allow(dead_code)] // not every test binary uses it
pub fn exact_machine(
    fast: u64,
    slow: u64,
    start: u64,
    len: u64,
    thp: bool,
) -> thermocline_sim::Machine {
    use thermocline_model::{tiers, MachineConfig};
    let mut t = vec![tiers::dram(), tiers::dcpmm()];
    t[0].capacity_bytes = fast;
    t[1].capacity_bytes = slow;
    let cfg = MachineConfig::with_tiers(t);
    let region = thermocline_vocab::RegionInfo {
        asid: thermocline_vocab::Asid(0),
        name: "r".into(),
        start,
        len,
        page_type: thermocline_vocab::PageType::Anon,
        thp,
    };
    thermocline_sim::Machine::new(cfg, vec![region]).expect("a valid machine")
}
