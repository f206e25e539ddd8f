//! `thermocline convert`: a trace parsed once.

use crate::output::{check_output, run_inputs};
use crate::progress::counter_bar;
use std::time::Instant;

pub fn convert_cmd(input: &str, out: &str) -> anyhow::Result<()> {
    check_output(out, &run_inputs(None, input))?;
    let started = Instant::now();
    let bar = counter_bar("{msg} [{bar:30}] {pos}/{len} ({eta} left)");
    let n = thermocline_engine::traces::convert(input, out, &mut |phase, done, total| {
        if bar.message() != phase {
            bar.set_message(phase.to_string());
        }
        bar.set_length(total);
        bar.set_position(done);
    })?;
    bar.finish_and_clear();
    let bytes = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    eprintln!(
        "{out}: {n} accesses, {:.1} MB, in {:.1} s",
        bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
