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
    match usual_prefix(line) {
        Some((parsed, used)) if used == line.len() => Ok(parsed),
        _ => parse_any(line),
    }
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

/// A file read in large chunks of whole lines: a line is copied only when
/// it straddles two reads, and lines are found a chunk at a time.
struct Chunks<R> {
    reader: R,
    data: Vec<u8>,
    /// `data[cut..end]` is the start of a line not yet handed out.
    cut: usize,
    end: usize,
    eof: bool,
}

impl<R: Read> Chunks<R> {
    fn new(reader: R) -> Self {
        Self::with_capacity(reader, BUF_BYTES)
    }

    fn with_capacity(reader: R, bytes: usize) -> Self {
        Chunks {
            reader,
            data: vec![0; bytes.max(1)],
            cut: 0,
            end: 0,
            eof: false,
        }
    }

    /// The next run of whole lines, each ending in a newline but perhaps
    /// the file's last; `None` at the end of the file.
    fn next(&mut self, file: &str) -> Result<Option<&[u8]>, WorkloadError> {
        self.data.copy_within(self.cut..self.end, 0);
        self.end -= self.cut;
        self.cut = 0;
        loop {
            if self.eof {
                if self.end == 0 {
                    return Ok(None);
                }
                self.cut = self.end;
                return Ok(Some(&self.data[..self.end]));
            }
            if self.end == self.data.len() {
                // a line longer than the buffer: a corrupt file, most likely
                let grown = self.data.len() * 2;
                self.data.resize(grown, 0);
            }
            let n =
                self.reader
                    .read(&mut self.data[self.end..])
                    .map_err(|e| WorkloadError::File {
                        file: file.to_string(),
                        msg: format!("read failed: {e}"),
                    })?;
            let had = self.end;
            self.end += n;
            self.eof = n == 0;
            if let Some(i) = memchr::memrchr(b'\n', &self.data[had..self.end]) {
                self.cut = had + i + 1;
                return Ok(Some(&self.data[..self.cut]));
            }
        }
    }
}

/// Calls `f(line)` for every line of `chunk` (without its newline) and
/// returns the lines seen (the tests' model of [`each_parsed`]); stops at the first error, naming its line
/// (`first` is the number of the chunk's first line).
#[cfg(test)]
fn each_line(
    chunk: &[u8],
    first: u64,
    file: &str,
    mut f: impl FnMut(&[u8]) -> Result<(), String>,
) -> Result<u64, WorkloadError> {
    let mut start = 0;
    let mut seen = 0u64;
    let at = |seen: u64, msg: String| WorkloadError::AtLine {
        file: file.to_string(),
        line: (first + seen) as usize,
        msg,
    };
    for nl in memchr::memchr_iter(b'\n', chunk) {
        f(&chunk[start..nl]).map_err(|m| at(seen, m))?;
        seen += 1;
        start = nl + 1;
    }
    if start < chunk.len() {
        f(&chunk[start..]).map_err(|m| at(seen, m))?;
        seen += 1;
    }
    Ok(seen)
}

/// Calls `f` with every parsed line of `chunk` and returns the lines seen;
/// stops at the first error, naming its line (`first` is the number of
/// the chunk's first line). Lines in lackey's usual layout are parsed in
/// one pass over their bytes; any other goes through [`parse_line`].
fn each_parsed(
    chunk: &[u8],
    first: u64,
    file: &str,
    mut f: impl FnMut(Line),
) -> Result<u64, WorkloadError> {
    let mut i = 0;
    let mut seen = 0u64;
    while i < chunk.len() {
        if let Some((line, used)) = usual_prefix(&chunk[i..]) {
            f(line);
            i += used;
        } else {
            let end = memchr::memchr(b'\n', &chunk[i..]).map_or(chunk.len(), |e| i + e);
            let line = parse_line(&chunk[i..end]).map_err(|msg| WorkloadError::AtLine {
                file: file.to_string(),
                line: (first + seen) as usize,
                msg,
            })?;
            f(line);
            i = end + 1;
        }
        seen += 1;
    }
    Ok(seen)
}

