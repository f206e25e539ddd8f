//! Charts for reproductions and comparisons, drawn with plotters: every
//! chart has a title, axes with their units, a legend or a colour scale.
//! SVG output is plain text drawn in a fixed order, so the same data gives
//! byte-identical files; text is escaped by the backend. Empty data, a
//! single point, NaN and all-zero values draw an empty or flat chart with
//! its axes, never a panic.

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::ops::Range;
use std::sync::Once;

/// The font family every chart uses (DejaVu Sans, registered by [`fonts`]).
pub const FONT: &str = "sans-serif";

/// What drawing on a `DB` returns.
pub type Drawn<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Registers DejaVu Sans as plotters' "sans-serif", once: without system
/// fonts (the ab_glyph feature) plotters can neither measure nor draw text.
pub fn fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let ok = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular())
            .is_ok();
        debug_assert!(ok, "DejaVu Sans is a valid font");
    });
}

/// Runs `draw` on an SVG canvas of `size` pixels and returns the document.
fn svg_of(
    size: (u32, u32),
    draw: impl for<'a> FnOnce(&DrawingArea<SVGBackend<'a>, Shift>) -> Drawn<SVGBackend<'a>>,
) -> String {
    fonts();
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, size).into_drawing_area();
        let r = draw(&root).and_then(|()| root.present());
        // Drawing into a string fails only on a bug (a font that cannot be
        // measured): the document is then still closed, with what was drawn.
        debug_assert!(r.is_ok(), "drawing failed: {:?}", r.err());
    }
    s
}

/// A chart that can be drawn on any plotters backend: written as PNG or
/// SVG by [`write`].
pub trait Chart {
    /// The image size in pixels.
    fn size(&self) -> (u32, u32);
    /// Draws the chart on `root`.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn<DB>;

    /// The chart as an SVG document.
    fn to_svg(&self) -> String {
        svg_of(self.size(), |root| self.draw(root))
    }
}

macro_rules! chart {
    ($($t:ty),*) => {$(
        impl Chart for $t {
            fn size(&self) -> (u32, u32) {
                <$t>::size(self)
            }
            fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn<DB> {
                <$t>::draw(self, root)
            }
        }
    )*};
}
chart!(LineChart, HeatTable, HotMapChart, ParetoChart);

/// Writes `chart` to `path`: a PNG when the name ends in .png, an SVG when
/// it ends in .svg (any case); another name is an error saying so.
pub fn write(chart: &impl Chart, path: &str) -> Result<(), thermocline_engine::RunError> {
    let out_err = |msg: String| thermocline_engine::RunError::Output {
        path: path.to_string(),
        msg,
    };
    let lower = path.to_ascii_lowercase();
    if lower.ends_with(".svg") {
        let svg = chart.to_svg();
        std::fs::write(path, svg).map_err(|e| out_err(format!("cannot write: {e}")))
    } else if lower.ends_with(".png") {
        fonts();
        let root = BitMapBackend::new(path, chart.size()).into_drawing_area();
        chart
            .draw(&root)
            .and_then(|()| root.present())
            .map_err(|e| out_err(e.to_string()))
    } else {
        Err(out_err("must end in .png or .svg".into()))
    }
}

/// Width and height in pixels of `text` in `size`-pixel type (an
/// estimate when the font is missing).
fn text_size(text: &str, size: f64) -> (u32, u32) {
    fonts();
    (FONT, size)
        .into_font()
        .box_size(text)
        .unwrap_or((text.chars().count() as u32 * size as u32 / 2, size as u32))
}

const PALETTE: [RGBColor; 10] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x7f, 0x7f, 0x7f),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0x17, 0xbe, 0xcf),
];

const GRID: RGBColor = RGBColor(225, 225, 225);

/// A number for a tick label: at most three decimals, trailing zeros
/// dropped, K/M/G from a thousand on.
pub fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    let (x, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e3 {
        (v / 1e3, "K")
    } else {
        (v, "")
    };
    let mut s = format!("{x:.3}");
    if s.contains('.') {
        s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    if s == "-0" {
        s = "0".into();
    }
    s + suffix
}

/// A binary unit for a byte span: the divisor and its name, so that the
/// span is below 1024 of it.
pub fn byte_unit(span: f64) -> (f64, &'static str) {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut div = 1.0;
    let mut u = 0;
    while span / div >= 1024.0 && u + 1 < UNITS.len() {
        div *= 1024.0;
        u += 1;
    }
    (div, UNITS[u])
}

/// `lo..hi` made drawable: finite, and of some width.
pub fn padded(lo: f64, hi: f64) -> (f64, f64) {
    if !(lo.is_finite() && hi.is_finite()) || hi < lo {
        return (0.0, 1.0);
    }
    if hi - lo <= f64::EPSILON * lo.abs().max(1.0) {
        let d = (lo.abs() * 0.1).max(1.0);
        return (lo - d, hi + d);
    }
    (lo, hi)
}

/// The (min, max) of the finite values.
fn finite_range(vals: impl IntoIterator<Item = f64>) -> (f64, f64) {
    vals.into_iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        })
}

/// How a legend entry is drawn.
#[derive(Clone, Copy)]
enum Mark {
    Line(RGBColor),
    Dashed(RGBColor),
    Dot(RGBColor),
}

