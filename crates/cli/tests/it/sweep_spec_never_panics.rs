//! `thermocline sweep SPEC`'s parser and check, fuzzed: any text is either
//! a spec or one line naming the spec's file (and the line, where the text
//! has one), never a panic; an accepted spec's check, over small
//! workloads, is the same.

use thermocline_sweep::SweepSpec;

const FILE: &str = "fuzz.toml";

/// Cases per generator: bounded, so the test run stays short. (A
/// generator of our own, seeded: proptest would add a dependency to the
/// lock file, which keys the cached runs.)
const CASES: usize = 256;

/// xorshift64: the same cases every run.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

/// One line, naming the file: `fuzz.toml:LINE: ` with LINE within the
/// text, or `fuzz.toml: `.
fn check_error(s: &str, text: &str) {
    assert!(!s.contains('\n'), "error spans lines: {s:?}\nfor {text:?}");
    let rest = s.strip_prefix(FILE).unwrap_or_default();
    assert!(
        rest.starts_with(':'),
        "{s:?} does not name {FILE}\nfor {text:?}"
    );
    if let Some(line) = rest[1..]
        .split(':')
        .next()
        .and_then(|l| l.parse::<usize>().ok())
    {
        assert!(
            line >= 1 && line <= text.lines().count().max(1),
            "line {line}: {s:?}\nfor {text:?}"
        );
    }
}

fn parse(text: &str, then_check: bool) {
    match SweepSpec::parse(FILE, text) {
        Ok(spec) if then_check => {
            if let Err(e) = spec.check(Some((FILE, text))) {
                check_error(&e.to_string(), text);
            }
        }
        Ok(_) => {}
        Err(e) => check_error(&e.to_string(), text),
    }
}

/// TOML values, right or wrong for the keys below.
const VALUES: &[&str] = &[
    "\"multiphase\"",
    "\"zipf-1g\"",
    "\"no-such-thing\"",
    "\"first-touch\"",
    "\"random\"",
    "\"50%\"",
    "\"lots\"",
    "0.3",
    "2.0",
    "-1",
    "0.05",
    "true",
    "[]",
    "{}",
];
const KEYS: &[&str] = &[
    "workload",
    "manager",
    "run.workload",
    "run.manager",
    "run.duration_s",
    "fast_capacity",
    "\"random.fast_probability\"",
    "bogus",
];
/// Characters a spec is made of, and some it is not.
const CHARS: &[&str] = &[
    "[",
    "]",
    "[[",
    "]]",
    "=",
    "\"",
    "'",
    ",",
    "\n",
    " ",
    "#",
    "{",
    "}",
    ".",
    "-",
    "0",
    "1",
    "9",
    "e",
    "x",
    "name",
    "seeds",
    "grid",
    "runs",
    "set",
    "memory_gib",
    "é",
    "\u{0}",
    "\t",
];

/// A spec as people write one, right or wrong; every run capped at a
/// twentieth of a second so that a check that sets up is cheap.
fn spec(g: &mut Gen) -> String {
    let mut t = String::new();
    if g.below(2) == 0 {
        t += &format!("name = {}\n", g.pick(&["\"s\"", "3"]));
    }
    if g.below(2) == 0 {
        t += &format!("seeds = {}\n", g.pick(&["[1, 2]", "[]", "[-1]", "\"x\""]));
    }
    if g.below(4) == 0 {
        t += &format!("memory_gib = {}\n", g.pick(&["0.5", "-2", "\"big\""]));
    }
    t += "[set]\n\"run.duration_s\" = 0.05\n";
    let keys = g.below(3);
    if keys > 0 {
        t += "[grid]\n";
        for _ in 0..keys {
            let values: Vec<&str> = (0..g.below(3)).map(|_| g.pick(VALUES)).collect();
            t += &format!("{} = [{}]\n", g.pick(KEYS), values.join(", "));
        }
    }
    for _ in 0..g.below(3) {
        t += "[[runs]]\n";
        for _ in 0..g.below(3) {
            t += &format!("{} = {}\n", g.pick(KEYS), g.pick(VALUES));
        }
    }
    t
}

#[test]
fn arbitrary_text_is_a_spec_or_one_located_line() {
    let mut g = Gen(0x5eed_0001);
    for _ in 0..CASES {
        let text: String = (0..g.below(40)).map(|_| g.pick(CHARS)).collect();
        parse(&text, false);
    }
}

#[test]
fn arbitrary_bytes_are_a_spec_or_one_located_line() {
    let mut g = Gen(0x5eed_0002);
    for _ in 0..CASES {
        let bytes: Vec<u8> = (0..g.below(200)).map(|_| g.next() as u8).collect();
        parse(&String::from_utf8_lossy(&bytes), false);
    }
}

#[test]
fn specs_as_people_write_them_check_or_fail_at_a_line() {
    let mut g = Gen(0x5eed_0003);
    let mut accepted = 0;
    for _ in 0..CASES {
        let text = spec(&mut g);
        accepted += usize::from(SweepSpec::parse(FILE, &text).is_ok());
        parse(&text, true);
    }
    // the generator must reach the check, not only the parser
    assert!(accepted >= CASES / 8, "{accepted} of {CASES} parsed");
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