/// The line at the start of `bytes` if it is in lackey's usual layout
/// ("I  addr,size" or " K addr,size", a size of one or two digits) and
/// ends in a newline or at the end of `bytes`, with the bytes it took
/// (newline included); `None` for anything else.
#[inline]
fn usual_prefix(bytes: &[u8]) -> Option<(Line, usize)> {
    let kind = match bytes.get(..3)? {
        [b'I', b' ', b' '] => b'I',
        [b' ', k @ (b'L' | b'S' | b'M'), b' '] => *k,
        _ => return None,
    };
    let mut i = 3;
    let mut va = 0u64;
    while let Some(&b) = bytes.get(i) {
        let d = HEX[b as usize];
        if d == NOT_HEX {
            break;
        }
        va = va << 4 | u64::from(d);
        i += 1;
    }
    let digits = i - 3;
    if !(1..=16).contains(&digits) || bytes.get(i) != Some(&b',') || va >= USER_VA_END {
        return None;
    }
    i += 1;
    match bytes.get(i) {
        Some(d) if d.is_ascii_digit() && *d != b'0' => i += 1,
        _ => return None,
    }
    if bytes.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    match bytes.get(i) {
        Some(b'\n') => i += 1,
        None => {}
        Some(_) => return None,
    }
    Some((
        match kind {
            b'I' => Line::Nothing,
            b'L' => Line::One(data(va, false)),
            b'S' => Line::One(data(va, true)),
            _ => Line::LoadStore(va),
        },
        i,
    ))
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
    let total = open(path)?
        .metadata()
        .map_err(|e| WorkloadError::File {
            file: path.to_string(),
            msg: format!("cannot read: {e}"),
        })?
        .len();
    // Large files are scanned in parts, one per core, cut at line ends.
    let parts = if total < 64 << 20 {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
    };
    scan_in_parts(path, total, parts, progress)
}

