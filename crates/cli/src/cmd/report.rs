//! `thermocline report`: views of a DAMON recording.

use crate::output::{check_chart_path, check_output};

/// `report`'s views.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ReportView {
    /// Time x address, coloured by access frequency.
    Heatmap,
    /// The working-set-size distribution (percentiles over the snapshots).
    Wss,
    /// The regions of one snapshot.
    Access,
}

/// `thermocline report FILE VIEW`.
pub fn report_cmd(
    file: &str,
    view: ReportView,
    out: Option<&str>,
    bins: usize,
    at: Option<f64>,
) -> anyhow::Result<()> {
    use thermocline_present::recording;
    if matches!(view, ReportView::Heatmap) {
        let Some(out) = out else {
            anyhow::bail!("report heatmap draws a chart: name it with --out FILE.png or FILE.svg");
        };
        check_chart_path(out)?;
        check_output(out, &[file.to_string()])?;
    }
    let (report, trace) = recording::read(file)?;
    match view {
        ReportView::Heatmap => {
            let out = out.expect("checked above");
            let chart = recording::heatmap(&report, &trace, bins);
            thermocline_present::plot::write(&chart, out)?;
            eprintln!(
                "{out}: {} snapshots x {bins} address bins",
                trace.snapshots.len()
            );
        }
        ReportView::Wss => {
            println!(
                "# working set: bytes of regions DAMON saw accessed, over {} snapshots ({} under {})",
                trace.snapshots.len(),
                report.workload,
                report.manager
            );
            println!("# {:>10} {:>14}", "percentile", "wss");
            for (p, bytes) in recording::wss_percentiles(&trace, &[0, 25, 50, 75, 100]) {
                println!(
                    "  {p:>10} {:>14}",
                    thermocline_engine::report::human_bytes(bytes)
                );
            }
        }
        ReportView::Access => {
            let snap = recording::snapshot_at(&trace, at);
            let max = trace.max_nr_accesses.max(1);
            println!(
                "# DAMON's regions at {:.3} s ({} under {}); access: nr_accesses of {max} samples",
                snap.t_s, report.workload, report.manager
            );
            println!(
                "# {:>3} {:>16} {:>16} {:>12} {:>8}",
                "i", "start", "end", "size", "access"
            );
            for (i, [start, end, nr]) in snap.regions.iter().enumerate() {
                println!(
                    "  {i:>3} {start:>#16x} {end:>#16x} {:>12} {:>7.0}%",
                    thermocline_engine::report::human_bytes(end - start),
                    *nr as f64 * 100.0 / f64::from(max)
                );
            }
            println!(
                "# total {} in {} regions, working set {}",
                thermocline_engine::report::human_bytes(
                    snap.regions.iter().map(|r| r[1] - r[0]).sum()
                ),
                snap.regions.len(),
                thermocline_engine::report::human_bytes(recording::working_set(snap))
            );
        }
    }
    Ok(())
}
