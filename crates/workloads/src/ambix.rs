//! Ambix's microbenchmarks and the NPB sketches
//! (../shared/papers/004_5016d0e3a63ff357.txt, sections 3.2, 3.3 and 5.4), as
//! array sweeps. The sketches are not the benchmarks: [`crate::npb`] executes
//! the kernels it has ported (CG, MG, FT), and the `npb-cg-*`, `npb-mg-*`,
//! `npb-ft-*` presets run those. Sizes are scaled by [`SCALE`]: the paper's 32 GB of DRAM
//! becomes [`DRAM_NOMINAL`] (1 GiB) and every array shrinks alike, so that the
//! ratios the paper varies (array size / DRAM size) are kept while a run
//! simulates in seconds. Throughput in a sweep does not depend on the array
//! size once it dwarfs the caches, which the model has none of.

use crate::sweep::{SweepArray, SweepSpec};

/// Size scale against the paper's machine (32 GB DRAM -> 1 GiB).
pub const SCALE: f64 = 1.0 / 32.0;
/// The paper's DRAM (32 GB), scaled.
pub const DRAM_NOMINAL: u64 = 1 << 30;

fn array(name: &str, bytes: u64, reads: u32, writes: u32, lines_per_step: u32) -> SweepArray {
    SweepArray {
        name: name.into(),
        bytes: bytes / 4096 * 4096,
        reads,
        writes,
        lines_per_step,
    }
}

/// IWB (section 3.2): one 24 GB array (scaled: 768 MiB) swept by `threads`
/// threads, read-only (`write = false`) or write-only (one read and one write
/// per line, counted as two accesses).
pub fn iwb(write: bool, threads: usize, accesses: u64) -> SweepSpec {
    let bytes = (24.0 * SCALE * (1u64 << 30) as f64) as u64;
    SweepSpec {
        arrays: vec![array("array", bytes, 1, u32::from(write), 1)],
        threads,
        init_order: vec![0],
        accesses,
    }
}

/// PB (section 3.3): an array of `size_x` times DRAM, half read-only (1R) and
/// half read-modify-write (1R1W), equally intensive, 32 threads; the load
/// phase touches the write half first if `write_first`.
pub fn pb(size_x: f64, write_first: bool, accesses: u64) -> SweepSpec {
    let half = (size_x * DRAM_NOMINAL as f64 / 2.0) as u64;
    SweepSpec {
        arrays: vec![
            array("read-half", half, 1, 0, 1),
            array("write-half", half, 0, 1, 1),
        ],
        threads: 32,
        init_order: if write_first { vec![1, 0] } else { vec![0, 1] },
        accesses,
    }
}

/// NPB sizes relative to DRAM (section 5.4: ~0.8x, ~1.5x, ~3.5x).
pub const NPB_SIZES: [(&str, f64); 3] = [("small", 0.8), ("medium", 1.5), ("large", 3.5)];

/// An NPB sketch (not the benchmark; see [`crate::npb`]): arrays as (name, share of the footprint, reads,
/// writes, lines per step), swept by 32 threads, first touched in the order
/// the program initialises them (input data and fields first, work arrays
/// last). The layouts and orders are *inferred* from the benchmarks' main
/// arrays; the read:write ratios are the paper's (section 5.4).
pub fn npb(kernel: &str, size_x: f64, accesses: u64) -> Option<SweepSpec> {
    type Part = (&'static str, f64, u32, u32, u32);
    let (parts, order): (&[Part], &[usize]) = match kernel {
        // BT 3.5R:1W: the solution u and rhs updated every step, the block
        // tridiagonal lhs and the forcing term read; initialize() sets u,
        // exact_rhs() the forcing, the solver's arrays come last.
        "bt" => (
            &[
                ("u", 0.25, 1, 1, 2),
                ("rhs", 0.25, 1, 1, 2),
                ("lhs", 0.30, 1, 0, 8),
                ("forcing", 0.20, 1, 0, 2),
            ],
            &[0, 3, 2, 1],
        ),
        // FT 1.7R:1W: the initial field read, two complex work arrays
        // transformed in place, a small twiddle table.
        "ft" => (
            &[
                ("u0", 0.33, 1, 0, 1),
                ("u1", 0.33, 1, 1, 2),
                ("u2", 0.33, 1, 1, 1),
                ("twiddle", 0.01, 1, 0, 1),
            ],
            &[0, 3, 1, 2],
        ),
        // MG 4R:1W: the solution u relaxed in place, the residual r and the
        // right-hand side v read; v (zran3) and r exist before u is zeroed.
        "mg" => (
            &[
                ("u", 0.45, 1, 1, 1),
                ("r", 0.45, 1, 0, 2),
                ("v", 0.10, 1, 0, 1),
            ],
            &[2, 1, 0],
        ),
        // CG >60R:1W: the sparse matrix and its column indices (makea)
        // streamed, five vectors updated.
        "cg" => (
            &[
                ("a", 0.60, 1, 0, 30),
                ("colidx", 0.30, 1, 0, 30),
                ("vectors", 0.10, 1, 1, 1),
            ],
            &[0, 1, 2],
        ),
        _ => return None,
    };
    let total = size_x * DRAM_NOMINAL as f64;
    Some(SweepSpec {
        arrays: parts
            .iter()
            .map(|&(n, share, r, w, l)| array(n, (total * share) as u64, r, w, l))
            .collect(),
        threads: 32,
        init_order: order.to_vec(),
        accesses,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npb_models_have_the_papers_read_write_ratios() {
        for (k, want) in [("bt", 3.5), ("ft", 5.0 / 3.0), ("mg", 4.0), ("cg", 61.0)] {
            let (r, w) = npb(k, 1.0, 1).unwrap().accesses_per_step();
            let ratio = r as f64 / w as f64;
            assert!((ratio - want).abs() < 0.1, "{k}: {ratio}");
        }
        assert!(npb("lu", 1.0, 1).is_none());
        let s = npb("bt", 3.5, 1).unwrap();
        let bytes: u64 = s.arrays.iter().map(|a| a.bytes).sum();
        assert!((bytes as f64 / (3.5 * DRAM_NOMINAL as f64) - 1.0).abs() < 0.01);
    }
}
