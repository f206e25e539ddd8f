//! Output files: checked before any run, written with the path in the
//! error.

/// A chart's file must be one the chart writers know, said before the run.
pub fn check_chart_path(path: &str) -> anyhow::Result<()> {
    let lower = path.to_ascii_lowercase();
    if lower.ends_with(".png") || lower.ends_with(".svg") {
        Ok(())
    } else {
        anyhow::bail!("{path}: a chart is written as .png or .svg: name the file so")
    }
}

/// The files a run reads: its configuration file, and its workload when
/// that names a file (a MASIM config, `lackey:PATH`, `trace:PATH`).
pub fn run_inputs(config: Option<&str>, workload: &str) -> Vec<String> {
    let file = workload
        .strip_prefix("lackey:")
        .or_else(|| workload.strip_prefix("trace:"))
        .unwrap_or(workload);
    config
        .into_iter()
        .chain(std::path::Path::new(file).is_file().then_some(file))
        .map(str::to_string)
        .collect()
}

/// Fails now, before any run, if `path` is one of the command's `inputs`
/// (writing it would overwrite what was read), or cannot be written
/// later: its folder is missing or read-only, or it is a directory. Leaves
/// no file behind that was not there.
pub fn check_output(path: &str, inputs: &[String]) -> anyhow::Result<()> {
    let same = |a: &str, b: &str| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    };
    if let Some(input) = inputs.iter().find(|i| same(path, i)) {
        anyhow::bail!(
            "{path}: is also this command's input ({input}): writing it would overwrite what was read; name another file"
        );
    }
    check_writable(path)
}

/// Fails now, before any run, if `path` cannot be written later: its
/// folder is missing or read-only, or it is a directory. Leaves no file
/// behind that was not there.
pub fn check_writable(path: &str) -> anyhow::Result<()> {
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

pub fn write_file(path: &str, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).map_err(|e| anyhow::anyhow!("{path}: cannot write: {e}"))
}