const LEGEND_FONT: f64 = 13.0;

/// The width a legend of `names` needs.
fn legend_width<'a>(names: impl IntoIterator<Item = &'a str>) -> u32 {
    names
        .into_iter()
        .map(|n| text_size(n, LEGEND_FONT).0 + 52)
        .max()
        .unwrap_or(0)
}

/// A legend in its own area (beside the plot, never over the data): one
/// line per entry from `top` down.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    top: i32,
    entries: &[(Mark, &str)],
) -> Drawn<DB> {
    let style =
        TextStyle::from((FONT, LEGEND_FONT).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (mark, name)) in entries.iter().enumerate() {
        let y = top + 20 * i as i32;
        match *mark {
            Mark::Line(c) => {
                area.draw(&PathElement::new(vec![(10, y), (34, y)], c.stroke_width(3)))?;
            }
            Mark::Dashed(c) => {
                for x in [10, 20, 30] {
                    area.draw(&PathElement::new(
                        vec![(x, y), (x + 5, y)],
                        c.stroke_width(2),
                    ))?;
                }
            }
            Mark::Dot(c) => area.draw(&Circle::new((22, y), 5, c.filled()))?,
        }
        area.draw_text(name, &style, (42, y))?;
    }
    Ok(())
}

/// A vertical colour scale in `area`, aligned with a plot that has
/// `top_margin` and `bottom_label` pixels above and below it: `colour(l)`
/// for levels `l` in [0, 1], ticks at `ticks` (levels) labelled by
/// `label(level)`, titled `desc`.
pub fn draw_colour_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (top_margin, bottom_label): (u32, u32),
    desc: &str,
    ticks: Vec<f64>,
    colour: &dyn Fn(f64) -> RGBColor,
    label: &dyn Fn(f64) -> String,
) -> Drawn<DB> {
    let mut bar = ChartBuilder::on(area)
        .margin_top(top_margin)
        .margin_bottom(10)
        .margin_left(4)
        .margin_right(4)
        .x_label_area_size(bottom_label)
        .right_y_label_area_size(60)
        .build_cartesian_2d(
            0f64..1f64,
            Ticked {
                lo: 0.0,
                hi: 1.0,
                ticks,
            },
        )?;
    bar.configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .set_all_tick_mark_size(4)
        .y_desc(desc)
        .y_label_formatter(&|l| label(*l))
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 13))
        .draw()?;
    const STEPS: usize = 64;
    bar.draw_series((0..STEPS).map(|i| {
        let (a, b) = (i as f64 / STEPS as f64, (i + 1) as f64 / STEPS as f64);
        Rectangle::new([(0.0, a), (1.0, b)], colour((a + b) / 2.0).filled())
    }))?;
    bar.plotting_area().draw(&Rectangle::new(
        [(0.0, 0.0), (1.0, 1.0)],
        BLACK.stroke_width(1),
    ))?;
    Ok(())
}

/// A linear axis over `lo..hi` with ticks exactly at `ticks` (table
/// cells' centres, a colour scale's chosen values).
struct Ticked {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ticked {
    /// `n` cells of width 1, a tick at each one's centre.
    fn cells(n: usize) -> Self {
        Ticked {
            lo: 0.0,
            hi: n.max(1) as f64,
            ticks: (0..n).map(|i| i as f64 + 0.5).collect(),
        }
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, (a, b): (i32, i32)) -> i32 {
        let f = (v - self.lo) / (self.hi - self.lo);
        a + (f * f64::from(b - a)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

/// The title over the whole image, and the area under it.
pub fn titled<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
) -> Result<DrawingArea<DB, Shift>, DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    root.titled(title, (FONT, 18))
}

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
    /// X axis label, with its unit.
    pub x_label: String,
    /// Y axis label, with its unit.
    pub y_label: String,
    /// The series.
    pub series: Vec<Series>,
    /// A dashed horizontal line (a target), with its label.
    pub target: Option<(f64, String)>,
}

/// Space under and beside a plot for tick labels and the axis title.
pub const X_LABEL_AREA: u32 = 48;
/// Space beside a plot for tick labels and the axis title.
pub const Y_LABEL_AREA: u32 = 72;

impl LineChart {
    fn legend(&self) -> Vec<(Mark, &str)> {
        let mut v: Vec<(Mark, &str)> = self
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| (Mark::Line(PALETTE[i % PALETTE.len()]), s.name.as_str()))
            .collect();
        if let Some((_, label)) = &self.target {
            v.push((Mark::Dashed(BLACK), label.as_str()));
        }
        v
    }

    /// The image size: 760 x 440, wider for a wide legend, taller for a
    /// long one.
    pub fn size(&self) -> (u32, u32) {
        let legend = self.legend();
        let w = legend_width(legend.iter().map(|e| e.1));
        (
            560 + w.clamp(200, 800),
            440.max(60 + 20 * legend.len() as u32),
        )
    }

