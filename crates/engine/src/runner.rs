//! The one run loop: access -> telemetry -> decision -> migration, the same
//! for every backend.
//!
//! A [`Driver`] advances time to the next deadline (the manager's next tick
//! or the next report window); at a tick the manager acts through the backend
//! interface, and a hot set it reports is scored against the driver's ground
//! truth; at a window boundary the tally samples the counters. The report is
//! built once, at the end, from the tally and the driver.

use crate::config::RunConfig;
use crate::driver::{Driver, NoObserver, Observer};
use crate::drivers::exact::ExactDriver;
use crate::error::{ConfigError, RunError};
use crate::groundtruth::{reported_units, score_spans};
use crate::report::Report;
use crate::setup::{self, setup, BackendKind, Setup};
use crate::tally::{RunFacts, Tally};
use crate::validate;
use thermocline_backend::BackendError;
use thermocline_managers::{HotSet, Manager};

/// Ticks a manager may be due between two looks at the clock: far more means
/// its interval is far below the time a batch takes, or below what a tick
/// itself costs, and the run would not end.
const MAX_TICKS_AT_ONCE: u64 = 10_000;

/// Runs `cfg` and reports; `progress(done, total)` is called now and then.
pub fn run(cfg: &RunConfig, progress: &mut dyn FnMut(u64, u64)) -> Result<Report, RunError> {
    run_warned(cfg, progress, &mut |_| {})
}

/// [`run`], handing `warn` one line per warning about the configuration
/// (a scheme that can never match, naming where it was written) before
/// the run starts.
pub fn run_warned(
    cfg: &RunConfig,
    progress: &mut dyn FnMut(u64, u64),
    warn: &mut dyn FnMut(&str),
) -> Result<Report, RunError> {
    run_stoppable(cfg, progress, warn, &|| false)
}

/// [`run_warned`] that asks `stop` after each look at the clock and ends
/// with [`RunError::Stopped`] when it says so (a run on the guest is not
/// stopped: it restores the guest's settings at its end).
pub fn run_stoppable(
    cfg: &RunConfig,
    progress: &mut dyn FnMut(u64, u64),
    warn: &mut dyn FnMut(&str),
    stop: &dyn Fn() -> bool,
) -> Result<Report, RunError> {
    if setup::placement_of(cfg) == setup::Placement::Remote {
        // A real kernel in a QEMU guest, through the live backend. Its
        // workload runs on the wall clock: it has the machine to itself,
        // or simulated runs beside it would slow it down.
        let _alone = MACHINE.write().unwrap_or_else(|e| e.into_inner());
        let remote = REMOTE.get().ok_or_else(|| {
            ConfigError::invalid(
                "backend",
                "the guest backend is not part of this program (it comes with thermocline-daemon's guest::install)",
            )
        })?;
        return remote.run(cfg);
    }
    let _shared = MACHINE.read().unwrap_or_else(|e| e.into_inner());
    let s = setup(cfg)?;
    for w in &s.warnings {
        warn(w);
    }
    run_setup(cfg, s, progress, &mut NoObserver, &mut |_, _| {}, stop)
}

/// Taken shared by simulated runs and alone by runs on the guest.
static MACHINE: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// A backend that runs a whole configuration on another machine and hands
/// back its report: the QEMU guest, where `thermocline daemon` runs the same
/// loop over the live host's driver. It lives in the crate that owns it,
/// above the engine, and registers itself here once ([`install_remote`]).
pub trait RemoteBackend: Send + Sync {
    /// Runs `cfg` there and reports.
    fn run(&self, cfg: &RunConfig) -> Result<Report, RunError>;
}

static REMOTE: std::sync::OnceLock<&'static dyn RemoteBackend> = std::sync::OnceLock::new();

/// Makes `remote` the backend of configurations whose `run.backend` is
/// `guest` ([`setup::placement_of`]); a second call keeps the first.
pub fn install_remote(remote: &'static dyn RemoteBackend) {
    let _ = REMOTE.set(remote);
}

