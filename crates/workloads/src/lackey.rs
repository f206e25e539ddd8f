//! Importer for `valgrind --tool=lackey --trace-mem=yes` output, streamed
//! from disk.
//!
//! Lackey prints one line per memory access: `I  addr,size` (instruction
//! fetch), ` L addr,size` (load), ` S addr,size` (store), ` M addr,size`
//! (modify: a load then a store). Lines starting with `==` or `--` are
//! valgrind's own messages. Data accesses are kept (a modify becomes a load
//! and a store); instruction fetches are dropped, as tiering concerns data
//! pages. The traced program is single-threaded from lackey's point of
//! view: every access is core 0.
//!
//! A trace of a real program runs to gigabytes, so it is never held in
//! memory: [`scan`] reads it once to check every line and find the pages it
//! touches (the regions the machine must map), and [`LackeyReader`] reads
//! it again as the run consumes it, a buffer at a time. `thermocline
//! convert` writes the binary trace once, which replays without parsing.

use crate::{Access, WorkloadError};
use std::io::Read;
use thermocline_vocab::RegionInfo;

/// One past the highest user address of 4-level paging.
const USER_VA_END: u64 = 1 << 47;

/// Read buffer: large enough that a read is rarely a system call per line.
const BUF_BYTES: usize = 1 << 20;

/// What one line of lackey output holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Line {
    /// Valgrind's messages, blank lines, instruction fetches.
    Nothing,
    /// A load or a store.
    One(Access),
    /// A modify: a load, then a store, of the same address.
    LoadStore(u64),
}

fn data(va: u64, write: bool) -> Access {
    Access {
        va,
        asid: 0,
        core: 0,
        write,
    }
}

/// Parses one line (without its newline), allocating nothing.
#[inline]
fn parse_line(line: &[u8]) -> Result<Line, String> {
    // Lackey's own layout, "I  addr,size" or " K addr,size": taken without
    // trimming or searching; anything else goes the careful way.
    if let Some(parsed) = parse_usual(line) {
        return Ok(parsed);
    }
    parse_any(line)
}

/// [`parse_line`] for a line in exactly lackey's layout with a size of one
/// or two digits; `None` for anything else (errors included).
#[inline]
fn parse_usual(line: &[u8]) -> Option<Line> {
    let (kind, rest) = match line {
        [b'I', b' ', b' ', rest @ ..] => (b'I', rest),
        [b' ', k @ (b'L' | b'S' | b'M'), b' ', rest @ ..] => (*k, rest),
        _ => return None,
    };
    let addr = match rest {
        [a @ .., b',', d] if d.is_ascii_digit() && *d != b'0' => a,
        [a @ .., b',', d, e] if d.is_ascii_digit() && *d != b'0' && e.is_ascii_digit() => a,
        _ => return None,
    };
    let va = hex(addr).filter(|&va| va < USER_VA_END)?;
    Some(match kind {
        b'I' => Line::Nothing,
        b'L' => Line::One(data(va, false)),
        b'S' => Line::One(data(va, true)),
        _ => Line::LoadStore(va),
    })
}

/// [`parse_line`] for any spacing, with the reason a line is refused.
fn parse_any(line: &[u8]) -> Result<Line, String> {
    if line.starts_with(b"==") || line.starts_with(b"--") {
        return Ok(Line::Nothing);
    }
    let t = line.trim_ascii();
    if t.is_empty() {
        return Ok(Line::Nothing);
    }
    let shown = || String::from_utf8_lossy(line).into_owned();
    let (kind, rest) = (t[0], &t[1..]);
    if !matches!(kind, b'I' | b'L' | b'S' | b'M') {
        return Err(format!(
            "expected a lackey line (I, L, S or M), got {:?}",
            shown()
        ));
    }
    // Every lackey line has both fields; one without its size is where a
    // cut (truncated) file ends, or a corrupt line.
    let comma = rest.iter().position(|&b| b == b',').ok_or_else(|| {
        format!(
            "expected `KIND addr,size`, got {:?} (a truncated file?)",
            shown()
        )
    })?;
    let (addr, size) = (rest[..comma].trim_ascii(), rest[comma + 1..].trim_ascii());
    if !(1..=5).contains(&size.len())
        || !size.iter().all(u8::is_ascii_digit)
        || size.iter().all(|&b| b == b'0')
    {
        return Err(format!(
            "bad access size {:?} in {:?} (a truncated file?)",
            String::from_utf8_lossy(size),
            shown()
        ));
    }
    let va = hex(addr).ok_or_else(|| format!("bad address {:?}", String::from_utf8_lossy(addr)))?;
    // Both simulated machines have 4-level paging: user addresses below
    // 2^47. A 5-level (LA57) trace cannot be replayed on them.
    if va >= USER_VA_END {
        return Err(format!(
            "address {} is above the 47-bit user address space of 4-level paging",
            String::from_utf8_lossy(addr)
        ));
    }
    Ok(match kind {
        b'I' => Line::Nothing,
        b'L' => Line::One(data(va, false)),
        b'S' => Line::One(data(va, true)),
        _ => Line::LoadStore(va),
    })
}

