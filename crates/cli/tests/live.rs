//! The live test suite: thermocline against a real Linux 6.12 kernel with a
//! CPU-less slow NUMA node (HMAT) and zram swap, booted under QEMU by
//! tools/live/guest.sh (../shared/reference/live-testbed.md). Each test boots
//! the guest once and runs a script of tests/live/ in it (with what the
//! scripts share, tests/live/lib.sh, as /files/lib.sh); what is asserted is
//! read back from the kernel (placement by move_pages, masim's own check of
//! every byte), not from the daemon's bookkeeping.
//!
//! Needs qemu-system-x86_64 and the pinned kernel: `.ci/run` installs both
//! (tools/live/install-deps.sh, fetch-kernel.sh). Guests run one at a time:
//! their workloads run on the wall clock, and two TCG guests on two cores
//! would slow each other down.
//!
//! The suite takes minutes of guest time, so `cargo test --workspace` skips
//! it (each test is `#[ignore]`d with the command that runs it) and `.ci/run`
//! always runs it: `cargo test --workspace --test live -- --ignored`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

static ONE_GUEST: Mutex<()> = Mutex::new(());

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Boots the guest with the thermocline binary, tests/live/lib.sh and
/// `files`, runs `script` (a file of tests/live/), returns its console and
/// exit code.
fn guest(script: &str, files: &[&str], slow_mib: u32) -> (i32, String) {
    guest_with(script, files, slow_mib, &[])
}

/// [`guest`] with more options of guest.sh (`-H`: THP always).
fn guest_with(script: &str, files: &[&str], slow_mib: u32, opts: &[&str]) -> (i32, String) {
    let _one = ONE_GUEST.lock().unwrap_or_else(|e| e.into_inner());
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("tools/live/guest.sh"))
        .args(["-t", "400", "-s", &slow_mib.to_string()])
        .args(opts)
        .args(["-b", env!("CARGO_BIN_EXE_thermocline")]);
    let live = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/live");
    cmd.arg("-f").arg(live.join("lib.sh"));
    for f in files {
        cmd.arg("-f").arg(root().join(f));
    }
    cmd.arg(live.join(script));
    let out = cmd.output().expect("tools/live/guest.sh runs");
    let all = String::from_utf8_lossy(&out.stdout);
    // the firmware's and the kernel's output come before the script's
    let console = all
        .split_once("GUEST-START\n")
        .map_or(all.to_string(), |(_, script)| script.to_string());
    let code = out.status.code().unwrap_or(-1);
    assert!(
        code != 124 && code != 125,
        "the guest did not run {script} to its end (exit {code}):\n{}\n{console}",
        String::from_utf8_lossy(&out.stderr)
    );
    (code, console)
}

/// The text between `NAME-BEGIN` and `NAME-END` lines.
fn section<'a>(console: &'a str, name: &str) -> &'a str {
    let begin = format!("{name}-BEGIN\n");
    let end = format!("{name}-END");
    let a = console
        .find(&begin)
        .unwrap_or_else(|| panic!("no {name} section in:\n{console}"))
        + begin.len();
    let b = a + console[a..].find(&end).expect("section end");
    &console[a..b]
}

fn value_after(console: &str, key: &str) -> i64 {
    console
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {key} in:\n{console}"))
}

/// A metric's value in Prometheus text.
fn metric(metrics: &str, name: &str) -> f64 {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(name).and_then(|v| v.trim().parse().ok()))
        .unwrap_or_else(|| panic!("no {name} in:\n{metrics}"))
}