/// Runs `cfg`, showing every access to `obs` (exact machine only).
pub fn run_observed<O: Observer>(
    cfg: &RunConfig,
    progress: &mut dyn FnMut(u64, u64),
    obs: &mut O,
) -> Result<Report, RunError> {
    run_with(cfg, progress, obs, &mut |_, _| {})
}

/// Runs `cfg`, handing every hot set the manager reports (with the time in
/// simulated seconds) to `on_report`.
pub fn run_reporting(
    cfg: &RunConfig,
    progress: &mut dyn FnMut(u64, u64),
    on_report: &mut dyn FnMut(f64, &HotSet),
) -> Result<Report, RunError> {
    run_with(cfg, progress, &mut NoObserver, on_report)
}

fn run_with<O: Observer>(
    cfg: &RunConfig,
    progress: &mut dyn FnMut(u64, u64),
    obs: &mut O,
    on_report: &mut dyn FnMut(f64, &HotSet),
) -> Result<Report, RunError> {
    run_setup(cfg, setup(cfg)?, progress, obs, on_report, &|| false)
}

/// Runs an already resolved setup of `cfg`.
pub fn run_setup<O: Observer>(
    cfg: &RunConfig,
    s: Setup,
    progress: &mut dyn FnMut(u64, u64),
    obs: &mut O,
    on_report: &mut dyn FnMut(f64, &HotSet),
    stop: &dyn Fn() -> bool,
) -> Result<Report, RunError> {
    let Setup {
        manager,
        machine_name,
        mcfg,
        workload,
        footprint,
        window_ns,
        limit,
        backend,
        schemes,
        ..
    } = s;
    let manager_name = manager.name();
    let tiers = mcfg.tiers.clone();
    let facts = RunFacts {
        cfg,
        workload: workload.name.clone(),
        machine: machine_name,
        tiers: &tiers,
        phases: workload.phases.clone(),
        footprint,
        stop,
    };
    let regions = workload.regions.clone();
    let machine_error = |e: String| ConfigError::invalid("machine", e);
    match backend {
        BackendKind::Exact => {
            let mut d = ExactDriver::new(mcfg, workload, limit, obs)
                .map_err(|e| machine_error(e.to_string()))?;
            let caps = d.backend().capabilities();
            validate::check_actions(cfg, manager_name, &schemes, caps, d.kind())?;
            run_loop(
                &facts, &mut d, manager, &regions, window_ns, progress, on_report,
            )
        }
        BackendKind::Rate => {
            if O::OBSERVES {
                return Err(ConfigError::invalid(
                    "heatmap",
                    "access heatmaps need the exact machine (--backend exact); the rate machine simulates no individual access",
                )
                .into());
            }
            let profile = workload
                .rates
                .as_ref()
                .expect("setup chooses the rate backend only for workloads with rates");
            let mut d =
                crate::drivers::rate::RateDriver::new(mcfg, regions.clone(), profile, limit)
                    .map_err(|e| machine_error(e.to_string()))?;
            let caps = d.backend().capabilities();
            validate::check_actions(cfg, manager_name, &schemes, caps, d.kind())?;
            drop(workload);
            run_loop(
                &facts, &mut d, manager, &regions, window_ns, progress, on_report,
            )
        }
    }
}

