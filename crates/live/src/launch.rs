//! Starting a command under an allocation policy. A process's memory policy
//! cannot be set from outside it (set_mempolicy acts on the calling
//! thread), so a manager that places pages only by the policy its address
//! spaces start under (the baselines: `interleave`, `all-slow`, ...) runs
//! live on a command thermocline starts: the child sets the policy between
//! fork and execve, and the kernel keeps a task's policy across execve
//! (set_mempolicy(2)).
//!
//! The policies map onto the kernel's as follows (`tiers` are the live
//! backend's, fastest first):
//! - `PreferFast`: the kernel's default when the fastest tier holds every
//!   node with CPUs (local node first, then the nearest), else preferred on
//!   the fastest tier's nodes;
//! - `Bind { tier }`: preferred on the tier's nodes (MPOL_PREFERRED, or
//!   MPOL_PREFERRED_MANY for several), not MPOL_BIND: the model's Bind falls
//!   back to other tiers when its tier is full, and a strict bind would
//!   have the kernel OOM-kill the command instead;
//! - `Interleave`: MPOL_INTERLEAVE over the nodes of every node tier (with
//!   one node per tier, that alternates between tiers page by page, as the
//!   model does; a full node is skipped);
//! - `Random`: no kernel policy places pages at random: refused.

use crate::backend::LiveTier;
use crate::LiveError;
use std::os::unix::process::CommandExt;
use std::process::Command;
use thermocline_backend::MemPolicy;

/// set_mempolicy's MPOL_PREFERRED_MANY (Linux >= 5.15; not in libc).
const MPOL_PREFERRED_MANY: i32 = 5;

/// A kernel memory policy: set_mempolicy's mode and node mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelPolicy {
    /// MPOL_* mode.
    pub mode: i32,
    /// Nodes, one bit each (nodes 0-63).
    pub nodes: u64,
}

impl KernelPolicy {
    /// As numa_maps and numactl write it: `interleave:0-1`, say.
    pub fn describe(&self) -> String {
        let mode = match self.mode {
            libc::MPOL_PREFERRED => "prefer",
            libc::MPOL_BIND => "bind",
            libc::MPOL_INTERLEAVE => "interleave",
            MPOL_PREFERRED_MANY => "prefer (many)",
            _ => "policy",
        };
        let nodes: Vec<String> = (0..64)
            .filter(|n| self.nodes >> n & 1 == 1)
            .map(|n| n.to_string())
            .collect();
        format!("{mode}:{}", nodes.join(","))
    }
}

fn mask(nodes: &[i32]) -> Result<u64, LiveError> {
    nodes.iter().try_fold(0u64, |m, &n| match u32::try_from(n) {
        Ok(n) if n < 64 => Ok(m | 1 << n),
        _ => Err(LiveError::Invalid(format!(
            "node {n}: an allocation policy is set here for nodes 0 to 63 only"
        ))),
    })
}

fn preferred(nodes: &[i32]) -> Result<KernelPolicy, LiveError> {
    let mode = if nodes.len() > 1 {
        MPOL_PREFERRED_MANY
    } else {
        libc::MPOL_PREFERRED
    };
    Ok(KernelPolicy {
        mode,
        nodes: mask(nodes)?,
    })
}

/// The kernel policy that gives `policy` over `tiers`; `None` when it is
/// the kernel's default. `fast_has_cpus`: the fastest tier holds every node
/// with CPUs. Errors name what the kernel cannot do.
pub fn kernel_policy(
    policy: MemPolicy,
    tiers: &[LiveTier],
    fast_has_cpus: bool,
) -> Result<Option<KernelPolicy>, LiveError> {
    let node_tiers: Vec<&LiveTier> = tiers.iter().filter(|t| !t.compressed).collect();
    match policy {
        MemPolicy::PreferFast if fast_has_cpus => Ok(None),
        MemPolicy::PreferFast => match node_tiers.first() {
            Some(t) => preferred(&t.nodes).map(Some),
            None => Err(LiveError::Invalid("no tier has a NUMA node".into())),
        },
        MemPolicy::Bind { tier } => match tiers.get(usize::from(tier.0)) {
            Some(t) if t.compressed => Err(LiveError::Invalid(format!(
                "pages cannot be allocated in the compressed tier ({}): it holds only pages paged out",
                t.name
            ))),
            Some(t) => preferred(&t.nodes).map(Some),
            None => Err(LiveError::Invalid(format!(
                "tier {} does not exist ({} tiers)",
                tier.0,
                tiers.len()
            ))),
        },
        MemPolicy::Interleave => {
            if node_tiers.len() < 2 {
                return Err(LiveError::Invalid(
                    "interleaving needs two tiers of NUMA nodes".into(),
                ));
            }
            let nodes: Vec<i32> = node_tiers.iter().flat_map(|t| t.nodes.clone()).collect();
            Ok(Some(KernelPolicy {
                mode: libc::MPOL_INTERLEAVE,
                nodes: mask(&nodes)?,
            }))
        }
        MemPolicy::Random { .. } => Err(LiveError::Invalid(
            "no kernel memory policy places pages at random".into(),
        )),
    }
}