/// [`metric`], or the whole console when the metrics are missing (the
/// daemon was gone).
fn metric_or_console(metrics: &str, name: &str, console: &str) -> f64 {
    assert!(
        metrics.contains(name),
        "no {name} in the metrics:\n{console}"
    );
    metric(metrics, name)
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn pages_on(range: &serde_json::Value, node: i64) -> u64 {
    range["pages_per_node"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p[0].as_i64() == Some(node))
        .map(|p| p[1].as_u64().unwrap())
        .sum()
}

#[test]
#[ignore = "boots a QEMU guest: cargo test --workspace --test live -- --ignored"]
fn thermostat_tiers_masim_in_the_guest_and_serves_its_metrics() {
    let (code, console) = guest(
        "thermostat.sh",
        &["examples/live-thermostat.toml", "examples/live-hotcold.cfg"],
        384,
    );
    assert_eq!(code, 0, "{console}");

    // probe: what the 6.12 guest offers
    let probe = json(section(&console, "PROBE"));
    let has = |f: &str| {
        probe["features"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["name"] == f && x["available"] == true)
    };
    for f in [
        "pagemap",
        "soft-dirty",
        "pagemap-scan",
        "move-pages",
        "memory-tiers",
        "process-madvise",
        "swap",
        "damon",
        "psi",
    ] {
        assert!(has(f), "the guest lacks {f}: {probe}");
    }
    assert!(!has("page-idle") && !has("tlb-miss-counts"));
    assert_eq!(probe["tiers"].as_array().unwrap().len(), 2, "{probe}");
    assert!(probe["nodes"][1]["cpus"].as_array().unwrap().is_empty());

    // the metrics the daemon served mid-run
    let metrics = section(&console, "METRICS");
    let metric = |name: &str| metric(metrics, name);
    assert!(metric("thermocline_moved_pages_total{tier=\"memory_tier67\"}") > 0.0);
    assert!(metric("thermocline_pages{tier=\"memory_tier67\"}") > 0.0);
    assert!(metric("thermocline_kernel_vmstat{counter=\"pgmigrate_success\"}") > 0.0);
    assert!(metrics.contains("thermocline_manager{manager=\"thermostat\",name=\"budget_per_s\"}"));

    // where the kernel says the pages are: the hot region on the fast node,
    // the cold one moving to the slow node (read once the daemon says it
    // has put 55% of it there: Thermostat samples 5% of the units per 2 s
    // period, so that takes tens of seconds, more on a loaded host), and
    // the slow node holding what the daemon says it put there
    let place = json(section(&console, "PLACE"));
    let target = &place["target"];
    let ranges = target["ranges"].as_array().unwrap();
    let (hot, cold) = (&ranges[0], &ranges[1]);
    let cold_pages = cold["len"].as_u64().unwrap() / 4096;
    let hot_pages = hot["len"].as_u64().unwrap() / 4096;
    // a page being sampled is paged out for the while (refault sampling)
    let cold_demoted = pages_on(cold, 1) + cold["swapped"].as_u64().unwrap();
    let hot_fast = pages_on(hot, 0);
    eprintln!(
        "cold region: {cold_demoted} of {cold_pages} pages on the slow node or in sampling; hot region: {hot_fast} of {hot_pages} on the fast node"
    );
    let log = section(&console, "LOG");
    assert!(hot_fast * 20 >= hot_pages * 19, "{place}\n{log}");
    assert!(cold_demoted * 10 >= cold_pages * 4, "{place}\n{log}");
    let kernel_slow: u64 = target["mappings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| pages_on(m, 1))
        .sum();
    // the daemon's figures before and after the kernel's read (it moves
    // pages in between); its figure counts its samples in their tier, the
    // kernel counts them swapped out (a sample of either tier)
    let sampled: u64 = target["mappings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["swapped"].as_u64().unwrap())
        .sum();
    let slow_pages = "thermocline_pages{tier=\"memory_tier67\"}";
    let before = metric(slow_pages) as u64;
    let after = metric_or_console(section(&console, "METRICS-AFTER"), slow_pages, &console) as u64;
    eprintln!("slow node: the kernel has {kernel_slow} pages and {sampled} swapped out, the daemon said {before} before and {after} after");
    assert!(
        kernel_slow <= before.max(after) + 512
            && kernel_slow + sampled + 2 * 512 >= before.min(after) * 8 / 10,
        "the kernel has {kernel_slow} pages on the slow node and {sampled} swapped out, the daemon said {before} before and {after} after"
    );

    // the daemon ended with its target, and the target's data is intact
    assert_eq!(value_after(&console, "DAEMON-EXIT="), 0, "{console}");
    let out = section(&console, "OUT");
    assert!(out.contains("ended (TargetExited)"), "{out}");
    assert!(out.contains(", 0 corrupted bytes, 0 lost writes"), "{out}");
    for l in log.lines().filter(|l| !l.starts_with("masim: ")) {
        json(l);
    }
    assert!(log.contains("\"event\":\"measured\""), "{log}");
}

#[test]
#[ignore = "boots a QEMU guest: cargo test --workspace --test live -- --ignored"]
fn a_hundred_thousand_moves_and_page_outs_corrupt_no_byte() {
    let (code, console) = guest("torture.sh", &[], 384);
    assert_eq!(code, 0, "{console}");
    let line = console
        .lines()
        .find(|l| l.starts_with("torture: "))
        .unwrap_or_else(|| panic!("no torture line:\n{console}"));
    let n = |after: &str| -> u64 {
        line.split(after)
            .next()
            .unwrap()
            .split_whitespace()
            .last()
            .unwrap()
            .parse()
            .unwrap()
    };
    let (migrations, pageouts) = (n(" migrations"), n(" page-outs"));
    eprintln!("{line}");
    assert!(migrations + pageouts >= 100_000, "{line}");
    assert!(migrations > 10_000 && pageouts > 10_000, "{line}");
    assert_eq!(value_after(&console, "TORTURE-EXIT="), 0);
    assert_eq!(value_after(&console, "MASIM-EXIT="), 0, "{console}");
    // one check on SIGUSR1, one at the end, both clean
    assert_two_clean_checks(&console, "masim");
}

#[test]
#[ignore = "boots a QEMU guest: cargo test --workspace --test live -- --ignored"]
fn the_daemon_survives_eperm_a_full_slow_node_and_its_target_exiting() {
    // a 128 MiB slow node (x86's smallest memory block) for a 160 MiB
    // cold region
    let (code, console) = guest("errors.sh", &[], 128);
    assert_eq!(code, 0, "{console}");
    let eperm = section(&console, "EPERM");
    assert!(eperm.contains("EPERM-EXIT=4"), "{eperm}");
    let msg: Vec<&str> = eperm.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(msg.len(), 1, "{eperm}");
    assert!(msg[0].contains("permission denied"), "{eperm}");
    assert_eq!(value_after(&console, "DAEMON-EXIT="), 0, "{console}");
    assert_eq!(value_after(&console, "MASIM-EXIT="), 0, "{console}");
    let out = section(&console, "OUT");
    assert!(out.contains("ended (TargetExited)"), "{out}");
    assert!(out.contains(", 0 corrupted bytes, 0 lost writes"), "{out}");
    let log = section(&console, "LOG");
    let last_window = log
        .lines()
        .rfind(|l| l.contains("\"event\":\"window\""))
        .unwrap_or_else(|| panic!("no window logged:\n{log}"));
    let w = json(last_window);
    assert!(w["failed"]["nomem"].as_u64().unwrap() > 0, "{w}");
}

#[test]
#[ignore = "boots a QEMU guest: cargo test --workspace --test live -- --ignored"]
fn dry_run_moves_nothing_and_sighup_reloads() {
    let (code, console) = guest("dryrun.sh", &[], 384);
    assert_eq!(code, 0, "{console}");
    let metrics = section(&console, "METRICS");
    assert!(metrics.contains("thermocline_dry_run"), "{console}");
    let metric = |name: &str| metric(metrics, name);
    assert_eq!(metric("thermocline_dry_run"), 1.0);
    assert!(
        metric("thermocline_would_move_pages_total") > 0.0,
        "{metrics}"
    );
    assert_eq!(
        metric("thermocline_moved_pages_total{tier=\"memory_tier67\"}"),
        0.0
    );
    // the kernel has none of the target's pages on the slow node
    let place = json(section(&console, "PLACE"));
    assert_eq!(pages_on(&place["target"], 1), 0, "{place}");
    let log = section(&console, "LOG");
    assert!(log.contains("\"event\":\"reloaded\""), "{log}");
    // the manager started again after the reload
    assert_eq!(log.matches("\"event\":\"attached\"").count(), 2, "{log}");
    assert_eq!(value_after(&console, "DAEMON-EXIT="), 0, "{console}");
    assert!(section(&console, "OUT").contains(", 0 corrupted bytes, 0 lost writes"));
}

/// `START-END` in hex, as masim prints a region.
fn hex_range(s: &str) -> (u64, u64) {
    let num = |t: &str| u64::from_str_radix(t.trim().trim_start_matches("0x"), 16).unwrap();
    let (a, b) = s.split_once('-').unwrap();
    (num(a), num(b))
}

/// The page-weighted mean of `key` over the bins inside `[a, b)`.
fn mean_inside(bins: &[serde_json::Value], (a, b): (u64, u64), key: &str) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0.0);
    for bin in bins {
        let (s, e) = (bin["start"].as_u64().unwrap(), bin["end"].as_u64().unwrap());
        if a <= s && e <= b {
            let v = match key {
                "heat" => bin["heat"].as_f64()?,
                k => bin["signals"].as_array()?.iter().find(|x| x[0] == k)?[1].as_f64()?,
            };
            sum += v * (e - s) as f64;
            n += (e - s) as f64;
        }
    }
    (n > 0.0).then(|| sum / n)
}

#[test]
#[ignore = "boots a QEMU guest: cargo test --workspace --test live -- --ignored"]
fn exec_tiers_its_command_passes_its_exit_code_on_and_monitor_sees_the_hot_region() {
    let (code, console) = guest("exec.sh", &[], 384);
    assert_eq!(code, 0, "{console}");
    let log = section(&console, "LOG");
    // the command's exit code, whatever ended it, is exec's
    assert_eq!(value_after(&console, "EXEC-EXIT="), 0, "{log}");
    assert_eq!(value_after(&console, "CODE-EXIT="), 7, "{console}");
    assert_eq!(value_after(&console, "KILLED-EXIT="), 128 + 9, "{console}");
    assert_eq!(
        value_after(&console, "FORWARD-EXIT="),
        128 + 15,
        "{console}"
    );
    assert!(
        section(&console, "FORWARD").contains("\"signal\":15"),
        "{console}"
    );
    let out = section(&console, "OUT");
    assert!(out.contains(", 0 corrupted bytes, 0 lost writes"), "{out}");
    assert!(log.contains("ended (TargetExited)"), "{log}");
    assert!(log.contains("the command exited with 0"), "{log}");

    // pages moved, as the kernel says: the target has pages on the slow node
    let place = json(section(&console, "PLACE"));
    let slow: u64 = place["target"]["mappings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| pages_on(m, 1))
        .sum();
    eprintln!("the kernel has {slow} of the target's pages on the slow node");
    assert!(slow > 0, "{place}\n{log}");

    // monitor, read-only, finds the hot region hotter than the cold one
    let hot = hex_range(
        out.lines()
            .find_map(|l| l.strip_prefix("masim: region hot at "))
            .unwrap(),
    );
    let cold = hex_range(
        out.lines()
            .find_map(|l| l.strip_prefix("masim: region cold at "))
            .unwrap(),
    );
    let mon = section(&console, "MONITOR");
    assert!(mon.contains("MONITOR-EXIT=0"), "{mon}");
    let view = json(mon.lines().next().unwrap());
    let bins = view["bins"].as_array().unwrap();
    let (h, c) = (
        mean_inside(bins, hot, "heat").unwrap(),
        mean_inside(bins, cold, "heat").unwrap(),
    );
    eprintln!(
        "monitor: heat from {}: hot region {h:.2}, cold {c:.2}",
        view["heat_source"]
    );
    assert!(h > c, "{view}");
    let (hw, cw) = (
        mean_inside(bins, hot, "writes").unwrap(),
        mean_inside(bins, cold, "writes").unwrap(),
    );
    assert!(hw > cw, "{view}");
    let text = section(&console, "MONITOR-TEXT");
    assert!(text.contains("; heat: "), "{text}");

    // the placement baselines, on a command started under their policy:
    // where the kernel put the region's pages
    for (m, policy, fast_share) in [
        ("interleave", "interleave:0,1", 0.35..=0.65),
        ("all-slow", "prefer:1", 0.0..=0.1),
        ("first-touch", "default", 0.9..=1.0),
    ] {
        let base = format!("BASE-{m}");
        assert_eq!(
            value_after(&console, &format!("{base}-EXIT=")),
            0,
            "{console}"
        );
        let log = section(&console, &format!("{base}-LOG"));
        assert!(
            log.contains(&format!("\"mempolicy\":\"{policy}\"")),
            "{log}"
        );
        assert!(log.contains(", 0 corrupted bytes, 0 lost writes"), "{log}");
        let place = json(section(&console, &base));
        let r = &place["target"]["ranges"][0];
        let (fast, slow) = (pages_on(r, 0), pages_on(r, 1));
        let share = fast as f64 / (fast + slow).max(1) as f64;
        eprintln!("{m}: {fast} pages on node 0, {slow} on node 1");
        assert_eq!(fast + slow, range_pages(r), "{place}");
        assert!(
            fast_share.contains(&share),
            "{m}: {share:.2} on node 0\n{place}"
        );
    }
    // refused, with the reason: a policy the kernel lacks, and a policy
    // for a process that is already running
    assert_eq!(value_after(&console, "RANDOM-EXIT="), 2, "{console}");
    let random = section(&console, "RANDOM");
    assert!(
        random.contains("no kernel memory policy places pages at random"),
        "{random}"
    );
    assert_eq!(value_after(&console, "PIDPOLICY-EXIT="), 2, "{console}");
    let pid = section(&console, "PIDPOLICY");
    assert!(pid.contains("cannot be set from outside"), "{pid}");
}

/// The 4 KiB pages of a range `thermocline probe --range` read.
fn range_pages(range: &serde_json::Value) -> u64 {
    range["len"].as_u64().unwrap() / 4096
}

#[test]
#[ignore = "boots a QEMU guest: cargo test --workspace --test live -- --ignored"]
fn kernel_damon_regions_bring_the_hot_region_from_the_slow_node() {
    let (code, console) = guest(
        "damon.sh",
        &["examples/live-damon.toml", "examples/live-hotcold.cfg"],
        384,
    );
    assert_eq!(code, 0, "{console}");
    let log = section(&console, "LOG");
    let early = json(section(&console, "EARLY"));
    let late = json(section(&console, "LATE"));
    let ranges = |p: &serde_json::Value| p["target"]["ranges"].as_array().unwrap().clone();
    let (e, l) = (ranges(&early), ranges(&late));
    let (hot_pages, cold_pages) = (range_pages(&e[0]), range_pages(&e[1]));
    eprintln!(
        "hot region: {} of {hot_pages} pages on the slow node after start, {} on the fast node at the end; cold region: {} of {cold_pages} on the slow node at the end",
        pages_on(&e[0], 1),
        pages_on(&l[0], 0),
        pages_on(&l[1], 1)
    );
    // start_in_slow put the whole process on the slow node
    assert!(pages_on(&e[0], 1) * 20 >= hot_pages * 19, "{early}\n{log}");
    assert!(pages_on(&e[1], 1) * 20 >= cold_pages * 19, "{early}\n{log}");
    // DAMON's hot regions were migrated to the fast node. A region that
    // straddles the hot and cold ones reads hot when more than 5 of its 40
    // samples land on hot pages (6.3.2's absolute test), and is migrated
    // whole: part of the cold region follows (about half in a 20 s run).
    assert!(pages_on(&l[0], 0) * 20 >= hot_pages * 19, "{late}\n{log}");
    assert!(pages_on(&l[1], 1) * 10 >= cold_pages * 3, "{late}\n{log}");
    let metrics = section(&console, "METRICS");
    assert!(
        metric(
            metrics,
            "thermocline_manager{manager=\"damon-kernel\",name=\"regions\"}"
        ) >= 3.0,
        "{metrics}"
    );
    // the kdamond was the daemon's own, and it went with the daemon
    assert_eq!(section(&console, "KDAMOND").trim(), "1", "{console}");
    assert_eq!(value_after(&console, "KDAMOND-AFTER="), 0, "{console}");
    assert_eq!(value_after(&console, "DAEMON-EXIT="), 0, "{console}");
    assert_eq!(value_after(&console, "MASIM-EXIT="), 0, "{console}");
    let out = section(&console, "OUT");
    assert!(out.contains(", 0 corrupted bytes, 0 lost writes"), "{out}");
}

/// `NAME=VALUE` pairs of a line that starts with `prefix`.
fn settings<'a>(console: &'a str, prefix: &str) -> Vec<(&'a str, &'a str)> {
    console
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no {prefix} line in:\n{console}"))
        .split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .collect()
}

#[test]
#[ignore = "boots a QEMU guest: cargo test --workspace --test live -- --ignored"]
fn the_kernels_own_tiering_is_a_baseline_that_restores_the_host() {
    let (code, console) = guest(
        "kernel.sh",
        &[
            "examples/live-kernel-tiering.toml",
            "examples/live-hotcold.cfg",
        ],
        384,
    );
    assert_eq!(code, 0, "{console}");
    let refused = section(&console, "REFUSED");
    assert!(refused.contains("REFUSED-EXIT=2"), "{refused}");
    assert!(refused.contains("allow_host_settings = true"), "{refused}");
    for mode in ["numa-balancing", "damos"] {
        let before = if mode == "damos" {
            settings(&console, "BEFORE-DAMOS ")
        } else {
            settings(&console, "BEFORE ")
        };
        let during = settings(&console, &format!("{mode}-DURING "));
        let after = settings(&console, &format!("{mode}-AFTER "));
        eprintln!("{mode}: before {before:?}, during {during:?}, after {after:?}");
        if mode == "numa-balancing" {
            assert_eq!(during[0], ("numa_balancing", "2"), "{console}");
            assert_eq!(during[1], ("demotion_enabled", "true"), "{console}");
        } else {
            assert_eq!(during[2], ("kdamonds", "1"), "{console}");
        }
        // everything as it was before the daemon
        assert_eq!(&after[..2], &before[..], "{console}");
        assert_eq!(after[2], ("kdamonds", "0"), "{console}");
        assert_eq!(
            value_after(&console, &format!("{mode}-DAEMON-EXIT=")),
            0,
            "{console}"
        );
        assert_eq!(
            value_after(&console, &format!("{mode}-MASIM-EXIT=")),
            0,
            "{console}"
        );
        let out = section(&console, &format!("{mode}-OUT"));
        assert!(out.contains(", 0 corrupted bytes, 0 lost writes"), "{out}");
        assert!(out.contains("the kernel's counters over the run"), "{out}");
        let place = json(section(&console, &format!("{mode}-PLACE")));
        let r = place["target"]["ranges"].as_array().unwrap();
        let hot_pages = range_pages(&r[0]);
        let log = section(&console, &format!("{mode}-LOG"));
        eprintln!(
            "{mode}: hot region {} of {hot_pages} pages on the fast node at the end; {}",
            pages_on(&r[0], 0),
            out.lines().find(|l| l.contains("counters")).unwrap_or("")
        );
        if mode == "numa-balancing" {
            assert!(
                pages_on(&r[0], 0) * 10 >= hot_pages * 9,
                "{mode}: {place}\n{log}"
            );
        } else {
            // DAMOS on physical addresses promotes unreliably here: with
            // numa_balancing off, migrate_hot was applied 0 times in one
            // 25 s run and once (774 of 1024 hot pages moved) in a 15 s
            // one, while migrate_cold demoted idle memory each time (with
            // the guest's default numa_balancing = 1, 70-75% moved, by NUMA
            // balancing). What is asserted: the schemes ran (migrate_cold
            // applied) on a kdamond of our own; README, Live.
            let stopped = log
                .lines()
                .find(|l| l.contains("\"event\":\"kernel tiering stopped\""))
                .unwrap_or_else(|| panic!("no stop logged:\n{log}"));
            let st = json(stopped);
            eprintln!("damos: {}", st["damos"]);
            assert!(st["damos"][1]["nr_applied"].as_u64().unwrap() > 0, "{st}");
            assert!(st["error"].is_null(), "{st}");
        }
    }
    // what 6.12's DAMOS quota goals accept
    for m in ["user_input", "some_mem_psi_us"] {
        assert!(console.contains(&format!("GOAL {m} accepted")), "{console}");
    }
    for m in ["node_mem_used_bp", "node_mem_free_bp"] {
        assert!(console.contains(&format!("GOAL {m} refused")), "{console}");
    }
}

#[test]
#[ignore = "boots a QEMU guest: cargo test --workspace --test live -- --ignored"]
fn ambix_keeps_the_written_region_in_dram_on_a_real_process() {
    let (code, console) = guest(
        "ambix.sh",
        &["examples/live-ambix.toml", "examples/live-hotcold.cfg"],
        384,
    );
    assert_eq!(code, 0, "{console}");
    let log = section(&console, "LOG");
    let ranges = |p: &serde_json::Value| p["target"]["ranges"].as_array().unwrap().clone();
    let early = json(section(&console, "EARLY"));
    let late = json(section(&console, "LATE"));
    let (e, l) = (ranges(&early), ranges(&late));
    let (hot_pages, cold_pages) = (range_pages(&e[0]), range_pages(&e[1]));
    eprintln!(
        "hot (written) region: {} of {hot_pages} pages on the slow node after start, {} in DRAM at the end; cold region: {} of {cold_pages} in DRAM at the end",
        pages_on(&e[0], 1),
        pages_on(&l[0], 0),
        pages_on(&l[1], 0)
    );
    assert!(pages_on(&e[0], 1) * 10 >= hot_pages * 9, "{early}\n{log}");
    assert!(pages_on(&l[0], 0) * 20 >= hot_pages * 19, "{late}\n{log}");
    // DRAM is 8 MiB for Ambix: most of the cold region stays out of it
    assert!(pages_on(&l[1], 0) * 2 <= cold_pages, "{late}\n{log}");
    assert_eq!(value_after(&console, "DAEMON-EXIT="), 0, "{console}");
    assert_eq!(value_after(&console, "MASIM-EXIT="), 0, "{console}");
    let out = section(&console, "OUT");
    assert!(out.contains(", 0 corrupted bytes, 0 lost writes"), "{out}");
}

#[test]
#[ignore = "boots a QEMU guest: cargo test --workspace --test live -- --ignored"]
fn thps_are_moved_whole_and_stay_thps() {
    let (code, console) = guest_with("thp.sh", &[], 384, &["-H"]);
    assert_eq!(code, 0, "{console}");
    assert!(console.contains("THP=[always]"), "{console}");
    let before = value_after(&console, "HUGE-BEFORE-KB=");
    assert!(
        before >= 4096,
        "masim's regions are THPs to begin with:\n{console}"
    );
    assert_eq!(value_after(&console, "TORTURE-EXIT="), 0, "{console}");
    let line = console
        .lines()
        .find(|l| l.starts_with("torture: "))
        .unwrap_or_else(|| panic!("no torture line:\n{console}"));
    eprintln!("{line}");
    let words: Vec<&str> = line.split_whitespace().collect();
    let migrations: u64 = words[1].parse().unwrap();
    let bytes: u64 = words[3].trim_start_matches('(').parse().unwrap();
    assert!(migrations >= 500, "{line}");
    // THPs moved as 2 MiB units (a base page is 4 KiB)
    assert!(bytes > migrations * 4096, "{line}");
    // the kernel migrated THPs whole, and our moves did not split them
    assert!(value_after(&console, "THP-MIGRATED=") > 0, "{console}");
    let after = value_after(&console, "HUGE-AFTER-KB=");
    assert!(after > 0, "no THP left after the moves:\n{console}");
    eprintln!(
        "AnonHugePages {before} kB -> {after} kB, thp_migration_success +{}, thp_split_pmd +{}",
        value_after(&console, "THP-MIGRATED="),
        value_after(&console, "THP-SPLIT-PMD=")
    );
    assert_eq!(value_after(&console, "MASIM-EXIT="), 0, "{console}");
    assert_two_clean_checks(&console, "masim");

    // Thermostat on THPeligible regions collapses the units it sampled
    // (before regions carried the kernel's THPeligible, it never did)
    assert_eq!(value_after(&console, "DAEMON-EXIT="), 0, "{console}");
    let collapses = value_after(&console, "THP-COLLAPSES=");
    eprintln!(
        "thermostat under THP: {collapses} collapses, {} splits",
        value_after(&console, "THP-SPLITS=")
    );
    assert!(collapses > 0, "{console}");
    assert_eq!(value_after(&console, "MASIM2-EXIT="), 0, "{console}");
    assert_two_clean_checks(&console, "masim2");
}

/// The daemon runs examples/damon-tiering.toml, the file `thermocline run`
/// reads, unchanged: the same manager and schemes, acting on a real
/// process without harming its data; the kernel has pages of it off the
/// fast node. Which region's pages move is printed,
/// not asserted: in the emulated (TCG) guest the simulated DAMON samples
/// each region 1-5 times a second instead of every 5 ms (55 sampling
/// page-outs a second over its 11-50 regions), so its profile of a 20 MiB
/// process is coarse, and how it ends varies from run to run. Of five
/// runs by hand at d6312d4, in the first three (20 s) the cold rule twice
/// moved only the heap and stack (454 KB, at 19 s), every region having
/// been seen accessed at some aggregation, and once the whole process, hot
/// region included (at 17 s); in the two with the 30 s the script now
/// waits, the cold region ended on the slow node (3752 and 4096 of its
/// 4096 pages) and the hot one on the fast node. In the clean-clone CI at
/// 5241d8f it moved everything at 3 s. `reproduce live-damon` and
/// `kernel_damon_regions_bring_the_hot_region_from_the_slow_node` judge
/// placement on the kernel's DAMON, which samples at its intervals.
#[test]
#[ignore = "boots a QEMU guest: cargo test --workspace --test live -- --ignored"]
fn the_damon_tiering_run_config_runs_its_schemes_under_the_daemon() {
    let (code, console) = guest("schemes.sh", &["examples/damon-tiering.toml"], 384);
    assert_eq!(code, 0, "{console}");
    let log = section(&console, "LOG");
    // the daemon read the run config's manager and schemes, and said what
    // of it only a simulated run uses
    let read = log
        .lines()
        .find(|l| l.contains("\"event\":\"run config\""))
        .unwrap_or_else(|| panic!("no run config logged:\n{log}"));
    let read = json(read);
    assert_eq!(read["manager"], "damon-moderate", "{read}");
    assert!(
        read["ignored"].to_string().contains("run.workload"),
        "{read}"
    );
    // the schemes acted: their gauges, as served mid-run
    let metrics = section(&console, "METRICS");
    let gauge = |name: &str| {
        metric(
            metrics,
            &format!("thermocline_manager{{manager=\"damon-moderate\",name=\"{name}\"}}"),
        )
    };
    let (tried, applied) = (gauge("schemes_tried_bytes"), gauge("schemes_applied_bytes"));
    eprintln!("schemes: {tried} bytes tried, {applied} applied");
    assert!(tried > 0.0 && applied > 0.0, "{metrics}\n{log}");
    // what moved is where the kernel says: pages off the fast node (a page
    // being sampled is paged out meanwhile; applied bytes count promotions
    // back too, so they are not compared)
    let place = json(section(&console, "PLACE"));
    let on_slow: u64 = place["target"]["mappings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| pages_on(m, 1) + m["swapped"].as_u64().unwrap_or(0))
        .sum();
    let ranges = place["target"]["ranges"].as_array().unwrap();
    let (hot, cold) = (&ranges[0], &ranges[1]);
    eprintln!(
        "cold region: {} of {} pages on the slow node; hot region: {} of {} on the fast node; {on_slow} of the process's pages off the fast node",
        pages_on(cold, 1),
        range_pages(cold),
        pages_on(hot, 0),
        range_pages(hot)
    );
    assert!(on_slow > 0, "{place}\n{log}");
    assert_eq!(value_after(&console, "DAEMON-EXIT="), 0, "{console}");
    assert_eq!(value_after(&console, "MASIM-EXIT="), 0, "{console}");
    let out = section(&console, "OUT");
    assert!(out.contains(", 0 corrupted bytes, 0 lost writes"), "{out}");
}

/// masim (named `who` in its output) verified its data twice, on SIGUSR1
/// and at the end, and found it intact both times.
fn assert_two_clean_checks(console: &str, who: &str) {
    let prefix = format!("{who}: verified");
    let checks: Vec<&str> = console.lines().filter(|l| l.starts_with(&prefix)).collect();
    assert_eq!(checks.len(), 2, "{console}");
    assert!(
        checks
            .iter()
            .all(|l| l.ends_with(", 0 corrupted bytes, 0 lost writes")),
        "{checks:?}"
    );
}