/// The loop itself, for any driver.
pub fn run_loop(
    facts: &RunFacts,
    d: &mut dyn Driver,
    mut manager: Box<dyn Manager>,
    regions: &[thermocline_vocab::RegionInfo],
    window_ns: f64,
    progress: &mut dyn FnMut(u64, u64),
    on_report: &mut dyn FnMut(f64, &HotSet),
) -> Result<Report, RunError> {
    let cfg = facts.cfg;
    let name = manager.name();
    let failed = |e: BackendError, d: &dyn Driver| run_failure(facts, name, d, e);
    if let Err(e) = manager.start(d.backend()) {
        return Err(failed(e, d));
    }
    let mut next_tick = manager.tick_ns().map_or(f64::INFINITY, |t| t.max(1) as f64);
    let mut tally = Tally::new(cfg, d, regions, window_ns);
    let (done, total) = d.progress();
    progress(done, total);
    loop {
        let running = d.advance(next_tick.min(tally.next_window()))?;
        tally.check_clock(d.now_ns())?;
        let mut due = 0u64;
        while d.now_ns() >= next_tick {
            due += 1;
            if due > MAX_TICKS_AT_ONCE {
                return Err(ConfigError::invalid(
                    format!("manager {name}"),
                    format!("is due more than {MAX_TICKS_AT_ONCE} ticks at once: its interval is far below the time between two looks at the clock or the cost of a tick (check its parameters, workload.compute_ns and machine.costs)"),
                )
                .into());
            }
            match manager.tick(d.backend()) {
                Ok(Some(hot)) => {
                    on_report(d.now_ns() / 1e9, &hot);
                    tally.damon_regions(d.now_ns() / 1e9, manager.as_ref());
                    if let Some(actual) = d.hot_units(cfg.metrics.hot_threshold) {
                        tally.scored(&hot, score_spans(&reported_units(&hot), &actual));
                    }
                }
                Ok(None) => {}
                Err(e) => return Err(failed(e, d)),
            }
            d.after_tick();
            // read again: a manager may change its interval at a tick
            // (DAMON's intervals auto-tuning); the next tick is one new
            // interval after this one was due
            let Some(t) = manager.tick_ns().map(|t| t.max(1) as f64) else {
                next_tick = f64::INFINITY;
                break;
            };
            next_tick += t;
            if d.wall_clock() && d.now_ns() >= next_tick {
                // a tick outlasted its interval (one that waits for the
                // kernel, say): the next one is the next still ahead
                next_tick += ((d.now_ns() - next_tick) / t).floor() * t + t;
            }
        }
        tally.close_windows(d, manager.as_ref());
        d.observe(manager.as_ref());
        let (done, total) = d.progress();
        progress(done, total);
        if (facts.stop)() {
            return Err(RunError::Stopped {
                at_s: d.now_ns() / 1e9,
            });
        }
        if !running {
            break;
        }
    }
    Ok(tally.finish(facts, d, manager.as_ref()))
}

