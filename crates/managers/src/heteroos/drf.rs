//! Sharing FastMem and SlowMem across VMs (../shared/papers/
//! 001_f8c99e4789a9a37b.txt, section 4.2, Algorithm 1): weighted Dominant
//! Resource Fairness, and the single-resource max-min fairness it replaces.
//!
//! Both divide the machine's pages of each memory type among VMs that each
//! have a boot-time minimum per type (reserved), a maximum (what ballooning
//! may give it) and a demand (what it would use). Allocation proceeds in
//! steps of `step` pages, as Algorithm 1 serves requests one at a time.
//!
//! **Weighted DRF.** A VM's dominant share is `max_j w_j * vm_ij / r_j`
//! (Algorithm 1 line 10 with the section's weights: FastMem 2, SlowMem 1).
//! The VM with the lowest dominant share is served next; a request is one
//! step of each type the VM still wants, as far as that type has pages left
//! (*inferred*: the prose has VMs request one resource at a time, so a type
//! that runs out does not stop a VM's requests for the other).
//!
//! *Inferred*: Algorithm 1 divides by the capacities and is written
//! unweighted, while the prose weights the page counts of the resource
//! vector; the weights here multiply the capacity-normalised shares, the one
//! reading in which they matter (weighting numerator and denominator alike
//! would cancel) and in which FastMem becomes the dominant resource of a VM
//! holding half as large a share of it as of SlowMem, the problem the
//! weights are said to fix.
//!
//! **Max-min** (the baseline, "most VMMs today"): memory is one resource,
//! the pages of both types; every VM first gets its basic share (its
//! minimums), then the rest is given evenly among the VMs that want more,
//! FastMem first (the types are not told apart by the fairness; a VM takes
//! the fastest free pages it is given). *Inferred*: the order in which a
//! type-blind allocator hands out the types.

/// FastMem is index 0, SlowMem index 1.
pub const TYPES: usize = 2;

/// Section 4.2's weights: FastMem 2, SlowMem 1.
pub const PAPER_WEIGHTS: [f64; TYPES] = [2.0, 1.0];

/// One VM's reservations and demand, in pages per memory type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VmShare {
    /// Reserved at boot.
    pub min: [u64; TYPES],
    /// The most ballooning may give it.
    pub max: [u64; TYPES],
    /// What it would use.
    pub demand: [u64; TYPES],
}

impl VmShare {
    /// What the VM may end with of type `j`: its demand within its
    /// reservations (never below its minimum, which is reserved anyway).
    fn want(&self, j: usize) -> u64 {
        self.demand[j].min(self.max[j]).max(self.min[j])
    }
}

/// The weighted dominant share of an allocation.
pub fn dominant_share(
    alloc: &[u64; TYPES],
    capacity: &[u64; TYPES],
    weights: &[f64; TYPES],
) -> f64 {
    (0..TYPES)
        .map(|j| {
            if capacity[j] == 0 {
                0.0
            } else {
                weights[j] * alloc[j] as f64 / capacity[j] as f64
            }
        })
        .fold(0.0, f64::max)
}

/// Why `vms` cannot share `capacity`, if they cannot: minimums above
/// maximums, or minimums that do not fit.
pub fn check(capacity: &[u64; TYPES], vms: &[VmShare]) -> Result<(), String> {
    const NAMES: [&str; TYPES] = ["FastMem", "SlowMem"];
    let mib = |pages: u64| pages / 256;
    for (j, &cap) in capacity.iter().enumerate() {
        if let Some(i) = vms.iter().position(|v| v.min[j] > v.max[j]) {
            return Err(format!(
                "VM {i}: its {} minimum ({} MiB) is above its maximum ({} MiB; without one, the tier's capacity)",
                NAMES[j],
                mib(vms[i].min[j]),
                mib(vms[i].max[j])
            ));
        }
        let reserved: u64 = vms.iter().map(|v| v.min[j]).sum();
        if reserved > cap {
            return Err(format!(
                "the VMs' {} minimums ({} MiB in all) exceed its {} MiB",
                NAMES[j],
                mib(reserved),
                mib(cap)
            ));
        }
    }
    Ok(())
}

fn reserved(vms: &[VmShare]) -> (Vec<[u64; TYPES]>, [u64; TYPES]) {
    let alloc: Vec<[u64; TYPES]> = vms.iter().map(|v| v.min).collect();
    let mut used = [0; TYPES];
    for a in &alloc {
        for j in 0..TYPES {
            used[j] += a[j];
        }
    }
    (alloc, used)
}

