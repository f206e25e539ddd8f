//! HeteroOS (Kannan et al., ISCA'17; ../shared/papers/001_f8c99e4789a9a37b.txt):
//! page-type-aware placement in the guest OS, HeteroOS-LRU, guest-guided
//! VMM hotness tracking and weighted DRF sharing across VMs.
//!
//! **Built so far (issue #22, in progress): its rules, not its managers.**
//! - [`interval`]: Equation 1, the coordinated tracking interval.
//!
//! The machine primitives the managers will act through exist: memory
//! events (`Backend::drain_mem_events`: ranges released, I/O completed),
//! allocation by page type (`Backend::set_type_policy`), per-tier quotas per
//! address space (`Backend::set_tier_quota`, a VMM's reservations) and
//! per-type allocation counts (`Backend::alloc_counts`, section 3.2's
//! FastMem hits and misses). No manager named `heteroos-*` exists yet.

pub mod interval;
