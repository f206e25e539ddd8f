//! Run configuration: a TOML file, `--set KEY=VALUE` overrides, and CLI flags,
//! merged in that order into plain serde types.
//!
//! Top-level sections: `[run]`, `[machine]`, `[workload]`, `[metrics]`, and one
//! section per manager named after it (`[random]`, later `[thermostat]`...)
//! holding that manager's parameters. Unknown keys are errors.

use crate::error::ConfigError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thermocline_model::costs::CostTable;
use thermocline_model::{LlcConfig, TlbConfig};

/// `[run]`: what to run.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RunSection {
    /// Workload: preset, MASIM config path, `lackey:PATH` or `trace:PATH`.
    pub workload: String,
    /// Manager name.
    pub manager: String,
    /// Machine preset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    /// Fast-tier capacity: a size or a percentage of the footprint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fast_capacity: Option<String>,
    /// Stop after this many seconds of nominal workload time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    /// The one seed.
    pub seed: u64,
    /// `exact`, `rate` or `auto` (the rate machine above 64 GiB when the
    /// workload has a rate description).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
}

impl Default for RunSection {
    fn default() -> Self {
        RunSection {
            workload: "multiphase".into(),
            manager: "first-touch".into(),
            machine: None,
            fast_capacity: None,
            duration_s: None,
            seed: 1,
            backend: None,
        }
    }
}

/// `[machine.llc]`: the keys a user gave, each replacing the preset's
/// (`bytes = 0` turns a preset's LLC off).
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LlcSection {
    /// Size in bytes; 0 turns the LLC off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Associativity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ways: Option<usize>,
    /// Latency of a hit (ns), charged as core time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hit_ns: Option<f64>,
}

impl LlcSection {
    /// `base` (the preset's LLC, or none) with the keys given.
    pub fn over(&self, base: &LlcConfig) -> LlcConfig {
        LlcConfig {
            bytes: self.bytes.unwrap_or(base.bytes),
            ways: self.ways.unwrap_or(base.ways),
            hit_ns: self.hit_ns.unwrap_or(base.hit_ns),
        }
    }
}

/// `[machine]`: overrides of the machine preset.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MachineSection {
    /// TLB geometry and costs.
    pub tlb: TlbConfig,
    /// Last-level cache: each key given replaces the preset's (a preset
    /// without one has none: `bytes` 0 is off).
    pub llc: LlcSection,
    /// Memory-level parallelism (default 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mlp: Option<f64>,
    /// Costs of primitives.
    pub costs: CostTable,
    /// Slow-tier capacity; by default it holds the whole footprint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slow_capacity: Option<String>,
    /// Capacities of the tiers after the fast one, in order, each a size or
    /// a percentage of the footprint (instead of `slow_capacity` for all of
    /// them): e.g. a small SlowMem above a large swap tier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier_capacities: Option<Vec<String>>,
    /// Soft-saturation exponent of the performance model (default: the
    /// machine preset's, else a hard knee).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saturation_exponent: Option<f64>,
    /// The memory system (address mapping, banks, controllers; default: the
    /// machine preset's, else none). Any `machine.memory.*` key replaces the
    /// preset's with the paper's defaults plus the keys given;
    /// `machine.memory.enabled=false` turns it off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<thermocline_model::MemSysConfig>,
}

/// `[workload]`: how workloads are turned into accesses.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WorkloadSection {
    /// Nominal accesses per second per thread; absent: the workload's own
    /// (application models), else 10 M/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access_rate: Option<f64>,
    /// Core time per access (ns); derived from `access_rate` when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compute_ns: Option<f64>,
    /// Back regions with transparent huge pages; absent: on for application
    /// models, off otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thp: Option<bool>,
    /// Virtual address of the first MASIM region (2 MiB-aligned); absent: 1 GiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_va: Option<u64>,
    /// Accesses a MASIM config makes on one drawn pattern before drawing
    /// again (masim's `--nr_accesses_per_region`); absent: 131072, masim's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub masim_burst: Option<u64>,
}

