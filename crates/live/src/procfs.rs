//! What /proc says about a process and the machine: mappings, fault
//! counters, privileges, /proc/vmstat and memory pressure (PSI).

use crate::LiveError;
use std::path::{Path, PathBuf};

/// One line of /proc/PID/maps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// Readable.
    pub read: bool,
    /// Writable.
    pub write: bool,
    /// Shared (`s`) rather than private (`p`).
    pub shared: bool,
    /// The backing file or pseudo-name (`[heap]`, `[stack]`), empty for
    /// anonymous memory.
    pub path: String,
}

impl Mapping {
    /// Private anonymous memory (heap, anonymous mmap): what tiering moves.
    pub fn is_anonymous(&self) -> bool {
        !self.shared && (self.path.is_empty() || self.path == "[heap]" || self.path == "[stack]")
    }

    /// Length in bytes.
    pub fn len(&self) -> u64 {
        self.end - self.start
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// Reads a whole /proc or /sys file, the errno typed (a vanished /proc/PID
/// directory is [`LiveError::Exited`]).
pub fn read(path: &Path, pid: Option<i32>) -> Result<String, LiveError> {
    std::fs::read_to_string(path).map_err(|e| LiveError::io(path.display().to_string(), e, pid))
}

fn parse_error(path: &Path, line: usize, why: impl Into<String>) -> LiveError {
    LiveError::Parse {
        path: path.to_path_buf(),
        line,
        why: why.into(),
    }
}

/// Parses maps text (`path` names it in errors).
pub fn parse_maps(text: &str, path: &Path) -> Result<Vec<Mapping>, LiveError> {
    text.lines()
        .enumerate()
        .map(|(i, line)| parse_maps_line(line, path, i + 1))
        .collect()
}

/// Parses one maps line (also the line that opens a mapping in smaps);
/// `n` is its line number, for errors.
fn parse_maps_line(line: &str, path: &Path, n: usize) -> Result<Mapping, LiveError> {
    let bad = |why: &str| parse_error(path, n, why);
    let mut f = line.split_ascii_whitespace();
    let range = f.next().ok_or_else(|| bad("empty line"))?;
    let perms = f.next().ok_or_else(|| bad("no permissions"))?.as_bytes();
    let (a, b) = range
        .split_once('-')
        .ok_or_else(|| bad("no address range"))?;
    let hex = |s: &str| u64::from_str_radix(s, 16).map_err(|_| bad("bad address"));
    let (start, end) = (hex(a)?, hex(b)?);
    if perms.len() < 4 || end < start {
        return Err(bad("bad permissions or range"));
    }
    // offset, device, inode, then the path (which may hold spaces)
    let path_field = f.nth(3).map(|first| {
        let rest: Vec<&str> = f.collect();
        std::iter::once(first)
            .chain(rest)
            .collect::<Vec<_>>()
            .join(" ")
    });
    Ok(Mapping {
        start,
        end,
        read: perms[0] == b'r',
        write: perms[1] == b'w',
        shared: perms[3] == b's',
        path: path_field.unwrap_or_default(),
    })
}

/// What /proc/PID/smaps says of one mapping's transparent huge pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThpEligible {
    /// The mapping's first byte.
    pub start: u64,
    /// One past its last byte.
    pub end: u64,
    /// `THPeligible: 1`: the kernel may back it with THPs (the
    /// system-wide setting, the mapping's madvise and prctl allow it);
    /// false where the field is missing.
    pub eligible: bool,
}

/// Parses smaps text for each mapping's `THPeligible:` field (`path`
/// names it in errors). Only the lines that open a mapping and that field
/// are parsed; the other fields are skipped unread.
pub fn parse_smaps_thp(text: &str, path: &Path) -> Result<Vec<ThpEligible>, LiveError> {
    let mut out: Vec<ThpEligible> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        // a field is `Key: value`; a mapping opens with its address range
        let first = line.split_ascii_whitespace().next().unwrap_or("");
        if let Some(key) = first.strip_suffix(':') {
            if key != "THPeligible" {
                continue;
            }
            let last = out
                .last_mut()
                .ok_or_else(|| parse_error(path, i + 1, "a field before any mapping"))?;
            last.eligible = match line[first.len()..].trim() {
                "1" => true,
                "0" => false,
                _ => return Err(parse_error(path, i + 1, "THPeligible is neither 0 nor 1")),
            };
            continue;
        }
        let m = parse_maps_line(line, path, i + 1)?;
        out.push(ThpEligible {
            start: m.start,
            end: m.end,
            eligible: false,
        });
    }
    Ok(out)
}

