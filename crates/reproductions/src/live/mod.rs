//! The project's live reproductions: the simulator beside a real kernel in
//! the QEMU guest, for the managers that run live ([`agreement`]) and for
//! DAMON's regions ([`damon`]).

pub mod agreement;
pub mod damon;

/// The live reproductions, in the order `reproduce --list` shows them.
pub fn reproductions() -> Vec<crate::reproduction::Reproduction> {
    let mut all = agreement::reproductions();
    all.extend(damon::reproductions());
    all
}
