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
//!   the result as per-VM quotas of each tier ([`thermocline_backend::TypedAlloc::set_tier_quota`]):
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
//! - **Ballooning** (section 4.2, "Extending ballooning"), on a machine
//!   with a swap device and `balloon = true` (the default): at every VMM
//!   tick the VMM divides SlowMem anew ([`slow_targets`]) by each VM's
//!   demand (its pages in SlowMem and in swap). DRF keeps each VM's SlowMem
//!   minimum reserved; max-min keeps only the part of it the VM is using
//!   (its active pages, sampled as ESX does, `active_samples` frames per
//!   tick) and lends the rest evenly to the VMs that want more, ballooning
//!   it back when the owner is active again. A VM whose quota shrinks
//!   gives pages back through its balloon ([`super::balloon`]): inactive
//!   pages first, then any, into swap. *Inferred*: FastMem keeps its boot
//!   shares under both policies (the paper's max-min guarantees FastMem,
//!   "fairness of only one resource (FastMem in this case)", and DRF
//!   reserves both); the balloon acts at once, at the VMM's tick, where a
//!   real balloon driver takes time.
//! - **Swap.** On `fastmem+slowmem+swap-heteroos` (a third tier, the swap
//!   device) a VM may be overcommitted: its pages beyond its quotas go to
//!   swap, a swapped page touched comes back into the fastest tier the VM
//!   has room in (a fault of the device's latency), and each guest swaps
//!   out its inactive SlowMem pages to make that room
//!   ([`super::balloon::reclaim_for_swap_ins`]); a `vmm-exclusive` VM's
//!   unmodified Linux guest reclaims the same way. Without a swap tier, a
//!   VM whose shares do not cover its footprint is refused with the
//!   figures (`Unfit`) rather than run wrong.

