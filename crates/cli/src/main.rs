//! The `thermocline` command line: run, compare, heatmap, reproduce, list,
//! config show, and masim (a MASIM config executed for real, for the live
//! backend's tests).
//!
//! It talks to the engine, presentation, sweep, daemon and reproductions crates, and to `thermocline-live` for
//! masim only. Every error a user can cause
//! (unknown name, malformed config, bad `--set` value, unreadable trace) ends
//! the process with exit code 2 and one line naming the file and line where
//! there is one; an internal failure (a manager's bug, a broken invariant, a
//! panic) exits with 1 and says "internal error" and how to reproduce it.
//! `masim` exits with 3 when its memory failed verification.

mod live;

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::{Duration, Instant};
use thermocline_engine::config::{self, RunConfig};
use thermocline_engine::report::Report;
use thermocline_engine::runner;
use thermocline_engine::RunError;
use thermocline_present::heatmap;
use thermocline_reproductions::catalogue;

#[derive(Parser)]
#[command(
    name = "thermocline",
    version,
    about = "Hot/cold telemetry and tier placement for tiered main memory"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run one workload under one manager and report.
    Run {
        #[command(flatten)]
        common: Common,
        /// Manager (see `list`) [default: first-touch].
        #[arg(long)]
        manager: Option<String>,
        /// Write the JSON report here (docs/report-schema.md).
        #[arg(long)]
        json: Option<String>,
        #[command(flatten)]
        chatter: Chatter,
    },
    /// Run one workload under several managers: one table, one JSON.
    /// With no options, the main job: the built-in 2-minute multiphase-2min workload on the rate machine at a 50% fast tier, under every manager that acts.
    Compare {
        #[command(flatten)]
        common: Common,
        /// Comma-separated managers; default: every one the simulated machines run (not the live-only kernel-tiering and damon-kernel), or with neither --workload nor --config the main job's (every one that acts by itself; the rest are listed under the table)
        #[arg(long, value_delimiter = ',')]
        managers: Vec<String>,
        /// Write the JSON (a list of reports, docs/report-schema.md) here.
        #[arg(long)]
        json: Option<String>,
        /// Write a Pareto chart here (.png or .svg): slowdown against fast-tier GiB-seconds, one point per manager, the frontier joined.
        #[arg(long)]
        plot: Option<String>,
        /// Runs in parallel [default: one per core]; the reports are the same whatever the number.
        #[arg(long, value_parser = at_least_one)]
        jobs: Option<usize>,
        #[command(flatten)]
        chatter: Chatter,
    },
    /// What this Linux host offers a tiering daemon (NUMA nodes, memory tiers, pagemap, soft-dirty, DAMON, swap...), tried on this process's own memory.
    Probe {
        /// Also look at this process: its mappings, pages per node, and whether it may be touched.
        #[arg(long)]
        pid: Option<i32>,
        /// With --pid: where the pages of this address range are (START-END, e.g. as `thermocline masim` prints its regions); repeatable.
        #[arg(long = "range", value_parser = live::parse_range)]
        ranges: Vec<(u64, u64)>,
        /// JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Tier real processes: a manager acting on a pid, a cgroup or a command it starts, with quotas, dry-run and Prometheus metrics (see README, Live).
    Daemon {
        /// The daemon's TOML config (see examples/live-thermostat.toml).
        #[arg(long)]
        config: String,
        /// Tier this process instead of the config's target.
        #[arg(long)]
        pid: Option<i32>,
    },
    /// Start a command and tier it while it runs, as the daemon would (same run loop, logs and metrics): ends when the command does and exits with its exit code (128 + the signal if a signal killed it); SIGINT and SIGTERM are sent on to the command (see README, Live).
    Exec(live::ExecArgs),
    /// Watch a process live, read-only: per anonymous mapping (or --bin) its pages per NUMA node and tier, swapped, moved, and a heat bar from DAMON (when this host lets thermocline run a kdamond of its own), soft-dirty writes (--writes) and page-ins; plus its fault rates and the host's memory pressure. Redraws a terminal in place; plain lines when piped or with --once; --json for machines.
    Monitor(live::MonitorArgs),
    /// Move random pages of a process between every tier and swap as fast as the kernel lets it: a test that the live backend loses no data (run it on `thermocline masim`, which checks its own).
    Torture {
        /// The process.
        #[arg(long)]
        pid: i32,
        /// Stop after this many pages moved or paged out.
        #[arg(long, default_value_t = 100_000)]
        moves: u64,
        /// Pages per move.
        #[arg(long, default_value_t = 512)]
        batch: usize,
        /// The seed of the random choices.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Move between NUMA nodes only (no page-outs, which split THPs).
        #[arg(long)]
        no_page_out: bool,
    },
    /// Draw accesses over time x address (like damo's report heatmap): a PNG or SVG with time and address axes and a colour scale.
    Heatmap {
        #[command(flatten)]
        common: Common,
        /// Manager to run while recording [default: first-touch].
        #[arg(long)]
        manager: Option<String>,
        /// Output file: .png or .svg.
        #[arg(long)]
        out: String,
        /// Image width in pixels (at least 320); also the number of time bins.
        #[arg(long, default_value_t = 800, value_parser = at_least_one)]
        width: usize,
        /// Image height in pixels (at least 240).
        #[arg(long, default_value_t = 480, value_parser = at_least_one)]
        height: usize,
        /// Address bins (rows of the heatmap).
        #[arg(long, default_value_t = 400, value_parser = at_least_one)]
        bins: usize,
        #[command(flatten)]
        chatter: Chatter,
    },
    /// Run a grid of runs from a sweep spec (TOML; docs/sweeps.md): one report per cell in DIR/cells, the table of all cells in DIR/table.csv; cells already in DIR are not run again.
    Sweep {
        /// The sweep spec (TOML).
        spec: String,
        /// The sweep's directory (created if missing).
        #[arg(long)]
        out: String,
        /// Cells run in parallel [default: one per core]; the files are the same whatever the number.
        #[arg(long, value_parser = at_least_one)]
        jobs: Option<usize>,
        /// Run each cell as a Ray task instead: on the cluster at ADDRESS, or alone on a new local one (needs the Python package with Ray: tools/python/install.sh; the interpreter is $THERMOCLINE_PYTHON, else .venv/bin/python, else python3).
        #[arg(long, value_name = "ADDRESS", num_args = 0..=1, default_missing_value = "")]
        ray: Option<String>,
        /// Check the spec and list its cells (id, values, seed, whether DIR holds it, the host memory it asks a scheduler for) without running any.
        #[arg(long, conflicts_with = "ray")]
        dry_run: bool,
        #[command(flatten)]
        chatter: Chatter,
    },
    /// Record DAMON's view of a run (like damo record): the run's report with DAMON's regions at every aggregation interval, for `report`.
    Record {
        #[command(flatten)]
        common: Common,
        /// A manager that keeps DAMON-style regions [default: damon-moderate].
        #[arg(long)]
        manager: Option<String>,
        /// The recording to write (JSON).
        #[arg(long)]
        out: String,
        #[command(flatten)]
        chatter: Chatter,
    },
    /// Views of a recording (like damo report): `heatmap` (time x address, the access frequency DAMON saw), `wss` (the working-set-size distribution) or `access` (the regions at one moment).
    Report {
        /// A recording: `record --out`'s file, or any `run --json` with DAMON's regions (simulated or on the guest).
        file: String,
        /// heatmap, wss or access.
        #[arg(value_enum)]
        view: ReportView,
        /// heatmap: the chart to write (.png or .svg).
        #[arg(long)]
        out: Option<String>,
        /// heatmap: address bins.
        #[arg(long, default_value_t = 256, value_parser = at_least_one)]
        bins: usize,
        /// access: the moment (s); the last snapshot at or before it [default: the last snapshot].
        #[arg(long)]
        at: Option<f64>,
    },
    /// Parse a trace once: valgrind-lackey text to the compact binary trace
    /// (`convert lackey:IN OUT.trace`, then `--workload trace:OUT.trace`
    /// replays it without parsing), or a binary trace back to lackey-style
    /// text (`convert trace:IN OUT.lackey`). Streams: memory stays bounded
    /// whatever the trace's size.
    Convert {
        /// lackey:PATH or trace:PATH.
        input: String,
        /// The file to write.
        out: String,
    },
    /// Regenerate a paper's figures and tables from scratch (`--list` shows
    /// them). Several names share their runs.
    Reproduce(ReproduceArgs),
    /// List workloads, managers and machine presets.
    List,
    /// The configuration itself: `config show`.
    Config {
        #[command(subcommand)]
        cmd: ConfigCmd,
    },
    /// Execute a MASIM config for real: fill its regions with content that
    /// can be verified, run its phases on the wall clock, verify at the end
    /// and on SIGUSR1. Exit 0 when every byte and write checked out, 3 when
    /// not.
    Masim(live::MasimArgs),
    /// Record the kernel's own DAMON on a process: starts a kdamond of its own (vaddr; root, and only when no other kdamond exists), prints a JSON line per snapshot of DAMON's regions (about one per aggregation interval; `t_s` since the start and `clock_s` on CLOCK_MONOTONIC, both taken once the regions are read, so later than the interval they show), and removes the kdamond at the end.
    DamonRecord(live::DamonRecordArgs),
}

