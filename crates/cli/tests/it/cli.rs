//! The command line as a user meets it: exit codes and messages.

use std::process::Command;

fn thermocline(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_thermocline"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn tmp(name: &str, text: &str) -> String {
    let p = std::env::temp_dir().join(format!("tc-cli-{}-{name}", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn malformed_masim_config_exits_2_naming_file_and_line() {
    let p = tmp("bad.cfg", "a, 4096\n\nphase\n1000\na, 1, 64, 1, sideways\n");
    let (code, _, err) = thermocline(&["run", "--workload", &p, "--manager", "first-touch"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{p}:5:")), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
}

#[test]
fn unknown_names_and_bad_values_exit_2() {
    for args in [
        vec!["run", "--manager", "no-such-manager"],
        vec!["run", "--workload", "no-such-workload"],
        vec!["run", "--machine", "dram+floppy"],
        vec!["run", "--fast-capacity", "lots"],
        vec!["run", "--set", "random.nonsense=1", "--manager", "random"],
        vec!["run", "--set", "bogus"],
        vec!["run", "--workload", "trace:/nonexistent/trace"],
        vec!["run", "--workload", "lackey:/nonexistent/lk"],
        vec!["run", "--duration", "-1"],
        vec!["frobnicate"],
        vec!["run", "--bogus"],
        vec!["run", "--manager"],
        vec!["run", "--duration", "abc"],
        vec!["reproduce", "--jobs", "x", "ambix-pb"],
    ] {
        let (code, _, err) = thermocline(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        // One line, usage mistakes included (clap's usage block is dropped).
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
    let (_, _, err) = thermocline(&["run", "--bogus"]);
    assert_eq!(
        err.trim_end(),
        "error: unexpected argument '--bogus' found (see thermocline run --help)"
    );
    // Values of the right type that a manager cannot run with: the user's
    // mistake, one line, not an internal error.
    for set in ["thermostat.poison_max=0", "memos.interval_s=0"] {
        let manager = set.split('.').next().unwrap();
        let (code, _, err) = thermocline(&["run", "--manager", manager, "--set", set]);
        assert_eq!(code, 2, "{set}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{set}: {err}");
        assert!(!err.contains("internal"), "{set}: {err}");
    }
    let p = tmp("bad.toml", "[run]\nseed = \"x\"\n");
    let (code, _, err) = thermocline(&["run", "--config", &p]);
    assert_eq!(code, 2);
    assert!(err.contains(&p), "{err}");
}

#[test]
fn config_mistakes_exit_2_with_one_line_naming_file_and_line() {
    // Malformed TOML: the parser's line.
    let p = tmp("syntax.toml", "[run]\nseed = 1\n[machine\n");
    let (code, _, err) = thermocline(&["run", "--config", &p]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with(&format!("error: {p}:3:")), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    // An unknown key, found after the file is merged with --set: still its line.
    let p = tmp(
        "unknown.toml",
        "[run]\nseed = 1\n\n[machine.tlb]\nstlb_wayz = 3\n",
    );
    let (code, _, err) = thermocline(&["run", "--config", &p, "--set", "run.duration_s=0.01"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with(&format!("error: {p}:5: unknown field `stlb_wayz`")),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    // A --set value of the wrong type names the --set.
    let (code, _, err) = thermocline(&["run", "--set", "metrics.window_s=\"soon\""]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with("error: --set metrics.window_s=\"soon\": "),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    // A value of the right type but out of range names the --set and the setting.
    let (code, _, err) = thermocline(&["run", "--set", "metrics.window_s=0"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with("error: --set metrics.window_s=0: metrics.window_s: "),
        "{err}"
    );
}

#[test]
fn lackey_traces_replay() {
    let p = tmp("t.lk", "==1== Lackey\nI  04001000,3\n L 1ffefffd70,8\n S 1ffefffd68,8\n M 0402a0b8,4\n L 7fff00001000,8\n");
    let json = tmp("lk.json", "");
    let spec = format!("lackey:{p}");
    let (code, _, err) = thermocline(&[
        "run",
        "--workload",
        &spec,
        "--manager",
        "all-slow",
        "--json",
        &json,
    ]);
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r["accesses"], 5);
    assert_eq!(
        r["tiers"][1]["reads"].as_u64().unwrap() + r["tiers"][1]["writes"].as_u64().unwrap(),
        5
    );
}

#[test]
fn list_names_everything() {
    let (code, out, _) = thermocline(&["list"]);
    assert_eq!(code, 0);
    for name in [
        "multiphase",
        "first-touch",
        "all-fast",
        "dram+dcpmm",
        "dram+zswap",
    ] {
        assert!(out.contains(name), "{name}");
    }
}

#[test]
fn reproduce_lists_and_rejects_unknown_names() {
    let (code, out, _) = thermocline(&["reproduce", "--list"]);
    assert_eq!(code, 0);
    for name in [
        "thermostat-rate",
        "thermostat-footprint",
        "thermostat-sensitivity",
        "thermostat-traffic",
        "thermostat-kstaled",
        "telescope-multiphase",
        "telescope-subtb",
        "telescope-needle",
        "telescope-scattered",
        "telescope-kv",
        "memos-monitor",
    ] {
        assert!(out.contains(name), "{out}");
    }
    let (code, _, err) = thermocline(&["reproduce", "thermostat-nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("thermostat-nope"), "{err}");
    let (code, _, _) = thermocline(&["reproduce", "thermostat-rate", "--duration", "-1"]);
    assert_eq!(code, 2);
}

#[test]
fn thermostat_runs_on_a_masim_config_and_reports_per_window() {
    let cfg = tmp(
        "thermostat.cfg",
        "a, 8388608\nb, 8388608\n\nphase\n3000\na, 1, 64, 99, rw\nb, 1, 64, 1, ro\n",
    );
    let json = std::env::temp_dir().join(format!("tc-cli-{}-t.json", std::process::id()));
    let json = json.to_str().unwrap();
    let (code, _, err) = thermocline(&[
        "run",
        "--workload",
        &cfg,
        "--manager",
        "thermostat",
        "--set",
        "thermostat.slowdown=0.03",
        "--set",
        "thermostat.scan_period_s=0.5",
        "--set",
        "workload.access_rate=200000",
        // At 200 K/s a 3 s phase is 5 of masim's 131072-access bursts, and
        // the 1% region would likely get none; interleave access by access.
        "--set",
        "workload.masim_burst=1",
        "--json",
        json,
    ]);
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    let num = |v: &serde_json::Value| v.as_f64().unwrap();
    // slowdown = simulated time / ideal time - 1, and Thermostat at 3%
    // costs something but stays near its target.
    let slowdown = num(&r["slowdown"]);
    let ratio = num(&r["sim_time_s"]) / num(&r["ideal_time_s"]) - 1.0;
    assert!((slowdown - ratio).abs() < 1e-9, "{slowdown} vs {ratio}");
    assert!((0.0..0.1).contains(&slowdown), "{slowdown}");
    assert_eq!(r["tiers"].as_array().unwrap().len(), 2);
    let windows = r["windows"].as_array().unwrap();
    assert!(windows.len() >= 3);
    // Per-window rates: slow-tier accesses are some of all accesses, and
    // rates x window lengths add up to the run's totals.
    let (mut prev, mut all, mut slow) = (0.0, 0.0, 0.0);
    for w in windows {
        let (a, s) = (
            num(&w["accesses_per_s"]),
            num(&w["slow_tier_accesses_per_s"]),
        );
        assert!(a > 0.0 && (0.0..=a).contains(&s), "{w}");
        let t = num(&w["t_s"]);
        all += a * (t - prev);
        slow += s * (t - prev);
        prev = t;
        assert_eq!(w["resident_bytes"].as_array().unwrap().len(), 2);
        // 3% of t_s = 1 us: 30 K accesses per second (section 3.4).
        assert!((num(&w["manager"]["budget_per_s"]) - 30_000.0).abs() < 1e-6);
    }
    let total = num(&r["accesses"]);
    assert!((all - total).abs() <= 1e-6 * total, "{all} vs {total}");
    let t1 = &r["tiers"][1];
    let slow_total = num(&t1["reads"]) + num(&t1["writes"]);
    assert!(
        (slow - slow_total).abs() <= 1e-6 * total,
        "{slow} vs {slow_total}"
    );
    assert!(
        slow_total > 0.0,
        "the cold region is read from the slow tier"
    );
    // The cold 1% region ends in the slow tier.
    let last = windows.last().unwrap();
    assert!(last["resident_bytes"][1].as_u64().unwrap() > 0, "{last}");
    // Emulated slow memory needs its own machine.
    let (code, _, err) = thermocline(&[
        "run",
        "--workload",
        &cfg,
        "--manager",
        "thermostat-badgertrap",
        "--machine",
        "dram+cxl",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("dram+badgertrap"), "{err}");
}

#[test]
fn telescope_runs_on_a_multi_terabyte_masim_heap_on_the_rate_backend() {
    // 2 TiB heap, an 8 GiB hot region in the middle: auto picks the rate machine.
    let cfg = tmp(
        "telescope.cfg",
        "cold0, 1095216660480\nhot, 8589934592\ncold1, 1095216660480\n\nrun\n20000\nhot, 1, 64, 1, ro\n",
    );
    let json = std::env::temp_dir().join(format!("tc-cli-{}-tel.json", std::process::id()));
    let json = json.to_str().unwrap();
    let (code, _, err) = thermocline(&[
        "run",
        "--workload",
        &cfg,
        "--manager",
        "telescope-bounded",
        "--json",
        json,
    ]);
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    assert_eq!(r["backend"], "rate");
    assert!(r["hot_rule"].as_str().unwrap().contains("expected"));
    let windows = r["windows"].as_array().unwrap();
    assert!(windows.len() >= 15);
    // Every window is scored; after convergence Telescope finds the region.
    let settled = &windows[5..windows.len() - 1];
    let mean = |k: &str| {
        settled.iter().map(|w| w[k].as_f64().unwrap()).sum::<f64>() / settled.len() as f64
    };
    assert!(
        mean("precision") > 0.8 && mean("recall") > 0.9,
        "{windows:?}"
    );
    assert!(settled
        .iter()
        .all(|w| w["manager"]["bits_flipped_count"].as_f64().unwrap() > 0.0));
    // The exact machine can be forced, and a workload without rates refuses
    // the rate machine.
    let (code, _, err) = thermocline(&[
        "run",
        "--workload",
        "seq-1g",
        "--manager",
        "damon-moderate",
        "--backend",
        "rate",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("no rate description"), "{err}");
    let (code, _, err) = thermocline(&["run", "--backend", "fast"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown backend"), "{err}");
}

#[test]
fn telescope_multiphase_reproduction_reports_phases_per_technique() {
    let json = std::env::temp_dir().join(format!("tc-cli-{}-mp.json", std::process::id()));
    let json = json.to_str().unwrap();
    let (code, out, err) = thermocline(&[
        "reproduce",
        "telescope-multiphase",
        "--seed",
        "1",
        "--duration",
        "2",
        "--json",
        json,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("telescope-bounded"), "{out}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    let v = &r["telescope-multiphase"]["variants"];
    for variant in ["4k", "thp"] {
        for t in [
            "damon-moderate",
            "pebs-5khz",
            "telescope-bounded",
            "linear-scan-aggressive",
        ] {
            let tech = &v[variant][t];
            let phases = tech["phases"].as_array().unwrap();
            assert_eq!(phases[0]["phase"], "phase 1", "{tech}");
            let windows = tech["windows"].as_array().unwrap();
            assert!(!windows.is_empty(), "{tech}");
            // Phase means are the means of the scored windows ending in
            // the phase (a window without precision counts 0).
            let starts: Vec<f64> = tech["phase_starts_s"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            for (i, p) in phases.iter().enumerate().take(starts.len()) {
                let hi = starts.get(i + 1).copied().unwrap_or(f64::INFINITY);
                let scored: Vec<&serde_json::Value> = windows
                    .iter()
                    .filter(|w| {
                        let t = w["t_s"].as_f64().unwrap();
                        t > starts[i] && t <= hi && !w["recall"].is_null()
                    })
                    .collect();
                for k in ["precision", "recall"] {
                    let got = p[k].as_f64();
                    if scored.is_empty() {
                        assert_eq!(got, None, "{t} {k}: {p}");
                        continue;
                    }
                    let want = scored
                        .iter()
                        .map(|w| w[k].as_f64().unwrap_or(0.0))
                        .sum::<f64>()
                        / scored.len() as f64;
                    let got = got.unwrap();
                    assert!((0.0..=1.0).contains(&got), "{t} {k}: {got}");
                    assert!((got - want).abs() < 1e-9, "{t} {k}: {got} vs {want}");
                }
            }
            // Per-window counts are non-negative differences of the
            // cumulative gauges: they add up to the run's totals, and CPU
            // utilisation is the window's cycles at 2.1 GHz.
            let (mut prev, mut bits, mut cycles) = (0.0, 0.0, 0.0);
            for w in windows {
                let f = |k: &str| w[k].as_f64().unwrap_or_else(|| panic!("{k} in {w}"));
                assert!(f("bits_flipped") >= 0.0 && f("cpu_cycles") >= 0.0, "{w}");
                let dt = f("t_s") - prev;
                let util = f("cpu_cycles") / (2.1e9 * dt);
                assert!((f("cpu_util") - util).abs() <= 1e-9 * util.max(1.0), "{w}");
                for k in ["precision", "recall"] {
                    if let Some(x) = w[k].as_f64() {
                        assert!((0.0..=1.0).contains(&x), "{w}");
                    }
                }
                bits += f("bits_flipped");
                cycles += f("cpu_cycles");
                prev = f("t_s");
            }
            let total = |k: &str| tech[k].as_f64().unwrap();
            assert!(
                (bits - total("bits_flipped")).abs() <= 1e-6 * bits.max(1.0),
                "{t}"
            );
            assert!(
                (cycles - total("cpu_cycles")).abs() <= 1e-6 * cycles.max(1.0),
                "{t}"
            );
            // PEBS reads no Accessed bit; the others flip them.
            if t.starts_with("pebs") {
                assert_eq!(bits, 0.0, "{t}");
            } else {
                assert!(bits > 0.0, "{t} flipped no bit");
            }
        }
    }
}

/// `reproduce --check` on IWB, whose cells are steady-state throughputs and
/// so come out the same from half a simulated second as from the full run:
/// every claim is printed held / NOT held with ours beside the paper's, the
/// exit code is 1 exactly when one is not held, the JSON and the markdown
/// carry the verdicts, and the claims that hold at full length hold here.
#[test]
fn reproduce_check_prints_each_claim_and_exits_1_when_one_fails() {
    let dir = std::env::temp_dir();
    let json = dir.join(format!("tc-cli-{}-iwb.json", std::process::id()));
    let md = dir.join(format!("tc-cli-{}-iwb.md", std::process::id()));
    let (json, md) = (json.to_str().unwrap(), md.to_str().unwrap());
    let (code, out, err) = thermocline(&[
        "reproduce",
        "ambix-iwb",
        "--seeds",
        "1,2",
        "--duration",
        "0.5",
        "--check",
        "--json",
        json,
        "--markdown",
        md,
    ]);
    assert!(
        err.contains("warning: --duration 0.5 caps every run"),
        "a capped reproduction says what it leaves out: {err}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    let claims = r["ambix-iwb"]["claims"].as_array().unwrap();
    assert!(claims.len() >= 5, "{claims:?}");
    let mut failed = 0;
    assert_eq!(r["ambix-iwb"]["seeds"], serde_json::json!([1, 2]));
    for c in claims {
        let id = c["id"].as_str().unwrap();
        let held = c["held"].as_bool().unwrap();
        assert_eq!(c["seeds"].as_array().map(Vec::len), Some(2), "{c}");
        assert_eq!(c["kind"], "calibration", "{c}");
        let word = if held { "held    " } else { "NOT held" };
        assert!(out.contains(&format!("{word} {id}:")), "{id}: {out}");
        assert_eq!(c["source"]["file"], "004_5016d0e3a63ff357.txt");
        assert!(!c["paper"].as_str().unwrap().is_empty());
        if !held {
            failed += 1;
            assert!(!c["reason"].as_str().unwrap().is_empty(), "{c}");
        }
    }
    assert!(out.contains("ours: "), "{out}");
    assert_eq!(code, if failed > 0 { 1 } else { 0 }, "{err}");
    if failed > 0 {
        assert!(
            err.contains(&format!("{failed} of {} claims do not hold", claims.len())),
            "{err}"
        );
    }
    // The one that holds at full length holds here too; the best shares at
    // 32 threads are checked against the table's exact rows and miss them.
    let c = claims
        .iter()
        .find(|c| c["id"] == "ambix-iwb/all-dram-best-before-saturation")
        .unwrap();
    assert_eq!(c["held"], true, "{c}");
    let before = std::fs::read_to_string(md).unwrap();
    // Only --markdown: the summary is rebuilt from the sections, nothing runs.
    let (code, _, err) = thermocline(&["reproduce", "--markdown", md]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("kept the earlier sections of ambix-iwb"),
        "{err}"
    );
    let md = std::fs::read_to_string(md).unwrap();
    assert_eq!(md, before);
    assert!(md.contains(
        "Generated by `thermocline reproduce ambix-iwb --seeds 1,2 --duration 0.5 --check"
    ));
    assert!(
        md.contains("seeds 1, 2 (a claim holds when it holds on each)"),
        "{md}"
    );
    assert!(md.contains("capped at 0.5 s"), "{md}");
    // The IWB claims read the tables the DCPMM model was fitted to: shown
    // as calibrations, not counted among the papers' claims.
    assert!(
        md.contains("`ambix-iwb/ro-best-share-32` *(calibration)*"),
        "{md}"
    );
    assert!(
        md.contains("**0 of 0 of the papers' claims hold.**"),
        "{md}"
    );
    assert!(md.contains("| `ambix-iwb/ro-best-share-32`"), "{md}");
}

#[test]
fn reproduce_all_with_names_is_a_usage_error() {
    let (code, _, err) = thermocline(&["reproduce", "--all", "ambix-pb"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = thermocline(&["reproduce"]);
    assert_eq!(code, 2);
    assert!(err.contains("or --all"), "{err}");
}

/// Whether this host has something to tier between: two NUMA nodes with
/// memory, or a swap device.
fn host_can_tier() -> bool {
    let nodes = std::fs::read_to_string("/sys/devices/system/node/has_memory")
        .map(|t| t.trim().contains([',', '-']))
        .unwrap_or(false);
    let swap = std::fs::read_to_string("/proc/swaps").is_ok_and(|t| t.lines().count() > 1);
    nodes || swap
}

#[test]
fn exec_refuses_bad_arguments_in_one_line_before_starting_the_command() {
    let marker = std::env::temp_dir().join(format!("tc-cli-{}-exec-ran", std::process::id()));
    let _ = std::fs::remove_file(&marker);
    let m = marker.to_str().unwrap();
    let target_pid = tmp(
        "target-pid.toml",
        "[target]\npid = 1\n[manager]\nname = \"thermostat\"\n",
    );
    let bad_metrics = tmp(
        "metrics.toml",
        "[manager]\nname = \"thermostat\"\n[daemon]\nmetrics = \"nowhere\"\n",
    );
    for (args, says) in [
        (vec!["exec", "--manager", "thermostat"], "<CMD>"),
        (
            vec!["exec", "--manager", "thermostat", "touch", m],
            "unexpected argument",
        ),
        (
            vec!["exec", "--", "touch", m],
            "needs --manager NAME or --config",
        ),
        (
            vec!["exec", "--manager", "nope", "--", "touch", m],
            "unknown manager \"nope\"",
        ),
        (
            vec![
                "exec",
                "--manager",
                "thermostat",
                "--set",
                "random.x=1",
                "--",
                "touch",
                m,
            ],
            "thermostat.KEY=VALUE",
        ),
        (
            vec![
                "exec",
                "--manager",
                "thermostat",
                "--set",
                "bogus",
                "--",
                "touch",
                m,
            ],
            "expected KEY=VALUE",
        ),
        (
            vec![
                "exec",
                "--manager",
                "thermostat",
                "--set",
                "thermostat.bogus=1",
                "--",
                "touch",
                m,
            ],
            "bogus",
        ),
        (
            vec!["exec", "--config", &target_pid, "--", "touch", m],
            ":2: [target] pid is not for `thermocline exec`",
        ),
        (
            vec![
                "exec",
                "--config",
                "/nonexistent/exec.toml",
                "--",
                "touch",
                m,
            ],
            "/nonexistent/exec.toml",
        ),
        (
            vec!["exec", "--config", &bad_metrics, "--", "touch", m],
            "is not an address",
        ),
        (
            vec![
                "exec",
                "--manager",
                "thermostat",
                "--metrics",
                "x",
                "--",
                "touch",
                m,
            ],
            "is not an address",
        ),
    ] {
        let (code, _, err) = thermocline(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("error: ") && err.contains(says),
            "{args:?}: {err}"
        );
        assert!(!marker.exists(), "{args:?} started the command");
    }
    if !host_can_tier() {
        // one NUMA node and no swap, as on the project's build machines
        let (code, _, err) = thermocline(&["exec", "--manager", "thermostat", "--", "touch", m]);
        assert_eq!(code, 2, "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.contains("nothing to tier between on this host: one NUMA node"),
            "{err}"
        );
        assert!(
            !marker.exists(),
            "the command started on a host without tiering"
        );
        let (code, _, err) = thermocline(&[
            "exec",
            "--manager",
            "thermostat",
            "--compressed",
            "--",
            "touch",
            m,
        ]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("the compressed tier needs swap"), "{err}");
    }
}

/// A scheme under `[[damon-moderate.schemes]]`, after a `[run]` that picks
/// that manager: the scheme's header is line 4, its fields from line 5.
fn scheme_file(name: &str, fields: &str) -> String {
    tmp(
        name,
        &format!("[run]\nmanager = \"damon-moderate\"\n\n[[damon-moderate.schemes]]\n{fields}"),
    )
}

#[test]
fn scheme_mistakes_exit_2_naming_the_file_line_or_the_set() {
    // (fields, the line named, what the message says): unknown fields (in
    // a scheme, in its filters), impossible ranges, actions and tiers.
    for (fields, line, says) in [
        ("action = \"stat\"\nbogus = 5\n", 6, "schemes[0]: unknown field `bogus`"),
        (
            "action = \"stat\"\n[[damon-moderate.schemes.filters]]\nkind = \"anon\"\nexlude = true\n",
            8,
            "unknown field `exlude`",
        ),
        (
            "action = \"migrate_hot\"\nmin_access_pct = 50\nmax_access_pct = 10\n",
            6,
            "min_access_pct (50) is above max_access_pct (10)",
        ),
        (
            "action = \"stat\"\nmax_bytes = 4096\nmin_bytes = 8192\n",
            7,
            "min_bytes (8192) is above max_bytes (4096)",
        ),
        (
            "action = \"stat\"\nmin_age_s = 5.0\nmax_age_s = 1.0\n",
            6,
            "min_age_s (5) is above max_age_s (1)",
        ),
        ("action = \"promote\"\n", 5, "action \"promote\""),
        (
            "action = \"pageout\"\ntier = 1\n",
            6,
            "only migrate_hot and migrate_cold",
        ),
        // tiers exist or not once the machine is known (dram+dcpmm: 2)
        ("action = \"migrate_hot\"\ntier = 5\n", 6, "tier 5 does not exist"),
        (
            "action = \"migrate_hot\"\n[[damon-moderate.schemes.goals]]\nmetric = \"tier_used_bp\"\ntier = 3\ntarget = 9000\n",
            6,
            "goal tier_used_bp: tier 3 does not exist",
        ),
        (
            "action = \"stat\"\n[damon-moderate.schemes.watermarks]\ntier = 2\nhigh = 900\nmid = 800\nlow = 100\n",
            6,
            "watermarks: tier 2 does not exist",
        ),
    ] {
        let p = scheme_file("scheme.toml", fields);
        for cmd in [&["run", "--config", &p, "--duration", "0.01"][..], &["config", "show", "--config", &p]] {
            let (code, _, err) = thermocline(cmd);
            assert_eq!(code, 2, "{fields}: {err}");
            let want = format!("error: {p}:{line}: parameters of manager damon-moderate: ");
            assert!(err.starts_with(&want), "{fields}: want {want}, got {err}");
            assert!(err.contains(says), "{fields}: {err}");
            assert_eq!(err.lines().count(), 1, "one line: {err}");
        }
    }
    // From a --set: the --set is named.
    let p = scheme_file("fine.toml", "action = \"stat\"\n");
    let set = "damon-moderate.schemes=[{action=\"migrate_cold\", tier=4}]";
    let (code, _, err) = thermocline(&["run", "--config", &p, "--set", set, "--duration", "0.01"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with(&format!("error: --set {set}: ")), "{err}");
    assert!(err.contains("tier 4 does not exist"), "{err}");
    let set = "damon-moderate.schemes=[{action=\"stat\", min_bytes=9, max_bytes=1}]";
    let (code, _, err) = thermocline(&["run", "--manager", "damon-moderate", "--set", set]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with(&format!("error: --set {set}: ")), "{err}");
}

#[test]
fn schemes_that_can_never_match_warn_and_the_run_goes_on() {
    // multiphase's address range is 262 MiB; the run 50 ms of workload time.
    let p = scheme_file(
        "never.toml",
        "action = \"migrate_hot\"\nmin_bytes = 1099511627776\n\n[[damon-moderate.schemes]]\naction = \"stat\"\nmin_age_s = 30\n\n[[damon-moderate.schemes]]\naction = \"stat\"\n[[damon-moderate.schemes.filters]]\nkind = \"addr\"\nexclude = false\nstart = 0\nend = 4096\n\n[[damon-moderate.schemes]]\naction = \"stat\"\n[[damon-moderate.schemes.filters]]\nkind = \"huge\"\nexclude = false\n\n[[damon-moderate.schemes]]\naction = \"migrate_cold\"\nmin_age_s = 0.01\n",
    );
    let (code, out, err) = thermocline(&["run", "--config", &p, "--duration", "0.05"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("damon-moderate"), "{out}");
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning: ")).collect();
    for (line, says) in [
        (6, "schemes[0] can never match: min_bytes (1099511627776) is above the widest address range"),
        (10, "schemes[1] can never match: min_age_s (30 s) is beyond the run's 0.050 s"),
        (14, "schemes[2] can never match: its filters (addr 0x0-0x1000) let no byte"),
        (22, "schemes[3] can never match: its filters (huge) let no byte"),
    ] {
        let want = format!("warning: {p}:{line}: manager damon-moderate, {says}");
        assert!(warnings.iter().any(|w| w.starts_with(&want)), "{want}\n{err}");
    }
    // the last scheme can match: four warnings, one line each
    assert_eq!(warnings.len(), 4, "{err}");
    // config show warns alike
    let (code, _, err) = thermocline(&["config", "show", "--config", &p, "--duration", "0.05"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err.lines().filter(|l| l.starts_with("warning: ")).count(),
        4,
        "{err}"
    );
}

/// The `*-tiering` managers and the damon-tiering example run through
/// `run` and `compare`, their scheme notes named by manager in `compare`.
#[test]
fn the_tiering_examples_run_through_run_and_compare() {
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/damon-tiering.toml"
    );
    let (code, out, err) = thermocline(&["run", "--config", example, "--duration", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("note: scheme 1 (migrate_cold to tier 1)"),
        "{out}"
    );
    let tiering = "damon-moderate,damon-tiering,telescope-tiering,pebs-tiering,linear-scan-tiering";
    let (code, out, err) = thermocline(&[
        "compare",
        "--config",
        example,
        "--managers",
        tiering,
        "--duration",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    for m in tiering.split(',') {
        assert!(
            out.lines().any(|l| l.starts_with(&format!("{m} "))),
            "{m}: {out}"
        );
        assert!(
            out.contains(&format!("note: {m}: scheme 0 (migrate_hot to tier 0)")),
            "{m}: {out}"
        );
    }
}

#[test]
fn config_show_reads_back_unchanged_and_runs_the_same() {
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/damon-tiering.toml"
    );
    for args in [
        vec!["--config", example],
        vec![
            "--config",
            example,
            "--set",
            "machine.llc.bytes=1048576",
            "--set",
            "damon-moderate.sample_ms=2.5",
            "--workload",
            "hotspot-1g",
            "--duration",
            "0.2",
        ],
        vec![
            "--manager",
            "damon-tiering",
            "--set",
            "metrics.window_s=0.5",
        ],
        vec![
            "--manager",
            "thermostat",
            "--set",
            "random.fast_probability=0.25",
        ],
    ] {
        let mut cmd = vec!["config", "show"];
        cmd.extend(&args);
        let (code, shown, err) = thermocline(&cmd);
        assert_eq!(code, 0, "{args:?}: {err}");
        let p = tmp("shown.toml", &shown);
        let (code, again, err) = thermocline(&["config", "show", "--config", &p]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            again, shown,
            "{args:?}: showing the shown config changed it"
        );
        // JSON: the same tree
        cmd.extend(["--format", "json"]);
        let (code, json, err) = thermocline(&cmd);
        assert_eq!(code, 0, "{err}");
        let p = tmp("shown.json", &json);
        let json: serde_json::Value = serde_json::from_str(&json).unwrap();
        let from_toml = serde_json::to_value(shown.parse::<toml::Table>().unwrap()).unwrap();
        assert_eq!(json, from_toml, "{args:?}");
        // ... and it reads back as the TOML it came from
        let (code, again, err) = thermocline(&["config", "show", "--config", &p]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            again, shown,
            "{args:?}: the shown JSON read back differently"
        );
    }
    // A JSON file that does not parse: exit 2, its file and line.
    let p = tmp("bad.json", "{\n  \"run\": {\n    \"seed\": 1,\n  }\n}\n");
    let (code, _, err) = thermocline(&["config", "show", "--config", &p]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.json:4:"), "{err}");
    // ... and one whose scheme cannot match: the scheme's line
    let p = tmp(
        "never.json",
        "{\n  \"run\": {\"manager\": \"damon-moderate\"},\n  \"damon-moderate\": {\n    \"schemes\": [\n      {\"action\": \"stat\"},\n      {\"action\": \"migrate_hot\", \"min_access_pct\": 50, \"max_access_pct\": 10}\n    ]\n  }\n}\n",
    );
    let (code, _, err) = thermocline(&["config", "show", "--config", &p]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("never.json:6:") && err.contains("schemes[1]"),
        "{err}"
    );
    // The manager's parameters and its schemes, every default filled in.
    let (_, shown, _) = thermocline(&["config", "show", "--manager", "damon-tiering"]);
    let t: toml::Table = shown.parse().unwrap();
    let schemes = t["damon-tiering"]["schemes"].as_array().unwrap();
    assert_eq!(schemes.len(), 2, "{shown}");
    assert_eq!(schemes[0]["action"].as_str(), Some("migrate_hot"));
    assert_eq!(schemes[0]["weight_age"].as_integer(), Some(100));
    assert_eq!(t["damon-tiering"]["sample_ms"].as_float(), Some(5.0));
    assert_eq!(t["run"]["machine"].as_str(), Some("dram+dcpmm"));
    // A run of the shown config is the run of the options shown.
    let p = tmp("shown-run.toml", &{
        let (_, s, _) = thermocline(&["config", "show", "--config", example, "--duration", "0.1"]);
        s
    });
    let (a, b) = (tmp("a.json", ""), tmp("b.json", ""));
    let (code, _, err) = thermocline(&[
        "run",
        "--config",
        example,
        "--duration",
        "0.1",
        "--json",
        &a,
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = thermocline(&["run", "--config", &p, "--json", &b]);
    assert_eq!(code, 0, "{err}");
    let read = |f: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap()
    };
    let (ra, rb) = (read(&a), read(&b));
    for k in ["sim_time_s", "slowdown", "migrations", "tiers", "notes"] {
        assert_eq!(ra[k], rb[k], "{k}");
    }
}

/// examples/proactive-reclaim.toml: a pageout scheme under a stall_us goal
/// on a DRAM + zswap machine pages idle memory out, the page-ins it causes
/// are the simulated PSI stall, and the goal acts on it: the goal-tuned
/// quota falls in some window after growing, and the run pages out less
/// and stalls less than the same scheme without the goal.
#[test]
fn the_proactive_reclaim_example_pages_out_under_its_stall_goal() {
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/proactive-reclaim.toml"
    );
    let text = std::fs::read_to_string(example).unwrap();
    let run = |name: &str, config: &str| -> serde_json::Value {
        let json = std::env::temp_dir().join(format!("tc-cli-{}-{name}.json", std::process::id()));
        let json = json.to_str().unwrap();
        let (code, out, err) = thermocline(&["run", "--config", config, "--json", json]);
        assert_eq!(code, 0, "{out}{err}");
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
    };
    let with = run("pr-goal", example);
    let notes = with["notes"].to_string();
    assert!(notes.contains("scheme 0 (pageout)"), "{notes}");
    assert!(notes.contains("goal stall_us"), "{notes}");
    let paged = with["migrations"]["bytes"].as_u64().unwrap();
    let faults = with["stats"]["tier_faults"].as_u64().unwrap();
    assert!(paged > 0 && faults > 0, "{}", with["stats"]);
    let quota: Vec<f64> = with["windows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["manager"]["schemes_goal_quota_bytes"].as_f64().unwrap())
        .collect();
    assert!(
        quota.windows(2).any(|q| q[1] < q[0]),
        "the quota never fell: {quota:?}"
    );
    let without = tmp(
        "pr-nogoal.toml",
        &text
            .lines()
            .filter(|l| !l.starts_with("goals"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    let without = run("pr-nogoal", &without);
    let (paged_without, faults_without) = (
        without["migrations"]["bytes"].as_u64().unwrap(),
        without["stats"]["tier_faults"].as_u64().unwrap(),
    );
    eprintln!(
        "with the goal: {paged} bytes paged out, {faults} page-ins, quota per window {quota:?}; without: {paged_without} bytes, {faults_without} page-ins"
    );
    assert!(paged < paged_without && faults < faults_without);
}

/// `list` shows every reproduction `reproduce --list` shows (issue #25),
/// and a heatmap of no pixels is refused before anything runs.
#[test]
fn list_shows_every_reproduction_and_heatmap_refuses_zero_sizes() {
    let (code, list, err) = thermocline(&["list"]);
    assert_eq!(code, 0, "{err}");
    let (code, repro, err) = thermocline(&["reproduce", "--list"]);
    assert_eq!(code, 0, "{err}");
    let names: Vec<&str> = repro
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(
        names.contains(&"ambix-iwb") && names.contains(&"ambix-pb"),
        "{repro}"
    );
    for n in &names {
        assert!(
            list.lines().any(|l| l.split_whitespace().next() == Some(n)),
            "{n} missing from list"
        );
    }
    for flag in ["--width", "--height", "--bins"] {
        let (code, _, err) = thermocline(&["heatmap", flag, "0", "--out", "never.png"]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("must be from"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// compare checks every name and the output path before it runs anything:
/// the mistake is reported at once, in one line, and nothing ran.
#[test]
fn compare_finds_a_bad_name_or_output_before_any_run() {
    let (code, out, err) =
        thermocline(&["compare", "--managers", "first-touch,ambix,no-such-manager"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no-such-manager") && out.is_empty(), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    for cmd in ["run", "compare"] {
        let (code, out, err) = thermocline(
            &[
                cmd,
                "--managers",
                "first-touch",
                "--json",
                "/nonexistent-dir/r.json",
            ]
            .into_iter()
            .filter(|a| cmd == "compare" || !a.starts_with("--managers") && *a != "first-touch")
            .collect::<Vec<_>>(),
        );
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(
            out.is_empty(),
            "{cmd} ran before checking its output: {out}"
        );
        assert!(
            err.contains("/nonexistent-dir/r.json: cannot write"),
            "{err}"
        );
    }
    let (code, _, err) = thermocline(&["compare", "--managers", "kernel-tiering"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("live host"), "{err}");
}

/// --jobs does not change a byte of compare's JSON; --quiet leaves stderr
/// empty when nothing is wrong.
#[test]
fn compare_json_is_the_same_whatever_the_jobs() {
    let json = |jobs: &str| {
        let p = tmp(&format!("jobs{jobs}.json"), "");
        let (code, _, err) = thermocline(&[
            "compare",
            "--managers",
            "first-touch,kstaled,damon-tiering",
            "--duration",
            "0.05",
            "--jobs",
            jobs,
            "--quiet",
            "--json",
            &p,
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(err.is_empty(), "--quiet printed: {err}");
        std::fs::read_to_string(p).unwrap()
    };
    assert_eq!(json("1"), json("3"));
    let (code, _, err) = thermocline(&["compare", "--jobs", "0"]);
    assert_eq!(code, 2, "{err}");
}

/// Sizes beyond what a machine can have, and fast tiers beyond the
/// footprint.
#[test]
fn impossible_sizes_are_refused_and_oversized_fast_tiers_warned() {
    for size in ["18446744073709551615", "1e30", "100000000TiB"] {
        let (code, _, err) = thermocline(&["run", "--fast-capacity", size]);
        assert_eq!(code, 2, "{size}: {err}");
        assert!(err.contains("too large: at most 8 EiB"), "{size}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    for size in ["150%", "1TiB"] {
        let (code, _, err) = thermocline(&["run", "--fast-capacity", size, "--duration", "0.01"]);
        assert_eq!(code, 0, "{size}: {err}");
        assert!(
            err.contains("warning: fast capacity") && err.contains("nothing to tier"),
            "{size}: {err}"
        );
    }
    let (code, _, err) = thermocline(&[
        "run",
        "--manager",
        "thermostat",
        "--set",
        "thermostat.slowdown=-1",
    ]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "said once: {err}");
}

/// A lackey file cut mid-line is an error naming the file and line.
#[test]
fn a_truncated_lackey_trace_is_refused_at_its_line() {
    let p = tmp(
        "cut.lk",
        "==1== Lackey\n L 1ffefffd70,8\n S 1ffefffd68,8\n L 1ffe",
    );
    let spec = format!("lackey:{p}");
    let (code, _, err) = thermocline(&["run", "--workload", &spec]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("{p}:4:")) && err.contains("truncated"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// Every field a report writes is in docs/report-schema.md, and the report
/// says which version of that document it follows.
#[test]
fn the_report_schema_documents_every_field() {
    let p = tmp("schema.json", "");
    let (code, _, err) = thermocline(&["run", "--duration", "0.02", "--json", &p]);
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    assert_eq!(r["schema_version"], 1);
    let doc = include_str!("../../../../docs/report-schema.md");
    assert!(doc.contains("schema version 1"));
    for key in r.as_object().unwrap().keys() {
        assert!(
            doc.contains(&format!("`{key}`")),
            "docs/report-schema.md does not name `{key}`"
        );
    }
}

/// --help names the default of every option that has one.
#[test]
fn help_shows_the_defaults() {
    let (code, run, _) = thermocline(&["run", "--help"]);
    assert_eq!(code, 0);
    for d in [
        "[default: multiphase",
        "else dram+dcpmm]",
        "else 50%]",
        "[default: 1]",
        "[default: auto]",
        "[default: first-touch]",
    ] {
        assert!(run.contains(d), "run --help lacks {d}: {run}");
    }
    let (_, compare, _) = thermocline(&["compare", "--help"]);
    assert!(compare.contains("[default: one per core"), "{compare}");
    let (_, heatmap, _) = thermocline(&["heatmap", "--help"]);
    assert!(heatmap.contains("[default: 800]"), "{heatmap}");
}

/// convert parses a lackey trace once into the binary trace, which replays
/// to the same report; and back to text.
#[test]
fn convert_turns_lackey_into_a_trace_that_replays_the_same() {
    let mut text = String::from("==1== Lackey\n");
    for i in 0..3000u64 {
        text += &format!(
            "I  0400{:04x},3\n L {:x},8\n",
            i % 4096,
            0x0001_ffe0_0000_u64 + i * 200
        );
        if i % 3 == 0 {
            text += &format!(" M {:x},4\n", 0x5000_0000u64 + i * 64);
        }
    }
    text += "==1== the end\n";
    let lk = tmp("conv.lk", &text);
    let tr = tmp("conv.trace", "");
    let back = tmp("conv-back.lk", "");
    let (code, _, err) = thermocline(&["convert", &format!("lackey:{lk}"), &tr]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("5000 accesses"), "{err}");
    let report = |spec: String| {
        let j = tmp("conv.json", "");
        let (code, _, err) = thermocline(&[
            "run",
            "--workload",
            &spec,
            "--manager",
            "ambix",
            "--json",
            &j,
        ]);
        assert_eq!(code, 0, "{err}");
        let mut r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(j).unwrap()).unwrap();
        r.as_object_mut().unwrap().remove("workload");
        r
    };
    assert_eq!(
        report(format!("lackey:{lk}")),
        report(format!("trace:{tr}"))
    );
    let (code, _, err) = thermocline(&["convert", &format!("trace:{tr}"), &back]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        report(format!("lackey:{back}")),
        report(format!("trace:{tr}"))
    );
    for bad in [
        vec!["convert", "zipf-1g", &tr],
        vec![
            "convert",
            &format!("lackey:{lk}"),
            "/nonexistent-dir/x.trace",
        ],
    ] {
        let (code, _, err) = thermocline(&bad);
        assert_eq!(code, 2, "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    // a binary trace cut mid-record names the byte where the cut is
    let bytes = std::fs::read(&tr).unwrap();
    let cut = tmp("conv-cut.trace", "");
    std::fs::write(&cut, &bytes[..bytes.len() - 3]).unwrap();
    let (code, _, err) = thermocline(&["run", "--workload", &format!("trace:{cut}")]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("truncated at byte {}", bytes.len() - 8)),
        "{err}"
    );
}

/// The charts a user asks for are drawn with axes, labels and a scale, at
/// the size asked; a name that is neither .png nor .svg is refused before
/// the run.
#[test]
fn heatmap_and_pareto_charts_have_axes_labels_and_the_asked_size() {
    let svg = tmp("heat.svg", "");
    let (code, _, err) = thermocline(&[
        "heatmap",
        "--duration",
        "0.05",
        "--out",
        &svg,
        "--width",
        "400",
        "--height",
        "300",
        "--bins",
        "32",
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.contains(r#"width="400""#) && text.contains(r#"height="300""#),
        "{}",
        &text[..200.min(text.len())]
    );
    for label in [
        "time (s)",
        "address offset",
        "accesses per cell (log)",
        // the title names what was drawn: the default workload and manager
        "accesses per time and address: multiphase under first-touch",
    ] {
        assert!(text.contains(label), "heatmap SVG lacks {label}");
    }
    let png = tmp("heat.png", "");
    let (code, _, err) = thermocline(&[
        "heatmap",
        "--duration",
        "0.05",
        "--out",
        &png,
        "--width",
        "320",
        "--height",
        "240",
    ]);
    assert_eq!(code, 0, "{err}");
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    assert_eq!(u32::from_be_bytes(bytes[16..20].try_into().unwrap()), 320);
    assert_eq!(u32::from_be_bytes(bytes[20..24].try_into().unwrap()), 240);
    let (code, out, err) = thermocline(&["heatmap", "--out", "heat.gif"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty() && err.contains(".png or .svg"), "{err}");

    let plot = tmp("pareto.svg", "");
    let (code, _, err) = thermocline(&[
        "compare",
        "--managers",
        "first-touch,all-slow,ambix",
        "--duration",
        "0.2",
        "--plot",
        &plot,
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&plot).unwrap();
    for label in [
        "first-touch",
        "all-slow",
        "ambix",
        "slowdown (%)",
        "GiB-s",
        "Pareto frontier",
    ] {
        assert!(text.contains(label), "Pareto SVG lacks {label}");
    }
    let (code, out, err) = thermocline(&["compare", "--managers", "random", "--plot", "p.gif"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty() && err.contains(".png or .svg"), "{err}");
    let png = tmp("pareto.png", "");
    let (code, _, err) = thermocline(&[
        "compare",
        "--managers",
        "first-touch,all-slow",
        "--duration",
        "0.1",
        "--plot",
        &png,
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(&std::fs::read(&png).unwrap()[1..4], b"PNG");
}

/// record writes DAMON's view of a run; report draws and lists it as damo
/// does; a file without DAMON's regions, or a heatmap without --out, is a
/// one-line error.
#[test]
fn record_then_report_heatmap_wss_and_access() {
    let rec = tmp("rec.json", "");
    let (code, _, err) = thermocline(&["record", "--duration", "1", "--out", &rec]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("snapshots of DAMON's regions"), "{err}");
    let (code, wss, err) = thermocline(&["report", &rec, "wss"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        wss.contains("percentile")
            && wss
                .lines()
                .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
                .count()
                == 5,
        "{wss}"
    );
    let (code, access, err) = thermocline(&["report", &rec, "access", "--at", "0.5"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        access.contains("start") && access.contains("0x") && access.contains("# total"),
        "{access}"
    );
    let svg = tmp("rec-heat.svg", "");
    let (code, _, err) = thermocline(&["report", &rec, "heatmap", "--out", &svg]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    for label in [
        "time (s)",
        "heap offset",
        "access frequency",
        "damon-moderate",
    ] {
        assert!(text.contains(label), "report heatmap lacks {label}");
    }
    let (code, _, err) = thermocline(&["report", &rec, "heatmap"]);
    assert_eq!(code, 2, "{err}");
    let plain = tmp("plain.json", "");
    let (code, _, err) = thermocline(&["run", "--duration", "0.02", "--json", &plain]);
    assert_eq!(code, 0, "{err}");
    for (file, says) in [
        (plain.as_str(), "no DAMON regions"),
        ("/nonexistent/r.json", "cannot read"),
    ] {
        let (code, _, err) = thermocline(&["report", file, "wss"]);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains(says) && err.trim_end().lines().count() == 1,
            "{err}"
        );
    }
    let (code, _, err) = thermocline(&[
        "record",
        "--manager",
        "first-touch",
        "--duration",
        "0.1",
        "--out",
        &rec,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("recorded no DAMON regions"), "{err}");
}

/// A reader that stops reading (`| head`) ends the command quietly.
#[test]
fn a_closed_pipe_is_not_an_internal_error() {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_thermocline"))
        .arg("list")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!err.contains("internal error"), "{err}");
    assert!(status.success(), "{status:?}: {err}");
}

/// --quiet leaves stderr to warnings and errors on every long command;
/// without it, a run names its wall time.
#[test]
fn quiet_commands_say_nothing_but_their_results() {
    let rec = tmp("quiet-rec.json", "");
    let png = tmp("quiet.png", "");
    for args in [
        vec!["run", "--duration", "0.02"],
        vec!["record", "--duration", "0.5", "--out", &rec],
        vec!["heatmap", "--duration", "0.02", "--out", &png],
    ] {
        let (code, _, err) = thermocline(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!err.is_empty(), "{args:?} says what it did without --quiet");
        let quiet: Vec<&str> = args.iter().copied().chain(["--quiet"]).collect();
        let (code, _, err) = thermocline(&quiet);
        assert_eq!(code, 0, "{quiet:?}: {err}");
        assert!(err.is_empty(), "{quiet:?} printed: {err}");
    }
}

#[test]
fn compare_with_no_workload_is_the_main_job_on_the_rate_machine() {
    // Two seconds of it: every manager of the main job runs on the rate
    // machine (a missing primitive would fail the run), and the ones left
    // out are named with a reason.
    let json = tmp("main-job.json", "");
    let (code, out, err) = thermocline(&["compare", "--duration", "2", "--quiet", "--json", &json]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines()
            .next()
            .unwrap()
            .starts_with("workload multiphase-2min (fast tier ")
            && out.contains("(50% of the footprint) on dram+dcpmm for every row"),
        "{out}"
    );
    let (_, list, _) = thermocline(&["list"]);
    let managers: Vec<&str> = list
        .lines()
        .skip_while(|l| !l.starts_with("managers:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|m| !["kernel-tiering", "damon-kernel"].contains(m))
        .collect();
    assert!(managers.len() > 30, "{list}");
    for m in managers {
        // a row on a machine of its own is marked *
        let row = out
            .lines()
            .any(|l| l.starts_with(&format!("{m} ")) || l.starts_with(&format!("{m}* ")));
        let left_out = out.contains(&format!("left out: {m}: "));
        assert!(row != left_out, "{m}: a row or a reason, once: {out}");
    }
    let reports = std::fs::read_to_string(&json).unwrap();
    assert!(
        reports.matches("\"schema_version\"").count() >= 20,
        "{reports}"
    );
    assert_eq!(
        reports.matches("\"backend\": \"rate\"").count(),
        reports.matches("\"schema_version\"").count(),
        "every run on the rate machine"
    );
    // Named managers: the main job's workload and machine, no left-out list.
    let (code, out, err) = thermocline(&[
        "compare",
        "--managers",
        "first-touch,memory-mode",
        "--duration",
        "1",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("workload multiphase-2min"), "{out}");
    assert!(!out.contains("left out:"), "{out}");
    // A workload named: not the main job.
    let (code, out, err) = thermocline(&[
        "compare",
        "--workload",
        "multiphase",
        "--managers",
        "first-touch",
        "--duration",
        "0.1",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("workload multiphase (fast tier ")
            && out.contains("(50% of the footprint) on dram+dcpmm for every row"),
        "{out}"
    );
}

#[test]
fn compare_gives_every_row_the_same_fast_tier_unless_one_is_set_and_marked() {
    // kstaled's own default is a fast tier as large as the footprint; in a
    // comparison it gets the others' size unless it is given its own.
    let run = |managers: &str| {
        let (code, out, err) = thermocline(&[
            "compare",
            "--workload",
            "multiphase",
            "--managers",
            managers,
            "--duration",
            "0.1",
            "--quiet",
        ]);
        assert_eq!(code, 0, "{err}");
        out
    };
    let out = run("first-touch,kstaled");
    assert!(out.contains("for every row)"), "{out}");
    assert!(!out.contains('*'), "{out}");
    let out = run("first-touch,kstaled@100%");
    assert!(out.contains("for every row not marked *)"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("kstaled* ")), "{out}");
    // "100%" holds every page even when regions start mid-2 MiB: a little
    // over the footprint
    assert!(
        out.lines()
            .any(|l| l.starts_with("* kstaled ran with fast tier ")
                && l.contains("the other rows")
                && l.contains("not like for like")),
        "{out}"
    );
    let (code, _, err) = thermocline(&[
        "compare",
        "--workload",
        "multiphase",
        "--managers",
        "first-touch,kstaled@lots",
        "--quiet",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("kstaled's fast capacity"), "{err}");
}

#[test]
fn sweep_runs_a_grid_resumes_and_names_a_bad_spec_line() {
    let spec = tmp(
        "sweep.toml",
        "name = \"t\"\nseeds = [1, 2]\nduration_s = 0.05\n[grid]\nmanager = [\"first-touch\", \"all-slow\"]\n",
    );
    let out_dir = std::env::temp_dir().join(format!("tc-cli-{}-sweep", std::process::id()));
    let _ = std::fs::remove_dir_all(&out_dir);
    let dir = out_dir.to_str().unwrap();
    let (code, out, err) = thermocline(&["sweep", &spec, "--out", dir]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("table.csv: 4 cells"), "{out}");
    assert!(err.contains("4 cells (0 already there)"), "{err}");
    let table = std::fs::read_to_string(out_dir.join("table.csv")).unwrap();
    assert_eq!(table.lines().count(), 5, "{table}");
    assert!(
        table.contains(",first-touch,") && table.contains(",all-slow,"),
        "{table}"
    );
    let (code, _, err) = thermocline(&["sweep", &spec, "--out", dir, "--jobs", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("4 cells (4 already there)"), "{err}");
    assert_eq!(
        std::fs::read_to_string(out_dir.join("table.csv")).unwrap(),
        table
    );

    let bad = tmp(
        "bad-sweep.toml",
        "[grid]\nmanager = [\"first-touch\", \"nope\"]\n",
    );
    let (code, out, err) = thermocline(&["sweep", &bad, "--out", dir]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.lines()
            .any(|l| l.starts_with(&format!("error: {bad}:2: cell run.manager=\"nope\""))),
        "{err}"
    );
    let bad = tmp(
        "bad-sweep2.toml",
        "seeds = 3\n[grid]\nmanager = [\"first-touch\"]\n",
    );
    let (code, _, err) = thermocline(&["sweep", &bad, "--out", dir]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("{bad}:1: seeds: a non-empty list")),
        "{err}"
    );
}

/// `sweep --dry-run` checks the spec and lists its cells, what the
/// directory holds and each cell's memory, and runs and writes nothing.
#[test]
fn a_dry_run_lists_the_cells_and_runs_nothing() {
    let spec = tmp(
        "dry.toml",
        "duration_s = 0.05\n[grid]\nmanager = [\"first-touch\", \"all-slow\"]\n[[runs]]\nworkload = \"npb-cg-sketch-small\"\n",
    );
    let out_dir = std::env::temp_dir().join(format!("tc-cli-{}-dry", std::process::id()));
    let _ = std::fs::remove_dir_all(&out_dir);
    let dir = out_dir.to_str().unwrap();
    let (code, out, err) = thermocline(&["sweep", &spec, "--out", dir, "--dry-run"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(
        lines[0].contains("to run") && lines[0].contains("run.manager=\"first-touch\""),
        "{out}"
    );
    assert!(
        lines[2].contains("run.workload=\"npb-cg-sketch-small\""),
        "{out}"
    );
    assert!(
        lines[3].contains("3 cells, 0 already in") && lines[3].contains("the largest asks for"),
        "{out}"
    );
    assert!(!out_dir.exists(), "a dry run writes nothing");
    let bad = tmp("dry-bad.toml", "[grid]\nmanager = [\"nope\"]\n");
    let (code, _, err) = thermocline(&["sweep", &bad, "--out", dir, "--dry-run"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{bad}:2:")), "{err}");
}

#[test]
fn a_negative_duration_is_named_as_such_not_as_an_unknown_flag() {
    for args in [
        vec!["run", "--duration", "-1"],
        vec!["reproduce", "ambix-pb", "--duration", "-1"],
    ] {
        let (code, _, err) = thermocline(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("positive"), "{args:?}: {err}");
        assert!(!err.contains("unexpected argument"), "{args:?}: {err}");
    }
}

#[test]
fn an_output_that_is_also_an_input_is_refused_and_left_alone() {
    let config = tmp(
        "in.toml",
        "[run]\nmanager = \"first-touch\"\nduration_s = 0.1\n",
    );
    let masim = tmp("in.cfg", "a, 4096\n\nphase\n100\na, 1, 64, 1, ro\n");
    for args in [
        vec!["run", "--config", &config, "--json", &config],
        vec![
            "compare",
            "--config",
            &config,
            "--managers",
            "first-touch",
            "--json",
            &config,
        ],
        vec!["run", "--workload", &masim, "--json", &masim],
        vec!["record", "--workload", &masim, "--out", &masim],
    ] {
        let (code, _, err) = thermocline(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("overwrite what was read"), "{args:?}: {err}");
    }
    assert!(std::fs::read_to_string(&config)
        .unwrap()
        .starts_with("[run]"));
    assert!(std::fs::read_to_string(&masim)
        .unwrap()
        .starts_with("a, 4096"));
}

#[test]
fn chart_sizes_that_would_not_fit_in_memory_are_refused_with_the_limit() {
    for args in [
        vec!["heatmap", "--out", "x.png", "--width", "99999999"],
        vec!["heatmap", "--out", "x.png", "--bins", "99999999"],
        vec!["heatmap", "--out", "x.png", "--height", "100"],
        vec![
            "report", "r.json", "heatmap", "--out", "x.png", "--bins", "0",
        ],
    ] {
        let (code, _, err) = thermocline(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("must be from"), "{args:?}: {err}");
    }
}
