//! No input makes a workload parser panic (issue 11, item 5): arbitrary and
//! mutated MASIM configs, lackey output, binary traces and workload specs
//! either load or give a one-line error naming the file (and the line, where
//! the format has lines); what loads is sane enough to generate accesses.

use proptest::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use thermocline_vocab::RegionInfo;
use thermocline_workloads::presets::{self, WorkloadOptions};
use thermocline_workloads::{lackey, lay_out_at, masim, trace, Access, Stream, WorkloadError};

// ---------------------------------------------------------------- helpers

/// `cases` cases; failures are reported, not persisted (an integration test
/// has no source file proptest could place them next to).
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A fresh path in the temporary directory (tests run in parallel).
fn temp_path(tag: &str) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("tc-never-panic-{}-{tag}-{n}", std::process::id()))
}

/// The error is one line starting `file:LINE: ` with LINE in 1..=max_line
/// (when `max_line` is given and the error is at a line), or `file: `.
fn check_error(
    e: &WorkloadError,
    file: &str,
    max_line: Option<usize>,
) -> Result<(), TestCaseError> {
    let s = e.to_string();
    prop_assert!(!s.contains('\n'), "error spans lines: {s:?}");
    match e {
        WorkloadError::AtLine { file: f, line, .. } => {
            prop_assert_eq!(f, file);
            prop_assert!(*line >= 1, "line 0: {s:?}");
            if let Some(max) = max_line {
                prop_assert!(*line <= max, "line {line} past the end ({max}): {s:?}");
            }
            let prefix = format!("{file}:{line}: ");
            prop_assert!(s.starts_with(&prefix), "{s:?}");
        }
        WorkloadError::File { file: f, .. } => {
            prop_assert_eq!(f, file);
            let prefix = format!("{file}: ");
            prop_assert!(s.starts_with(&prefix), "{s:?}");
        }
        WorkloadError::Invalid(_) => {}
    }
    Ok(())
}

fn lines_of(text: &str) -> usize {
    text.lines().count().max(1)
}

fn inside(regions: &[RegionInfo], a: &Access) -> bool {
    regions
        .iter()
        .any(|r| r.asid.0 == a.asid && r.start <= a.va && a.va < r.end())
}

/// Draws up to `limit` accesses from `stream`; every access must lie inside a
/// region, and the stream must stop or keep going without panicking.
fn drain(
    stream: &mut Stream,
    regions: &[RegionInfo],
    limit: usize,
    file: &str,
) -> Result<usize, TestCaseError> {
    let mut buf = [Access::default(); 256];
    let mut got = 0;
    while got < limit {
        match stream.fill(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                for a in &buf[..n] {
                    prop_assert!(inside(regions, a), "access {a:?} outside {regions:?}");
                }
                got += n;
            }
            Err(e) => {
                check_error(&e, file, None)?;
                break;
            }
        }
    }
    Ok(got)
}

fn options(rate: Option<f64>, base_va: Option<u64>) -> WorkloadOptions {
    WorkloadOptions {
        seed: 7,
        access_rate: rate,
        compute_ns: None,
        thp: None,
        base_va,
        masim_burst: None,
        fast_read_ns: 80.0,
        mlp: 4.0,
    }
}

/// Numbers as a config might spell them, right and wrong.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "0", "1", "63", "64", "4096", "4095", "2097152", "100000000",
            "18446744073709551615", "18446744073709551616", "9223372036854775808",
            "140737488355328", "70368744177664", "4294967296",
            "-1", "1e9", "", " ", "0x10", "NaN", "inf", "1.5", "+3", "٣",
        ])
        .prop_map(str::to_string),
        2 => any::<u64>().prop_map(|v| v.to_string()),
        2 => (0u64..1 << 24).prop_map(|v| v.to_string()),
    ]
}

// ------------------------------------------------------------------ MASIM

