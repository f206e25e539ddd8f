//! The simulator's commands, one module each (the live ones are in
//! `crate::live`).

pub mod compare;
pub mod config;
pub mod convert;
pub mod heatmap;
pub mod list;
pub mod report;
pub mod reproduce;
pub mod run;
pub mod sweep;
