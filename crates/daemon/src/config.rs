//! `thermocline daemon --config FILE.toml`: what to tier, with what, under
//! which quotas. Unknown keys are errors that name their line.

use serde::Deserialize;
use thermocline_engine::error::ConfigError;

/// The whole file.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DaemonConfig {
    /// What to tier (`thermocline exec` takes it from its command line).
    #[serde(default)]
    pub target: TargetSection,
    /// The tiers (default: the kernel's memory tiers).
    #[serde(default)]
    pub tiers: TiersSection,
    /// The manager and its parameters.
    pub manager: ManagerSection,
    /// Bounds on what the manager may move.
    #[serde(default)]
    pub quota: QuotaSection,
    /// The daemon itself.
    #[serde(default)]
    pub daemon: DaemonSection,
    /// What the daemon may change on the host beyond its targets.
    #[serde(default)]
    pub kernel: KernelSection,
    /// Settings of a `thermocline run` config the daemon read the manager
    /// from that only a simulated run has a use for (`run.workload`,
    /// `[machine]`...): left aside, and logged at the start.
    #[serde(skip)]
    pub ignored: Vec<String>,
}

/// The sections of a `thermocline run` config that describe the simulated
/// run (its workload, machine and metrics).
const RUN_SECTIONS: &[&str] = &["machine", "workload", "metrics"];

/// `[kernel]`: host-wide settings. The project's rule is never to touch a
/// setting on the host that it did not create, so the kernel's own tiering
/// (`kernel-tiering`: sysctls, a paddr kdamond that migrates every
/// process's memory) runs only when this allows it.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct KernelSection {
    /// Let the daemon change host-wide settings (restored when it exits).
    #[serde(default)]
    pub allow_host_settings: bool,
}

/// `[target]`: exactly one of `pid`, `cgroup`, `exec`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TargetSection {
    /// A running process.
    pub pid: Option<i32>,
    /// A cgroup v2 directory: every process in it.
    pub cgroup: Option<String>,
    /// A command the daemon starts and tiers, in the config file's
    /// directory (and stops with SIGTERM if the daemon is stopped first).
    pub exec: Option<Vec<String>>,
    /// Before the manager starts, wait until a pid or exec target's
    /// resident anonymous memory has not changed for this long (s; at most
    /// 60 s in all): managers read the target's mappings at start (default
    /// 1; 0: start at once).
    pub settle_s: Option<f64>,
}

/// `[tiers]`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TiersSection {
    /// NUMA nodes per tier, fastest first (default: the kernel's memory
    /// tiers from HMAT, else one tier per node, nodes with CPUs first).
    pub nodes: Option<Vec<Vec<i32>>>,
    /// A compressed tier (zram or other swap) after the node tiers, reached
    /// by MADV_PAGEOUT.
    #[serde(default)]
    pub compressed: bool,
}

/// `[manager]`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ManagerSection {
    /// A name from `thermocline list`.
    pub name: String,
    /// Its parameters, as in `thermocline run --set NAME.KEY=VALUE`.
    #[serde(default)]
    pub params: toml::Table,
    /// The manager's seed.
    #[serde(default = "one")]
    pub seed: u64,
}

fn one() -> u64 {
    1
}

/// `[quota]`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QuotaSection {
    /// MB (10^6 bytes) moved per second at most.
    pub max_mb_per_s: Option<f64>,
    /// Share of the targets' resident memory moved per tick at most.
    pub max_share_per_tick: Option<f64>,
}

/// `[daemon]`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DaemonSection {
    /// Stop after this many seconds (default: when the targets exit, or on
    /// SIGTERM).
    pub duration_s: Option<f64>,
    /// Where to serve Prometheus metrics (`127.0.0.1:9477`); empty: nowhere.
    pub metrics: String,
    /// Decide and log, move nothing.
    pub dry_run: bool,
    /// How often metrics and the log are updated (s).
    pub window_s: f64,
    /// Write the run's report (JSON) here at the end.
    pub report: Option<String>,
    /// How often poisoned pages are checked for refaults and paged out
    /// again (s): the resolution of refault counts.
    pub sample_interval_s: f64,
}

impl Default for DaemonSection {
    fn default() -> Self {
        DaemonSection {
            duration_s: None,
            metrics: "127.0.0.1:9477".into(),
            dry_run: false,
            window_s: 1.0,
            report: None,
            sample_interval_s: 0.1,
        }
    }
}

