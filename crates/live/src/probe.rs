//! `thermocline probe`: what this host's kernel offers a tiering daemon,
//! found by trying each feature on this process's own memory, never by
//! reading version numbers.

use crate::numa::{self, Node, Tier};
use crate::pagemap::{Entry, Pagemap};
use crate::procfs::{self, cap, has_cap};
use crate::sys::{self, PAGE};
use crate::{damon, LiveError};
use serde::Serialize;
use std::path::Path;

/// One feature and whether this host has it.
#[derive(Clone, Debug, Serialize)]
pub struct Feature {
    /// Its name, as errors name it.
    pub name: &'static str,
    /// Whether it works here, for this process.
    pub available: bool,
    /// What was found.
    pub detail: String,
    /// What it enables in thermocline.
    pub enables: &'static str,
}

/// One anonymous mapping of a target, as the kernel places it.
#[derive(Clone, Debug, Serialize)]
pub struct MappingProbe {
    /// First byte.
    pub start: u64,
    /// Length in bytes.
    pub len: u64,
    /// Resident 4 KiB pages per node (node id, pages).
    pub pages_per_node: Vec<(i32, u64)>,
    /// Pages swapped out (zram).
    pub swapped: u64,
}

/// A target process as the probe sees it.
#[derive(Clone, Debug, Serialize)]
pub struct TargetProbe {
    /// Its pid.
    pub pid: i32,
    /// Its command name.
    pub comm: String,
    /// Its anonymous mappings, bytes.
    pub anonymous_mapped: u64,
    /// What smaps_rollup says.
    pub rollup: procfs::Rollup,
    /// Resident 4 KiB pages per node (node id, pages), read with move_pages.
    pub pages_per_node: Vec<(i32, u64)>,
    /// Each anonymous mapping's pages per node, as the kernel says (empty
    /// when the pagemap may not be read).
    pub mappings: Vec<MappingProbe>,
    /// The address ranges asked about, the same way.
    pub ranges: Vec<MappingProbe>,
    /// Whether this process may read its pagemap.
    pub pagemap: bool,
    /// Whether this process may move its pages (move_pages answered).
    pub movable: bool,
}

/// What this host offers.
#[derive(Clone, Debug, Serialize)]
pub struct Probe {
    /// `uname -r`.
    pub kernel: String,
    /// Running as root (euid 0).
    pub root: bool,
    /// NUMA nodes with memory.
    pub nodes: Vec<Node>,
    /// The kernel's memory tiers, fastest first.
    pub tiers: Vec<Tier>,
    /// Each feature.
    pub features: Vec<Feature>,
    /// Measured costs on this host.
    pub costs: Costs,
    /// The target, when one was given.
    pub target: Option<TargetProbe>,
}

/// What moving and refaulting a 4 KiB page costs here, measured on the
/// probe's own pages (median-free means over [`COST_PAGES`] pages).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Costs {
    /// Touching a page that was paged out to swap (zram): a major fault.
    pub refault_ns: Option<f64>,
    /// move_pages of one page to the next node and back, per move.
    pub migrate_ns: Option<f64>,
}

/// Pages each cost is measured over.
pub const COST_PAGES: usize = 256;

/// Pages `n` of this process's own pages out, then times touching them:
/// the cost of a refault (None without swap or process_madvise).
pub fn measure_refault_ns(n: usize) -> Option<f64> {
    let mut buf = vec![1u8; (n + 1) * PAGE as usize];
    let base = (buf.as_ptr() as u64).div_ceil(PAGE) * PAGE;
    let off = (base - buf.as_ptr() as u64) as usize;
    for i in 0..n {
        buf[off + i * PAGE as usize] = (i % 251) as u8 + 1;
    }
    let fd = sys::pidfd_open(std::process::id() as i32).ok()?;
    sys::process_madvise(&fd, &[(base, n as u64 * PAGE)], libc::MADV_PAGEOUT).ok()?;
    let pm = Pagemap::open(std::process::id() as i32).ok()?;
    let mut e = vec![Entry::default(); n];
    pm.read(base, &mut e).ok()?;
    let out = e.iter().filter(|e| !e.present()).count();
    if out * 2 < n {
        return None;
    }
    let t = std::time::Instant::now();
    let mut sum = 0u64;
    for i in 0..n {
        sum += u64::from(std::hint::black_box(buf[off + i * PAGE as usize]));
    }
    let ns = t.elapsed().as_nanos() as f64 / out as f64;
    // the data came back intact
    let want: u64 = (0..n).map(|i| (i % 251) as u64 + 1).sum();
    (sum == want).then_some(ns)
}

