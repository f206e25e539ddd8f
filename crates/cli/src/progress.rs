//! What a long command draws on stderr while it works: a run's progress
//! bar, byte and access counters, and a lackey trace's first pass.

use crate::args::Chatter;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};
use thermocline_engine::config::RunConfig;
use thermocline_engine::report::Report;
use thermocline_engine::runner;

/// A progress bar on stderr that appears only once a run has taken 2 s;
/// when stderr is not a terminal (a log, a pipe), a plain line every
/// [`PIPED_EVERY`] instead.
pub struct Progress {
    bar: ProgressBar,
    started: Instant,
    label: String,
    quiet: bool,
    piped: bool,
    last_line: Instant,
}

/// How often a run whose stderr is not a terminal says how far it is.
const PIPED_EVERY: Duration = Duration::from_secs(10);

impl Progress {
    pub fn new(label: &str, chatter: Chatter) -> Self {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{msg} [{bar:40}] {percent}% ({eta} left)")
                .expect("valid template")
                .progress_chars("=> "),
        );
        bar.set_message(label.to_string());
        Progress {
            bar,
            started: Instant::now(),
            label: label.to_string(),
            quiet: chatter.quiet,
            piped: !std::io::stderr().is_terminal(),
            last_line: Instant::now(),
        }
    }

    pub fn update(&mut self, done: u64, total: u64) {
        self.bar.set_length(total.max(1));
        self.bar.set_position(done);
        if self.quiet {
            return;
        }
        if self.piped {
            if self.last_line.elapsed() >= PIPED_EVERY {
                self.last_line = Instant::now();
                eprintln!(
                    "{}: {:.0}% after {:.0} s",
                    self.label,
                    100.0 * done as f64 / total.max(1) as f64,
                    self.started.elapsed().as_secs_f64()
                );
            }
        } else if self.bar.is_hidden() && self.started.elapsed() > Duration::from_secs(2) {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    pub fn finish(self) {
        self.bar.finish_and_clear();
        if self.quiet {
            return;
        }
        eprintln!(
            "{}: {:.1} s wall",
            self.label,
            self.started.elapsed().as_secs_f64()
        );
    }
}

pub fn run_one(cfg: &RunConfig, chatter: Chatter) -> anyhow::Result<Report> {
    let mut p = Progress::new(
        &format!("{} on {}", cfg.run.manager, cfg.run.workload),
        chatter,
    );
    let r = runner::run_warned(cfg, &mut |d, t| p.update(d, t), &mut |w| {
        eprintln!("warning: {w}");
    })?;
    p.finish();
    Ok(r)
}

/// A byte or access counter on stderr, drawn only on a terminal.
pub fn counter_bar(template: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(template)
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar
}

/// Reads a lackey trace's first pass (checks and page set) under a progress
/// bar, so that the runs after it find it done.
pub fn prescan(workload: &str) -> anyhow::Result<()> {
    let Some(path) = workload.strip_prefix("lackey:") else {
        return Ok(());
    };
    let bar = counter_bar("reading {msg} [{bar:30}] {bytes}/{total_bytes} ({eta} left)");
    bar.set_message(path.to_string());
    thermocline_engine::traces::scan_lackey(path, &mut |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    })?;
    bar.finish_and_clear();
    Ok(())
}