    /// Draws the chart on `root`.
    pub fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn<DB> {
        let body = titled(root, &self.title)?;
        let legend = self.legend();
        let (plot, side) = beside_legend(&body, &legend);
        let pts = || {
            self.series
                .iter()
                .flat_map(|s| s.points.iter())
                .filter(|(x, y)| x.is_finite() && y.is_finite())
        };
        let (x0, x1) = finite_range(pts().map(|p| p.0));
        let (x0, x1) = padded(x0, x1);
        let (mut y0, mut y1) = finite_range(pts().map(|p| p.1));
        if let Some((t, _)) = self.target.as_ref().filter(|t| t.0.is_finite()) {
            (y0, y1) = (y0.min(*t), y1.max(*t));
        }
        if y0.is_finite() {
            y0 = y0.min(0.0);
        }
        let (y0, y1) = padded(y0, y1);
        let y1 = y1 + (y1 - y0) * 0.05;
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(X_LABEL_AREA)
            .y_label_area_size(Y_LABEL_AREA)
            .build_cartesian_2d(x0..x1, y0..y1)?;
        chart
            .configure_mesh()
            .x_desc(self.x_label.as_str())
            .y_desc(self.y_label.as_str())
            .x_label_formatter(&|v| fmt_num(*v))
            .y_label_formatter(&|v| fmt_num(*v))
            .bold_line_style(GRID)
            .max_light_lines(0)
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 14))
            .draw()?;
        if let Some((t, _)) = self.target.as_ref().filter(|t| t.0.is_finite()) {
            chart.draw_series(DashedLineSeries::new(
                vec![(x0, *t), (x1, *t)],
                6,
                4,
                BLACK.stroke_width(1),
            ))?;
        }
        for (i, s) in self.series.iter().enumerate() {
            let c = PALETTE[i % PALETTE.len()];
            let p: Vec<(f64, f64)> = s
                .points
                .iter()
                .copied()
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .collect();
            // Few points: mark each, so a single one shows.
            let dots = if p.len() <= 30 { 3 } else { 0 };
            chart.draw_series(LineSeries::new(p, c.stroke_width(2)).point_size(dots))?;
        }
        draw_legend(&side, 24, &legend)
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

/// Red (a column's worst) to green (its best), as in Ambix's figures.
fn table_colour(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    RGBColor(
        (230.0 * (1.0 - t) + 25.0) as u8,
        (190.0 * t + 50.0) as u8,
        90,
    )
}

const CELL_H: u32 = 28;
const SCALE_STRIP: u32 = 40;

impl HeatTable {
    fn cell_w(&self) -> u32 {
        let widest = self.cols.iter().map(|c| text_size(c, 12.0).0).max();
        (widest.unwrap_or(0) + 12).max(62)
    }

    fn row_area(&self) -> u32 {
        let widest = self.rows.iter().map(|r| text_size(r, 12.0).0).max();
        (widest.unwrap_or(0) + 40).max(72)
    }

    /// The image size: the cells, their labels, the title and the colour
    /// scale under them.
    pub fn size(&self) -> (u32, u32) {
        let plot_w = self.cell_w() * self.cols.len().max(1) as u32;
        let plot_h = CELL_H * self.rows.len().max(1) as u32;
        let w = (self.row_area() + plot_w + 24).max(text_size(&self.title, 18.0).0 + 20);
        (
            w.max(Self::scale_width() + 20),
            40 + plot_h + X_LABEL_AREA + 4 + SCALE_STRIP,
        )
    }

