//! Telescope's workloads (paper 002_98026fdc393d1867.txt): the MASIM
//! microbenchmarks of section 6.2 here, the key-value models of section 6.3
//! in [`kv`]. The microbenchmarks are written as MASIM configs, so that they run unchanged through
//! the MASIM reader on either backend and can be saved and edited.
//!
//! Inferred where the paper is silent: "GB" is read as GiB; the hot regions'
//! places in the heap (spread over it, so that no two share a 512 GiB PGD
//! entry); random 64-byte loads (`ro`, stride 64); the durations of the
//! sub-terabyte and needle runs (60 s and 120 s; the paper's figures show
//! tens of seconds to minutes).

pub mod kv;

const GIB: u64 = 1 << 30;
const TIB: u64 = 1 << 40;

fn regions(list: &[(&str, u64)]) -> String {
    list.iter()
        .map(|(n, b)| format!("{n}, {b}\n"))
        .collect::<String>()
}

fn phase(name: &str, seconds: u64, hot: &[&str]) -> String {
    let mut s = format!("\n{name}\n{}\n", seconds * 1000);
    for h in hot {
        s.push_str(&format!("{h}, 1, 64, 1, ro\n"));
    }
    s
}

/// Section 6.2.1: a 5 TiB heap; random loads in one 10 GiB region, then in
/// another, then in two more; 80 s per phase.
pub fn multiphase() -> String {
    let hot = 10 * GIB;
    let cold = [512 * GIB, TIB, TIB, TIB];
    let last = 5 * TIB - 4 * hot - cold.iter().sum::<u64>();
    let mut s =
        String::from("# Telescope multi-phase microbenchmark (section 6.2.1), 5 TiB heap\n");
    s += &regions(&[
        ("cold0", cold[0]),
        ("hot1", hot),
        ("cold1", cold[1]),
        ("hot2", hot),
        ("cold2", cold[2]),
        ("hot3a", hot),
        ("cold3", cold[3]),
        ("hot3b", hot),
        ("cold4", last),
    ]);
    s += &phase("phase 1", 80, &["hot1"]);
    s += &phase("phase 2", 80, &["hot2"]);
    s += &phase("phase 3", 80, &["hot3a", "hot3b"]);
    s
}

/// Section 6.2.2: a heap of `gib` GiB with random loads in a 10% hot region
/// in its middle, 60 s.
pub fn subtb(gib: u64) -> String {
    let heap = gib * GIB;
    let hot = heap / 10 / 4096 * 4096;
    let before = (heap - hot) / 2 / 4096 * 4096;
    let mut s =
        format!("# Telescope sub-terabyte microbenchmark (section 6.2.2), {gib} GiB heap\n");
    s += &regions(&[
        ("cold0", before),
        ("hot", hot),
        ("cold1", heap - hot - before),
    ]);
    s += &phase("run", 60, &["hot"]);
    s
}

/// Section 6.2.3: a 50 MiB hot region in the middle of a 5 TiB heap, 120 s.
pub fn needle() -> String {
    let hot = 50 << 20;
    let before = 5 * TIB / 2;
    let mut s = String::from(
        "# Telescope needle-in-a-haystack microbenchmark (section 6.2.3), 5 TiB heap\n",
    );
    s += &regions(&[
        ("cold0", before),
        ("needle", hot),
        ("cold1", 5 * TIB - hot - before),
    ]);
    s += &phase("run", 120, &["needle"]);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::masim::parse;

    #[test]
    fn configs_parse_with_the_stated_sizes() {
        let m = parse(&multiphase(), "multiphase").unwrap();
        assert_eq!(m.regions.iter().map(|r| r.1).sum::<u64>(), 5 * TIB);
        assert_eq!(m.phases.len(), 3);
        assert_eq!(m.phases[2].patterns.len(), 2);
        for g in [1, 10, 100] {
            let c = parse(&subtb(g), "subtb").unwrap();
            assert_eq!(c.regions.iter().map(|r| r.1).sum::<u64>(), g * GIB);
        }
        let n = parse(&needle(), "needle").unwrap();
        assert_eq!(n.regions[1].1, 50 << 20);
    }
}
