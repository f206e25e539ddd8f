//! `thermocline config show`: the effective configuration of a run (the
//! file merged with `--set` and the flags, every default filled in, each
//! manager's parameters and schemes as it is built with them), as TOML or
//! JSON that reads back into the same configuration: showing the output
//! again prints it unchanged.

use crate::config::{LlcSection, RunConfig};
use crate::error::RunError;
use crate::setup::setup;
use crate::validate;
use serde::Serialize;
use std::collections::BTreeMap;
use thermocline_model::machine_preset;
use thermocline_vocab::CapacitySpec;

/// How to print it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// TOML, with a comment on the keys left out.
    Toml,
    /// JSON (the same tree).
    Json,
}

/// The configuration printed, and the warnings about it.
#[derive(Debug)]
pub struct Shown {
    /// The text.
    pub text: String,
    /// One line per scheme that can never match in this run.
    pub warnings: Vec<String>,
}

#[derive(Serialize)]
struct Doc<'a> {
    run: &'a crate::config::RunSection,
    machine: &'a crate::config::MachineSection,
    workload: &'a crate::config::WorkloadSection,
    metrics: &'a crate::config::MetricsSection,
    #[serde(flatten)]
    managers: &'a BTreeMap<String, toml::Table>,
}

use crate::setup::capacity_text;

/// The effective configuration `cfg` runs with, checked as a run checks
/// it (the manager's parameters, the machine, the workload, the schemes
/// against the machine's tiers), printed in `format`. Kept as given: the
/// keys whose default depends on the workload (left out, and named in the
/// TOML's opening comment). Filled in: the machine (the manager's own if it
/// needs one), the fast capacity, the backend (`auto`), the preset's LLC,
/// MLP, saturation and memory system, and the parameters of the run's
/// manager and of every manager the configuration has a section for.
pub fn show(cfg: &RunConfig, format: Format) -> Result<Shown, RunError> {
    let mut probe = cfg.clone();
    if crate::setup::placement_of(&probe) == crate::setup::Placement::Remote {
        // the guest's run is checked against the simulated machine's
        probe.run.backend = None;
    }
    let s = setup(&probe)?;
    let mut run = cfg.run.clone();
    run.machine = Some(s.machine_name.clone());
    if run.fast_capacity.is_none() {
        let preset = machine_preset(&s.machine_name).and_then(|p| p.fast_capacity);
        let spec = s
            .manager
            .default_fast_capacity()
            .or(preset.map(CapacitySpec::Bytes))
            .unwrap_or(CapacitySpec::PercentOfFootprint(50.0));
        run.fast_capacity = Some(capacity_text(spec));
    }
    run.backend = Some(run.backend.unwrap_or_else(|| "auto".into()));
    let mut machine = cfg.machine.clone();
    machine.llc = LlcSection {
        bytes: Some(s.mcfg.llc.bytes),
        ways: Some(s.mcfg.llc.ways),
        hit_ns: Some(s.mcfg.llc.hit_ns),
    };
    machine.mlp = Some(s.mcfg.perf.mlp);
    machine.saturation_exponent = s.mcfg.perf.saturation_exponent;
    machine.memory = s.mcfg.memory.clone();
    let mut managers = BTreeMap::new();
    managers.insert(cfg.run.manager.clone(), s.params.clone());
    for (name, params) in &cfg.managers {
        if *name != cfg.run.manager {
            let b = thermocline_managers::registry::build_shown(name, params.clone(), cfg.run.seed)
                .map_err(|e| validate::manager_error(cfg, name, e))?;
            managers.insert(name.clone(), b.params);
        }
    }
    let doc = Doc {
        run: &run,
        machine: &machine,
        workload: &cfg.workload,
        metrics: &cfg.metrics,
        managers: &managers,
    };
    let internal = |e: String| {
        crate::error::ConfigError::invalid("configuration", format!("cannot be printed: {e}"))
    };
    let text = match format {
        Format::Toml => {
            let body = toml::to_string(&doc).map_err(|e| internal(e.to_string()))?;
            format!("{}{body}", left_out(&run, &machine, cfg))
        }
        Format::Json => {
            let mut t = serde_json::to_string_pretty(&doc).map_err(|e| internal(e.to_string()))?;
            t.push('\n');
            t
        }
    };
    Ok(Shown {
        text,
        warnings: s.warnings,
    })
}

/// The opening comment: what the file is, and the keys left out with
/// what they default to.
fn left_out(
    run: &crate::config::RunSection,
    machine: &crate::config::MachineSection,
    cfg: &RunConfig,
) -> String {
    let w = &cfg.workload;
    let mut out = vec![
        "# The effective configuration (thermocline config show): every default".to_string(),
        "# filled in; `run --config` of this file runs the same.".to_string(),
    ];
    let mut absent = Vec::new();
    if run.duration_s.is_none() {
        absent.push("run.duration_s: the whole workload");
    }
    if machine.slow_capacity.is_none() && machine.tier_capacities.is_none() {
        absent.push("machine.slow_capacity: the whole footprint");
    }
    if machine.saturation_exponent.is_none() {
        absent.push("machine.saturation_exponent: a hard knee");
    }
    if w.access_rate.is_none() {
        absent.push("workload.access_rate: the workload's own, else 10 M/s");
    }
    if w.compute_ns.is_none() {
        absent.push("workload.compute_ns: from the access rate");
    }
    if w.thp.is_none() {
        absent.push("workload.thp: on for application models, off otherwise");
    }
    if w.base_va.is_none() {
        absent.push("workload.base_va: 1 GiB");
    }
    if w.masim_burst.is_none() {
        absent.push("workload.masim_burst: 131072");
    }
    if !absent.is_empty() {
        out.push(
            "# Left out (defaults that depend on the workload, or apply to some only):".into(),
        );
        out.extend(absent.iter().map(|a| format!("#   {a}")));
    }
    out.push(String::new());
    out.join("\n") + "\n"
}
