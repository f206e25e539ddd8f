//! The live subcommands: `probe` (and, as they land, `daemon`, `monitor`).

use anyhow::Context;
use thermocline_live::probe;

/// `thermocline probe [--pid P] [--json]`.
pub fn probe_cmd(pid: Option<i32>, json: bool) -> anyhow::Result<()> {
    let p = probe::probe(pid).with_context(|| match pid {
        Some(pid) => format!("probing this host and process {pid}"),
        None => "probing this host".to_string(),
    })?;
    if json {
        println!("{}", serde_json::to_string_pretty(&p)?);
    } else {
        print!("{}", probe::table(&p));
    }
    Ok(())
}
