//! Checks of a manager's schemes that need more than their own fields:
//! the machine's tiers, the backend's capabilities, the workload's regions
//! and the run's length. An error or warning names the file and line (or
//! the `--set`) that wrote the scheme, through [`RunConfig::at_param`].

use crate::config::RunConfig;
use crate::error::{ConfigError, RunError};
use thermocline_backend::{Capabilities, Capability};
use thermocline_managers::schemes::{passing, Filter, FilterKind, SchemeParams, Traits};
use thermocline_managers::ManagerError;
use thermocline_vocab::{Asid, RegionInfo};

/// The schemes in a manager's parameters as built (none for a manager
/// without any).
pub fn schemes_of(params: &toml::Table) -> Vec<SchemeParams> {
    params
        .get("schemes")
        .cloned()
        .and_then(|v| v.try_into().ok())
        .unwrap_or_default()
}

/// The field of a scheme an error of [`SchemeParams::build`] is about:
/// the first field (or part of one) its words name.
fn field_of(why: &str) -> Option<&'static str> {
    const NEEDLES: &[(&str, &str)] = &[
        ("min_bytes", "min_bytes"),
        ("max_bytes", "max_bytes"),
        ("min_access_pct", "min_access_pct"),
        ("max_access_pct", "max_access_pct"),
        ("access_pct", "min_access_pct"),
        ("min_age_s", "min_age_s"),
        ("max_age_s", "max_age_s"),
        ("age_s", "min_age_s"),
        ("apply_interval_ms", "apply_interval_ms"),
        ("quota_reset_ms", "quota_reset_ms"),
        ("quota_ms", "quota_ms"),
        ("quota_bytes", "quota_bytes"),
        ("action", "action"),
        ("goal", "goals"),
        ("watermarks", "watermarks"),
        ("filter", "filters"),
        ("tier", "tier"),
    ];
    NEEDLES
        .iter()
        .filter_map(|&(needle, field)| {
            why.find(needle)
                .map(|at| (at, usize::MAX - needle.len(), field))
        })
        .min()
        .map(|(_, _, field)| field)
}

/// The path of scheme `i`'s field that `why` is about.
fn scheme_path(i: usize, why: &str) -> Vec<String> {
    let mut path = vec!["schemes".to_string(), i.to_string()];
    path.extend(field_of(why).map(str::to_string));
    path
}

/// A manager's bad parameters, at the file's line or the `--set` that
/// wrote them when that can be told: `schemes[i]: ...` is scheme `i`
/// (the field its words name); a scheme serde refused is found by reading
/// each alone (an unknown field: its own line, even in a nested table);
/// `KEY: ...` or an unknown field `KEY` is that parameter.
pub fn manager_error(cfg: &RunConfig, manager: &str, e: ManagerError) -> RunError {
    let ManagerError::BadParams { msg, .. } = &e else {
        return e.into();
    };
    let given = cfg.manager_params(manager);
    let unknown = msg
        .split("unknown field `")
        .nth(1)
        .and_then(|r| r.split('`').next())
        .map(str::to_string);
    let mut text = e.to_string();
    let path: Option<Vec<String>> = if let Some(rest) = msg.strip_prefix("schemes[") {
        rest.split_once("]: ")
            .and_then(|(i, why)| Some(scheme_path(i.parse().ok()?, why)))
    } else if msg.starts_with("schemes:") {
        let refused = given
            .get("schemes")
            .and_then(toml::Value::as_array)
            .and_then(|a| {
                a.iter()
                    .position(|s| s.clone().try_into::<SchemeParams>().is_err())
            });
        Some(match refused {
            Some(i) => {
                // the scheme refused, by its place in the list
                text = format!(
                    "parameters of manager {manager}: schemes[{i}]{}",
                    &msg["schemes".len()..]
                );
                let mut p = vec!["schemes".to_string(), i.to_string()];
                p.extend(unknown);
                p
            }
            None => vec!["schemes".to_string()],
        })
    } else {
        // the parameter the words open with: `KEY: ...`, `KEY = V: ...`,
        // `KEY must ...` or `MANAGER.KEY ...`
        let opening = |m: &str| -> String {
            m.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        };
        let first = opening(msg);
        let key = msg
            .strip_prefix(&format!("{manager}."))
            .map(opening)
            .into_iter()
            .chain(std::iter::once(first))
            .find(|k| given.contains_key(k))
            .or(unknown)
            // else a parameter given that the words name further on
            // (`min_regions = 10 is above max_regions = 1`)
            .or_else(|| {
                given
                    .keys()
                    .find(|k| {
                        msg.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                            .any(|w| w == k.as_str())
                    })
                    .cloned()
            });
        key.map(|k| vec![k])
    };
    match path.and_then(|p| cfg.at_param(manager, &p, text)) {
        Some(located) => located.into(),
        None => e.into(),
    }
}

