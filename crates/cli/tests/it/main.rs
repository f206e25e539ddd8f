//! Integration tests of the `thermocline` command: CLI behaviour, errors,
//! docs and the README. The live guest tests are `--test live`, a binary of
//! their own: a guest's workload runs on the wall clock and must not share
//! the cores with these.
//!
//! One test binary for the crate, each file a module: one link
//! instead of one per file, and its tests share one pool of threads
//! (`cargo test -p <crate> --test it MODULE::` runs one file's).

mod bad_inputs;
mod cli;
mod docs;
mod host_errors;
mod masim;
mod readme;
mod sweep_spec_never_panics;
