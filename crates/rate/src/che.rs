//! Che's approximation of an LRU cache under the independent reference model
//! (Che, Tung and Wang, IEEE JSAC 2002; ../shared/reference/rate-model.md):
//! find the characteristic time `T` with `sum_i (1 - exp(-p_i T)) = C`; item
//! `i` then hits with probability `1 - exp(-p_i T)`.
//!
//! Items come in groups of equal popularity (`count` items of popularity `p`
//! each, in accesses per access), so the sum has a closed form per group.

/// `count` items, each receiving a fraction `p` of all accesses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ItemGroup {
    /// Items in the group (fractional counts are allowed).
    pub count: f64,
    /// Popularity of each item (fraction of accesses).
    pub p: f64,
    /// Requested at regular intervals of `1/p` (a cyclic sweep) rather than
    /// at random: such an item stays cached for `T` after each request, so it
    /// hits exactly when its period is below `T` (Che's approximation for
    /// periodic requests; an LRU cache facing a sweep larger than itself
    /// misses every time).
    pub periodic: bool,
}

impl ItemGroup {
    /// Random (Poisson) requests.
    pub fn poisson(count: f64, p: f64) -> Self {
        ItemGroup {
            count,
            p,
            periodic: false,
        }
    }
}

/// The characteristic time of a cache of `capacity` items, in accesses; `None`
/// when every item with positive popularity fits (then everything hits after
/// its first access).
pub fn characteristic_time(groups: &[ItemGroup], capacity: f64) -> Option<f64> {
    let live: f64 = groups.iter().filter(|g| g.p > 0.0).map(|g| g.count).sum();
    if live <= capacity {
        return None;
    }
    let occupied = |t: f64| -> f64 {
        groups
            .iter()
            .filter(|g| g.p > 0.0)
            .map(|g| {
                if g.periodic {
                    g.count * (g.p * t).min(1.0)
                } else {
                    g.count * -(-g.p * t).exp_m1()
                }
            })
            .sum()
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while occupied(hi) < capacity {
        hi *= 2.0;
        if hi > 1e30 {
            return Some(hi);
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if occupied(mid) < capacity {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-12 * hi {
            break;
        }
    }
    Some(0.5 * (lo + hi))
}

/// Miss probability of an item of popularity `p` given the characteristic time.
pub fn miss_probability(p: f64, t: Option<f64>) -> f64 {
    match t {
        None => 0.0,
        Some(t) => (-p * t).exp(),
    }
}

/// Miss probability of an item of group `g`'s kind and popularity `p`.
pub fn miss_probability_of(g: &ItemGroup, t: Option<f64>) -> f64 {
    match (g.periodic, t) {
        (_, None) => 0.0,
        (true, Some(t)) => {
            if g.p * t >= 1.0 {
                0.0
            } else {
                1.0
            }
        }
        (false, t) => miss_probability(g.p, t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_larger_than_the_cache_always_misses() {
        // 2 000 pages swept in turn through 1 536 entries: every visit misses;
        // 1 000 pages fit: every visit after the first hits.
        let sweep = |n: f64| ItemGroup {
            count: n,
            p: 1.0 / n,
            periodic: true,
        };
        let g = [sweep(2000.0)];
        assert_eq!(
            miss_probability_of(&g[0], characteristic_time(&g, 1536.0)),
            1.0
        );
        let g = [sweep(1000.0)];
        assert_eq!(
            miss_probability_of(&g[0], characteristic_time(&g, 1536.0)),
            0.0
        );
    }

    #[test]
    fn uniform_items_hit_in_proportion_to_capacity() {
        // n equal items, cache of c: hit ratio -> c / n under LRU and IRM.
        let g = [ItemGroup::poisson(10_000.0, 1e-4)];
        let t = characteristic_time(&g, 1_000.0);
        let hit = 1.0 - miss_probability(1e-4, t);
        assert!((hit - 0.1).abs() < 1e-6, "{hit}");
        assert_eq!(characteristic_time(&g, 20_000.0), None);
    }

    #[test]
    fn popular_items_hit_more() {
        let g = [
            ItemGroup::poisson(100.0, 0.009),
            ItemGroup::poisson(10_000.0, 0.000_01),
        ];
        let t = characteristic_time(&g, 200.0);
        assert!(miss_probability(0.009, t) < 0.01);
        assert!(miss_probability(0.000_01, t) > 0.9);
    }
}
