//! Whole-module runs, one function at a time: `du` and `memdep` analyse
//! functions on worker threads ([`Workers::run`]), `pre` and `regalloc`
//! transform them in place one after the other; all of them show the same
//! progress bar ([`progress`]) on a terminal (indicatif draws nothing when
//! stderr is not one).
//!
//! Invariants of [`Workers::run`]:
//! - results reach `emit` in item order, whatever the number of workers,
//!   so the output is the same for any `--jobs`;
//! - at most [`WINDOW_PER_JOB`] × jobs results wait to be emitted: a
//!   worker does not start item `i` before item `i - window` is emitted,
//!   so memory stays bounded by the window, not by the module, and output
//!   streams while later functions are analysed;
//! - each worker thread makes one context (`init`) and reuses it for every
//!   item it takes (buffers survive from function to function);
//! - when `emit` fails or asks to stop, or a worker panics, the other
//!   workers stop after their current item (nothing waits forever).
//!
//! This is the ordered, bounded-lookahead pattern of a reorder buffer: a
//! shared counter hands out items, a gate holds workers more than a window
//! ahead of the writer.

use indicatif::{ProgressBar, ProgressStyle};
use std::collections::VecDeque;
use std::io;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

/// Results that may wait to be emitted, per worker.
pub(crate) const WINDOW_PER_JOB: usize = 8;

/// A progress bar over `n` functions, on stderr when it is a terminal.
pub(crate) fn progress(n: usize) -> ProgressBar {
    let bar = ProgressBar::new(n as u64);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} functions {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar
}

/// How many workers a run of `n` functions gets for `--jobs`: the
/// request (default: one per core), never more than the cores, never more
/// than the functions, at least one.
pub(crate) fn jobs_for(requested: Option<usize>, n: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    requested.unwrap_or(cores).clamp(1, cores).min(n.max(1))
}

/// Worker threads for one whole-module run.
pub(crate) struct Workers {
    jobs: usize,
}

/// Where the writer is, shared with the workers.
struct Gate {
    /// Items emitted so far.
    emitted: Mutex<usize>,
    moved: Condvar,
    /// Set when the run ends early.
    stop: AtomicBool,
}

impl Gate {
    fn halt(&self) {
        self.stop.store(true, Ordering::SeqCst);
        let _guard = self.emitted.lock().unwrap_or_else(|e| e.into_inner());
        self.moved.notify_all();
    }

    /// Waits until item `i` is inside the window; false when the run
    /// stopped instead.
    fn wait_for(&self, i: usize, window: usize) -> bool {
        let mut emitted = self.emitted.lock().unwrap_or_else(|e| e.into_inner());
        while i >= *emitted + window && !self.stop.load(Ordering::SeqCst) {
            emitted = self.moved.wait(emitted).unwrap_or_else(|e| e.into_inner());
        }
        !self.stop.load(Ordering::SeqCst)
    }

    fn advance(&self, emitted: usize) {
        *self.emitted.lock().unwrap_or_else(|e| e.into_inner()) = emitted;
        self.moved.notify_all();
    }
}

/// Halts the gate if its worker unwinds (a panic is a bug, but it must
/// not leave the others waiting).
struct HaltOnUnwind<'g>(&'g Gate);

impl Drop for HaltOnUnwind<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.halt();
        }
    }
}

impl Workers {
    /// Workers for `n` functions: see [`jobs_for`].
    pub(crate) fn new(requested: Option<usize>, n: usize) -> Workers {
        Workers { jobs: jobs_for(requested, n) }
    }

    /// How many worker threads run.
    pub(crate) fn jobs(&self) -> usize {
        self.jobs
    }

