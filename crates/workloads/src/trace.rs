//! thermocline's binary trace format: compact, seekable, and fast to replay.
//!
//! ```text
//! magic     8 bytes  "TCTRACE1"
//! threads   u16 LE   threads (cores) that issued the accesses, 1-64
//! regions   u32 LE   number of regions R
//! R times:  u64 LE start, u64 LE length, u16 LE asid, u8 name length, name bytes
//! records   until end of file, 8 bytes each, u64 LE:
//!             bits 0..=56   virtual address
//!             bits 57..=62  core (0-63)
//!             bit  63       store (1) or load (0)
//! ```
//!
//! 8 bytes per access: a 10 M-access program trace is 80 MB. The regions tell
//! the simulator the footprint up front; only pages actually touched are mapped.

use crate::{Access, WorkloadError};
use std::io::{BufReader, BufWriter, Read, Write};
use thermocline_vocab::RegionInfo;
use thermocline_vocab::{Asid, PageType};

const MAGIC: &[u8; 8] = b"TCTRACE1";
const VA_MASK: u64 = (1 << 57) - 1;

/// Encodes one access.
pub fn encode(a: &Access) -> u64 {
    (a.va & VA_MASK) | (u64::from(a.core.min(63)) << 57) | (u64::from(a.write) << 63)
}

/// Decodes one access.
pub fn decode(r: u64) -> Access {
    Access {
        va: r & VA_MASK,
        asid: 0,
        core: ((r >> 57) & 63) as u16,
        write: r >> 63 == 1,
    }
}

/// Writes a trace.
pub fn write(path: &str, regions: &[RegionInfo], accesses: &[Access]) -> Result<(), WorkloadError> {
    let threads = accesses
        .iter()
        .map(|a| a.core.min(63) + 1)
        .max()
        .unwrap_or(1);
    let mut w = TraceWriter::create(path, regions, threads)?;
    for a in accesses {
        w.push(a)?;
    }
    w.finish()
}

/// Writes a trace record by record, for traces too large to hold.
pub struct TraceWriter {
    path: String,
    w: BufWriter<std::fs::File>,
}

impl TraceWriter {
    /// Creates `path` with the header: `regions`, and `threads` (1-64).
    pub fn create(path: &str, regions: &[RegionInfo], threads: u16) -> Result<Self, WorkloadError> {
        let io = |e: std::io::Error| WorkloadError::File {
            file: path.to_string(),
            msg: format!("cannot write: {e}"),
        };
        let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(path).map_err(io)?);
        w.write_all(MAGIC).map_err(io)?;
        w.write_all(&threads.clamp(1, 64).to_le_bytes())
            .map_err(io)?;
        w.write_all(&(regions.len() as u32).to_le_bytes())
            .map_err(io)?;
        for r in regions {
            w.write_all(&r.start.to_le_bytes()).map_err(io)?;
            w.write_all(&r.len.to_le_bytes()).map_err(io)?;
            w.write_all(&r.asid.0.to_le_bytes()).map_err(io)?;
            let name = &r.name.as_bytes()[..r.name.len().min(255)];
            w.write_all(&[name.len() as u8]).map_err(io)?;
            w.write_all(name).map_err(io)?;
        }
        Ok(TraceWriter {
            path: path.to_string(),
            w,
        })
    }

    fn io(&self, e: std::io::Error) -> WorkloadError {
        WorkloadError::File {
            file: self.path.clone(),
            msg: format!("cannot write: {e}"),
        }
    }

    /// Appends one record.
    pub fn push(&mut self, a: &Access) -> Result<(), WorkloadError> {
        self.w
            .write_all(&encode(a).to_le_bytes())
            .map_err(|e| self.io(e))
    }

    /// Flushes the file; a trace not finished may lack its last records.
    pub fn finish(mut self) -> Result<(), WorkloadError> {
        self.w.flush().map_err(|e| self.io(e))
    }
}

