//! `run.backend = "guest"`: a run on a real Linux kernel. The run's MASIM
//! config is executed for real by `thermocline masim` inside the live tests'
//! guest (tools/live/guest.sh: Debian's 6.12 under QEMU, a CPU-less slow
//! node by HMAT, zram swap), and `thermocline daemon` runs the run's manager
//! on it with the run's parameters. The report is the daemon's, with each
//! MASIM region's placement read back from the kernel shortly before the
//! workload ends. It is what the sim-to-live comparison (`reproduce
//! live-agreement`) sets beside the simulator's run of the same config.
//!
//! With `metrics.damon_regions = true` and a `damon-*` vaddr entry as the
//! manager, the kernel's own DAMON stands in for the simulated one
//! (`guest_damon.rs`): `thermocline damon-record` starts a kdamond on masim with
//! the entry's attributes, and the report carries DAMON's regions at every
//! aggregation interval (`reproduce live-damon`).

use crate::guest::{boot, prepare, section};
use thermocline_engine::config::RunConfig;
use thermocline_engine::error::RunError;
use thermocline_engine::report::{RegionTiers, Report};

/// Seconds before the workload's end at which placement is read back.
const READ_BACK_BEFORE_END_S: f64 = 4.0;

/// The guest script: start the daemon on masim, read where masim's regions
/// are shortly before it ends, then print the daemon's report.
fn script(read_back_at_s: f64) -> String {
    format!(
        r#"cd /files
thermocline daemon --config /files/daemon.toml > /tmp/daemon.out 2> /tmp/daemon.log &
D=$!
while ! grep -q "regions ready" /tmp/daemon.out; do sleep 0.1; done
P=$(sed -n 's/^masim: pid \([0-9]*\),.*/\1/p' /tmp/daemon.out)
RANGES=$(sed -n 's/^masim: region [^ ]* at \(.*\)/--range \1/p' /tmp/daemon.out)
sleep {read_back_at_s:.1}
thermocline probe --pid "$P" $RANGES --json > /tmp/place.json
wait $D; echo DAEMON-EXIT=$?
echo REPORT-BEGIN; cat /tmp/report.json; echo REPORT-END
echo PLACE-BEGIN; cat /tmp/place.json; echo PLACE-END
echo OUT-BEGIN; cat /tmp/daemon.out; echo OUT-END
echo LOG-BEGIN; tail -5 /tmp/daemon.log; echo LOG-END
"#
    )
}

/// Runs `cfg` in the guest.
pub fn run(cfg: &RunConfig) -> Result<Report, RunError> {
    let prep = prepare(cfg, "thermocline-guest")?;
    let mut daemon = toml::Table::new();
    let mut target = toml::Table::new();
    target.insert(
        "exec".into(),
        toml::Value::Array(
            [
                "thermocline",
                "masim",
                &prep.cfg_name,
                "--seed",
                &cfg.run.seed.to_string(),
            ]
            .iter()
            .map(|s| toml::Value::String(s.to_string()))
            .collect(),
        ),
    );
    daemon.insert("target".into(), toml::Value::Table(target));
    let mut manager = toml::Table::new();
    manager.insert("name".into(), toml::Value::String(cfg.run.manager.clone()));
    manager.insert(
        "params".into(),
        toml::Value::Table(cfg.manager_params(&cfg.run.manager)),
    );
    manager.insert("seed".into(), toml::Value::Integer(cfg.run.seed as i64));
    daemon.insert("manager".into(), toml::Value::Table(manager));
    let mut d = toml::Table::new();
    d.insert("metrics".into(), toml::Value::String(String::new()));
    d.insert("window_s".into(), toml::Value::Float(cfg.metrics.window_s));
    d.insert(
        "report".into(),
        toml::Value::String("/tmp/report.json".into()),
    );
    daemon.insert("daemon".into(), toml::Value::Table(d));
    let cfg_file = prep.write(&prep.cfg_name, &prep.text)?;
    let daemon_file = prep.write("daemon.toml", &toml::to_string(&daemon).expect("a table"))?;
    let read_back = (prep.duration_s - READ_BACK_BEFORE_END_S).max(1.0);
    let script_file = prep.write("run.sh", &script(read_back))?;
    let guest = boot(
        &prep,
        prep.duration_s + 180.0,
        &[&cfg_file, &daemon_file],
        &script_file,
    )?;
    let console = &guest.console;
    let failed = |why: &str| guest.failed(why, 0);
    let report = section(console, "REPORT").ok_or_else(|| failed("the guest printed no report"))?;
    let mut report: Report =
        serde_json::from_str(report).map_err(|e| failed(&format!("the daemon's report: {e}")))?;
    let place: serde_json::Value = section(console, "PLACE")
        .and_then(|p| serde_json::from_str(p).ok())
        .ok_or_else(|| failed("no placement was read back"))?;
    let names: Vec<String> = section(console, "OUT")
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.strip_prefix("masim: region "))
        .filter_map(|l| l.split(" at ").next().map(str::to_string))
        .collect();
    // node -> tier index, from the kernel's tiers (fastest first)
    let tiers: Vec<Vec<i64>> = place["tiers"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|x| {
                    x["nodes"]
                        .as_array()
                        .map(|n| n.iter().filter_map(|v| v.as_i64()).collect())
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default();
    let ranges = place["target"]["ranges"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    report.regions = ranges
        .iter()
        .zip(&names)
        .map(|(r, name)| {
            let mut pages = vec![0u64; tiers.len().max(1)];
            let mut elsewhere = r["swapped"].as_u64().unwrap_or(0);
            for p in r["pages_per_node"].as_array().into_iter().flatten() {
                let (node, n) = (p[0].as_i64().unwrap_or(-1), p[1].as_u64().unwrap_or(0));
                match tiers.iter().position(|t| t.contains(&node)) {
                    Some(i) => pages[i] += n,
                    None => elsewhere += n,
                }
            }
            RegionTiers {
                name: name.clone(),
                bytes: r["len"].as_u64().unwrap_or(0),
                pages,
                elsewhere,
            }
        })
        .collect();
    report.workload = cfg.run.workload.clone();
    report.machine = "guest (tools/live/guest.sh)".into();
    if let Some(out) = section(console, "OUT") {
        if !out.contains(", 0 corrupted bytes, 0 lost writes") {
            return Err(failed("masim's data did not check out"));
        }
    }
    Ok(report)
}
