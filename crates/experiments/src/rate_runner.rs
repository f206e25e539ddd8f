//! The run loop on the rate-driven machine: no accesses to feed, only a
//! clock to advance from one manager tick or report window to the next.

use crate::config::RunConfig;
use crate::groundtruth::{reported_units, score_spans, Score};
use crate::report::Report;
use crate::runner::{build_report, HotMapAcc, Setup, WindowAcc};
use crate::RunError;
use thermocline_managers::HotSet;
use thermocline_rate::RateMachine;

/// Runs a resolved setup on the rate machine.
pub(crate) fn run_rate(
    cfg: &RunConfig,
    s: Setup,
    progress: &mut dyn FnMut(u64, u64),
    on_report: &mut dyn FnMut(f64, &HotSet),
) -> Result<Report, RunError> {
    let Setup {
        mut manager,
        machine_name,
        mcfg,
        workload,
        footprint,
        window_ns,
        limit,
        ..
    } = s;
    let rates = workload
        .rates
        .as_ref()
        .expect("the rate backend is chosen only with rates");
    let mut m = RateMachine::new(mcfg, workload.regions.clone(), rates)
        .map_err(|e| RunError::Config(e.to_string()))?;
    manager.start(&mut m)?;
    let tick_ns = manager.tick_ns().map(|t| t.max(1) as f64);
    let mut next_tick = tick_ns.unwrap_or(f64::INFINITY);
    let mut next_window = window_ns;
    let mut win = WindowAcc::new(&m);
    let mut hot_map = HotMapAcc::new(cfg, &workload.regions);
    let mut windows = Vec::new();
    let mut scores: Vec<Score> = Vec::new();
    let mut last_report = 0.0;
    let threshold = cfg.metrics.hot_threshold as f64;
    let mut phase_starts_s = vec![0.0];
    let mut ticks = 0u64;
    progress(0, limit);
    loop {
        let running = m.advance(next_tick.min(next_window), limit as f64);
        while phase_starts_s.len() <= m.phase() && phase_starts_s.len() < workload.phases.len() {
            phase_starts_s.push(m.phase_start_ns(phase_starts_s.len()) / 1e9);
        }
        while m.time_ns() >= next_tick {
            if let Some(hot) = manager.tick(&mut m)? {
                on_report(m.time_ns() / 1e9, &hot);
                hot_map.report(&hot);
                let actual = m.hot_units(last_report, m.progress(), threshold);
                last_report = m.progress();
                let s = score_spans(&reported_units(&hot), &actual);
                win.scores.push(s);
                scores.push(s);
            }
            next_tick += tick_ns.expect("finite only with ticks");
            ticks += 1;
            if ticks.is_multiple_of(256) {
                progress(m.progress() as u64, limit);
            }
        }
        while m.time_ns() >= next_window {
            windows.push(win.close(&m, manager.as_ref(), next_window, window_ns));
            hot_map.close_window();
            next_window += window_ns;
        }
        if !running {
            break;
        }
    }
    progress(m.progress() as u64, limit);
    let end = m.time_ns();
    if end > next_window - window_ns {
        windows.push(win.close(&m, manager.as_ref(), end, end - (next_window - window_ns)));
        hot_map.close_window();
    }
    let mut report = build_report(cfg, &workload, &m, windows, &scores, footprint);
    report.machine = machine_name;
    report.phase_starts_s = phase_starts_s;
    report.hot_map = hot_map.finish();
    Ok(report)
}
