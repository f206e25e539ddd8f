//! `thermocline monitor`: a live, read-only view of where a process's pages
//! are and how hot they are.

use super::ToolError;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use thermocline_live::monitor::{render, telemetry, Binning, Monitor};
use thermocline_live::LiveError;

/// A bin width: a size that is a whole number of 4 KiB pages (e.g. 2MiB).
pub use thermocline_live::monitor::parse_width;

/// `monitor`'s options.
#[derive(Clone, Copy, Debug)]
pub struct MonitorOptions {
    /// The process to watch.
    pub pid: i32,
    /// Seconds between reads.
    pub interval: f64,
    /// One interval, printed as plain lines, then return.
    pub once: bool,
    /// One JSON object per interval (a line each) instead of text.
    pub json: bool,
    /// Also count the pages written per interval from soft-dirty bits
    /// (clears the process's soft-dirty bits at every interval).
    pub writes: bool,
    /// Cut mappings into bins of this size (`None`: one bin per mapping).
    pub bin: Option<u64>,
    /// Do not start a kdamond even where DAMON is available.
    pub no_damon: bool,
    /// `out` is a terminal to redraw in place (else plain lines).
    pub terminal: bool,
}

/// Watches the process, a view per interval to `out`, until it exits (said
/// on `err`), `stop` is set, or after one interval with `once`.
pub fn monitor(
    o: &MonitorOptions,
    stop: &AtomicBool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), ToolError> {
    if o.pid <= 0 {
        return Err(ToolError::Input(format!(
            "--pid must be a process id (> 0), got {}",
            o.pid
        )));
    }
    let mut sources: Vec<Box<dyn telemetry::Telemetry>> = Vec::new();
    let mut notes = Vec::new();
    if !o.no_damon && thermocline_live::monitor::alive(o.pid) {
        match telemetry::Damon::start(o.pid) {
            Ok(d) => sources.push(Box::new(d)),
            Err(e) => notes.push(format!("damon not used: {e}")),
        }
    }
    if o.writes {
        sources.push(Box::new(telemetry::SoftDirty));
    }
    sources.push(Box::new(telemetry::PageIns));
    let binning = o.bin.map_or(Binning::Mapping, Binning::Width);
    let doing = || format!("monitoring process {}", o.pid);
    let mut m = Monitor::new(o.pid, binning, sources, notes).map_err(ToolError::host(doing()))?;
    let terminal = o.terminal && !o.once && !o.json;
    loop {
        let began = std::time::Instant::now();
        let mut observed = 0.0;
        while began.elapsed().as_secs_f64() < o.interval {
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            if !thermocline_live::monitor::alive(o.pid) {
                break;
            }
            let t = began.elapsed().as_secs_f64();
            // the end of the interval has a look of its own
            if t - observed >= telemetry::OBSERVE_EVERY_S
                && o.interval - t >= telemetry::OBSERVE_EVERY_S / 2.0
            {
                m.observe();
                observed = t;
            }
            let left = o.interval - began.elapsed().as_secs_f64();
            std::thread::sleep(std::time::Duration::from_secs_f64(left.clamp(0.0, 0.05)));
        }
        let view = match m.sample() {
            Ok(v) => v,
            Err(LiveError::Exited { .. }) => {
                writeln!(err, "monitor: process {} exited", o.pid)?;
                return Ok(());
            }
            Err(e) => return Err(ToolError::host(doing())(e)),
        };
        if o.json {
            writeln!(out, "{}", serde_json::to_string(&view)?)?;
        } else if terminal {
            use crossterm::{cursor, execute, terminal};
            let rows = terminal::size().map_or(24, |(_, h)| h as usize);
            // header (4 lines), notes, and a line for "... more bins"
            let room = rows.saturating_sub(5 + view.notes.len()).max(1);
            // `&mut out`: crossterm's writer must be sized
            let mut out = &mut *out;
            execute!(
                &mut out,
                cursor::MoveTo(0, 0),
                terminal::Clear(terminal::ClearType::All)
            )?;
            // raw text lines need a carriage return only in raw mode, which
            // is not used: Ctrl-C stays a signal
            write!(
                out,
                "{}",
                render::text(&view, render::Bars::Blocks, Some(room))
            )?;
        } else {
            writeln!(out, "{}", render::text(&view, render::Bars::Ascii, None))?;
        }
        out.flush()?;
        if o.once {
            return Ok(());
        }
    }
}
