//! The run loop on the rate-driven machine: no accesses to feed, only a
//! clock to advance from one manager tick or report window to the next.

use crate::config::RunConfig;
use crate::groundtruth::{reported_units, score_spans};
use crate::report::Report;
use crate::runner::{check_ticks, Setup, Tally};
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
    let mut tally = Tally::new(cfg, &m, &workload.regions, window_ns);
    tally.phase_starts_s.push(0.0);
    let mut last_report = 0.0;
    let threshold = cfg.metrics.hot_threshold as f64;
    let mut ticks = 0u64;
    progress(0, limit);
    loop {
        let running = m.advance(next_tick.min(tally.next_window()), limit as f64);
        let starts = &mut tally.phase_starts_s;
        while starts.len() <= m.phase() && starts.len() < workload.phases.len() {
            starts.push(m.phase_start_ns(starts.len()) / 1e9);
        }
        tally.check_clock(m.time_ns())?;
        let mut due = 0;
        while m.time_ns() >= next_tick {
            check_ticks(&mut due, manager.as_ref())?;
            if let Some(hot) = manager.tick(&mut m)? {
                on_report(m.time_ns() / 1e9, &hot);
                let actual = m.hot_units(last_report, m.progress(), threshold);
                last_report = m.progress();
                tally.scored(&hot, score_spans(&reported_units(&hot), &actual));
            }
            next_tick += tick_ns.expect("finite only with ticks");
            ticks += 1;
            if ticks.is_multiple_of(256) {
                progress(m.progress() as u64, limit);
            }
        }
        tally.close_windows(&m, manager.as_ref());
        if !running {
            break;
        }
    }
    progress(m.progress() as u64, limit);
    let mut report = tally.finish(cfg, &workload, &m, manager.as_ref(), footprint);
    report.machine = machine_name;
    Ok(report)
}