/// The example configs of sjp38/masim (../shared/masim-configs), old format
/// (no access mode) and new (ro/wo/rw).
const MASIM_EXAMPLES: &[&str] = &[
    "#regions\n# name, length, initial data file\na, 256, none\nb, 64, none\nc, 128, none\n\n# phase 1\n# name of phase\nexample phase 1\n# time in ms\n1000\n# access patterns\n# name of region, randomness, stride, probability, read/write mode\na, 1, 64, 80, wo\n\n# phase 2\nexample phase 2\n# time in ms\n1000\n# access patterns\n# name of region, randomness, stride, probability\nc, 1, 64, 50, ro\nb, 0, 4096, 50, rw\n",
    "#regions\n# name, length\na, 2097152\n\n# phase 1\n# name of phase\nhuge phase 1\n# time in ms\n5000\n# access patterns\n# name of region, randomness, stride, probability\na, 1, 64, 80\n",
    "#regions\na, 100000000\nb, 100000000\n\n#phases\ninitial phase\n10000\na, 0, 4096, 1\nb, 0, 4096, 1\n\nlow phase 0\n5000\na, 0, 4096, 50\n\nhigh phase 0\n5000\nb, 0, 4096, 50\n",
    "#regions\ns0, 10000000\ns1, 10000000\ns2, 10000000\n\n#phases\ninitial phase\n10000\ns0, 0, 4096, 1\ns1, 0, 4096, 1\ns2, 0, 4096, 1\n\nphase 0\n5000\ns0, 0, 4096, 50\n\nphase 1\n5000\ns1, 0, 4096, 50\n",
    "a, 256, none\nb, 64, none\n\np1\n1000\na, 1, 64, 80, wo\n\np2\n1000\nb, 0, 64, 50, ro\na, 1, 64, 50, rw\n",
    presets::MULTIPHASE_CFG,
];

fn region_line() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["a", "b", "c", "", " a", "a b"]),
        number(),
        prop::sample::select(vec!["", ", none", ", init.dat", ", ", ", x, y"]),
    )
        .prop_map(|(n, s, rest)| format!("{n}, {s}{rest}"))
}

fn pattern_line() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["a", "b", "c", "zz", ""]),
        prop::sample::select(vec!["0", "1", "2", "", "true"]),
        number(),
        number(),
        prop::sample::select(vec!["", ", ro", ", wo", ", rw", ", xx", ", ", ", rw, rw"]),
    )
        .prop_map(|(r, rnd, st, p, m)| format!("{r}, {rnd}, {st}, {p}{m}"))
}

fn phase() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["p", "phase one", "", "#c", "a, 1, 64, 1"]),
        number(),
        prop::collection::vec(pattern_line(), 0..4),
    )
        .prop_map(|(name, d, pats)| {
            let mut s = format!("{name}\n{d}\n");
            for p in pats {
                s.push_str(&p);
                s.push('\n');
            }
            s
        })
}

/// Configs built from plausible and implausible lines.
fn masim_grammar() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(region_line(), 0..4),
        prop::collection::vec(phase(), 0..4),
        prop::sample::select(vec!["\n", "\r\n", "\n \n", "\n\n\n", "\n# comment\n"]),
    )
        .prop_map(|(regions, phases, sep)| {
            let mut s = String::from("# regions\n");
            for r in regions {
                s.push_str(&r);
                s.push('\n');
            }
            for p in phases {
                s.push_str(sep);
                s.push_str(&p);
            }
            s
        })
}

#[derive(Clone, Debug)]
enum Mutation {
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    BlankLine(usize),
    ReplaceField(usize, usize, String),
    Truncate(usize),
    InsertChar(usize, char),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::DeleteLine),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        any::<usize>().prop_map(Mutation::BlankLine),
        (any::<usize>(), 0usize..6, number()).prop_map(|(l, f, v)| Mutation::ReplaceField(l, f, v)),
        any::<usize>().prop_map(Mutation::Truncate),
        (
            any::<usize>(),
            prop::sample::select(vec![',', '\n', '#', ' ', '\r', '\0', 'é', '1'])
        )
            .prop_map(|(at, c)| Mutation::InsertChar(at, c)),
    ]
}