#[derive(Subcommand)]
enum ConfigCmd {
    /// Print the effective configuration of `run` with the same options:
    /// the file merged with --set and the flags, every default filled in
    /// (the machine, fast capacity, backend, the preset's LLC, MLP and
    /// memory system, each manager's parameters and schemes), checked as a
    /// run checks it. The TOML reads back unchanged: `config show` or
    /// `run --config` of it gives the same. JSON is output only (--config
    /// reads TOML).
    Show {
        #[command(flatten)]
        common: Common,
        /// Manager (see `list`).
        #[arg(long)]
        manager: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ShowFormat::Toml)]
        format: ShowFormat,
    },
}

/// `report`'s views.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ReportView {
    /// Time x address, coloured by access frequency.
    Heatmap,
    /// The working-set-size distribution (percentiles over the snapshots).
    Wss,
    /// The regions of one snapshot.
    Access,
}

/// `config show --format`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ShowFormat {
    /// TOML, which `--config` reads.
    Toml,
    /// JSON (output only).
    Json,
}

/// How much a long command says on stderr besides its results.
#[derive(Args, Clone, Copy, Default)]
struct Chatter {
    /// No progress and no per-run lines: only results, warnings and errors.
    #[arg(long, conflicts_with = "verbose")]
    quiet: bool,
    /// A line per finished run (its wall time), also when stderr is not a terminal.
    #[arg(long)]
    verbose: bool,
}

#[derive(Args, Clone)]
struct Common {
    /// Workload: preset name, MASIM config path, lackey:PATH or trace:PATH [default: multiphase; the config file's, if it names one].
    #[arg(long)]
    workload: Option<String>,
    /// Machine preset [default: the manager's own machine if it has one, else dram+dcpmm].
    #[arg(long)]
    machine: Option<String>,
    /// Fast-tier capacity: a size (512MiB) or a percentage of the footprint (50%) [default: the manager's own, else the machine preset's, else 50%].
    #[arg(long)]
    fast_capacity: Option<String>,
    /// Stop after this many seconds of nominal workload time [default: the whole workload].
    #[arg(long)]
    duration: Option<f64>,
    /// The one seed [default: 1].
    #[arg(long)]
    seed: Option<u64>,
    /// Machine backend: exact (access by access), rate (from access rates, for
    /// terabyte footprints) or auto (rate above 64 GiB when the workload has rates) [default: auto].
    #[arg(long)]
    backend: Option<String>,
    /// TOML configuration file.
    #[arg(long)]
    config: Option<String>,
    /// Override one configuration value, e.g. `random.fast_probability=0.3`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
}

