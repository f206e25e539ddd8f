//! Presentation, apart from computation: charts (SVG and PNG, with
//! plotters), access heatmaps, and the recordings `thermocline record`
//! keeps and `thermocline report` draws. Everything here reads reports and
//! time series the engine produced; nothing here runs a manager except the
//! heatmap, which runs the engine's loop with an observer of accesses.
#![deny(missing_docs)]

pub mod heatmap;
pub mod plot;
pub mod recording;