fn mutate(text: &str, muts: &[Mutation]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut tail = String::new();
    for m in muts {
        let n = lines.len().max(1);
        match m {
            Mutation::DeleteLine(i) if !lines.is_empty() => {
                lines.remove(i % n);
            }
            Mutation::DuplicateLine(i) if !lines.is_empty() => {
                let l = lines[i % n].clone();
                lines.insert(i % n, l);
            }
            Mutation::SwapLines(a, b) if !lines.is_empty() => lines.swap(a % n, b % n),
            Mutation::BlankLine(i) => lines.insert(i % (lines.len() + 1), String::new()),
            Mutation::ReplaceField(i, f, v) if !lines.is_empty() => {
                let mut fields: Vec<String> = lines[i % n].split(',').map(str::to_string).collect();
                let k = f % fields.len();
                fields[k] = format!(" {v}");
                lines[i % n] = fields.join(",");
            }
            Mutation::Truncate(at) => {
                let s = lines.join("\n");
                let mut cut = at % (s.len() + 1);
                while !s.is_char_boundary(cut) {
                    cut -= 1;
                }
                lines = s[..cut].lines().map(str::to_string).collect();
                tail.clear();
            }
            Mutation::InsertChar(at, c) => {
                let mut s = lines.join("\n");
                let mut at = at % (s.len() + 1);
                while !s.is_char_boundary(at) {
                    at -= 1;
                }
                s.insert(at, *c);
                lines = s.lines().map(str::to_string).collect();
            }
            _ => {}
        }
    }
    let mut s = lines.join("\n");
    s.push('\n');
    s.push_str(&tail);
    s
}

/// Parses `text`; on success, builds the workload's regions, rate profile
/// and stream as `presets::load` does and draws some accesses.
fn check_masim(text: &str, rate: f64, base: u64) -> Result<(), TestCaseError> {
    let file = "fuzz.cfg";
    let cfg = match masim::parse(text, file) {
        Ok(c) => c,
        Err(e) => return check_error(&e, file, Some(lines_of(text))),
    };
    prop_assert!(!cfg.regions.is_empty() && !cfg.phases.is_empty());
    let regions = lay_out_at(&cfg.regions, false, base);
    for (r, (_, size)) in regions.iter().zip(&cfg.regions) {
        prop_assert!(r.len >= *size && r.len > 0);
    }
    let profile = masim::rate_profile(&cfg, &regions, rate, masim::DEFAULT_BURST);
    prop_assert!(
        profile.validate(&regions).is_ok(),
        "{:?}",
        profile.validate(&regions)
    );
    let stream = masim::MasimStream::new(cfg, &regions, rate, masim::DEFAULT_BURST, 3);
    let (total, marks) = stream.plan();
    prop_assert_eq!(total, profile.total_accesses());
    prop_assert_eq!(marks, profile.marks());
    let mut stream = Stream::Masim(stream);
    drain(&mut stream, &regions, 2048, file)?;
    Ok(())
}

fn rate() -> impl Strategy<Value = f64> {
    prop::sample::select(vec![1.0, 1e3, 1e7, 1e12, 1e300, f64::MIN_POSITIVE])
}

fn base_va() -> impl Strategy<Value = u64> {
    prop::sample::select(vec![1u64 << 30, 2 << 20, (1u64 << 47) - (2 << 20)])
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn masim_arbitrary_text(text in "\\PC{0,200}", r in rate()) {
        check_masim(&text, r, 1 << 30)?;
    }

    #[test]
    fn masim_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check_masim(&String::from_utf8_lossy(&bytes), 1e7, 1 << 30)?;
    }

    #[test]
    fn masim_grammar_fuzz(text in masim_grammar(), r in rate(), base in base_va()) {
        check_masim(&text, r, base)?;
    }

    #[test]
    fn masim_mutated_examples(
        which in 0..MASIM_EXAMPLES.len(),
        muts in prop::collection::vec(mutation(), 1..5),
        r in rate(),
        base in base_va(),
    ) {
        check_masim(&mutate(MASIM_EXAMPLES[which], &muts), r, base)?;
    }
}

#[test]
fn masim_examples_parse() {
    // `default` has a 4096-byte stride over a 64-byte region; MASIM accepts it.
    for (i, text) in MASIM_EXAMPLES.iter().enumerate() {
        masim::parse(text, "example.cfg").unwrap_or_else(|e| panic!("example {i}: {e}"));
    }
}

