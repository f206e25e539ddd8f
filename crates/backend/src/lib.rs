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
pub use ops::Backend;
pub use thermocline_model::costs;
pub use thermocline_vocab::RegionInfo;
pub use types::{
    AllocCounts, DmaReport, Flush, FramePlace, MemPolicy, MigrationReport, MonitorAttrs,
    MonitorRegion, Sample, SampleEvent, SamplingConfig, TierCounters, TierInfo, Translation,
};