    /// Draws the table on `root`.
    pub fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn<DB> {
        let body = titled(root, &self.title)?;
        let (_, h) = body.dim_in_pixel();
        let (table, strip) = body.split_vertically(h.saturating_sub(SCALE_STRIP));
        let (nc, nr) = (self.cols.len(), self.rows.len());
        let plot_w = self.cell_w() * nc.max(1) as u32;
        let plot_h = CELL_H * nr.max(1) as u32;
        let (tw, th) = table.dim_in_pixel();
        // Cells of exactly cell_w x CELL_H, the table centred across.
        let spare = tw.saturating_sub(self.row_area() + plot_w);
        let mut chart = ChartBuilder::on(&table)
            .margin_top(12)
            .margin_bottom(th.saturating_sub(12 + X_LABEL_AREA + plot_h))
            .margin_left(spare / 2)
            .margin_right(spare - spare / 2)
            .x_label_area_size(X_LABEL_AREA)
            .y_label_area_size(self.row_area())
            .build_cartesian_2d(Ticked::cells(nc), Ticked::cells(nr))?;
        // Row i (top to bottom) spans y in [nr-1-i, nr-i].
        let row_of = |y: f64| nr.checked_sub(1 + y.max(0.0) as usize);
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc(self.col_label.as_str())
            .y_desc(self.row_label.as_str())
            .x_label_formatter(&|x| {
                self.cols
                    .get(x.max(0.0) as usize)
                    .cloned()
                    .unwrap_or_default()
            })
            .y_label_formatter(&|y| {
                row_of(*y)
                    .and_then(|i| self.rows.get(i))
                    .cloned()
                    .unwrap_or_default()
            })
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 14))
            .draw()?;
        let value = |i: usize, j: usize| {
            self.values
                .get(i)
                .and_then(|r| r.get(j))
                .copied()
                .unwrap_or(f64::NAN)
        };
        let text =
            TextStyle::from((FONT, 12).into_font()).pos(Pos::new(HPos::Center, VPos::Center));
        for j in 0..nc {
            let (lo, hi) = finite_range((0..nr).map(|i| value(i, j)));
            let best = (0..nr)
                .filter(|&i| value(i, j).is_finite())
                .max_by(|&a, &b| value(a, j).total_cmp(&value(b, j)));
            for i in 0..nr {
                let v = value(i, j);
                let (x, y) = (j as f64, (nr - 1 - i) as f64);
                let cell = [(x, y), (x + 1.0, y + 1.0)];
                let centre = (x + 0.5, y + 0.5);
                if !v.is_finite() {
                    chart.draw_series([
                        Rectangle::new(cell, RGBColor(220, 220, 220).filled()).into_dyn(),
                        Text::new("-".to_string(), centre, text.clone()).into_dyn(),
                    ])?;
                    continue;
                }
                let t = if hi > lo { (v - lo) / (hi - lo) } else { 1.0 };
                chart.draw_series([
                    Rectangle::new(cell, table_colour(t).filled()).into_dyn(),
                    Rectangle::new(cell, WHITE.stroke_width(1)).into_dyn(),
                    Text::new(format!("{v:.1}"), centre, text.clone()).into_dyn(),
                ])?;
                if Some(i) == best {
                    // A path: SVG rectangles drop the stroke width.
                    let (x1, y1) = (x + 1.0, y + 1.0);
                    chart.draw_series([PathElement::new(
                        vec![(x, y), (x1, y), (x1, y1), (x, y1), (x, y)],
                        BLACK.stroke_width(3),
                    )])?;
                }
            }
        }
        self.draw_scale(&strip)
    }

    /// The legend under the table: what the colours and the outline mean.
    const WORST: &'static str = "worst in column";
    const BEST: &'static str = "best in column (outlined)";
    const SCALE_BAR: i32 = 120;

    /// The width the legend under the table needs.
    fn scale_width() -> u32 {
        text_size(Self::WORST, 12.0).0 + text_size(Self::BEST, 12.0).0 + Self::SCALE_BAR as u32 + 40
    }

    /// Under the table, if it fits: what the colours and the outline mean.
    fn draw_scale<DB: DrawingBackend>(&self, strip: &DrawingArea<DB, Shift>) -> Drawn<DB> {
        let (w, _) = strip.dim_in_pixel();
        let style = TextStyle::from((FONT, 12).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
        let need = Self::scale_width() as i32;
        if need > w as i32 {
            return Ok(());
        }
        let x0 = (w as i32 - need) / 2;
        let y = 16;
        strip.draw_text(Self::WORST, &style, (x0, y))?;
        let bx = x0 + text_size(Self::WORST, 12.0).0 as i32 + 10;
        let bar = Self::SCALE_BAR;
        for k in 0..bar {
            strip.draw(&Rectangle::new(
                [(bx + k, y - 7), (bx + k + 1, y + 7)],
                table_colour(f64::from(k) / f64::from(bar - 1)).filled(),
            ))?;
        }
        strip.draw(&Rectangle::new(
            [(bx, y - 7), (bx + bar, y + 7)],
            BLACK.stroke_width(1),
        ))?;
        strip.draw_text(Self::BEST, &style, (bx + bar + 10, y))
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
    /// What a cell's value is, beside the colour scale.
    pub scale_label: String,
}

/// The colour of a hot share in tenths (1..=10): red over white, more
/// opaque for more of the bin.
fn hot_colour(level: u8) -> RGBColor {
    if level == 0 {
        return WHITE;
    }
    let a = 0.5 + f64::from(level.min(10)) / 20.0;
    let mix = |c: f64| (255.0 * (1.0 - a) + c * a).round() as u8;
    RGBColor(mix(220.0), mix(30.0), mix(30.0))
}

/// The plot area and, at its right, a column wide enough for `legend`'s
/// names.
fn beside_legend<DB: DrawingBackend>(
    body: &DrawingArea<DB, Shift>,
    legend: &[(Mark, &str)],
) -> (DrawingArea<DB, Shift>, DrawingArea<DB, Shift>) {
    let lw = legend_width(legend.iter().map(|e| e.1)).clamp(120, 800);
    let (w, _) = body.dim_in_pixel();
    body.split_horizontally(w.saturating_sub(lw))
}

/// The colour-scale column beside a plot.
pub const BAR_AREA: u32 = 118;

impl HotMapChart {
    /// The image size.
    pub fn size(&self) -> (u32, u32) {
        (780, 380)
    }

    /// Draws the chart on `root`.
    pub fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn<DB> {
        let body = titled(root, &self.title)?;
        let (w, _) = body.dim_in_pixel();
        let (plot, side) = body.split_horizontally(w.saturating_sub(BAR_AREA));
        let cols = self.columns.len();
        let bins = self.columns.iter().map(Vec::len).max().unwrap_or(0);
        let column_s = if self.column_s.is_finite() && self.column_s > 0.0 {
            self.column_s
        } else {
            0.0
        };
        let (_, secs) = padded(0.0, cols as f64 * column_s);
        let (div, unit) = byte_unit(self.span_bytes as f64);
        let (_, top) = padded(0.0, self.span_bytes as f64 / div);
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(X_LABEL_AREA)
            .y_label_area_size(Y_LABEL_AREA + 8)
            .build_cartesian_2d(0f64..secs, 0f64..top)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc("time (s)")
            .y_desc("heap offset")
            .x_label_formatter(&|v| fmt_num(*v))
            .y_label_formatter(&|v| format!("{} {unit}", fmt_num(*v)))
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 14))
            .draw()?;
        let q = |t: usize, b: usize| {
            let v = self.columns[t].get(b).copied().unwrap_or(0.0);
            if v.is_nan() {
                0
            } else {
                (v.clamp(0.0, 1.0) * 10.0).ceil() as u8
            }
        };
        let bin_h = top / bins.max(1) as f64;
        for b in 0..bins {
            let mut t = 0;
            while t < cols {
                let level = q(t, b);
                let mut end = t + 1;
                while end < cols && q(end, b) == level {
                    end += 1;
                }
                if level > 0 {
                    chart.draw_series([Rectangle::new(
                        [
                            (t as f64 * column_s, b as f64 * bin_h),
                            (end as f64 * column_s, (b + 1) as f64 * bin_h),
                        ],
                        hot_colour(level).filled(),
                    )])?;
                }
                t = end;
            }
        }
        for &m in self.marks_s.iter().filter(|m| m.is_finite()) {
            if (0.0..=secs).contains(&m) {
                chart.draw_series(DashedLineSeries::new(
                    vec![(m, 0.0), (m, top)],
                    4,
                    3,
                    RGBColor(110, 110, 110).stroke_width(1),
                ))?;
            }
        }
        chart.plotting_area().draw(&Rectangle::new(
            [(0.0, 0.0), (secs, top)],
            BLACK.stroke_width(1),
        ))?;
        draw_colour_bar(
            &side,
            (12, X_LABEL_AREA),
            &self.scale_label,
            vec![0.1, 0.5, 1.0],
            &|l| hot_colour((l * 10.0).ceil().max(1.0) as u8),
            &|l| format!("{:.0}%", l * 100.0),
        )
    }
}

