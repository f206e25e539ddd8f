//! Optane's Memory Mode on the rate machine: DRAM as a direct-mapped,
//! 64-byte-line, write-back cache of the slow tiers (what the exact machine
//! simulates line by line in `thermocline_sim::dram_cache`), answered in
//! expectation under the independent reference model.
//!
//! A line hits when the last access to its set was to it. With the
//! footprint's lines spread over the `S` sets at random, the other lines of
//! a line's set are, per group `g` of `n_g` lines of equal rate `p_g`, a
//! Poisson number of mean `λ_g = n_g / S`; so a line of rate `p` hits with
//! probability
//!
//! ```text
//! h(p) = E[p / (p + X)],  X = Σ_g N_g p_g,  N_g ~ Poisson(λ_g)
//!      = ∫_0^∞ e^{-u} Π_g exp(λ_g (e^{-u p_g / p} - 1)) du
//! ```
//!
//! (from `1/a = ∫ e^{-at} dt` and the Poisson generating function), which
//! for one group is `(1 - e^{-λ}) / λ`, the mean of `1 / (1 + N)`.
//!
//! **Write-backs.** A dirty line is written back once per residency that
//! saw a store, when it is evicted: so the write-backs are the stores that
//! are the last of their residency, those after which another line of the
//! set comes before the line's next store. With stores to the line at
//! rate `p w` (write fraction `w`) and the other lines at rate `X`, that is
//! `X / (X + p w)`, and a line's write-backs per access are
//!
//! ```text
//! wb(p, w) = w E[X / (X + p w)] = w (1 - h(p w))
//! ```
//!
//! ([`writebacks_per_access`]): exact under the model, where taking the
//! mean hit probability first (`(1 - h) d(h)`, the residency's chance of a
//! store at the mean `h`, [`dirty_on_eviction`]) overstates them as the
//! sets' occupancy varies: by 11% on a uniform stream over twice the cache
//! (write fraction 0.25), by half for the hot group of
//! `write_backs_agree_with_a_simulated_write_back_cache`.
//!
//! **What goes through it** (the rules the exact machine follows line by
//! line): without an LLC every access to a slow-tier page, a store as a
//! write of the line; with one, the LLC's misses (a store's as a read for
//! ownership) and the LLC's dirty victims, written into the cache (a miss
//! allocates the line: nothing is read from the slow tier). A read or store
//! that misses reads its line from the slow tier and fills it; a dirty
//! victim goes back to the slow tier. The LLC's dirty victims per miss are
//! [`dirty_on_eviction`] at the LLC's hit ratio (an LRU cache's residency
//! under Che's approximation is the same geometric run of accesses).
//!
//! Deviations: lines are spread over the sets at random, not by their
//! physical addresses (the rate machine has no physical layout), and
//! every access is a Poisson request (a sweep's lines are not periodic
//! here, unlike the LLC model in [`crate::che`]); compulsory misses are
//! not counted. Behind an LLC the cache's accesses are taken as a Poisson
//! stream too, though the LLC filters them (a line is not read again while
//! the LLC holds it): on uniform streams the model counts 6-20% fewer
//! misses than a simulated cache and 3-7% fewer write-backs
//! (`tests/memory_mode.rs`); the LLC's write-backs are taken at a run's
//! mean LLC hit ratio.

/// Lines of equal access rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineGroup {
    /// Lines in the group.
    pub lines: f64,
    /// Accesses per access of the workload to each line.
    pub p: f64,
}

/// Simpson intervals over `v = 1 - e^{-u}` in `[0, 1]`: the integrand is
/// smooth and bounded there.
const INTERVALS: usize = 256;

/// The hit probability of a line of rate `p` in a cache of `sets` sets
/// holding `groups` (which include the line's own group).
pub fn hit_probability(p: f64, groups: &[LineGroup], sets: f64) -> f64 {
    if p <= 0.0 {
        return 0.0;
    }
    let sets = sets.max(1.0);
    // log of the product at u: Σ λ_g (e^{-u p_g / p} - 1)
    let log_f = |u: f64| -> f64 {
        groups
            .iter()
            .filter(|g| g.p > 0.0 && g.lines > 0.0)
            .map(|g| g.lines / sets * ((-u * g.p / p).exp() - 1.0))
            .sum()
    };
    let at = |v: f64| -> f64 {
        if v >= 1.0 {
            // u → ∞: every other line of positive rate has come in
            groups
                .iter()
                .filter(|g| g.p > 0.0 && g.lines > 0.0)
                .map(|g| -g.lines / sets)
                .sum::<f64>()
                .exp()
        } else {
            log_f(-(1.0 - v).ln()).exp()
        }
    };
    let h = 1.0 / INTERVALS as f64;
    let mut sum = at(0.0) + at(1.0);
    for i in 1..INTERVALS {
        let weight = if i % 2 == 1 { 4.0 } else { 2.0 };
        sum += weight * at(i as f64 * h);
    }
    (sum * h / 3.0).clamp(0.0, 1.0)
}

/// Dirty lines written back per access to a line of rate `p` and write
/// fraction `w` (see the module's documentation): `w (1 - h(p w))`.
pub fn writebacks_per_access(p: f64, w: f64, groups: &[LineGroup], sets: f64) -> f64 {
    if p <= 0.0 || w <= 0.0 {
        return 0.0;
    }
    w * (1.0 - hit_probability(p * w, groups, sets))
}

