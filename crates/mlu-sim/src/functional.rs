//! The functional scheduler: runs each core until it waits at a barrier
//! or exits, in core order, round after round.
//!
//! Cores interact only through memory and barriers, and the race detector
//! reports every program whose results depend on the order cores run in,
//! so this order gives the results of any timing for every race-free
//! program (the cycle model runs cores in time order and must agree; the
//! tests check it).
//!
//! Invariants: terminates (fuel bounds every core's work; a round where no
//! core can run ends the run, with a deadlock trap if some core still
//! waits); deterministic.

use crate::barrier::{Arrival, Barriers, describe_deadlock};
use crate::machine::{Machine, Status, Step};
use crate::trap::{Trap, TrapKind};

pub(crate) fn run(m: &mut Machine<'_>) -> Result<(), Trap> {
    let n = m.cores.len();
    let mut barriers = Barriers::default();
    loop {
        let mut ran = false;
        for c in 0..n {
            while m.cores[c].status == Status::Running {
                ran = true;
                match m.step(c)? {
                    Step::Exit => m.cores[c].status = Status::Exited,
                    Step::Barrier { scope, id, count } => {
                        let pc = m.cores[c].pc.wrapping_sub(1);
                        let key = Barriers::key(scope, m.cores[c].id.cluster, id);
                        m.cores[c].status = Status::AtBarrier;
                        match barriers.arrive(key, count, c as u32, pc, m.cores[c].issued) {
                            Arrival::Wait => {}
                            Arrival::Complete { cores, .. } => {
                                m.race.barrier(&cores);
                                for &d in &cores {
                                    m.cores[d as usize].status = Status::Running;
                                }
                            }
                            Arrival::Mismatch(first) => {
                                return Err(m.trap(
                                    c,
                                    pc,
                                    TrapKind::BarrierMismatch,
                                    format!(
                                        "this core gives the count {count}; the first core at this barrier gave {first}"
                                    ),
                                ));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        if m.cores.iter().all(|k| k.status == Status::Exited) {
            return Ok(());
        }
        if !ran {
            let c = (0..n).find(|&c| m.cores[c].status == Status::AtBarrier).unwrap_or(0);
            let (msg, pc) = match barriers.waiting_for(c as u32) {
                Some((key, p)) => {
                    (describe_deadlock(key, p), p.arrived.iter().find(|a| a.0 == c as u32).map_or(0, |a| a.1))
                }
                None => ("no core can make progress".to_string(), m.cores[c].pc),
            };
            return Err(m.trap(c, pc, TrapKind::Deadlock, msg));
        }
    }
}