/// [`scan`] in `parts` parts read at once.
fn scan_in_parts(
    path: &str,
    total: u64,
    parts: usize,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Scan, WorkloadError> {
    let mut cuts = vec![0u64];
    for k in 1..parts {
        let at = next_line_start(path, total * k as u64 / parts as u64)?;
        if at > *cuts.last().expect("starts with 0") && at < total {
            cuts.push(at);
        }
    }
    cuts.push(total);
    let done = std::sync::atomic::AtomicU64::new(0);
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<Result<Part, WorkloadError>> = std::thread::scope(|scope| {
        let workers: Vec<_> = cuts
            .windows(2)
            .map(|w| {
                let (from, to) = (w[0], w[1]);
                let (done, finished) = (&done, &finished);
                scope.spawn(move || {
                    let part = scan_part(path, from, to, done);
                    finished.fetch_add(1, std::sync::atomic::Ordering::Release);
                    part
                })
            })
            .collect();
        let n = workers.len();
        while finished.load(std::sync::atomic::Ordering::Acquire) < n {
            progress(done.load(std::sync::atomic::Ordering::Relaxed), total);
            std::thread::sleep(std::time::Duration::from_millis(if n > 1 { 50 } else { 1 }));
        }
        workers
            .into_iter()
            .map(|w| w.join().expect("a scan part does not panic"))
            .collect()
    });
    progress(total, total);
    let mut pages = crate::trace::PageSet::default();
    let (mut accesses, mut lines) = (0u64, 0u64);
    for r in results {
        match r {
            Ok(part) => {
                pages.merge(part.pages);
                accesses += part.accesses;
                lines += part.lines;
            }
            // a part numbers its lines from 1: the parts before it are whole
            Err(WorkloadError::AtLine { file, line, msg }) => {
                return Err(WorkloadError::AtLine {
                    file,
                    line: line + lines as usize,
                    msg,
                })
            }
            Err(e) => return Err(e),
        }
    }
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

/// The first byte at or after `at` that starts a line.
fn next_line_start(path: &str, at: u64) -> Result<u64, WorkloadError> {
    use std::io::{Seek, SeekFrom};
    let io = |e: std::io::Error| WorkloadError::File {
        file: path.to_string(),
        msg: format!("cannot read: {e}"),
    };
    if at == 0 {
        return Ok(0);
    }
    let mut f = open(path)?;
    f.seek(SeekFrom::Start(at - 1)).map_err(io)?;
    let mut buf = vec![0u8; 1 << 16];
    let mut pos = at - 1;
    loop {
        let n = f.read(&mut buf).map_err(io)?;
        if n == 0 {
            return Ok(pos);
        }
        if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
            return Ok(pos + i as u64 + 1);
        }
        pos += n as u64;
    }
}

/// What one part of a file holds.
struct Part {
    pages: crate::trace::PageSet,
    accesses: u64,
    lines: u64,
}

/// Scans bytes `from..to` of `path` (whole lines), adding the bytes read to
/// `done`.
fn scan_part(
    path: &str,
    from: u64,
    to: u64,
    done: &std::sync::atomic::AtomicU64,
) -> Result<Part, WorkloadError> {
    use std::io::{Seek, SeekFrom};
    let mut f = open(path)?;
    f.seek(SeekFrom::Start(from))
        .map_err(|e| WorkloadError::File {
            file: path.to_string(),
            msg: format!("cannot read: {e}"),
        })?;
    let mut chunks = Chunks::new(f.take(to - from));
    let mut part = Part {
        pages: crate::trace::PageSet::default(),
        accesses: 0,
        lines: 0,
    };
    while let Some(chunk) = chunks.next(path)? {
        let (pages, accesses) = (&mut part.pages, &mut part.accesses);
        part.lines += each_parsed(chunk, part.lines + 1, path, |line| match line {
            Line::Nothing => {}
            Line::One(a) => {
                pages.insert(a.va);
                *accesses += 1;
            }
            Line::LoadStore(va) => {
                pages.insert(va);
                *accesses += 2;
            }
        })?;
        done.fetch_add(chunk.len() as u64, std::sync::atomic::Ordering::Relaxed);
    }
    Ok(part)
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
    chunks: Chunks<std::fs::File>,
    /// The accesses of the last chunk, `queue[at..]` not yet handed out.
    queue: Vec<Access>,
    at: usize,
    /// Lines before the next chunk.
    lines: u64,
}

impl LackeyReader {
    /// Opens `path` for replay from its first line.
    pub fn open(path: &str) -> Result<Self, WorkloadError> {
        Ok(LackeyReader {
            path: path.to_string(),
            chunks: Chunks::new(open(path)?),
            queue: Vec::new(),
            at: 0,
            lines: 0,
        })
    }

    /// Parses the next chunk into the queue; false at the end of the file.
    fn refill(&mut self) -> Result<bool, WorkloadError> {
        self.queue.clear();
        self.at = 0;
        let Some(chunk) = self.chunks.next(&self.path)? else {
            return Ok(false);
        };
        let queue = &mut self.queue;
        self.lines += each_parsed(chunk, self.lines + 1, &self.path, |line| match line {
            Line::Nothing => {}
            Line::One(a) => queue.push(a),
            Line::LoadStore(va) => queue.extend([data(va, false), data(va, true)]),
        })?;
        Ok(true)
    }

    pub(crate) fn fill(&mut self, buf: &mut [Access]) -> Result<usize, WorkloadError> {
        let mut n = 0;
        while n < buf.len() {
            if self.at == self.queue.len() && !self.refill()? {
                break;
            }
            let take = (buf.len() - n).min(self.queue.len() - self.at);
            buf[n..n + take].copy_from_slice(&self.queue[self.at..self.at + take]);
            n += take;
            self.at += take;
        }
        Ok(n)
    }
}

/// Parses lackey output held in memory; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<Vec<Access>, WorkloadError> {
    let mut out = Vec::new();
    each_parsed(text.as_bytes(), 1, file, |line| match line {
        Line::Nothing => {}
        Line::One(a) => out.push(a),
        Line::LoadStore(va) => out.extend([data(va, false), data(va, true)]),
    })?;
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

    /// A file scanned in parts gives what one pass gives, and an error in
    /// a later part is numbered from the file's first line.
    #[test]
    fn scanning_in_parts_is_scanning_once() {
        let mut text = String::from("==1== Lackey\n");
        for i in 0..500u64 {
            text += &format!(
                "I  0400{i:04x},3\n L {:x},8\n M {:x},4\n",
                0x10_0000 + i * 4096,
                0x90_0000 + i * 64
            );
        }
        let path = std::env::temp_dir().join(format!("tc-lk-parts-{}", std::process::id()));
        let path = path.to_str().unwrap();
        std::fs::write(path, &text).unwrap();
        let total = text.len() as u64;
        let one = scan_in_parts(path, total, 1, &mut |_, _| {}).unwrap();
        for parts in [2, 3, 7] {
            assert_eq!(
                scan_in_parts(path, total, parts, &mut |_, _| {}).unwrap(),
                one
            );
        }
        let bad = text.clone() + " L 1000,8\n S zz,8\n L 2000,8\n";
        std::fs::write(path, &bad).unwrap();
        for parts in [1, 2, 3] {
            let e = scan_in_parts(path, bad.len() as u64, parts, &mut |_, _| {}).unwrap_err();
            assert!(
                e.to_string().starts_with(&format!("{path}:1503:")),
                "{parts}: {e}"
            );
        }
        std::fs::remove_file(path).unwrap();
    }

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
        /// Chunks of any buffer size hand out every line once, in order,
        /// numbered as the file numbers them, whether or not the file ends
        /// in a newline.
        #[test]
        fn chunks_cut_the_file_into_its_lines(
            text in "[a-c\n]{0,200}",
            capacity in 1usize..40,
        ) {
            let mut chunks = Chunks::with_capacity(text.as_bytes(), capacity);
            let mut got: Vec<(u64, String)> = Vec::new();
            let mut lines = 0;
            while let Some(chunk) = chunks.next("t").unwrap() {
                let first = lines + 1;
                let mut k = 0;
                lines += each_line(chunk, first, "t", |l| {
                    got.push((first + k, String::from_utf8(l.to_vec()).unwrap()));
                    k += 1;
                    Ok(())
                }).unwrap();
            }
            let want: Vec<(u64, String)> = text
                .lines()
                .enumerate()
                .map(|(i, l)| (i as u64 + 1, l.to_string()))
                .collect();
            prop_assert_eq!(got, want);
        }

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
            for ending in ["", "\n", "\nI  0400,3\n"] {
                let text = format!("{line}{ending}");
                if let Some((fast, used)) = usual_prefix(text.as_bytes()) {
                    prop_assert_eq!(Ok(fast), parse_any(line.as_bytes()));
                    prop_assert_eq!(used, line.len() + ending.len().min(1));
                }
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
