//! The drivers of the simulated machines: each advances its machine to the
//! loop's next deadline. The live host's driver lives with the daemon
//! (`thermocline-daemon`), above the live backend it drives.

pub mod exact;
pub mod rate;