/// Parses the file's text (`path` names it in errors).
pub fn parse(path: &str, text: &str) -> Result<DaemonConfig, ConfigError> {
    parse_for(path, text, None)
}

/// [`parse`], with the command line's `--pid` (if any) as the target in
/// place of the file's `[target]` (a file without one, such as a
/// `thermocline run` config, then needs none).
pub fn parse_for(path: &str, text: &str, pid: Option<i32>) -> Result<DaemonConfig, ConfigError> {
    let mut cfg = deserialize(path, text)?;
    if let Some(pid) = pid {
        cfg.target = TargetSection {
            pid: Some(pid),
            ..Default::default()
        };
    }
    let in_file = |msg: String| ConfigError::InFile {
        file: path.to_string(),
        msg,
    };
    let t = &cfg.target;
    let given = [t.pid.is_some(), t.cgroup.is_some(), t.exec.is_some()]
        .iter()
        .filter(|&&g| g)
        .count();
    if given != 1 {
        return Err(in_file(
            "[target] needs exactly one of pid, cgroup, exec".into(),
        ));
    }
    if t.exec.as_ref().is_some_and(|e| e.is_empty()) {
        return Err(in_file("[target] exec is an empty command".into()));
    }
    check(&cfg).map_err(in_file)?;
    check_manager(path, text, &cfg)?;
    Ok(cfg)
}

/// Builds the manager once with the file's parameters, so that a bad one
/// (a scheme that can never match, an unknown field) is an error at its
/// line before the daemon touches the host: `[NAME]` of a `thermocline
/// run` config, `[manager.params]` of the daemon's own.
fn check_manager(path: &str, text: &str, cfg: &DaemonConfig) -> Result<(), ConfigError> {
    let m = &cfg.manager;
    let Err(e) = thermocline_managers::registry::build(&m.name, m.params.clone(), m.seed) else {
        return Ok(());
    };
    let run_config = text
        .parse::<toml::Table>()
        .is_ok_and(|t| t.contains_key("run"));
    let section = if run_config {
        m.name.clone()
    } else {
        "manager.params".to_string()
    };
    let located = thermocline_engine::config::RunConfig {
        managers: [(section.clone(), m.params.clone())].into_iter().collect(),
        origin: thermocline_engine::config::Origin {
            file: Some((path.to_string(), text.to_string())),
            ..Default::default()
        },
        ..Default::default()
    };
    Err(
        match thermocline_engine::validate::manager_error(&located, &section, e) {
            thermocline_engine::RunError::Config(c) => c,
            other => ConfigError::invalid("[manager]", other.to_string()),
        },
    )
}

fn deserialize(path: &str, text: &str) -> Result<DaemonConfig, ConfigError> {
    if let Ok(table) = text.parse::<toml::Table>() {
        if table.contains_key("run") {
            return from_run_config(path, text, table);
        }
    }
    toml::from_str(text).map_err(|e| match e.span() {
        Some(span) => ConfigError::AtLine {
            file: path.to_string(),
            line: thermocline_engine::config::line_of(text, span.start),
            msg: e.message().to_string(),
        },
        None => ConfigError::InFile {
            file: path.to_string(),
            msg: e.message().to_string(),
        },
    })
}

