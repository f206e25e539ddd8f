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
