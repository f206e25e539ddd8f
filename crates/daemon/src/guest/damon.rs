//! `run.backend = "guest"` with `metrics.damon_regions = true`: the kernel's
//! own DAMON on a MASIM config executed for real in the guest (Debian's
//! 6.12, tools/live/guest.sh), recorded where the simulator would run its
//! DAMON entry (`damon-moderate`, `damon-aggressive`) with the same
//! attributes: sampling and aggregation intervals, 10-1000 regions.
//!
//! In the guest: `thermocline masim CONFIG` starts; once its regions are
//! ready, `thermocline damon-record --pid` starts a kdamond of its own on it
//! (vaddr). DAMON's regions are read two ways:
//! - the `damon:damon_aggregated` tracepoint, which the kernel emits for
//!   every region at the end of every aggregation interval (after the
//!   merge, before the counts reset: what the simulator records too), on
//!   the `mono` trace clock. This is the report's main trace.
//! - damon-record's own JSON lines, which read the regions through a stat
//!   scheme's tried regions: a snapshot per `update_schemes_tried_regions`
//!   command, which returns once the regions of the next scheme
//!   application are there. Its time is taken when the files have been
//!   read, so it is later than the aggregation it shows (`reproduce
//!   live-damon` measures by how much), and a slow read can skip an
//!   aggregation. Kept as the trace's `also`.
//!
//! Every time is put on masim's clock (seconds since masim started) through
//! CLOCK_MONOTONIC, which masim's report, damon-record's lines and the
//! `mono` trace clock all read. The workload's regions are where masim
//! says they are (`masim: region NAME at 0xSTART-0xEND`).

use crate::guest::{boot, invalid, prepare, section};
use std::io::Write;
use std::process::{Command, Stdio};
use thermocline_engine::config::RunConfig;
use thermocline_engine::error::RunError;
use thermocline_engine::report::{DamonSnapshot, DamonTrace, Report};
use thermocline_managers::telescope::Layout;

/// The guest script: the tracepoint on, masim, damon-record on masim, then
/// everything printed (the two traces gzipped and base64-encoded).
fn script(cfg_name: &str, seed: u64, record_args: &str) -> String {
    format!(
        r#"cd /files
# only alerts on the console: a kernel warning (an RCU stall on a loaded
# host, say) must not land inside the encoded traces
echo 1 > /proc/sys/kernel/printk
T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
[ -e $T/trace_clock ] || T=/sys/kernel/debug/tracing
[ -e $T/events/damon/damon_aggregated/enable ] || {{ echo "NO-DAMON-TRACEPOINT at $T"; exit 1; }}
echo mono > $T/trace_clock
echo 16384 > $T/buffer_size_kb
echo > $T/trace
echo 1 > $T/events/damon/damon_aggregated/enable
thermocline masim {cfg_name} --seed {seed} --report /tmp/masim.json > /tmp/masim.out 2> /tmp/masim.err &
M=$!
while ! grep -q "regions ready" /tmp/masim.out; do sleep 0.02; done
thermocline damon-record --pid $M {record_args} > /tmp/damon.jsonl 2> /tmp/damon.err &
R=$!
wait $M; echo MASIM-EXIT=$?
wait $R; echo RECORD-EXIT=$?
echo 0 > $T/events/damon/damon_aggregated/enable
echo MASIM-BEGIN; cat /tmp/masim.json; echo; echo MASIM-END
echo OUT-BEGIN; cat /tmp/masim.out /tmp/masim.err /tmp/damon.err; grep -m1 entries-in-buffer $T/trace; echo OUT-END
echo RECORD-BEGIN; gzip -c /tmp/damon.jsonl | base64; echo RECORD-END
echo TRACE-BEGIN; grep damon_aggregated: $T/trace | gzip -c | base64; echo TRACE-END
"#
    )
}