impl Common {
    fn load(&self, manager: Option<&str>) -> anyhow::Result<RunConfig> {
        let text;
        let file = match &self.config {
            Some(p) => {
                text = std::fs::read_to_string(p)
                    .map_err(|e| anyhow::anyhow!("{p}: cannot read: {e}"))?;
                Some((p.as_str(), text.as_str()))
            }
            None => None,
        };
        let mut cfg = config::load(file, &self.sets)?;
        if let Some(w) = &self.workload {
            cfg.run.workload = w.clone();
        }
        if let Some(m) = &self.machine {
            cfg.run.machine = Some(m.clone());
        }
        if let Some(c) = &self.fast_capacity {
            cfg.run.fast_capacity = Some(c.clone());
        }
        if let Some(d) = self.duration {
            cfg.run.duration_s = Some(d);
        }
        if let Some(s) = self.seed {
            cfg.run.seed = s;
        }
        if let Some(b) = &self.backend {
            cfg.run.backend = Some(b.clone());
        }
        if let Some(m) = manager {
            cfg.run.manager = m.to_string();
        }
        Ok(cfg)
    }
}

/// A progress bar on stderr that appears only once a run has taken 2 s.
struct Progress {
    bar: ProgressBar,
    started: Instant,
    label: String,
    quiet: bool,
}

impl Progress {
    fn new(label: &str, chatter: Chatter) -> Self {
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
        }
    }

    fn update(&mut self, done: u64, total: u64) {
        self.bar.set_length(total.max(1));
        self.bar.set_position(done);
        if !self.quiet && self.bar.is_hidden() && self.started.elapsed() > Duration::from_secs(2) {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    fn finish(self) {
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

fn run_one(cfg: &RunConfig, chatter: Chatter) -> anyhow::Result<Report> {
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

/// `reproduce`'s options.
#[derive(Args)]
struct ReproduceArgs {
    /// Reproductions to run.
    names: Vec<String>,
    /// Run every reproduction.
    #[arg(long, conflicts_with = "names")]
    all: bool,
    /// List the reproductions and exit.
    #[arg(long)]
    list: bool,
    /// Print each of the paper's claims as held / NOT held, our figure
    /// beside the paper's; exit 1 if any claim does not hold.
    #[arg(long)]
    check: bool,
    /// Write RESULTS.md-style markdown (stamped with the commit and this
    /// command, every claim's verdict, every table) here.
    #[arg(long)]
    markdown: Option<String>,
    /// Write the JSON (an object keyed by reproduction, each with its
    /// claims' verdicts under "claims") here.
    #[arg(long)]
    json: Option<String>,
    /// Write the charts (SVG) into this directory.
    #[arg(long)]
    out: Option<String>,
    /// Cap every run at this many simulated seconds (quick looks; the
    /// paper's figures need the full runs).
    #[arg(long)]
    duration: Option<f64>,
    /// Seed of every run.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Runs in parallel (default: one per core).
    #[arg(long)]
    jobs: Option<usize>,
    /// Keep the runs in this sweep directory (docs/sweeps.md: a report
    /// per run in DIR/cells, keyed by commit, the table in DIR/table.csv,
    /// the runs as a sweep spec in DIR/spec.toml) and reuse the ones
    /// already there: an interrupted reproduction resumes where it stopped
    /// (needs a tree without uncommitted changes).
    #[arg(long, value_name = "DIR")]
    cache: Option<String>,
    /// Run each run as a Ray task, on the cluster at ADDRESS or alone on a
    /// new local one, gathering them in the --cache directory, then
    /// summarize as without it (needs the Python package with Ray:
    /// tools/python/install.sh).
    #[arg(long, value_name = "ADDRESS", num_args = 0..=1, default_missing_value = "", requires = "cache")]
    ray: Option<String>,
}

/// `reproduce --check` found claims that do not hold (exit 1: the results,
/// not the input, are wrong).
#[derive(Debug)]
struct ClaimsNotHeld {
    not_held: usize,
    total: usize,
}

impl std::fmt::Display for ClaimsNotHeld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} of {} claims do not hold", self.not_held, self.total)
    }
}

impl std::error::Error for ClaimsNotHeld {}

/// The commit the working tree is at (`-dirty` with uncommitted changes to
/// tracked files), or "unknown" outside a git checkout.
fn commit() -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(c) if !c.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{c}-dirty")
            } else {
                c
            }
        }
        _ => "unknown".into(),
    }
}

/// Whether a [`commit`] names the code it stands for: not a tree with
/// uncommitted changes, nor one outside git.
fn names_its_code(commit: &str) -> bool {
    commit != "unknown" && !commit.ends_with("-dirty")
}

/// The command line as typed, the program named `thermocline`.
fn command_line() -> String {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    args.insert(0, "thermocline".into());
    args.join(" ")
}