/// Streams a trace file.
pub struct TraceReader {
    path: String,
    reader: BufReader<std::fs::File>,
    records: u64,
    read: u64,
    threads: u16,
    /// (start, end) of the address-space-0 regions (records' space), sorted.
    spans: Vec<(u64, u64)>,
}

impl TraceReader {
    /// Opens a trace; returns the reader and the trace's regions.
    pub fn open(path: &str) -> Result<(TraceReader, Vec<RegionInfo>), WorkloadError> {
        let bad = |msg: String| WorkloadError::File {
            file: path.to_string(),
            msg,
        };
        let file = std::fs::File::open(path).map_err(|e| bad(format!("cannot read: {e}")))?;
        let len = file
            .metadata()
            .map_err(|e| bad(format!("cannot read: {e}")))?
            .len();
        let mut r = BufReader::with_capacity(1 << 16, file);
        let mut magic = [0u8; 8];
        let mut header = 8u64;
        r.read_exact(&mut magic)
            .map_err(|_| bad("too short to be a trace".into()))?;
        if &magic != MAGIC {
            return Err(bad(
                "not a thermocline trace (bad magic; use lackey:PATH for valgrind output)".into(),
            ));
        }
        let mut b2 = [0u8; 2];
        r.read_exact(&mut b2)
            .map_err(|_| bad("truncated header".into()))?;
        header += 2;
        let threads = u16::from_le_bytes(b2);
        if !(1..=64).contains(&threads) {
            return Err(bad(format!("thread count {threads} is not in 1..=64")));
        }
        let mut b4 = [0u8; 4];
        r.read_exact(&mut b4)
            .map_err(|_| bad("truncated header".into()))?;
        header += 4;
        let n = u32::from_le_bytes(b4);
        if n == 0 || n > 1 << 20 {
            return Err(bad(format!("implausible region count {n}")));
        }
        let mut regions = Vec::new();
        for i in 0..n {
            let mut b = [0u8; 19];
            r.read_exact(&mut b)
                .map_err(|_| bad(format!("truncated region {i}")))?;
            let start = u64::from_le_bytes(b[0..8].try_into().expect("8 bytes"));
            let rlen = u64::from_le_bytes(b[8..16].try_into().expect("8 bytes"));
            let asid = u16::from_le_bytes(b[16..18].try_into().expect("2 bytes"));
            let mut name = vec![0u8; b[18] as usize];
            r.read_exact(&mut name)
                .map_err(|_| bad(format!("truncated region {i}")))?;
            header += 19 + name.len() as u64;
            if start % 4096 != 0
                || rlen == 0
                || rlen % 4096 != 0
                || start.checked_add(rlen).is_none_or(|e| e > 1 << 47)
            {
                return Err(bad(format!(
                    "region {i} is not page-aligned inside the 47-bit address space"
                )));
            }
            regions.push(RegionInfo {
                asid: Asid(asid),
                name: String::from_utf8_lossy(&name).into_owned(),
                start,
                len: rlen,
                page_type: PageType::Anon,
                thp: false,
            });
        }
        let mut spans: Vec<(u64, u64)> = regions
            .iter()
            .filter(|r| r.asid.0 == 0)
            .map(|r| (r.start, r.end()))
            .collect();
        spans.sort_unstable();
        if spans.windows(2).any(|w| w[1].0 < w[0].1) {
            return Err(bad("regions of the header overlap".into()));
        }
        let body = len - header;
        if !body.is_multiple_of(8) {
            return Err(bad(format!(
                "truncated at byte {}: {} bytes after the last whole record",
                len - body % 8,
                body % 8
            )));
        }
        Ok((
            TraceReader {
                path: path.to_string(),
                reader: r,
                records: body / 8,
                read: 0,
                threads,
                spans,
            },
            regions,
        ))
    }

    /// Threads that issued the accesses.
    pub fn threads(&self) -> usize {
        usize::from(self.threads)
    }

    /// Records in the file.
    pub fn records(&self) -> u64 {
        self.records
    }

