//! `thermocline sweep SPEC`'s parser and check, fuzzed: any text is either
//! a spec or one line naming the spec's file (and the line, where the text
//! has one), never a panic; an accepted spec's check, over small
//! workloads, is the same.

use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, TestCaseError};
use thermocline_sweep::SweepSpec;

const FILE: &str = "fuzz.toml";

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// One line, naming the file: `fuzz.toml:LINE: ` with LINE within the
/// text, or `fuzz.toml: `.
fn check_error(s: &str, text: &str) -> Result<(), TestCaseError> {
    prop_assert!(!s.contains('\n'), "error spans lines: {s:?}");
    let rest = s.strip_prefix(FILE).unwrap_or_default();
    prop_assert!(rest.starts_with(':'), "{s:?} does not name {FILE}");
    if let Some(line) = rest[1..]
        .split(':')
        .next()
        .and_then(|l| l.parse::<usize>().ok())
    {
        prop_assert!(
            line >= 1 && line <= text.lines().count().max(1),
            "line {line}: {s:?}"
        );
    }
    Ok(())
}

fn parse(text: &str, then_check: bool) -> Result<(), TestCaseError> {
    match SweepSpec::parse(FILE, text) {
        Ok(spec) if then_check => {
            if let Err(e) = spec.check(Some((FILE, text))) {
                check_error(&e.to_string(), text)?;
            }
        }
        Ok(_) => {}
        Err(e) => check_error(&e.to_string(), text)?,
    }
    Ok(())
}

/// A TOML value, right or wrong for the keys below.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("\"multiphase\"".to_string()),
        Just("\"zipf-1g\"".to_string()),
        Just("\"no-such-thing\"".to_string()),
        Just("\"first-touch\"".to_string()),
        Just("\"random\"".to_string()),
        Just("\"50%\"".to_string()),
        Just("\"lots\"".to_string()),
        Just("0.3".to_string()),
        Just("2.0".to_string()),
        Just("-1".to_string()),
        Just("0.05".to_string()),
        Just("true".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("workload".to_string()),
        Just("manager".to_string()),
        Just("run.workload".to_string()),
        Just("run.manager".to_string()),
        Just("run.duration_s".to_string()),
        Just("fast_capacity".to_string()),
        Just("\"random.fast_probability\"".to_string()),
        Just("bogus".to_string()),
    ]
}

/// Specs as people write them, some right, some wrong; every run capped
/// at a twentieth of a second so that a check that sets up is cheap.
fn spec() -> impl Strategy<Value = String> {
    (
        prop::option::of(prop_oneof![
            Just("\"s\"".to_string()),
            Just("3".to_string())
        ]),
        prop::option::of(prop_oneof![
            Just("[1, 2]".to_string()),
            Just("[]".to_string()),
            Just("[-1]".to_string()),
            Just("\"x\"".to_string()),
        ]),
        prop::collection::vec((key(), prop::collection::vec(value(), 0..3)), 0..3),
        prop::collection::vec(prop::collection::vec((key(), value()), 0..3), 0..2),
        prop::option::of(prop_oneof![
            Just("0.5".to_string()),
            Just("-2".to_string()),
            Just("\"big\"".to_string())
        ]),
    )
        .prop_map(|(name, seeds, grid, runs, memory)| {
            let mut t = String::new();
            if let Some(n) = name {
                t += &format!("name = {n}\n");
            }
            if let Some(s) = seeds {
                t += &format!("seeds = {s}\n");
            }
            if let Some(m) = memory {
                t += &format!("memory_gib = {m}\n");
            }
            t += "[set]\n\"run.duration_s\" = 0.05\n";
            if !grid.is_empty() {
                t += "[grid]\n";
                for (k, vs) in grid {
                    t += &format!("{k} = [{}]\n", vs.join(", "));
                }
            }
            for run in runs {
                t += "[[runs]]\n";
                for (k, v) in run {
                    t += &format!("{k} = {v}\n");
                }
            }
            t
        })
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn arbitrary_text(text in "\\PC{0,200}") {
        parse(&text, false)?;
    }

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        parse(&String::from_utf8_lossy(&bytes), false)?;
    }

    #[test]
    fn specs_as_people_write_them(text in spec()) {
        parse(&text, true)?;
    }
}

#[test]
fn the_example_specs_parse_and_check() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/sweeps");
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let spec = SweepSpec::parse(&path.to_string_lossy(), &text).unwrap();
        assert!(!spec.cells().is_empty(), "{}", path.display());
    }
}