/// Which mappings of process `pid` may be backed by THPs
/// (/proc/PID/smaps; costly: the kernel walks every mapping's page tables
/// to write it).
pub fn thp_eligible(pid: i32) -> Result<Vec<ThpEligible>, LiveError> {
    let path = PathBuf::from(format!("/proc/{pid}/smaps"));
    parse_smaps_thp(&read(&path, Some(pid))?, &path)
}

/// The mappings of process `pid`.
pub fn maps(pid: i32) -> Result<Vec<Mapping>, LiveError> {
    let path = PathBuf::from(format!("/proc/{pid}/maps"));
    parse_maps(&read(&path, Some(pid))?, &path)
}

/// `key: value kB` fields of smaps_rollup / meminfo / status-like text.
pub fn kb_field(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix(key)?.strip_prefix(':')?;
        let mut it = rest.split_ascii_whitespace();
        let v: u64 = it.next()?.parse().ok()?;
        Some(match it.next() {
            Some("kB") => v * 1024,
            _ => v,
        })
    })
}

/// The summary of /proc/PID/smaps_rollup, bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Rollup {
    /// Resident.
    pub rss: u64,
    /// Resident anonymous.
    pub anonymous: u64,
    /// Anonymous in transparent huge pages.
    pub anon_huge: u64,
    /// Swapped out.
    pub swap: u64,
}

/// /proc/PID/smaps_rollup.
pub fn rollup(pid: i32) -> Result<Rollup, LiveError> {
    let text = read(Path::new(&format!("/proc/{pid}/smaps_rollup")), Some(pid))?;
    let f = |k| kb_field(&text, k).unwrap_or(0);
    Ok(Rollup {
        rss: f("Rss"),
        anonymous: f("Anonymous"),
        anon_huge: f("AnonHugePages"),
        swap: f("Swap"),
    })
}

/// A process's page-fault counters (/proc/PID/stat fields 10 and 12).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Faults {
    /// Minor faults (no I/O).
    pub minor: u64,
    /// Major faults (swap-ins from zram, say).
    pub major: u64,
}

/// Parses /proc/PID/stat text.
pub fn parse_stat_faults(text: &str, path: &Path) -> Result<Faults, LiveError> {
    // the command name (field 2) may hold spaces and parentheses: skip to
    // its last ')'
    let rest = text
        .rfind(')')
        .map(|i| &text[i + 1..])
        .ok_or_else(|| parse_error(path, 1, "no command name"))?;
    let f: Vec<&str> = rest.split_ascii_whitespace().collect();
    // rest[0] is field 3 (state): minflt is field 10, majflt field 12
    let num = |i: usize| {
        f.get(i)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| parse_error(path, 1, format!("no field {}", i + 3)))
    };
    Ok(Faults {
        minor: num(7)?,
        major: num(9)?,
    })
}

/// Process `pid`'s fault counters.
pub fn faults(pid: i32) -> Result<Faults, LiveError> {
    let path = PathBuf::from(format!("/proc/{pid}/stat"));
    parse_stat_faults(&read(&path, Some(pid))?, &path)
}

/// The counters of /proc/vmstat that tell what the kernel's own tiering
/// and migration did, in the order they are reported.
pub const VMSTAT_KEYS: [&str; 8] = [
    "pgpromote_success",
    "pgdemote_kswapd",
    "pgdemote_direct",
    "pgmigrate_success",
    "pgmigrate_fail",
    "numa_pages_migrated",
    "pswpin",
    "pswpout",
];

