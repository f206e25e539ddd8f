//! The paper reproductions, one folder per paper ([`thermostat`],
//! [`ambix`], [`telescope`], [`memos`], [`heteroos`]), and the project's
//! own ([`live`]: the simulator beside a real kernel; [`schemes`]): each
//! folder has its runs, its claims and its setup, and registers its
//! reproductions in one place, [`reproduce::all`]. A reproduction's runs
//! are one sweep ([`reproduce::sweep_spec`]) run by `thermocline-sweep`;
//! [`results_md`] turns their verdicts into RESULTS.md; [`catalogue`] lists
//! everything a user can name.
#![deny(missing_docs)]

pub mod ambix;
pub mod catalogue;
pub mod claims;
pub mod heteroos;
pub mod kinds;
pub mod live;
pub mod memos;
pub mod reproduce;
pub mod reproduction;
pub mod results_md;
pub mod schemes;
pub mod seed_free;
pub mod telescope;
pub mod thermostat;