/// `[metrics]`: time series and ground truth.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsSection {
    /// Length of a report window in simulated seconds.
    pub window_s: f64,
    /// A 2 MiB unit is actually hot in a profiling window if it received at
    /// least this many accesses in it.
    pub hot_threshold: u64,
    /// Address bins of the report's hot map (0: no map).
    pub hot_map_bins: usize,
    /// Report where each region's pages are at the end (`regions`).
    pub region_tiers: bool,
    /// Report DAMON's regions at every aggregation interval (`damon`), from
    /// a manager that keeps DAMON-style regions (`damon-*`, `telescope-*`);
    /// on the guest backend with a `damon-*` vaddr entry, the kernel's own
    /// DAMON is recorded instead of running the manager.
    pub damon_regions: bool,
}

impl Default for MetricsSection {
    fn default() -> Self {
        MetricsSection {
            window_s: 1.0,
            hot_threshold: 1,
            hot_map_bins: 0,
            region_tiers: false,
            damon_regions: false,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Sections {
    #[serde(default)]
    run: RunSection,
    #[serde(default)]
    machine: MachineSection,
    #[serde(default)]
    workload: WorkloadSection,
    #[serde(default)]
    metrics: MetricsSection,
}

/// The merged configuration of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunConfig {
    /// What to run.
    pub run: RunSection,
    /// Machine overrides.
    pub machine: MachineSection,
    /// Workload options.
    pub workload: WorkloadSection,
    /// Metrics options.
    pub metrics: MetricsSection,
    /// Parameters per manager name.
    pub managers: BTreeMap<String, toml::Table>,
    /// Where it came from, for errors found after loading.
    pub origin: Origin,
}

/// Where a configuration came from: the file (path and text) and the
/// `--set`s in order, so that a problem found once the machine or the
/// workload is known (a scheme naming a tier the machine lacks, say) still
/// names the file's line or the `--set`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Origin {
    /// The file's path and text.
    pub file: Option<(String, String)>,
    /// The `--set KEY=VALUE`s, in order.
    pub sets: Vec<String>,
    /// Settings a command-line flag gave after the file and the `--set`s,
    /// as (key, flag and value): `("run.duration_s", "--duration -1")`.
    pub flags: Vec<(String, String)>,
}

impl RunConfig {
    /// Parameters of `manager` (empty if none were given).
    pub fn manager_params(&self, manager: &str) -> toml::Table {
        self.managers.get(manager).cloned().unwrap_or_default()
    }
}

/// Whether a configuration file is JSON (by its extension), else TOML.
pub fn is_json(path: &str) -> bool {
    std::path::Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// serde_json's message without its " at line L column C" (the error
/// names the line itself).
fn json_message(e: &serde_json::Error) -> String {
    let m = e.to_string();
    match m.rfind(" at line ") {
        Some(i) => m[..i].to_string(),
        None => m,
    }
}

/// Builds a configuration from an optional file's text (JSON when its
/// path ends in `.json`, else TOML) and `--set` pairs.
pub fn load(file: Option<(&str, &str)>, sets: &[String]) -> Result<RunConfig, ConfigError> {
    let mut table = match file {
        None => toml::Table::new(),
        Some((path, text)) if is_json(path) => {
            // the tree `config show --format json` prints reads back as the
            // TOML it came from
            serde_json::from_str::<toml::Table>(text).map_err(|e| ConfigError::AtLine {
                file: path.to_string(),
                line: e.line().max(1),
                msg: json_message(&e),
            })?
        }
        Some((path, text)) => text.parse::<toml::Table>().map_err(|e| match e.span() {
            Some(span) => ConfigError::AtLine {
                file: path.to_string(),
                line: line_of(text, span.start),
                msg: e.message().to_string(),
            },
            None => ConfigError::InFile {
                file: path.to_string(),
                msg: e.message().to_string(),
            },
        })?,
    };
    for s in sets {
        apply_set(&mut table, s)?;
    }
    let mut managers = BTreeMap::new();
    let keys: Vec<String> = table.keys().cloned().collect();
    for k in keys {
        if thermocline_managers::registry::exists(&k) {
            match table.remove(&k) {
                Some(toml::Value::Table(t)) => {
                    managers.insert(k, t);
                }
                _ => {
                    let msg = format!("[{k}] must be a table of manager parameters");
                    let set = sets
                        .iter()
                        .rev()
                        .find(|s| s.split_once('=').is_some_and(|(key, _)| key.trim() == k));
                    return Err(match (set, file) {
                        (Some(set), _) => ConfigError::Set {
                            set: set.clone(),
                            msg,
                        },
                        (None, Some((path, _))) => ConfigError::InFile {
                            file: path.to_string(),
                            msg,
                        },
                        (None, None) => ConfigError::invalid(format!("[{k}]"), msg),
                    });
                }
            }
        }
    }
    let s: Sections = toml::Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| {
            locate_alone(file, sets).unwrap_or_else(|| locate(file, sets, &e))
        })?;
    let mut run = s.run;
    if let Some((path, text)) = file {
        let from_file = if is_json(path) {
            json_line_setting(text, "run.workload").is_some() && text.contains("\"workload\"")
        } else {
            line_setting(text, "run.workload").is_some()
        };
        let overridden = sets.iter().any(|s| {
            s.split_once('=')
                .is_some_and(|(k, _)| k.trim() == "run.workload")
        });
        if from_file && !overridden {
            run.workload = beside(path, &run.workload);
        }
    }
    Ok(RunConfig {
        run,
        machine: s.machine,
        workload: s.workload,
        metrics: s.metrics,
        managers,
        origin: Origin {
            file: file.map(|(p, t)| (p.to_string(), t.to_string())),
            sets: sets.to_vec(),
            flags: Vec::new(),
        },
    })
}

/// A workload file a configuration names (`x.cfg`, `lackey:x.out`,
/// `trace:x.bin`) by a relative path, read from the configuration's folder
/// when it is there: a configuration means the files beside it, wherever
/// it is run from. Anything else (a preset, an absolute path, a file found
/// only from the working directory) as written.
fn beside(config: &str, workload: &str) -> String {
    let (prefix, file) = ["lackey:", "trace:"]
        .iter()
        .find_map(|p| workload.strip_prefix(p).map(|f| (*p, f)))
        .unwrap_or(("", workload));
    let path = std::path::Path::new(file);
    let names_a_file = !prefix.is_empty() || file.contains('/') || file.ends_with(".cfg");
    let dir = std::path::Path::new(config).parent();
    match dir {
        Some(dir) if names_a_file && path.is_relative() && !dir.as_os_str().is_empty() => {
            let there = dir.join(path);
            if there.is_file() {
                format!("{prefix}{}", there.display())
            } else {
                workload.to_string()
            }
        }
        _ => workload.to_string(),
    }
}

impl RunConfig {
    /// `msg` about the setting `key` (dotted: `machine.mlp`), located where
    /// the user gave it: the flag that set it last, else the last `--set`
    /// of it, else the file's line. `None` when none of them gave it (a
    /// default, or a value the command chose).
    pub fn at_key(&self, key: &str, msg: String) -> Option<ConfigError> {
        if let Some((_, flag)) = self.origin.flags.iter().rev().find(|(k, _)| k == key) {
            return Some(ConfigError::Flag {
                flag: flag.clone(),
                msg,
            });
        }
        let reaches = |set: &&String| {
            set.split_once('=').is_some_and(|(k, _)| {
                let k = k.trim();
                k == key || k.starts_with(&format!("{key}."))
            })
        };
        if let Some(set) = self.origin.sets.iter().rev().find(reaches) {
            return Some(ConfigError::Set {
                set: set.clone(),
                msg,
            });
        }
        let (file, text) = self.origin.file.as_ref()?;
        let line = if is_json(file) {
            // its deepest part the file has is not enough: the key itself
            let last = key.rsplit('.').next().unwrap_or(key);
            json_line_setting(text, key).filter(|_| text.contains(&format!("\"{last}\"")))
        } else {
            line_setting(text, key)
        }?;
        Some(ConfigError::AtLine {
            file: file.clone(),
            line,
            msg,
        })
    }