/// Every real masim config (sjp38/masim's configs/, unchanged, copied to
/// tests/masim-configs) parses and runs: regions, rate profile and stream
/// agree.
#[test]
fn shared_masim_configs_parse_and_run() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/masim-configs");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let cfg = masim::parse(&text, &name).unwrap_or_else(|e| panic!("{e}"));
        assert!(!cfg.phases.is_empty(), "{name}");
        check_masim(&text, 1e7, 1 << 30).unwrap_or_else(|e| panic!("{name}: {e}"));
        seen += 1;
    }
    // 100mb.cfg, 2mb.cfg, default, demo.cfg, stairs.cfg.
    assert!(seen >= 5, "only {seen} configs in {}", dir.display());
}

#[test]
fn nonsensical_masim_configs_are_errors() {
    let cases = [
        // Zero-length region.
        ("a, 0\n\np\n10\na, 1, 64, 1\n", 1),
        // Every probability 0.
        ("a, 4096\n\np\n10\na, 1, 64, 0\n", 5),
        // Sizes that overflow u64 arithmetic when laid out.
        ("a, 18446744073709551615\n\np\n10\na, 1, 64, 1\n", 1),
        (
            "a, 70368744177664\nb, 70368744177664\n\np\n10\na, 1, 64, 1\n",
            2,
        ),
        // Larger than the 47-bit address space.
        ("a, 140737488355328\n\np\n10\na, 1, 64, 1\n", 1),
        // A probability beyond masim's C int.
        (
            "a, 4096\n\np\n10\na, 1, 64, 18446744073709551615\na, 0, 64, 1\n",
            5,
        ),
        // Probabilities whose sum overflows masim's int total.
        ("a, 4096\n\np\n10\na, 1, 64, 2147483647\na, 0, 64, 1\n", 6),
        // A negative probability (undefined in masim).
        ("a, 4096\n\np\n10\na, 1, 64, -1\n", 5),
        // A mode masim exits on ("wrong rw mode").
        ("a, 4096\n\np\n10\na, 1, 64, 1, xo\n", 5),
        // A stride atoi would read as 0: a typo, not a pattern.
        ("a, 4096\n\np\n10\na, 0, 4k, 1\n", 5),
    ];
    for (text, line) in cases {
        let e = masim::parse(text, "n.cfg").expect_err(text).to_string();
        assert!(e.starts_with(&format!("n.cfg:{line}: ")), "{text:?}: {e}");
    }
}

// ----------------------------------------------------------------- lackey

fn lackey_line() -> impl Strategy<Value = String> {
    let addr = prop_oneof![
        any::<u64>().prop_map(|a| format!("{a:x}")),
        (0u64..1 << 40).prop_map(|a| format!("{a:08x}")),
        prop::sample::select(vec!["", "zz", "-1", "0x10", "1ffffffffffffffffff", " "])
            .prop_map(str::to_string),
    ];
    let size = prop::sample::select(vec!["8", "4", "", "x", "8,9", "-1"]);
    let kind = prop::sample::select(vec![
        "I  ", " L ", " S ", " M ", "L", " X ", "é ", "日 ", "", "  ",
    ]);
    prop_oneof![
        6 => (kind, addr, size).prop_map(|(k, a, s)| format!("{k}{a},{s}")),
        1 => Just("==123== Lackey, an example Valgrind tool".to_string()),
        1 => Just("--123-- warning".to_string()),
        1 => "\\PC{0,20}",
    ]
}