/// One manager's place in a [`ParetoChart`].
#[derive(Clone, Debug, PartialEq)]
pub struct ParetoPoint {
    /// The manager.
    pub name: String,
    /// Fast-tier memory used: mean resident GiB times seconds.
    pub fast_gib_s: f64,
    /// Slowdown against the all-fast run, as a fraction (a report's
    /// `slowdown`: 0.25 is 25% slower); drawn in percent.
    pub slowdown: f64,
}

/// Managers' slowdown against the fast memory they used: one labelled
/// point per manager and the Pareto frontier (the managers no other one
/// beats on both) joined by a line.
#[derive(Clone, Debug, PartialEq)]
pub struct ParetoChart {
    /// Title above the chart.
    pub title: String,
    /// One per manager.
    pub points: Vec<ParetoPoint>,
}

/// Where each point's name goes, in pixels: points that fall on the same
/// pixel share one label ("random, interleave"), and a label that would
/// cover one already placed moves down a line until it does not; a label
/// that would cross `right_edge` goes on its point's left.
/// (the first point of the label's group, text, vertical offset in pixels,
/// on the left).
fn place_labels(points: &[((i32, i32), &str)], right_edge: i32) -> Vec<(usize, String, i32, bool)> {
    // a label's text: 12 px high over its baseline, 4 px above its point
    const LINE: i32 = 14;
    const HIGH: i32 = 12;
    const CHAR: i32 = 7;
    const DOT: i32 = 6;
    let mut groups: Vec<(usize, (i32, i32), Vec<&str>)> = Vec::new();
    for (i, &(at, name)) in points.iter().enumerate() {
        match groups
            .iter_mut()
            .find(|(_, g, _)| (g.0 - at.0).abs() <= 1 && (g.1 - at.1).abs() <= 1)
        {
            Some((_, _, names)) => names.push(name),
            None => groups.push((i, at, vec![name])),
        }
    }
    groups.sort_by_key(|(_, at, _)| (at.1, at.0));
    // boxes (left, right, top, bottom) a label must not cover: every dot,
    // then the labels placed
    let mut taken: Vec<(i32, i32, i32, i32)> = points
        .iter()
        .map(|&((x, y), _)| (x - DOT, x + DOT, y - DOT, y + DOT))
        .collect();
    let mut out = Vec::new();
    for (first, at, names) in groups {
        let text = names.join(", ");
        let width = CHAR * text.chars().count() as i32;
        let on_left = at.0 + DOT + width > right_edge;
        let (left, right) = if on_left {
            (at.0 - DOT - width, at.0 - DOT)
        } else {
            (at.0 + DOT, at.0 + DOT + width)
        };
        let mut dy = 0;
        let covers = |dy: i32, taken: &[(i32, i32, i32, i32)]| {
            let (bottom, top) = (at.1 + dy - 4, at.1 + dy - 4 - HIGH);
            taken
                .iter()
                .any(|&(l, r, t, b)| l < right && left < r && t < bottom && top < b)
        };
        while covers(dy, &taken) && dy < 40 * LINE {
            dy += LINE;
        }
        taken.push((left, right, at.1 + dy - 4 - HIGH, at.1 + dy - 4));
        out.push((first, text, dy, on_left));
    }
    out
}

