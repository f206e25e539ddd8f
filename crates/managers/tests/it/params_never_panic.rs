//! No parameter table makes `registry::build` panic (issue 11, item 5): every
//! manager, fed known and unknown keys with values of every TOML type, is
//! built or refused with a one-line error naming the manager.

use proptest::prelude::*;
use thermocline_managers::registry::{self, MANAGERS};

/// Every parameter name of every manager (and of the shared `migration`
/// table), so that generated tables mostly reach the type checks.
const KEYS: &[&str] = &[
    "fast_probability",
    "freq_hz",
    "report_ms",
    "hot_min_samples",
    "max_sample_rate",
    "cpu_time_max_percent",
    "buffer",
    "migration",
    "batch_bytes",
    "sleep_ms",
    "extra_entry_ns",
    "sample_ms",
    "aggregate_ms",
    "intervals_goal",
    "min_regions",
    "max_regions",
    "hot_min_accesses",
    "flex_upper_error",
    "flex_pmd_error",
    "seed",
    "period_s",
    "dram_threshold",
    "dcpmm_write_threshold_mb_s",
    "clear_delay_ms",
    "switch_max_pages",
    "switch_always",
    "scan_period_s",
    "sample_fraction",
    "poison_max",
    "slowdown",
    "slow_access_ns",
    "adaptive_sampling",
    "sampling_share",
    "low_watermark",
    "high_watermark",
    "scan_size_mb",
    "rate_limit_mb_s",
    "max_promotions",
    "dram_traffic_target",
    "idle_scans",
    "base_pages",
];

const MIGRATION_KEYS: &[&str] = &[
    "enabled",
    "start_in_slow",
    "warmup_s",
    "hot_count",
    "max_region_bytes",
    "max_bytes_per_window",
];

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn scalar() -> impl Strategy<Value = toml::Value> {
    prop_oneof![
        any::<i64>().prop_map(toml::Value::Integer),
        prop::sample::select(vec![0i64, 1, -1, 255, 256, i64::MAX, i64::MIN])
            .prop_map(toml::Value::Integer),
        any::<f64>().prop_map(toml::Value::Float),
        prop::sample::select(vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            2.0,
            1e-300,
            1e300,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ])
        .prop_map(toml::Value::Float),
        any::<bool>().prop_map(toml::Value::Boolean),
        "\\PC{0,8}".prop_map(toml::Value::String),
        Just(toml::Value::Datetime(
            "1979-05-27T07:32:00Z".parse().unwrap()
        )),
    ]
}

fn value() -> impl Strategy<Value = toml::Value> {
    scalar().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(toml::Value::Array),
            prop::collection::vec((key(), inner), 0..4)
                .prop_map(|kv| toml::Value::Table(kv.into_iter().collect())),
        ]
    })
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::sample::select(KEYS).prop_map(str::to_string),
        2 => prop::sample::select(MIGRATION_KEYS).prop_map(str::to_string),
        1 => "\\PC{0,8}",
    ]
}

/// Tables of known keys (and some unknown) with arbitrary values; a
/// `migration` table often holds its own known keys.
fn params() -> impl Strategy<Value = toml::Table> {
    let migration = prop::collection::vec((prop::sample::select(MIGRATION_KEYS), scalar()), 0..4)
        .prop_map(|kv| {
            toml::Value::Table(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
        });
    (
        prop::collection::vec((key(), value()), 0..5),
        prop::option::of(migration),
    )
        .prop_map(|(kv, m)| {
            let mut t: toml::Table = kv.into_iter().collect();
            if let Some(m) = m {
                t.insert("migration".into(), m);
            }
            t
        })
}

fn check(name: &str, params: toml::Table) -> Result<(), TestCaseError> {
    match registry::build(name, params, 1) {
        Ok(m) => prop_assert_eq!(m.name(), name),
        Err(e) => {
            let s = e.to_string();
            prop_assert!(!s.contains('\n'), "{s:?}");
            prop_assert!(s.contains(name), "{s:?} does not name {name}");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn build_never_panics(which in 0..MANAGERS.len(), params in params()) {
        check(MANAGERS[which].name, params)?;
    }

    /// One known key with one value of any type, for every manager.
    #[test]
    fn one_parameter_of_any_type(which in 0..MANAGERS.len(), k in key(), v in value()) {
        check(MANAGERS[which].name, toml::Table::from_iter([(k, v)]))?;
    }

    #[test]
    fn unknown_names_are_errors(name in "\\PC{0,16}") {
        if !registry::exists(&name) {
            let e = registry::build(&name, toml::Table::new(), 1).err().expect("unknown");
            prop_assert!(!e.to_string().contains('\n'));
        }
    }
}

#[test]
fn wrong_types_name_the_parameter() {
    let t = toml::Table::from_iter([(
        "sample_fraction".to_string(),
        toml::Value::String("x".into()),
    )]);
    let e = registry::build("thermostat", t, 1)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("thermostat") && e.contains("sample_fraction"),
        "{e}"
    );
    let t = toml::Table::from_iter([(
        "migration".to_string(),
        toml::Value::Table(toml::Table::from_iter([(
            "warmup_s".to_string(),
            toml::Value::Boolean(true),
        )])),
    )]);
    let e = registry::build("damon-moderate", t, 1)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("damon-moderate") && e.contains("migration"),
        "{e}"
    );
}