/// A `thermocline run` config (`[run] manager = NAME` and the manager's
/// parameters in `[NAME]`) as the daemon's: the same file runs the same
/// manager with the same parameters (schemes and all) on a simulated
/// machine and on a live host. `[manager]` is made of `run.manager`, the
/// `[NAME]` section and `run.seed`; the daemon's own sections (`[target]`,
/// `[tiers]`, `[quota]`, `[daemon]`, `[kernel]`) may be added to such a
/// file; what only a simulated run uses (the rest of `[run]`, `[machine]`,
/// `[workload]`, `[metrics]`, other managers' sections) is set aside in
/// `ignored`.
fn from_run_config(
    path: &str,
    text: &str,
    mut table: toml::Table,
) -> Result<DaemonConfig, ConfigError> {
    let in_file = |msg: String| ConfigError::InFile {
        file: path.to_string(),
        msg,
    };
    if table.contains_key("manager") {
        return Err(thermocline_engine::config::at_setting(
            path,
            text,
            "manager",
            "[manager] and [run] manager both name the manager: keep one".into(),
        ));
    }
    let Some(toml::Value::Table(run)) = table.remove("run") else {
        return Err(in_file("[run] must be a table".into()));
    };
    let Some(name) = run
        .get("manager")
        .and_then(|m| m.as_str())
        .map(String::from)
    else {
        return Err(in_file(
            "[run] needs manager = NAME: the manager the daemon runs".into(),
        ));
    };
    let seed = match run.get("seed") {
        None => 1,
        Some(v) => v
            .as_integer()
            .and_then(|s| u64::try_from(s).ok())
            .ok_or_else(|| in_file("run.seed must be a number >= 0".into()))?,
    };
    let mut ignored: Vec<String> = run
        .keys()
        .filter(|k| !matches!(k.as_str(), "manager" | "seed"))
        .map(|k| format!("run.{k}"))
        .collect();
    let params = match table.remove(&name) {
        None => toml::Table::new(),
        Some(toml::Value::Table(t)) => t,
        Some(_) => return Err(in_file(format!("[{name}] must be a table of parameters"))),
    };
    let keys: Vec<String> = table.keys().cloned().collect();
    for k in keys {
        if RUN_SECTIONS.contains(&k.as_str()) || thermocline_managers::registry::exists(&k) {
            table.remove(&k);
            ignored.push(format!("[{k}]"));
        }
    }
    let mut manager = toml::Table::new();
    manager.insert("name".into(), toml::Value::String(name));
    manager.insert("params".into(), toml::Value::Table(params));
    manager.insert("seed".into(), toml::Value::Integer(seed as i64));
    table.insert("manager".into(), toml::Value::Table(manager));
    let mut cfg: DaemonConfig = toml::Value::Table(table).try_into().map_err(
        |e: toml::de::Error| {
            in_file(format!(
                "{} (a run config read by the daemon: [run], the manager's section, and the daemon's [target], [tiers], [quota], [daemon], [kernel])",
                e.message()
            ))
        },
    )?;
    ignored.sort();
    cfg.ignored = ignored;
    Ok(cfg)
}

/// Every section's values but the target's choice (shared by `daemon` and
/// `exec`); the message says which section and key.
fn check(cfg: &DaemonConfig) -> Result<(), String> {
    if cfg
        .target
        .settle_s
        .is_some_and(|s| !(0.0..=60.0).contains(&s))
    {
        return Err("[target] settle_s must be in 0..60".into());
    }
    if !thermocline_managers::registry::exists(&cfg.manager.name) {
        return Err(format!(
            "[manager] name {:?} is not a manager (see `thermocline list`)",
            cfg.manager.name
        ));
    }
    if thermocline_managers::registry::traits(&cfg.manager.name).host_tiering
        && !cfg.kernel.allow_host_settings
    {
        return Err(format!("[manager] {} changes host-wide settings (kernel.numa_balancing and /sys/kernel/mm/numa/demotion_enabled, or a DAMOS kdamond on physical memory, which moves every process's pages): set [kernel] allow_host_settings = true to allow it (the daemon restores them when it exits)", cfg.manager.name));
    }
    if let Some(d) = cfg.daemon.duration_s {
        if !(d > 0.0 && d.is_finite()) {
            return Err("[daemon] duration_s must be positive".into());
        }
    }
    if !(cfg.daemon.window_s > 0.0 && cfg.daemon.window_s.is_finite()) {
        return Err("[daemon] window_s must be positive".into());
    }
    if !(cfg.daemon.sample_interval_s >= 0.001 && cfg.daemon.sample_interval_s.is_finite()) {
        return Err("[daemon] sample_interval_s must be at least 0.001".into());
    }
    if let Some(q) = cfg.quota.max_mb_per_s {
        if !(q >= 0.0 && q.is_finite()) {
            return Err("[quota] max_mb_per_s must be >= 0".into());
        }
    }
    if let Some(q) = cfg.quota.max_share_per_tick {
        if !(0.0..=1.0).contains(&q) {
            return Err("[quota] max_share_per_tick must be in 0..1".into());
        }
    }
    if let Some(n) = &cfg.tiers.nodes {
        if n.is_empty() || n.iter().any(|t| t.is_empty()) {
            return Err("[tiers] nodes needs at least one tier, each with a node".into());
        }
    }
    let m = &cfg.daemon.metrics;
    let is_addr = |m: &str| {
        m.parse::<std::net::SocketAddr>().is_ok()
            || m.strip_prefix("localhost:")
                .is_some_and(|p| p.parse::<u16>().is_ok())
    };
    if !m.is_empty() && !is_addr(m) {
        return Err(format!(
            "[daemon] metrics {m:?} is not an address and port (e.g. 127.0.0.1:9477)"
        ));
    }
    Ok(())
}