/// A manager's request the backend refused: the user's choice of backend
/// when it lacks a primitive, else a bug.
fn run_failure(facts: &RunFacts, manager: &str, d: &dyn Driver, e: BackendError) -> RunError {
    let backend = d.kind();
    match e {
        BackendError::Unsupported(capability) => RunError::Unsupported {
            manager: manager.to_string(),
            backend,
            capability,
        },
        BackendError::Unfit(why) => RunError::Unfit {
            manager: manager.to_string(),
            why,
        },
        error => RunError::Internal {
            manager: manager.to_string(),
            workload: facts.cfg.run.workload.clone(),
            seed: facts.cfg.run.seed,
            backend,
            at_s: d.now_ns() / 1e9,
            error,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use thermocline_backend::Backend;

    #[test]
    fn a_run_asked_to_stop_ends_stopped_partway() {
        let sets = [
            "run.manager=\"first-touch\"".to_string(),
            "run.duration_s=0.5".to_string(),
            "metrics.window_s=0.01".to_string(),
        ];
        let cfg = crate::config::load(None, &sets).unwrap();
        let asked = std::cell::Cell::new(0);
        let stop = || {
            asked.set(asked.get() + 1);
            asked.get() > 3
        };
        match run_stoppable(&cfg, &mut |_, _| {}, &mut |_| {}, &stop) {
            Err(e @ RunError::Stopped { at_s }) => {
                assert!(at_s > 0.0 && at_s < 0.5, "{at_s}");
                assert_eq!(e.exit_code(), 130);
            }
            other => panic!("{other:?}"),
        }
        let whole = run_stoppable(&cfg, &mut |_, _| {}, &mut |_| {}, &|| false).unwrap();
        assert_eq!(
            whole.to_json(),
            run(&cfg, &mut |_, _| {}).unwrap().to_json()
        );
    }

    /// A manager with a bug: its first tick asks for something impossible.
    struct Buggy;

    impl Manager for Buggy {
        fn name(&self) -> &'static str {
            "buggy"
        }
        fn start(&mut self, _: &mut dyn Backend) -> Result<(), BackendError> {
            Ok(())
        }
        fn tick_ns(&self) -> Option<u64> {
            Some(1_000_000)
        }
        fn tick(&mut self, b: &mut dyn Backend) -> Result<Option<HotSet>, BackendError> {
            b.huge_pages()
                .and_then(|x| x.split_huge(thermocline_vocab::Asid(0), 0))
                .map(|_| None)
        }
    }

    /// A manager whose interval doubles at every tick (1, 2, 4, ... ms), as
    /// DAMON's intervals auto-tuning changes its sampling interval; it
    /// records when it was ticked.
    struct Doubling {
        interval_ns: u64,
        ticks: std::sync::Arc<std::sync::Mutex<Vec<u64>>>,
    }

    impl Manager for Doubling {
        fn name(&self) -> &'static str {
            "doubling"
        }
        fn start(&mut self, _: &mut dyn Backend) -> Result<(), BackendError> {
            Ok(())
        }
        fn tick_ns(&self) -> Option<u64> {
            Some(self.interval_ns)
        }
        fn tick(&mut self, b: &mut dyn Backend) -> Result<Option<HotSet>, BackendError> {
            self.ticks.lock().unwrap().push(b.now_ns());
            self.interval_ns *= 2;
            Ok(None)
        }
    }

    #[test]
    fn the_next_tick_follows_the_interval_the_manager_gives_after_each_tick() {
        let cfg = crate::config::load(None, &["run.duration_s=0.05".into()]).unwrap();
        let mut s = setup(&cfg).unwrap();
        let ticks = std::sync::Arc::default();
        s.manager = Box::new(Doubling {
            interval_ns: 1_000_000,
            ticks: std::sync::Arc::clone(&ticks),
        });
        run_setup(
            &cfg,
            s,
            &mut |_, _| {},
            &mut NoObserver,
            &mut |_, _| {},
            &|| false,
        )
        .unwrap();
        let ticks = ticks.lock().unwrap().clone();
        // due at 1, 3, 7, 15, 31 ms (and 63 ms if the run lasts that long)
        assert!((5..=6).contains(&ticks.len()), "{ticks:?}");
        for (i, w) in ticks.windows(2).enumerate() {
            let gap = w[1] - w[0];
            let want = 2_000_000u64 << i;
            assert!(
                gap + 1_000_000 >= want && gap <= want + 1_000_000,
                "{ticks:?}"
            );
        }
    }

    #[test]
    fn a_manager_error_is_an_internal_error_that_names_how_to_reproduce_it() {
        let cfg = crate::config::load(None, &["run.duration_s=0.01".into()]).unwrap();
        let mut s = setup(&cfg).unwrap();
        s.manager = Box::new(Buggy);
        let e = run_setup(
            &cfg,
            s,
            &mut |_, _| {},
            &mut NoObserver,
            &mut |_, _| {},
            &|| false,
        )
        .unwrap_err();
        assert_eq!(e.exit_code(), 1);
        let msg = e.to_string();
        assert!(
            msg.starts_with("internal error: manager buggy failed at 0.001"),
            "{msg}"
        );
        assert!(msg.contains("--seed 1"), "{msg}");
        assert_eq!(msg.lines().count(), 1, "{msg}");
        // The backend's words are in the message, not chained again after it.
        assert!(std::error::Error::source(&e).is_none());
    }
}
