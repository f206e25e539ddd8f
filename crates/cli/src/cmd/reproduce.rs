//! `thermocline reproduce`: a paper's figures and tables from scratch, their
//! claims checked, RESULTS.md updated.

use crate::args::Chatter;
use crate::cmd::sweep::sweep_on_ray;
use crate::output::{check_writable, write_file};
use crate::stamp::{command_line, commit, names_its_code, run_code};
use clap::Args;
use thermocline_reproductions::catalogue;
use thermocline_reproductions::reproduce;
use thermocline_sweep as sweep;

/// `reproduce`'s options.
#[derive(Args)]
pub struct ReproduceArgs {
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
    #[arg(long, allow_negative_numbers = true)]
    duration: Option<f64>,
    /// Run every cell on this one seed only (a quick look; RESULTS.md
    /// wants --seeds' three).
    #[arg(long, conflicts_with = "seeds")]
    seed: Option<u64>,
    /// Run every cell on each of these seeds; a claim holds when it holds on
    /// every one (docs/claims.md).
    #[arg(long, value_delimiter = ',', default_value = "1,2,3")]
    seeds: Vec<u64>,
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
pub struct ClaimsNotHeld {
    not_held: usize,
    total: usize,
}

impl std::fmt::Display for ClaimsNotHeld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} of {} claims do not hold", self.not_held, self.total)
    }
}

impl std::error::Error for ClaimsNotHeld {}

pub fn reproduce_cmd(a: ReproduceArgs) -> anyhow::Result<()> {
    use thermocline_reproductions::claims;
    use thermocline_reproductions::results_md;
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
        seeds,
        jobs,
        cache,
        ray,
    } = a;
    let seeds = match seed {
        Some(s) => vec![s],
        None => {
            let mut v = seeds;
            v.dedup();
            v
        }
    };
    let first_seed = *seeds
        .first()
        .ok_or_else(|| anyhow::anyhow!("--seeds needs at least one seed"))?;
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
                seed: first_seed,
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
        seed: first_seed,
    };
    let jobs = jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    // The stamp is taken before the runs: the tree may change while they go.
    let stamp = results_md::Stamp {
        commit: commit(),
        command: command_line(),
        duration_s: duration,
        seeds: seeds.clone(),
    };
    // Cached runs are keyed by the code a run goes through, not the commit:
    // a commit that changes only how reports are read reuses them.
    let code = &run_code();
    let cache = match cache {
        None => None,
        Some(dir) => {
            if !names_its_code(code) {
                return Err(thermocline_engine::ConfigError::invalid(
                    "--cache",
                    format!("runs are keyed by the code they go through ({}), which has uncommitted changes ({code:?}): commit (or stash) them first", crate::stamp::RUN_CODE.join(", ")),
                )
                .into());
            }
            Some((sweep::SweepDir::open(&dir)?, dir))
        }
    };
    let started = std::time::Instant::now();
    let progress = |seed: u64, done, total, spec: &reproduce::RunSpec, source| {
        let from = match source {
            reproduce::Source::Cache => "from the cache".to_string(),
            reproduce::Source::Ran => format!("{:.0} s", started.elapsed().as_secs_f64()),
        };
        let of_seed = if seeds.len() > 1 {
            format!("seed {seed} ")
        } else {
            String::new()
        };
        eprintln!(
            "{of_seed}[{done}/{total}] {} on {} {} ({from})",
            spec.manager,
            spec.workload,
            spec.sets.join(" "),
        );
    };
    let spec_files = match &cache {
        Some((_, dir)) => write_specs(dir, &repros, &seeds, duration)?,
        None => Vec::new(),
    };
    let per_seed = match (&ray, &cache) {
        (Some(address), Some((d, dir))) => {
            for file in &spec_files {
                // the sweep's own lines go to stderr: stdout is the reproduction's
                let exit = sweep_on_ray(file, dir, None, address, Chatter::default(), true)?;
                if exit != 0 {
                    std::process::exit(exit);
                }
            }
            let mut per_seed = Vec::new();
            for &seed in &seeds {
                let opts = reproduce::Options {
                    duration_s: duration,
                    seed,
                };
                per_seed.push((seed, reproduce::reproduce_from(&repros, &opts, d, code)?));
            }
            per_seed
        }
        _ => reproduce::reproduce_seeds(
            &repros,
            &opts,
            &seeds,
            jobs,
            cache.as_ref().map(|(d, _)| (d, code.as_str())),
            &progress,
        )?,
    };
    let done = reproduce::merge_seeds(per_seed);
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
        let kinds = [
            claims::Kind::Paper,
            claims::Kind::Calibration,
            claims::Kind::Goal,
        ]
        .map(|k| {
            let of: Vec<_> = done
                .iter()
                .flat_map(|d| &d.verdicts)
                .filter(|v| v.kind == k)
                .collect();
            let held = of.iter().filter(|v| v.held).count();
            format!("{held} of {} {}s", of.len(), k.label())
        });
        println!(
            "claims: {} held, {not_held} not held ({} held, on every seed)",
            total - not_held,
            kinds.join(", ")
        );
        if not_held > 0 {
            return Err(ClaimsNotHeld { not_held, total }.into());
        }
    }
    Ok(())
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
    let (md, kept, dropped) = results_md::update(existing.as_deref(), fresh, &order, not_run);
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

/// The runs of `seeds` as sweep specs in `dir` (what `sweep` or `--ray`
/// runs): `spec.toml` for one seed, else `spec-seed-N.toml` per seed the
/// runs are made at (a seed-free run at its one seed, reproduce::seed_free).
fn write_specs(
    dir: &str,
    repros: &[reproduce::Reproduction],
    seeds: &[u64],
    duration: Option<f64>,
) -> anyhow::Result<Vec<String>> {
    let names: Vec<&str> = repros.iter().map(|r| r.name).collect();
    let mut by_seed: Vec<(u64, sweep::SweepSpec)> = Vec::new();
    for &seed in seeds {
        let opts = reproduce::Options {
            duration_s: duration,
            seed,
        };
        let (specs, _) =
            reproduce::sweep_specs(&names.join("+"), &reproduce::runs_of(repros, &opts), &opts)?;
        for spec in specs {
            let at = spec.seeds[0];
            if !by_seed.iter().any(|(s, _)| *s == at) {
                by_seed.push((at, spec));
            }
        }
    }
    let mut files = Vec::new();
    for (seed, spec) in &by_seed {
        let file = if by_seed.len() == 1 {
            format!("{dir}/spec.toml")
        } else {
            format!("{dir}/spec-seed-{seed}.toml")
        };
        write_file(&file, &spec.to_toml())?;
        files.push(file);
    }
    Ok(files)
}
