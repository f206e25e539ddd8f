//! No text makes the size parsers panic (issue 11, item 5): sizes and
//! capacity specs parse or give a one-line error quoting the text; whatever
//! parses resolves against any footprint.

use proptest::prelude::*;
use thermocline_vocab::{parse_size, ByteSize, CapacitySpec};

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Numbers and units as users write them, right and wrong.
fn size_text() -> impl Strategy<Value = String> {
    let number = prop_oneof![
        prop::sample::select(vec![
            "0",
            "1",
            "1.5",
            ".5",
            "5.",
            ".",
            "..",
            "1.2.3",
            "",
            "-1",
            "+1",
            "1e3",
            "NaN",
            "inf",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999999",
            "0.0000000000000000001",
            "٣",
            "１",
        ])
        .prop_map(str::to_string),
        any::<u64>().prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| v.to_string()),
    ];
    let unit = prop::sample::select(vec![
        "", "b", "B", "k", "KiB", "kb", "M", "MiB", "g", "GiB", "t", "TB", "TiB", "P", "PiB", "%",
        " %", "%%", " GiB", "GiB ", "ki B", "é",
    ]);
    (number, unit, prop::sample::select(vec!["", " ", "\t"]))
        .prop_map(|(n, u, pad)| format!("{pad}{n}{u}{pad}"))
}

fn check(text: &str) -> Result<(), TestCaseError> {
    match parse_size(text) {
        Ok(ByteSize(b)) => {
            prop_assert!(b <= u64::MAX / 2 + 1, "{text:?} -> {b}");
            let _ = ByteSize(b).to_string();
        }
        Err(e) => {
            let s = e.to_string();
            prop_assert!(!s.contains('\n'), "{s:?}");
            prop_assert!(
                s.contains(&format!("{text:?}")),
                "{s:?} does not quote {text:?}"
            );
        }
    }
    match CapacitySpec::parse(text) {
        Ok(c) => {
            for footprint in [0, 1, 4096, 1 << 40, u64::MAX] {
                let _ = c.resolve(footprint);
            }
            if let CapacitySpec::PercentOfFootprint(p) = c {
                prop_assert!(p.is_finite() && p >= 0.0, "{text:?} -> {p}");
            }
        }
        Err(e) => {
            let s = e.to_string();
            prop_assert!(!s.contains('\n'), "{s:?}");
            // A capacity spec is quoted as trimmed.
            let quoted =
                s.contains(&format!("{text:?}")) || s.contains(&format!("{:?}", text.trim()));
            prop_assert!(quoted, "{s:?} does not quote {text:?}");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn arbitrary_text(text in "\\PC{0,16}") {
        check(&text)?;
    }

    #[test]
    fn numbers_and_units(text in size_text()) {
        check(&text)?;
    }

    #[test]
    fn any_size_displays(b in any::<u64>()) {
        let s = ByteSize(b).to_string();
        prop_assert!(!s.is_empty() && !s.contains('\n'));
    }
}

#[test]
fn nonsense_sizes_are_errors() {
    for t in [
        "",
        "-1",
        "nan%",
        "inf%",
        "-0.5%",
        "1e400",
        "20000000T",
        "5 parsecs",
    ] {
        assert!(CapacitySpec::parse(t).is_err(), "{t:?}");
    }
}
