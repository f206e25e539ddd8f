//! Memos (../shared/papers/003_4ce7a4cbf1361ba3.txt): the monitor's
//! reproduction ([`monitor`], sections 3 and 6.1), the evaluation's
//! ([`eval`], section 6), its time breakdown ([`breakdown`]) and the steps
//! of its design ([`steps`]); the machine and runs they share ([`setup`]).

pub mod breakdown;
pub mod eval;
pub mod eval_claims;
pub mod monitor;
pub mod monitor_claims;
pub mod setup;
pub mod steps;

/// Memos' reproductions, in the order `reproduce --list` shows them.
pub fn reproductions() -> Vec<crate::reproduction::Reproduction> {
    let mut all = monitor::reproductions();
    all.extend(eval::reproductions());
    all.extend(breakdown::reproductions());
    all.extend(steps::reproductions());
    all
}
