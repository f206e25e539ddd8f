//! Running independent jobs on a few threads, results in job order.
//!
//! `compare` and `reproduce` both run many deterministic simulations that
//! share nothing; each job's result depends only on its input, so the
//! output does not depend on how many threads ran them or in what order
//! they finished.

use std::sync::Mutex;

/// Runs `job(i)` for every `i` in `0..n` on `threads` threads (taking the
/// next index as each thread frees up), calling `done(i, &result)` as each
/// finishes, and returns the results in index order. The first error stops
/// every thread from taking another job, and is returned.
pub fn map_in_order<R: Send, E: Send>(
    n: usize,
    threads: usize,
    job: impl Fn(usize) -> Result<R, E> + Sync,
    done: impl Fn(usize, &R) + Sync,
) -> Result<Vec<R>, E> {
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..n).map(|_| None).collect());
    let failure: Mutex<Option<E>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, n.max(1)) {
            scope.spawn(|| loop {
                let i = {
                    let mut at = next.lock().unwrap_or_else(|e| e.into_inner());
                    let failed = failure.lock().unwrap_or_else(|e| e.into_inner()).is_some();
                    if *at >= n || failed {
                        return;
                    }
                    *at += 1;
                    *at - 1
                };
                match job(i) {
                    Ok(r) => {
                        done(i, &r);
                        results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
                    }
                    Err(e) => {
                        failure
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .get_or_insert(e);
                        return;
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    Ok(results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every job ran when none failed"))
        .collect())
}

/// Threads to use when the user did not say: one per core.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever the thread count, the results are the jobs' results
        /// in index order, and every job ran once.
        #[test]
        fn results_come_in_order_whatever_the_threads(n in 0usize..40, threads in 1usize..6) {
            let ran = Mutex::new(Vec::new());
            let out = map_in_order(n, threads, |i| Ok::<_, ()>(i * i), |i, _| ran.lock().unwrap().push(i)).unwrap();
            prop_assert_eq!(out, (0..n).map(|i| i * i).collect::<Vec<_>>());
            let mut ran = ran.into_inner().unwrap();
            ran.sort_unstable();
            prop_assert_eq!(ran, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn the_first_failure_stops_new_jobs_and_is_returned() {
        let started = Mutex::new(0);
        let r = map_in_order(
            100,
            1,
            |i| {
                *started.lock().unwrap() += 1;
                if i == 3 {
                    Err(format!("job {i} failed"))
                } else {
                    Ok(i)
                }
            },
            |_, _| {},
        );
        assert_eq!(r, Err("job 3 failed".to_string()));
        assert_eq!(*started.lock().unwrap(), 4, "no job starts after a failure");
    }
}
