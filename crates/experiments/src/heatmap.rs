//! Access heatmaps like damo's `report heatmap`: simulated time on the x axis,
//! the workload's regions (concatenated, gaps removed) on the y axis, colour
//! by log access count.

use crate::config::RunConfig;
use crate::driver::Observer;
use crate::report::Report;
use crate::RunError;
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
    let s = crate::setup::setup(cfg)?;
    let w = &s.workload;
    let nominal_ns = s.limit as f64 / (w.access_rate * w.threads as f64) * 1e9;
    let mut obs = HeatmapObserver::new(w.regions.clone(), rows, nominal_ns / columns.max(1) as f64);
    let report = crate::runner::run_setup(cfg, s, progress, &mut obs, &mut |_, _| {})?;
    Ok((obs, report))
}

/// Counts accesses per (time bin, address bin).
pub struct HeatmapObserver {
    regions: Vec<RegionInfo>,
    offsets: Vec<u64>,
    row_bytes: u64,
    rows: usize,
    bin_ns: f64,
    /// Column-major counts: `columns[t][row]`.
    columns: Vec<Vec<u32>>,
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
        }
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

    /// Writes the heatmap as a PNG, `width` pixels wide (columns are resampled).
    pub fn write_png(&self, path: &str, width: usize) -> Result<(), RunError> {
        let out_err = |msg: String| RunError::Output {
            path: path.to_string(),
            msg,
        };
        let cols = self.columns.len().max(1);
        let width = width.clamp(1, 4096);
        let mut grid = vec![0f64; width * self.rows];
        let mut merged = vec![0u32; width];
        for (c, col) in self.columns.iter().enumerate() {
            let x = c * width / cols;
            merged[x] += 1;
            for (row, &v) in col.iter().enumerate() {
                grid[row * width + x] += f64::from(v);
            }
        }
        // Average the time bins that fell into one pixel column, so uneven
        // resampling does not draw stripes.
        for (i, g) in grid.iter_mut().enumerate() {
            *g /= f64::from(merged[i % width].max(1));
        }
        let max = grid.iter().copied().fold(1.0, f64::max);
        let mut rgb = Vec::with_capacity(width * self.rows * 3);
        // Row 0 at the bottom, as in damo's plots.
        for row in (0..self.rows).rev() {
            for x in 0..width {
                let v = grid[row * width + x];
                let level = if v > 0.0 {
                    (1.0 + v).ln() / (1.0 + max).ln()
                } else {
                    0.0
                };
                rgb.extend_from_slice(&heat_colour(level));
            }
        }
        let file =
            std::fs::File::create(path).map_err(|e| out_err(format!("cannot create: {e}")))?;
        let mut enc = png::Encoder::new(
            std::io::BufWriter::new(file),
            width as u32,
            self.rows as u32,
        );
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(|e| out_err(e.to_string()))?;
        w.write_image_data(&rgb).map_err(|e| out_err(e.to_string()))
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
