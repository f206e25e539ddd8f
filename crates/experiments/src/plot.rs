//! SVG line charts for reproductions: axes with ticks, one polyline per
//! series, an optional horizontal target line, and a legend. Plain text
//! output, so the same data gives byte-identical files.

use std::fmt::Write;

/// One named series of (x, y) points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Points in x order.
    pub points: Vec<(f64, f64)>,
}

/// A line chart.
#[derive(Clone, Debug, PartialEq)]
pub struct LineChart {
    /// Title above the plot.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// The series.
    pub series: Vec<Series>,
    /// A dashed horizontal line (a target), with its label.
    pub target: Option<(f64, String)>,
}

const W: f64 = 760.0;
const H: f64 = 440.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 200.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
const COLOURS: [&str; 10] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];

/// A "nice" tick step for a span: 1, 2 or 5 times a power of ten.
fn tick_step(span: f64) -> f64 {
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let n = raw / mag;
    mag * if n < 1.5 {
        1.0
    } else if n < 3.5 {
        2.0
    } else if n < 7.5 {
        5.0
    } else {
        10.0
    }
}

fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.3}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.3}M", v / 1e6)
    } else if a >= 1e3 {
        format!("{:.3}K", v / 1e3)
    } else {
        format!("{v:.3}")
    }
    .replace(".000", "")
}

/// An SVG document's opening: the root element, a white background and the
/// title centred at `(x, y)` in `size`-point type.
fn svg_open(w: f64, h: f64, (x, y, size): (f64, f64, u32), title: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{x}" y="{y}" text-anchor="middle" font-size="{size}">{}</text>"#,
        escape(title)
    );
    s
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