fn reproduce_cmd(a: ReproduceArgs) -> anyhow::Result<()> {
    use thermocline_reproductions::claims;
    use thermocline_reproductions::reproduce;
    use thermocline_reproductions::results_md;
    use thermocline_sweep as sweep;
    let ReproduceArgs {
        mut names,
        all,
        list,
        check,
        markdown,
        json,
        out,
        duration,
        seed,
        jobs,
        cache,
        ray,
    } = a;
    if all {
        names = reproduce::all()
            .iter()
            .map(|r| r.name.to_string())
            .collect();
    }
    if names.is_empty() && !list {
        if let Some(p) = &markdown {
            // Rebuilds the summary from the sections already there (after
            // sections were merged from elsewhere, say); runs nothing.
            let opts = reproduce::Options {
                duration_s: duration,
                seed,
            };
            return write_results_md(p, Vec::new(), &opts);
        }
    }
    if list || names.is_empty() {
        for r in catalogue::reproductions() {
            println!("  {:<24} {}", r.name, r.description);
        }
        if names.is_empty() && !list {
            anyhow::bail!("name at least one reproduction (listed above), or --all, or only --markdown FILE to rebuild its summary");
        }
        return Ok(());
    }
    if let Some(d) = duration {
        if !(d.is_finite() && d > 0.0) {
            anyhow::bail!("--duration must be a positive number of seconds");
        }
        eprintln!(
            "warning: --duration {d} caps every run at {d} simulated seconds: a manager whose first period is longer (Thermostat's is 30 s, kstaled's 10 s) does nothing, and its rows read as zeros; the paper's figures need the full runs (no --duration)"
        );
    }
    let repros = reproduce::find(&names)?;
    for p in json.iter().chain(&markdown) {
        check_writable(p)?;
    }
    let opts = reproduce::Options {
        duration_s: duration,
        seed,
    };
    let jobs = jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    // The stamp is taken before the runs: the tree may change while they go.
    let stamp = results_md::Stamp {
        commit: commit(),
        command: command_line(),
        duration_s: duration,
        seed,
    };
    let code = &stamp.commit;
    let cache = match cache {
        None => None,
        Some(dir) => {
            if !names_its_code(code) {
                return Err(thermocline_engine::ConfigError::invalid(
                    "--cache",
                    format!("runs are keyed by commit and this tree is at {code:?}: commit (or stash) the changes first"),
                )
                .into());
            }
            let d = sweep::SweepDir::open(&dir)?;
            // the runs as a sweep spec: what `sweep` or `--ray` runs
            let names: Vec<&str> = repros.iter().map(|r| r.name).collect();
            let (spec, _) = reproduce::sweep_spec(
                &names.join("+"),
                &reproduce::runs_of(&repros, &opts),
                &opts,
            )?;
            write_file(&format!("{dir}/spec.toml"), &spec.to_toml())?;
            Some((d, dir))
        }
    };
    let started = std::time::Instant::now();
    let progress = |done, total, spec: &reproduce::RunSpec, source| {
        let from = match source {
            reproduce::Source::Cache => "from the cache".to_string(),
            reproduce::Source::Ran => format!("{:.0} s", started.elapsed().as_secs_f64()),
        };
        eprintln!(
            "[{done}/{total}] {} on {} {} ({from})",
            spec.manager,
            spec.workload,
            spec.sets.join(" "),
        );
    };
    let done = match (&ray, &cache) {
        (Some(address), Some((d, dir))) => {
            // the sweep's own lines go to stderr: stdout is the reproduction's
            let exit = sweep_on_ray(
                &format!("{dir}/spec.toml"),
                dir,
                None,
                address,
                Chatter::default(),
                true,
            )?;
            if exit != 0 {
                std::process::exit(exit);
            }
            reproduce::reproduce_from(&repros, &opts, d, code)?
        }
        _ => reproduce::reproduce(
            &repros,
            &opts,
            jobs,
            cache.as_ref().map(|(d, _)| (d, code.as_str())),
            &progress,
        )?,
    };
    let mut everything = serde_json::Map::new();
    for d in &done {
        let (name, o) = (d.name, &d.output);
        println!("== {name}\n{}", o.text);
        if check {
            println!("claims:\n{}", claims::render(&d.verdicts));
        }
        let mut j = o.json.clone();
        if let Some(obj) = j.as_object_mut() {
            obj.insert("claims".into(), serde_json::to_value(&d.verdicts)?);
        }
        everything.insert(name.to_string(), j);
        if let Some(dir) = &out {
            std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{dir}: {e}"))?;
            for (file, svg) in &o.charts {
                let path = format!("{dir}/{file}");
                write_file(&path, svg)?;
                eprintln!("wrote {path}");
            }
        }
    }
    if let Some(p) = json {
        let mut s = serde_json::to_string_pretty(&serde_json::Value::Object(everything))?;
        s.push('\n');
        write_file(&p, &s)?;
    }
    if let Some(p) = markdown {
        let fresh = done
            .iter()
            .map(|d| results_md::section(&stamp, d))
            .collect();
        write_results_md(&p, fresh, &opts)?;
    }
    let total: usize = done.iter().map(|d| d.verdicts.len()).sum();
    let not_held = done
        .iter()
        .flat_map(|d| &d.verdicts)
        .filter(|v| !v.held)
        .count();
    if check {
        println!("claims: {} held, {not_held} not held", total - not_held);
        if not_held > 0 {
            return Err(ClaimsNotHeld { not_held, total }.into());
        }
    }
    Ok(())
}

