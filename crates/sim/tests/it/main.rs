//! Integration tests of the exact machine against simple reference models.
//!
//! One test binary for the crate, each file a module: one link
//! instead of one per file, and its tests share one pool of threads
//! (`cargo test -p <crate> --test it MODULE::` runs one file's).

mod colours;
mod common;
mod events;
mod memory_mode;
mod semantics;
mod threads;
mod tier_faults;
mod typed_alloc;