impl LineChart {
    /// The chart as an SVG document.
    pub fn to_svg(&self) -> String {
        let pts = self.series.iter().flat_map(|s| s.points.iter());
        let (mut x0, mut x1, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, 0f64);
        for &(x, y) in pts {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y1 = y1.max(y);
        }
        if let Some((t, _)) = &self.target {
            y1 = y1.max(*t * 1.1);
        }
        if !x0.is_finite() || x1 <= x0 {
            (x0, x1) = (0.0, 1.0);
        }
        if y1 <= 0.0 {
            y1 = 1.0;
        }
        let pw = W - LEFT - RIGHT;
        let ph = H - TOP - BOTTOM;
        let sx = |x: f64| LEFT + (x - x0) / (x1 - x0) * pw;
        let sy = |y: f64| TOP + ph - y / y1 * ph;
        let mut s = svg_open(W, H, (LEFT + pw / 2.0, 22.0, 15), &self.title);
        let _ = writeln!(
            s,
            r#"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#
        );
        let step = tick_step(x1 - x0);
        let mut t = (x0 / step).ceil() * step;
        while t <= x1 + 1e-9 {
            let x = sx(t);
            let _ = writeln!(
                s,
                r#"<line x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{}" stroke="black"/><text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"#,
                TOP + ph,
                TOP + ph + 5.0,
                TOP + ph + 18.0,
                fmt_num(t)
            );
            t += step;
        }
        let step = tick_step(y1);
        let mut t = 0.0;
        while t <= y1 + 1e-9 {
            let y = sy(t);
            let _ = writeln!(
                s,
                r##"<line x1="{}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
                LEFT,
                LEFT + pw,
                LEFT - 6.0,
                y + 4.0,
                fmt_num(t)
            );
            t += step;
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            LEFT + pw / 2.0,
            H - 15.0,
            escape(&self.x_label)
        );
        let _ = writeln!(
            s,
            r#"<text transform="translate(18 {}) rotate(-90)" text-anchor="middle">{}</text>"#,
            TOP + ph / 2.0,
            escape(&self.y_label)
        );
        if let Some((v, label)) = &self.target {
            let y = sy(*v);
            let _ = writeln!(
                s,
                r#"<line x1="{LEFT}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="black" stroke-dasharray="6 4"/><text x="{}" y="{:.1}">{}</text>"#,
                LEFT + pw,
                LEFT + pw + 6.0,
                y + 4.0,
                escape(label)
            );
        }
        for (i, ser) in self.series.iter().enumerate() {
            let c = COLOURS[i % COLOURS.len()];
            let mut path = String::new();
            for &(x, y) in &ser.points {
                let _ = write!(path, "{:.1},{:.1} ", sx(x), sy(y));
            }
            let _ = writeln!(
                s,
                r#"<polyline fill="none" stroke="{c}" stroke-width="1.5" points="{}"/>"#,
                path.trim_end()
            );
            let ly = TOP + 20.0 + 18.0 * i as f64;
            let _ = writeln!(
                s,
                r#"<line x1="{}" y1="{ly}" x2="{}" y2="{ly}" stroke="{c}" stroke-width="3"/><text x="{}" y="{}">{}</text>"#,
                LEFT + pw + 10.0,
                LEFT + pw + 30.0,
                LEFT + pw + 36.0,
                ly + 4.0,
                escape(&ser.name)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_svg_names_every_series() {
        assert_eq!(tick_step(600.0), 100.0);
        assert_eq!(tick_step(30_000.0), 5_000.0);
        assert_eq!(fmt_num(30_000.0), "30K");
        let c = LineChart {
            title: "a < b".into(),
            x_label: "time (s)".into(),
            y_label: "rate".into(),
            series: vec![Series {
                name: "redis".into(),
                points: vec![(0.0, 1.0), (10.0, 2.0)],
            }],
            target: Some((3.0, "target".into())),
        };
        let svg = c.to_svg();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert!(
            svg.contains("a &lt; b") && svg.contains(">redis<") && svg.contains("stroke-dasharray")
        );
    }
}

/// A table of numbers drawn as coloured cells (a heat map), with the best
/// cell of each column outlined, as Ambix's Figures 2-3 are drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct HeatTable {
    /// Title above the table.
    pub title: String,
    /// Label of the row axis.
    pub row_label: String,
    /// Label of the column axis.
    pub col_label: String,
    /// Row labels, top to bottom.
    pub rows: Vec<String>,
    /// Column labels, left to right.
    pub cols: Vec<String>,
    /// `values[row][col]`, higher is better; NaN where a cell has no
    /// value (drawn grey, with a dash).
    pub values: Vec<Vec<f64>>,
}

impl HeatTable {
    /// The table as an SVG document.
    pub fn to_svg(&self) -> String {
        // Wide enough for the longest row label (about 7 px a character).
        let longest = self.rows.iter().map(|r| r.chars().count()).max();
        let left = (longest.unwrap_or(0) as f64 * 7.0 + 24.0).max(110.0);
        let (cw, ch, top) = (62.0, 26.0, 60.0);
        let w = left + cw * self.cols.len() as f64 + 20.0;
        let h = top + ch * self.rows.len() as f64 + 50.0;
        let mut s = svg_open(w, h, (w / 2.0, 20.0, 15), &self.title);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="40" text-anchor="middle">{}</text>"#,
            left + cw * self.cols.len() as f64 / 2.0,
            escape(&self.col_label)
        );
        let _ = writeln!(
            s,
            r#"<text transform="translate(16 {}) rotate(-90)" text-anchor="middle">{}</text>"#,
            top + ch * self.rows.len() as f64 / 2.0,
            escape(&self.row_label)
        );
        for (j, c) in self.cols.iter().enumerate() {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
                left + cw * (j as f64 + 0.5),
                top - 6.0,
                escape(c)
            );
        }
        for (j, _) in self.cols.iter().enumerate() {
            let col: Vec<f64> = self.values.iter().map(|r| r[j]).collect();
            let (lo, hi) = col
                .iter()
                .filter(|v| !v.is_nan())
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                    (a.min(v), b.max(v))
                });
            let best = col
                .iter()
                .enumerate()
                .filter(|(_, v)| !v.is_nan())
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map(|b| b.0);
            for (i, &v) in col.iter().enumerate() {
                let (x, y) = (left + cw * j as f64, top + ch * i as f64);
                if v.is_nan() {
                    let _ = writeln!(
                        s,
                        r#"<rect x="{x:.1}" y="{y:.1}" width="{cw}" height="{ch}" fill="rgb(220,220,220)"/><text x="{:.1}" y="{:.1}" text-anchor="middle">-</text>"#,
                        x + cw / 2.0,
                        y + ch / 2.0 + 4.0
                    );
                    continue;
                }
                // Red (worst of the column) to green (best), as in the paper.
                let t = if hi > lo { (v - lo) / (hi - lo) } else { 1.0 };
                let (r, g) = ((230.0 * (1.0 - t) + 40.0) as u8, (200.0 * t + 40.0) as u8);
                let stroke = if Some(i) == best {
                    r#" stroke="black" stroke-width="3""#
                } else {
                    ""
                };
                let _ = writeln!(
                    s,
                    r#"<rect x="{x:.1}" y="{y:.1}" width="{cw}" height="{ch}" fill="rgb({r},{g},90)"{stroke}/><text x="{:.1}" y="{:.1}" text-anchor="middle">{v:.1}</text>"#,
                    x + cw / 2.0,
                    y + ch / 2.0 + 4.0
                );
            }
        }
        for (i, r) in self.rows.iter().enumerate() {
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
                left - 8.0,
                top + ch * (i as f64 + 0.5) + 4.0,
                escape(r)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

/// Reported hot address ranges over time, as Telescope's Figure 7 draws
/// them: time on x, address offset in the heap on y (0 at the bottom), red
/// where the technique reported any of a bin hot (darker: more of it).
#[derive(Clone, Debug, PartialEq)]
pub struct HotMapChart {
    /// Title above the chart.
    pub title: String,
    /// Seconds per column.
    pub column_s: f64,
    /// Bytes the y axis spans.
    pub span_bytes: u64,
    /// `columns[t][bin]` in [0, 1], bin 0 the lowest addresses.
    pub columns: Vec<Vec<f32>>,
    /// Times (s) to mark with a dashed line (phase changes).
    pub marks_s: Vec<f64>,
}

impl HotMapChart {
    /// The chart as an SVG document. Runs of equal (tenth-quantized) cells
    /// along time are drawn as one rectangle, so a mostly cold map is small.
    pub fn to_svg(&self) -> String {
        let (w, h, left, top, bottom) = (720.0, 360.0, 70.0, 36.0, 44.0);
        let plot_w = w - left - 20.0;
        let plot_h = h - top - bottom;
        let cols = self.columns.len().max(1);
        let bins = self.columns.first().map_or(1, Vec::len).max(1);
        let (cw, ch) = (plot_w / cols as f64, plot_h / bins as f64);
        let mut s = svg_open(w, h, (w / 2.0, 20.0, 14), &self.title);
        let _ = writeln!(
            s,
            r#"<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="black"/>"#
        );
        let q = |v: f32| (v.clamp(0.0, 1.0) * 10.0).ceil() as u8;
        for b in 0..bins {
            let y = top + plot_h - ch * (b + 1) as f64;
            let mut t = 0;
            while t < cols {
                let level = q(self.columns[t].get(b).copied().unwrap_or(0.0));
                let mut end = t + 1;
                while end < cols && q(self.columns[end].get(b).copied().unwrap_or(0.0)) == level {
                    end += 1;
                }
                if level > 0 {
                    // Any hot share is visible; darker means more of the bin.
                    let _ = writeln!(
                        s,
                        r#"<rect x="{:.2}" y="{y:.2}" width="{:.2}" height="{ch:.2}" fill="rgb(220,30,30)" fill-opacity="{:.2}"/>"#,
                        left + cw * t as f64,
                        cw * (end - t) as f64,
                        0.5 + f64::from(level) / 20.0
                    );
                }
                t = end;
            }
        }
        for &m in &self.marks_s {
            let x = left + m / self.column_s * cw;
            let _ = writeln!(
                s,
                r#"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{:.1}" stroke="gray" stroke-dasharray="4 3"/>"#,
                top + plot_h
            );
        }
        let secs = cols as f64 * self.column_s;
        for i in 0..=4 {
            let f = i as f64 / 4.0;
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{:.0}</text><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
                left + plot_w * f,
                top + plot_h + 16.0,
                secs * f,
                left - 6.0,
                top + plot_h * (1.0 - f) + 4.0,
                human_bytes(self.span_bytes as f64 * f)
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">time (s)</text><text transform="translate(14 {}) rotate(-90)" text-anchor="middle">heap offset</text>"#,
            left + plot_w / 2.0,
            h - 8.0,
            top + plot_h / 2.0
        );
        s.push_str("</svg>\n");
        s
    }
}

fn human_bytes(b: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if v == 0.0 {
        "0".into()
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}
