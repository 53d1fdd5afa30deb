//! The race oracle: the vector-clock definition of the detector's
//! happens-before order, computed slowly from the access log
//! (`SimOptions::record_races`) and compared with the detector's verdicts.
//! Happens-before is L. Lamport's ("Time, clocks, and the ordering of
//! events in a distributed system", CACM 21(7), 1978), vector clocks those
//! of C. J. Fidge ("Timestamps in message-passing systems that preserve
//! the partial ordering", 1988) and F. Mattern ("Virtual time and global
//! states of distributed systems", 1989); `docs/references.md` lists
//! them.
//!
//! Every (core, pipe) is a thread with a vector clock over all threads.
//! Issuing an instruction to a non-scalar pipe joins the core's scalar
//! clock into that pipe's; every access ticks its thread; `sync.P` joins
//! pipe `P`'s clock into the scalar one; a barrier joins every
//! participant's pipes into its scalar clock, then all participants'
//! scalar clocks together. An access `A` happens before `B` iff `A`'s tick
//! is at most `B`'s thread's clock entry for `A`'s thread. An access is
//! racy iff an earlier access by another thread overlaps it, one of the two
//! writes, and it does not happen before it. Quadratic in the accesses:
//! for tests and fuzzing only.

use crate::race::LogEvent;
use mlu_isa::{Pipe, SyncKind};

fn join(into: &mut [u32], from: &[u32]) {
    for (a, &b) in into.iter_mut().zip(from) {
        *a = (*a).max(b);
    }
}

/// For each access of `log`, in order, whether it is racy (see the module
/// doc). `cores` is the grid's core count.
pub fn racy_accesses(log: &[LogEvent], cores: usize) -> Vec<bool> {
    let threads = cores * 4;
    let mut vc = vec![vec![0u32; threads]; threads];
    // (thread, tick, memory, start, end, write)
    let mut past: Vec<(usize, u32, u32, u64, u64, bool)> = Vec::new();
    let mut verdicts = Vec::new();
    let thread = |core: u32, pipe: Pipe| core as usize * 4 + pipe.index();
    for ev in log {
        match ev {
            LogEvent::Access { core, pipe, memory, start, end, write } => {
                let t = thread(*core, *pipe);
                let s = thread(*core, Pipe::Scalar);
                if t != s {
                    let scalar = vc[s].clone();
                    join(&mut vc[t], &scalar);
                }
                vc[t][t] += 1;
                let tick = vc[t][t];
                let racy = start < end
                    && past.iter().any(|&(pt, ptick, pm, ps, pe, pw)| {
                        pt != t
                            && pm == *memory
                            && ps < pe
                            && ps < *end
                            && *start < pe
                            && (pw || *write)
                            && ptick > vc[t][pt]
                    });
                verdicts.push(racy);
                past.push((t, tick, *memory, *start, *end, *write));
            }
            LogEvent::Sync { core, kind } => sync(&mut vc, thread(*core, Pipe::Scalar), *kind),
            LogEvent::Barrier { cores } => {
                for &c in cores {
                    sync(&mut vc, thread(c, Pipe::Scalar), SyncKind::All);
                }
                let mut all = vec![0u32; threads];
                for &c in cores {
                    join(&mut all, &vc[thread(c, Pipe::Scalar)]);
                }
                for &c in cores {
                    vc[thread(c, Pipe::Scalar)].copy_from_slice(&all);
                }
            }
        }
    }
    verdicts
}

fn sync(vc: &mut [Vec<u32>], s: usize, kind: SyncKind) {
    for p in [Pipe::Compute, Pipe::Io, Pipe::Move] {
        if kind.covers(p) {
            let from = vc[s - Pipe::Scalar.index() + p.index()].clone();
            join(&mut vc[s], &from);
        }
    }
}
