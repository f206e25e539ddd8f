//! The backend interface: one operations set that every backend (the exact
//! simulator, the rate-driven simulator, a live Linux host) fills in, and that
//! every manager (telemetry technique + placement policy) is written against.
//!
//! The model is Linux DAMON's split between `mm/damon/core.c` and its
//! `struct damon_operations`: the core never touches a page table, it asks the
//! operations set. Here a [`Backend`] offers
//! - the address spaces and their mappings ([`Backend::regions`], [`Backend::translate`]);
//! - telemetry primitives: Accessed bits at any page-table level, Dirty bits,
//!   page poisoning with fault counts, PEBS-like sampled events, per-tier traffic
//!   and LLC-miss counters;
//! - actions: migrate or exchange pages between tiers, split or collapse a huge
//!   page, set the allocation policy, read tier capacity;
//! - [`Capabilities`]: which primitives it really has. A backend that lacks one
//!   answers [`BackendError::Unsupported`]; it never answers a silent zero.
//!
//! [`Backend`] itself is the small core every backend implements (twelve
//! required methods: kind, capabilities, time, regions, tiers, translate,
//! Accessed and Dirty bits, TLB flush, migrate, and the manager's cost), with
//! defaults for the rest (range walks, counters, the allocation policy). The
//! mechanisms one paper needs are optional interfaces of their own:
//!
//! | interface | methods | whose |
//! |---|---|---|
//! | [`Poisoning`] | set_poison, set_poison_range, arm_hint_fault, poison_faults | Thermostat's BadgerTrap (also Memos' HyMM, Ambix's baselines) |
//! | [`Sampling`] | set_sampling, drain_samples | the PEBS technique Telescope compares |
//! | [`HugePages`] | split_huge, collapse_huge | Thermostat, DAMOS's hugepage actions |
//! | [`Exchange`] | exchange | Ambix |
//! | [`Colours`] | set_coloured_allocation, frame_place, place_counts, migrate_placed | Memos (5.1) |
//! | [`Dma`] | dma_start, dma_start_placed, dma_poll | Memos (5.2) |
//! | [`TypedAlloc`] | set_type_policy, set_tier_quota, held_pages | HeteroOS |
//! | [`MemEvents`] | drain_mem_events | HeteroOS |
//! | [`MemoryMode`] | set_memory_mode | Ambix's Memory Mode baseline |
//!
//! A manager asks for one through its accessor on [`Backend`], e.g.
//! `backend.poisoning()?.set_poison(asid, va, true)?`. A backend that offers
//! the interface overrides the accessor to return itself; the accessor's
//! default, the one place that decides, answers
//! [`BackendError::Unsupported`] with the interface's [`Capability`].
//!
//! Every primitive has a documented cost, which the backend charges to the
//! manager (see [`costs`]); the manager's CPU utilisation is therefore measured,
//! not assumed.
#![deny(missing_docs)]

mod caps;
mod error;
mod host;
mod ops;
mod types;

pub use caps::{Capabilities, Capability};
pub use error::BackendError;
pub use host::HostKind;
pub use ops::{
    Backend, Colours, Dma, Exchange, HugePages, MemEvents, MemoryMode, Poisoning, Sampling,
    TypedAlloc,
};
pub use thermocline_model::costs;
pub use thermocline_vocab::RegionInfo;
pub use types::{
    AllocCounts, DmaReport, Flush, FramePlace, MemPolicy, MigrationReport, MonitorAttrs,
    MonitorRegion, Sample, SampleEvent, SamplingConfig, TierCounters, TierInfo, Translation,
};