/// `(key, value)` of /proc/vmstat for `keys` (keys the kernel lacks are
/// left out).
pub fn vmstat(keys: &[&str]) -> Result<Vec<(String, u64)>, LiveError> {
    let text = read(Path::new("/proc/vmstat"), None)?;
    Ok(text
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(' ')?;
            keys.contains(&k)
                .then(|| Some((k.to_string(), v.trim().parse().ok()?)))?
        })
        .collect())
}

/// Memory pressure (/proc/pressure/memory): total stall time in us.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Pressure {
    /// Some task stalled on memory.
    pub some_us: u64,
    /// Every task stalled on memory.
    pub full_us: u64,
}

/// Parses PSI text.
pub fn parse_pressure(text: &str) -> Option<Pressure> {
    let total = |kind: &str| {
        text.lines()
            .find(|l| l.starts_with(kind))?
            .split_ascii_whitespace()
            .find_map(|f| f.strip_prefix("total="))?
            .parse()
            .ok()
    };
    Some(Pressure {
        some_us: total("some")?,
        full_us: total("full").unwrap_or(0),
    })
}

/// The effective capabilities of this process (/proc/self/status CapEff).
pub fn effective_caps() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("CapEff:"))
                .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        })
        .unwrap_or(0)
}

/// Capability numbers (linux/capability.h) the live actions need.
pub mod cap {
    /// `move_pages` of another user's process, and MPOL_MF_MOVE_ALL.
    pub const SYS_NICE: u32 = 23;
    /// PFNs in pagemap, DAMON's sysfs files (root-owned).
    pub const SYS_ADMIN: u32 = 21;
    /// process_madvise on another user's process (with ptrace access).
    pub const SYS_PTRACE: u32 = 19;
}

