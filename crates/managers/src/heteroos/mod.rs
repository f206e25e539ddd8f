//! HeteroOS (Kannan et al., ISCA'17; ../shared/papers/001_f8c99e4789a9a37b.txt):
//! page-type-aware placement in the guest OS, HeteroOS-LRU, guest-guided
//! VMM hotness tracking and weighted DRF sharing across VMs.
//!
//! **Built so far (issue #22, in progress): the guest-OS mechanisms.**
//! - [`guest`]: Table 5's Heap-OD, Heap-IO-Slab-OD and HeteroOS-LRU
//!   (`heteroos-heap-od`, `heteroos-heap-io-slab-od`, `heteroos-lru`);
//! - [`lru`]: their rules apart from the machine (per-type allocation
//!   statistics, HeteroOS-LRU's trigger and thresholds);
//! - [`coordinated`]: HeteroOS-coordinated, `heteroos-coordinated`
//!   (HeteroOS-LRU plus guest-guided VMM tracking of the heap VMAs at
//!   Equation 1's interval, the guest migrating);
//! - [`vmm`]: the VMM-exclusive (HeteroVisor-like) baseline,
//!   `heteroos-vmm-exclusive`;
//! - [`interval`]: Equation 1, the coordinated tracking interval;
//! - [`drf`]: Algorithm 1's weighted DRF and the max-min it replaces, as
//!   allocations of pages;
//! - [`vms`]: several guest VMs on one host, `heteroos-vms`: each address
//!   space of the workload (each part of a `mix:A+B`) a VM with its own
//!   guest, FastMem and SlowMem divided by weighted DRF or max-min at boot
//!   and applied as per-VM tier quotas.
//!
//! The paper's baselines are managers every paper shares: SlowMem-only is
//! `all-slow`, FastMem-only `all-fast`, NUMA-preferred `first-touch`
//! (Linux's preferred-node policy for every page type), and Random
//! `random`. A third tier, on `fastmem+slowmem+swap-heteroos`, is a swap
//! device for overcommitted VMs (see [`vms`]). Not built yet: ballooning
//! that moves memory between VMs as their demands change (the shares are
//! fixed at boot), and with it section 5.5's DRF reproduction.

use thermocline_backend::Backend;
use thermocline_vocab::TierId;

pub mod coordinated;
pub mod drf;
pub mod guest;
pub mod interval;
pub mod lru;
pub mod vmm;
pub mod vms;

/// SlowMem: the machine's second tier (its last on a two-tier machine). A
/// third tier, on `fastmem+slowmem+swap-heteroos`, is the swap device
/// behind it, where only the guests' reclaim puts pages.
pub(crate) fn slow_tier(b: &dyn Backend) -> TierId {
    TierId(b.tiers().len().clamp(1, 2) as u8 - 1)
}

/// The swap device, if the machine has one (a third tier).
pub(crate) fn swap_tier(b: &dyn Backend) -> Option<TierId> {
    (b.tiers().len() >= 3).then_some(TierId(2))
}