/// The Pareto chart of a comparison's reports (one workload under several
/// managers): fast-tier GiB-seconds are the fast tier's mean resident
/// bytes times the simulated time. Reports without tiers are left out.
pub fn pareto_of(reports: &[thermocline_engine::report::Report]) -> ParetoChart {
    let title = match reports.first() {
        Some(r) => format!(
            "slowdown against fast-tier memory used, {} on {}",
            r.workload, r.machine
        ),
        None => "slowdown against fast-tier memory used".to_string(),
    };
    let points = reports
        .iter()
        .filter_map(|r| {
            let fast = r.tiers.first()?;
            Some(ParetoPoint {
                name: r.manager.clone(),
                fast_gib_s: fast.avg_resident_bytes / f64::from(1u32 << 30) * r.sim_time_s,
                slowdown: r.slowdown,
            })
        })
        .collect();
    ParetoChart { title, points }
}

impl ParetoChart {
    fn finite(&self) -> impl Iterator<Item = (usize, &ParetoPoint)> {
        self.points
            .iter()
            .enumerate()
            .filter(|(_, p)| p.fast_gib_s.is_finite() && p.slowdown.is_finite())
    }

    /// The indices of the points no other point dominates (as little or
    /// less fast memory and as little or less slowdown, one of them
    /// strictly less), in order of fast memory.
    pub fn frontier(&self) -> Vec<usize> {
        let dominated = |p: &ParetoPoint| {
            self.finite().any(|(_, q)| {
                q.fast_gib_s <= p.fast_gib_s
                    && q.slowdown <= p.slowdown
                    && (q.fast_gib_s < p.fast_gib_s || q.slowdown < p.slowdown)
            })
        };
        let mut f: Vec<usize> = self
            .finite()
            .filter(|(_, p)| !dominated(p))
            .map(|(i, _)| i)
            .collect();
        f.sort_by(|&a, &b| {
            let (p, q) = (&self.points[a], &self.points[b]);
            p.fast_gib_s
                .total_cmp(&q.fast_gib_s)
                .then(p.slowdown.total_cmp(&q.slowdown))
        });
        f
    }

    fn legend(&self) -> Vec<(Mark, &str)> {
        let mut v: Vec<(Mark, &str)> = vec![(Mark::Line(BLACK), "Pareto frontier")];
        v.extend(
            self.points
                .iter()
                .enumerate()
                .map(|(i, p)| (Mark::Dot(PALETTE[i % PALETTE.len()]), p.name.as_str())),
        );
        v
    }

    /// The image size: 760 x 480, wider for a wide legend, taller for a long one.
    pub fn size(&self) -> (u32, u32) {
        let legend = legend_width(self.legend().into_iter().map(|e| e.1)).max(120);
        let h = 480.max(60 + 20 * (self.points.len() as u32 + 1));
        (560 + legend.min(800), h)
    }

