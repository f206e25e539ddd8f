//! A run too long to be meant: refused before it starts, unless `--yes`.

use thermocline_engine::config::RunConfig;
use thermocline_engine::setup::BackendKind;
use thermocline_engine::ConfigError;

/// Accesses per second of wall time the exact machine makes end to end at
/// best on a 2-core machine: `thermocline run --workload
/// aerospike-read:threads=16 --manager thermostat-badgertrap --duration 30`
/// made 207 M accesses in 3.8 s (54 M/s); most runs are slower, so a run
/// refused here would take at least a day.
const FASTEST_ACCESSES_PER_S: f64 = 50e6;

/// A day of wall time.
const DAY_S: f64 = 86_400.0;

/// An error when `cfg` asks the exact machine for more accesses than it
/// makes in a day at its fastest (`workload.access_rate = 1e30`, a
/// duration of years), unless `yes`; the rate machine's cost does not grow
/// with the accesses, so it is never refused.
pub fn refuse_days(cfg: &RunConfig, yes: bool) -> anyhow::Result<()> {
    if yes {
        return Ok(());
    }
    let s = thermocline_engine::setup::setup(cfg)?;
    if s.backend != BackendKind::Exact {
        return Ok(());
    }
    let days = s.limit as f64 / FASTEST_ACCESSES_PER_S / DAY_S;
    if days < 1.0 {
        return Ok(());
    }
    Err(ConfigError::invalid(
        "run length",
        format!(
            "{:.3e} accesses would take at least {days:.0} days of wall time at {:.0} M accesses/s, the exact machine's fastest; shorten --duration, lower workload.access_rate, use --backend rate, or pass --yes to run it anyway",
            s.limit as f64,
            FASTEST_ACCESSES_PER_S / 1e6
        ),
    )
    .into())
}
