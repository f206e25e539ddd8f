//! The words every other thermocline crate speaks: virtual addresses, page sizes,
//! page-table levels, tiers, page types, byte sizes, accesses, memory events, mapped regions
//! and the one seeded random number generator.
//!
//! This crate sits at the bottom of the layer stack (see ARCHITECTURE.md) and
//! depends on nothing else in the workspace, so that the backend interface, the
//! backends and the managers agree on units without agreeing on anything else.
#![deny(missing_docs)]

mod access;
mod addr;
mod event;
mod region;
mod rng;
mod size;
mod suggest;
mod tier;

pub use access::Access;
pub use addr::{Asid, Level, PageSize, HUGE_PAGE, LINE, PAGE, PAGES_PER_HUGE};
pub use event::MemEvent;
pub use region::RegionInfo;
pub use rng::{Rng, Stream};
pub use size::{parse_size, ByteSize, CapacitySpec, SizeError};
pub use suggest::{did_you_mean, hint};
pub use tier::{PageType, TierId};
