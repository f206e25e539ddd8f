//! The monitor's text: a header, one row per bin with its pages per node,
//! swapped, the changes since the last read and a heat bar. The same text
//! redraws a terminal in place or goes out as plain lines; it depends on
//! the view only, so it is tested as golden text.

use super::View;
use std::fmt::Write;

/// How heat bars are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bars {
    /// Block characters in eighths (terminals).
    Blocks,
    /// `#` characters (plain lines, logs, grep).
    Ascii,
}

/// Width of a heat bar, in characters.
pub const BAR: usize = 20;

/// A heat bar of `h` in 0..=1.
pub fn bar(h: f64, bars: Bars) -> String {
    let h = if h.is_finite() {
        h.clamp(0.0, 1.0)
    } else {
        0.0
    };
    match bars {
        Bars::Ascii => {
            let n = (h * BAR as f64).round() as usize;
            format!("{}{}", "#".repeat(n), ".".repeat(BAR - n))
        }
        Bars::Blocks => {
            const PART: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
            let eighths = (h * (BAR * 8) as f64).round() as usize;
            let (full, part) = (eighths / 8, eighths % 8);
            let mut s = "█".repeat(full);
            s.push_str(PART[part]);
            let drawn = full + usize::from(part > 0);
            s.push_str(&" ".repeat(BAR - drawn));
            s
        }
    }
}

/// A size in B, KiB, MiB or GiB.
pub fn size(bytes: u64) -> String {
    let b = bytes as f64;
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KiB", b / 1024.0),
        1_048_576..1_073_741_824 => format!("{:.1} MiB", b / 1_048_576.0),
        _ => format!("{:.1} GiB", b / 1_073_741_824.0),
    }
}

fn count(v: Option<u64>) -> String {
    v.map_or("-".into(), |n| n.to_string())
}

