//! No configuration makes thermocline panic or hang (issue 11, item 5):
//! arbitrary TOML files and `--set KEY=VALUE` strings either load or give a
//! one-line error naming the file (and line) or the `--set`; configurations
//! that load but make no sense (zero, negative, NaN, infinite or enormous
//! values for known keys, bad manager parameters) end in an error or a
//! report when run on a tiny workload, within seconds.

use proptest::prelude::*;
use std::sync::mpsc;
use std::time::Duration;
use thermocline_engine::config;
use thermocline_engine::runner;
use thermocline_managers::registry::{self, MANAGERS};
use thermocline_model::MACHINE_PRESETS;

fn proptest_config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// --------------------------------------------------------------- loading

/// Known keys of the run configuration, by section.
const KEYS: &[(&str, &[&str])] = &[
    (
        "run",
        &[
            "workload",
            "manager",
            "machine",
            "fast_capacity",
            "duration_s",
            "seed",
            "backend",
        ],
    ),
    (
        "machine",
        &[
            "mlp",
            "slow_capacity",
            "tier_capacities",
            "saturation_exponent",
        ],
    ),
    (
        "machine.tlb",
        &[
            "l1_base_entries",
            "l1_base_ways",
            "l1_huge_entries",
            "l1_huge_ways",
            "stlb_entries",
            "stlb_ways",
            "stlb_hit_ns",
            "walk_level_ns",
            "psc_entries",
        ],
    ),
    ("machine.llc", &["bytes", "ways", "hit_ns"]),
    (
        "machine.costs",
        &[
            "entry_access_ns",
            "invlpg_ns",
            "full_flush_ns",
            "shootdown_ipi_ns",
            "poison_fault_ns",
            "first_touch_fault_ns",
            "split_huge_ns",
            "sample_ns",
            "migration_table",
            "huge_copy_gbps",
        ],
    ),
    (
        "workload",
        &["access_rate", "compute_ns", "thp", "base_va", "masim_burst"],
    ),
    ("metrics", &["window_s", "hot_threshold", "hot_map_bins"]),
    (
        "thermostat",
        &["scan_period_s", "sample_fraction", "poison_max", "slowdown"],
    ),
    ("random", &["fast_probability"]),
    (
        "damon-moderate",
        &["sample_ms", "aggregate_ms", "min_regions", "max_regions"],
    ),
];

/// TOML values of every type, sensible and not.
fn toml_value() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "0", "1", "-1", "3", "64", "4096", "1048576", "9223372036854775807",
            "18446744073709551615", "0.5", "-0.5", "1e-300", "1e300", "1e400", "nan", "inf",
            "-inf", "true", "false", "\"x\"", "\"\"", "\"50%\"", "\"512MiB\"", "\"multiphase\"",
            "\"first-touch\"", "[]", "[1, 2, 3]", "[[1.0, 2.0, 3.0]]", "{}", "{ a = 1 }",
            "1979-05-27", "x", "\"unterminated", "[1,", "{",
        ])
        .prop_map(str::to_string),
        1 => any::<i64>().prop_map(|v| v.to_string()),
        1 => any::<f64>().prop_map(|v| format!("{v:?}")),
        1 => "\\PC{0,10}",
    ]
}

fn known_key() -> impl Strategy<Value = (String, String)> {
    prop::sample::select(KEYS).prop_flat_map(|(section, keys)| {
        prop::sample::select(keys).prop_map(move |k| (section.to_string(), k.to_string()))
    })
}

fn manager_name() -> impl Strategy<Value = &'static str> {
    prop::sample::select(MANAGERS.iter().map(|m| m.name).collect::<Vec<_>>())
}

fn section_name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(KEYS).prop_map(|(s, _)| s.to_string()),
        1 => manager_name().prop_map(str::to_string),
        1 => "[a-z.\\-]{0,10}",
    ]
}

