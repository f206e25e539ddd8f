//! The machine's NUMA nodes and memory tiers, from sysfs: which nodes have
//! CPUs, how much memory each has free, and the tiers the kernel built from
//! HMAT's latencies and bandwidths (/sys/devices/virtual/memory_tiering,
//! Linux >= 6.1 with abstract distances from 6.4).

use crate::procfs::{kb_field, read};
use crate::LiveError;
use std::path::Path;

/// One NUMA node.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Node {
    /// Its id.
    pub id: i32,
    /// Its CPUs (empty: a CPU-less memory node, CXL or PMEM-like).
    pub cpus: Vec<u32>,
    /// Memory in all.
    pub total_bytes: u64,
    /// Memory free.
    pub free_bytes: u64,
}

/// One memory tier: nodes the kernel treats as equally fast.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Tier {
    /// The kernel's tier number (`memory_tierN`; lower is faster), or the
    /// position in the config when the tiers come from it.
    pub rank: u32,
    /// Its nodes.
    pub nodes: Vec<i32>,
}

/// Parses a kernel list (`0-3,8,10-11`).
pub fn parse_list(text: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
                if b < a || b - a > 1 << 20 {
                    return None;
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().ok()?),
        }
    }
    Some(out)
}

fn list_file(path: &Path) -> Result<Vec<u32>, LiveError> {
    let text = read(path, None)?;
    parse_list(&text).ok_or_else(|| LiveError::Parse {
        path: path.to_path_buf(),
        line: 1,
        why: format!("not a list: {:?}", text.trim()),
    })
}

/// The nodes with memory.
pub fn nodes() -> Result<Vec<Node>, LiveError> {
    let root = Path::new("/sys/devices/system/node");
    let ids = match list_file(&root.join("has_memory")) {
        Ok(ids) => ids,
        // a kernel without NUMA has no node directory: one node 0
        Err(_) => vec![0],
    };
    let mut out = Vec::new();
    for id in ids {
        let dir = root.join(format!("node{id}"));
        let cpus = list_file(&dir.join("cpulist")).unwrap_or_default();
        let meminfo = read(&dir.join("meminfo"), None).unwrap_or_default();
        // per-node meminfo lines read "Node 0 MemTotal:  123 kB"
        let field = |k: &str| {
            meminfo.lines().find_map(|l| {
                let l = l.split_once(&format!("Node {id} "))?.1;
                kb_field(l, k)
            })
        };
        out.push(Node {
            id: id as i32,
            cpus,
            total_bytes: field("MemTotal").unwrap_or(0),
            free_bytes: field("MemFree").unwrap_or(0),
        });
    }
    Ok(out)
}

/// The kernel's memory tiers, fastest first; empty when the kernel has none.
pub fn kernel_tiers() -> Result<Vec<Tier>, LiveError> {
    let root = Path::new("/sys/devices/virtual/memory_tiering");
    let Ok(dir) = std::fs::read_dir(root) else {
        return Ok(Vec::new());
    };
    let mut tiers = Vec::new();
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let Some(rank) = name
            .strip_prefix("memory_tier")
            .and_then(|r| r.parse().ok())
        else {
            continue;
        };
        let nodes = list_file(&entry.path().join("nodelist"))?;
        tiers.push(Tier {
            rank,
            nodes: nodes.into_iter().map(|n| n as i32).collect(),
        });
    }
    tiers.sort_by_key(|t| t.rank);
    Ok(tiers)
}

/// Which node a physical frame is on, from the memory blocks sysfs lists
/// under each node (`/sys/devices/system/node/nodeN/memoryB`, blocks of
/// `/sys/devices/system/memory/block_size_bytes`).
#[derive(Clone, Debug, Default)]
pub struct FrameNodes {
    /// (first frame, one past the last, node), sorted.
    ranges: Vec<(u64, u64, i32)>,
}

impl FrameNodes {
    /// Reads the map; empty where sysfs has no memory blocks.
    pub fn read() -> Self {
        let block = std::fs::read_to_string("/sys/devices/system/memory/block_size_bytes")
            .ok()
            .and_then(|t| u64::from_str_radix(t.trim(), 16).ok())
            .unwrap_or(0);
        let mut ranges = Vec::new();
        let Ok(dir) = std::fs::read_dir("/sys/devices/system/node") else {
            return FrameNodes { ranges };
        };
        for node in dir.flatten() {
            let name = node.file_name().to_string_lossy().to_string();
            let Some(id) = name
                .strip_prefix("node")
                .and_then(|n| n.parse::<i32>().ok())
            else {
                continue;
            };
            let Ok(entries) = std::fs::read_dir(node.path()) else {
                continue;
            };
            for e in entries.flatten() {
                let n = e.file_name().to_string_lossy().to_string();
                if let Some(b) = n.strip_prefix("memory").and_then(|b| b.parse::<u64>().ok()) {
                    let first = b * block / 4096;
                    ranges.push((first, first + block / 4096, id));
                }
            }
        }
        ranges.sort_unstable();
        FrameNodes { ranges }
    }

    /// The physical byte ranges [start, end) of `node`'s memory blocks,
    /// adjacent blocks joined.
    pub fn byte_ranges(&self, node: i32) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::new();
        for &(a, b, n) in &self.ranges {
            if n != node {
                continue;
            }
            match out.last_mut() {
                Some(last) if last.1 == a * 4096 => last.1 = b * 4096,
                _ => out.push((a * 4096, b * 4096)),
            }
        }
        out
    }

    /// The node of frame `pfn`, if a block holds it.
    pub fn node(&self, pfn: u64) -> Option<i32> {
        let i = self.ranges.partition_point(|r| r.0 <= pfn).checked_sub(1)?;
        let (a, b, node) = self.ranges[i];
        (a <= pfn && pfn < b).then_some(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_lists_parse() {
        assert_eq!(parse_list("0-2,5,7-8\n"), Some(vec![0, 1, 2, 5, 7, 8]));
        assert_eq!(parse_list(""), Some(vec![]));
        assert_eq!(parse_list("3-1"), None);
        assert_eq!(parse_list("x"), None);
    }

    #[test]
    fn frames_map_to_the_blocks_nodes() {
        let m = FrameNodes {
            ranges: vec![(0, 100, 0), (100, 200, 1)],
        };
        assert_eq!(m.node(0), Some(0));
        assert_eq!(m.node(150), Some(1));
        assert_eq!(m.node(200), None);
    }

    #[test]
    fn this_host_has_a_node_with_memory() {
        let n = nodes().unwrap();
        assert!(!n.is_empty());
        assert!(kernel_tiers().is_ok());
    }
}