/// Scheme `i` of `manager` is wrong (`why`): at its line, else about the
/// manager's parameters (a default scheme).
fn scheme_error(cfg: &RunConfig, manager: &str, i: usize, why: &str) -> RunError {
    let what = format!("parameters of manager {manager}");
    let msg = format!("{what}: schemes[{i}]: {why}");
    cfg.at_param(manager, &scheme_path(i, why), msg)
        .unwrap_or_else(|| ConfigError::invalid(what, format!("schemes[{i}]: {why}")))
        .into()
}

/// Each scheme against a machine of `tiers` tiers: a tier it names (its
/// action's, a goal's, its watermarks') must exist.
pub fn check_tiers(
    cfg: &RunConfig,
    manager: &str,
    schemes: &[SchemeParams],
    tiers: usize,
) -> Result<(), RunError> {
    for (i, s) in schemes.iter().enumerate() {
        s.build(tiers)
            .map_err(|why| scheme_error(cfg, manager, i, &why))?;
    }
    Ok(())
}

/// What a scheme's action needs of the backend (as the engine asks at
/// its start).
fn needs(action: &str) -> Option<Capability> {
    match action {
        "migrate_hot" | "migrate_cold" | "pageout" => Some(Capability::Migrate),
        "hugepage" | "nohugepage" => Some(Capability::HugePages),
        _ => None,
    }
}

/// Each scheme's action against what the backend (`backend`, of `caps`)
/// can do.
pub fn check_actions(
    cfg: &RunConfig,
    manager: &str,
    schemes: &[SchemeParams],
    caps: Capabilities,
    backend: &str,
) -> Result<(), RunError> {
    for (i, s) in schemes.iter().enumerate() {
        if let Some(cap) = needs(&s.action).filter(|&c| !caps.has(c)) {
            let why = format!(
                "action {}: the {backend} backend cannot perform it (it has no {cap:?})",
                s.action
            );
            return Err(scheme_error(cfg, manager, i, &why));
        }
    }
    Ok(())
}

/// What the run offers a scheme to match.
pub struct RunShape<'a> {
    /// The workload's regions.
    pub regions: &'a [RegionInfo],
    /// Nominal workload seconds the run lasts.
    pub duration_s: f64,
}