/// A TOML document of sections holding known (and some unknown) keys.
fn toml_doc() -> impl Strategy<Value = String> {
    let entry = prop_oneof![
        4 => known_key().prop_map(|(_, k)| k),
        1 => "[a-z_]{1,8}",
    ];
    let section = (
        section_name(),
        prop::collection::vec((entry, toml_value()), 0..4),
    );
    prop::collection::vec(section, 0..5).prop_map(|sections| {
        let mut s = String::new();
        for (name, entries) in sections {
            s.push_str(&format!("[{name}]\n"));
            for (k, v) in entries {
                s.push_str(&format!("{k} = {v}\n"));
            }
        }
        s
    })
}

/// `--set` strings: known keys with any value, and malformed ones.
fn set() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (known_key(), toml_value()).prop_map(|((s, k), v)| format!("{s}.{k}={v}")),
        1 => (section_name(), toml_value()).prop_map(|(s, v)| format!("{s}={v}")),
        1 => "\\PC{0,20}",
        1 => "[a-z.]{0,8}=[a-z0-9\"]{0,6}",
    ]
}

/// Loads; an error is one line naming the file (with a line number inside
/// it, when it has one) or the `--set`. What loads builds its managers
/// without panicking.
fn check_load(file: Option<(&str, &str)>, sets: &[String]) -> Result<(), TestCaseError> {
    match config::load(file, sets) {
        Ok(cfg) => {
            for (name, params) in &cfg.managers {
                if let Err(e) = registry::build(name, params.clone(), 1) {
                    let s = e.to_string();
                    prop_assert!(!s.contains('\n') && s.contains(name.as_str()), "{s:?}");
                }
            }
        }
        Err(e) => {
            let s = e.to_string();
            prop_assert!(!s.contains('\n'), "error spans lines: {s:?}");
            let from_file = file.is_some_and(|(path, text)| {
                let Some(rest) = s.strip_prefix(path) else {
                    return false;
                };
                match rest.strip_prefix(':') {
                    Some(r) if r.starts_with(' ') => true,
                    Some(r) => {
                        let line: usize = r.split(':').next().unwrap_or("").parse().unwrap_or(0);
                        line >= 1 && line <= text.lines().count() + 1
                    }
                    None => false,
                }
            });
            prop_assert!(
                from_file || s.starts_with("--set"),
                "{s:?} names neither the file nor a --set"
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(proptest_config(256))]

    #[test]
    fn load_arbitrary_text(text in "\\PC{0,200}") {
        check_load(Some(("fuzz.toml", &text)), &[])?;
    }

    #[test]
    fn load_arbitrary_sets(sets in prop::collection::vec("\\PC{0,30}", 0..4)) {
        check_load(None, &sets)?;
    }

    #[test]
    fn load_grammar(doc in toml_doc(), sets in prop::collection::vec(set(), 0..4)) {
        check_load(Some(("fuzz.toml", &doc)), &[])?;
        check_load(None, &sets)?;
        check_load(Some(("fuzz.toml", &doc)), &sets)?;
    }
}

#[test]
fn wrong_types_name_the_file_line_or_set() {
    let cases: &[(Option<&str>, &[&str], &str)] = &[
        (None, &["machine.mlp=\"x\""], "--set machine.mlp=\"x\": "),
        (None, &["run.seed=-1"], "--set run.seed=-1: "),
        (
            None,
            &["metrics.window_s=1e400"],
            "--set metrics.window_s=1e400: ",
        ),
        (Some("[machine]\nmlp = \"x\"\n"), &[], "c.toml:2: "),
        (Some("[run]\nseed = 1\n\n[run]\n"), &[], "c.toml:4: "),
        (Some("[metrics]\n\nwindow_s = 1e400\n"), &[], "c.toml:3: "),
        (
            Some("[machine.tlb]\nstlb_entries = -3\n"),
            &[],
            "c.toml:2: ",
        ),
        (Some("[run]\nsede = 1\n"), &[], "c.toml:2: "),
        // The file is fine; the --set is not.
        (
            Some("[run]\nseed = 2\n"),
            &["run.seed=\"x\""],
            "--set run.seed=\"x\": ",
        ),
        (None, &["thermostat=3"], "--set thermostat=3: "),
    ];
    for (file, sets, want) in cases {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let e = config::load(file.map(|t| ("c.toml", t)), &sets)
            .err()
            .unwrap_or_else(|| panic!("{file:?} {sets:?} loads"))
            .to_string();
        assert!(e.starts_with(want), "{file:?} {sets:?}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

// --------------------------------------------------------------- running

/// A tiny MASIM workload: two 1 MiB regions, two 1 ms phases (2 000
/// accesses at the 1 M/s the runs below set).
const TINY: &str = "a, 1048576\nb, 1048576\n\nhot\n1\na, 1, 64, 9, rw\nb, 0, 4096, 1, ro\n\nsweep\n1\nb, 0, 64, 1, wo\n";

/// `--set`s of known keys with values that may make no sense.
fn nasty_set() -> impl Strategy<Value = String> {
    let v = |vals: &'static [&'static str]| prop::sample::select(vals);
    let num = &[
        "0", "-1", "nan", "inf", "-inf", "1e-300", "1e300", "0.5", "\"x\"",
    ][..];
    let count = &[
        "0",
        "1",
        "3",
        "-1",
        "1099511627776",
        "9223372036854775807",
        "\"x\"",
    ][..];
    prop_oneof![
        v(&[
            "\"0\"",
            "\"1\"",
            "\"4096\"",
            "\"0%\"",
            "\"1%\"",
            "\"100%\"",
            "\"100000%\"",
            "\"16000000T\"",
            "\"nan%\"",
            "\"x\"",
            "5"
        ])
        .prop_map(|x| format!("run.fast_capacity={x}")),
        v(&[
            "\"0\"",
            "\"1\"",
            "\"1%\"",
            "\"100000%\"",
            "\"16000000T\"",
            "\"-1\""
        ])
        .prop_map(|x| format!("machine.slow_capacity={x}")),
        prop::sample::select(MACHINE_PRESETS.iter().map(|m| m.name).collect::<Vec<_>>())
            .prop_map(|m| format!("run.machine=\"{m}\"")),
        v(&["\"exact\"", "\"rate\"", "\"auto\"", "\"x\""]).prop_map(|x| format!("run.backend={x}")),
        v(&["0", "-1", "nan", "inf", "1e-12", "0.0005", "1e300"])
            .prop_map(|x| format!("run.duration_s={x}")),
        v(&["0", "-1", "9223372036854775807"]).prop_map(|x| format!("run.seed={x}")),
        v(num).prop_map(|x| format!("machine.mlp={x}")),
        v(num).prop_map(|x| format!("machine.saturation_exponent={x}")),
        (
            v(&[
                "l1_base_entries",
                "l1_base_ways",
                "l1_huge_entries",
                "l1_huge_ways",
                "stlb_entries",
                "stlb_ways"
            ]),
            v(count),
        )
            .prop_map(|(k, x)| format!("machine.tlb.{k}={x}")),
        (v(&["stlb_hit_ns", "walk_level_ns"]), v(num))
            .prop_map(|(k, x)| format!("machine.tlb.{k}={x}")),
        v(&["[0, 0, 0]", "[1099511627776, 1, 1]", "[1]", "[]"])
            .prop_map(|x| format!("machine.tlb.psc_entries={x}")),
        v(&["0", "64", "100", "1048576", "1125899906842624", "-1"])
            .prop_map(|x| format!("machine.llc.bytes={x}")),
        v(&["0", "1", "3", "16"]).prop_map(|x| format!("machine.llc.ways={x}")),
        v(num).prop_map(|x| format!("machine.llc.hit_ns={x}")),
        (
            v(&[
                "entry_access_ns",
                "invlpg_ns",
                "full_flush_ns",
                "shootdown_ipi_ns",
                "poison_fault_ns",
                "first_touch_fault_ns",
                "split_huge_ns",
                "sample_ns",
                "huge_copy_gbps"
            ]),
            v(num),
        )
            .prop_map(|(k, x)| format!("machine.costs.{k}={x}")),
        v(&[
            "[]",
            "[[1.0, 2.0, 3.0]]",
            "[[nan, nan, nan]]",
            "[[-1.0, -1.0, -1.0]]"
        ])
        .prop_map(|x| format!("machine.costs.migration_table={x}")),
        v(&["0", "-1", "nan", "inf", "1e-300", "1e-3", "1"])
            .prop_map(|x| format!("workload.access_rate={x}")),
        v(&["-1", "nan", "inf", "0", "1e300", "1e12"])
            .prop_map(|x| format!("workload.compute_ns={x}")),
        v(&["true", "false"]).prop_map(|x| format!("workload.thp={x}")),
        v(&[
            "0",
            "1",
            "2097152",
            "140737486258176",
            "-1",
            "9223372036854775807"
        ])
        .prop_map(|x| format!("workload.base_va={x}")),
        v(&["0", "-1", "nan", "inf", "1e-9", "1e-6", "1e300"])
            .prop_map(|x| format!("metrics.window_s={x}")),
        v(&["0", "-1", "4294967296"]).prop_map(|x| format!("metrics.hot_threshold={x}")),
        v(&["0", "1", "1000000000000", "-1"]).prop_map(|x| format!("metrics.hot_map_bins={x}")),
    ]
}

/// Parameters of each manager (the shared `migration` table aside).
fn params_of(manager: &str) -> &'static [&'static str] {
    match manager {
        "random" => &["fast_probability"],
        "ambix" => &[
            "period_s",
            "dram_threshold",
            "dcpmm_write_threshold_mb_s",
            "clear_delay_ms",
            "switch_max_pages",
            "switch_always",
        ],
        "thermostat" | "thermostat-badgertrap" => &[
            "scan_period_s",
            "sample_fraction",
            "poison_max",
            "slowdown",
            "slow_access_ns",
            "seed",
            "adaptive_sampling",
            "sampling_share",
        ],
        "kstaled" => &["scan_period_s", "idle_scans", "base_pages"],
        "autonuma-tiering" => &[
            "low_watermark",
            "high_watermark",
            "scan_size_mb",
            "scan_period_s",
            "rate_limit_mb_s",
        ],
        "memos-placement" => &[
            "period_s",
            "clear_delay_ms",
            "max_promotions",
            "dram_traffic_target",
            "dram_threshold",
        ],
        m if m.starts_with("linear-scan") => &[
            "batch_bytes",
            "sleep_ms",
            "report_ms",
            "extra_entry_ns",
            "migration.enabled",
            "migration.start_in_slow",
            "migration.warmup_s",
            "migration.hot_count",
            "migration.max_region_bytes",
            "migration.max_bytes_per_window",
        ],
        m if m.starts_with("pebs") => &[
            "freq_hz",
            "report_ms",
            "hot_min_samples",
            "max_sample_rate",
            "cpu_time_max_percent",
            "buffer",
            "migration.enabled",
            "migration.hot_count",
            "migration.max_bytes_per_window",
        ],
        m if m.starts_with("damon") || m.starts_with("telescope") => &[
            "sample_ms",
            "aggregate_ms",
            "min_regions",
            "max_regions",
            "hot_min_accesses",
            "flex_upper_error",
            "flex_pmd_error",
            "seed",
            "migration.enabled",
            "migration.warmup_s",
            "migration.hot_count",
            "migration.max_region_bytes",
        ],
        _ => &["nonsense"],
    }
}

/// A manager and `--set`s of its parameters with values that may make no
/// sense.
fn manager_with_params() -> impl Strategy<Value = (&'static str, Vec<String>)> {
    manager_name().prop_flat_map(|m| {
        let one = (
            prop::sample::select(params_of(m)),
            prop::sample::select(vec![
                "0",
                "-1",
                "nan",
                "inf",
                "1e-300",
                "1e300",
                "1e-6",
                "0.001",
                "2",
                "1099511627776",
                "true",
            ]),
        )
            .prop_map(move |(k, v)| format!("{m}.{k}={v}"));
        (Just(m), prop::collection::vec(one, 0..3))
    })
}

/// Runs `sets` over the tiny workload on another thread; a run that has not
/// ended after `limit` is a hang.
fn run_within(sets: Vec<String>, limit: Duration) -> Result<Result<(), String>, String> {
    let (tx, rx) = mpsc::channel();
    let label = format!("{sets:?}");
    std::thread::spawn(move || {
        let r = config::load(None, &sets)
            .map_err(thermocline_engine::RunError::from)
            .and_then(|c| runner::run(&c, &mut |_, _| {}));
        let _ = tx.send(r.map(|_| ()).map_err(|e| e.to_string()));
    });
    match rx.recv_timeout(limit) {
        Ok(r) => Ok(r),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(format!("hangs: {label}")),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(format!("panics: {label}")),
    }
}

/// Writes the tiny workload as a MASIM config, lackey output and a binary
/// trace; returns the three workload specs.
fn write_tiny_workloads(base: &std::path::Path) -> Vec<String> {
    use thermocline_workloads::{lay_out, trace, Access};
    let masim = format!("{}.cfg", base.display());
    std::fs::write(&masim, TINY).unwrap();
    let regions = lay_out(
        &[("a".to_string(), 1 << 20), ("b".to_string(), 1 << 20)],
        false,
    );
    let accesses: Vec<Access> = (0..2_000u64)
        .map(|i| Access {
            va: regions[(i % 2) as usize].start + (i * 4160) % (1 << 20),
            asid: 0,
            core: (i % 2) as u16,
            write: i % 3 == 0,
        })
        .collect();
    let lackey = format!("{}.lackey", base.display());
    let text: String = accesses
        .iter()
        .map(|a| format!(" {} {:x},8\n", if a.write { 'S' } else { 'L' }, a.va))
        .collect();
    std::fs::write(&lackey, text).unwrap();
    let tr = format!("{}.trace", base.display());
    trace::write(&tr, &regions, &accesses).unwrap();
    vec![masim, format!("lackey:{lackey}"), format!("trace:{tr}")]
}

/// Each case: a manager with nonsense parameters, up to three nonsense
/// `--set`s, over one of the tiny workloads.
#[test]
fn nonsense_configs_run_or_fail_cleanly() {
    let base = std::env::temp_dir().join(format!("tc-never-panics-{}", std::process::id()));
    let workloads = write_tiny_workloads(&base);
    let strategy = (
        manager_with_params(),
        prop::collection::vec(nasty_set(), 0..3),
        prop::sample::select(workloads.clone()),
    );
    let mut runner = proptest::test_runner::TestRunner::new(proptest_config(96));
    let result = runner.run(&strategy, |((manager, params), nasty, workload)| {
        let mut sets = vec![
            format!("run.workload={workload}"),
            format!("run.manager={manager}"),
            // 2 000 accesses, 10 us apart: 20 ms of simulated time, so
            // that managers tick.
            "workload.access_rate=1000000".to_string(),
            "workload.compute_ns=10000".to_string(),
            "metrics.window_s=0.002".to_string(),
        ];
        sets.extend(nasty);
        sets.extend(params);
        match run_within(sets, Duration::from_secs(20)) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => prop_assert!(!e.contains('\n'), "{e:?}"),
            Err(why) => prop_assert!(false, "{}", why),
        }
        Ok(())
    });
    for w in &workloads {
        let path = w.split_once(':').map_or(w.as_str(), |p| p.1);
        let _ = std::fs::remove_file(path);
    }
    if let Err(e) = result {
        panic!("{e}");
    }
}
