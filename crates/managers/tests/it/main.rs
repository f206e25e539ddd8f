//! Integration tests of each manager's rules on a tiny two-tier backend, and parameters that must never panic.
//!
//! One test binary for the crate, each file a module: one link
//! instead of one per file, and its tests share one pool of threads
//! (`cargo test -p <crate> --test it MODULE::` runs one file's).

mod ambix_rules;
mod common;
mod damon_rules;
mod heteroos_rules;
mod intervals_rules;
mod kstaled_rules;
mod memos_rules;
mod params_never_panic;
mod schemes_rules;
mod thermostat_rules;
mod tiering_rules;