fn check_lackey(text: &str) -> Result<(), TestCaseError> {
    let file = "fuzz.lackey";
    match lackey::parse(text, file) {
        Ok(acc) => {
            prop_assert!(!acc.is_empty());
            prop_assert!(acc
                .iter()
                .all(|a| a.va < 1 << 57 && a.asid == 0 && a.core == 0));
            let regions = trace::regions_of(&acc);
            prop_assert!(acc.iter().all(|a| inside(&regions, a)));
        }
        Err(e) => check_error(&e, file, Some(lines_of(text)))?,
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn lackey_arbitrary_text(text in "\\PC{0,200}") {
        check_lackey(&text)?;
    }

    #[test]
    fn lackey_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check_lackey(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn lackey_grammar_fuzz(lines in prop::collection::vec(lackey_line(), 0..12)) {
        check_lackey(&lines.join("\n"))?;
    }
}

#[test]
fn lackey_multibyte_kind_is_an_error() {
    let e = lackey::parse("é 0400,3\n", "m.lk").unwrap_err().to_string();
    assert!(e.starts_with("m.lk:1: "), "{e}");
}

// ------------------------------------------------------------------ trace

/// A valid trace: a few regions and records inside them.
fn valid_trace(path: &str, nregions: usize, records: usize, threads: u16) {
    let sizes: Vec<(String, u64)> = (0..nregions)
        .map(|i| (format!("r{i}"), 4096 * (i as u64 + 1)))
        .collect();
    let regions = lay_out_at(&sizes, false, 1 << 30);
    let acc: Vec<Access> = (0..records)
        .map(|i| {
            let r = &regions[i % regions.len()];
            Access {
                va: r.start + (i as u64 * 72) % r.len,
                asid: 0,
                core: (i % usize::from(threads)) as u16,
                write: i % 3 == 0,
            }
        })
        .collect();
    trace::write(path, &regions, &acc).unwrap();
}

/// Opens the file as a trace, directly and as `trace:PATH`, and replays it.
fn check_trace(path: &str) -> Result<(), TestCaseError> {
    match trace::TraceReader::open(path) {
        Ok((reader, regions)) => {
            prop_assert!(!regions.is_empty());
            prop_assert!((1..=64).contains(&reader.threads()));
            let records = reader.records();
            let mut s = Stream::Trace(reader);
            let got = drain(&mut s, &regions, usize::MAX, path)?;
            prop_assert!(got as u64 <= records);
        }
        Err(e) => check_error(&e, path, None)?,
    }
    match presets::load(&format!("trace:{path}"), &options(None, None)) {
        Ok(mut w) => {
            let regions = w.regions.clone();
            drain(&mut w.stream, &regions, usize::MAX, path)?;
        }
        Err(e) => check_error(&e, path, None)?,
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn trace_random_bytes(mut bytes in prop::collection::vec(any::<u8>(), 0..256), magic in any::<bool>()) {
        if magic && bytes.len() >= 8 {
            bytes[..8].copy_from_slice(b"TCTRACE1");
        }
        let path = temp_path("trace-random");
        std::fs::write(&path, &bytes).unwrap();
        let r = check_trace(path.to_str().unwrap());
        let _ = std::fs::remove_file(&path);
        r?;
    }

    #[test]
    fn trace_mutated(
        nregions in 1usize..4,
        records in 0usize..40,
        threads in 1u16..4,
        flips in prop::collection::vec((any::<usize>(), any::<u8>()), 0..4),
        cut in prop::option::of(any::<usize>()),
    ) {
        let path = temp_path("trace-mutated");
        let p = path.to_str().unwrap().to_string();
        valid_trace(&p, nregions, records, threads);
        let mut bytes = std::fs::read(&path).unwrap();
        for (at, v) in flips {
            let i = at % bytes.len();
            bytes[i] ^= v;
        }
        if let Some(c) = cut {
            bytes.truncate(c % (bytes.len() + 1));
        }
        std::fs::write(&path, &bytes).unwrap();
        let r = check_trace(&p);
        let _ = std::fs::remove_file(&path);
        r?;
    }
}

#[test]
fn trace_records_outside_the_regions_are_errors() {
    let path = temp_path("trace-outside");
    let p = path.to_str().unwrap().to_string();
    let regions = lay_out_at(&[("a".to_string(), 4096)], false, 1 << 30);
    let acc = [
        Access {
            va: regions[0].start,
            ..Access::default()
        },
        Access {
            va: regions[0].start + (1 << 30),
            ..Access::default()
        },
    ];
    trace::write(&p, &regions, &acc).unwrap();
    let (reader, _) = trace::TraceReader::open(&p).unwrap();
    let mut s = Stream::Trace(reader);
    let mut buf = [Access::default(); 4];
    let e = s.fill(&mut buf).unwrap_err().to_string();
    let _ = std::fs::remove_file(&path);
    assert!(
        e.starts_with(&format!("{p}: ")) && e.contains("record 1"),
        "{e}"
    );
}

// ---------------------------------------------------------------- presets

fn spec() -> impl Strategy<Value = String> {
    let mode = prop::sample::select(vec!["ro", "wo", "rw", "", "RO"]);
    let order = prop::sample::select(vec!["write-first", "read-first", "", "x"]);
    let count = prop_oneof![
        number(),
        prop::sample::select(vec![
            "1", "32", "1024", "1025", "0.5", "1e-300", "64", "64.0001", "nan", "-inf"
        ])
        .prop_map(str::to_string),
    ];
    prop_oneof![
        (mode, count.clone()).prop_map(|(m, t)| format!("ambix-iwb:{m}:{t}")),
        (count.clone(), order).prop_map(|(s, o)| format!("ambix-pb:{s}:{o}")),
        "(ambix-iwb|ambix-pb|npb-bt|npb-xx|npb|lackey|trace)(:[a-z0-9.\\-]{0,8}){0,4}",
        "[a-z0-9:.\\-]{0,24}",
        "\\PC{0,24}",
    ]
}

fn check_spec(spec: &str, o: &WorkloadOptions) -> Result<(), TestCaseError> {
    match presets::load(spec, o) {
        Ok(mut w) => {
            prop_assert!(w.threads >= 1);
            prop_assert!(!w.regions.is_empty());
            let regions = w.regions.clone();
            drain(&mut w.stream, &regions, 512, spec)?;
        }
        Err(e) => {
            let s = e.to_string();
            prop_assert!(!s.contains('\n'), "{s:?}");
            // Names the workload, or the file its path names.
            let path = spec.split_once(':').map_or(spec, |p| p.1);
            prop_assert!(
                s.contains(&format!("{spec:?}")) || s.starts_with(path) || s.starts_with(spec),
                "{s:?} does not name {spec:?}"
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn preset_specs(spec in spec()) {
        check_spec(&spec, &options(None, None))?;
    }

    #[test]
    fn preset_options(
        rate in prop::option::of(prop::sample::select(vec![
            0.0, -1.0, f64::NAN, f64::INFINITY, 1e-300, 1.0, 1e7, 1e300,
        ])),
        base in prop::option::of(prop::sample::select(vec![
            0u64, 1, 2 << 20, 1 << 30, (1 << 47) - (2 << 20), 1 << 47, u64::MAX,
        ])),
        which in prop::sample::select(vec!["multiphase", "uniform-1g", "ambix-iwb:ro:2", "telescope-needle"]),
    ) {
        match presets::load(which, &options(rate, base)) {
            Ok(mut w) => {
                let regions = w.regions.clone();
                prop_assert!(regions.iter().all(|r| r.end() <= 1 << 47), "{regions:?}");
                drain(&mut w.stream, &regions, 512, which)?;
            }
            Err(e) => prop_assert!(!e.to_string().contains('\n')),
        }
    }
}

#[test]
fn every_preset_loads_and_generates() {
    for p in presets::PRESETS {
        let mut w = presets::load(p.name, &options(None, None)).unwrap();
        let regions = w.regions.clone();
        let mut buf = [Access::default(); 256];
        let n = w.stream.fill(&mut buf).unwrap();
        assert!(n > 0, "{}", p.name);
        assert!(buf[..n].iter().all(|a| inside(&regions, a)), "{}", p.name);
    }
}

#[test]
fn masim_file_through_presets() {
    let path = temp_path("masim-file");
    let p = path.to_str().unwrap().to_string();
    std::fs::write(&path, "a, 4096\n\np\n10\na, 1, 64, 1\n").unwrap();
    assert!(presets::load(&p, &options(None, None)).is_ok());
    std::fs::write(&path, "a, 4096\n\np\nten\na, 1, 64, 1\n").unwrap();
    let e = presets::load(&p, &options(None, None))
        .err()
        .unwrap()
        .to_string();
    // A MASIM footprint that fits, at a base too high for it: an error.
    std::fs::write(&path, "a, 70368744177664\n\np\n10\na, 1, 64, 1\n").unwrap();
    let high = presets::load(&p, &options(None, Some((1 << 47) - (2 << 20))));
    let _ = std::fs::remove_file(&path);
    assert!(e.starts_with(&format!("{p}:4: ")), "{e}");
    let e = high.err().expect("above 2^47").to_string();
    assert!(
        !e.contains('\n') && e.contains(&p) && e.contains("47-bit"),
        "{e}"
    );
}
