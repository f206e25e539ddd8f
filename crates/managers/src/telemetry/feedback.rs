//! DAMON's feedback loop (mm/damon/core.c, `damon_feed_loop_next_input`):
//! the one controller behind both DAMOS's quota goals
//! ([`crate::schemes`]) and the monitoring intervals' auto-tuning
//! ([`super::intervals`]).

/// The next input of the kernel's feedback loop: the input grows in
/// proportion to how far `score` falls short of the goal (10 000) and
/// shrinks in proportion to how far it overshoots, never below 10 000.
pub fn feed_loop_next(last: u64, score: u64) -> u64 {
    const GOAL: u64 = 10_000;
    const MIN_INPUT: u64 = 10_000;
    if score == GOAL {
        return last;
    }
    if score >= GOAL * 2 {
        return MIN_INPUT;
    }
    let over = score > GOAL;
    let diff = if over { score - GOAL } else { GOAL - score };
    let compensation = if last < u64::MAX / diff {
        last * diff / GOAL
    } else {
        last / GOAL * diff
    };
    if over {
        last.saturating_sub(compensation).max(MIN_INPUT)
    } else {
        last.saturating_add(compensation)
    }
}
