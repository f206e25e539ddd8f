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
//! `random`. Not built yet: ballooning that moves memory between VMs as
//! their demands change, and swap (the shares are fixed at boot, see
//! [`vms`]).

pub mod coordinated;
pub mod drf;
pub mod guest;
pub mod interval;
pub mod lru;
pub mod vmm;
pub mod vms;