/// `base64 -d | gzip -dc` on the host (guest.sh needs both there anyway),
/// of the section's lines that are base64 (a console line of anything else
/// is left out).
fn unpack(text: &str) -> Result<String, RunError> {
    let text: String = text
        .lines()
        .filter(|l| {
            !l.is_empty()
                && l.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=')
        })
        .flat_map(|l| [l, "\n"])
        .collect();
    let mut child = Command::new("sh")
        .args(["-c", "base64 -d | gzip -dc"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| invalid(format!("base64 | gzip on the host: {e}")))?;
    let mut stdin = child.stdin.take().expect("piped");
    let input = text;
    let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| invalid(format!("base64 | gzip on the host: {e}")))?;
    let _ = feeder.join();
    if !out.status.success() {
        return Err(invalid(format!(
            "the guest's trace did not decode: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// One `damon:damon_aggregated` event: (time, nr_regions, start, end,
/// nr_accesses).
fn trace_event(line: &str) -> Option<(f64, usize, u64, u64, u64)> {
    // "kdamond.0-153 [001] ..... 12.345678: damon_aggregated: target_id=0
    //  nr_regions=12 94427239612416-94427316203520: 0 1"
    let (head, rest) = line.split_once(": damon_aggregated: ")?;
    let t: f64 = head.split_whitespace().last()?.parse().ok()?;
    let mut f = rest.split_whitespace();
    let _target = f.next()?.strip_prefix("target_id=")?;
    let nr: usize = f.next()?.strip_prefix("nr_regions=")?.parse().ok()?;
    let (a, b) = f.next()?.strip_suffix(':')?.split_once('-')?;
    let n: u64 = f.next()?.parse().ok()?;
    Some((t, nr, a.parse().ok()?, b.parse().ok()?, n))
}

/// The tracepoint's events as snapshots, one per aggregation interval (the
/// kernel emits a context's regions one after another in address order, so
/// a step down in address starts the next interval), each at its first
/// event's time, shifted by `-clock0`. Intervals whose events do not add up
/// to their `nr_regions` (events lost) are left out and counted.
pub fn parse_trace(text: &str, clock0: f64) -> (Vec<DamonSnapshot>, usize) {
    let mut out = Vec::new();
    let mut lost = 0;
    let mut cur: Option<(f64, usize, Vec<[u64; 3]>)> = None;
    let mut close = |c: Option<(f64, usize, Vec<[u64; 3]>)>, out: &mut Vec<DamonSnapshot>| {
        if let Some((t, nr, regions)) = c {
            if regions.len() == nr {
                out.push(DamonSnapshot {
                    t_s: t - clock0,
                    regions,
                });
            } else {
                lost += 1;
            }
        }
    };
    for (t, nr, a, b, n) in text.lines().filter_map(trace_event) {
        let next = match &cur {
            Some((_, cnr, regions)) => {
                let last = regions.last().expect("never empty");
                a < last[1] || regions.len() >= *cnr || nr != *cnr
            }
            None => true,
        };
        if next {
            close(cur.take(), &mut out);
            cur = Some((t, nr, Vec::new()));
        }
        cur.as_mut().expect("just set").2.push([a, b, n]);
    }
    close(cur, &mut out);
    (out, lost)
}

/// damon-record's JSON lines as snapshots (times shifted by `-clock0`);
/// snapshots with no region (the tried regions read while empty) are left
/// out.
pub fn parse_record(text: &str, clock0: f64) -> Vec<DamonSnapshot> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| {
            let t = v["clock_s"].as_f64()?;
            let regions: Vec<[u64; 3]> = v["regions"]
                .as_array()?
                .iter()
                .filter_map(|r| {
                    Some([
                        r["start"].as_u64()?,
                        r["end"].as_u64()?,
                        r["nr_accesses"].as_u64()?,
                    ])
                })
                .collect();
            (!regions.is_empty()).then_some(DamonSnapshot {
                t_s: t - clock0,
                regions,
            })
        })
        .collect()
}

/// masim's `masim: region NAME at 0xSTART-0xEND` lines.
pub fn masim_regions(out: &str) -> Vec<(String, u64, u64)> {
    out.lines()
        .filter_map(|l| l.strip_prefix("masim: region "))
        .filter_map(|l| {
            let (name, range) = l.rsplit_once(" at ")?;
            let (a, b) = range.trim().split_once('-')?;
            let hex = |x: &str| u64::from_str_radix(x.trim_start_matches("0x"), 16).ok();
            Some((name.to_string(), hex(a)?, hex(b)?))
        })
        .collect()
}

/// Runs `cfg` (a `damon-*` vaddr entry) as the kernel's DAMON in the guest.
pub fn run(cfg: &RunConfig) -> Result<Report, RunError> {
    let manager = &cfg.run.manager;
    let p = thermocline_managers::registry::damon_vaddr_params(
        manager,
        cfg.manager_params(manager),
        cfg.run.seed,
    )
    .ok_or_else(|| {
        invalid(format!(
            "metrics.damon_regions on the guest records the kernel's DAMON in place of a DAMON vaddr entry (damon-moderate, damon-aggressive); {manager} is not one"
        ))
    })?
    .map_err(|e| invalid(e.to_string()))?;
    if p.layout != Layout::Process {
        return Err(invalid(
            "the kernel's DAMON here is vaddr's: the entry's layout must be \"process\"",
        ));
    }
    if p.intervals_goal.is_some_and(|g| g.enabled()) {
        return Err(invalid(
            "the guest's DAMON is recorded with fixed intervals (damo record --sample-us/--aggr-us): leave intervals_goal out",
        ));
    }
    let sample_us = (p.sample_ms * 1e3).round() as u64;
    let aggr_us = (p.aggregate_ms * 1e3).round() as u64;
    let record_args = format!(
        "--sample-us {sample_us} --aggr-us {aggr_us} --min-regions {} --max-regions {}",
        p.min_regions, p.max_regions
    );
    let prep = prepare(cfg, "thermocline-guest-damon")?;
    let cfg_file = prep.write(&prep.cfg_name, &prep.text)?;
    let script_file = prep.write(
        "run.sh",
        &script(&prep.cfg_name, cfg.run.seed, &record_args),
    )?;
    let guest = boot(
        &prep,
        prep.duration_s * 2.0 + 180.0,
        &[&cfg_file],
        &script_file,
    )?;
    let console = &guest.console;
    let failed = |why: &str| guest.failed(why, 8);
    if !guest.success() {
        return Err(failed("the guest did not run the script to its end"));
    }
    let masim_out = section(console, "OUT").ok_or_else(|| failed("no masim output"))?;
    if !masim_out.contains(", 0 corrupted bytes, 0 lost writes") {
        return Err(failed("masim's data did not check out"));
    }
    let report: serde_json::Value = section(console, "MASIM")
        .and_then(|t| serde_json::from_str(t.trim()).ok())
        .ok_or_else(|| failed("masim wrote no report"))?;
    let clock0 = report["start_clock_s"]
        .as_f64()
        .ok_or_else(|| failed("masim's report has no start_clock_s"))?;
    let phases: Vec<(String, f64)> = report["phases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| Some((p["name"].as_str()?.to_string(), p["start_s"].as_f64()?)))
        .collect();
    let end_s = report["phases"]
        .as_array()
        .and_then(|a| a.last())
        .and_then(|p| Some(p["start_s"].as_f64()? + p["wall_s"].as_f64()?))
        .unwrap_or(0.0);
    let keep = || {
        let p = std::env::temp_dir().join(format!(
            "thermocline-guest-damon-{}.console",
            std::process::id()
        ));
        let _ = std::fs::write(&p, console);
        p
    };
    let trace_text = unpack(section(console, "TRACE").ok_or_else(|| failed("no trace"))?)
        .map_err(|e| invalid(format!("{e}; the console is in {}", keep().display())))?;
    let (snapshots, lost) = parse_trace(&trace_text, clock0);
    if snapshots.is_empty() {
        return Err(failed("the damon_aggregated tracepoint recorded nothing"));
    }
    let record_text = unpack(section(console, "RECORD").ok_or_else(|| failed("no record"))?)
        .map_err(|e| invalid(format!("{e}; the console is in {}", keep().display())))?;
    let workload_regions = masim_regions(masim_out);
    let max_nr_accesses = (aggr_us / sample_us.max(1)) as u32;
    let record = DamonTrace {
        source: "damon-record".into(),
        max_nr_accesses,
        workload_regions: workload_regions.clone(),
        phases: phases.clone(),
        end_s,
        snapshots: parse_record(&record_text, clock0),
        also: Vec::new(),
    };
    let mut notes = Vec::new();
    if lost > 0 {
        notes.push(format!(
            "{lost} aggregation intervals of the damon_aggregated trace lost events and were left out"
        ));
    }
    if let Some(line) = masim_out.lines().find(|l| l.contains("entries-in-buffer")) {
        notes.push(format!(
            "trace buffer: {}",
            line.trim_start_matches("# ").trim()
        ));
    }
    Ok(Report {
        workload: cfg.run.workload.clone(),
        manager: manager.clone(),
        machine: "guest (tools/live/guest.sh)".into(),
        seed: cfg.run.seed,
        backend: "guest".into(),
        sim_time_s: end_s,
        phase_starts_s: phases.iter().map(|p| p.1).collect(),
        notes,
        damon: Some(DamonTrace {
            source: "kernel-trace".into(),
            max_nr_accesses,
            workload_regions,
            phases,
            end_s,
            snapshots,
            also: vec![record],
        }),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_events_group_into_aggregation_intervals() {
        let t = "\
 kdamond.0-153 [001] ..... 100.000100: damon_aggregated: target_id=0 nr_regions=2 4096-8192: 3 1
 kdamond.0-153 [001] ..... 100.000110: damon_aggregated: target_id=0 nr_regions=2 8192-16384: 0 4
 kdamond.0-153 [000] ..... 100.100100: damon_aggregated: target_id=0 nr_regions=3 4096-6144: 5 0
 kdamond.0-153 [000] ..... 100.100110: damon_aggregated: target_id=0 nr_regions=3 6144-8192: 1 0
 kdamond.0-153 [000] ..... 100.100120: damon_aggregated: target_id=0 nr_regions=3 8192-16384: 0 5
 kdamond.0-153 [000] ..... 100.200100: damon_aggregated: target_id=0 nr_regions=2 4096-8192: 7 0
";
        let (s, lost) = parse_trace(t, 99.0);
        assert_eq!(lost, 1, "the last interval has one of its two events");
        assert_eq!(s.len(), 2);
        assert!((s[0].t_s - 1.0001).abs() < 1e-9);
        assert_eq!(s[0].regions, vec![[4096, 8192, 3], [8192, 16384, 0]]);
        assert_eq!(s[1].regions.len(), 3);
        assert_eq!(s[1].regions[0], [4096, 6144, 5]);
    }

    #[test]
    fn record_lines_and_masim_regions_parse() {
        let r = "{\"t_s\":0.2,\"clock_s\":10.5,\"regions\":[{\"start\":4096,\"end\":8192,\"nr_accesses\":19,\"age\":1,\"target\":0}]}\n{\"t_s\":0.4,\"clock_s\":10.7,\"regions\":[]}\n";
        let s = parse_record(r, 10.0);
        assert_eq!(s.len(), 1, "the empty snapshot is left out");
        assert!((s[0].t_s - 0.5).abs() < 1e-9);
        assert_eq!(s[0].regions, vec![[4096, 8192, 19]]);
        let m = masim_regions(
            "masim: pid 7, regions ready\nmasim: region a at 0x1000-0x3000\nmasim: region big b at 0x4000-0x5000\n",
        );
        assert_eq!(
            m,
            vec![
                ("a".into(), 0x1000, 0x3000),
                ("big b".into(), 0x4000, 0x5000)
            ]
        );
    }
}