use super::balloon::SwapClock;
use super::coordinated::{Coordinated, CoordinatedParams};
use super::drf::{self, VmShare, PAPER_WEIGHTS, TYPES};
use super::guest::{HeteroOsGuest, Mechanism};
use super::vmm::{VmmExclusive, VmmParams};
use crate::Manager;
use serde::{Deserialize, Serialize};
use thermocline_backend::{Backend, BackendError};
use thermocline_backend::{Capability, Flush};
use thermocline_vocab::{Asid, CapacitySpec, Level, MemEvent, Rng, TierId};

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
    /// Whether the VMM balloons SlowMem between VMs as their demands
    /// change (on a machine with a swap device; see the module docs).
    pub balloon: bool,
    /// Max-min's estimate of each VM's active SlowMem: SlowMem frames
    /// sampled per VMM tick (*inferred*: ESX samples 100 pages per VM per
    /// 30 s; the runs here last seconds).
    pub active_samples: u64,
    /// Seed of the sampled frames (the run's seed unless set).
    pub seed: u64,
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
            balloon: true,
            active_samples: 1024,
            seed: 1,
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
        if self.active_samples == 0 {
            return Err(
                "active_samples: must be at least 1 (max-min's estimate of the VMs' active SlowMem)"
                    .into(),
            );
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

    fn tick_ns(&self) -> Option<u64> {
        match self {
            Guest::Placement(g) => g.tick_ns(),
            Guest::Coordinated(c) => c.tick_ns(),
            Guest::Vmm(v) => v.tick_ns(),
        }
    }

    /// The VM's SlowMem quota changed: its guest's reclaim works to it (the
    /// VMM baseline has no guest reclaim).
    fn set_slow_budget(&mut self, pages: u64) {
        match self {
            Guest::Placement(g) => g.set_slow_budget(pages),
            Guest::Coordinated(c) => c.set_slow_budget(pages),
            Guest::Vmm(_) => {}
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
    /// Per VM, its boot-time resource vector.
    shares: Vec<VmShare>,
    /// The machine's (FastMem, SlowMem) pages.
    capacity: [u64; TYPES],
    slow: TierId,
    swap: Option<TierId>,
    /// Per VM, the balloon driver's clock over SlowMem.
    balloons: Vec<SwapClock>,
    /// SlowMem pages the balloons took into swap.
    ballooned: u64,
    /// SlowMem pages VMM-exclusive VMs' Linux reclaim swapped out.
    vmm_guests_swapped: u64,
    /// SlowMem quota moved between VMs (pages granted over the run).
    regranted: u64,
    /// Draws max-min's sampled frames.
    rng: Rng,
    events: Vec<MemEvent>,
    own: Vec<MemEvent>,
    events_dropped: u64,
}

impl Vms {
    /// The manager with `params` (checked by the caller).
    pub fn new(params: VmsParams) -> Self {
        let rng = Rng::derive(params.seed, "heteroos-vms active sampling");
        Vms {
            params,
            asids: Vec::new(),
            guests: Vec::new(),
            quota: Vec::new(),
            held: Vec::new(),
            shares: Vec::new(),
            capacity: [0; TYPES],
            slow: TierId(1),
            swap: None,
            balloons: Vec::new(),
            ballooned: 0,
            vmm_guests_swapped: 0,
            regranted: 0,
            rng,
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

    /// A VMM-exclusive VM runs an unmodified Linux guest, which reclaims
    /// (swaps out) its inactive SlowMem pages when the node is full as the
    /// HeteroOS guests do ([`super::balloon::reclaim_for_swap_ins`]); the
    /// VMM baseline only adds the VMM's hotness tracking.
    fn reclaim_for_vmm_guests(
        &mut self,
        b: &mut dyn Backend,
        swap: TierId,
    ) -> Result<(), BackendError> {
        let watermark = self.params.coordinated.fast_free_watermark;
        for k in 0..self.asids.len() {
            if let Guest::Vmm(_) = self.guests[k] {
                self.vmm_guests_swapped += super::balloon::reclaim_for_swap_ins(
                    &mut self.balloons[k],
                    b,
                    self.asids[k],
                    self.slow,
                    swap,
                    self.quota[k][1],
                    watermark,
                )?;
            }
        }
        Ok(())
    }

    /// Ballooning: SlowMem divided anew by the VMs' demands (what each
    /// holds in SlowMem and in swap), the VMs whose quota shrinks giving
    /// pages back through their balloon (inactive first) into swap, then
    /// the others' quotas growing. FastMem keeps its boot shares.
    fn rebalance(&mut self, b: &mut dyn Backend, swap: TierId) -> Result<(), BackendError> {
        let mut demand = Vec::with_capacity(self.asids.len());
        for (k, &asid) in self.asids.iter().enumerate() {
            demand.push(self.held[k][1] + b.typed_alloc()?.held_pages(asid, swap)?);
        }
        let active = match self.params.sharing {
            Sharing::MaxMin => self.sample_active(b)?,
            Sharing::Drf => Vec::new(),
        };
        let target = slow_targets(
            self.params.sharing,
            &self.capacity,
            &[self.params.fast_weight, self.params.slow_weight],
            &self.shares,
            &self.quota,
            &demand,
            &active,
            self.params.step_pages,
        );
        // Shrink first, so that a growing VM's swap-ins find the frames.
        for (k, &new) in target.iter().enumerate() {
            let asid = self.asids[k];
            if new >= self.quota[k][1] {
                continue;
            }
            self.quota[k][1] = new;
            b.typed_alloc()?
                .set_tier_quota(asid, self.slow, Some(new))?;
            self.guests[k].set_slow_budget(new);
            let over = self.held[k][1].saturating_sub(new);
            if over > 0 {
                let moved = self.balloons[k].swap_out(b, asid, self.slow, swap, over, 2)?;
                self.ballooned += moved;
                self.held[k][1] -= moved;
            }
        }
        for (k, &new) in target.iter().enumerate() {
            let asid = self.asids[k];
            if new <= self.quota[k][1] {
                continue;
            }
            self.regranted += new - self.quota[k][1];
            self.quota[k][1] = new;
            b.typed_alloc()?
                .set_tier_quota(asid, self.slow, Some(new))?;
            self.guests[k].set_slow_budget(new);
        }
        Ok(())
    }

    /// Each VM's active SlowMem pages, as an ESX-like VMM estimates them:
    /// `active_samples` SlowMem frames drawn at random, the Accessed bit of
    /// each VM page found there read and cleared (then the VM's TLB
    /// flushed), and a VM's held SlowMem pages scaled by the share of its
    /// sampled pages touched since the last sampling.
    fn sample_active(&mut self, b: &mut dyn Backend) -> Result<Vec<u64>, BackendError> {
        let tier = b.tiers()[self.slow.index()].clone();
        let Some(first) = tier.first_frame else {
            return Err(BackendError::Unsupported(Capability::ReverseMap));
        };
        let frames = (tier.capacity_bytes / 4096).max(1);
        let n = self.asids.len();
        let (mut seen, mut touched) = (vec![0u64; n], vec![0u64; n]);
        for _ in 0..self.params.active_samples {
            let frame = first + self.rng.below(frames);
            let Some((asid, va)) = b.reverse_translate(frame)? else {
                continue;
            };
            let (Some(k), Some(t)) = (
                self.asids.iter().position(|&a| a == asid),
                b.translate(asid, va)?,
            ) else {
                continue;
            };
            seen[k] += 1;
            if b.accessed(asid, t.size.align_down(va), Level::Pte, true)? {
                touched[k] += 1;
            }
        }
        for (k, &asid) in self.asids.iter().enumerate() {
            if seen[k] > 0 {
                b.flush_tlb(asid, Flush::All)?;
            }
        }
        Ok((0..n)
            .map(|k| {
                (self.held[k][1] as u128 * touched[k] as u128)
                    .checked_div(seen[k] as u128)
                    .unwrap_or(0) as u64
            })
            .collect())
    }

    fn read_held(&mut self, b: &mut dyn Backend) -> Result<(), BackendError> {
        for (k, &asid) in self.asids.iter().enumerate() {
            self.held[k] = [
                b.typed_alloc()?.held_pages(asid, TierId(0))?,
                b.typed_alloc()?.held_pages(asid, self.slow)?,
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
        if self.vmm_guests_swapped > 0 {
            match sum
                .iter_mut()
                .find(|(n, _)| *n == "swapped_out_pages_count")
            {
                Some((_, v)) => *v += self.vmm_guests_swapped as f64,
                None => sum.push(("swapped_out_pages_count", self.vmm_guests_swapped as f64)),
            }
        }
        sum.push(("events_dropped_count", self.events_dropped as f64));
        sum.push(("ballooned_pages_count", self.ballooned as f64));
        sum.push(("balloon_granted_pages_count", self.regranted as f64));
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
        self.capacity = capacity;
        self.swap = swap;
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
        self.shares = shares;
        self.balloons = (0..n).map(|_| SwapClock::default()).collect();
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
            b.typed_alloc()?
                .set_tier_quota(asid, TierId(0), Some(q[0]))?;
            b.typed_alloc()?
                .set_tier_quota(asid, self.slow, Some(q[1]))?;
        }
        for g in &mut self.guests {
            g.manager().start(b)?;
        }
        Ok(())
    }

    fn tick_ns(&self) -> Option<u64> {
        self.guests.iter().filter_map(Guest::tick_ns).min()
    }

    fn tick(&mut self, b: &mut dyn Backend) -> Result<Option<crate::HotSet>, BackendError> {
        self.events.clear();
        self.events_dropped += b.mem_events()?.drain_mem_events(&mut self.events)?;
        for (k, g) in self.guests.iter_mut().enumerate() {
            let asid = self.asids[k];
            self.own.clear();
            self.own
                .extend(self.events.iter().filter(|e| e.range().0 == asid).copied());
            g.tick_with_events(b, &self.own)?;
        }
        if let Some(swap) = self.swap {
            self.reclaim_for_vmm_guests(b, swap)?;
        }
        self.read_held(b)?;
        if self.params.balloon {
            if let Some(swap) = self.swap {
                self.rebalance(b, swap)?;
            }
        }
        Ok(None)
    }
}

/// Each VM's SlowMem quota for the VMs' current SlowMem `demand`s (the
/// pages each holds in SlowMem and in swap) and `active` pages, FastMem
/// staying at its boot `quota`s.
///
/// - **DRF** (Algorithm 1): a VM's SlowMem minimum stays reserved whatever
///   it uses (section 5.5: DRF "guarantees the 4GB SlowMem availability");
///   SlowMem beyond the minimums goes to the VM with the least weighted
///   dominant share first.
/// - **Max-min** ("most VMMs today", section 4.2, after ESX's ballooning
///   [62]): a VM's basic share is its minimum as far as it is active, the
///   rest "evenly distributed among VMs demanding more", up to their
///   demands. Idle reserved memory is thus lent to the VMs that want more
///   and ballooned back when it is active again (*inferred*: the paper says
///   max-min guarantees fairness "of only one resource (FastMem in this
///   case)", and cites ESX, whose VMM reclaims idle memory first).
///
/// SlowMem left over is spread evenly as room to grow, within each VM's
/// maximum.
#[allow(clippy::too_many_arguments)]
pub fn slow_targets(
    sharing: Sharing,
    capacity: &[u64; TYPES],
    weights: &[f64; TYPES],
    shares: &[VmShare],
    quota: &[[u64; TYPES]],
    demand: &[u64],
    active: &[u64],
    step: u64,
) -> Vec<u64> {
    let want: Vec<u64> = shares
        .iter()
        .zip(demand)
        .map(|(s, &d)| d.min(s.max[1]))
        .collect();
    let mut target: Vec<u64> = match sharing {
        Sharing::Drf => {
            let vms: Vec<VmShare> = shares
                .iter()
                .zip(quota)
                .zip(demand)
                .map(|((s, q), &d)| VmShare {
                    min: [q[0], s.min[1]],
                    max: [q[0], s.max[1]],
                    demand: [q[0], d],
                })
                .collect();
            drf::weighted_drf(capacity, weights, &vms, step)
                .iter()
                .map(|a| a[1])
                .collect()
        }
        Sharing::MaxMin => {
            let mut t: Vec<u64> = shares
                .iter()
                .zip(active)
                .map(|(s, &a)| s.min[1].min(a))
                .collect();
            spread(&mut t, &want, capacity[1]);
            t
        }
    };
    let max: Vec<u64> = shares.iter().map(|s| s.max[1]).collect();
    spread(&mut target, &max, capacity[1]);
    target
}

/// What `capacity` leaves beyond `target`, given evenly to the VMs below
/// their `limit` (the remainder in VM order).
fn spread(target: &mut [u64], limit: &[u64], capacity: u64) {
    let mut left = capacity.saturating_sub(target.iter().sum());
    loop {
        let open: Vec<usize> = (0..target.len())
            .filter(|&k| target[k] < limit[k])
            .collect();
        if left == 0 || open.is_empty() {
            return;
        }
        let each = (left / open.len() as u64).max(1);
        for k in open {
            let give = each.min(limit[k] - target[k]).min(left);
            target[k] += give;
            left -= give;
        }
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
        p.fast_weight = 2.0;
        p.active_samples = 0;
        assert!(p.check().unwrap_err().starts_with("active_samples"));
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

    /// Section 5.5's setup in pages of 1 GiB: FastMem 4, SlowMem 8; the
    /// GraphChi-like VM reserves <1, 4>, the Metis-like one <3, 4>.
    fn paper_setup() -> ([u64; TYPES], Vec<VmShare>, Vec<[u64; TYPES]>) {
        let vm = |f, sl| VmShare {
            min: [f, sl],
            max: [4, 8],
            demand: [0, 0],
        };
        ([4, 8], vec![vm(1, 4), vm(3, 4)], vec![[1, 4], [3, 4]])
    }

    #[test]
    fn drf_keeps_an_idle_reservation_that_max_min_lends() {
        let (cap, shares, quota) = paper_setup();
        // Each holds its 4 SlowMem and has 1 more in swap; GraphChi's
        // SlowMem is mostly idle, Metis' active.
        let (demand, active) = ([5, 5], [1, 4]);
        let w = PAPER_WEIGHTS;
        let t = |s, a: &[u64]| slow_targets(s, &cap, &w, &shares, &quota, &demand, a, 1);
        assert_eq!(
            t(Sharing::Drf, &active),
            vec![4, 4],
            "DRF: both reservations hold"
        );
        // Max-min: basic shares 1 and 4; the 3 left go evenly to the VMs
        // that want more, Metis up to its demand of 5, GraphChi the rest.
        assert_eq!(t(Sharing::MaxMin, &active), vec![3, 5]);
        // Once GraphChi's SlowMem is active again, it is ballooned back.
        assert_eq!(t(Sharing::MaxMin, &[4, 4]), vec![4, 4]);
    }

    #[test]
    fn slowmem_left_over_is_room_to_grow_for_every_vm() {
        let (cap, mut shares, quota) = paper_setup();
        shares[0].min[1] = 1;
        shares[1].min[1] = 1;
        shares[1].max[1] = 2;
        let w = PAPER_WEIGHTS;
        for sharing in [Sharing::Drf, Sharing::MaxMin] {
            let t = slow_targets(sharing, &cap, &w, &shares, &quota, &[1, 1], &[1, 1], 1);
            assert_eq!(
                t.iter().sum::<u64>(),
                8,
                "{sharing:?}: all of SlowMem is given"
            );
            assert_eq!(t[1], 2, "{sharing:?}: within the maximum");
        }
    }
}
