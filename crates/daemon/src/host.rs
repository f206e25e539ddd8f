//! The daemon's side of `kernel-tiering`: the kernel's own tiering set up
//! from the manager's parameters (`thermocline_live::host_tiering`) once
//! `[kernel] allow_host_settings` allows it, logged, and undone at the end
//! of the run (the `HostTiering` restores every value on drop too, so an
//! error path cannot leave them set); and the kernel's counters over a run.

use super::config::DaemonConfig;
use super::log;
use std::collections::BTreeMap;
use std::time::Instant;
use thermocline_engine::error::{ConfigError, RunError};
use thermocline_live::backend::LinuxBackend;
use thermocline_live::damon::DamonAttrs;
use thermocline_live::host_tiering::{DamosTiering, HostTiering, HostTieringMode};
use thermocline_live::LiveError;
use thermocline_managers::kernel_tiering::{KernelMode, KernelTieringParams};

/// Starts the kernel's tiering if the manager is one that sets it up (the
/// registry's `host_tiering`: `kernel-tiering`).
pub(super) fn start(
    cfg: &DaemonConfig,
    params: &toml::Table,
    b: &LinuxBackend,
    start: Instant,
) -> Result<Option<HostTiering>, RunError> {
    let name = &cfg.manager.name;
    if !thermocline_managers::registry::traits(name).host_tiering {
        return Ok(None);
    }
    if !cfg.kernel.allow_host_settings {
        // config::parse refuses this already; never write without leave
        return Err(ConfigError::invalid("[kernel]", "allow_host_settings is not set").into());
    }
    let p: KernelTieringParams = params
        .clone()
        .try_into()
        .map_err(|e: toml::de::Error| ConfigError::invalid("[manager] params", e.message()))?;
    let tiers: Vec<_> = b
        .live_tiers()
        .iter()
        .filter(|t| !t.nodes.is_empty())
        .collect();
    let (Some(fast), Some(slow)) = (
        tiers.first().and_then(|t| t.nodes.first()),
        tiers.last().and_then(|t| t.nodes.first()),
    ) else {
        return Err(ConfigError::invalid(
            "[tiers]",
            format!("{name} needs a fast and a slow node"),
        )
        .into());
    };
    if tiers.len() < 2 {
        return Err(ConfigError::invalid("[tiers]", format!("{name} needs two node tiers")).into());
    }
    let mode = match p.mode {
        KernelMode::NumaBalancing => HostTieringMode::NumaBalancing,
        KernelMode::Damos => HostTieringMode::Damos(DamosTiering {
            attrs: DamonAttrs {
                sample_us: (p.sample_ms * 1e3).round() as u64,
                aggr_us: (p.aggregate_ms * 1e3).round() as u64,
                min_regions: p.min_regions,
                max_regions: p.max_regions,
                ..DamonAttrs::default()
            },
            hot_min_accesses: p.hot_min_accesses,
            cold_min_age_s: p.cold_min_age_s,
            quota_bytes_per_s: p.quota_mib_per_s << 20,
        }),
    };
    let h = HostTiering::start(&mode, *fast, *slow)
        .map_err(|e| live_error(&format!("[manager] {name}"), e))?;
    log(
        start,
        "info",
        "kernel tiering",
        serde_json::json!({
            "mode": format!("{:?}", p.mode),
            "fast_node": fast,
            "slow_node": slow,
            "changed": h.changed().iter().map(|(path, before)| serde_json::json!({"path": path, "before": before})).collect::<Vec<_>>(),
        }),
    );
    Ok(Some(h))
}

/// Stops the kernel's tiering and logs what its DAMOS schemes did and
/// what was restored.
pub(super) fn stop(mut h: HostTiering, start: Instant) {
    let stats = h.scheme_stats().unwrap_or_default();
    let restored: Vec<String> = h
        .changed()
        .iter()
        .map(|(p, before)| format!("{} = {before}", p.display()))
        .collect();
    let result = h.stop();
    log(
        start,
        if result.is_ok() { "info" } else { "error" },
        "kernel tiering stopped",
        serde_json::json!({
            "damos": stats.iter().zip(["migrate_hot", "migrate_cold"]).map(|(s, a)| serde_json::json!({"action": a, "nr_applied": s.nr_applied, "sz_applied": s.sz_applied, "qt_exceeds": s.qt_exceeds})).collect::<Vec<_>>(),
            "restored": restored,
            "error": result.err().map(|e| e.to_string()),
        }),
    );
}

/// The kernel's migration counters now (empty where /proc/vmstat cannot
/// be read).
pub(super) fn vmstat() -> BTreeMap<String, u64> {
    thermocline_live::procfs::vmstat(&thermocline_live::procfs::VMSTAT_KEYS)
        .unwrap_or_default()
        .into_iter()
        .collect()
}

/// How much each counter rose since `before`.
pub(super) fn vmstat_since(before: &BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    vmstat()
        .into_iter()
        .map(|(k, v)| {
            let b = before.get(&k).copied().unwrap_or(0);
            (k, v.saturating_sub(b))
        })
        .collect()
}

/// The live backend's error `e` on `what` (a setting or a step): a host
/// failure keeps its kind ([`RunError::Host`]); anything else (a value
/// the kernel refuses, a resource another user holds) is the input's.
pub fn live_error(what: &str, e: LiveError) -> RunError {
    match e.host_kind() {
        Some(kind) => RunError::Host {
            kind,
            what: what.to_string(),
            message: e.to_string(),
        },
        None => ConfigError::invalid(what, e.to_string()).into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use thermocline_live::HostKind;

    #[test]
    fn a_host_refusal_keeps_its_kind_and_says_what_to_do() {
        let eperm = LiveError::io(
            "/proc/1/pagemap",
            // EPERM
            std::io::Error::from_raw_os_error(1),
            Some(1),
        );
        let e = live_error("[target]", eperm);
        assert_eq!(e.host_kind(), Some(HostKind::Permission));
        let msg = e.to_string();
        assert!(
            msg.starts_with("[target]: /proc/1/pagemap: permission denied"),
            "{msg}"
        );
        assert!(msg.contains("run thermocline as root"), "{msg}");
        let gone = live_error("[target]", LiveError::Exited { pid: 7 });
        assert_eq!(gone.host_kind(), Some(HostKind::TargetGone));
        // a value the kernel refuses is still the input's
        let bad = live_error("[tiers]", LiveError::Invalid("node 9".into()));
        assert_eq!(bad.host_kind(), None);
        assert_eq!(bad.exit_code(), 2);
    }
}
