//! The exact simulated machine: it replays a workload's accesses one by one
//! through x86-64 translation hardware and a tiered memory.
//!
//! What is modelled, and where:
//! - [`pagetable`]: a 4-level radix page table with x86's A/D/PS bits and a
//!   reserved poison bit; a deposited leaf table per 2 MiB range holds
//!   ground-truth access counts;
//! - [`tlb`] and [`psc`]: per-core L1 dTLBs (4 KiB and 2 MiB), a unified STLB,
//!   and the three paging-structure caches, all LRU;
//! - [`llc`]: an optional physically indexed last-level cache;
//! - [`memctl`]: the optional memory controllers (address decoding to
//!   channel, bank, row and LLC slab; row buffers; FR-FCFS queues; bank
//!   loads; wear), on when the machine has a memory system;
//! - [`frames`]: per-tier frame allocation in 2 MiB blocks; `rmap`: the
//!   reverse map from frames to pages, kept once physical-address monitoring
//!   asks for it;
//! - [`perf`]: events counted per epoch, turned into time by the shared
//!   performance model (`thermocline_model::perf`: latency with memory-level
//!   parallelism, bandwidth saturation, fault and shootdown costs, the ideal
//!   clock); the machine description and tier presets are in
//!   `thermocline_model` too, shared with the rate-driven machine;
//! - `machine` and `ops`: the access path and the backend interface.
//!
//! Semantics follow Intel SDM vol. 3A 4.8-4.10 (see
//! ../shared/reference/paging.md): Accessed is set in every entry a walk reads
//! and only when a translation is formed, Dirty in the leaf on the first store
//! through a translation, walks that hit a paging-structure cache skip the
//! upper levels, and INVLPG drops the page's TLB entries and every
//! paging-structure-cache entry of the address space.
#![deny(missing_docs)]

pub mod colours;
mod dma;
pub mod dram_cache;
mod event_log;
mod events;
pub mod frames;
pub mod llc;
mod lru;
mod machine;
pub mod memctl;
mod ops;
pub mod pagetable;
pub mod perf;
pub mod psc;
mod rmap;
pub mod tlb;

pub use machine::{ConfigError, Machine};
