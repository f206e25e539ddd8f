//! Whether the regions can fit at all: allocation on Linux overcommits, so a
//! config too large for the guest would otherwise end in the OOM killer's
//! SIGKILL, with no message, halfway through filling.

use super::MasimError;

const MIB: f64 = (1u64 << 20) as f64;

/// Memory plus swap in bytes, from `/proc/meminfo`'s text.
fn memory_and_swap(meminfo: &str) -> Option<u64> {
    let field = |name: &str| -> Option<u64> {
        let line = meminfo.lines().find(|l| l.starts_with(name))?;
        let kib: u64 = line[name.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        kib.checked_mul(1024)
    };
    field("MemTotal:")?.checked_add(field("SwapTotal:").unwrap_or(0))
}

/// An error if `needed` bytes exceed the memory and swap that `meminfo`
/// (the text of `/proc/meminfo`) reports; no check when it does not say.
pub(super) fn check(needed: u64, meminfo: &str) -> Result<(), MasimError> {
    match memory_and_swap(meminfo) {
        Some(have) if needed > have => Err(MasimError::Invalid(format!(
            "the regions need {:.1} MiB with their write counters, more than this machine's {:.1} MiB of memory and swap (try --size-scale)",
            needed as f64 / MIB,
            have as f64 / MIB
        ))),
        _ => Ok(()),
    }
}

/// [`check`] against this machine's `/proc/meminfo` (none where it cannot
/// be read: the allocation itself still reports what it can).
pub(super) fn check_here(needed: u64) -> Result<(), MasimError> {
    match std::fs::read_to_string("/proc/meminfo") {
        Ok(text) => check(needed, &text),
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMINFO: &str =
        "MemTotal:        2000000 kB\nMemFree:          100000 kB\nSwapTotal:       1000000 kB\n";

    #[test]
    fn rejects_more_than_memory_and_swap() {
        assert!(check(3_000_000 * 1024, MEMINFO).is_ok());
        let e = check(3_000_001 * 1024, MEMINFO).unwrap_err().to_string();
        assert!(e.contains("--size-scale"), "{e}");
        // Unreadable or unfamiliar text: no verdict.
        assert!(check(u64::MAX, "").is_ok());
        assert!(check(u64::MAX, "MemTotal: lots\n").is_ok());
    }
}
