//! Access heatmaps like damo's `report heatmap`: simulated time on the x axis,
//! the workload's regions (concatenated, gaps removed) on the y axis, colour
//! by log access count, drawn with plotters with axes and a colour scale.

use crate::plot;
use plotters::coord::Shift;
use plotters::prelude::*;
use thermocline_engine::config::RunConfig;
use thermocline_engine::driver::Observer;
use thermocline_engine::report::Report;
use thermocline_engine::RunError;
use thermocline_vocab::Access;
use thermocline_vocab::RegionInfo;

/// Runs `cfg` on the exact machine, counting its accesses in `rows` address
/// bins and `columns` time bins over the workload's nominal duration (the
/// run may take longer: later accesses add columns).
pub fn record(
    cfg: &RunConfig,
    rows: usize,
    columns: usize,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(HeatmapObserver, Report), RunError> {
    let s = thermocline_engine::setup::setup(cfg)?;
    let w = &s.workload;
    let nominal_ns = s.limit as f64 / (w.access_rate * w.threads as f64) * 1e9;
    let mut obs = HeatmapObserver::new(w.regions.clone(), rows, nominal_ns / columns.max(1) as f64);
    let report =
        thermocline_engine::runner::run_setup(cfg, s, progress, &mut obs, &mut |_, _| {}, &|| {
            false
        })?;
    Ok((obs, report))
}

/// Image height (pixels) [`HeatmapObserver::write_png`] draws.
pub const DEFAULT_HEIGHT: usize = 480;

/// Counts accesses per (time bin, address bin).
pub struct HeatmapObserver {
    regions: Vec<RegionInfo>,
    offsets: Vec<u64>,
    row_bytes: u64,
    rows: usize,
    bin_ns: f64,
    /// Column-major counts: `columns[t][row]`.
    columns: Vec<Vec<u32>>,
    /// The chart's title.
    title: String,
}

impl HeatmapObserver {
    /// A heatmap of `rows` address bins over `regions`, with time bins of `bin_ns`.
    pub fn new(mut regions: Vec<RegionInfo>, rows: usize, bin_ns: f64) -> Self {
        regions.sort_by_key(|r| (r.asid, r.start));
        let mut offsets = Vec::new();
        let mut total = 0;
        for r in &regions {
            offsets.push(total);
            total += r.len;
        }
        let rows = rows.max(1);
        HeatmapObserver {
            regions,
            offsets,
            row_bytes: total.div_ceil(rows as u64).max(1),
            rows,
            bin_ns: bin_ns.max(1.0),
            columns: Vec::new(),
            title: "accesses per time and address".into(),
        }
    }

    /// Names what the chart shows in its title (the workload and the
    /// manager, say) after "accesses per time and address".
    pub fn name(&mut self, what: &str) {
        self.title = format!("accesses per time and address: {what}");
    }

    fn row_of(&self, va: u64) -> Option<usize> {
        let i = self
            .regions
            .partition_point(|r| r.start <= va)
            .checked_sub(1)?;
        let r = &self.regions[i];
        (va < r.end()).then(|| {
            (((self.offsets[i] + va - r.start) / self.row_bytes) as usize).min(self.rows - 1)
        })
    }

    /// Writes the heatmap as a PNG `width` pixels wide and
    /// [`DEFAULT_HEIGHT`] high: [`write_chart`](Self::write_chart) under
    /// its old name, for callers that have not moved over.
    pub fn write_png(&self, path: &str, width: usize) -> Result<(), RunError> {
        self.write_chart(path, width, DEFAULT_HEIGHT)
    }

    /// Writes the heatmap as a chart of `width` x `height` pixels (at
    /// least 320 x 240): a PNG when `path` ends in .png, an SVG when it
    /// ends in .svg. Time (s) on x, the address offset on y (the regions
    /// concatenated, gaps removed, offset 0 at the bottom), colour by log
    /// access count with its scale at the right. Time and address bins are
    /// averaged down to the plot's pixels where there are more of them.
    pub fn write_chart(&self, path: &str, width: usize, height: usize) -> Result<(), RunError> {
        let out_err = |msg: String| RunError::Output {
            path: path.to_string(),
            msg,
        };
        let size = (
            width.clamp(320, 8192) as u32,
            height.clamp(240, 8192) as u32,
        );
        let ext = std::path::Path::new(path)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        plot::fonts();
        match ext.as_deref() {
            Some("png") => {
                let root = BitMapBackend::new(path, size).into_drawing_area();
                self.draw(&root)
                    .and_then(|()| root.present())
                    .map_err(|e| out_err(e.to_string()))
            }
            Some("svg") => {
                let mut svg = String::new();
                {
                    let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
                    self.draw(&root)
                        .and_then(|()| root.present())
                        .map_err(|e| out_err(e.to_string()))?;
                }
                std::fs::write(path, svg).map_err(|e| out_err(format!("cannot write: {e}")))
            }
            _ => Err(out_err("must end in .png or .svg".into())),
        }
    }

    /// Bytes the regions span, gaps removed.
    fn span_bytes(&self) -> u64 {
        self.regions.iter().map(|r| r.len).sum()
    }

    /// The counts averaged down to `nx` time by `ny` address cells:
    /// `grid[y][x]`, with the first recorded bin of each cell.
    fn resampled(&self, nx: usize, ny: usize) -> Vec<Vec<f64>> {
        let cols = self.columns.len();
        let mut grid = vec![vec![0f64; nx]; ny];
        let mut n = vec![vec![0u32; nx]; ny];
        for (c, col) in self.columns.iter().enumerate() {
            let x = c * nx / cols;
            for (r, &v) in col.iter().enumerate() {
                let y = r * ny / self.rows;
                grid[y][x] += f64::from(v);
                n[y][x] += 1;
            }
        }
        // Averages, so uneven resampling does not draw stripes.
        for (g, n) in grid.iter_mut().zip(&n) {
            for (v, &n) in g.iter_mut().zip(n) {
                *v /= f64::from(n.max(1));
            }
        }
        grid
    }

    /// Draws the chart on `root`.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> plot::Drawn<DB> {
        let body = plot::titled(root, &self.title)?;
        let (w, _) = body.dim_in_pixel();
        let (plot_area, side) = body.split_horizontally(w.saturating_sub(plot::BAR_AREA));
        let cols = self.columns.len();
        let s_per_col = self.bin_ns / 1e9;
        let (_, secs) = plot::padded(0.0, cols as f64 * s_per_col);
        let span = self.span_bytes();
        let (div, unit) = plot::byte_unit(span as f64);
        let (_, top) = plot::padded(0.0, span as f64 / div);
        let mut chart = ChartBuilder::on(&plot_area)
            .margin(12)
            .x_label_area_size(plot::X_LABEL_AREA)
            .y_label_area_size(plot::Y_LABEL_AREA + 8)
            .build_cartesian_2d(0f64..secs, 0f64..top)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc("time (s)")
            .y_desc("address offset")
            .x_label_formatter(&|v| plot::fmt_num(*v))
            .y_label_formatter(&|v| format!("{} {unit}", plot::fmt_num(*v)))
            .label_style((plot::FONT, 12))
            .axis_desc_style((plot::FONT, 14))
            .draw()?;
        let (pw, ph) = chart.plotting_area().dim_in_pixel();
        let (nx, ny) = (
            cols.min(pw as usize).max(1),
            self.rows.min(ph as usize).max(1),
        );
        let grid = if cols == 0 {
            Vec::new()
        } else {
            self.resampled(nx, ny)
        };
        let max = grid.iter().flatten().copied().fold(0.0, f64::max);
        let log_max = (1.0 + max).ln();
        let level = |v: f64| {
            if v > 0.0 && log_max > 0.0 {
                (1.0 + v).ln() / log_max
            } else {
                0.0
            }
        };
        // Cell edges: the first recorded bin in each resampled cell.
        let x_at = |k: usize| (k * cols).div_ceil(nx) as f64 * s_per_col;
        let y_at = |k: usize| {
            let row = (k * self.rows).div_ceil(ny) as u64;
            (row * self.row_bytes).min(span) as f64 / div
        };
        if cols > 0 && span > 0 {
            // The background is the colour of no access; runs of one
            // (64-level) colour along time are one rectangle.
            chart.draw_series([Rectangle::new(
                [(0.0, 0.0), (x_at(nx), y_at(ny))],
                colour(0.0).filled(),
            )])?;
            let q = |v: f64| (level(v) * 63.0).round() as u8;
            for (y, row) in grid.iter().enumerate() {
                let mut x = 0;
                while x < nx {
                    let l = q(row[x]);
                    let mut end = x + 1;
                    while end < nx && q(row[end]) == l {
                        end += 1;
                    }
                    if l > 0 {
                        chart.draw_series([Rectangle::new(
                            [(x_at(x), y_at(y)), (x_at(end), y_at(y + 1))],
                            colour(f64::from(l) / 63.0).filled(),
                        )])?;
                    }
                    x = end;
                }
            }
        }
        // Ticks at 0, the powers of ten below the maximum, and the maximum.
        let mut ticks = vec![0.0];
        let mut p = 1.0;
        while max > 0.0 && p < max && level(p) < 0.92 {
            ticks.push(level(p));
            p *= 10.0;
        }
        if max > 0.0 {
            ticks.push(1.0);
        }
        let count_at = |l: f64| {
            if (l - 1.0).abs() < 1e-9 {
                return max;
            }
            let c = (l * log_max).exp() - 1.0;
            if (c - c.round()).abs() < 1e-6 * c.max(1.0) {
                c.round()
            } else {
                c
            }
        };
        plot::draw_colour_bar(
            &side,
            (12, plot::X_LABEL_AREA),
            "accesses per cell (log)",
            ticks,
            &|l| colour(l),
            &|l| plot::fmt_num(count_at(l)),
        )
    }

    /// Total accesses recorded.
    pub fn total(&self) -> u64 {
        self.columns.iter().flatten().map(|&v| u64::from(v)).sum()
    }
}