/// One line per scheme that can never match in this run, naming where it
/// was written. A scheme can never match when:
///
/// - its `min_bytes` is above the widest address range of any address
///   space of the workload (its first region's start to its last region's
///   end): no telemetry reports a region larger than that;
/// - its filters let no byte of any workload region through (each region
///   judged by the engine's own filter code, with its address space, page
///   type and huge pages);
/// - its `min_age_s` is beyond the run's nominal length (workload time, or
///   `--duration`): ages count simulated seconds, so only a run slowed
///   down more than that ratio could see one;
/// - its watermarks' `low` is above 1000 per mille: the free share is
///   always below it, so the scheme is always off.
///
/// The frequency ranges need no rule here: `min_access_pct` above 100 or
/// above `max_access_pct` is already an error, and 0 to 100 is reachable
/// by every technique.
pub fn never_matching(
    cfg: &RunConfig,
    manager: &str,
    schemes: &[SchemeParams],
    run: &RunShape,
) -> Vec<String> {
    let mut spans: Vec<(Asid, u64, u64)> = Vec::new();
    for r in run.regions {
        match spans.iter_mut().find(|s| s.0 == r.asid) {
            Some(s) => {
                s.1 = s.1.min(r.start);
                s.2 = s.2.max(r.end());
            }
            None => spans.push((r.asid, r.start, r.end())),
        }
    }
    let widest = spans.iter().map(|s| s.2 - s.1).max().unwrap_or(0);
    let mut out = Vec::new();
    for (i, s) in schemes.iter().enumerate() {
        let mut why: Vec<(String, &str)> = Vec::new();
        if s.min_bytes > widest {
            why.push((
                format!(
                    "min_bytes ({}) is above the widest address range of the workload ({widest} bytes): no region is that large",
                    s.min_bytes
                ),
                "min_bytes",
            ));
        }
        if let Ok(c) = s.build(usize::from(u8::MAX)) {
            let filters: &[Filter] = &c.scheme.filters;
            let any = run.regions.iter().any(|r| {
                let t = Traits {
                    asid: r.asid,
                    page_type: r.page_type,
                    huge: r.thp,
                };
                !passing(filters, &t, r.start, r.end()).is_empty()
            });
            if !filters.is_empty() && !any {
                let kinds: Vec<String> = filters
                    .iter()
                    .map(|f| match f.kind {
                        FilterKind::Addr { start, end } => format!("addr {start:#x}-{end:#x}"),
                        k => format!("{k:?}").to_lowercase(),
                    })
                    .collect();
                why.push((
                    format!(
                        "its filters ({}) let no byte of the workload's regions through",
                        kinds.join(", ")
                    ),
                    "filters",
                ));
            }
        }
        if s.min_age_s > run.duration_s {
            why.push((
                format!(
                    "min_age_s ({} s) is beyond the run's {:.3} s of workload time: no region gets that old unless the run is slowed down more than {:.1}x",
                    s.min_age_s,
                    run.duration_s,
                    s.min_age_s / run.duration_s.max(f64::MIN_POSITIVE)
                ),
                "min_age_s",
            ));
        }
        if let Some(w) = s.watermarks.as_ref().filter(|w| w.low > 1000.0) {
            why.push((
                format!(
                    "watermarks.low ({}) is above 1000 per mille: the free share is always below it, so the scheme is always off",
                    w.low
                ),
                "watermarks",
            ));
        }
        for (why, field) in why {
            let path = vec!["schemes".to_string(), i.to_string(), field.to_string()];
            let msg = format!("manager {manager}, schemes[{i}] can never match: {why}");
            out.push(match cfg.at_param(manager, &path, msg.clone()) {
                Some(at) => at.to_string(),
                None => msg,
            });
        }
    }
    out
}

/// The configuration key an error found after loading is about: a
/// [`ConfigError::Invalid`]'s setting (`machine.mlp`; `fast capacity` is
/// `run.fast_capacity`), a workload error's (`workload.access_rate`, else
/// the workload named by `run.workload`).
fn key_of(e: &RunError) -> Option<String> {
    match e {
        RunError::Config(ConfigError::Invalid { what, .. }) => match what.as_str() {
            "fast capacity" => Some("run.fast_capacity".into()),
            "duration" => Some("run.duration_s".into()),
            "backend" => Some("run.backend".into()),
            "machine" => Some("run.machine".into()),
            w if w.starts_with("manager ") => Some(w["manager ".len()..].into()),
            w if ["run.", "machine.", "workload.", "metrics."]
                .iter()
                .any(|s| w.starts_with(s)) =>
            {
                Some(w.into())
            }
            _ => None,
        },
        RunError::Config(ConfigError::UnknownName {
            kind: "machine", ..
        }) => Some("run.machine".into()),
        RunError::Workload(thermocline_workloads::WorkloadError::Invalid(m)) => {
            let opening: String = m
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
                .collect();
            Some(if opening.starts_with("workload.") {
                opening
            } else {
                "run.workload".into()
            })
        }
        _ => None,
    }
}

/// `e`, found once the configuration was loaded, located where the user
/// gave the setting it is about (the flag, the `--set`, the file's line):
/// a check made after parsing still names its line. Unchanged when the
/// setting was a default or `e` is about no one setting.
pub fn locate(cfg: &RunConfig, e: RunError) -> RunError {
    let Some(key) = key_of(&e) else {
        return e;
    };
    match cfg.at_key(&key, e.to_string()) {
        // the flag names the setting: its value's problem is enough
        Some(ConfigError::Flag { flag, .. }) => ConfigError::Flag {
            flag,
            msg: match e {
                RunError::Config(ConfigError::Invalid { msg, .. }) => msg,
                other => other.to_string(),
            },
        }
        .into(),
        Some(located) => located.into(),
        None => e,
    }
}

