//! The live backend: thermocline's managers on real Linux processes.
//!
//! Probe, never assume (../shared/guides/architecture.md, "The live
//! backend"): every kernel feature is looked for at start, a missing one is a
//! typed [`LiveError::Unsupported`], and the backend only touches processes it
//! was given or started. Raw system calls are wrapped once, in [`sys`]; it is
//! the only module with `unsafe`, each block with a `// SAFETY:` comment.
#![deny(missing_docs)]

mod error;
pub mod masim;
pub mod monitor;
pub mod sys;

pub use error::{HostKind, LiveError};
pub mod backend;
pub mod damon;
pub mod host_tiering;
pub mod launch;
pub mod numa;
pub mod pagemap;
pub mod pages;
pub mod probe;
pub mod procfs;
pub mod thp;
pub mod torture;