/// `command`, set to start under `policy` (none: the kernel's default).
pub fn under(mut command: Command, policy: Option<KernelPolicy>) -> Command {
    if let Some(KernelPolicy { mode, nodes }) = policy {
        // SAFETY: the closure runs in the forked child before execve, where
        // only async-signal-safe calls are allowed: it makes one raw system
        // call with values copied in before the fork (no allocation, no
        // lock). set_mempolicy reads 64 bits of node mask from `mask`,
        // which lives on the child's stack for the call.
        unsafe {
            command.pre_exec(move || {
                let mask: libc::c_ulong = nodes as libc::c_ulong;
                let r = libc::syscall(
                    libc::SYS_set_mempolicy,
                    mode,
                    &mask as *const libc::c_ulong,
                    64 as libc::c_ulong,
                );
                if r < 0 {
                    Err(std::io::Error::last_os_error())
                } else {
                    Ok(())
                }
            });
        }
    }
    command
}

#[cfg(test)]
mod tests {
    use super::*;
    use thermocline_vocab::TierId;

    fn tiers() -> Vec<LiveTier> {
        let t = |name: &str, nodes: Vec<i32>, compressed| LiveTier {
            name: name.into(),
            nodes,
            compressed,
        };
        vec![
            t("dram", vec![0], false),
            t("cxl", vec![1, 2], false),
            t("compressed", vec![], true),
        ]
    }

    #[test]
    fn each_policy_maps_to_the_kernels_or_is_refused_with_a_reason() {
        let t = tiers();
        assert_eq!(
            kernel_policy(MemPolicy::PreferFast, &t, true).unwrap(),
            None
        );
        let p = kernel_policy(MemPolicy::PreferFast, &t, false)
            .unwrap()
            .unwrap();
        assert_eq!((p.mode, p.nodes), (libc::MPOL_PREFERRED, 0b1));
        let slow = kernel_policy(MemPolicy::Bind { tier: TierId(1) }, &t, true)
            .unwrap()
            .unwrap();
        assert_eq!((slow.mode, slow.nodes), (MPOL_PREFERRED_MANY, 0b110));
        let i = kernel_policy(MemPolicy::Interleave, &t, true)
            .unwrap()
            .unwrap();
        assert_eq!((i.mode, i.nodes), (libc::MPOL_INTERLEAVE, 0b111));
        assert_eq!(i.describe(), "interleave:0,1,2");
        for refused in [
            MemPolicy::Bind { tier: TierId(2) },
            MemPolicy::Bind { tier: TierId(3) },
            MemPolicy::Random {
                fast_probability: 0.5,
            },
        ] {
            let e = kernel_policy(refused, &t, true).unwrap_err().to_string();
            assert!(!e.is_empty());
        }
        let one = &t[..1];
        assert!(kernel_policy(MemPolicy::Interleave, one, true)
            .unwrap_err()
            .to_string()
            .contains("two tiers"));
        let far = vec![LiveTier {
            name: "far".into(),
            nodes: vec![64],
            compressed: false,
        }];
        assert!(kernel_policy(MemPolicy::Bind { tier: TierId(0) }, &far, true).is_err());
    }

    #[test]
    fn a_command_started_under_a_policy_runs_under_it() {
        // every host has node 0: interleaving over it alone is allowed, and
        // the child's own numa_maps shows the policy it inherited
        let p = KernelPolicy {
            mode: libc::MPOL_INTERLEAVE,
            nodes: 1,
        };
        let mut c = Command::new("sh");
        c.args(["-c", "cat /proc/self/numa_maps"]);
        let out = under(c, Some(p)).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}");
        assert!(text.lines().all(|l| l.contains(" interleave:0")), "{text}");
        let mut c = Command::new("sh");
        c.args(["-c", "cat /proc/self/numa_maps"]);
        let out = under(c, None).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.lines().any(|l| l.contains(" default")), "{text}");
    }
}
