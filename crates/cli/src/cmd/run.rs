//! `thermocline run`, and `record`: one workload under one manager.

use crate::args::{Chatter, Common};
use crate::output::{check_output, run_inputs, write_file};
use crate::progress::{prescan, run_one};
use crate::table::print_table;

/// `thermocline run`: the table, and the JSON report if asked.
pub fn run_cmd(
    common: &Common,
    manager: Option<&str>,
    json: Option<String>,
    chatter: Chatter,
) -> anyhow::Result<()> {
    let cfg = common.load(manager)?;
    thermocline_engine::validate::check_sections(&cfg, std::slice::from_ref(&cfg.run.manager))?;
    let inputs = run_inputs(common.config.as_deref(), &cfg.run.workload);
    if let Some(p) = &json {
        check_output(p, &inputs)?;
    }
    prescan(&cfg.run.workload)?;
    crate::guard::refuse_days(&cfg, common.yes)?;
    let r = run_one(&cfg, chatter)?;
    print_table(std::slice::from_ref(&r), &[]);
    for line in thermocline_engine::compare::explanations(std::slice::from_ref(&r)) {
        println!("why: {line}");
    }
    if let Some(p) = json {
        write_file(&p, &r.to_json())?;
    }
    Ok(())
}

/// `thermocline record`: the run's report with DAMON's regions.
pub fn record_cmd(
    common: &Common,
    manager: Option<&str>,
    out: &str,
    chatter: Chatter,
) -> anyhow::Result<()> {
    // the manager: --manager, else the configuration's, else damon-moderate
    let mut cfg = common.load(manager)?;
    if manager.is_none() && common.config.is_none() {
        cfg.run.manager = "damon-moderate".into();
    }
    thermocline_engine::validate::check_sections(&cfg, std::slice::from_ref(&cfg.run.manager))?;
    cfg.metrics.damon_regions = true;
    check_output(
        out,
        &run_inputs(common.config.as_deref(), &cfg.run.workload),
    )?;
    prescan(&cfg.run.workload)?;
    crate::guard::refuse_days(&cfg, common.yes)?;
    let r = run_one(&cfg, chatter)?;
    let snapshots = r.damon.as_ref().map_or(0, |d| d.snapshots.len());
    if snapshots == 0 {
        anyhow::bail!(
            "manager {} recorded no DAMON regions: record with a DAMON-style manager (damon-moderate, damon-aggressive, damon-tiering...) over a run longer than one aggregation interval",
            cfg.run.manager
        );
    }
    write_file(out, &r.to_json())?;
    if !chatter.quiet {
        eprintln!(
            "{out}: {snapshots} snapshots of DAMON's regions ({} on {})",
            r.manager, r.workload
        );
    }
    Ok(())
}