/// Weighted DRF (Algorithm 1) by progressive filling: each VM starts at its
/// minimums, then the VM with the lowest dominant share gets its next
/// request (a step of each type it wants, as far as the type has pages
/// left), until every VM has what it wants or nothing it wants is left.
/// Ties go to the lower VM index. `vms` must pass [`check`].
pub fn weighted_drf(
    capacity: &[u64; TYPES],
    weights: &[f64; TYPES],
    vms: &[VmShare],
    step: u64,
) -> Vec<[u64; TYPES]> {
    let step = step.max(1);
    let (mut alloc, mut used) = reserved(vms);
    let mut done = vec![false; vms.len()];
    loop {
        let next = (0..vms.len()).filter(|&i| !done[i]).min_by(|&a, &b| {
            let sa = dominant_share(&alloc[a], capacity, weights);
            let sb = dominant_share(&alloc[b], capacity, weights);
            sa.total_cmp(&sb).then(a.cmp(&b))
        });
        let Some(i) = next else {
            return alloc;
        };
        // The request: one step of each type the VM still wants and the
        // machine still has. A guest asks for pages of one type at a time
        // (section 4.2: "requests ... for the same resource"), so a type
        // that ran out stops only its own requests.
        let request: [u64; TYPES] = std::array::from_fn(|j| {
            vms[i]
                .want(j)
                .saturating_sub(alloc[i][j])
                .min(step)
                .min(capacity[j] - used[j])
        });
        if request.iter().all(|&r| r == 0) {
            // Satisfied, or nothing it wants is left: line 12 reclaims its
            // overcommit instead of granting.
            done[i] = true;
            continue;
        }
        for j in 0..TYPES {
            alloc[i][j] += request[j];
            used[j] += request[j];
        }
    }
}

