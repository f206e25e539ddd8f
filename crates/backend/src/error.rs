//! Typed errors of backend operations.

use crate::Capability;
use thermocline_vocab::{Asid, TierId};

/// Why a backend operation failed.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum BackendError {
    /// The backend does not have this primitive (see [`crate::Capabilities`]).
    #[error("this backend does not support {0:?}")]
    Unsupported(Capability),
    /// No such address space.
    #[error("no address space {0:?}")]
    NoSuchTarget(Asid),
    /// The address is not mapped (never touched, or outside every region).
    #[error("address {va:#x} is not mapped in {asid:?}")]
    NotMapped {
        /// Address space.
        asid: Asid,
        /// The address asked about.
        va: u64,
    },
    /// The destination tier has no free frame of the needed size.
    #[error("tier {0:?} has no free frame for this page")]
    TierFull(TierId),
    /// No such tier.
    #[error("no tier {0:?}")]
    NoSuchTier(TierId),
    /// The manager cannot run on this workload or machine (it says why):
    /// the user's choice, not a failure.
    #[error("{0}")]
    Unfit(String),
    /// A live host refused or failed an operation for a reason the
    /// manager cannot fix (the target exited, a permission, a kernel error);
    /// the live backend says which.
    #[error("the host: {0}")]
    Host(String),
    /// The operation does not apply to this mapping (e.g. split a 4 KiB page).
    #[error("invalid operation at {va:#x}: {why}")]
    Invalid {
        /// The address asked about.
        va: u64,
        /// What was wrong.
        why: &'static str,
    },
}

impl BackendError {
    /// `Ok` if `tier` is one of a machine's `tiers`, else [`BackendError::NoSuchTier`].
    pub fn unless_tier(tier: TierId, tiers: usize) -> Result<(), BackendError> {
        if tier.index() < tiers {
            Ok(())
        } else {
            Err(BackendError::NoSuchTier(tier))
        }
    }

    /// `Ok` if `policy` can be followed on a machine of `tiers` tiers: a
    /// bound tier it has, a probability in [0, 1]. Both machines check
    /// alike.
    pub fn unless_policy(policy: crate::MemPolicy, tiers: usize) -> Result<(), BackendError> {
        match policy {
            crate::MemPolicy::Bind { tier } => Self::unless_tier(tier, tiers),
            crate::MemPolicy::Random { fast_probability }
                if !(0.0..=1.0).contains(&fast_probability) =>
            {
                Err(BackendError::Invalid {
                    va: 0,
                    why: "fast_probability must be in [0, 1]",
                })
            }
            _ => Ok(()),
        }
    }
}