impl Observer for HeatmapObserver {
    #[inline]
    fn on_access(&mut self, a: &Access, now_ns: f64) {
        let col = (now_ns / self.bin_ns) as usize;
        if col >= self.columns.len() {
            // Rare: a new time bin.
            self.columns.resize_with(col + 1, || vec![0; self.rows]);
        }
        if let Some(row) = self.row_of(a.va) {
            let c = &mut self.columns[col][row];
            *c = c.saturating_add(1);
        }
    }
}

/// [`heat_colour`] for plotters.
fn colour(level: f64) -> RGBColor {
    let [r, g, b] = heat_colour(level);
    RGBColor(r, g, b)
}

/// Black -> purple -> orange -> yellow, like matplotlib's "inferno".
fn heat_colour(level: f64) -> [u8; 3] {
    const STOPS: [(f64, [f64; 3]); 5] = [
        (0.0, [0.0, 0.0, 4.0]),
        (0.25, [87.0, 16.0, 110.0]),
        (0.5, [188.0, 55.0, 84.0]),
        (0.75, [249.0, 142.0, 9.0]),
        (1.0, [252.0, 255.0, 164.0]),
    ];
    let l = level.clamp(0.0, 1.0);
    let i = STOPS.iter().position(|s| s.0 >= l).unwrap_or(4).max(1);
    let (a, b) = (STOPS[i - 1], STOPS[i]);
    let t = (l - a.0) / (b.0 - a.0);
    let mix = |k: usize| (a.1[k] + t * (b.1[k] - a.1[k])).round() as u8;
    [mix(0), mix(1), mix(2)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::tests::has_text;

    /// Two regions with a gap between them, accesses sweeping up the
    /// first and hammering the start of the second.
    fn observer() -> HeatmapObserver {
        let region = |start, len| RegionInfo {
            asid: thermocline_vocab::Asid(0),
            name: "r".into(),
            start,
            len,
            page_type: Default::default(),
            thp: false,
        };
        let mut obs = HeatmapObserver::new(
            vec![region(1 << 40, 96 << 20), region(1 << 30, 32 << 20)],
            200,
            1e6,
        );
        let access = |va| Access {
            va,
            asid: 0,
            core: 0,
            write: false,
        };
        for t in 0..2000u64 {
            let now = t as f64 * 1e5;
            obs.on_access(&access((1 << 40) + (t * 48_000) % (96 << 20)), now);
            for k in 0..(t % 7) {
                obs.on_access(&access((1 << 30) + k * 4096), now);
            }
            // Outside every region: not counted.
            obs.on_access(&access(5), now);
        }
        obs
    }

    fn temp(name: &str) -> String {
        let dir = std::env::temp_dir().join(format!("thermocline-heatmap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name).to_string_lossy().into_owned()
    }

    #[test]
    fn heatmap_png_has_the_asked_size() {
        let obs = observer();
        assert_eq!(obs.total(), 2000 + (0..2000u64).map(|t| t % 7).sum::<u64>());
        let path = temp("map.png");
        obs.write_chart(&path, 900, 500).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&bytes[12..16], b"IHDR");
        assert_eq!(u32::from_be_bytes(bytes[16..20].try_into().unwrap()), 900);
        assert_eq!(u32::from_be_bytes(bytes[20..24].try_into().unwrap()), 500);
        // The old entry point: the default height.
        obs.write_png(&path, 800).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(
            u32::from_be_bytes(bytes[20..24].try_into().unwrap()),
            DEFAULT_HEIGHT as u32
        );
        if let Ok(dir) = std::env::var("THERMOCLINE_CHART_PNGS") {
            obs.write_chart(&format!("{dir}/heatmap.png"), 900, 500)
                .unwrap();
        }
    }

    #[test]
    fn heatmap_svg_has_axes_and_colour_scale() {
        let obs = observer();
        let path = temp("map.svg");
        obs.write_chart(&path, 800, 400).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.contains(r#"width="800""#) && svg.contains(r#"height="400""#));
        for text in [
            "accesses per time and address",
            "time (s)",
            "address offset",
            " MiB",
            "accesses per cell (log)",
            "0",
        ] {
            assert!(has_text(&svg, text), "{text} missing");
        }
        obs.write_chart(&path, 800, 400).unwrap();
        assert_eq!(
            svg,
            std::fs::read_to_string(&path).unwrap(),
            "deterministic"
        );
    }

    #[test]
    fn heatmap_of_nothing_draws_axes_and_other_names_are_refused() {
        let empty = HeatmapObserver::new(Vec::new(), 1, 0.0);
        let path = temp("empty.svg");
        empty.write_chart(&path, 1, 1).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(has_text(&svg, "time (s)") && has_text(&svg, "address offset"));
        let e = empty.write_chart(&temp("map.jpg"), 800, 400).unwrap_err();
        assert!(e.to_string().contains("must end in .png or .svg"), "{e}");
        assert!(e.to_string().contains("map.jpg"), "{e}");
    }
}