    /// `msg` about the parameter at `path` of manager `manager` (keys, and
    /// array indices as numbers: `["schemes", "2", "min_access_pct"]`),
    /// located where the user wrote it: the last `--set` that reaches it,
    /// else the file's line that sets it (or the deepest part of `path` the
    /// file has: the scheme's own line when the field is a default).
    /// `None` when neither wrote any of it (a default).
    pub fn at_param(&self, manager: &str, path: &[String], msg: String) -> Option<ConfigError> {
        // a dotted section (`manager.params`, the daemon's) is its path
        let full: Vec<&str> = manager
            .split('.')
            .chain(path.iter().map(String::as_str))
            .collect();
        let reaches = |set: &&String| {
            set.split_once('=').is_some_and(|(k, _)| {
                let k: Vec<&str> = k.trim().split('.').map(str::trim).collect();
                let n = k.len().min(full.len());
                k[..n] == full[..n]
            })
        };
        if let Some(set) = self.origin.sets.iter().rev().find(reaches) {
            return Some(ConfigError::Set {
                set: set.clone(),
                msg,
            });
        }
        let (file, text) = self.origin.file.as_ref()?;
        let line = if is_json(file) {
            json_line_setting(text, &full.join("."))?
        } else {
            line_of(text, span_of(text, &full)?)
        };
        Some(ConfigError::AtLine {
            file: file.clone(),
            line,
            msg,
        })
    }
}

/// The byte offset where TOML `text` sets the deepest part of `path` it
/// has (a key's own span, an array element's start); `None` when it does
/// not set even `path[0]`. A last segment not found where the path ends is
/// also looked for anywhere below (an unknown field inside a nested table).
fn span_of(text: &str, path: &[&str]) -> Option<usize> {
    use toml::de::{DeTable, DeValue};
    let root = DeTable::parse(text).ok()?;
    let mut node = DeValue::Table(root.into_inner());
    let mut at = None;
    for (i, seg) in path.iter().enumerate() {
        let next = match &node {
            DeValue::Table(t) => t
                .iter()
                .find(|(k, _)| k.get_ref() == seg)
                .map(|(k, v)| (k.span().start, v.clone())),
            DeValue::Array(a) => seg
                .parse::<usize>()
                .ok()
                .and_then(|j| a.get(j))
                .map(|v| (v.span().start, v.clone())),
            _ => None,
        };
        match next {
            Some((start, v)) => {
                at = Some(start);
                node = v.into_inner();
            }
            None => {
                if i + 1 == path.len() && i > 0 {
                    return find_key(&node, seg).or(at);
                }
                return at;
            }
        }
    }
    at
}

/// Where key `key` is set anywhere inside `node`, depth first.
fn find_key(node: &toml::de::DeValue, key: &str) -> Option<usize> {
    use toml::de::DeValue;
    match node {
        DeValue::Table(t) => t.iter().find_map(|(k, v)| {
            if k.get_ref() == key {
                Some(k.span().start)
            } else {
                find_key(v.get_ref(), key)
            }
        }),
        DeValue::Array(a) => a.iter().find_map(|v| find_key(v.get_ref(), key)),
        _ => None,
    }
}

/// 1-based line of byte `at` of `text`.
pub fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// Where a section that does not deserialize comes from when the file or one
/// `--set` fails on its own: the file's line (from the parser's span), else
/// the first `--set` that fails alone. `None`: only their combination fails.
fn locate_alone(file: Option<(&str, &str)>, sets: &[String]) -> Option<ConfigError> {
    let hint = "(sections: run, machine, workload, metrics, or a manager name)";
    let manager = |k: &str| thermocline_managers::registry::exists(k);
    if let Some((path, text)) = file {
        if let Ok(mut root) = toml::de::DeTable::parse(text) {
            let table = root.get_mut();
            let names: Vec<String> = table.keys().map(|k| k.get_ref().to_string()).collect();
            for k in names.iter().filter(|k| manager(k)) {
                table.remove(k.as_str());
            }
            if let Err(e) = Sections::deserialize(toml::de::Deserializer::from(root)) {
                let msg = format!("{} {hint}", e.message());
                return Some(match e.span() {
                    Some(span) => ConfigError::AtLine {
                        file: path.to_string(),
                        line: line_of(text, span.start),
                        msg,
                    },
                    None => ConfigError::InFile {
                        file: path.to_string(),
                        msg,
                    },
                });
            }
        }
    }
    sets.iter().find_map(|s| {
        let mut t = toml::Table::new();
        apply_set(&mut t, s).ok()?;
        t.retain(|k, _| !manager(k));
        let e = toml::Value::Table(t).try_into::<Sections>().err()?;
        Some(ConfigError::Set {
            set: s.clone(),
            msg: format!("{} {hint}", e.message()),
        })
    })
}

/// Says where a problem found after merging the file with the `--set`s came
/// from: the last `--set` of that key, else the file's line that sets it.
fn locate(file: Option<(&str, &str)>, sets: &[String], e: &toml::de::Error) -> ConfigError {
    let hint = "(sections: run, machine, workload, metrics, or a manager name)";
    let msg = format!("{} {hint}", e.message());
    let Some(key) = offending_key(e) else {
        return match file {
            Some((path, _)) => ConfigError::InFile {
                file: path.to_string(),
                msg,
            },
            None => ConfigError::invalid("configuration", msg),
        };
    };
    if let Some(set) = sets.iter().rev().find(|s| {
        s.split_once('=')
            .is_some_and(|(k, _)| k.trim() == key || k.trim().starts_with(&format!("{key}.")))
    }) {
        return ConfigError::Set {
            set: set.clone(),
            msg,
        };
    }
    match file {
        Some((path, text)) => at_setting(path, text, &key, msg),
        None => ConfigError::invalid(key, msg),
    }
}

/// An error about `key` of the file `path` (holding `text`): at the line
/// that sets it, else about the file.
pub fn at_setting(path: &str, text: &str, key: &str, msg: String) -> ConfigError {
    let line = if is_json(path) {
        json_line_setting(text, key)
    } else {
        line_setting(text, key)
    };
    match line {
        Some(line) => ConfigError::AtLine {
            file: path.to_string(),
            line,
            msg,
        },
        None => ConfigError::InFile {
            file: path.to_string(),
            msg,
        },
    }
}

/// The dotted key a deserialisation error is about: its section path (from
/// "in `a.b`") and the field it names (unknown field `x`, or the key whose
/// value has the wrong type).
fn offending_key(e: &toml::de::Error) -> Option<String> {
    let text = e.to_string();
    let section = text
        .split("in `")
        .nth(1)
        .and_then(|r| r.split('`').next())
        .map(str::to_string);
    let field = e
        .message()
        .strip_prefix("unknown field `")
        .and_then(|r| r.split('`').next())
        .map(str::to_string);
    match (section, field) {
        (Some(s), Some(f)) => Some(format!("{s}.{f}")),
        (None, Some(f)) => Some(f),
        (Some(s), None) => Some(s),
        (None, None) => None,
    }
}

/// The line of a TOML text that sets dotted `key` (or opens its table).
/// The JSON line that sets `key` (dotted; a number is an array index):
/// each part found after the line of the one before it, a key as the
/// first line with it quoted before a colon, an index as the line that
/// opens that element (one object per line start, as `config show
/// --format json` prints them). The deepest part found.
fn json_line_setting(text: &str, key: &str) -> Option<usize> {
    let mut from = 0;
    let mut found = None;
    for part in key.split('.') {
        let hit = match part.parse::<usize>() {
            Ok(n) => text
                .lines()
                .enumerate()
                .skip(from + 1)
                .filter(|(_, l)| l.trim_start().starts_with('{'))
                .nth(n),
            Err(_) => {
                let quoted = format!("\"{part}\"");
                text.lines()
                    .enumerate()
                    .skip(from)
                    .find(|(_, l)| l.split_once(':').is_some_and(|(k, _)| k.contains(&quoted)))
            }
        };
        let Some((i, _)) = hit else {
            break;
        };
        from = i;
        found = Some(i + 1);
    }
    found
}

fn line_setting(text: &str, key: &str) -> Option<usize> {
    let clean = |k: &str| {
        k.split('.')
            .map(|p| p.trim().trim_matches('"').trim_matches('\''))
            .collect::<Vec<_>>()
            .join(".")
    };
    let mut table = String::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(h) = line.strip_prefix('[') {
            let h = h.trim_start_matches('[');
            table = clean(h.split(']').next().unwrap_or(""));
            if table == key {
                return Some(i + 1);
            }
        } else if let Some((k, _)) = line.split_once('=') {
            let full = match clean(k) {
                k if table.is_empty() => k,
                k => format!("{table}.{k}"),
            };
            if full == key || key.starts_with(&format!("{full}.")) {
                return Some(i + 1);
            }
        }
    }
    None
}

