//! Several VMs on one host (../shared/papers/001_f8c99e4789a9a37b.txt,
//! sections 4.2 and 5.5): `heteroos-vms` runs each address space of the
//! workload (each component of a `mix:A+B` workload) as a guest VM, divides
//! FastMem and SlowMem among them by weighted DRF or by single-resource
//! max-min ([`super::drf`]), and runs one guest per VM within its share.
//!
//! - **Reservations.** Each VM gives a resource vector at boot: a minimum
//!   (reserved) and a maximum of each memory type, in bytes or as a
//!   percentage of the VM's own footprint (`vms = [{ fast_min = "17%",
//!   slow_min = "67%" }, ...]`, one entry per address space in order; none:
//!   no reservation, the whole tier as the maximum).
//! - **Sharing.** `sharing = "drf"` (the paper's weighted DRF, weights
//!   FastMem 2, SlowMem 1) or `"max-min"` (the baseline). The VMM applies
//!   the result as per-VM quotas of each tier ([`Backend::set_tier_quota`]):
//!   a VM's new pages go to SlowMem when its FastMem quota is used, and its
//!   guest sees FastMem as its quota ([`HeteroOsGuest::for_vm`]).
//! - **Guests.** `guest = "coordinated"` (HeteroOS-coordinated, the paper's
//!   section 5.5 runs), `"lru"`, `"heap-io-slab-od"`, `"heap-od"` or
//!   `"vmm-exclusive"` (the baseline, the VMM scanning and migrating each
//!   VM's pages within its FastMem quota), the same in every VM, each with its own LRU clock, statistics and (for
//!   coordinated) VMM tracker over its own heap. The VMM drains the
//!   machine's memory events once per tick and hands each guest its own.
//!
//! *Inferred*:
//! - a VM's demand, which Algorithm 1 serves up to, is its whole footprint
//!   in FastMem and, in SlowMem, its footprint beyond its FastMem minimum:
//!   the paper's VMs ask at boot for what they were configured with and
//!   grow by ballooning; without a guest's balloon requests to go by, the
//!   footprint is the most a VM could use;
//! - the shares are fixed at boot. The paper's ballooning moves memory
//!   between VMs as demands change, and its max-min runs swap when a VM's
//!   SlowMem is ballooned away; ballooning is not built yet.
//! - **Swap.** On `fastmem+slowmem+swap-heteroos` (a third tier, the swap
//!   device) a VM may be overcommitted: its pages beyond its quotas go to
//!   swap, a swapped page touched comes back into the fastest tier the VM
//!   has room in (a fault of the device's latency), and each guest swaps
//!   out its inactive SlowMem pages to make that room
//!   ([`HeteroOsGuest::for_vm`]). Without a swap tier, a VM whose shares do
//!   not cover its footprint is refused with the figures (`Unfit`) rather
//!   than run wrong. A `vmm-exclusive` VM does not swap out (the VMM
//!   baseline has no guest reclaim): its pages in swap come back only
//!   where it has room.

use super::coordinated::{Coordinated, CoordinatedParams};
use super::drf::{self, VmShare, PAPER_WEIGHTS, TYPES};
use super::guest::{HeteroOsGuest, Mechanism};
use super::vmm::{VmmExclusive, VmmParams};
use crate::Manager;
use serde::{Deserialize, Serialize};
use thermocline_backend::{Backend, BackendError};
use thermocline_vocab::{Asid, CapacitySpec, MemEvent, TierId};

/// How the VMM divides the memory types among VMs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sharing {
    /// Weighted Dominant Resource Fairness (Algorithm 1).
    Drf,
    /// Single-resource max-min fairness (the baseline).
    MaxMin,
}

/// The guest mechanism each VM runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GuestKind {
    /// `heteroos-heap-od`.
    HeapOd,
    /// `heteroos-heap-io-slab-od`.
    HeapIoSlabOd,
    /// `heteroos-lru`.
    Lru,
    /// `heteroos-coordinated`.
    Coordinated,
    /// `heteroos-vmm-exclusive` (the baseline: the VMM scans and migrates).
    VmmExclusive,
}

/// One VM's boot-time resource vector: sizes such as `"1GiB"`, or
/// percentages of the VM's footprint such as `"25%"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VmReservation {
    /// FastMem reserved at boot.
    pub fast_min: String,
    /// SlowMem reserved at boot.
    pub slow_min: String,
    /// The most FastMem the VM may get (`None`: all of it).
    pub fast_max: Option<String>,
    /// The most SlowMem the VM may get (`None`: all of it).
    pub slow_max: Option<String>,
}

impl Default for VmReservation {
    fn default() -> Self {
        VmReservation {
            fast_min: "0".into(),
            slow_min: "0".into(),
            fast_max: None,
            slow_max: None,
        }
    }
}