/// The value of each hexadecimal digit; `NOT_HEX` for other bytes.
const HEX: [u8; 256] = {
    let mut t = [NOT_HEX; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};
const NOT_HEX: u8 = 0xff;

/// A hexadecimal number of 1 to 16 digits.
fn hex(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 16 {
        return None;
    }
    let mut v = 0u64;
    for &b in s {
        let d = HEX[b as usize];
        if d == NOT_HEX {
            return None;
        }
        v = v << 4 | u64::from(d);
    }
    Some(v)
}

/// Lines of a lackey file, each with its number, cut out of one large
/// buffer in place (a line is copied only when it straddles two reads).
struct Lines<R> {
    reader: R,
    data: Vec<u8>,
    /// The unread bytes are `data[at..end]`.
    at: usize,
    end: usize,
    eof: bool,
    number: u64,
    bytes: u64,
}

impl<R: Read> Lines<R> {
    fn new(reader: R) -> Self {
        Lines {
            reader,
            data: vec![0; BUF_BYTES],
            at: 0,
            end: 0,
            eof: false,
            number: 0,
            bytes: 0,
        }
    }

    /// The next line, without its newline, and its number; `None` at the
    /// end of the file.
    fn raw(&mut self, file: &str) -> Result<Option<(std::ops::Range<usize>, u64)>, WorkloadError> {
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.data[self.at..self.end]) {
                let line = self.at..self.at + i;
                self.at += i + 1;
                self.bytes += i as u64 + 1;
                self.number += 1;
                return Ok(Some((line, self.number)));
            }
            if self.eof {
                if self.at == self.end {
                    return Ok(None);
                }
                // the last line, without a newline
                let line = self.at..self.end;
                self.bytes += (self.end - self.at) as u64;
                self.at = self.end;
                self.number += 1;
                return Ok(Some((line, self.number)));
            }
            // keep the partial line, read more after it
            self.data.copy_within(self.at..self.end, 0);
            self.end -= self.at;
            self.at = 0;
            if self.end == self.data.len() {
                let grown = self.data.len() * 2;
                self.data.resize(grown, 0);
            }
            let n =
                self.reader
                    .read(&mut self.data[self.end..])
                    .map_err(|e| WorkloadError::File {
                        file: file.to_string(),
                        msg: format!("read failed after line {}: {e}", self.number),
                    })?;
            self.eof = n == 0;
            self.end += n;
        }
    }

    /// The next line parsed and checked, `None` at the end of the file.
    fn next(&mut self, file: &str) -> Result<Option<Line>, WorkloadError> {
        let Some((range, number)) = self.raw(file)? else {
            return Ok(None);
        };
        parse_line(&self.data[range])
            .map(Some)
            .map_err(|msg| WorkloadError::AtLine {
                file: file.to_string(),
                line: number as usize,
                msg,
            })
    }
}

/// What a first pass over a lackey file found.
#[derive(Clone, Debug, PartialEq)]
pub struct Scan {
    /// Regions covering the touched pages (see [`crate::trace::regions_of`]).
    pub regions: Vec<RegionInfo>,
    /// Data accesses (a modify counts two).
    pub accesses: u64,
}