/// Times move_pages of `n` own pages to another node and back.
pub fn measure_migrate_ns(n: usize, nodes: &[Node]) -> Option<f64> {
    let buf = vec![1u8; (n + 1) * PAGE as usize];
    let base = (buf.as_ptr() as u64).div_ceil(PAGE) * PAGE;
    let pages: Vec<u64> = (0..n as u64).map(|i| base + i * PAGE).collect();
    let mut st = vec![0i32; n];
    sys::move_pages(0, &pages, None, &mut st, 0).ok()?;
    let home = *st.first()?;
    let other = nodes.iter().map(|x| x.id).find(|&id| id != home)?;
    let t = std::time::Instant::now();
    for to in [other, home] {
        let dest = vec![to; n];
        sys::move_pages(0, &pages, Some(&dest), &mut st, sys::MPOL_MF_MOVE).ok()?;
        if st.iter().any(|&s| s != to) {
            return None;
        }
    }
    let ns = t.elapsed().as_nanos() as f64 / (2 * n) as f64;
    std::hint::black_box(&buf);
    Some(ns)
}

impl Probe {
    /// Whether `name` is available.
    pub fn has(&self, name: &str) -> bool {
        self.features.iter().any(|f| f.name == name && f.available)
    }
}

fn feature(name: &'static str, enables: &'static str, r: Result<String, String>) -> Feature {
    let (available, detail) = match r {
        Ok(d) => (true, d),
        Err(d) => (false, d),
    };
    Feature {
        name,
        available,
        detail,
        enables,
    }
}

fn text(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .map_err(|e| format!("{path}: {e}"))
}

/// A page of this process's own, resident and aligned, to try features on.
struct OwnPage {
    buf: Vec<u8>,
}

impl OwnPage {
    fn new() -> Self {
        OwnPage {
            buf: vec![1u8; 3 * PAGE as usize],
        }
    }
    fn addr(&self) -> u64 {
        (self.buf.as_ptr() as u64).div_ceil(PAGE) * PAGE
    }
    fn touch(&mut self) {
        let off = (self.addr() - self.buf.as_ptr() as u64) as usize;
        self.buf[off] = std::hint::black_box(self.buf[off]).wrapping_add(1);
    }
}

fn own_entry(pm: &Pagemap, va: u64) -> Result<Entry, String> {
    let mut e = [Entry::default()];
    pm.read(va, &mut e).map_err(|e| e.to_string())?;
    Ok(e[0])
}

fn probe_soft_dirty(pm: &Pagemap, page: &mut OwnPage) -> Result<String, String> {
    std::fs::write("/proc/self/clear_refs", "4").map_err(|e| format!("clear_refs: {e}"))?;
    let before = own_entry(pm, page.addr())?.soft_dirty();
    page.touch();
    let after = own_entry(pm, page.addr())?.soft_dirty();
    match (before, after) {
        (false, true) => Ok("clear_refs 4 clears, a write sets it".into()),
        _ => Err(format!(
            "bit 55 read {before} after clearing and {after} after a write (CONFIG_MEM_SOFT_DIRTY?)"
        )),
    }
}

fn probe_pagemap_scan(pm: &Pagemap, page: &OwnPage) -> Result<String, String> {
    let (runs, _) = sys::pagemap_scan(
        pm.file(),
        page.addr(),
        page.addr() + PAGE,
        sys::scan::PAGE_IS_PRESENT,
        sys::scan::PAGE_IS_PRESENT | sys::scan::PAGE_IS_SWAPPED,
        4,
    )
    .map_err(|e| match e.raw_os_error() {
        Some(libc::ENOTTY) | Some(libc::EINVAL) => "no PAGEMAP_SCAN ioctl (Linux >= 6.7)".into(),
        _ => format!("PAGEMAP_SCAN: {e}"),
    })?;
    if runs.len() == 1 {
        Ok("present/swapped/soft-dirty runs in one call; PAGE_IS_WRITTEN needs the target's userfaultfd-wp registration".into())
    } else {
        Err(format!(
            "PAGEMAP_SCAN returned {} runs for one resident page",
            runs.len()
        ))
    }
}