/// Parameters of `heteroos-vms`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VmsParams {
    /// `"drf"` or `"max-min"`.
    pub sharing: Sharing,
    /// The mechanism every guest runs.
    pub guest: GuestKind,
    /// DRF's weight of FastMem: 2 (section 4.2).
    pub fast_weight: f64,
    /// DRF's weight of SlowMem: 1.
    pub slow_weight: f64,
    /// Pages per allocation step of the progressive filling (Algorithm 1
    /// serves requests one at a time; 256 pages is 1 MiB).
    pub step_pages: u64,
    /// Per address space, in order: its reservations.
    pub vms: Vec<VmReservation>,
    /// The guests' own parameters (as `heteroos-coordinated`'s; the guest
    /// mechanisms use its interval, watermark and thresholds).
    pub coordinated: CoordinatedParams,
    /// VMM-exclusive's parameters (as `heteroos-vmm-exclusive`'s).
    pub vmm: VmmParams,
}

impl Default for VmsParams {
    fn default() -> Self {
        VmsParams {
            sharing: Sharing::Drf,
            guest: GuestKind::Coordinated,
            fast_weight: PAPER_WEIGHTS[0],
            slow_weight: PAPER_WEIGHTS[1],
            step_pages: 256,
            vms: Vec::new(),
            coordinated: CoordinatedParams::default(),
            vmm: VmmParams::default(),
        }
    }
}

impl VmsParams {
    /// Why these parameters cannot be used, if they cannot.
    pub fn check(&self) -> Result<(), String> {
        for (name, w) in [
            ("fast_weight", self.fast_weight),
            ("slow_weight", self.slow_weight),
        ] {
            if !(w.is_finite() && w > 0.0) {
                return Err(format!("{name}: {w} is not a positive weight"));
            }
        }
        if self.step_pages == 0 {
            return Err("step_pages: must be at least 1".into());
        }
        for (i, vm) in self.vms.iter().enumerate() {
            let sizes = [
                ("fast_min", Some(&vm.fast_min)),
                ("slow_min", Some(&vm.slow_min)),
                ("fast_max", vm.fast_max.as_ref()),
                ("slow_max", vm.slow_max.as_ref()),
            ];
            for (name, text) in sizes {
                if let Some(t) = text {
                    CapacitySpec::parse(t).map_err(|e| format!("vms[{i}].{name}: {e}"))?;
                }
            }
        }
        self.coordinated.check()?;
        self.vmm.check()
    }
}

/// One VM's manager.
enum Guest {
    Placement(Box<HeteroOsGuest>),
    Coordinated(Box<Coordinated>),
    Vmm(Box<VmmExclusive>),
}

impl Guest {
    fn manager(&mut self) -> &mut dyn Manager {
        match self {
            Guest::Placement(g) => g.as_mut(),
            Guest::Coordinated(c) => c.as_mut(),
            Guest::Vmm(v) => v.as_mut(),
        }
    }

    fn gauges(&self) -> Vec<(&'static str, f64)> {
        match self {
            Guest::Placement(g) => g.gauges(),
            Guest::Coordinated(c) => c.gauges(),
            Guest::Vmm(v) => v.gauges(),
        }
    }

    fn tick_with_events(
        &mut self,
        b: &mut dyn Backend,
        events: &[MemEvent],
    ) -> Result<(), BackendError> {
        match self {
            Guest::Placement(g) => g.tick_with_events(b, events),
            Guest::Coordinated(c) => c.tick_with_events(b, events),
            // The VMM knows nothing of the guest's events (the machine
            // frees released pages itself).
            Guest::Vmm(v) => v.tick(b).map(|_| ()),
        }
    }
}

/// Per-VM gauges, for the first [`GAUGED_VMS`] VMs: FastMem and SlowMem
/// quotas and the pages held in each.
const VM_GAUGES: [[&str; 4]; GAUGED_VMS] = [
    [
        "vm0_fast_quota_pages",
        "vm0_slow_quota_pages",
        "vm0_fast_held_pages",
        "vm0_slow_held_pages",
    ],
    [
        "vm1_fast_quota_pages",
        "vm1_slow_quota_pages",
        "vm1_fast_held_pages",
        "vm1_slow_held_pages",
    ],
    [
        "vm2_fast_quota_pages",
        "vm2_slow_quota_pages",
        "vm2_fast_held_pages",
        "vm2_slow_held_pages",
    ],
    [
        "vm3_fast_quota_pages",
        "vm3_slow_quota_pages",
        "vm3_fast_held_pages",
        "vm3_slow_held_pages",
    ],
];

/// VMs with their own gauges.
pub const GAUGED_VMS: usize = 4;

