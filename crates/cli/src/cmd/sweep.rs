//! `thermocline sweep`: a grid of runs, here or as Ray tasks.

use crate::args::Chatter;
use crate::progress::counter_bar;
use crate::stamp::{names_its_code, run_code};
use indicatif::ProgressBar;
use std::time::Instant;

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
pub fn sweep_plan(path: &str, out: &str) -> anyhow::Result<()> {
    use thermocline_sweep as sweep;
    let (text, spec) = read_spec(path)?;
    spec.check(Some((path, &text)))?;
    let code = run_code();
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
pub fn sweep_cmd(
    path: &str,
    out: &str,
    jobs: Option<usize>,
    chatter: Chatter,
) -> anyhow::Result<()> {
    use thermocline_engine::parallel;
    use thermocline_sweep as sweep;
    let (text, spec) = read_spec(path)?;
    // every cell checked before OUT is made: a bad spec leaves nothing behind
    spec.check(Some((path, &text)))?;
    let dir = sweep::SweepDir::open(out)?;
    let code = run_code();
    if !names_its_code(&code) {
        eprintln!("warning: the code runs go through is at {code:?}: cells stored by another edit of it would be reused as if this one had made them");
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
pub fn sweep_on_ray(
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
        &run_code(),
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
