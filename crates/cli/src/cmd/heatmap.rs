//! `thermocline heatmap`: accesses over time x address, drawn.

use crate::args::{Chatter, Common};
use crate::output::{check_chart_path, check_output, run_inputs};
use crate::progress::{prescan, Progress};
use thermocline_present::heatmap;

/// The image's size and bins.
pub struct Size {
    /// Width in pixels, also the number of time bins.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// Address bins.
    pub bins: usize,
}

/// `thermocline heatmap --out FILE`.
pub fn heatmap_cmd(
    common: &Common,
    manager: Option<&str>,
    out: &str,
    size: Size,
    chatter: Chatter,
) -> anyhow::Result<()> {
    let Size {
        width,
        height,
        bins,
    } = size;
    // the manager: --manager, else the configuration's, else first-touch
    let cfg = common.load(manager)?;
    thermocline_engine::validate::check_sections(&cfg, std::slice::from_ref(&cfg.run.manager))?;
    check_chart_path(out)?;
    check_output(
        out,
        &run_inputs(common.config.as_deref(), &cfg.run.workload),
    )?;
    prescan(&cfg.run.workload)?;
    crate::guard::refuse_days(&cfg, common.yes)?;
    let mut p = Progress::new("heatmap", chatter);
    let (mut obs, r) = heatmap::record(&cfg, bins, width, &mut |d, t| p.update(d, t))?;
    obs.name(&format!("{} under {}", cfg.run.workload, cfg.run.manager));
    p.finish();
    obs.write_chart(out, width, height)?;
    if !chatter.quiet {
        eprintln!(
            "{out}: {} accesses over {:.3} s simulated, {} address bins",
            obs.total(),
            r.sim_time_s,
            bins
        );
    }
    Ok(())
}