/// The `heteroos-vms` manager: a VMM sharing memory among guest VMs.
pub struct Vms {
    params: VmsParams,
    asids: Vec<Asid>,
    guests: Vec<Guest>,
    /// Per VM, its (FastMem, SlowMem) pages.
    quota: Vec<[u64; TYPES]>,
    /// Per VM, the pages it held in each at the last tick.
    held: Vec<[u64; TYPES]>,
    slow: TierId,
    events: Vec<MemEvent>,
    own: Vec<MemEvent>,
    events_dropped: u64,
}

impl Vms {
    /// The manager with `params` (checked by the caller).
    pub fn new(params: VmsParams) -> Self {
        Vms {
            params,
            asids: Vec::new(),
            guests: Vec::new(),
            quota: Vec::new(),
            held: Vec::new(),
            slow: TierId(1),
            events: Vec::new(),
            own: Vec::new(),
            events_dropped: 0,
        }
    }

    /// Per VM (address space, in order), its (FastMem, SlowMem) pages.
    pub fn quotas(&self) -> &[[u64; TYPES]] {
        &self.quota
    }

    /// Each VM's resource vector from its reservation and footprint.
    fn shares(&self, footprints: &[u64], capacity: [u64; TYPES]) -> Vec<VmShare> {
        let pages = |text: &str, footprint: u64| match CapacitySpec::parse(text) {
            Ok(CapacitySpec::Bytes(b)) => b / 4096,
            Ok(CapacitySpec::PercentOfFootprint(p)) => (footprint as f64 * p / 100.0) as u64,
            Err(_) => 0, // refused by `check`
        };
        footprints
            .iter()
            .enumerate()
            .map(|(i, &fp)| {
                let r = self.params.vms.get(i).cloned().unwrap_or_default();
                let min = [pages(&r.fast_min, fp), pages(&r.slow_min, fp)];
                let max = [
                    r.fast_max.as_deref().map_or(capacity[0], |t| pages(t, fp)),
                    r.slow_max.as_deref().map_or(capacity[1], |t| pages(t, fp)),
                ];
                VmShare {
                    min,
                    max,
                    demand: [fp, fp.saturating_sub(min[0])],
                }
            })
            .collect()
    }

    fn read_held(&mut self, b: &dyn Backend) -> Result<(), BackendError> {
        for (k, &asid) in self.asids.iter().enumerate() {
            self.held[k] = [
                b.held_pages(asid, TierId(0))?,
                b.held_pages(asid, self.slow)?,
            ];
        }
        Ok(())
    }
}

