//! Integration tests of the engine: runs end to end, golden reports, differential tests between the machines, the papers' mechanisms.
//!
//! One test binary for the crate, each file a module: one link
//! instead of one per file, and its tests share one pool of threads
//! (`cargo test -p <crate> --test it MODULE::` runs one file's).

mod ambix;
mod common;
mod config_never_panics;
mod differential;
mod fast_tier_capacity;
mod golden;
mod groundtruth;
mod heteroos;
mod memory_system;
mod memos;
mod mix;
mod page_allocs;
mod seed;
mod telescope;
mod thermostat;
mod tier_capacities;
mod time_breakdown;
