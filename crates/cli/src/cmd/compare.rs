//! `thermocline compare`.

use crate::args::{Chatter, Common};
use crate::output::{check_chart_path, check_output, run_inputs, write_file};
use crate::progress::prescan;
use crate::table::print_table;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Instant;
use thermocline_reproductions::catalogue;

/// `thermocline compare`: every name and output path checked first, then
/// the runs in parallel under one progress line.
pub fn compare_cmd(
    common: &Common,
    managers: Vec<String>,
    json: Option<String>,
    plot: Option<String>,
    jobs: Option<usize>,
    chatter: Chatter,
) -> anyhow::Result<()> {
    use thermocline_engine::compare;
    use thermocline_engine::parallel;
    let mut base = common.load(None)?;
    // With neither a workload nor a configuration file, the main job.
    let main_job = common.workload.is_none() && common.config.is_none();
    if main_job {
        base.run.workload = catalogue::MAIN_JOB_WORKLOAD.to_string();
        base.run
            .backend
            .get_or_insert(catalogue::MAIN_JOB_BACKEND.to_string());
        base.run
            .fast_capacity
            .get_or_insert(catalogue::MAIN_JOB_FAST_CAPACITY.to_string());
    }
    let left_out = main_job && managers.is_empty();
    let names: Vec<String> = if managers.is_empty() {
        let all = if main_job {
            catalogue::main_job_managers()
        } else {
            catalogue::simulated_managers()
        };
        all.iter().map(|m| m.name.to_string()).collect()
    } else {
        managers
    };
    thermocline_engine::validate::check_sections(&base, &names)?;
    let inputs = run_inputs(common.config.as_deref(), &base.run.workload);
    if let Some(p) = &json {
        check_output(p, &inputs)?;
    }
    if let Some(p) = &plot {
        check_chart_path(p)?;
        check_output(p, &inputs)?;
    }
    let cfgs = compare::configs(&base, &names);
    prescan(&base.run.workload)?;
    compare::preflight(&cfgs)?;
    if let Some(first) = cfgs.first() {
        crate::guard::refuse_days(first, common.yes)?;
    }
    let jobs = jobs.unwrap_or_else(parallel::default_threads);
    let started = Instant::now();
    // no bar is drawn where stderr is not a terminal: a line per run there
    let lines_when_piped = !chatter.quiet && !std::io::stderr().is_terminal();
    let bar = if chatter.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(cfgs.len() as u64), ProgressDrawTarget::stderr())
    };
    bar.set_style(
        ProgressStyle::with_template(
            "compare: run {pos}/{len} [{bar:30}] {elapsed} elapsed, ~{eta} left: {msg}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let running = std::sync::Mutex::new(std::collections::BTreeSet::new());
    let show_running = |set: &std::collections::BTreeSet<usize>| {
        let names: Vec<&str> = set.iter().map(|&i| names[i].as_str()).collect();
        bar.set_message(names.join(", "));
    };
    let reports = compare::run_all(
        &cfgs,
        jobs,
        &|manager, w| bar.suspend(|| eprintln!("warning: {manager}: {w}")),
        &|i| {
            let mut set = running.lock().unwrap_or_else(|e| e.into_inner());
            set.insert(i);
            show_running(&set);
        },
        &|f| {
            let mut set = running.lock().unwrap_or_else(|e| e.into_inner());
            set.remove(&f.index);
            show_running(&set);
            bar.inc(1);
            if chatter.verbose || lines_when_piped {
                // indicatif holds the bar's state while suspended: read first
                let line = format!(
                    "[{}/{}] {} done at {:.1} s",
                    bar.position(),
                    cfgs.len(),
                    f.report.manager,
                    started.elapsed().as_secs_f64()
                );
                bar.suspend(|| eprintln!("{line}"));
            }
        },
    )?;
    bar.finish_and_clear();
    if !chatter.quiet {
        eprintln!(
            "compare: {} runs in {:.1} s on {jobs} thread(s)",
            reports.len(),
            started.elapsed().as_secs_f64()
        );
    }
    let (sizes, marked, unlike) = compare::tier_sizes(&reports);
    println!("workload {} ({sizes})", base.run.workload);
    print_table(&reports, &marked);
    for line in unlike {
        println!("* {line}");
    }
    for line in compare::explanations(&reports) {
        println!("why: {line}");
    }
    if left_out {
        for (name, why) in catalogue::MAIN_JOB_LEFT_OUT {
            println!("left out: {name}: {why}");
        }
    }
    if let Some(p) = json {
        let mut s = serde_json::to_string_pretty(&reports)?;
        s.push('\n');
        write_file(&p, &s)?;
    }
    if let Some(p) = plot {
        let chart = thermocline_present::plot::pareto_of(&reports);
        thermocline_present::plot::write(&chart, &p)?;
        if !chatter.quiet {
            eprintln!("wrote {p}");
        }
    }
    Ok(())
}