fn probe_move_pages(page: &OwnPage, nodes: &[Node]) -> Result<String, String> {
    let mut st = [0i32];
    sys::move_pages(0, &[page.addr()], None, &mut st, 0).map_err(|e| format!("move_pages: {e}"))?;
    if st[0] < 0 {
        return Err(format!(
            "move_pages put a resident page at errno {}",
            -st[0]
        ));
    }
    if nodes.len() < 2 {
        return Err(format!(
            "one NUMA node (page on node {}): nothing to move between",
            st[0]
        ));
    }
    Ok(format!("{} nodes; own page on node {}", nodes.len(), st[0]))
}

fn probe_process_madvise(page: &OwnPage) -> Result<String, String> {
    let fd = sys::pidfd_open(std::process::id() as i32).map_err(|e| format!("pidfd_open: {e}"))?;
    sys::process_madvise(&fd, &[(page.addr(), PAGE)], libc::MADV_COLD)
        .map_err(|e| format!("process_madvise: {e}"))?;
    Ok("MADV_COLD and MADV_PAGEOUT on a target's ranges".into())
}

fn probe_swap() -> Result<String, String> {
    let swaps = text("/proc/swaps")?;
    let devices: Vec<&str> = swaps
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    if devices.is_empty() {
        return Err("no swap device: MADV_PAGEOUT of anonymous memory would do nothing".into());
    }
    let zswap = text("/sys/module/zswap/parameters/enabled").unwrap_or_default();
    Ok(format!(
        "{}{}",
        devices.join(", "),
        if zswap == "Y" { "; zswap on" } else { "" }
    ))
}

fn probe_damon() -> Result<String, String> {
    let k = damon::kdamonds().map_err(|e| e.to_string())?;
    match damon::ensure_unowned(&[]) {
        Ok(()) => Ok(format!("sysfs; {} kdamonds, none in use", k.len())),
        Err(e) => Err(e.to_string()),
    }
}

/// Probes this host (and `pid`, when given).
pub fn probe(pid: Option<i32>) -> Result<Probe, LiveError> {
    probe_ranges(pid, &[])
}

/// Probes this host, and `pid` with where the pages of `ranges` are.
pub fn probe_ranges(pid: Option<i32>, ranges: &[(u64, u64)]) -> Result<Probe, LiveError> {
    let mut p = features_only()?;
    p.target = pid.map(|p| probe_target(p, ranges)).transpose()?;
    p.costs = Costs {
        refault_ns: measure_refault_ns(COST_PAGES),
        migrate_ns: measure_migrate_ns(COST_PAGES, &p.nodes),
    };
    Ok(p)
}

