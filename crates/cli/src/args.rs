//! The options several commands share: what a run is (`Common`) and how
//! much a long command says on stderr (`Chatter`).

use clap::Args;
use thermocline_engine::config::{self, RunConfig};

/// How much a long command says on stderr besides its results.
#[derive(Args, Clone, Copy, Default)]
pub struct Chatter {
    /// No progress and no per-run lines: only results, warnings and errors.
    #[arg(long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// A line per finished run (its wall time), also when stderr is not a terminal.
    #[arg(long)]
    pub verbose: bool,
}

#[derive(Args, Clone)]
pub struct Common {
    /// Workload: preset name, MASIM config path, lackey:PATH or trace:PATH [default: multiphase; the config file's, if it names one].
    #[arg(long)]
    pub workload: Option<String>,
    /// Machine preset [default: the manager's own machine if it has one, else dram+dcpmm].
    #[arg(long)]
    pub machine: Option<String>,
    /// Fast-tier capacity: a size (512MiB) or a percentage of the footprint (50%) [default: the manager's own, else the machine preset's, else 50%].
    #[arg(long)]
    pub fast_capacity: Option<String>,
    /// Stop after this many seconds of nominal workload time [default: the whole workload].
    #[arg(long, allow_negative_numbers = true)]
    pub duration: Option<f64>,
    /// The one seed [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Machine backend: exact (access by access), rate (from access rates, for
    /// terabyte footprints) or auto (rate above 64 GiB when the workload has rates) [default: auto].
    #[arg(long)]
    pub backend: Option<String>,
    /// TOML configuration file.
    #[arg(long)]
    pub config: Option<String>,
    /// Override one configuration value, e.g. `random.fast_probability=0.3`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Run even when the run would take more than a day of wall time.
    #[arg(long)]
    pub yes: bool,
}

impl Common {
    pub fn load(&self, manager: Option<&str>) -> anyhow::Result<RunConfig> {
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
        // each flag given is remembered, so that a check made later names it
        let flags = &mut cfg.origin.flags;
        let mut given = |key: &str, flag: &str, value: &str| {
            flags.push((key.to_string(), format!("{flag} {value}")));
            value.to_string()
        };
        let r = &mut cfg.run;
        if let Some(w) = &self.workload {
            r.workload = given("run.workload", "--workload", w);
        }
        if let Some(m) = &self.machine {
            r.machine = Some(given("run.machine", "--machine", m));
        }
        if let Some(c) = &self.fast_capacity {
            r.fast_capacity = Some(given("run.fast_capacity", "--fast-capacity", c));
        }
        if let Some(d) = self.duration {
            given("run.duration_s", "--duration", &d.to_string());
            r.duration_s = Some(d);
        }
        if let Some(b) = &self.backend {
            r.backend = Some(given("run.backend", "--backend", b));
        }
        if let Some(s) = self.seed {
            r.seed = s;
        }
        if let Some(m) = manager {
            r.manager = m.to_string();
        }
        Ok(cfg)
    }
}

/// A count of pixels or bins: a whole number of at least 1.
pub fn at_least_one(v: &str) -> Result<usize, String> {
    match v.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        Ok(_) => Err("must be at least 1".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// A whole number in `lo..=hi`, else the range in the error.
fn in_range(v: &str, lo: usize, hi: usize) -> Result<usize, String> {
    match v.parse::<usize>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        Ok(_) => Err(format!("must be from {lo} to {hi}")),
        Err(e) => Err(e.to_string()),
    }
}

/// A chart's width in pixels: at most 8192, so that the image and its
/// time bins fit in memory.
pub fn chart_width(v: &str) -> Result<usize, String> {
    in_range(v, 320, 8192)
}

/// A chart's height in pixels.
pub fn chart_height(v: &str) -> Result<usize, String> {
    in_range(v, 240, 8192)
}

/// A heatmap's address bins: with 8192 time bins, 512 MiB of counts at most.
pub fn chart_bins(v: &str) -> Result<usize, String> {
    in_range(v, 1, 8192)
}