/// A section of manager parameters for a manager the command does not
/// run (`[thermostat]` under `--manager thermostat-badgertrap`, say) is an
/// error at its line: its parameters would otherwise be ignored unseen.
/// Sweeps are exempt: a parameter axis that applies to some of their cells
/// is how a sweep is written.
pub fn check_sections(cfg: &RunConfig, running: &[String]) -> Result<(), RunError> {
    let Some(unused) = cfg.managers.keys().find(|m| !running.contains(m)) else {
        return Ok(());
    };
    let msg = format!(
        "[{unused}] sets parameters of manager {unused}, which this command does not run (it runs {}): remove the section, or run that manager",
        running.join(", ")
    );
    Err(cfg
        .at_key(unused, msg.clone())
        .unwrap_or_else(|| ConfigError::invalid(format!("[{unused}]"), msg))
        .into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_field_their_words_name() {
        assert_eq!(
            field_of("min_access_pct (50) is above max_access_pct (10)"),
            Some("min_access_pct")
        );
        assert_eq!(field_of("tier 5 does not exist"), Some("tier"));
        assert_eq!(
            field_of("goal tier_used_bp: tier 3 does not exist"),
            Some("goals")
        );
        assert_eq!(field_of("addr filter: start"), Some("filters"));
        assert_eq!(
            field_of("access_pct: the range must be"),
            Some("min_access_pct")
        );
        assert_eq!(
            field_of("quota_reset_ms (0) must be above 0"),
            Some("quota_reset_ms")
        );
    }

    #[test]
    fn never_matching_rules_each_warn_once_at_their_field() {
        let text = "[[pebs-5khz.schemes]]\naction = \"stat\"\n[pebs-5khz.schemes.watermarks]\nhigh = 2000\nmid = 1500\nlow = 1200\n\n[[pebs-5khz.schemes]]\naction = \"stat\"\nmin_bytes = 4096\n[[pebs-5khz.schemes.filters]]\nkind = \"target\"\nasid = 1\nexclude = false\n";
        let cfg = crate::config::load(Some(("c.toml", text)), &[]).unwrap();
        let schemes = schemes_of(&cfg.manager_params("pebs-5khz"));
        let region = |asid: u16, start: u64| RegionInfo {
            asid: Asid(asid),
            name: "r".into(),
            start,
            len: 8192,
            page_type: thermocline_vocab::PageType::Anon,
            thp: false,
        };
        // one address space: only asid 1 is let through, and it has none
        let regions = [region(0, 0), region(0, 1 << 20)];
        let run = RunShape {
            regions: &regions,
            duration_s: 1.0,
        };
        let w = never_matching(&cfg, "pebs-5khz", &schemes, &run);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[0].starts_with(
                "c.toml:3: manager pebs-5khz, schemes[0] can never match: watermarks.low (1200)"
            ),
            "{w:?}"
        );
        assert!(w[1].starts_with("c.toml:11: manager pebs-5khz, schemes[1] can never match: its filters (target(asid(1)))"), "{w:?}");
        // with asid 1 present, and min_bytes within the widest range: none
        let regions = [region(0, 0), region(1, 1 << 20)];
        let run = RunShape {
            regions: &regions,
            duration_s: 1.0,
        };
        assert_eq!(
            never_matching(&cfg, "pebs-5khz", &schemes[1..], &run),
            Vec::<String>::new()
        );
        // a default scheme (not written anywhere) warns without a place
        let plain = crate::config::load(None, &[]).unwrap();
        let w = never_matching(&plain, "damon-tiering", &schemes[..1], &run);
        assert!(
            w[0].starts_with("manager damon-tiering, schemes[0] can never match"),
            "{w:?}"
        );
    }

    #[test]
    fn an_action_the_backend_cannot_perform_names_the_schemes_line() {
        let text = "[run]\nmanager = \"damon-moderate\"\n\n[[damon-moderate.schemes]]\naction = \"stat\"\n\n[[damon-moderate.schemes]]\naction = \"hugepage\"\n";
        let cfg = crate::config::load(Some(("c.toml", text)), &[]).unwrap();
        let schemes = schemes_of(&cfg.manager_params("damon-moderate"));
        let caps = Capabilities::all().without(Capability::HugePages);
        let e = check_actions(&cfg, "damon-moderate", &schemes, caps, "live")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("c.toml:8: parameters of manager damon-moderate: schemes[1]: action hugepage: the live backend cannot perform it"),
            "{e}"
        );
        assert!(check_actions(
            &cfg,
            "damon-moderate",
            &schemes,
            Capabilities::all(),
            "exact"
        )
        .is_ok());
    }
}
