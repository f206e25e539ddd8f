//! HeteroOS (../shared/papers/001_f8c99e4789a9a37b.txt): the guest's
//! placement figures ([`placement`], section 5.3), the VMM's coordinated
//! management ([`vmm`], section 5.4), the sensitivity to the fast tier's
//! size ([`sensitivity`]) and weighted DRF across VMs ([`drf`], section
//! 5.5), each with its claims and its setup.

pub mod drf;
pub mod drf_claims;
pub mod drf_setup;
pub mod placement;
pub mod placement_claims;
pub mod sensitivity;
pub mod sensitivity_claims;
pub mod sensitivity_setup;
pub mod vmm;
pub mod vmm_claims;
pub mod vmm_setup;

/// HeteroOS' reproductions, in the order `reproduce --list` shows them.
pub fn reproductions() -> Vec<crate::reproduction::Reproduction> {
    let mut all = placement::reproductions();
    all.extend(vmm::reproductions());
    all.extend(sensitivity::reproductions());
    all.extend(drf::reproductions());
    all
}
