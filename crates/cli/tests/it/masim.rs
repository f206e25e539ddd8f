//! `thermocline masim`: a config executed for real, as the live tests and
//! their daemon meet it (stdout and stderr lines, ready file, report, SIGUSR1,
//! exit codes).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn tmp(name: &str, text: &str) -> String {
    let p = std::env::temp_dir().join(format!("tc-masim-cli-{}-{name}", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

fn masim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_thermocline"))
        .arg("masim")
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Starts masim on `cfg` and waits for its ready file: the child, its pid
/// as the file says, and when it was started.
fn start_ready(cfg: &str, ready: &str, report: &str) -> (std::process::Child, String, Instant) {
    let child = Command::new(env!("CARGO_BIN_EXE_thermocline"))
        .args(["masim", cfg, "--ready", ready, "--report", report])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let started = Instant::now();
    let pid = loop {
        if let Ok(text) = std::fs::read_to_string(ready) {
            break text.trim().to_string();
        }
        assert!(started.elapsed() < Duration::from_secs(10), "never ready");
        std::thread::sleep(Duration::from_millis(5));
    };
    (child, pid, started)
}

/// Two regions of a few pages, two phases of 100 ms.
const TINY: &str = "# regions\nhot, 16384\ncold, 8192, none\n\nwarm up\n100\nhot, 1, 64, 3, rw\ncold, 0, 4096, 1, ro\n\ncool down\n100\ncold, 1, 0, 1, wo\n";

#[test]
fn a_tiny_config_runs_its_phases_and_reports() {
    let cfg = tmp("tiny.cfg", TINY);
    let report = tmp("tiny.json", "");
    let ready = tmp("tiny.ready", "");
    std::fs::remove_file(&ready).unwrap();
    let (code, out, err) = masim(&[&cfg, "--report", &report, "--ready", &ready, "--seed", "7"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    let pid: u32 = lines[0]
        .strip_prefix("masim: pid ")
        .and_then(|l| l.strip_suffix(", regions ready"))
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    // each region's address range, in the config's order, of its size
    for (line, (name, pages)) in lines[1..3].iter().zip([("hot", 4u64), ("cold", 2)]) {
        let range = line
            .strip_prefix(&format!("masim: region {name} at "))
            .unwrap_or_else(|| panic!("{out}"));
        let (a, b) = range.split_once('-').unwrap();
        let hex = |x: &str| u64::from_str_radix(x.trim_start_matches("0x"), 16).unwrap();
        assert_eq!(hex(b) - hex(a), pages * 4096, "{line}");
        assert_eq!(hex(a) % 4096, 0, "{line}");
    }
    assert_eq!(
        lines[3],
        "masim: verified 6 pages (0.0 MiB), 0 corrupted bytes, 0 lost writes"
    );
    assert_eq!(std::fs::read_to_string(&ready).unwrap(), format!("{pid}\n"));
    let phase_lines: Vec<&str> = err.lines().filter(|l| l.contains(" phase ")).collect();
    assert_eq!(phase_lines.len(), 2, "{err}");
    assert!(
        phase_lines[0].starts_with("masim: phase warm up at "),
        "{err}"
    );
    assert!(
        phase_lines[1].starts_with("masim: phase cool down at "),
        "{err}"
    );
    assert!(phase_lines[1].ends_with(" s"), "{err}");

    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(j["pid"], pid);
    assert_eq!(j["seed"], 7);
    assert_eq!(j["clean"], true);
    let phases = j["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 2);
    assert_eq!(phases[0]["name"], "warm up");
    assert_eq!(phases[1]["name"], "cool down");
    let start = |i: usize| phases[i]["start_s"].as_f64().unwrap();
    assert!(start(1) >= start(0) + 0.1, "{phases:?}");
    // Whole bursts of masim's 131072 accesses, at least one a phase.
    for p in phases {
        assert!(p["bursts"].as_u64().unwrap() >= 1);
        assert_eq!(p["accesses"], p["bursts"].as_u64().unwrap() * 131072);
        assert!(p["wall_s"].as_f64().unwrap() > 0.1);
    }
    let regions = j["regions"].as_array().unwrap();
    assert_eq!(regions[0]["name"], "hot");
    assert_eq!(regions[0]["bytes"], 16384);
    assert_eq!(regions[1]["pages"], 2);
    // hot is only written (rw); cold is read then written.
    assert_eq!(regions[0]["reads"], 0);
    assert!(regions[0]["writes"].as_u64().unwrap() > 0);
    assert!(regions[1]["reads"].as_u64().unwrap() > 0);
    assert_eq!(regions[1]["writes"], phases[1]["accesses"]);
    let total = |k: &str| regions.iter().map(|r| r[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(j["reads"], total("reads"));
    assert_eq!(j["writes"], total("writes"));
    assert!(j["accesses_per_s"].as_f64().unwrap() > 0.0);
    let v = j["verifications"].as_array().unwrap();
    assert_eq!(v.len(), 1);
    assert_eq!(v[0]["trigger"], "end");
    assert_eq!(v[0]["pages"], 6);
    assert_eq!(v[0]["corrupted_bytes"], 0);
    assert_eq!(v[0]["lost_writes"], 0);
    for f in [cfg, report, ready] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn sigusr1_verifies_while_it_runs() {
    let cfg = tmp("signal.cfg", "a, 40960\n\nonly\n700\na, 1, 0, 1, wo\n");
    let ready = tmp("signal.ready", "");
    std::fs::remove_file(&ready).unwrap();
    let report = tmp("signal.json", "");
    let (child, pid, _) = start_ready(&cfg, &ready, &report);
    assert_eq!(pid, child.id().to_string());
    let kill = Command::new("sh")
        .args(["-c", &format!("kill -USR1 {pid}")])
        .status()
        .expect("sh runs");
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let verified: Vec<&str> = stdout.lines().filter(|l| l.contains("verified")).collect();
    assert_eq!(
        verified, ["masim: verified 10 pages (0.0 MiB), 0 corrupted bytes, 0 lost writes"; 2],
        "{stdout}"
    );
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(j["verifications"][0]["trigger"], "signal");
    assert_eq!(j["verifications"][1]["trigger"], "end");
    for f in [cfg, ready, report] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn sigterm_ends_it_early_with_its_checks_and_report() {
    // a phase of 60 s that SIGTERM cuts short
    let cfg = tmp("term.cfg", "a, 40960\n\nlong\n60000\na, 1, 0, 1, wo\n");
    let ready = tmp("term.ready", "");
    std::fs::remove_file(&ready).unwrap();
    let report = tmp("term.json", "");
    let (child, pid, started) = start_ready(&cfg, &ready, &report);
    std::thread::sleep(Duration::from_millis(100));
    let kill = Command::new("sh")
        .args(["-c", &format!("kill -TERM {pid}")])
        .status()
        .expect("sh runs");
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "SIGTERM did not end it"
    );
    assert!(stderr.contains("masim: stopped by a signal"), "{stderr}");
    assert!(
        stdout.ends_with("masim: verified 10 pages (0.0 MiB), 0 corrupted bytes, 0 lost writes\n"),
        "{stdout}"
    );
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(j["verifications"][0]["trigger"], "end");
    assert_eq!(j["clean"], true);
    for f in [cfg, ready, report] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn a_bad_config_exits_2_with_one_line_naming_file_and_line() {
    let p = tmp("bad.cfg", "a, 4096\n\nphase\n1000\nb, 1, 64, 1\n");
    let (code, out, err) = masim(&[&p]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "nothing runs: {out}");
    assert!(err.starts_with(&format!("error: {p}:5: ")), "{err}");
    assert!(err.contains("unknown region"), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    let _ = std::fs::remove_file(p);

    let missing = std::env::temp_dir().join("tc-masim-cli-no-such.cfg");
    let missing = missing.to_str().unwrap();
    let (code, _, err) = masim(&[missing]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with(&format!("error: {missing}: cannot read")),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one line: {err}");

    for args in [
        vec!["x.cfg", "--size-scale", "0"],
        vec!["x.cfg", "--time-scale", "-1"],
        vec!["x.cfg", "--loops", "0"],
        vec!["x.cfg", "--seed", "many"],
    ] {
        let (code, _, err) = masim(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("thermocline masim --help"), "{args:?}: {err}");
    }
}
