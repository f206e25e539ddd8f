//! Issue 47's bad inputs, each a user's mistake: exit 2, one line that
//! names the file and line, the `--set` or the flag, before any work (no
//! output written, no run made).

use std::path::PathBuf;
use std::process::Command;

fn thermocline(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_thermocline"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fresh folder for one test.
fn folder(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tc-bad-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// The one line of a usage error, which must start with `start`.
fn refused(args: &[&str], start: &str) -> String {
    let (code, err) = thermocline(args);
    assert_eq!(code, 2, "{args:?}: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "{args:?}: one line: {err}"
    );
    assert!(!err.contains("internal"), "{args:?}: {err}");
    assert!(
        err.starts_with(&format!("error: {start}")),
        "{args:?}: wanted {start:?}: {err}"
    );
    err
}

#[test]
fn checks_made_after_parsing_name_the_files_line() {
    let d = folder("lines");
    for (text, line, what) in [
        ("[run]\nworkload = \"multiphase\"\nduration_s = -3\n", 3, "duration"),
        ("[metrics]\nwindow_s = 0\n", 2, "metrics.window_s"),
        ("[machine]\nmlp = 0\n", 2, "machine.mlp"),
        ("[run]\nfast_capacity = \"1B\"\n", 2, "fast capacity"),
        ("[run]\nworkload = \"nope\"\n", 2, "unknown workload"),
        ("[workload]\naccess_rate = -1\n", 2, "workload.access_rate"),
        (
            "[run]\nmanager = \"thermostat\"\n[thermostat]\nsample_fraction = 7\n",
            4,
            "parameters of manager thermostat",
        ),
        (
            "[run]\nmanager = \"damon-tiering\"\n[damon-tiering]\nsample_ms = 0\n",
            4,
            "parameters of manager damon-tiering: sample_ms = 0",
        ),
        (
            "[run]\nmanager = \"thermostat\"\n[thermostat]\nscan_period_s = -1\n",
            4,
            "parameters of manager thermostat: scan_period_s = -1",
        ),
        (
            "[run]\nmanager = \"damon-tiering\"\n[damon-tiering]\nmin_regions = 100\nmax_regions = 10\n",
            4,
            "parameters of manager damon-tiering: min_regions = 100 is above max_regions = 10",
        ),
    ] {
        let p = write(&d, "c.toml", text);
        refused(&["run", "--config", &p], &format!("{p}:{line}: {what}"));
    }
    // the same in JSON
    let p = write(
        &d,
        "c.json",
        "{\n  \"machine\": {\n    \"mlp\": 0\n  }\n}\n",
    );
    refused(&["run", "--config", &p], &format!("{p}:3: machine.mlp"));
}

#[test]
fn a_check_names_the_flag_or_the_set_that_gave_the_value() {
    refused(
        &["run", "--duration", "-1"],
        "--duration -1: must be a positive number of seconds",
    );
    refused(
        &["run", "--fast-capacity", "1B"],
        "--fast-capacity 1B: 1 B is below one 4 KiB page",
    );
    refused(
        &["run", "--set", "machine.mlp=0"],
        "--set machine.mlp=0: machine.mlp",
    );
    refused(
        &[
            "run",
            "--manager",
            "random",
            "--set",
            "random.fast_probability=1.5",
        ],
        "--set random.fast_probability=1.5: parameters of manager random",
    );
    // a flag given after the file wins, and is the one named
    let d = folder("flag");
    let p = write(&d, "c.toml", "[run]\nduration_s = 1\n");
    refused(
        &["run", "--config", &p, "--duration", "-2"],
        "--duration -2:",
    );
}

#[test]
fn a_section_for_a_manager_not_run_is_refused_at_its_line() {
    let d = folder("sections");
    let p = write(
        &d,
        "c.toml",
        "[run]\nworkload = \"multiphase\"\nmanager = \"first-touch\"\n[thermostat]\nslowdown = 0.05\n",
    );
    let err = refused(&["run", "--config", &p], &format!("{p}:4: [thermostat]"));
    assert!(err.contains("does not run (it runs first-touch)"), "{err}");
    refused(
        &[
            "compare",
            "--config",
            &p,
            "--managers",
            "first-touch,interleave",
        ],
        &format!("{p}:4:"),
    );
    let svg = d.join("h.svg");
    refused(
        &["heatmap", "--config", &p, "--out", svg.to_str().unwrap()],
        &format!("{p}:4:"),
    );
    assert!(!svg.exists());
    // run with that manager, the section is what it reads
    let (code, err) = thermocline(&[
        "run",
        "--config",
        &p,
        "--manager",
        "thermostat",
        "--duration",
        "0.05",
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_set_holding_two_settings_is_refused_not_half_applied() {
    refused(
        &["run", "--set", "run.seed=5\nbogus=1"],
        "--set run.seed=5\\nbogus=1: VALUE holds more than one setting",
    );
    refused(
        &["run", "--set", "run.workload=abc\nbogus=1"],
        "--set run.workload=abc\\nbogus=1: VALUE is neither TOML nor one line",
    );
}

#[test]
fn damons_attributes_the_kernel_refuses_are_refused() {
    let err = refused(
        &[
            "run",
            "--manager",
            "damon-tiering",
            "--set",
            "damon-tiering.min_regions=100",
            "--set",
            "damon-tiering.max_regions=10",
        ],
        "--set damon-tiering.min_regions=100: parameters of manager damon-tiering",
    );
    assert!(
        err.contains("min_regions = 100 is above max_regions = 10"),
        "{err}"
    );
    for (set, what) in [
        (
            "damon-tiering.min_regions=2",
            "min_regions = 2: DAMON needs at least 3 regions",
        ),
        ("damon-tiering.sample_ms=0", "sample_ms = 0"),
        ("damon-tiering.aggregate_ms=1", "aggregate_ms = 1"),
    ] {
        let err = refused(
            &["run", "--manager", "damon-tiering", "--set", set],
            &format!("--set {set}: parameters of manager damon-tiering"),
        );
        assert!(err.contains(what), "{set}: {err}");
    }
    refused(
        &[
            "run",
            "--manager",
            "kernel-tiering",
            "--set",
            "kernel-tiering.max_regions=1",
        ],
        "--set kernel-tiering.max_regions=1: parameters of manager kernel-tiering",
    );
}

#[test]
fn a_run_of_days_asks_for_yes() {
    refused(
        &["run", "--set", "workload.access_rate=1e30"],
        "run length: 1.845e19 accesses would take at least",
    );
    refused(
        &[
            "compare",
            "--workload",
            "multiphase",
            "--managers",
            "first-touch",
            "--set",
            "workload.access_rate=1e30",
        ],
        "run length:",
    );
}

#[test]
fn a_failed_sweep_check_leaves_no_folder() {
    let d = folder("sweep");
    let spec = write(
        &d,
        "s.toml",
        "name = \"s\"\n[[runs]]\n\"run.manager\" = \"first-touch\"\n\"run.duration_s\" = 0.05\n[[runs]]\n\"run.manager\" = \"random\"\n\"random.fast_probability\" = 1.5\n\"run.duration_s\" = 0.05\n",
    );
    let out = d.join("out");
    let err = refused(
        &["sweep", &spec, "--out", out.to_str().unwrap()],
        &format!("{spec}:7: cell"),
    );
    assert!(
        !err.contains("--set"),
        "a sweep's values are its lines: {err}"
    );
    assert!(!out.exists(), "a failed check made {}", out.display());
}

#[test]
fn a_config_reads_its_masim_file_from_its_own_folder() {
    let d = folder("beside");
    let cfg = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../workloads/tests/masim-configs/demo.cfg"
    ))
    .unwrap();
    write(&d, "demo.cfg", &cfg);
    let p = write(
        &d,
        "r.toml",
        "[run]\nworkload = \"demo.cfg\"\nmanager = \"first-touch\"\nduration_s = 0.05\n",
    );
    // run from elsewhere: the file beside the config is the one read
    let (code, err) = thermocline(&["run", "--config", &p]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn unclear_messages_say_what_is_wrong() {
    let d = folder("unclear");
    // a tiny MASIM region: the default fast capacity is named as the default
    let small = write(
        &d,
        "small.cfg",
        "#regions\na, 4096\n\n#phases\np\n100\na, 0, 4096, 1\n",
    );
    let err = refused(
        &["run", "--workload", &small],
        "fast capacity: 2048 B is below one 4 KiB page",
    );
    assert!(err.contains("the default"), "{err}");
    // a region too large for the address space is not "not a whole number"
    let huge = write(
        &d,
        "huge.cfg",
        "#regions\na, 18446744073709547520\n\n#phases\np\n100\na, 0, 4096, 1\n",
    );
    let err = refused(
        &["run", "--workload", &huge],
        &format!("{huge}:2: region size"),
    );
    assert!(err.contains("128 TiB"), "{err}");
    // a missing file is a missing file, a typo gets a suggestion
    refused(
        &["run", "--workload", "no/such.cfg"],
        "--workload no/such.cfg: unknown workload \"no/such.cfg\": no MASIM config file there",
    );
    let err = refused(&["run", "--workload", "multiphse"], "--workload multiphse:");
    assert!(err.contains("did you mean \"multiphase\"?"), "{err}");
    let err = refused(&["run", "--manager", "first-tuch"], "unknown manager");
    assert!(err.contains("did you mean \"first-touch\"?"), "{err}");
    let err = refused(
        &["run", "--machine", "dram+cxll"],
        "--machine dram+cxll: unknown machine",
    );
    assert!(err.contains("did you mean \"dram+cxl\"?"), "{err}");
}

#[test]
fn a_probability_above_one_is_the_users_mistake_wherever_it_is_given() {
    let d = folder("probability");
    let p = write(
        &d,
        "c.toml",
        "[run]\nworkload = \"multiphase\"\nmanager = \"random\"\n[random]\nfast_probability = 1.5\n",
    );
    refused(
        &["run", "--config", &p],
        &format!("{p}:5: parameters of manager random"),
    );
    // compare: before the other managers run
    refused(
        &[
            "compare",
            "--config",
            &p,
            "--managers",
            "first-touch,random",
        ],
        &format!("{p}:5: parameters of manager random"),
    );
    // a sweep's dry run finds the cell that would fail
    let spec = write(
        &d,
        "s.toml",
        "name = \"s\"\n[[runs]]\n\"run.manager\" = \"random\"\n\"random.fast_probability\" = 1.5\n",
    );
    let out = d.join("out");
    refused(
        &["sweep", &spec, "--out", out.to_str().unwrap(), "--dry-run"],
        &format!("{spec}:4: cell"),
    );
}

#[test]
fn a_schemes_bad_value_is_at_its_own_line_not_its_header() {
    let d = folder("scheme");
    let p = write(
        &d,
        "c.toml",
        "[run]\nworkload = \"multiphase\"\nmanager = \"damon-tiering\"\n\n[[damon-tiering.schemes]]\naction = \"migrate_cold\"\ntier = 1\nmin_access_pct = 500\n",
    );
    refused(
        &["run", "--config", &p],
        &format!("{p}:8: parameters of manager damon-tiering: schemes[0]: min_access_pct"),
    );
}