/// A `KEY=VALUE` override as its key and its value: the value read as
/// TOML, or as a string where it is not TOML (`--set run.workload=tpcc`).
pub fn parse_set(set: &str) -> Result<(String, toml::Value), ConfigError> {
    let bad = |msg: &str| ConfigError::Set {
        // one line of error, whatever the flag held
        set: set.replace('\n', "\\n"),
        msg: msg.to_string(),
    };
    let (key, value) = set
        .split_once('=')
        .ok_or_else(|| bad("expected KEY=VALUE"))?;
    let key = key.trim();
    if key.split('.').any(str::is_empty) {
        return Err(bad("empty key segment"));
    }
    let value = value.trim();
    let parsed = match format!("v = {value}").parse::<toml::Table>() {
        // a line break that starts another key would be dropped unseen
        Ok(t) if t.len() > 1 => {
            return Err(bad(
                "VALUE holds more than one setting (a line break starts another key): give each setting its own --set",
            ))
        }
        Ok(mut t) => t.remove("v"),
        Err(_) if value.contains('\n') => {
            return Err(bad(
                "VALUE is neither TOML nor one line of text: give each setting its own --set",
            ))
        }
        Err(_) => None,
    }
    .unwrap_or_else(|| toml::Value::String(value.to_string()));
    Ok((key.to_string(), parsed))
}

