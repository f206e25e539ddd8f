//! The `thermocline` command line: run, compare, heatmap, reproduce, list,
//! config show, and masim (a MASIM config executed for real, for the live
//! backend's tests).
//!
//! It talks to the engine, presentation, sweep, daemon and reproductions
//! crates, never to `thermocline-live`: the live commands' work is in the
//! daemon crate (`thermocline_daemon::tools`). Every error a user can cause
//! (unknown name, malformed config, bad `--set` value, unreadable trace) ends
//! the process with exit code 2 and one line naming the file and line where
//! there is one; an internal failure (a manager's bug, a broken invariant, a
//! panic) exits with 1 and says "internal error" and how to reproduce it.
//! `masim` exits with 3 when its memory failed verification. A live host's
//! refusal has a code of its kind: 4 permission, 5 missing kernel feature,
//! 6 target gone, 7 out of memory ([`exit`], docs/exit-codes.md).
//!
//! This file parses and dispatches; each command is in a module of its own
//! (`cmd`, `live`).

mod args;
mod cmd;
mod exit;
mod guard;
mod live;
mod output;
mod progress;
mod stamp;
mod table;

use args::{at_least_one, chart_bins, chart_height, chart_width, Chatter, Common};
use clap::{Parser, Subcommand};
use cmd::config::ConfigCmd;
use cmd::report::ReportView;
use cmd::reproduce::ReproduceArgs;

#[derive(Parser)]
#[command(
    name = "thermocline",
    version,
    about = "Hot/cold telemetry and tier placement for tiered main memory",
    after_help = exit::CODES
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
        /// Comma-separated managers; default: every one the simulated machines run (not the live-only kernel-tiering and damon-kernel), or with neither --workload nor --config the main job's (every one that acts by itself; the rest are listed under the table). Every row gets the same fast tier (--fast-capacity, else the machine's, else 50% of the footprint); `name@size` gives one manager its own (kstaled@100%), and its row is marked *
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
    /// Tier real processes: a manager acting on a pid, a cgroup or a command it starts, with quotas, dry-run and Prometheus metrics (see docs/live.md).
    Daemon {
        /// The daemon's TOML config (see examples/live-thermostat.toml).
        #[arg(long)]
        config: String,
        /// Tier this process instead of the config's target.
        #[arg(long)]
        pid: Option<i32>,
    },
    /// Start a command and tier it while it runs, as the daemon would (same run loop, logs and metrics): ends when the command does and exits with its exit code (128 + the signal if a signal killed it); SIGINT and SIGTERM are sent on to the command (see docs/live.md).
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
        /// Image width in pixels (320 to 8192); also the number of time bins.
        #[arg(long, default_value_t = 800, value_parser = chart_width)]
        width: usize,
        /// Image height in pixels (240 to 8192).
        #[arg(long, default_value_t = 480, value_parser = chart_height)]
        height: usize,
        /// Address bins (rows of the heatmap), 1 to 8192.
        #[arg(long, default_value_t = 400, value_parser = chart_bins)]
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
        /// heatmap: address bins, 1 to 8192.
        #[arg(long, default_value_t = 256, value_parser = chart_bins)]
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
        std::process::exit(exit::report(&e));
    }
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

fn dispatch(cli: Cli) -> anyhow::Result<()> {
    match cli.cmd {
        Cmd::List => cmd::list::list_cmd(),
        Cmd::Reproduce(a) => cmd::reproduce::reproduce_cmd(a)?,
        Cmd::Convert { input, out } => cmd::convert::convert_cmd(&input, &out)?,
        Cmd::Record {
            common,
            manager,
            out,
            chatter,
        } => cmd::run::record_cmd(&common, manager.as_deref(), &out, chatter)?,
        Cmd::Report {
            file,
            view,
            out,
            bins,
            at,
        } => cmd::report::report_cmd(&file, view, out.as_deref(), bins, at)?,
        Cmd::Config {
            cmd:
                ConfigCmd::Show {
                    common,
                    manager,
                    format,
                },
        } => cmd::config::show_cmd(&common, manager.as_deref(), format)?,
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
        } => cmd::run::run_cmd(&common, manager.as_deref(), json, chatter)?,
        Cmd::Compare {
            common,
            managers,
            json,
            plot,
            jobs,
            chatter,
        } => cmd::compare::compare_cmd(&common, managers, json, plot, jobs, chatter)?,
        Cmd::Sweep {
            spec,
            out,
            dry_run: true,
            ..
        } => cmd::sweep::sweep_plan(&spec, &out)?,
        Cmd::Sweep {
            spec,
            out,
            jobs,
            ray: Some(address),
            chatter,
            ..
        } => {
            let code = cmd::sweep::sweep_on_ray(&spec, &out, jobs, &address, chatter, false)?;
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
        } => cmd::sweep::sweep_cmd(&spec, &out, jobs, chatter)?,
        Cmd::Heatmap {
            common,
            manager,
            out,
            width,
            height,
            bins,
            chatter,
        } => cmd::heatmap::heatmap_cmd(
            &common,
            manager.as_deref(),
            &out,
            cmd::heatmap::Size {
                width,
                height,
                bins,
            },
            chatter,
        )?,
    }
    Ok(())
}