/// The view as text; at most `rows` bins (the rest summed up in a line).
pub fn text(v: &View, bars: Bars, rows: Option<usize>) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "pid {} ({}) at {:.1} s, {:.1} s interval; heat: {}",
        v.pid,
        v.comm,
        v.t_s,
        v.interval_s,
        v.heat_source.as_deref().unwrap_or("none")
    );
    match &v.rates {
        Some(r) => {
            let pct = |x: Option<f64>| x.map_or("-".into(), |x| format!("{:.1}%", x * 100.0));
            let _ = writeln!(
                s,
                "faults: {:.0}/s minor, {:.0}/s major; memory pressure (host): some {}, full {}",
                r.minor_faults_per_s,
                r.major_faults_per_s,
                pct(r.pressure_some),
                pct(r.pressure_full)
            );
        }
        None => {
            let _ = writeln!(s, "faults: - (first read)");
        }
    }
    let tiers: Vec<String> = v
        .nodes
        .iter()
        .map(|n| match &n.tier {
            Some(t) => format!("node{} {t}", n.id),
            None => format!("node{}", n.id),
        })
        .collect();
    let _ = writeln!(s, "nodes: {}", tiers.join(", "));
    let mut head = format!("{:<33} {:>10}", "range", "size");
    for n in &v.nodes {
        let _ = write!(head, " {:>8}", format!("node{}", n.id));
    }
    let _ = write!(
        head,
        " {:>8} {:>6} {:>6} {:>6}  {:<BAR$} heat",
        "swap", "in", "out", "moved", "",
    );
    let _ = writeln!(s, "{}", head.trim_end());
    let shown = rows.unwrap_or(usize::MAX).min(v.bins.len());
    for b in &v.bins[..shown] {
        let mut line = format!(
            "{:<33} {:>10}",
            format!("{:#x}-{:#x}", b.start, b.end),
            size(b.end - b.start)
        );
        for n in &b.per_node {
            let _ = write!(line, " {n:>8}");
        }
        let _ = write!(
            line,
            " {:>8} {:>6} {:>6} {:>6}  ",
            b.swapped,
            count(b.came_in),
            count(b.went_out),
            count(b.moved)
        );
        match b.heat {
            Some(h) => {
                let _ = write!(line, "{} {h:.2}", bar(h, bars));
            }
            None => line.push_str(&format!("{:<BAR$} -", "")),
        }
        let _ = writeln!(s, "{line}");
    }
    if shown < v.bins.len() {
        let _ = writeln!(
            s,
            "... {} more bins (a taller terminal, a wider --bin, or --json shows them)",
            v.bins.len() - shown
        );
    }
    for n in &v.notes {
        let _ = writeln!(s, "note: {n}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::super::{Bin, NodeColumn, Rates};
    use super::*;

    fn view() -> View {
        let bin = |start: u64, end: u64, per_node: Vec<u64>, heat: Option<f64>| Bin {
            start,
            end,
            mapping: "anon".into(),
            per_node,
            swapped: 3,
            came_in: Some(1),
            went_out: Some(0),
            moved: Some(2),
            signals: heat.map(|h| vec![("writes".into(), h)]).unwrap_or_default(),
            heat,
        };
        View {
            pid: 156,
            comm: "masim".into(),
            t_s: 12.0,
            interval_s: 1.0,
            nodes: vec![
                NodeColumn {
                    id: 0,
                    tier: Some("memory_tier4".into()),
                },
                NodeColumn { id: 1, tier: None },
            ],
            heat_source: Some("writes (share of pages written)".into()),
            rates: Some(Rates {
                minor_faults_per_s: 120.4,
                major_faults_per_s: 3.0,
                pressure_some: Some(0.015),
                pressure_full: None,
            }),
            bins: vec![
                bin(0x7f0000000000, 0x7f0000200000, vec![512, 0], Some(1.0)),
                bin(0x7f0000200000, 0x7f0001200000, vec![100, 3993], Some(0.0)),
                bin(0x7f0001200000, 0x7f0001210000, vec![16, 0], Some(0.53)),
                bin(0x7f0001210000, 0x7f0001211000, vec![1, 0], None),
            ],
            notes: vec!["damon: DAMON is in use by someone else".into()],
        }
    }

    #[test]
    fn bars_fill_by_eighths_and_in_ascii() {
        assert_eq!(bar(0.0, Bars::Blocks), " ".repeat(20));
        assert_eq!(bar(1.0, Bars::Blocks), "█".repeat(20));
        assert_eq!(
            bar(0.5 + 1.0 / 160.0, Bars::Blocks),
            format!("{}▏{}", "█".repeat(10), " ".repeat(9))
        );
        assert_eq!(bar(0.25, Bars::Ascii), "#####...............");
        assert_eq!(bar(f64::NAN, Bars::Ascii), ".".repeat(20));
        assert_eq!(bar(7.0, Bars::Ascii), "#".repeat(20));
    }

    #[test]
    fn the_view_renders_as_golden_text() {
        let want = "\
pid 156 (masim) at 12.0 s, 1.0 s interval; heat: writes (share of pages written)
faults: 120/s minor, 3/s major; memory pressure (host): some 1.5%, full -
nodes: node0 memory_tier4, node1
range                                   size    node0    node1     swap     in    out  moved                       heat
0x7f0000000000-0x7f0000200000        2.0 MiB      512        0        3      1      0      2  #################### 1.00
0x7f0000200000-0x7f0001200000       16.0 MiB      100     3993        3      1      0      2  .................... 0.00
0x7f0001200000-0x7f0001210000       64.0 KiB       16        0        3      1      0      2  ###########......... 0.53
... 1 more bins (a taller terminal, a wider --bin, or --json shows them)
note: damon: DAMON is in use by someone else
";
        let got = text(&view(), Bars::Ascii, Some(3));
        assert_eq!(got, want, "\n{got}");
        let all = text(&view(), Bars::Blocks, None);
        assert!(all.contains("0x7f0001210000-0x7f0001211000        4.0 KiB        1        0        3      1      0      2                       -\n"), "\n{all}");
        assert!(
            all.contains(&format!("  {} 1.00\n", "█".repeat(20))),
            "\n{all}"
        );
    }

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(size(512), "512 B");
        assert_eq!(size(4096), "4.0 KiB");
        assert_eq!(size(3 << 30), "3.0 GiB");
    }
}