/// Reads a lackey file once with bounded memory: checks every line and
/// collects the pages it touches. `progress(bytes read, file bytes)` is
/// called every few megabytes.
pub fn scan(path: &str, progress: &mut dyn FnMut(u64, u64)) -> Result<Scan, WorkloadError> {
    let file = open(path)?;
    let total = file.metadata().map(|m| m.len()).unwrap_or(0);
    scan_from(file, path, total, progress)
}

fn scan_from(
    reader: impl Read,
    path: &str,
    total: u64,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Scan, WorkloadError> {
    let mut lines = Lines::new(reader);
    let mut pages = crate::trace::PageSet::default();
    let mut accesses = 0u64;
    let mut reported = 0u64;
    while let Some(line) = lines.next(path)? {
        match line {
            Line::Nothing => {}
            Line::One(a) => {
                pages.insert(a.va);
                accesses += 1;
            }
            Line::LoadStore(va) => {
                pages.insert(va);
                accesses += 2;
            }
        }
        if lines.bytes - reported >= 8 << 20 {
            reported = lines.bytes;
            progress(reported, total);
        }
    }
    progress(lines.bytes, total.max(lines.bytes));
    if accesses == 0 {
        return Err(WorkloadError::File {
            file: path.to_string(),
            msg: "no data accesses (was it made with --trace-mem=yes?)".into(),
        });
    }
    Ok(Scan {
        regions: pages.regions(),
        accesses,
    })
}

/// Scans already done in this process, by path, size and modification
/// time: `compare` runs many managers over one file and scans it once.
static SCANS: std::sync::Mutex<Vec<(Identity, Scan)>> = std::sync::Mutex::new(Vec::new());

/// What tells one version of a file from another.
type Identity = (String, u64, Option<std::time::SystemTime>);

fn identity(path: &str) -> Result<Identity, WorkloadError> {
    let m = open(path)?.metadata().map_err(|e| WorkloadError::File {
        file: path.to_string(),
        msg: format!("cannot read: {e}"),
    })?;
    Ok((path.to_string(), m.len(), m.modified().ok()))
}

/// [`scan`], or its result from earlier in this process if the file has
/// not changed since.
pub fn scanned_with_progress(
    path: &str,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Scan, WorkloadError> {
    let id = identity(path)?;
    let cached = |id: &Identity| {
        let scans = SCANS.lock().unwrap_or_else(|e| e.into_inner());
        scans.iter().find(|(k, _)| k == id).map(|(_, s)| s.clone())
    };
    if let Some(s) = cached(&id) {
        return Ok(s);
    }
    let s = scan(path, progress)?;
    SCANS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((id, s.clone()));
    Ok(s)
}

/// [`scanned_with_progress`] without progress.
pub fn scanned(path: &str) -> Result<Scan, WorkloadError> {
    scanned_with_progress(path, &mut |_, _| {})
}

fn open(path: &str) -> Result<std::fs::File, WorkloadError> {
    std::fs::File::open(path).map_err(|e| WorkloadError::File {
        file: path.to_string(),
        msg: format!("cannot read: {e}"),
    })
}

/// Streams the data accesses of a lackey file (checked by [`scan`] first).
pub struct LackeyReader {
    path: String,
    lines: Lines<std::fs::File>,
    /// The store half of a modify that did not fit the last buffer.
    pending: Option<Access>,
}

impl LackeyReader {
    /// Opens `path` for replay from its first line.
    pub fn open(path: &str) -> Result<Self, WorkloadError> {
        Ok(LackeyReader {
            path: path.to_string(),
            lines: Lines::new(open(path)?),
            pending: None,
        })
    }

    pub(crate) fn fill(&mut self, buf: &mut [Access]) -> Result<usize, WorkloadError> {
        let mut n = 0;
        if let Some(a) = self.pending.take() {
            if buf.is_empty() {
                self.pending = Some(a);
                return Ok(0);
            }
            buf[0] = a;
            n = 1;
        }
        while n < buf.len() {
            // The scan checked every line: instruction fetches, most of a
            // trace, are skipped unread here.
            let Some((range, number)) = self.lines.raw(&self.path)? else {
                break;
            };
            let line = &self.lines.data[range];
            if line.first() == Some(&b'I') {
                continue;
            }
            let parsed = parse_line(line).map_err(|msg| WorkloadError::AtLine {
                file: self.path.clone(),
                line: number as usize,
                msg,
            })?;
            match parsed {
                Line::Nothing => {}
                Line::One(a) => {
                    buf[n] = a;
                    n += 1;
                }
                Line::LoadStore(va) => {
                    buf[n] = data(va, false);
                    n += 1;
                    if n < buf.len() {
                        buf[n] = data(va, true);
                        n += 1;
                    } else {
                        self.pending = Some(data(va, true));
                    }
                }
            }
        }
        Ok(n)
    }
}

/// Parses lackey output held in memory; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<Vec<Access>, WorkloadError> {
    let mut lines = Lines::new(text.as_bytes());
    let mut out = Vec::new();
    while let Some(line) = lines.next(file)? {
        match line {
            Line::Nothing => {}
            Line::One(a) => out.push(a),
            Line::LoadStore(va) => out.extend([data(va, false), data(va, true)]),
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

/// Reads a whole lackey file into memory (small files and tests; runs
/// stream with [`scan`] and [`LackeyReader`]).
pub fn load(path: &str) -> Result<Vec<Access>, WorkloadError> {
    let mut text = Vec::new();
    open(path)?
        .read_to_end(&mut text)
        .map_err(|e| WorkloadError::File {
            file: path.to_string(),
            msg: format!("cannot read: {e}"),
        })?;
    parse(&String::from_utf8_lossy(&text), path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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

    fn line_strategy() -> impl Strategy<Value = String> {
        prop_oneof![
            (0u64..1 << 40).prop_map(|a| format!("I  {a:08x},3")),
            (0u64..1 << 40, 1u32..64).prop_map(|(a, s)| format!(" L {a:x},{s}")),
            (0u64..1 << 40, 1u32..64).prop_map(|(a, s)| format!(" S {a:x},{s}")),
            (0u64..1 << 40, 1u32..64).prop_map(|(a, s)| format!(" M {a:x},{s}")),
            Just("==42== a valgrind message".to_string()),
        ]
    }

    proptest! {
        /// The fast path takes only lines the careful parser takes, and
        /// reads them the same.
        #[test]
        fn the_fast_path_agrees_with_the_careful_parser(
            line in prop_oneof![
                line_strategy(),
                "[ IL SM,0-9a-fA-F=x-]{0,24}",
                (0u64..u64::MAX, 0u32..200).prop_map(|(a, s)| format!(" L {a:x},{s}")),
            ]
        ) {
            if let Some(fast) = parse_usual(line.as_bytes()) {
                prop_assert_eq!(Ok(fast), parse_any(line.as_bytes()));
            }
        }

        /// Streaming through any buffer size gives the accesses that parsing
        /// the whole text gives, and the scan counts them and covers every
        /// page they touch.
        #[test]
        fn streaming_replays_what_parsing_the_whole_file_gives(
            lines in proptest::collection::vec(line_strategy(), 1..200),
            buf_len in 1usize..7,
        ) {
            let text = lines.join("\n") + "\n";
            let want = parse(&text, "t").unwrap_or_default();
            let path = std::env::temp_dir().join(format!("tc-lk-{}-{buf_len}", std::process::id()));
            std::fs::write(&path, &text).unwrap();
            let path = path.to_str().unwrap();
            let mut got = Vec::new();
            let mut r = LackeyReader::open(path).unwrap();
            let mut buf = vec![Access::default(); buf_len];
            loop {
                let n = r.fill(&mut buf).unwrap();
                if n == 0 { break; }
                got.extend_from_slice(&buf[..n]);
            }
            prop_assert_eq!(&got, &want);
            match scan(path, &mut |_, _| {}) {
                Ok(s) => {
                    prop_assert_eq!(s.accesses, want.len() as u64);
                    prop_assert_eq!(s.regions, crate::trace::regions_of(&want));
                }
                Err(_) => prop_assert!(want.is_empty()),
            }
            std::fs::remove_file(path).unwrap();
        }
    }
}