    /// Draws the chart on `root`.
    pub fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Drawn<DB> {
        let body = titled(root, &self.title)?;
        let legend = self.legend();
        let (plot, side) = beside_legend(&body, &legend);
        let (x0, x1) = finite_range(self.finite().map(|(_, p)| p.fast_gib_s));
        let (y0, y1) = finite_range(self.finite().map(|(_, p)| p.slowdown * 100.0));
        // From 0 (no fast memory, no slowdown), with room for the names.
        let (x0, x1) = padded(x0.min(0.0), x1);
        let (y0, y1) = padded(y0.min(0.0), y1);
        let (x1, y1) = (x1 + (x1 - x0) * 0.15, y1 + (y1 - y0) * 0.08);
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(X_LABEL_AREA)
            .y_label_area_size(Y_LABEL_AREA)
            .build_cartesian_2d(x0..x1, y0..y1)?;
        chart
            .configure_mesh()
            .x_desc("fast-tier memory used (GiB-s)")
            .y_desc("slowdown (%)")
            .x_label_formatter(&|v| fmt_num(*v))
            .y_label_formatter(&|v| fmt_num(*v))
            .bold_line_style(GRID)
            .max_light_lines(0)
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 14))
            .draw()?;
        let frontier = self.frontier();
        chart.draw_series(LineSeries::new(
            frontier.iter().map(|&i| {
                let p = &self.points[i];
                (p.fast_gib_s, p.slowdown * 100.0)
            }),
            BLACK.stroke_width(2),
        ))?;
        let label = TextStyle::from((FONT, 12).into_font()).pos(Pos::new(HPos::Left, VPos::Bottom));
        let at_of = |p: &ParetoPoint| (p.fast_gib_s, p.slowdown * 100.0);
        for (i, p) in self.finite() {
            let c = PALETTE[i % PALETTE.len()];
            chart.draw_series([EmptyElement::at(at_of(p))
                + Circle::new((0, 0), 5, c.filled())
                + Circle::new((0, 0), 5, BLACK.stroke_width(1))])?;
        }
        let finite: Vec<&ParetoPoint> = self.finite().map(|(_, p)| p).collect();
        let pixels: Vec<((i32, i32), &str)> = finite
            .iter()
            .map(|p| (chart.backend_coord(&at_of(p)), p.name.as_str()))
            .collect();
        let right_edge = chart.plotting_area().get_pixel_range().0.end;
        let left_label = label.pos(Pos::new(HPos::Right, VPos::Bottom));
        for (first, text, dy, left) in place_labels(&pixels, right_edge) {
            let at = EmptyElement::at(at_of(finite[first]));
            chart.draw_series([if left {
                at + Text::new(text, (-6, dy - 4), left_label.clone())
            } else {
                at + Text::new(text, (6, dy - 4), label.clone())
            }])?;
        }
        draw_legend(&side, 24, &legend)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Writes `draw`'s picture to `path` as a PNG of `size` (to look at).
    pub fn png_of(
        path: &str,
        size: (u32, u32),
        draw: impl for<'a> FnOnce(&DrawingArea<BitMapBackend<'a>, Shift>) -> Drawn<BitMapBackend<'a>>,
    ) {
        fonts();
        let root = BitMapBackend::new(path, size).into_drawing_area();
        draw(&root).unwrap();
        root.present().unwrap();
    }

    /// Writes PNGs to $THERMOCLINE_CHART_PNGS, when set, for a person to look at.
    fn look(
        name: &str,
        size: (u32, u32),
        draw: impl for<'a> FnOnce(&DrawingArea<BitMapBackend<'a>, Shift>) -> Drawn<BitMapBackend<'a>>,
    ) {
        if let Ok(dir) = std::env::var("THERMOCLINE_CHART_PNGS") {
            png_of(&format!("{dir}/{name}.png"), size, draw);
        }
    }

    /// Whether an SVG `<text>` reads `text` (or ends with it, when it
    /// starts with a space: a unit).
    pub fn has_text(svg: &str, text: &str) -> bool {
        svg.split("<text").skip(1).any(|t| {
            let body = t
                .split_once('>')
                .and_then(|(_, b)| b.split_once("</text>"))
                .map_or("", |(b, _)| b.trim());
            body == text || (text.starts_with(' ') && body.ends_with(text))
        })
    }

    fn has_size(svg: &str, (w, h): (u32, u32)) -> bool {
        svg.contains(&format!(r#"width="{w}""#)) && svg.contains(&format!(r#"height="{h}""#))
    }

    fn line_chart() -> LineChart {
        LineChart {
            title: "a < b".into(),
            x_label: "time (s)".into(),
            y_label: "rate (accesses/s)".into(),
            series: vec![
                Series {
                    name: "redis".into(),
                    points: (0..50)
                        .map(|i| (f64::from(i), f64::from(i * i) * 20.0))
                        .collect(),
                },
                Series {
                    name: "memcached & co".into(),
                    points: vec![(0.0, 30_000.0), (49.0, 10_000.0)],
                },
            ],
            target: Some((40_000.0, "target".into())),
        }
    }

    #[test]
    fn line_chart_has_title_axes_legend_and_target() {
        assert_eq!(fmt_num(30_000.0), "30K");
        assert_eq!(fmt_num(0.5), "0.5");
        assert_eq!(fmt_num(-0.0), "0");
        let c = line_chart();
        let svg = c.to_svg();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(has_size(&svg, c.size()), "{}", &svg[..200]);
        for text in [
            "a &lt; b",
            "time (s)",
            "rate (accesses/s)",
            "redis",
            "memcached &amp; co",
            "target",
            "30K",
        ] {
            assert!(has_text(&svg, text), "{text} missing");
        }
        assert_eq!(svg, c.to_svg(), "deterministic");
        look("line", c.size(), |r| c.draw(r));
    }

    #[test]
    fn charts_of_nothing_draw_axes() {
        let mut c = line_chart();
        c.series = vec![];
        c.target = None;
        assert!(has_text(&c.to_svg(), "time (s)"));
        c.series = vec![Series {
            name: "one".into(),
            points: vec![(3.0, 0.0)],
        }];
        assert!(has_text(&c.to_svg(), "one"));
        c.series[0].points = vec![(f64::NAN, 1.0), (1.0, f64::INFINITY), (2.0, 0.0)];
        assert!(has_text(&c.to_svg(), "one"));
        let t = HeatTable {
            title: "empty".into(),
            row_label: "r".into(),
            col_label: "c".into(),
            rows: vec![],
            cols: vec![],
            values: vec![],
        };
        assert!(has_text(&t.to_svg(), "empty"));
        let m = HotMapChart {
            scale_label: "share of bin reported hot".into(),
            title: "cold".into(),
            column_s: 0.0,
            span_bytes: 0,
            columns: vec![],
            marks_s: vec![f64::NAN],
        };
        assert!(has_text(&m.to_svg(), "heap offset"));
        let p = ParetoChart {
            title: "none".into(),
            points: vec![],
        };
        assert!(has_text(&p.to_svg(), "slowdown (%)"));
    }

    fn heat_table() -> HeatTable {
        HeatTable {
            title: "speed-up over first-touch".into(),
            row_label: "manager".into(),
            col_label: "fast tier (% of footprint)".into(),
            rows: vec![
                "ambix".into(),
                "memtis-like hotness".into(),
                "random".into(),
            ],
            cols: vec!["25%".into(), "50%".into(), "75%".into()],
            values: vec![
                vec![1.5, 2.0, f64::NAN],
                vec![0.5, 2.5, 1.0],
                vec![0.0, 0.0], // short row: a missing cell
            ],
        }
    }

    #[test]
    fn heat_table_has_labels_values_outline_and_scale() {
        let t = heat_table();
        let svg = t.to_svg();
        assert!(has_size(&svg, t.size()));
        for text in [
            "speed-up over first-touch",
            "manager",
            "fast tier (% of footprint)",
            "memtis-like hotness",
            "75%",
            "2.5",
            "-",
            "worst in column",
        ] {
            assert!(has_text(&svg, text), "{text} missing");
        }
        // One outlined best cell per column.
        look("table", t.size(), |r| t.draw(r));
        assert_eq!(svg.matches(r#"stroke-width="3""#).count(), 3);
        assert_eq!(svg, t.to_svg());
    }

    #[test]
    fn hot_map_has_time_and_offset_axes_marks_and_scale() {
        let m = HotMapChart {
            scale_label: "share of bin reported hot".into(),
            title: "hot set reported".into(),
            column_s: 0.5,
            span_bytes: 3 << 30,
            columns: (0..40)
                .map(|t| {
                    (0..32)
                        .map(|b| {
                            if (b + t / 10 * 8) % 32 < 8 {
                                0.05 * (b % 20) as f32
                            } else {
                                0.0
                            }
                        })
                        .collect()
                })
                .collect(),
            marks_s: vec![5.0, 10.0, 15.0],
        };
        let svg = m.to_svg();
        assert!(has_size(&svg, m.size()));
        for text in [
            "hot set reported",
            "time (s)",
            "heap offset",
            " GiB",
            "share of bin reported hot",
            "100%",
        ] {
            assert!(has_text(&svg, text), "{text} missing");
        }
        assert_eq!(svg, m.to_svg());
        look("hotmap", m.size(), |r| m.draw(r));
    }

    fn pareto() -> ParetoChart {
        let p = |name: &str, fast_gib_s, slowdown| ParetoPoint {
            name: name.into(),
            fast_gib_s,
            slowdown,
        };
        ParetoChart {
            title: "slowdown against fast-tier memory used, zipf on optane".into(),
            points: vec![
                p("first-touch", 12.0, 0.40),
                p("ambix", 8.0, 0.10),
                p("damon-tiering", 4.0, 0.25),
                p("random", 9.0, 0.60),
                p("all-fast", 16.0, 0.0),
                p("broken", f64::NAN, 0.1),
            ],
        }
    }

    #[test]
    fn pareto_labels_of_one_pixel_are_one_and_none_covers_another() {
        let pts = [
            ((100, 200), "random"),
            ((100, 200), "interleave"),
            ((101, 205), "ambix"),
            ((300, 50), "memos"),
        ];
        let labels = place_labels(&pts, 320);
        assert_eq!(labels.len(), 3, "{labels:?}");
        let of = |name: &str| labels.iter().find(|l| l.1 == name).unwrap().clone();
        // ambix's point is 5 px under random's: its label moves a line down
        assert_eq!(of("random, interleave").2, 0);
        assert!(of("ambix").2 >= 9, "{labels:?}");
        // memos' label would cross the plot's right edge at 320: it goes left
        assert!(of("memos").3 && !of("ambix").3, "{labels:?}");
    }

    #[test]
    fn pareto_chart_names_every_manager_and_the_frontier() {
        let c = pareto();
        let names: Vec<&str> = c
            .frontier()
            .iter()
            .map(|&i| c.points[i].name.as_str())
            .collect();
        assert_eq!(names, ["damon-tiering", "ambix", "all-fast"]);
        let svg = c.to_svg();
        assert!(has_size(&svg, c.size()));
        for text in [
            "slowdown against fast-tier memory used, zipf on optane",
            "fast-tier memory used (GiB-s)",
            "slowdown (%)",
            "Pareto frontier",
        ] {
            assert!(has_text(&svg, text), "{text} missing");
        }
        for p in &c.points {
            assert!(has_text(&svg, &p.name), "{} missing", p.name);
        }
        assert_eq!(svg, c.to_svg());
        look("pareto", c.size(), |r| c.draw(r));
    }

    #[test]
    fn pareto_of_reports_uses_the_fast_tier_and_the_slowdown() {
        use thermocline_engine::report::{Report, TierReport};
        assert!(pareto_of(&[]).points.is_empty());
        let report = |manager: &str, fast_bytes: f64, slowdown| Report {
            workload: "zipf".into(),
            manager: manager.into(),
            machine: "dram+optane".into(),
            sim_time_s: 2.0,
            slowdown,
            tiers: vec![
                TierReport {
                    avg_resident_bytes: fast_bytes,
                    ..TierReport::default()
                },
                TierReport::default(),
            ],
            ..Report::default()
        };
        let no_tiers = Report {
            manager: "none".into(),
            ..Report::default()
        };
        let c = pareto_of(&[
            report("ambix", 1.5 * f64::from(1u32 << 30), 0.25),
            no_tiers,
            report("random", 0.0, 0.5),
        ]);
        assert_eq!(
            c.title,
            "slowdown against fast-tier memory used, zipf on dram+optane"
        );
        assert_eq!(
            c.points,
            [
                ParetoPoint {
                    name: "ambix".into(),
                    fast_gib_s: 3.0,
                    slowdown: 0.25
                },
                ParetoPoint {
                    name: "random".into(),
                    fast_gib_s: 0.0,
                    slowdown: 0.5
                }
            ]
        );
        assert_eq!(c.frontier(), [1, 0]);
    }
}