/// `thermocline compare`: every name and output path checked first, then
/// the runs in parallel under one progress line.
fn compare_cmd(
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
    if let Some(p) = &json {
        check_writable(p)?;
    }
    if let Some(p) = &plot {
        check_chart_path(p)?;
        check_writable(p)?;
    }
    let cfgs = compare::configs(&base, &names);
    prescan(&base.run.workload)?;
    compare::preflight(&cfgs)?;
    let jobs = jobs.unwrap_or_else(parallel::default_threads);
    let started = Instant::now();
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
            if chatter.verbose {
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
    println!(
        "workload {} on {} (fast tier: {})",
        base.run.workload,
        reports.first().map_or("-", |r| r.machine.as_str()),
        base.run
            .fast_capacity
            .as_deref()
            .unwrap_or("manager default, else 50% of footprint")
    );
    print_table(&reports);
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

/// `thermocline report FILE VIEW`.
fn report_cmd(
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
        check_writable(out)?;
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

/// A byte count as people read it (1.5 GiB).
/// A chart's file must be one the chart writers know, said before the run.
fn check_chart_path(path: &str) -> anyhow::Result<()> {
    let lower = path.to_ascii_lowercase();
    if lower.ends_with(".png") || lower.ends_with(".svg") {
        Ok(())
    } else {
        anyhow::bail!("{path}: a chart is written as .png or .svg: name the file so")
    }
}

/// A byte or access counter on stderr, drawn only on a terminal.
fn counter_bar(template: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(template)
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar
}

/// Reads a sweep spec file: its text and the spec.
fn read_spec(path: &str) -> anyhow::Result<(String, thermocline_sweep::SweepSpec)> {
    let text =
        std::fs::read_to_string(path).map_err(|e| thermocline_engine::ConfigError::InFile {
            file: path.to_string(),
            msg: format!("cannot read: {e}"),
        })?;
    let spec = thermocline_sweep::SweepSpec::parse(path, &text)?;
    Ok((text, spec))
}

/// `thermocline sweep --dry-run`: the spec checked and its cells listed,
/// nothing run or written.
fn sweep_plan(path: &str, out: &str) -> anyhow::Result<()> {
    use thermocline_sweep as sweep;
    let (text, spec) = read_spec(path)?;
    spec.check(Some((path, &text)))?;
    let code = commit();
    let dir = std::path::Path::new(out)
        .is_dir()
        .then(|| sweep::SweepDir::open(out))
        .transpose()?;
    let (mut stored, mut largest) = (0, 0);
    let cells = spec.cells();
    for cell in &cells {
        let there = dir.as_ref().is_some_and(|d| d.load(cell, &code).is_some());
        stored += usize::from(there);
        let bytes = spec.memory_bytes(cell)?;
        largest = largest.max(bytes);
        let values: Vec<String> = cell
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        println!(
            "{} seed={} {:>9} {} {}",
            cell.id,
            cell.seed,
            thermocline_engine::report::human_bytes(bytes),
            if there { "stored " } else { "to run " },
            values.join(" ")
        );
    }
    println!(
        "{}: {} cells, {stored} already in {out}, {} to run; the largest asks for {}",
        spec.name,
        cells.len(),
        cells.len() - stored,
        thermocline_engine::report::human_bytes(largest)
    );
    Ok(())
}

/// `thermocline sweep`: the spec and every cell's configuration checked,
/// then the cells not yet in `out` run in parallel under one progress line.
fn sweep_cmd(path: &str, out: &str, jobs: Option<usize>, chatter: Chatter) -> anyhow::Result<()> {
    use thermocline_engine::parallel;
    use thermocline_sweep as sweep;
    let (text, spec) = read_spec(path)?;
    let dir = sweep::SweepDir::open(out)?;
    let code = commit();
    if !names_its_code(&code) {
        eprintln!("warning: the tree is at {code:?}: cells stored by another edit of it would be reused as if this one had made them");
    }
    let cells = spec.cells();
    let jobs = jobs.unwrap_or_else(parallel::default_threads);
    let started = Instant::now();
    let bar = if chatter.quiet {
        ProgressBar::hidden()
    } else {
        counter_bar("sweep {msg}: cell {pos}/{len} [{bar:30}] {elapsed} elapsed, ~{eta} left")
    };
    bar.set_length(cells.len() as u64);
    bar.set_message(spec.name.clone());
    let outcome = sweep::run_local(
        &spec,
        Some((path, &text)),
        Some(&dir),
        &code,
        jobs,
        &|i, cell, resumed| {
            bar.inc(1);
            if chatter.verbose {
                let how = if resumed { "already there" } else { "ran" };
                let line = format!(
                    "[{}/{}] cell {} ({}) {how} at {:.1} s",
                    bar.position(),
                    cells.len(),
                    cell.id,
                    cells[i]
                        .params
                        .iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .chain(std::iter::once(format!("seed={}", cell.seed)))
                        .collect::<Vec<_>>()
                        .join(" "),
                    started.elapsed().as_secs_f64()
                );
                bar.suspend(|| eprintln!("{line}"));
            }
        },
        // the CLI ends on Ctrl-C at once; stored cells are whole
        &|| false,
    )?;
    bar.finish_and_clear();
    if !chatter.quiet {
        eprintln!(
            "sweep {}: {} cells ({} already there) in {:.1} s on {jobs} thread(s)",
            spec.name,
            outcome.cells.len(),
            outcome.resumed,
            started.elapsed().as_secs_f64()
        );
    }
    println!("{out}/table.csv: {} cells", outcome.cells.len());
    Ok(())
}

/// `thermocline sweep --ray`: the Python package's sweep (the same cells,
/// as Ray tasks), keyed by this checkout's commit as the local sweep is;
/// its stdout on ours, or on stderr. Returns its exit code.
fn sweep_on_ray(
    spec: &str,
    out: &str,
    jobs: Option<usize>,
    address: &str,
    chatter: Chatter,
    stdout_to_stderr: bool,
) -> anyhow::Result<i32> {
    let python = std::env::var("THERMOCLINE_PYTHON").unwrap_or_else(|_| {
        let venv = std::path::Path::new(".venv/bin/python");
        if venv.exists() {
            venv.display().to_string()
        } else {
            "python3".into()
        }
    });
    let has_it = std::process::Command::new(&python)
        .args(["-c", "import thermocline.sweep, ray"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has_it {
        return Err(thermocline_engine::ConfigError::invalid(
            "--ray",
            format!("{python} cannot import thermocline and ray: install them (bash tools/python/install.sh), or name the interpreter in THERMOCLINE_PYTHON"),
        )
        .into());
    }
    let mut cmd = std::process::Command::new(&python);
    cmd.args([
        "-m",
        "thermocline.sweep",
        spec,
        "--out",
        out,
        "--code",
        &commit(),
    ]);
    cmd.arg("--ray");
    if !address.is_empty() {
        cmd.arg(address);
    }
    if let Some(j) = jobs {
        cmd.args(["--jobs", &j.to_string()]);
    }
    if chatter.quiet {
        cmd.arg("--quiet");
    }
    if stdout_to_stderr {
        cmd.stdout(std::io::stderr());
    }
    let status = cmd
        .status()
        .map_err(|e| anyhow::anyhow!("cannot start {python}: {e}"))?;
    Ok(status.code().unwrap_or(1))
}

/// Reads a lackey trace's first pass (checks and page set) under a progress
/// bar, so that the runs after it find it done.
fn prescan(workload: &str) -> anyhow::Result<()> {
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

fn convert_cmd(input: &str, out: &str) -> anyhow::Result<()> {
    check_writable(out)?;
    let started = Instant::now();
    let bar = counter_bar("{msg} [{bar:30}] {pos}/{len} ({eta} left)");
    let n = thermocline_engine::traces::convert(input, out, &mut |phase, done, total| {
        if bar.message() != phase {
            bar.set_message(phase.to_string());
        }
        bar.set_length(total);
        bar.set_position(done);
    })?;
    bar.finish_and_clear();
    let bytes = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    eprintln!(
        "{out}: {n} accesses, {:.1} MB, in {:.1} s",
        bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Fails now, before any run, if `path` cannot be written later: its
/// folder is missing or read-only, or it is a directory. Leaves no file
/// behind that was not there.
fn check_writable(path: &str) -> anyhow::Result<()> {
    let existed = std::path::Path::new(path).exists();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| anyhow::anyhow!("{path}: cannot write: {e}"))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

fn write_file(path: &str, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).map_err(|e| anyhow::anyhow!("{path}: cannot write: {e}"))
}

fn gib(b: f64) -> String {
    format!("{:.2}", b / (1u64 << 30) as f64)
}

/// What the table's columns mean, printed under it.
const LEGEND: &str = "(slowdown: simulated time over the same run with every page fast; fast GiB: time-weighted mean resident in the fast tier, GiB-s: that times the simulated time; mgr CPU: the manager's CPU time in % of one core; recall, precision: mean share of the truly hot pages its hot sets named, and of the named pages truly hot, - if it names none)";

fn print_table(reports: &[Report]) {
    println!(
        "{:<24} {:>9} {:>10} {:>11} {:>10} {:>12} {:>12} {:>9} {:>7} {:>9}",
        "manager",
        "slowdown",
        "sim time",
        "fast GiB",
        "fast GiB-s",
        "slow acc %",
        "migrated MB",
        "mgr CPU",
        "recall",
        "precision"
    );
    let mut rows: Vec<&Report> = reports.iter().collect();
    if rows.len() > 1 {
        // least slowdown first; the sort is stable, so ties keep list order
        rows.sort_by(|a, b| a.slowdown.total_cmp(&b.slowdown));
    }
    for r in rows {
        let slow: u64 = r.tiers.iter().skip(1).map(|t| t.reads + t.writes).sum();
        let all: u64 = r.tiers.iter().map(|t| t.reads + t.writes).sum();
        println!(
            "{:<24} {:>8.1}% {:>9.3}s {:>11} {:>10} {:>11.1}% {:>12.1} {:>8.3}% {:>7} {:>9}",
            r.manager,
            r.slowdown * 100.0,
            r.sim_time_s,
            // a guest run that recorded the kernel's DAMON has no tiers
            r.tiers
                .first()
                .map_or("-".to_string(), |t| gib(t.avg_resident_bytes)),
            r.tiers.first().map_or("-".to_string(), |t| {
                format!(
                    "{:.2}",
                    t.avg_resident_bytes / (1u64 << 30) as f64 * r.sim_time_s
                )
            }),
            if all > 0 {
                slow as f64 * 100.0 / all as f64
            } else {
                0.0
            },
            r.migrations.bytes as f64 / 1e6,
            r.manager_cpu_util * 100.0,
            r.mean_recall.map_or("-".to_string(), |x| format!("{x:.2}")),
            r.mean_precision
                .map_or("-".to_string(), |x| format!("{x:.2}")),
        );
    }
    if reports.len() > 1 {
        println!("{}; rows by slowdown)", LEGEND.trim_end_matches(')'));
    } else {
        println!("{LEGEND}");
    }
    for r in reports {
        print_memory_system(r);
        print_tenants(r);
    }
    // beside other managers' rows, a note says whose it is
    let several = reports.len() > 1;
    for r in reports {
        for note in &r.notes {
            if several && !note.starts_with(&format!("{}:", r.manager)) {
                println!("note: {}: {note}", r.manager);
            } else {
                println!("note: {note}");
            }
        }
    }
}

/// One line per tenant of a shared machine (a mix's components).
fn print_tenants(r: &Report) {
    if r.tenants.is_empty() {
        return;
    }
    println!(
        "tenants ({}): {:<3} {:<28} {:>11} {:>10} {:>10} {:>11} {:>16}",
        r.manager,
        "vm",
        "workload",
        "footprint",
        "fast GiB",
        "slow GiB",
        "slow acc %",
        "est. slowdown"
    );
    let pad = "tenants ()".len() + r.manager.len();
    for t in &r.tenants {
        let held = |i: usize| t.resident_bytes.get(i).copied().unwrap_or(0) as f64;
        let slow: f64 = (1..t.resident_bytes.len()).map(held).sum();
        println!(
            "{:pad$}  {:<3} {:<28} {:>11} {:>10} {:>10} {:>10.1}% {:>15.1}%",
            "",
            t.asid,
            t.workload,
            gib(t.footprint_bytes as f64),
            gib(held(0)),
            gib(slow),
            t.slow_access_share * 100.0,
            t.memory_bound_slowdown * 100.0,
        );
    }
}

/// The memory-system lines of a report that has one.
fn print_memory_system(r: &Report) {
    let Some(m) = &r.memory_system else {
        return;
    };
    println!(
        "memory system ({}): LLC misses per slab max/mean {:.2}",
        r.manager, m.llc_slab_imbalance
    );
    for c in &m.channels {
        let served = c.row_hits + c.row_empty + c.row_conflicts;
        let conflicts = if served > 0 {
            c.row_conflicts as f64 * 100.0 / served as f64
        } else {
            0.0
        };
        let mut line = format!(
            "  {:<6} {:>11} accesses, banks max/mean {:.2}, row hits {:.1}% conflicts {:.1}%, energy {:.3} J (read {:.3}, write {:.3}, standby {:.3})",
            c.tier,
            c.bank_accesses.iter().sum::<u64>(),
            c.bank_imbalance,
            c.row_hit_rate * 100.0,
            conflicts,
            c.read_energy_j + c.write_energy_j + c.standby_energy_j,
            c.read_energy_j,
            c.write_energy_j,
            c.standby_energy_j
        );
        if let Some(w) = &c.wear {
            let years = |y: Option<f64>| y.map_or("-".to_string(), |y| format!("{y:.1}"));
            line += &format!(
                ", lifetime {} years with Start-Gap per bank ({} unlevelled)",
                years(w.lifetime_years_start_gap),
                years(w.lifetime_years_unlevelled)
            );
        }
        println!("{line}");
    }
}

fn main() {
    thermocline_daemon::guest::install();
    // A panic is thermocline's bug, never the input's: say so, say what
    // reproduces it (runs are deterministic), and exit 1.
    std::panic::set_hook(Box::new(|info| {
        // A reader that stopped reading (`| head`) is not a failure: stop
        // quietly, as a program killed by SIGPIPE would.
        let message = info.to_string();
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        let args: Vec<String> = std::env::args().collect();
        eprintln!(
            "internal error: {info}\nthis is a bug in thermocline, not in your input; reproduce with: {}",
            args.join(" ")
        );
        std::process::exit(1);
    }));
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) if !e.use_stderr() => {
            // --help and --version: clap's text, as it is.
            let _ = e.print();
            std::process::exit(0);
        }
        Err(e) => {
            let sub = std::env::args().nth(1).filter(|a| {
                <Cli as clap::CommandFactory>::command()
                    .get_subcommands()
                    .any(|c| c.get_name() == a)
            });
            eprintln!(
                "{}",
                one_line_usage_error(&e.render().to_string(), sub.as_deref())
            );
            std::process::exit(2);
        }
    };
    if let Err(e) = dispatch(cli) {
        if let Some(n) = e.downcast_ref::<ClaimsNotHeld>() {
            eprintln!("{n}");
            std::process::exit(1);
        }
        if let Some(c) = e.downcast_ref::<live::MasimCorrupted>() {
            eprintln!("{c}");
            std::process::exit(3);
        }
        let code = e.downcast_ref::<RunError>().map_or(2, RunError::exit_code);
        if code == 1 {
            eprintln!("{e:#}");
        } else {
            eprintln!("error: {e:#}");
        }
        std::process::exit(code);
    }
}

/// Writes RESULTS.md at `p`: the `fresh` sections replace or join those
/// already in the file, whose other sections stay.
fn write_results_md(
    p: &str,
    fresh: Vec<thermocline_reproductions::results_md::Section>,
    opts: &thermocline_reproductions::reproduce::Options,
) -> anyhow::Result<()> {
    use thermocline_reproductions::reproduce;
    use thermocline_reproductions::results_md;
    let existing = match std::fs::read_to_string(p) {
        Ok(s) => Some(s),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => anyhow::bail!("{p}: {e}"),
    };
    let all = reproduce::all();
    let order: Vec<&str> = all.iter().map(|r| r.name).collect();
    let not_run = |name: &str| {
        all.iter()
            .find(|r| r.name == name)
            .map(|r| results_md::NotRun {
                name: r.name,
                description: r.description,
                runs: (r.runs)(opts).len(),
            })
    };
    let reasons: std::collections::BTreeMap<String, &'static str> = all
        .iter()
        .flat_map(|r| (r.claims)())
        .filter(|c| c.reason != thermocline_reproductions::claims::UNKNOWN)
        .map(|c| (c.id, c.reason))
        .collect();
    let (md, kept, dropped) =
        results_md::update(existing.as_deref(), fresh, &order, not_run, |id| {
            reasons.get(id).map(|r| r.to_string())
        });
    write_file(p, &md)?;
    if !kept.is_empty() {
        eprintln!(
            "{p}: kept the earlier sections of {} (each names its commit)",
            kept.join(", ")
        );
    }
    if dropped > 0 {
        eprintln!(
            "{p}: dropped {dropped} section(s) without a stamp (written before sections had one)"
        );
    }
    eprintln!("wrote {p}");
    Ok(())
}

/// A usage error in one line: clap's message and tips without its usage
/// block, pointing at the help of the subcommand `sub` if one was named, e.g.
/// `error: unexpected argument '--bogus' found (see thermocline run --help)`.
fn one_line_usage_error(rendered: &str, sub: Option<&str>) -> String {
    let parts: Vec<String> = rendered
        .split("\n\n")
        .map(str::trim)
        .filter(|p| {
            !p.is_empty() && !p.starts_with("Usage:") && !p.starts_with("For more information")
        })
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let help = match sub {
        Some(s) => format!("thermocline {s} --help"),
        None => "thermocline --help".into(),
    };
    format!("{} (see {help})", parts.join("; "))
}

/// A count of pixels or bins: a whole number of at least 1.
fn at_least_one(v: &str) -> Result<usize, String> {
    match v.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        Ok(_) => Err("must be at least 1".into()),
        Err(e) => Err(e.to_string()),
    }
}

fn dispatch(cli: Cli) -> anyhow::Result<()> {
    match cli.cmd {
        Cmd::List => {
            println!("workloads (also: a MASIM config path, lackey:PATH, trace:PATH):");
            for p in catalogue::workloads() {
                println!("  {:<24} {}", p.name, p.description);
            }
            println!("managers:");
            for m in catalogue::managers() {
                println!("  {:<24} {}", m.name, m.description);
            }
            println!("machines:");
            for (i, m) in catalogue::machines().iter().enumerate() {
                let d = if i == 0 { " (default)" } else { "" };
                println!("  {:<24} {}{d}", m.name, m.description);
            }
            println!("reproductions (thermocline reproduce NAME):");
            for r in catalogue::reproductions() {
                println!("  {:<24} {}", r.name, r.description);
            }
        }
        Cmd::Reproduce(a) => reproduce_cmd(a)?,
        Cmd::Convert { input, out } => convert_cmd(&input, &out)?,
        Cmd::Record {
            common,
            manager,
            out,
            chatter,
        } => {
            let mut cfg = common.load(Some(manager.as_deref().unwrap_or("damon-moderate")))?;
            if manager.is_none() && common.config.is_none() {
                cfg.run.manager = "damon-moderate".into();
            }
            cfg.metrics.damon_regions = true;
            check_writable(&out)?;
            prescan(&cfg.run.workload)?;
            let r = run_one(&cfg, chatter)?;
            let snapshots = r.damon.as_ref().map_or(0, |d| d.snapshots.len());
            if snapshots == 0 {
                anyhow::bail!(
                    "manager {} recorded no DAMON regions: record with a DAMON-style manager (damon-moderate, damon-aggressive, damon-tiering...) over a run longer than one aggregation interval",
                    cfg.run.manager
                );
            }
            write_file(&out, &r.to_json())?;
            if !chatter.quiet {
                eprintln!(
                    "{out}: {snapshots} snapshots of DAMON's regions ({} on {})",
                    r.manager, r.workload
                );
            }
        }
        Cmd::Report {
            file,
            view,
            out,
            bins,
            at,
        } => report_cmd(&file, view, out.as_deref(), bins, at)?,
        Cmd::Config {
            cmd:
                ConfigCmd::Show {
                    common,
                    manager,
                    format,
                },
        } => {
            use thermocline_engine::show::{show, Format};
            let cfg = common.load(manager.as_deref())?;
            let format = match format {
                ShowFormat::Toml => Format::Toml,
                ShowFormat::Json => Format::Json,
            };
            let shown = show(&cfg, format)?;
            for w in &shown.warnings {
                eprintln!("warning: {w}");
            }
            print!("{}", shown.text);
        }
        Cmd::Probe { pid, ranges, json } => live::probe_cmd(pid, &ranges, json)?,
        Cmd::Torture {
            pid,
            moves,
            batch,
            seed,
            no_page_out,
        } => live::torture_cmd(pid, moves, batch.max(1), seed, !no_page_out)?,
        Cmd::Daemon { config, pid } => {
            let code = live::daemon_cmd(&config, pid)?;
            if code != 0 {
                std::process::exit(code);
            }
        }
        Cmd::Exec(a) => {
            let code = live::exec_cmd(a)?;
            if code != 0 {
                std::process::exit(code);
            }
        }
        Cmd::Monitor(a) => live::monitor_cmd(a)?,
        Cmd::Masim(a) => live::masim_cmd(a)?,
        Cmd::DamonRecord(a) => live::damon_record_cmd(a)?,
        Cmd::Run {
            common,
            manager,
            json,
            chatter,
        } => {
            let cfg = common.load(manager.as_deref())?;
            if let Some(p) = &json {
                check_writable(p)?;
            }
            prescan(&cfg.run.workload)?;
            let r = run_one(&cfg, chatter)?;
            print_table(std::slice::from_ref(&r));
            if let Some(p) = json {
                write_file(&p, &r.to_json())?;
            }
        }
        Cmd::Compare {
            common,
            managers,
            json,
            plot,
            jobs,
            chatter,
        } => compare_cmd(&common, managers, json, plot, jobs, chatter)?,
        Cmd::Sweep {
            spec,
            out,
            dry_run: true,
            ..
        } => sweep_plan(&spec, &out)?,
        Cmd::Sweep {
            spec,
            out,
            jobs,
            ray: Some(address),
            chatter,
            ..
        } => {
            let code = sweep_on_ray(&spec, &out, jobs, &address, chatter, false)?;
            if code != 0 {
                std::process::exit(code);
            }
        }
        Cmd::Sweep {
            spec,
            out,
            jobs,
            ray: None,
            chatter,
            ..
        } => sweep_cmd(&spec, &out, jobs, chatter)?,
        Cmd::Heatmap {
            common,
            manager,
            out,
            width,
            height,
            bins,
            chatter,
        } => {
            let mut cfg = common.load(Some(manager.as_deref().unwrap_or("first-touch")))?;
            if manager.is_none() && common.config.is_none() {
                cfg.run.manager = "first-touch".into();
            }
            check_chart_path(&out)?;
            check_writable(&out)?;
            prescan(&cfg.run.workload)?;
            let mut p = Progress::new("heatmap", chatter);
            let (obs, r) = heatmap::record(&cfg, bins, width, &mut |d, t| p.update(d, t))?;
            p.finish();
            obs.write_chart(&out, width, height)?;
            if !chatter.quiet {
                eprintln!(
                    "{out}: {} accesses over {:.3} s simulated, {} address bins",
                    obs.total(),
                    r.sim_time_s,
                    bins
                );
            }
        }
    }
    Ok(())
}
