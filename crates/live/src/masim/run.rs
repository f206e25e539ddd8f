//! A whole run: fill the regions, announce them, run the phases on the wall
//! clock, verify on request and at the end, report.

use super::pattern::{burst, Picker};
use super::region::{footprint, scaled_pages, Region};
use super::report::{write_whole, PhaseReport, RegionReport, Report};
use super::signal::{take, VerifyRequests};
use super::verify::{verify, Trigger, Verification};
use super::{budget, MasimConfig, MasimError, Options};
use crate::LiveError;
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use thermocline_vocab::Rng;

/// Runs `cfg` (read from `config`, which names it in the report) as
/// [`super`] describes: the ready and verification lines go to `out`, the
/// phase lines to `log`. SIGUSR1 asks for a verification while it runs;
/// SIGTERM or SIGINT ends the phases early, then it verifies and reports as
/// at its end. The report says whether every verification was clean.
pub fn run(
    cfg: &MasimConfig,
    config: &str,
    opts: &Options,
    out: &mut dyn Write,
    log: &mut dyn Write,
) -> Result<Report, MasimError> {
    let requests = VerifyRequests::install()?;
    execute(
        cfg,
        config,
        opts,
        (requests.flag(), requests.stop()),
        out,
        log,
    )
}

/// What the options make of the config, checked before any memory is taken.
struct Plan {
    pages: Vec<usize>,
    durations: Vec<Duration>,
    pickers: Vec<Picker>,
}

