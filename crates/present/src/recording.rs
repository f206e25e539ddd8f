//! damo-like views of a recording: DAMON's regions over a run, as
//! `thermocline record` writes them (a report whose `damon` holds one
//! snapshot per aggregation interval) or as any run with
//! `metrics.damon_regions = true` does, simulated or on the guest.
//!
//! - the access heatmap: time on x, the workload's address space on y,
//!   each cell the access frequency DAMON saw there;
//! - the working-set-size distribution: per snapshot, the bytes of regions
//!   with any access, as percentiles (damo's `report wss`);
//! - the region list at one moment (damo's `report access`).

use crate::plot::HotMapChart;
use thermocline_engine::report::{DamonSnapshot, DamonTrace, Report};
use thermocline_engine::RunError;

/// The recording in a report file: its DAMON trace.
pub fn read(path: &str) -> Result<(Report, DamonTrace), RunError> {
    let bad =
        |msg: String| RunError::from(thermocline_engine::error::ConfigError::invalid(path, msg));
    let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read: {e}")))?;
    let report: Report = serde_json::from_str(&text).map_err(|e| {
        bad(format!(
            "line {}: not a thermocline report ({e}); write one with `thermocline record`",
            e.line()
        ))
    })?;
    let trace = report.damon.clone().ok_or_else(|| {
        bad("has no DAMON regions: record it with `thermocline record`, or run with --set metrics.damon_regions=true and a DAMON-style manager".into())
    })?;
    if trace.snapshots.is_empty() {
        return Err(bad("its recording has no snapshot (the run ended before DAMON's first aggregation interval)".into()));
    }
    Ok((report, trace))
}

/// The workload's regions laid end to end (gaps removed): `(start, end,
/// offset of start)`, and the total bytes.
fn layout(trace: &DamonTrace) -> (Vec<(u64, u64, u64)>, u64) {
    let mut regions: Vec<(u64, u64)> = trace.workload_regions.iter().map(|r| (r.1, r.2)).collect();
    regions.sort_unstable();
    let mut out = Vec::new();
    let mut offset = 0;
    for (s, e) in regions {
        out.push((s, e, offset));
        offset += e - s;
    }
    (out, offset)
}

/// The access heatmap: one column per snapshot, `bins` address bins over
/// the workload's regions, each cell the byte-weighted mean of
/// `nr_accesses / max_nr_accesses` of the DAMON regions over it.
pub fn heatmap(report: &Report, trace: &DamonTrace, bins: usize) -> HotMapChart {
    let (layout, span) = layout(trace);
    let bins = bins.max(1);
    let bin_bytes = span.div_ceil(bins as u64).max(1);
    let max = f64::from(trace.max_nr_accesses.max(1));
    let columns = trace
        .snapshots
        .iter()
        .map(|snap| {
            let mut heat = vec![0f64; bins];
            for &[start, end, nr] in &snap.regions {
                for &(ws, we, off) in &layout {
                    let (s, e) = (start.max(ws), end.min(we));
                    let mut at = s;
                    while at < e {
                        let o = off + at - ws;
                        let bin = ((o / bin_bytes) as usize).min(bins - 1);
                        let bin_end = ws + (bin as u64 + 1) * bin_bytes - off;
                        let upto = e.min(bin_end.max(at + 1));
                        heat[bin] += (upto - at) as f64 * nr as f64 / max;
                        at = upto;
                    }
                }
            }
            heat.iter()
                .map(|h| (h / bin_bytes as f64).min(1.0) as f32)
                .collect()
        })
        .collect();
    let column_s = match trace.snapshots.as_slice() {
        [a, .., b] => (b.t_s - a.t_s) / (trace.snapshots.len() - 1) as f64,
        [a] => a.t_s,
        [] => 1.0,
    };
    HotMapChart {
        title: format!(
            "DAMON's access frequency, {} under {} ({} snapshots)",
            report.workload,
            report.manager,
            trace.snapshots.len()
        ),
        column_s: column_s.max(1e-9),
        span_bytes: span,
        columns,
        marks_s: trace.phases.iter().skip(1).map(|p| p.1).collect(),
        scale_label: "access frequency (of DAMON's max)".into(),
    }
}