/// Applies one `KEY=VALUE` (dotted key; VALUE as TOML, else a string).
pub fn apply_set(table: &mut toml::Table, set: &str) -> Result<(), ConfigError> {
    let bad = |msg: String| ConfigError::Set {
        set: set.to_string(),
        msg,
    };
    let (key, parsed) = parse_set(set)?;
    let path: Vec<&str> = key.split('.').collect();
    fill_default_list(table, &path);
    let mut root = toml::Value::Table(std::mem::take(table));
    let done = set_in(&mut root, &path, 0, parsed);
    if let toml::Value::Table(t) = root {
        *table = t;
    }
    done.map_err(bad)
}

/// `MANAGER.LIST.N...` where the configuration does not set LIST (a
/// `*-tiering` manager's default schemes, say): the manager's default list
/// goes in first, so that `--set` reaches a field of one of its entries.
fn fill_default_list(table: &mut toml::Table, path: &[&str]) {
    let [manager, list, index, ..] = path else {
        return;
    };
    if index.parse::<usize>().is_err() || !thermocline_managers::registry::exists(manager) {
        return;
    }
    let section = match table.get(*manager) {
        Some(toml::Value::Table(t)) => t.clone(),
        Some(_) => return,
        None => toml::Table::new(),
    };
    if section.contains_key(*list) {
        return;
    }
    let Ok(shown) = thermocline_managers::registry::build_shown(manager, section, 1) else {
        return;
    };
    if let Some(v @ toml::Value::Array(_)) = shown.params.get(*list) {
        let section = table
            .entry(manager.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if let Some(t) = section.as_table_mut() {
            t.insert(list.to_string(), v.clone());
        }
    }
}

/// Sets `path[i..]` below `cur` to `value`: tables by key (made as
/// needed), lists by index (an entry that exists).
fn set_in(
    cur: &mut toml::Value,
    path: &[&str],
    i: usize,
    value: toml::Value,
) -> Result<(), String> {
    let seg = path[i];
    let last = i + 1 == path.len();
    let next = match cur {
        toml::Value::Table(t) => {
            if last {
                t.insert(seg.to_string(), value);
                return Ok(());
            }
            t.entry(seg.to_string())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()))
        }
        toml::Value::Array(a) => {
            let list = path[..i].join(".");
            let n: usize = seg
                .parse()
                .map_err(|_| format!("{list} is a list: give an entry's index, not {seg}"))?;
            let len = a.len();
            let entry = a.get_mut(n).ok_or_else(|| {
                format!("{list} has {len} entries, so no entry {n} (--set changes an entry; to add one, give the whole list)")
            })?;
            if last {
                *entry = value;
                return Ok(());
            }
            entry
        }
        _ => return Err(format!("{} is not a section", path[..i].join("."))),
    };
    if !matches!(next, toml::Value::Table(_) | toml::Value::Array(_)) {
        return Err(format!("{} is not a section", path[..=i].join(".")));
    }
    set_in(next, path, i + 1, value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_reaches_one_field_of_one_listed_entry_and_defaults_lists() {
        let text = "[[damon-moderate.schemes]]\naction = \"stat\"\n\n[[damon-moderate.schemes]]\naction = \"migrate_hot\"\n";
        let cfg = load(
            Some(("c.toml", text)),
            &["damon-moderate.schemes.1.quota_bytes=4096".into()],
        )
        .unwrap();
        let schemes = cfg.manager_params("damon-moderate")["schemes"].clone();
        let list = schemes.as_array().unwrap();
        assert_eq!(list[1]["quota_bytes"].as_integer(), Some(4096));
        assert_eq!(list[1]["action"].as_str(), Some("migrate_hot"));
        assert!(list[0].get("quota_bytes").is_none());
        // out of range, or not an index: the --set's error
        for (set, want) in [
            (
                "damon-moderate.schemes.2.quota_bytes=1",
                "has 2 entries, so no entry 2",
            ),
            (
                "damon-moderate.schemes.x.quota_bytes=1",
                "give an entry's index, not x",
            ),
        ] {
            let e = load(Some(("c.toml", text)), &[set.into()]).unwrap_err();
            assert!(e.to_string().contains(want), "{e}");
        }
        // a list the file does not set: the manager's defaults, one changed
        let cfg = load(None, &["damon-tiering.schemes.1.quota_bytes=4096".into()]).unwrap();
        let p = cfg.manager_params("damon-tiering");
        let list = p["schemes"].as_array().unwrap();
        assert_eq!(list.len(), 2, "{p:?}");
        assert_eq!(list[0]["action"].as_str(), Some("migrate_hot"));
        assert_eq!(list[1]["quota_bytes"].as_integer(), Some(4096));
    }

    #[test]
    fn a_parameter_is_found_at_its_line_or_its_set() {
        let text = "[run]\nmanager = \"damon-moderate\"\n\n[[damon-moderate.schemes]]\naction = \"stat\"\n\n[[damon-moderate.schemes]]\naction = \"migrate_hot\"\nmin_access_pct = 50\n[[damon-moderate.schemes.filters]]\nkind = \"addr\"\nbogus = 1\n\n[pebs-5khz]\nschemes = [{ action = \"stat\" },\n  { action = \"pageout\", tier = 1 }]\n";
        let cfg = load(Some(("c.toml", text)), &[]).unwrap();
        let at = |m: &str, path: &[&str]| {
            let path: Vec<String> = path.iter().map(|s| s.to_string()).collect();
            cfg.at_param(m, &path, "x".into()).map(|e| e.to_string())
        };
        let d = "damon-moderate";
        assert_eq!(at(d, &["schemes", "0"]).as_deref(), Some("c.toml:4: x"));
        assert_eq!(at(d, &["schemes", "1"]).as_deref(), Some("c.toml:7: x"));
        assert_eq!(
            at(d, &["schemes", "1", "min_access_pct"]).as_deref(),
            Some("c.toml:9: x")
        );
        // a default: the scheme's own line
        assert_eq!(
            at(d, &["schemes", "1", "max_access_pct"]).as_deref(),
            Some("c.toml:7: x")
        );
        // an unknown field of a nested table
        assert_eq!(
            at(d, &["schemes", "1", "bogus"]).as_deref(),
            Some("c.toml:12: x")
        );
        assert_eq!(
            at("pebs-5khz", &["schemes", "1", "tier"]).as_deref(),
            Some("c.toml:16: x")
        );
        assert_eq!(at("damon-tiering", &["schemes", "0"]), None);
        let cfg = load(
            Some(("c.toml", text)),
            &[
                "damon-moderate.schemes=[{action=\"stat\"}]".into(),
                "run.seed=2".into(),
            ],
        )
        .unwrap();
        let path = ["schemes".to_string(), "0".to_string()];
        assert_eq!(
            cfg.at_param(d, &path, "x".into()).unwrap().to_string(),
            "--set damon-moderate.schemes=[{action=\"stat\"}]: x"
        );
    }

    #[test]
    fn file_then_sets_merge_and_unknown_keys_fail() {
        let c = load(
            Some(("c.toml", "[run]\nseed = 5\n[workload]\naccess_rate = 1e6\n[random]\nfast_probability = 0.1\n")),
            &["run.seed=7".into(), "machine.llc.bytes=1048576".into(), "random.fast_probability=0.3".into()],
        )
        .unwrap();
        assert_eq!(c.run.seed, 7);
        assert_eq!(c.workload.access_rate, Some(1e6));
        assert_eq!(c.machine.llc.bytes, Some(1 << 20));
        assert_eq!(
            c.manager_params("random")["fast_probability"].as_float(),
            Some(0.3)
        );
        let e = load(Some(("c.toml", "[run]\n\nsede = 1\n")), &[])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("c.toml:3: unknown field `sede`"), "{e}");
        // Found after merging with --set: still the file's line, or the --set.
        let e = load(
            Some((
                "c.toml",
                "[machine]\nmlp = 4\n[machine.tlb]\nstlb_wayz = 3\n",
            )),
            &["run.seed=2".into()],
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("c.toml:4: unknown field `stlb_wayz`"), "{e}");
        let e = load(
            Some(("c.toml", "[run]\nseed = 1\n")),
            &["run.sede=1".into()],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("--set run.sede=1: unknown field `sede`"),
            "{e}"
        );
        let e = load(Some(("c.toml", "[metrics]\n\nwindow_s = \"x\"\n")), &[])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("c.toml:3: "), "{e}");
        let e = load(Some(("c.toml", "[run\n")), &[])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("c.toml:1"), "{e}");
        assert!(load(None, &["nokey".into()]).is_err());
        assert!(load(None, &["bogus.x=1".into()]).is_err());
    }
}