impl Plan {
    fn new(cfg: &MasimConfig, opts: &Options) -> Result<Plan, MasimError> {
        let invalid = |m: String| Err(MasimError::Invalid(m));
        if opts.loops == 0 {
            return invalid("--loops must be at least 1".into());
        }
        if !(opts.size_scale.is_finite() && opts.size_scale > 0.0) {
            return invalid(format!(
                "--size-scale must be a positive number, got {}",
                opts.size_scale
            ));
        }
        if !(opts.time_scale.is_finite() && opts.time_scale >= 0.0) {
            return invalid(format!(
                "--time-scale must be a number >= 0, got {}",
                opts.time_scale
            ));
        }
        if opts.burst == 0 {
            return invalid("the burst must be at least one access".into());
        }
        // parse() gives neither; a config built by hand may.
        if cfg.phases.is_empty() {
            return invalid("the config has no phase".into());
        }
        for p in &cfg.phases {
            if let Some(x) = p.patterns.iter().find(|x| x.region >= cfg.regions.len()) {
                return invalid(format!(
                    "phase {}: a pattern names region {} of {}",
                    p.name,
                    x.region,
                    cfg.regions.len()
                ));
            }
        }
        let pages = cfg
            .regions
            .iter()
            .map(|(name, bytes)| {
                scaled_pages(*bytes, opts.size_scale).ok_or_else(|| {
                    MasimError::Invalid(format!(
                        "region {name}: {bytes} bytes x {} is beyond the address space",
                        opts.size_scale
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let durations = cfg
            .phases
            .iter()
            .map(|p| {
                Duration::try_from_secs_f64(p.duration_ms as f64 / 1000.0 * opts.time_scale)
                    .map_err(|_| {
                        MasimError::Invalid(format!(
                            "phase {}: {} ms x {} is too long",
                            p.name, p.duration_ms, opts.time_scale
                        ))
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let pickers = cfg
            .phases
            .iter()
            .map(|p| {
                Picker::new(p).ok_or_else(|| {
                    MasimError::Invalid(format!("phase {}: every probability is 0", p.name))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Plan {
            pages,
            durations,
            pickers,
        })
    }
}

fn stdout_error(e: std::io::Error) -> MasimError {
    LiveError::io("stdout", e, None).into()
}

fn stderr_error(e: std::io::Error) -> MasimError {
    LiveError::io("stderr", e, None).into()
}

/// [`run`] with `signals` standing for SIGUSR1 (verify now) and SIGTERM
/// (stop now).
pub(super) fn execute(
    cfg: &MasimConfig,
    config: &str,
    opts: &Options,
    signals: (&AtomicBool, &AtomicBool),
    out: &mut dyn Write,
    log: &mut dyn Write,
) -> Result<Report, MasimError> {
    let (verify_now, stop_now) = signals;
    let start = Instant::now();
    let start_clock_s = crate::sys::monotonic_s();
    let plan = Plan::new(cfg, opts)?;
    let needed = plan
        .pages
        .iter()
        .fold(0u64, |sum, &p| sum.saturating_add(footprint(p)));
    budget::check_here(needed)?;
    let mut regions = cfg
        .regions
        .iter()
        .zip(&plan.pages)
        .enumerate()
        .map(|(i, ((name, _), &pages))| Region::new(name, i, pages, opts.seed))
        .collect::<Result<Vec<_>, _>>()?;

    let pid = std::process::id();
    if let Some(p) = &opts.ready {
        write_whole(p, &format!("{pid}\n"))?;
    }
    writeln!(out, "masim: pid {pid}, regions ready").map_err(stdout_error)?;
    for r in &regions {
        let (a, b) = r.address_range();
        writeln!(out, "masim: region {} at {a:#x}-{b:#x}", r.name).map_err(stdout_error)?;
    }
    out.flush().map_err(stdout_error)?;
    let ready_s = start.elapsed().as_secs_f64();

    let mut verifications: Vec<Verification> = Vec::new();
    let mut check = |regions: &[Region], trigger, out: &mut dyn Write| {
        let v = verify(regions, start.elapsed().as_secs_f64(), trigger);
        writeln!(out, "{}", v.line()).map_err(stdout_error)?;
        out.flush().map_err(stdout_error)?;
        verifications.push(v);
        Ok::<(), MasimError>(())
    };

    let mut rng = Rng::derive(opts.seed, "masim-live");
    let most_patterns = cfg.phases.iter().map(|p| p.patterns.len()).max();
    // Each pattern's last_offset, 0 at every phase start as in masim.
    let mut cursors = vec![0u64; most_patterns.unwrap_or(0)];
    let mut phases = Vec::new();
    let mut phases_s = 0.0;
    'phases: for loop_index in 0..opts.loops {
        for ((phase, picker), &duration) in
            cfg.phases.iter().zip(&plan.pickers).zip(&plan.durations)
        {
            let t0 = Instant::now();
            let start_s = (t0 - start).as_secs_f64();
            writeln!(log, "masim: phase {} at {start_s:.3} s", phase.name).map_err(stderr_error)?;
            cursors.fill(0);
            let mut bursts = 0u64;
            loop {
                if take(verify_now) {
                    check(&regions, Trigger::Signal, out)?;
                }
                let k = picker.pick(&mut rng);
                let pattern = &phase.patterns[k];
                burst(
                    &mut regions[pattern.region],
                    pattern,
                    &mut cursors[k],
                    &mut rng,
                    opts.burst,
                );
                bursts += 1;
                // masim's test: strictly past the duration, after a burst.
                if t0.elapsed() > duration || stop_now.load(std::sync::atomic::Ordering::Relaxed) {
                    break;
                }
            }
            let wall_s = t0.elapsed().as_secs_f64();
            phases_s += wall_s;
            phases.push(PhaseReport {
                loop_index,
                name: phase.name.clone(),
                start_s,
                wall_s,
                bursts,
                accesses: bursts.saturating_mul(opts.burst),
            });
            if stop_now.load(std::sync::atomic::Ordering::Relaxed) {
                writeln!(log, "masim: stopped by a signal").map_err(stderr_error)?;
                break 'phases;
            }
        }
    }
    check(&regions, Trigger::End, out)?;

    let reads: u64 = regions.iter().map(|r| r.reads).sum();
    let writes: u64 = regions.iter().map(|r| r.writes).sum();
    let accesses = reads + writes;
    let accesses_per_s = if phases_s > 0.0 {
        accesses as f64 / phases_s
    } else {
        0.0
    };
    writeln!(
        log,
        "masim: {accesses} accesses ({reads} reads, {writes} writes) in {phases_s:.3} s of phases, {:.1} M accesses/s",
        accesses_per_s / 1e6
    )
    .map_err(stderr_error)?;
    let report = Report {
        config: config.to_string(),
        pid,
        seed: opts.seed,
        loops: opts.loops,
        size_scale: opts.size_scale,
        time_scale: opts.time_scale,
        burst: opts.burst,
        ready_s,
        start_clock_s,
        regions: regions
            .iter()
            .map(|r| RegionReport {
                name: r.name.clone(),
                bytes: r.size(),
                pages: r.pages() as u64,
                reads: r.reads,
                writes: r.writes,
            })
            .collect(),
        phases,
        reads,
        writes,
        phases_s,
        accesses_per_s,
        clean: verifications.iter().all(Verification::clean),
        verifications,
    };
    if let Some(p) = &opts.report {
        let mut text = serde_json::to_string_pretty(&report)
            .map_err(|e| MasimError::Invalid(format!("the report as JSON: {e}")))?;
        text.push('\n');
        write_whole(p, &text)?;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::masim::parse;
    use std::sync::atomic::Ordering;

    const TINY: &str = "a, 16384\nb, 8192\n\nfirst\n20\na, 1, 64, 3, rw\nb, 0, 4096, 1, ro\n\nsecond\n20\nb, 1, 0, 1, wo\n";

    fn opts() -> Options {
        Options {
            burst: 1000,
            ..Options::default()
        }
    }

    fn go(text: &str, opts: &Options, flag: &AtomicBool) -> (Report, String, String) {
        let cfg = parse(text, "tiny.cfg").unwrap();
        let (mut out, mut log) = (Vec::new(), Vec::new());
        let stop = AtomicBool::new(false);
        let r = execute(&cfg, "tiny.cfg", opts, (flag, &stop), &mut out, &mut log).unwrap();
        (
            r,
            String::from_utf8(out).unwrap(),
            String::from_utf8(log).unwrap(),
        )
    }

    #[test]
    fn runs_every_phase_for_its_time_and_verifies_clean() {
        let (r, out, log) = go(TINY, &opts(), &AtomicBool::new(false));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            format!("masim: pid {}, regions ready", std::process::id())
        );
        assert!(lines[1].starts_with("masim: region a at 0x"), "{out}");
        assert!(lines[2].starts_with("masim: region b at 0x"), "{out}");
        assert_eq!(
            lines[3],
            "masim: verified 6 pages (0.0 MiB), 0 corrupted bytes, 0 lost writes"
        );
        assert_eq!(lines.len(), 4);
        assert!(log.starts_with("masim: phase first at "), "{log}");
        assert!(log.contains("\nmasim: phase second at "), "{log}");
        assert!(r.clean);
        assert_eq!(r.phases.len(), 2);
        assert!(r.phases[0].wall_s > 0.02 && r.phases[1].start_s >= r.phases[0].start_s + 0.02);
        assert_eq!(r.phases[0].accesses, r.phases[0].bursts * 1000);
        // b is read in the first phase only, written in the second only.
        let (a, b) = (&r.regions[0], &r.regions[1]);
        assert_eq!((a.reads, a.pages, b.pages), (0, 4, 2));
        assert_eq!(b.writes, r.phases[1].accesses);
        assert_eq!(a.writes + b.reads, r.phases[0].accesses);
        assert!(a.writes > 0 && b.reads > 0);
        assert_eq!(
            r.reads + r.writes,
            r.phases.iter().map(|p| p.accesses).sum::<u64>()
        );
    }

    #[test]
    fn a_request_is_verified_between_bursts_and_loops_repeat_the_phases() {
        let flag = AtomicBool::new(true);
        let o = Options {
            loops: 2,
            time_scale: 0.0,
            ..opts()
        };
        let (r, out, _) = go(TINY, &o, &flag);
        assert!(!flag.load(Ordering::Relaxed));
        assert_eq!(out.lines().filter(|l| l.contains("verified")).count(), 2);
        assert_eq!(r.verifications[0].trigger, Trigger::Signal);
        assert_eq!(r.verifications[1].trigger, Trigger::End);
        // Time scale 0: one burst a phase, and each phase twice.
        let names: Vec<(u32, &str, u64)> = r
            .phases
            .iter()
            .map(|p| (p.loop_index, p.name.as_str(), p.bursts))
            .collect();
        assert_eq!(
            names,
            [
                (0, "first", 1),
                (0, "second", 1),
                (1, "first", 1),
                (1, "second", 1)
            ]
        );
    }

    #[test]
    fn the_same_seed_draws_the_same_bursts() {
        let o = Options {
            time_scale: 0.0,
            loops: 50,
            ..opts()
        };
        let flag = AtomicBool::new(false);
        let (a, _, _) = go(TINY, &o, &flag);
        let (b, _, _) = go(TINY, &o, &flag);
        let c = go(TINY, &Options { seed: 2, ..o }, &flag).0;
        let counts = |r: &Report| -> Vec<(u64, u64)> {
            r.regions.iter().map(|x| (x.reads, x.writes)).collect()
        };
        assert_eq!(counts(&a), counts(&b));
        assert_ne!(counts(&a), counts(&c));
    }

    #[test]
    fn bad_options_and_hand_built_configs_are_errors() {
        let cfg = parse(TINY, "t").unwrap();
        let flag = AtomicBool::new(false);
        let error = |c: &MasimConfig, o: &Options| {
            execute(
                c,
                "t",
                o,
                (&flag, &AtomicBool::new(false)),
                &mut Vec::new(),
                &mut Vec::new(),
            )
            .unwrap_err()
            .to_string()
        };
        let with = |set: fn(&mut Options)| {
            let mut o = opts();
            set(&mut o);
            o
        };
        for (o, needle) in [
            (with(|o| o.loops = 0), "--loops"),
            (with(|o| o.size_scale = 0.0), "--size-scale"),
            (with(|o| o.size_scale = f64::NAN), "--size-scale"),
            (with(|o| o.time_scale = -1.0), "--time-scale"),
            (with(|o| o.time_scale = 1e300), "too long"),
            (with(|o| o.size_scale = 1e300), "address space"),
            // Past memory and swap, or past what the allocator gives.
            (with(|o| o.size_scale = 1e12), "MiB|cannot allocate"),
        ] {
            let e = error(&cfg, &o);
            assert!(needle.split('|').any(|n| e.contains(n)), "{needle}: {e}");
        }
        // What parse() never gives.
        let mut no_region = cfg.clone();
        no_region.phases[0].patterns[0].region = 9;
        let mut no_phase = cfg.clone();
        no_phase.phases.clear();
        let mut idle = cfg.clone();
        idle.phases[1].patterns[0].probability = 0;
        for (c, needle) in [
            (no_region, "region 9 of 2"),
            (no_phase, "no phase"),
            (idle, "every probability is 0"),
        ] {
            let e = error(&c, &opts());
            assert!(e.contains(needle), "{needle}: {e}");
        }
    }

    #[test]
    fn the_report_file_is_json() {
        let p = std::env::temp_dir().join(format!("tc-masim-{}-report.json", std::process::id()));
        let o = Options {
            time_scale: 0.0,
            report: Some(p.clone()),
            ..opts()
        };
        let (r, _, _) = go(TINY, &o, &AtomicBool::new(false));
        let j: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        std::fs::remove_file(&p).unwrap();
        assert_eq!(j["config"], "tiny.cfg");
        assert_eq!(j["phases"][1]["name"], "second");
        assert_eq!(j["phases"][1]["loop"], 0);
        assert_eq!(j["verifications"][0]["trigger"], "end");
        assert_eq!(j["clean"], true);
        assert_eq!(j["writes"], r.writes);
    }
}