/// The working set of one snapshot: bytes of regions DAMON saw accessed.
pub fn working_set(snap: &DamonSnapshot) -> u64 {
    snap.regions
        .iter()
        .filter(|r| r[2] > 0)
        .map(|r| r[1] - r[0])
        .sum()
}

/// The working-set-size distribution over the snapshots: the size at each
/// of `percentiles` (nearest rank).
pub fn wss_percentiles(trace: &DamonTrace, percentiles: &[u32]) -> Vec<(u32, u64)> {
    let mut sizes: Vec<u64> = trace.snapshots.iter().map(working_set).collect();
    sizes.sort_unstable();
    percentiles
        .iter()
        .map(|&p| {
            let rank = (p.min(100) as usize * (sizes.len() - 1) + 50) / 100;
            (p, sizes[rank])
        })
        .collect()
}

/// The snapshot at time `t_s` (the last one at or before it; the last of
/// all without a time).
pub fn snapshot_at(trace: &DamonTrace, t_s: Option<f64>) -> &DamonSnapshot {
    let last = trace
        .snapshots
        .last()
        .expect("read() refuses empty recordings");
    match t_s {
        None => last,
        Some(t) => trace
            .snapshots
            .iter()
            .rev()
            .find(|s| s.t_s <= t)
            .unwrap_or(&trace.snapshots[0]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::Chart as _;

    fn trace() -> DamonTrace {
        DamonTrace {
            source: "test".into(),
            max_nr_accesses: 20,
            workload_regions: vec![
                ("a".into(), 0x10000, 0x20000),
                ("b".into(), 0x40000, 0x50000),
            ],
            phases: vec![("p".into(), 0.0), ("q".into(), 0.2)],
            end_s: 0.4,
            snapshots: vec![
                DamonSnapshot {
                    t_s: 0.1,
                    regions: vec![[0x10000, 0x20000, 20], [0x40000, 0x50000, 0]],
                },
                DamonSnapshot {
                    t_s: 0.2,
                    regions: vec![
                        [0x10000, 0x18000, 10],
                        [0x18000, 0x20000, 0],
                        [0x40000, 0x50000, 5],
                    ],
                },
                DamonSnapshot {
                    t_s: 0.3,
                    regions: vec![[0x10000, 0x20000, 0], [0x40000, 0x50000, 0]],
                },
            ],
            also: vec![],
        }
    }

    /// The heat of a bin is the byte-weighted access frequency over it,
    /// on the regions laid end to end.
    #[test]
    fn the_heatmap_weights_frequency_by_bytes_with_gaps_removed() {
        let c = heatmap(&Report::default(), &trace(), 2);
        assert_eq!(c.span_bytes, 0x20000);
        assert_eq!(c.columns[0], vec![1.0, 0.0]);
        assert_eq!(c.columns[1], vec![0.25, 0.25]);
        assert_eq!(c.columns[2], vec![0.0, 0.0]);
        assert_eq!(c.marks_s, vec![0.2]);
        assert!(c.to_svg().contains("snapshots"));
    }

    #[test]
    fn working_sets_and_their_percentiles() {
        let t = trace();
        let ws: Vec<u64> = t.snapshots.iter().map(working_set).collect();
        assert_eq!(ws, vec![0x10000, 0x18000, 0]);
        assert_eq!(
            wss_percentiles(&t, &[0, 50, 100]),
            vec![(0, 0), (50, 0x10000), (100, 0x18000)]
        );
        assert_eq!(snapshot_at(&t, Some(0.25)).t_s, 0.2);
        assert_eq!(snapshot_at(&t, None).t_s, 0.3);
        assert_eq!(snapshot_at(&t, Some(0.0)).t_s, 0.1);
    }
}