/// What this host offers, without a target and without measuring costs
/// (what the live backend asks at start).
pub fn features_only() -> Result<Probe, LiveError> {
    let kernel = text("/proc/sys/kernel/osrelease").unwrap_or_else(|e| e);
    let nodes = numa::nodes()?;
    let tiers = numa::kernel_tiers()?;
    let me = std::process::id() as i32;
    let pm = Pagemap::open(me)?;
    let mut page = OwnPage::new();
    page.touch();
    let pfn = own_entry(&pm, page.addr()).ok().and_then(|e| e.pfn());
    let mut features = vec![
        feature(
            "pagemap",
            "page presence, swap state and exclusivity of a target's pages",
            Ok("/proc/PID/pagemap".into()),
        ),
        feature(
            "pagemap-pfn",
            "physical frames (DAMON paddr, page_idle)",
            pfn.map(|p| format!("PFN {p:#x} visible"))
                .ok_or_else(|| "PFNs read as 0 (needs CAP_SYS_ADMIN)".to_string()),
        ),
        feature(
            "soft-dirty",
            "Dirty bits: Ambix's write counts, Memos' write-dominance",
            probe_soft_dirty(&pm, &mut page),
        ),
        feature(
            "pagemap-scan",
            "page states read as runs in one call (present, swapped, soft-dirty, huge) instead of a pagemap entry per page",
            probe_pagemap_scan(&pm, &page),
        ),
        feature(
            "move-pages",
            "page location per page and moves between NUMA nodes (tiers)",
            probe_move_pages(&page, &nodes),
        ),
        feature(
            "memory-tiers",
            "tiers taken from the kernel (HMAT) instead of the config",
            if tiers.len() > 1 {
                Ok(tiers
                    .iter()
                    .map(|t| format!("tier{}={:?}", t.rank, t.nodes))
                    .collect::<Vec<_>>()
                    .join(" "))
            } else {
                Err(format!(
                    "{} memory tier(s) in /sys/devices/virtual/memory_tiering",
                    tiers.len()
                ))
            },
        ),
        feature(
            "process-madvise",
            "MADV_PAGEOUT to a compressed tier, refault sampling",
            probe_process_madvise(&page),
        ),
        feature(
            "swap",
            "a compressed (zram) or swap tier for MADV_PAGEOUT",
            probe_swap(),
        ),
        feature("damon", "DAMON regions (vaddr) as telemetry", probe_damon()),
        feature(
            "page-idle",
            "per-page Accessed bits (idle page tracking)",
            if Path::new("/sys/kernel/mm/page_idle/bitmap").exists() {
                Ok("/sys/kernel/mm/page_idle/bitmap".into())
            } else {
                Err("CONFIG_IDLE_PAGE_TRACKING not set".into())
            },
        ),
        feature(
            "psi",
            "memory pressure as a goal (PSI some/full)",
            text("/proc/pressure/memory").and_then(|t| {
                procfs::parse_pressure(&t)
                    .map(|p| format!("some {} us so far", p.some_us))
                    .ok_or_else(|| "unreadable".into())
            }),
        ),
        feature(
            "numa-balancing",
            "the kernel's own tiering as a baseline (mode 2: memory tiering)",
            text("/proc/sys/kernel/numa_balancing").map(|m| format!("mode {m}")),
        ),
        feature(
            "demotion",
            "the kernel's demotion on reclaim, as a baseline",
            text("/sys/kernel/mm/numa/demotion_enabled").map(|m| format!("demotion_enabled {m}")),
        ),
        feature(
            "thp",
            "2 MiB pages tracked and moved as one unit",
            text("/sys/kernel/mm/transparent_hugepage/enabled"),
        ),
        feature(
            "cap-sys-nice",
            "move_pages of another user's process",
            if has_cap(cap::SYS_NICE) {
                Ok("in effect".into())
            } else {
                Err("not in effect".into())
            },
        ),
        feature(
            "cap-sys-admin",
            "PFNs and DAMON's sysfs",
            if has_cap(cap::SYS_ADMIN) {
                Ok("in effect".into())
            } else {
                Err("not in effect".into())
            },
        ),
    ];
    // What no unmodified kernel offers userspace: managers that need these
    // say so at start (BackendError::Unsupported).
    for (name, enables, why) in [
        (
            "accessed-upper",
            "Telescope's page-table-tree profiling",
            "userspace cannot read upper-level Accessed bits",
        ),
        (
            "tlb-miss-counts",
            "Memos' HyMM TLB-miss counting",
            "no per-page TLB-miss counts from userspace",
        ),
        (
            "pebs",
            "PEBS-like sampled loads",
            "the live backend does not sample loads",
        ),
    ] {
        features.push(feature(name, enables, Err(why.into())));
    }
    Ok(Probe {
        costs: Costs::default(),
        kernel,
        root: euid_is_root(),
        nodes,
        tiers,
        features,
        target: None,
    })
}

fn euid_is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|v| v.split_whitespace().nth(1).map(|e| e == "0"))
        })
        .unwrap_or(false)
}

fn placement(
    pid: i32,
    pm: &Pagemap,
    m: &crate::procfs::Mapping,
) -> Result<MappingProbe, LiveError> {
    let mut states = Vec::new();
    crate::pages::read_mapping(pid, pm, m, &mut states)?;
    let mut nodes = std::collections::BTreeMap::new();
    let mut swapped = 0;
    for s in &states {
        if let Some(n) = s.node() {
            *nodes.entry(n).or_insert(0u64) += 1;
        } else if s.swapped() {
            swapped += 1;
        }
    }
    Ok(MappingProbe {
        start: m.start,
        len: m.len(),
        pages_per_node: nodes.into_iter().collect(),
        swapped,
    })
}