    pub(crate) fn fill(&mut self, buf: &mut [Access]) -> Result<usize, WorkloadError> {
        let n = (buf.len() as u64).min(self.records - self.read) as usize;
        let mut b = [0u8; 8];
        for slot in buf.iter_mut().take(n) {
            self.reader
                .read_exact(&mut b)
                .map_err(|e| WorkloadError::File {
                    file: self.path.clone(),
                    msg: format!("read failed at record {}: {e}", self.read),
                })?;
            *slot = decode(u64::from_le_bytes(b));
            if slot.core >= self.threads {
                return Err(WorkloadError::File {
                    file: self.path.clone(),
                    msg: format!(
                        "record {} names core {} but the header says {} threads",
                        self.read, slot.core, self.threads
                    ),
                });
            }
            // The machine maps what the regions declare: a record elsewhere
            // would need memory the tiers were not sized for.
            let i = self.spans.partition_point(|s| s.0 <= slot.va);
            if i == 0 || slot.va >= self.spans[i - 1].1 {
                return Err(WorkloadError::File {
                    file: self.path.clone(),
                    msg: format!(
                        "record {} at {:#x} is outside every region of the header",
                        self.read, slot.va
                    ),
                });
            }
            self.read += 1;
        }
        Ok(n)
    }
}

/// Regions covering the pages `accesses` touch: runs of touched pages, joined
/// across gaps shorter than 2 MiB.
pub fn regions_of(accesses: &[Access]) -> Vec<RegionInfo> {
    let mut pages = PageSet::default();
    for a in accesses {
        pages.insert(a.va);
    }
    pages.regions()
}

/// The distinct 4 KiB pages a stream of accesses touches, in memory
/// proportional to the pages, not to the accesses.
#[derive(Default)]
pub struct PageSet {
    pages: std::collections::BTreeSet<u64>,
    /// The page inserted last: most accesses repeat it.
    last: Option<u64>,
}

impl PageSet {
    /// Notes the page of `va`.
    pub fn insert(&mut self, va: u64) {
        let page = va >> 12;
        if self.last != Some(page) {
            self.pages.insert(page);
            self.last = Some(page);
        }
    }

    /// Adds every page of `other`.
    pub fn merge(&mut self, mut other: PageSet) {
        self.pages.append(&mut other.pages);
    }

    /// Regions covering the pages: runs of touched pages, joined across
    /// gaps shorter than 2 MiB.
    pub fn regions(&self) -> Vec<RegionInfo> {
        let mut out: Vec<RegionInfo> = Vec::new();
        for &p in &self.pages {
            let va = p << 12;
            match out.last_mut() {
                Some(r) if va <= r.end() + (2 << 20) => r.len = va + 4096 - r.start,
                _ => out.push(RegionInfo {
                    asid: Asid(0),
                    name: format!("r{}", out.len()),
                    start: va,
                    len: 4096,
                    page_type: PageType::Anon,
                    thp: false,
                }),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_through_a_file() {
        let acc: Vec<Access> = (0..1000u64)
            .map(|i| Access {
                va: 0x7fff_0000_0000 + i * 72,
                asid: 0,
                core: (i % 3) as u16,
                write: i % 5 == 0,
            })
            .collect();
        let regions = regions_of(&acc);
        assert_eq!(regions.len(), 1);
        let dir = std::env::temp_dir().join(format!("tc-trace-{}", std::process::id()));
        let path = dir.to_str().unwrap().to_string();
        write(&path, &regions, &acc).unwrap();
        let (mut r, reg2) = TraceReader::open(&path).unwrap();
        assert_eq!(reg2, regions);
        let mut buf = vec![Access::default(); 2000];
        assert_eq!(r.fill(&mut buf).unwrap(), 1000);
        assert_eq!(&buf[..1000], &acc[..]);
        std::fs::write(&path, b"TCTRACE1\x01\x00").unwrap();
        assert!(TraceReader::open(&path).is_err());
        std::fs::write(&path, b"garbage!garbage!").unwrap();
        assert!(TraceReader::open(&path)
            .err()
            .unwrap()
            .to_string()
            .contains("magic"));
        std::fs::remove_file(&path).unwrap();
    }
}