/// Whether this process has capability `c` in effect.
pub fn has_cap(c: u32) -> bool {
    effective_caps() & (1 << c) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_lines_parse_with_paths_that_hold_spaces() {
        let text = "55d0c000-55d0e000 r--p 00000000 fe:01 123 /usr/bin/cat\n\
                    7f00-8f00 rw-p 00000000 00:00 0 \n\
                    9000-a000 rw-p 00000000 00:00 0                          [heap]\n\
                    a000-b000 rw-s 00000000 00:05 7 /dev/shm/a b (deleted)\n";
        let m = parse_maps(text, Path::new("maps")).unwrap();
        assert_eq!(m.len(), 4);
        assert_eq!(m[0].path, "/usr/bin/cat");
        assert!(!m[0].is_anonymous());
        assert!(m[1].is_anonymous() && m[1].write && m[1].path.is_empty());
        assert!(m[2].is_anonymous());
        assert_eq!(m[3].path, "/dev/shm/a b (deleted)");
        assert!(m[3].shared && !m[3].is_anonymous());
        assert_eq!(m[1].len(), 0x1000);
    }

    #[test]
    fn a_bad_maps_line_names_its_line() {
        let e = parse_maps(
            "1000-2000 rw-p 0 0 0\nzz-1 rw-p\n",
            Path::new("/proc/9/maps"),
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "/proc/9/maps:2: bad address");
    }

    /// Two mappings of a 6.12 kernel's /proc/PID/smaps, as printed (masim's
    /// region under THP "always", then one under MADV_NOHUGEPAGE), and a
    /// file mapping without the field.
    const SMAPS: &str = "\
7f3a40000000-7f3a41000000 rw-p 00000000 00:00 0 
Size:              16384 kB
KernelPageSize:        4 kB
MMUPageSize:           4 kB
Rss:               16384 kB
Pss:               16384 kB
Pss_Dirty:         16384 kB
Shared_Clean:          0 kB
Shared_Dirty:          0 kB
Private_Clean:         0 kB
Private_Dirty:     16384 kB
Referenced:        16384 kB
Anonymous:         16384 kB
KSM:                   0 kB
LazyFree:              0 kB
AnonHugePages:     16384 kB
ShmemPmdMapped:        0 kB
FilePmdMapped:         0 kB
Shared_Hugetlb:        0 kB
Private_Hugetlb:       0 kB
Swap:                  0 kB
SwapPss:               0 kB
Locked:                0 kB
THPeligible:           1
ProtectionKey:         0
VmFlags: rd wr mr mw me ac sd 
7f3a41000000-7f3a41200000 rw-p 00000000 00:00 0                          [heap]
Size:               2048 kB
AnonHugePages:         0 kB
THPeligible:           0
VmFlags: rd wr mr mw me ac sd nh 
55d0c000-55d0e000 r--p 00000000 fe:01 123 /usr/bin/cat
Size:                  8 kB
VmFlags: rd mr mw me sd 
";

    #[test]
    fn smaps_gives_each_mappings_thp_eligibility() {
        let t = parse_smaps_thp(SMAPS, Path::new("smaps")).unwrap();
        assert_eq!(
            t,
            vec![
                ThpEligible {
                    start: 0x7f3a_4000_0000,
                    end: 0x7f3a_4100_0000,
                    eligible: true
                },
                ThpEligible {
                    start: 0x7f3a_4100_0000,
                    end: 0x7f3a_4120_0000,
                    eligible: false
                },
                ThpEligible {
                    start: 0x55d0c000,
                    end: 0x55d0e000,
                    eligible: false
                },
            ]
        );
        assert_eq!(parse_smaps_thp("", Path::new("smaps")).unwrap(), vec![]);
    }

    #[test]
    fn bad_smaps_is_an_error_naming_its_line() {
        let p = Path::new("/proc/9/smaps");
        let e = |text: &str| parse_smaps_thp(text, p).unwrap_err().to_string();
        assert_eq!(
            e("THPeligible: 1\n"),
            "/proc/9/smaps:1: a field before any mapping"
        );
        assert_eq!(
            e("1000-2000 rw-p 0 00:00 0\nTHPeligible: yes\n"),
            "/proc/9/smaps:2: THPeligible is neither 0 nor 1"
        );
        assert_eq!(
            e("1000-2000 rw-p 0 00:00 0\nTHPeligible:\n"),
            "/proc/9/smaps:2: THPeligible is neither 0 nor 1"
        );
        assert_eq!(
            e("1000-2000 rw-p 0 00:00 0\nnot a line\n"),
            "/proc/9/smaps:2: no address range"
        );
    }

    #[test]
    fn fault_counters_skip_a_command_name_with_parentheses() {
        let text = "42 (a (b) c) S 1 42 42 0 -1 4194560 1234 0 56 0 1 2 0 0 20 0 1 0";
        let f = parse_stat_faults(text, Path::new("stat")).unwrap();
        assert_eq!(
            f,
            Faults {
                minor: 1234,
                major: 56
            }
        );
    }

    #[test]
    fn own_counters_and_mappings_read() {
        let pid = std::process::id() as i32;
        assert!(maps(pid).unwrap().iter().any(|m| m.is_anonymous()));
        assert!(faults(pid).unwrap().minor > 0);
        assert!(rollup(pid).unwrap().rss > 0);
        let t = thp_eligible(pid).unwrap();
        assert!(!t.is_empty() && t.iter().all(|x| x.start < x.end));
    }

    #[test]
    fn pressure_and_kb_fields_parse() {
        let p = parse_pressure(
            "some avg10=0.00 avg60=0.00 avg300=0.00 total=15\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=4\n",
        )
        .unwrap();
        assert_eq!(
            p,
            Pressure {
                some_us: 15,
                full_us: 4
            }
        );
        assert_eq!(
            kb_field("Rss:   12 kB\nSwap: 0 kB\n", "Rss"),
            Some(12 * 1024)
        );
        assert_eq!(kb_field("MemTotal: 3 kB", "Mem"), None);
    }

    #[test]
    fn a_gone_process_is_an_exit_not_an_io_error() {
        // pid_max is at most 2^22: this pid cannot exist
        let e = faults(i32::MAX).unwrap_err();
        assert!(
            matches!(e, LiveError::Exited { pid } if pid == i32::MAX),
            "{e}"
        );
    }
}
