//! Byte sizes as users write them ("4KiB", "1.5GiB", "512M", "50%").

use serde::{Deserialize, Serialize};
use std::fmt;

/// A size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ByteSize(pub u64);

impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
        let mut v = self.0 as f64;
        let mut u = 0;
        while v >= 1024.0 && u + 1 < UNITS.len() {
            v /= 1024.0;
            u += 1;
        }
        if u == 0 {
            write!(f, "{} B", self.0)
        } else {
            write!(f, "{v:.1} {}", UNITS[u])
        }
    }
}

/// A malformed size.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("bad size {text:?}: {why} (examples: 4096, 64KiB, 1.5GiB, 2T, 50%)")]
pub struct SizeError {
    text: String,
    why: &'static str,
}

/// Parses "123", "4k", "4KiB", "1.5GB", "2T". Binary multiples throughout (a
/// memory tool's "GB" means GiB, as in `free -g` and DAMON's tools).
pub fn parse_size(text: &str) -> Result<ByteSize, SizeError> {
    let err = |why| SizeError {
        text: text.to_string(),
        why,
    };
    let t = text.trim();
    // "1e30": a plain number in any notation Rust reads, in bytes.
    if let Ok(v) = t.parse::<f64>() {
        if !v.is_finite() {
            return Err(err("not a number"));
        }
        if v < 0.0 {
            return Err(err("negative"));
        }
        return bytes_of(v, 1, err);
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    if num.is_empty() {
        return Err(err("no number"));
    }
    let value: f64 = num.parse().map_err(|_| err("not a number"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return Err(err("unknown unit")),
    };
    bytes_of(value, mult, err)
}

/// `value` units of `mult` bytes, refused above 8 EiB (half of u64, so
/// that sums of a few sizes cannot overflow).
fn bytes_of(
    value: f64,
    mult: u64,
    err: impl Fn(&'static str) -> SizeError,
) -> Result<ByteSize, SizeError> {
    let bytes = value * mult as f64;
    if !bytes.is_finite() || bytes > (u64::MAX / 2) as f64 {
        return Err(err("too large: at most 8 EiB"));
    }
    Ok(ByteSize(bytes.round() as u64))
}

/// A tier capacity: absolute, or a percentage of the workload's footprint.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum CapacitySpec {
    /// A size in bytes.
    Bytes(u64),
    /// A percentage (0-100 or more) of the footprint.
    PercentOfFootprint(f64),
}

impl CapacitySpec {
    /// Parses "50%" or a size.
    pub fn parse(text: &str) -> Result<Self, SizeError> {
        let t = text.trim();
        if let Some(p) = t.strip_suffix('%') {
            let v: f64 = p.trim().parse().map_err(|_| SizeError {
                text: text.to_string(),
                why: "not a percentage",
            })?;
            if !(0.0..=100_000.0).contains(&v) {
                return Err(SizeError {
                    text: text.to_string(),
                    why: "percentage out of range",
                });
            }
            return Ok(CapacitySpec::PercentOfFootprint(v));
        }
        parse_size(t).map(|b| CapacitySpec::Bytes(b.0))
    }

    /// Resolves against a footprint in bytes.
    pub fn resolve(self, footprint: u64) -> u64 {
        match self {
            CapacitySpec::Bytes(b) => b,
            CapacitySpec::PercentOfFootprint(p) => (footprint as f64 * p / 100.0).round() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_common_forms() {
        assert_eq!(parse_size("4096").unwrap().0, 4096);
        assert_eq!(parse_size("4KiB").unwrap().0, 4096);
        assert_eq!(parse_size("1.5G").unwrap().0, 3 << 29);
        assert_eq!(parse_size("2 TB").unwrap().0, 2 << 40);
        assert!(parse_size("lots").is_err());
        assert!(parse_size("3 parsecs").is_err());
        assert_eq!(parse_size("1e6").unwrap().0, 1_000_000);
        for huge in ["1e30", "18446744073709551615", "9EiB", "10000000T"] {
            let e = parse_size(huge).unwrap_err().to_string();
            assert!(
                e.contains("too large: at most 8 EiB") || e.contains("unknown unit"),
                "{huge}: {e}"
            );
        }
        assert!(parse_size("1e30")
            .unwrap_err()
            .to_string()
            .contains("too large"));
        assert!(parse_size("-5")
            .unwrap_err()
            .to_string()
            .contains("negative"));
        assert!(parse_size("nan").is_err() && parse_size("inf").is_err());
        assert_eq!(CapacitySpec::parse("50%").unwrap().resolve(1000), 500);
        assert!(CapacitySpec::parse("-5%").is_err());
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in ".{0,12}") {
            let _ = parse_size(&s);
            let _ = CapacitySpec::parse(&s);
        }
    }
}
