//! Importer for `valgrind --tool=lackey --trace-mem=yes` output.
//!
//! Lackey prints one line per memory access: `I  addr,size` (instruction
//! fetch), ` L addr,size` (load), ` S addr,size` (store), ` M addr,size`
//! (modify: a load then a store). Lines starting with `==` are valgrind's own
//! messages. Data accesses are kept (a modify becomes a load and a store);
//! instruction fetches are dropped, as tiering concerns data pages. The traced
//! program is single-threaded from lackey's point of view: every access is core 0.

use crate::{Access, WorkloadError};

/// One past the highest user address of 4-level paging.
const USER_VA_END: u64 = 1 << 47;

/// Parses lackey output; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<Vec<Access>, WorkloadError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("==") || line.starts_with("--") || line.trim().is_empty() {
            continue;
        }
        let err = |msg: String| WorkloadError::AtLine {
            file: file.to_string(),
            line: i + 1,
            msg,
        };
        let t = line.trim_start();
        // The first character, which need not be one byte in a corrupt file.
        let (kind, rest) = t.split_at(t.chars().next().map_or(0, char::len_utf8));
        // Every lackey line has both fields; one without its size is where
        // a cut (truncated) file ends, or a corrupt line.
        let (addr_text, size_text) = rest.trim().split_once(',').ok_or_else(|| {
            err(format!(
                "expected `KIND addr,size`, got {line:?} (a truncated file?)"
            ))
        })?;
        if !matches!(size_text.trim().parse::<u32>(), Ok(n) if n > 0) {
            return Err(err(format!(
                "bad access size {size_text:?} in {line:?} (a truncated file?)"
            )));
        }
        let parse_addr = || {
            let a = u64::from_str_radix(addr_text.trim(), 16)
                .map_err(|_| err(format!("bad address {addr_text:?}")))?;
            // Both simulated machines have 4-level paging: user addresses
            // below 2^47. A 5-level (LA57) trace cannot be replayed on them.
            if a >= USER_VA_END {
                return Err(err(format!(
                    "address {addr_text} is above the 47-bit user address space of 4-level paging"
                )));
            }
            Ok(a)
        };
        match kind {
            "I" => {
                parse_addr()?;
            }
            "L" | "S" => out.push(Access {
                va: parse_addr()?,
                asid: 0,
                core: 0,
                write: kind == "S",
            }),
            "M" => {
                let va = parse_addr()?;
                out.push(Access {
                    va,
                    asid: 0,
                    core: 0,
                    write: false,
                });
                out.push(Access {
                    va,
                    asid: 0,
                    core: 0,
                    write: true,
                });
            }
            _ => {
                return Err(err(format!(
                    "expected a lackey line (I, L, S or M), got {line:?}"
                )))
            }
        }
    }
    if out.is_empty() {
        return Err(WorkloadError::File {
            file: file.to_string(),
            msg: "no data accesses (was it made with --trace-mem=yes?)".into(),
        });
    }
    Ok(out)
}

/// Reads and parses a lackey file.
pub fn load(path: &str) -> Result<Vec<Access>, WorkloadError> {
    let bytes = std::fs::read(path).map_err(|e| WorkloadError::File {
        file: path.to_string(),
        msg: format!("cannot read: {e}"),
    })?;
    parse(&String::from_utf8_lossy(&bytes), path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lackey_lines() {
        let text = "==123== Lackey\nI  04001000,3\n L 1ffefffd70,8\n S 1ffefffd68,8\n M 0402a0b8,4\n==123== done\n";
        let a = parse(text, "t").unwrap();
        assert_eq!(a.len(), 4);
        assert_eq!(a[0].va, 0x1ffefffd70);
        assert!(!a[0].write && a[1].write && !a[2].write && a[3].write);
        let e = parse("I  0400,3\n X zz\n", "t.lk").unwrap_err().to_string();
        assert!(e.starts_with("t.lk:2:"), "{e}");
        assert!(parse(" L nothex,8\n", "t").is_err());
    }

    /// A file cut in the middle of a line is refused at that line, whether
    /// the cut falls in the address or in the size.
    #[test]
    fn a_truncated_file_is_an_error_at_its_last_line() {
        let whole = "==1== Lackey\n L 1ffefffd70,8\n S 1ffefffd68,8\n";
        for cut in [" L 1ffe", " L 1ffefffd70", " L 1ffefffd70,"] {
            let text = format!("{whole}{cut}");
            let e = parse(&text, "t.lk").unwrap_err().to_string();
            assert!(
                e.starts_with("t.lk:4:") && e.contains("truncated"),
                "{cut:?}: {e}"
            );
        }
    }

    /// The last user address of 4-level paging is accepted; the next one,
    /// which the machines would alias onto a lower page, is refused with its
    /// line.
    #[test]
    fn addresses_beyond_four_level_paging_are_refused() {
        assert_eq!(
            parse(" L 7fffffffffff,1\n", "t").unwrap()[0].va,
            (1 << 47) - 1
        );
        let e = parse(" L 1000,8\n S 800000000000,8\n", "t.lk")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("t.lk:2:") && e.contains("47-bit"), "{e}");
    }
}