/// The probability that a line with hit probability `h` and write
/// fraction `w` is dirty when it is evicted, its residency a run of
/// accesses each of which continues it with probability `h`.
pub fn dirty_on_eviction(h: f64, w: f64) -> f64 {
    let keep = h * (1.0 - w);
    if keep >= 1.0 {
        return 0.0;
    }
    (1.0 - (1.0 - w) * (1.0 - h) / (1.0 - keep)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use thermocline_vocab::Rng;

    #[test]
    fn one_group_is_the_mean_of_one_over_one_plus_a_poisson() {
        for lambda in [0.01f64, 0.5, 1.0, 2.0, 8.0] {
            let sets = 1000.0;
            let g = [LineGroup {
                lines: lambda * sets,
                p: 1.0 / (lambda * sets),
            }];
            let want = (1.0 - (-lambda).exp()) / lambda;
            let got = hit_probability(g[0].p, &g, sets);
            assert!(
                (got - want).abs() < 1e-6,
                "λ {lambda}: {got} against {want}"
            );
        }
    }

    #[test]
    fn dirty_eviction_is_certain_for_stores_and_never_for_loads() {
        assert_eq!(dirty_on_eviction(0.7, 0.0), 0.0);
        assert!((dirty_on_eviction(0.7, 1.0) - 1.0).abs() < 1e-12);
        // one access per residency (h = 0): dirty iff it was a store
        assert!((dirty_on_eviction(0.0, 0.3) - 0.3).abs() < 1e-12);
    }

    /// The reference: a direct-mapped cache simulated access by access,
    /// lines placed in sets at random, requests drawn by rate; per group,
    /// hits per access.
    fn simulated(groups: &[(u64, f64)], sets: u64, seed: u64) -> Vec<f64> {
        simulated_with_stores(groups, sets, 0.0, seed).0
    }

    /// [`simulated`] with a store fraction `w` and a write-back cache: per
    /// group, hits and dirty evictions (of the group's lines) per access.
    fn simulated_with_stores(
        groups: &[(u64, f64)],
        sets: u64,
        w: f64,
        seed: u64,
    ) -> (Vec<f64>, Vec<f64>) {
        let mut rng = Rng::new(seed);
        let mut set_of = Vec::new();
        let mut group_of = Vec::new();
        let mut cum = Vec::new();
        let mut total = 0.0;
        for (g, &(n, weight)) in groups.iter().enumerate() {
            for _ in 0..n {
                set_of.push(rng.below(sets));
                group_of.push(g);
                total += weight;
                cum.push(total);
            }
        }
        let mut tags = vec![(u64::MAX, false); sets as usize];
        let g = groups.len();
        let (mut hits, mut seen, mut wbs) = (vec![0u64; g], vec![0u64; g], vec![0u64; g]);
        for i in 0..3_000_000 {
            let x = rng.unit() * total;
            let line = cum.partition_point(|&c| c < x).min(cum.len() - 1);
            let store = w > 0.0 && rng.unit() < w;
            let s = set_of[line] as usize;
            let (held, dirty) = tags[s];
            let hit = held == line as u64;
            tags[s] = (line as u64, store || (hit && dirty));
            // long enough that every cold line was seen: no compulsory misses
            if i >= 1_000_000 {
                seen[group_of[line]] += 1;
                hits[group_of[line]] += u64::from(hit);
                if !hit && dirty {
                    wbs[group_of[held as usize]] += 1;
                }
            }
        }
        let per = |v: &[u64]| {
            v.iter()
                .zip(&seen)
                .map(|(&h, &n)| h as f64 / n.max(1) as f64)
                .collect()
        };
        (per(&hits), per(&wbs))
    }

    /// A hot, a warm and a cold group of lines (count, relative weight)
    /// over 1.5x a cache of 2000 sets, as the model's groups.
    fn three_groups() -> (u64, [(u64, f64); 3], Vec<LineGroup>) {
        let spec = [(600u64, 9.0), (1400u64, 1.0), (1000u64, 0.1)];
        let total: f64 = spec.iter().map(|&(n, w)| n as f64 * w).sum();
        let groups = spec
            .iter()
            .map(|&(n, w)| LineGroup {
                lines: n as f64,
                p: w / total,
            })
            .collect();
        (2000, spec, groups)
    }

    /// Write-backs per access of each group's lines, `w (1 - h(p w))`,
    /// against the simulated cache: a hot, a warm and a cold group.
    #[test]
    fn write_backs_agree_with_a_simulated_write_back_cache() {
        let (sets, spec, groups) = three_groups();
        for w in [0.1, 0.5] {
            let (_, got) = simulated_with_stores(&spec, sets, w, 11);
            for (g, sim) in groups.iter().zip(&got) {
                let model = writebacks_per_access(g.p, w, &groups, sets as f64);
                assert!(
                    (model - sim).abs() < 0.01,
                    "w {w}, rate {}: model {model:.4}, simulated {sim:.4}",
                    g.p
                );
            }
        }
    }

    #[test]
    fn hits_agree_with_a_simulated_direct_mapped_cache() {
        let (sets, spec, groups) = three_groups();
        let got = simulated(&spec, sets, 7);
        for (g, sim) in groups.iter().zip(&got) {
            let model = hit_probability(g.p, &groups, sets as f64);
            assert!(
                (model - sim).abs() < 0.02,
                "rate {}: model {model:.3}, simulated {sim:.3}",
                g.p
            );
        }
    }
}