impl Manager for Vms {
    fn name(&self) -> &'static str {
        "heteroos-vms"
    }

    fn gauges(&self) -> Vec<(&'static str, f64)> {
        // The guests' gauges over all VMs: counts add up, ratios and
        // intervals are averaged.
        let mut sum: Vec<(&'static str, f64)> = Vec::new();
        for g in &self.guests {
            for (name, v) in g.gauges() {
                match sum.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, total)) => *total += v,
                    None => sum.push((name, v)),
                }
            }
        }
        let n = self.guests.len().max(1) as f64;
        for (name, v) in &mut sum {
            if name.ends_with("_ratio") || name.ends_with("_ms") {
                *v /= n;
            }
        }
        sum.push(("events_dropped_count", self.events_dropped as f64));
        for (k, names) in VM_GAUGES.iter().enumerate().take(self.asids.len()) {
            let (q, h) = (self.quota[k], self.held[k]);
            sum.extend([
                (names[0], q[0] as f64),
                (names[1], q[1] as f64),
                (names[2], h[0] as f64),
                (names[3], h[1] as f64),
            ]);
        }
        sum
    }

    fn start(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        let tiers = b.tiers();
        if !(2..=3).contains(&tiers.len()) {
            return Err(BackendError::Unfit(format!(
                "heteroos-vms shares FastMem and SlowMem (and a swap device behind them): the machine has {} tiers, not 2 or 3",
                tiers.len()
            )));
        }
        self.slow = super::slow_tier(b);
        let swap = super::swap_tier(b);
        let capacity = [
            tiers[0].capacity_bytes / 4096,
            tiers[1].capacity_bytes / 4096,
        ];
        let mut footprint: Vec<(Asid, u64)> = Vec::new();
        for r in b.regions() {
            match footprint.iter_mut().find(|(a, _)| *a == r.asid) {
                Some((_, pages)) => *pages += r.len.div_ceil(4096),
                None => footprint.push((r.asid, r.len.div_ceil(4096))),
            }
        }
        footprint.sort_unstable();
        let n = footprint.len();
        if !self.params.vms.is_empty() && self.params.vms.len() != n {
            return Err(BackendError::Unfit(format!(
                "the workload has {n} address spaces (VMs) but heteroos-vms.vms gives {} reservations: give one per VM, in order, or none",
                self.params.vms.len()
            )));
        }
        let pages: Vec<u64> = footprint.iter().map(|f| f.1).collect();
        let shares = self.shares(&pages, capacity);
        drf::check(&capacity, &shares).map_err(BackendError::Unfit)?;
        let weights = [self.params.fast_weight, self.params.slow_weight];
        self.quota = match self.params.sharing {
            Sharing::Drf => drf::weighted_drf(&capacity, &weights, &shares, self.params.step_pages),
            Sharing::MaxMin => drf::max_min(&capacity, &shares, self.params.step_pages),
        };
        for (k, (q, &fp)) in self.quota.iter().zip(&pages).enumerate() {
            if swap.is_none() && q[0] + q[1] < fp {
                return Err(BackendError::Unfit(format!(
                    "VM {k} gets {} MiB of FastMem and {} MiB of SlowMem under {}, less than its {} MiB footprint, and the machine has no swap device: give it more memory, the VMs smaller reservations, or a swap tier (fastmem+slowmem+swap-heteroos)",
                    q[0] / 256,
                    q[1] / 256,
                    match self.params.sharing {
                        Sharing::Drf => "drf",
                        Sharing::MaxMin => "max-min",
                    },
                    fp / 256
                )));
            }
        }
        self.asids = footprint.iter().map(|f| f.0).collect();
        self.held = vec![[0; TYPES]; n];
        let p = &self.params;
        self.guests =
            self.asids
                .iter()
                .zip(&self.quota)
                .map(|(&asid, q)| {
                    let mech = |m| {
                        Guest::Placement(Box::new(HeteroOsGuest::for_vm(
                            m,
                            p.coordinated.guest(),
                            asid,
                            q[0],
                            q[1],
                        )))
                    };
                    match p.guest {
                        GuestKind::HeapOd => mech(Mechanism::HeapOd),
                        GuestKind::HeapIoSlabOd => mech(Mechanism::HeapIoSlabOd),
                        GuestKind::Lru => mech(Mechanism::Lru),
                        GuestKind::Coordinated => Guest::Coordinated(Box::new(
                            Coordinated::for_vm(p.coordinated.clone(), asid, q[0], q[1]),
                        )),
                        GuestKind::VmmExclusive => {
                            Guest::Vmm(Box::new(VmmExclusive::for_vm(p.vmm.clone(), asid, q[0])))
                        }
                    }
                })
                .collect();
        for (&asid, q) in self.asids.iter().zip(&self.quota) {
            b.set_tier_quota(asid, TierId(0), Some(q[0]))?;
            b.set_tier_quota(asid, self.slow, Some(q[1]))?;
        }
        for g in &mut self.guests {
            g.manager().start(b)?;
        }
        Ok(())
    }

    fn tick_ns(&self) -> Option<u64> {
        self.guests
            .iter()
            .filter_map(|g| match g {
                Guest::Placement(g) => g.tick_ns(),
                Guest::Coordinated(c) => c.tick_ns(),
                Guest::Vmm(v) => v.tick_ns(),
            })
            .min()
    }

    fn tick(&mut self, b: &mut dyn Backend) -> Result<Option<crate::HotSet>, BackendError> {
        self.events.clear();
        self.events_dropped += b.drain_mem_events(&mut self.events)?;
        for (k, g) in self.guests.iter_mut().enumerate() {
            let asid = self.asids[k];
            self.own.clear();
            self.own
                .extend(self.events.iter().filter(|e| e.range().0 == asid).copied());
            g.tick_with_events(b, &self.own)?;
        }
        self.read_held(b)?;
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_are_checked_with_their_place() {
        let mut p = VmsParams::default();
        assert!(p.check().is_ok());
        p.vms = vec![VmReservation {
            fast_min: "lots".into(),
            ..VmReservation::default()
        }];
        assert!(p.check().unwrap_err().starts_with("vms[0].fast_min"));
        p.vms.clear();
        p.fast_weight = 0.0;
        assert!(p.check().unwrap_err().starts_with("fast_weight"));
    }

    #[test]
    fn shares_read_sizes_and_footprint_percentages() {
        let p = VmsParams {
            vms: vec![
                VmReservation {
                    fast_min: "1GiB".into(),
                    slow_min: "50%".into(),
                    fast_max: Some("2GiB".into()),
                    slow_max: None,
                },
                VmReservation::default(),
            ],
            ..VmsParams::default()
        };
        let v = Vms::new(p);
        let s = v.shares(&[1000, 400], [4096, 8192]);
        assert_eq!(s[0].min, [262_144, 500]);
        assert_eq!(s[0].max, [524_288, 8192]);
        assert_eq!(s[0].demand, [1000, 0], "its FastMem minimum covers it");
        assert_eq!(s[1].min, [0, 0]);
        assert_eq!(s[1].max, [4096, 8192]);
        assert_eq!(s[1].demand, [400, 400]);
    }
}
