//! Integration tests of the rate machine against simple reference models.
//!
//! One test binary for the crate, each file a module: one link
//! instead of one per file, and its tests share one pool of threads
//! (`cargo test -p <crate> --test it MODULE::` runs one file's).

mod bulk_scan;
mod memory_mode;
mod memory_stall;
mod typed_alloc;