fn probe_target(pid: i32, ranges: &[(u64, u64)]) -> Result<TargetProbe, LiveError> {
    let comm = procfs::read(Path::new(&format!("/proc/{pid}/comm")), Some(pid))?
        .trim()
        .to_string();
    let maps = procfs::maps(pid)?;
    let rollup = procfs::rollup(pid)?;
    let anon: Vec<_> = maps.iter().filter(|m| m.is_anonymous()).collect();
    let pm = Pagemap::open(pid).ok();
    let pagemap = pm.is_some();
    let mut per_node = std::collections::BTreeMap::new();
    let mut movable = true;
    let mut mappings = Vec::new();
    for m in &anon {
        let Some(pm) = pm.as_ref() else { break };
        match placement(pid, pm, m) {
            Ok(p) => {
                for &(n, c) in &p.pages_per_node {
                    *per_node.entry(n).or_insert(0u64) += c;
                }
                mappings.push(p);
            }
            Err(LiveError::Permission { .. }) => {
                movable = false;
                break;
            }
            Err(e) => return Err(e),
        }
    }
    let mut asked = Vec::new();
    if let Some(pm) = pm.as_ref() {
        for &(start, end) in ranges {
            let m = crate::procfs::Mapping {
                start: start & !(PAGE - 1),
                end: end.div_ceil(PAGE) * PAGE,
                read: true,
                write: true,
                shared: false,
                path: String::new(),
            };
            asked.push(placement(pid, pm, &m)?);
        }
    }
    Ok(TargetProbe {
        pid,
        comm,
        anonymous_mapped: anon.iter().map(|m| m.len()).sum(),
        rollup,
        pages_per_node: per_node.into_iter().collect(),
        mappings,
        ranges: asked,
        pagemap,
        movable,
    })
}

/// The probe as a table for a person.
pub fn table(p: &Probe) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "kernel {}{}",
        p.kernel,
        if p.root { " (root)" } else { "" }
    );
    for n in &p.nodes {
        let _ = writeln!(
            s,
            "node {}: {} MiB, {} MiB free, {}",
            n.id,
            n.total_bytes >> 20,
            n.free_bytes >> 20,
            if n.cpus.is_empty() {
                "no CPUs".to_string()
            } else {
                format!("{} CPUs", n.cpus.len())
            }
        );
    }
    let us = |x: Option<f64>| x.map_or("-".to_string(), |ns| format!("{:.1} us", ns / 1e3));
    let _ = writeln!(
        s,
        "costs: refault of a 4 KiB page {}, move_pages {} per page (measured over {COST_PAGES} own pages)",
        us(p.costs.refault_ns),
        us(p.costs.migrate_ns)
    );
    let w = p.features.iter().map(|f| f.name.len()).max().unwrap_or(0);
    for f in &p.features {
        let _ = writeln!(
            s,
            "{:<w$}  {}  {}  ({})",
            f.name,
            if f.available { "yes" } else { "no " },
            f.detail,
            f.enables
        );
    }
    if let Some(t) = &p.target {
        let _ = writeln!(
            s,
            "target {} ({}): {} MiB anonymous mapped, {} MiB resident ({} MiB in THPs), {} MiB swapped; pages per node {:?}; pagemap {}, moves {}",
            t.pid,
            t.comm,
            t.anonymous_mapped >> 20,
            t.rollup.rss >> 20,
            t.rollup.anon_huge >> 20,
            t.rollup.swap >> 20,
            t.pages_per_node,
            if t.pagemap { "readable" } else { "denied" },
            if t.movable { "allowed" } else { "denied" }
        );
        for m in t
            .mappings
            .iter()
            .filter(|m| m.len >= 1 << 20)
            .chain(&t.ranges)
        {
            let _ = writeln!(
                s,
                "  {:#x} {:>6} MiB: pages per node {:?}, {} swapped",
                m.start,
                m.len >> 20,
                m.pages_per_node,
                m.swapped
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_host_probes_and_says_why_a_feature_is_missing() {
        let p = probe(Some(std::process::id() as i32)).unwrap();
        assert!(p.has("pagemap"));
        for f in &p.features {
            assert!(!f.detail.is_empty(), "{} has no detail", f.name);
        }
        assert!(!p.has("tlb-miss-counts"));
        let t = p.target.as_ref().unwrap();
        assert!(t.rollup.rss > 0 && t.pagemap);
        let table = table(&p);
        assert!(table.contains("soft-dirty"), "{table}");
        serde_json::to_string(&p).unwrap();
    }
}
