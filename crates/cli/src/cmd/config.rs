//! `thermocline config show`.

use crate::args::Common;
use clap::Subcommand;

#[derive(Subcommand)]
pub enum ConfigCmd {
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

/// `config show --format`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ShowFormat {
    /// TOML, which `--config` reads.
    Toml,
    /// JSON (output only).
    Json,
}

/// `thermocline config show`: the effective configuration, warnings on
/// stderr.
pub fn show_cmd(
    common: &crate::args::Common,
    manager: Option<&str>,
    format: ShowFormat,
) -> anyhow::Result<()> {
    use thermocline_engine::show::{show, Format};
    let cfg = common.load(manager)?;
    let format = match format {
        ShowFormat::Toml => Format::Toml,
        ShowFormat::Json => Format::Json,
    };
    let shown = show(&cfg, format)?;
    for w in &shown.warnings {
        eprintln!("warning: {w}");
    }
    print!("{}", shown.text);
    Ok(())
}
