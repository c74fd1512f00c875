//! The crate's one thread policy: how many threads a job of `n` items gets, and how its
//! parts run.
//!
//! A job of fewer than [`PARALLEL_MIN`] items runs on the calling thread. A larger one gets
//! the number of threads its caller asks for, or, when asked for 0, one per core as
//! [`std::thread::available_parallelism`] reports, at most [`MAX_THREADS`]. [`run_parts`]
//! runs the parts of a job on scoped threads (the calling thread takes parts too) and
//! turns a part that panics into [`ErrorKind::WorkerFailed`], whichever thread ran it.
//! [`fill`] fills one output vector from several threads, each writing its own range, after
//! [`huge_pages`] has advised the kernel to back a large one with huge pages.

pub(crate) mod alloc;
pub(crate) mod fill;
mod huge_pages;
pub(crate) mod wide;

use crate::error::{fail, ErrorKind, Result};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Jobs of at least this many items (elements, entries, rows) are split between threads.
pub(crate) const PARALLEL_MIN: usize = 1 << 20;

/// The most threads a job gets when its caller asks for one per core.
pub(crate) const MAX_THREADS: usize = 8;

/// Threads for `requested` ([`crate::ConvertOptions::threads`]): `requested` itself, or
/// for 0 one per core, at most [`MAX_THREADS`].
pub(crate) fn thread_count(requested: usize) -> usize {
    match requested {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS)),
        n => n,
    }
}

/// Threads for a job of `n` items when `requested` are asked for (0: one per core): 1
/// below [`PARALLEL_MIN`] items, else [`thread_count`].
pub(crate) fn threads_for(n: usize, requested: usize) -> usize {
    if n < PARALLEL_MIN {
        1
    } else {
        thread_count(requested)
    }
}

/// Runs `job(p, input)` for every part `p` of `inputs` (part `p` takes `inputs[p]`) and
/// returns the results in part order.
///
/// Parts are taken in order by up to `threads` threads: the calling thread and scoped
/// threads spawned for the call (a thread that cannot be spawned leaves its parts to the
/// others). A part that panics stops the job: the parts not yet started are skipped and
/// the call returns [`ErrorKind::WorkerFailed`] naming `what` (the panic message goes to
/// the panic hook as usual). Nothing a failed job produced is returned.
pub(crate) fn run<T, R, F>(
    threads: usize,
    inputs: Vec<T>,
    what: &'static str,
    job: F,
) -> Result<Vec<R>>
where
    T: Send,
    R: Send,
    F: Fn(usize, T) -> R + Sync,
{
    run_typed(threads, inputs, what, &job)
}

/// [`run`] with the job behind a reference to a trait object: compiled once per input and
/// result type rather than once per job (a call through it per part).
fn run_typed<T: Send, R: Send>(
    threads: usize,
    inputs: Vec<T>,
    what: &'static str,
    job: &(dyn Fn(usize, T) -> R + Sync),
) -> Result<Vec<R>> {
    let parts = inputs.len();
    let inputs: Vec<Mutex<Option<T>>> = inputs.into_iter().map(|x| Mutex::new(Some(x))).collect();
    let slots: Vec<Mutex<Option<R>>> = (0..parts).map(|_| Mutex::new(None)).collect();
    // Part `p`: its input taken, its result stored; false when a lock was poisoned.
    let part = |p: usize| -> bool {
        let Some(input) = inputs.get(p).and_then(|m| m.lock().ok()?.take()) else {
            return false;
        };
        let r = job(p, input);
        match slots.get(p).map(Mutex::lock) {
            Some(Ok(mut slot)) => {
                *slot = Some(r);
                true
            }
            _ => false,
        }
    };
    run_parts(threads, parts, what, &part)?;
    let mut results = Vec::with_capacity(parts);
    for slot in slots {
        match slot.into_inner().ok().flatten() {
            Some(r) => results.push(r),
            // Unreachable: every part ran (the workers stop only when none are left).
            None => return fail(ErrorKind::WorkerFailed { job: what }),
        }
    }
    Ok(results)
}

/// The thread work of [`run`], compiled once: calls `part(p)` for every `p < parts` on up
/// to `threads` threads (the calling one and scoped ones) taking parts in order, and
/// returns [`ErrorKind::WorkerFailed`] naming `what` when a part panics or returns false
/// (the parts not yet started are then skipped).
fn run_parts(
    threads: usize,
    parts: usize,
    what: &'static str,
    part: &(dyn Fn(usize) -> bool + Sync),
) -> Result<()> {
    let threads = threads.clamp(1, parts.max(1));
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let work = || loop {
        let p = next.fetch_add(1, Ordering::Relaxed);
        if p >= parts || failed.load(Ordering::Relaxed) {
            return;
        }
        // A part that panics drops its state with it: only the flag is read afterwards,
        // so no broken invariant is observed.
        match catch_unwind(AssertUnwindSafe(|| part(p))) {
            Ok(true) => {}
            Ok(false) | Err(_) => failed.store(true, Ordering::Relaxed),
        }
    };
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 1..threads {
                if std::thread::Builder::new().spawn_scoped(s, work).is_err() {
                    break;
                }
            }
            work();
        });
    }
    if failed.load(Ordering::Relaxed) {
        return fail(ErrorKind::WorkerFailed { job: what });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_jobs_run_on_one_thread() {
        assert_eq!(threads_for(0, 0), 1);
        assert_eq!(threads_for(PARALLEL_MIN - 1, 4), 1);
        assert_eq!(threads_for(PARALLEL_MIN, 4), 4);
        assert_eq!(threads_for(PARALLEL_MIN, 1), 1);
        let cores = threads_for(PARALLEL_MIN, 0);
        assert!((1..=MAX_THREADS).contains(&cores));
        assert_eq!(thread_count(0), cores);
        assert_eq!(thread_count(12), 12);
    }

    #[test]
    fn results_come_in_part_order() {
        for threads in [1, 2, 4] {
            for parts in [0, 1, 2, 3, 9] {
                let inputs: Vec<usize> = (0..parts).map(|p| p + 100).collect();
                let out = run(threads, inputs, "a test", |p, x| (p, x)).unwrap();
                assert_eq!(out, (0..parts).map(|p| (p, p + 100)).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn parts_write_their_own_slices() {
        let mut out = vec![0u32; 10];
        let inputs: Vec<&mut [u32]> = out.chunks_mut(3).collect();
        let lens = run(3, inputs, "a test", |p, part| {
            part.fill(p as u32 + 1);
            part.len()
        })
        .unwrap();
        assert_eq!(lens, [3, 3, 3, 1]);
        assert_eq!(out, [1, 1, 1, 2, 2, 2, 3, 3, 3, 4]);
    }

    #[test]
    fn a_panicking_part_is_an_error() {
        for (threads, parts) in [(1, 1), (1, 3), (2, 2), (3, 5)] {
            let r = run(threads, vec![(); parts], "a test", |p, ()| {
                assert!(p != parts - 1, "the last part fails");
                p
            });
            match r.unwrap_err().kind() {
                ErrorKind::WorkerFailed { job } => assert_eq!(*job, "a test"),
                other => panic!("{other:?}"),
            }
        }
    }
}