    /// Runs `work` on every item, each worker with its own context from
    /// `init`, and hands the results to `emit` in item order (see the
    /// module doc), with a progress bar. Stops early when `emit` fails or
    /// breaks.
    pub(crate) fn run<I, T, C>(
        &self,
        items: &[I],
        init: impl Fn() -> C + Sync,
        work: impl Fn(&mut C, &I) -> T + Sync,
        mut emit: impl FnMut(T) -> io::Result<ControlFlow<()>>,
    ) -> io::Result<ControlFlow<()>>
    where
        I: Sync,
        T: Send,
    {
        let bar = progress(items.len());
        let window = WINDOW_PER_JOB * self.jobs;
        let next = AtomicUsize::new(0);
        let gate = Gate { emitted: Mutex::new(0), moved: Condvar::new(), stop: AtomicBool::new(false) };
        let (tx, rx) = mpsc::channel::<(usize, T)>();
        let result = std::thread::scope(|scope| {
            for _ in 0..self.jobs {
                let tx = tx.clone();
                let (next, gate, init, work) = (&next, &gate, &init, &work);
                scope.spawn(move || {
                    let _halt = HaltOnUnwind(gate);
                    let mut ctx = init();
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        if i >= items.len() || !gate.wait_for(i, window) {
                            break;
                        }
                        if tx.send((i, work(&mut ctx, &items[i]))).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            // The reorder buffer: slot k holds item `emitted + k`.
            let mut pending: VecDeque<Option<T>> = VecDeque::with_capacity(window);
            let mut emitted = 0;
            let mut result = Ok(ControlFlow::Continue(()));
            for (i, value) in rx {
                bar.inc(1);
                if gate.stop.load(Ordering::SeqCst) {
                    continue;
                }
                let k = i - emitted;
                if pending.len() <= k {
                    pending.resize_with(k + 1, || None);
                }
                pending[k] = Some(value);
                while let Some(Some(_)) = pending.front() {
                    let Some(Some(value)) = pending.pop_front() else { break };
                    emitted += 1;
                    match emit(value) {
                        Ok(ControlFlow::Continue(())) => {}
                        stopped => {
                            result = stopped;
                            gate.halt();
                            break;
                        }
                    }
                }
                gate.advance(emitted);
            }
            result
        });
        bar.finish_and_clear();
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squares(jobs: usize, n: u64) -> Vec<u64> {
        let items: Vec<u64> = (0..n).collect();
        let mut got = Vec::new();
        let flow = Workers { jobs }
            .run(
                &items,
                || 0u64,
                |calls, &x| {
                    *calls += 1;
                    // Uneven work, so that results arrive out of order.
                    std::thread::sleep(std::time::Duration::from_micros((x * 7919) % 50));
                    x * x
                },
                |y| {
                    got.push(y);
                    Ok(ControlFlow::Continue(()))
                },
            )
            .expect("no write error");
        assert_eq!(flow, ControlFlow::Continue(()));
        got
    }

    #[test]
    fn results_come_in_item_order_for_any_jobs() {
        let want: Vec<u64> = (0..200).map(|x| x * x).collect();
        for jobs in [1, 2, 3, 8] {
            assert_eq!(squares(jobs, 200), want, "jobs {jobs}");
        }
        assert!(squares(4, 0).is_empty());
    }

    #[test]
    fn a_break_stops_the_run() {
        let items: Vec<u32> = (0..10_000).collect();
        let mut seen = 0;
        let flow = Workers { jobs: 4 }
            .run(
                &items,
                || (),
                |(), &x| x,
                |x| {
                    seen += 1;
                    Ok(if x == 10 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) })
                },
            )
            .expect("no write error");
        assert_eq!((flow, seen), (ControlFlow::Break(()), 11));
    }

    #[test]
    fn a_write_error_stops_the_run() {
        let items: Vec<u32> = (0..10_000).collect();
        let r = Workers { jobs: 2 }.run(&items, || (), |(), &x| x, |_| Err(io::Error::other("disk full")));
        assert!(r.is_err());
    }

    #[test]
    fn jobs_are_clamped() {
        assert_eq!(jobs_for(Some(0), 10), 1);
        assert_eq!(jobs_for(Some(1_000_000), 3).min(3), jobs_for(Some(1_000_000), 3));
        assert_eq!(jobs_for(None, 0), 1);
    }
}
