//! Integration tests of claim rules, seed-free runs and reproductions through the sweep runner.
//!
//! One test binary for the crate, each file a module: one link
//! instead of one per file, and its tests share one pool of threads
//! (`cargo test -p <crate> --test it MODULE::` runs one file's).

mod claim_rules;
mod seed_free;
mod sweep;
