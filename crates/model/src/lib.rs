//! The shared models: what both simulated machines (exact and rate-driven)
//! and the workloads agree on, owned by neither of them.
//!
//! - [`config`]: the machine description (tiers, TLB, LLC, performance
//!   parameters, the cost table), plain serde types kept apart from state;
//! - [`tiers`]: tier and machine presets, each value with its source;
//! - [`costs`]: the documented cost of every backend primitive;
//! - [`perf`]: the performance model that turns counted (or expected) events
//!   into simulated time, and the ideal clock;
//! - [`memsys`]: the optional memory system (address mapping to channel,
//!   bank, row and LLC slab; bank timings; controller queues);
//! - [`stats`]: the event counters a simulated machine keeps for reports;
//! - [`rates`]: workloads described by access rates, which the rate-driven
//!   machine runs and the exact machine replays.
//!
//! It sits just above `thermocline-vocab` (ARCHITECTURE.md): the backends
//! depend on it, it depends on no backend.
#![deny(missing_docs)]

pub mod config;
pub mod costs;
pub mod memsys;
pub mod perf;
pub mod presets;
pub mod rates;
pub mod stats;
pub mod tiers;

pub use config::{LlcConfig, MachineConfig, PerfConfig, TlbConfig};
pub use costs::CostTable;
pub use memsys::{AddressMap, BankTimings, MemSysConfig};
pub use perf::{
    epoch_time, epoch_time_by_thread, epoch_time_by_thread_split, epoch_time_split, EpochEvents,
    EpochTime, ThreadStalls, TimeParts,
};
pub use presets::{machine_preset, MachinePreset, MACHINE_PRESETS};
pub use stats::MachineStats;
pub use tiers::TierSpec;
