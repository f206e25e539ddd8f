//! `thermocline convert`: a lackey text trace to the binary trace, parsed
//! once and replayed without parsing after, and a binary trace back to
//! lackey-style text (to read, or for tools that take lackey's format).

use crate::lackey::{self, LackeyReader};
use crate::trace::{TraceReader, TraceWriter};
use crate::{Access, WorkloadError};
use std::io::Write;

/// Accesses handled per read.
const BATCH: usize = 1 << 16;

/// Converts `lackey:IN` or `trace:IN` to `out` (a binary trace from lackey
/// text, lackey text from a binary trace); `progress(phase, done, total)`
/// reports bytes scanned (phase "scan") and accesses written ("write").
/// Returns the accesses written.
pub fn convert(
    input: &str,
    out: &str,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<u64, WorkloadError> {
    if let Some(path) = input.strip_prefix("lackey:") {
        let scan = lackey::scanned_with_progress(path, &mut |d, t| progress("scan", d, t))?;
        let mut r = LackeyReader::open(path)?;
        let mut w = TraceWriter::create(out, &scan.regions, 1)?;
        let done = pump(
            &mut |b| r.fill(b),
            &mut |a| w.push(a),
            scan.accesses,
            progress,
        )?;
        w.finish()?;
        Ok(done)
    } else if let Some(path) = input.strip_prefix("trace:") {
        let (mut r, _) = TraceReader::open(path)?;
        let total = r.records();
        let io = |e: std::io::Error| WorkloadError::File {
            file: out.to_string(),
            msg: format!("cannot write: {e}"),
        };
        let mut w =
            std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(out).map_err(io)?);
        writeln!(
            w,
            "==0== lackey-style text of the thermocline trace {path} (sizes are not kept: 8)"
        )
        .map_err(io)?;
        let done = pump(
            &mut |b| r.fill(b),
            &mut |a| writeln!(w, " {} {:08x},8", if a.write { 'S' } else { 'L' }, a.va).map_err(io),
            total,
            progress,
        )?;
        w.flush().map_err(io)?;
        Ok(done)
    } else {
        Err(WorkloadError::Invalid(format!(
            "convert reads lackey:PATH (valgrind --tool=lackey --trace-mem=yes output) or trace:PATH (a binary trace), got {input:?}"
        )))
    }
}

fn pump(
    fill: &mut dyn FnMut(&mut [Access]) -> Result<usize, WorkloadError>,
    put: &mut dyn FnMut(&Access) -> Result<(), WorkloadError>,
    total: u64,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<u64, WorkloadError> {
    let mut buf = vec![Access::default(); BATCH];
    let mut done = 0u64;
    loop {
        let n = fill(&mut buf)?;
        if n == 0 {
            break;
        }
        for a in &buf[..n] {
            put(a)?;
        }
        done += n as u64;
        progress("write", done, total);
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// lackey -> trace -> lackey keeps every data access, in order.
    #[test]
    fn a_round_trip_keeps_every_data_access() {
        let dir = std::env::temp_dir().join(format!("tc-convert-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = |n: &str| dir.join(n).to_str().unwrap().to_string();
        let text = "==1== Lackey\nI  04001000,3\n L 1ffefffd70,8\n S 1ffefffd68,8\n M 0402a0b8,4\n";
        std::fs::write(p("a.lk"), text).unwrap();
        let n = convert(
            &format!("lackey:{}", p("a.lk")),
            &p("a.trace"),
            &mut |_, _, _| {},
        )
        .unwrap();
        assert_eq!(n, 4);
        let m = convert(
            &format!("trace:{}", p("a.trace")),
            &p("b.lk"),
            &mut |_, _, _| {},
        )
        .unwrap();
        assert_eq!(m, 4);
        let again = lackey::load(&p("b.lk")).unwrap();
        assert_eq!(again, lackey::load(&p("a.lk")).unwrap());
        let e = convert("zipf-1g", &p("c"), &mut |_, _, _| {}).unwrap_err();
        assert!(e.to_string().contains("lackey:PATH"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