/// What `thermocline exec` takes from its command line instead of a file,
/// or on top of one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExecFlags {
    /// `--manager NAME` (replaces the file's `[manager] name`).
    pub manager: Option<String>,
    /// `--set MANAGER.KEY=VALUE`: the manager's parameters (on top of the
    /// file's `[manager] params`).
    pub sets: Vec<String>,
    /// `--dry-run`.
    pub dry_run: bool,
    /// `--metrics ADDR` (without a file, metrics are served nowhere unless
    /// this is given).
    pub metrics: Option<String>,
    /// `--compressed`: a compressed (swap) tier after the node tiers.
    pub compressed: bool,
}

/// The config of `thermocline exec`: the file's (`file`: its path and
/// text), if any, with the command line's flags on top. The command after
/// `--` is the target, so a file's `[target]` may only set `settle_s`: a
/// pid, cgroup or exec there is an error naming its line, never silently
/// ignored.
pub fn exec_config(
    file: Option<(&str, &str)>,
    flags: &ExecFlags,
) -> Result<DaemonConfig, ConfigError> {
    let mut cfg = match file {
        Some((path, text)) => {
            let cfg = deserialize(path, text)?;
            let t = &cfg.target;
            for (key, given) in [
                ("pid", t.pid.is_some()),
                ("cgroup", t.cgroup.is_some()),
                ("exec", t.exec.is_some()),
            ] {
                if given {
                    let msg = format!(
                        "[target] {key} is not for `thermocline exec`: the command after `--` is its target (only settle_s may be set in [target])"
                    );
                    return Err(thermocline_engine::config::at_setting(
                        path,
                        text,
                        &format!("target.{key}"),
                        msg,
                    ));
                }
            }
            cfg
        }
        None => {
            let Some(name) = &flags.manager else {
                return Err(ConfigError::invalid(
                    "exec",
                    "needs --manager NAME or --config FILE.toml",
                ));
            };
            DaemonConfig {
                manager: ManagerSection {
                    name: name.clone(),
                    params: toml::Table::new(),
                    seed: 1,
                },
                daemon: DaemonSection {
                    metrics: String::new(),
                    ..DaemonSection::default()
                },
                ..DaemonConfig::default()
            }
        }
    };
    if let Some(m) = &flags.manager {
        cfg.manager.name = m.clone();
    }
    if !thermocline_managers::registry::exists(&cfg.manager.name) {
        return Err(ConfigError::UnknownName {
            kind: "manager",
            name: cfg.manager.name.clone(),
            listing: "list",
        });
    }
    for set in &flags.sets {
        let mut t = toml::Table::new();
        thermocline_engine::config::apply_set(&mut t, set)?;
        let name = &cfg.manager.name;
        match t.remove(name) {
            Some(toml::Value::Table(params)) if t.is_empty() => cfg.manager.params.extend(params),
            _ => {
                return Err(ConfigError::Set {
                    set: set.clone(),
                    msg: format!("exec's --set takes the manager's parameters: {name}.KEY=VALUE"),
                })
            }
        }
    }
    if flags.dry_run {
        cfg.daemon.dry_run = true;
    }
    if let Some(m) = &flags.metrics {
        cfg.daemon.metrics = m.clone();
    }
    if flags.compressed {
        cfg.tiers.compressed = true;
    }
    check(&cfg).map_err(|msg| match file {
        Some((path, _)) => ConfigError::InFile {
            file: path.to_string(),
            msg,
        },
        None => ConfigError::invalid("exec", msg),
    })?;
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_config_parses() {
        let c = parse(
            "d.toml",
            r#"
[target]
pid = 42
[tiers]
nodes = [[0], [1]]
compressed = true
[manager]
name = "thermostat"
params = { scan_period_s = 2.0 }
[quota]
max_mb_per_s = 50
[daemon]
duration_s = 10
metrics = ""
dry_run = true
"#,
        )
        .unwrap();
        assert_eq!(c.target.pid, Some(42));
        assert_eq!(c.tiers.nodes, Some(vec![vec![0], vec![1]]));
        assert!(c.daemon.dry_run && c.tiers.compressed);
        assert_eq!(c.quota.max_mb_per_s, Some(50.0));
    }

    /// examples/damon-tiering.toml, a `thermocline run` config, as the
    /// daemon reads it with `--pid`: the same manager and schemes.
    #[test]
    fn a_bad_scheme_is_an_error_at_its_line_in_either_form() {
        let own = "[target]\npid = 1\n\n[manager]\nname = \"damon-moderate\"\n\n[[manager.params.schemes]]\naction = \"stat\"\n\n[[manager.params.schemes]]\naction = \"migrate_hot\"\nmin_access_pct = 50\nmax_access_pct = 10\n";
        let run = "[run]\nmanager = \"damon-moderate\"\n\n[[damon-moderate.schemes]]\naction = \"migrate_cold\"\nbogus = 1\n";
        for (text, want) in [(own, "d.toml:12: "), (run, "d.toml:6: ")] {
            let e = parse_for("d.toml", text, Some(42)).unwrap_err().to_string();
            assert!(e.starts_with(want), "{e}");
        }
    }

    #[test]
    fn a_run_config_is_the_daemons_with_its_manager_and_schemes() {
        let text = include_str!("../../../examples/damon-tiering.toml");
        let e = parse("t.toml", text).unwrap_err().to_string();
        assert!(e.contains("exactly one of pid, cgroup, exec"), "{e}");
        let c = parse_for("t.toml", text, Some(42)).unwrap();
        assert_eq!(c.target.pid, Some(42));
        assert_eq!(c.manager.name, "damon-moderate");
        assert_eq!(c.manager.seed, 1);
        let schemes = c.manager.params["schemes"].as_array().unwrap();
        assert_eq!(schemes.len(), 2);
        assert_eq!(schemes[1]["action"].as_str(), Some("migrate_cold"));
        assert_eq!(c.ignored, vec!["run.fast_capacity", "run.workload"]);
        // the daemon's sections beside [run], and the simulated run's set aside
        let c = parse(
            "t.toml",
            "[run]\nmanager = \"damon-moderate\"\nseed = 3\n[machine]\nmlp = 2\n[target]\npid = 7\n[quota]\nmax_mb_per_s = 5\n[damon-moderate]\nsample_ms = 10\n",
        )
        .unwrap();
        assert_eq!((c.target.pid, c.manager.seed), (Some(7), 3));
        assert_eq!(c.manager.params["sample_ms"].as_integer(), Some(10));
        assert_eq!(c.quota.max_mb_per_s, Some(5.0));
        assert_eq!(c.ignored, vec!["[machine]"]);
        let e = parse("t.toml", "[run]\nworkload = \"x\"\n[target]\npid = 7\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("[run] needs manager"), "{e}");
        let e = parse(
            "t.toml",
            "[run]\nmanager = \"damon-moderate\"\n[manager]\nname = \"thermostat\"\n[target]\npid = 7\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("t.toml:") && e.contains("keep one"), "{e}");
        let e = parse(
            "t.toml",
            "[run]\nmanager = \"damon-moderate\"\n[target]\npid = 7\nbogus = 1\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("bogus"), "{e}");
    }

    #[test]
    fn host_settings_need_leave() {
        let text = "[target]\npid = 1\n[manager]\nname = \"kernel-tiering\"\n";
        let e = parse("d.toml", text).unwrap_err().to_string();
        assert!(e.contains("allow_host_settings = true"), "{e}");
        let ok = format!("{text}[kernel]\nallow_host_settings = true\n");
        assert!(parse("d.toml", &ok).unwrap().kernel.allow_host_settings);
    }

    #[test]
    fn mistakes_name_the_file_and_line() {
        let e = parse(
            "d.toml",
            "[target]\npid = 1\n[manager]\nname = \"thermostat\"\nbogus = 3\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("d.toml:5:"), "{e}");
        let e = parse("d.toml", "[target]\n[manager]\nname = \"thermostat\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("exactly one of pid, cgroup, exec"), "{e}");
        let e = parse("d.toml", "[target]\npid = 1\n[manager]\nname = \"nope\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a manager"), "{e}");
    }
}