/// Single-resource max-min fairness by progressive filling: minimums
/// first, then the VM holding the fewest pages in all (ties: the lower
/// index) that wants more gets the next `step`, taken from FastMem while
/// it lasts, then SlowMem. `vms` must pass [`check`].
pub fn max_min(capacity: &[u64; TYPES], vms: &[VmShare], step: u64) -> Vec<[u64; TYPES]> {
    let step = step.max(1);
    let (mut alloc, mut used) = reserved(vms);
    let mut done = vec![false; vms.len()];
    loop {
        let next = (0..vms.len())
            .filter(|&i| !done[i])
            .min_by_key(|&i| (alloc[i].iter().sum::<u64>(), i));
        let Some(i) = next else {
            return alloc;
        };
        let mut left = step;
        for j in 0..TYPES {
            let take = left
                .min(capacity[j] - used[j])
                .min(vms[i].want(j).saturating_sub(alloc[i][j]));
            alloc[i][j] += take;
            used[j] += take;
            left -= take;
        }
        if left == step {
            done[i] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const GIB: u64 = 262_144; // 4 KiB pages

    fn vm(min: [u64; 2], max: [u64; 2], demand: [u64; 2]) -> VmShare {
        VmShare { min, max, demand }
    }

    #[test]
    fn weights_make_a_small_fastmem_share_dominant() {
        let cap = [4 * GIB, 8 * GIB];
        // 1 GiB of 4 FastMem (25%) and 3 GiB of 8 SlowMem (37.5%):
        // unweighted SlowMem dominates, weighted (x2) FastMem does (50%).
        let a = [GIB, 3 * GIB];
        assert_eq!(dominant_share(&a, &cap, &[1.0, 1.0]), 0.375);
        assert_eq!(dominant_share(&a, &cap, &PAPER_WEIGHTS), 0.5);
    }

    /// A VM that holds much SlowMem already and one that holds none, both
    /// wanting all of FastMem: max-min, blind to the types, fills the one
    /// with fewer pages in all, which takes all of FastMem; weighted DRF
    /// sees the first's dominant share (0.75 from SlowMem) and gives the
    /// second FastMem only up to the same share, then splits the rest.
    #[test]
    fn drf_shares_fastmem_where_max_min_gives_it_all_to_one_vm() {
        let cap = [4 * GIB, 8 * GIB];
        let small = vm([0, 0], [4 * GIB, 8 * GIB], [4 * GIB, 0]);
        let big = vm([0, 6 * GIB], [4 * GIB, 8 * GIB], [4 * GIB, 6 * GIB]);
        let mm = max_min(&cap, &[small, big], GIB / 64);
        assert_eq!((mm[0][0], mm[1][0]), (4 * GIB, 0), "{mm:?}");
        let drf = weighted_drf(&cap, &PAPER_WEIGHTS, &[small, big], GIB / 64);
        assert_eq!(drf[0][0] + drf[1][0], cap[0], "{drf:?}");
        assert!(drf[1][0] >= 3 * GIB / 2, "{drf:?}");
        let gib = |p: u64| p as f64 / GIB as f64;
        assert!((gib(drf[0][0]) - 2.0).abs() <= 1.0 / 64.0, "{drf:?}");
    }

    #[test]
    fn reservations_are_kept_and_checked() {
        let cap = [4 * GIB, 8 * GIB];
        let a = vm([GIB, 4 * GIB], [GIB, 4 * GIB], [4 * GIB, 8 * GIB]);
        let b = vm([3 * GIB, 4 * GIB], [4 * GIB, 8 * GIB], [0, 0]);
        assert!(check(&cap, &[a, b]).is_ok());
        let d = weighted_drf(&cap, &PAPER_WEIGHTS, &[a, b], 1024);
        assert_eq!(d[0], [GIB, 4 * GIB], "capped at its maximum");
        assert_eq!(
            d[1],
            [3 * GIB, 4 * GIB],
            "its reservation, though it wants none"
        );
        let over = vm([3 * GIB, 0], [3 * GIB, 0], [0, 0]);
        assert!(check(&cap, &[a, over, over])
            .unwrap_err()
            .contains("exceed"));
        let inverted = vm([2 * GIB, 0], [GIB, 0], [0, 0]);
        assert!(check(&cap, &[inverted])
            .unwrap_err()
            .contains("above its maximum"));
    }

    /// Once FastMem is all given out, a VM that still wants SlowMem gets
    /// it: its requests for the other type go on.
    #[test]
    fn a_type_running_out_stops_only_its_own_requests() {
        let cap = [GIB, 8 * GIB];
        let a = vm([0, 0], [GIB, 8 * GIB], [GIB, 3 * GIB]);
        let b = vm([0, 0], [GIB, 8 * GIB], [GIB, 2 * GIB]);
        let d = weighted_drf(&cap, &PAPER_WEIGHTS, &[a, b], 1024);
        assert_eq!(d[0][0] + d[1][0], GIB, "FastMem is shared out");
        assert_eq!(d[0][1], 3 * GIB, "{d:?}");
        assert_eq!(d[1][1], 2 * GIB, "{d:?}");
    }

    fn vms() -> impl Strategy<Value = Vec<VmShare>> {
        prop::collection::vec(
            (
                0u64..200,
                0u64..400,
                0u64..300,
                0u64..600,
                0u64..400,
                0u64..800,
            ),
            1..5,
        )
        .prop_map(|v| {
            v.into_iter()
                .map(|(f0, s0, fx, sx, fd, sd)| {
                    vm([f0 / 4, s0 / 4], [f0 / 4 + fx, s0 / 4 + sx], [fd, sd])
                })
                .collect()
        })
    }

    proptest! {
        /// Both policies keep every VM within [min, max], never hand out
        /// more than the machine has, and (with unit steps) leave no page
        /// of a type free while a VM that wants more of it could take it.
        #[test]
        fn allocations_are_feasible_and_work_conserving(v in vms(), f in 100u64..1000, s in 200u64..2000) {
            let cap = [f, s];
            prop_assume!(check(&cap, &v).is_ok());
            for alloc in [weighted_drf(&cap, &PAPER_WEIGHTS, &v, 1), max_min(&cap, &v, 1)] {
                for j in 0..TYPES {
                    prop_assert!(alloc.iter().map(|a| a[j]).sum::<u64>() <= cap[j]);
                    for (a, vm) in alloc.iter().zip(&v) {
                        prop_assert!(a[j] >= vm.min[j] && a[j] <= vm.max[j]);
                    }
                }
            }
            let d = weighted_drf(&cap, &PAPER_WEIGHTS, &v, 1);
            for j in 0..TYPES {
                let free = cap[j] - d.iter().map(|a| a[j]).sum::<u64>();
                if free > 0 {
                    // A VM still short of type j is blocked by the other
                    // type: its request needed a page that was not there.
                    for (a, vm) in d.iter().zip(&v) {
                        if a[j] < vm.want(j) {
                            let other = 1 - j;
                            let other_free = cap[other] - d.iter().map(|a| a[other]).sum::<u64>();
                            prop_assert!(a[other] < vm.want(other) && other_free == 0);
                        }
                    }
                }
            }
        }
    }
}
