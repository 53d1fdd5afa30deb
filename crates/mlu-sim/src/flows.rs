//! Copies in flight and the bandwidth they share.
//!
//! Each core's IO-DMA and Move-DMA pipe is a FIFO of copies. A copy issued
//! at cycle `t` may start moving bytes at `t + latency` (latency is
//! pipelined: a queued copy's latency overlaps its predecessor's data), and
//! not before its predecessor on the same pipe has finished (in order).
//! While moving, it is charged bytes at a rate no higher than its engine's
//! (`io_dma_bytes_per_cycle`, `move_dma_bytes_per_cycle`); copies touching
//! DRAM share the chip's DRAM bandwidth, copies between SRAM and NRAM their
//! cluster's SRAM bandwidth, by max-min fairness (water-filling in integer
//! bytes per cycle, leftover bytes to the lowest-numbered pipes; max-min
//! fair sharing by water-filling as D. Bertsekas and R. Gallager, *Data
//! Networks*, 2nd ed., Prentice Hall, 1992, state it; listed in
//! `docs/references.md`).
//!
//! Invariants: time only moves forward, in integer cycles, to the next
//! event (a copy starting or finishing), so the simulation is exact and
//! deterministic (no floating point; ties broken by pipe number); a copy of
//! `b` charged bytes running alone takes `⌈b / min(engine, resource)⌉`
//! cycles; rates never exceed engine or resource bandwidth.

use std::collections::VecDeque;

/// A copy in a pipe's FIFO.
#[derive(Clone, Debug)]
pub(crate) struct Transfer {
    /// Issuing core.
    pub core: u32,
    /// 0: IO-DMA, 1: Move-DMA.
    pub pipe: usize,
    /// The instruction.
    pub pc: u32,
    /// Issue cycle.
    pub issue: u64,
    /// Earliest cycle it may move bytes (`issue + latency`).
    pub ready: u64,
    /// Bytes charged.
    pub charged: u64,
    /// Bytes still to move.
    pub remaining: u64,
    /// Engine rate.
    pub cap: u64,
    /// Shared resource: index into the bandwidth table, or `None`.
    pub res: Option<usize>,
    /// Cycles it would take alone.
    pub alone: u64,
    /// Route index (for the trace).
    pub route: usize,
    start: u64,
    rate: u64,
    active: bool,
}

impl Transfer {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        core: u32,
        pipe: usize,
        pc: u32,
        issue: u64,
        latency: u64,
        charged: u64,
        cap: u64,
        res: Option<usize>,
        alone: u64,
        route: usize,
    ) -> Transfer {
        Transfer {
            core,
            pipe,
            pc,
            issue,
            ready: issue + latency,
            charged,
            remaining: charged,
            cap,
            res,
            alone,
            route,
            start: 0,
            rate: 0,
            active: false,
        }
    }
}

/// A finished copy.
#[derive(Clone, Debug)]
pub(crate) struct Done {
    pub t: Transfer,
    /// When it started moving bytes.
    pub start: u64,
    /// When it finished.
    pub end: u64,
    /// When the pipe could first have started it (its predecessor's end or
    /// its issue, whichever is later).
    pub free: u64,
}

#[derive(Debug)]
pub(crate) struct Flows {
    pub now: u64,
    fifos: Vec<VecDeque<Transfer>>,
    last_end: Vec<u64>,
    bw: Vec<u64>,
    next: Option<Option<u64>>,
}

impl Flows {
    /// `pipes` FIFOs; `bw[r]` is resource `r`'s bytes per cycle.
    pub fn new(pipes: usize, bw: Vec<u64>) -> Flows {
        Flows { now: 0, fifos: vec![VecDeque::new(); pipes], last_end: vec![0; pipes], bw, next: Some(None) }
    }

    /// Copies queued on FIFO `f` (running or waiting).
    pub fn queued(&self, f: usize) -> usize {
        self.fifos[f].len()
    }

    /// When FIFO `f`'s last copy finished.
    pub fn last_end(&self, f: usize) -> u64 {
        self.last_end[f]
    }

    pub fn push(&mut self, f: usize, t: Transfer) {
        self.fifos[f].push_back(t);
        self.next = None;
    }

    fn head_start(&self, f: usize) -> Option<u64> {
        let h = self.fifos[f].front()?;
        if h.active { None } else { Some(h.ready.max(self.last_end[f]).max(self.now)) }
    }

    /// The cycle of the next start or finish, if any copy is queued.
    pub fn next_event(&mut self) -> Option<u64> {
        if let Some(n) = self.next {
            return n;
        }
        let mut best: Option<u64> = None;
        for f in 0..self.fifos.len() {
            let cand = match self.fifos[f].front() {
                Some(h) if h.active => Some(self.now + h.remaining.div_ceil(h.rate.max(1))),
                Some(_) => self.head_start(f),
                None => None,
            };
            if let Some(c) = cand {
                best = Some(best.map_or(c, |b: u64| b.min(c)));
            }
        }
        self.next = Some(best);
        best
    }

    /// Moves time to `t` (at most the next event) and returns the copies
    /// that finished at `t`, in FIFO order.
    pub fn advance_to(&mut self, t: u64) -> Vec<Done> {
        let dt = t.saturating_sub(self.now);
        for q in &mut self.fifos {
            if let Some(h) = q.front_mut()
                && h.active
            {
                h.remaining = h.remaining.saturating_sub(h.rate.saturating_mul(dt));
            }
        }
        self.now = t;
        let mut done = Vec::new();
        loop {
            let mut changed = false;
            for f in 0..self.fifos.len() {
                // Start a head whose time has come (it may finish at once).
                if self.head_start(f) == Some(t)
                    && let Some(h) = self.fifos[f].front_mut()
                {
                    h.active = true;
                    h.start = t;
                    changed = true;
                }
                if let Some(h) = self.fifos[f].front()
                    && h.active
                    && h.remaining == 0
                {
                    let free = h.issue.max(self.last_end[f]);
                    let Some(tr) = self.fifos[f].pop_front() else { continue };
                    let start = tr.start;
                    self.last_end[f] = t;
                    done.push(Done { t: tr, start, end: t, free });
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        self.rates();
        self.next = None;
        done
    }

    /// Max-min fair rates for the active copies.
    fn rates(&mut self) {
        let mut by_res: Vec<Vec<usize>> = vec![Vec::new(); self.bw.len()];
        for (f, q) in self.fifos.iter_mut().enumerate() {
            if let Some(h) = q.front_mut()
                && h.active
            {
                match h.res {
                    Some(r) if r < by_res.len() => by_res[r].push(f),
                    _ => h.rate = h.cap,
                }
            }
        }
        for (r, mut fs) in by_res.into_iter().enumerate() {
            if fs.is_empty() {
                continue;
            }
            let cap = |fifos: &Vec<VecDeque<Transfer>>, f: usize| fifos[f].front().map_or(0, |h| h.cap);
            fs.sort_by_key(|&f| (cap(&self.fifos, f), f));
            let mut left = self.bw[r];
            let mut given = vec![0u64; fs.len()];
            for (i, &f) in fs.iter().enumerate() {
                let share = left / (fs.len() - i) as u64;
                given[i] = share.min(cap(&self.fifos, f));
                left -= given[i];
            }
            // Leftover bytes to the lowest-numbered pipes still under their cap.
            let mut order: Vec<usize> = (0..fs.len()).collect();
            order.sort_by_key(|&i| fs[i]);
            for &i in &order {
                if left == 0 {
                    break;
                }
                let extra = (cap(&self.fifos, fs[i]) - given[i]).min(left);
                given[i] += extra;
                left -= extra;
            }
            for (i, &f) in fs.iter().enumerate() {
                if let Some(h) = self.fifos[f].front_mut() {
                    h.rate = given[i].max(1);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(flows: &mut Flows) -> Vec<Done> {
        let mut all = Vec::new();
        while let Some(t) = flows.next_event() {
            all.extend(flows.advance_to(t));
        }
        all
    }

    #[test]
    fn alone_takes_the_ceiling_at_the_smaller_rate() {
        let mut f = Flows::new(1, vec![48]);
        f.push(0, Transfer::new(0, 0, 0, 0, 100, 1000, 64, Some(0), 21, 0));
        let d = run(&mut f);
        assert_eq!((d[0].start, d[0].end), (100, 100 + 1000u64.div_ceil(48)));
    }

    #[test]
    fn latency_is_pipelined_and_order_kept() {
        let mut f = Flows::new(1, vec![1 << 20]);
        f.push(0, Transfer::new(0, 0, 0, 0, 100, 640, 64, Some(0), 10, 0));
        f.push(0, Transfer::new(0, 0, 1, 1, 100, 640, 64, Some(0), 10, 0));
        let d = run(&mut f);
        assert_eq!((d[0].start, d[0].end), (100, 110));
        assert_eq!((d[1].start, d[1].end), (110, 120));
    }

    #[test]
    fn shared_bandwidth_is_split_fairly() {
        // Two engines of 64 B/cycle on a 96 B/cycle resource: 48 each.
        let mut f = Flows::new(2, vec![96]);
        f.push(0, Transfer::new(0, 0, 0, 0, 0, 4800, 64, Some(0), 75, 0));
        f.push(1, Transfer::new(1, 0, 0, 0, 0, 4800, 64, Some(0), 75, 0));
        let d = run(&mut f);
        assert_eq!(d.iter().map(|d| d.end).collect::<Vec<_>>(), [100, 100]);
        // A capped engine leaves the rest to the other: 16 and 80 → capped 64.
        let mut f = Flows::new(2, vec![96]);
        f.push(0, Transfer::new(0, 0, 0, 0, 0, 1600, 16, Some(0), 100, 0));
        f.push(1, Transfer::new(1, 0, 0, 0, 0, 6400, 64, Some(0), 100, 0));
        let d = run(&mut f);
        assert_eq!(d.iter().map(|d| d.end).collect::<Vec<_>>(), [100, 100]);
        // Total moved never beats the resource: 3 × 64 on 128 B/cycle; each
        // finish can waste part of one cycle (integer time).
        let mut f = Flows::new(3, vec![128]);
        for p in 0..3 {
            f.push(p, Transfer::new(p as u32, 0, 0, 0, 0, 12_800, 64, Some(0), 200, 0));
        }
        let d = run(&mut f);
        let last = d.iter().map(|d| d.end).max().unwrap();
        assert!(last >= 3 * 12_800 / 128, "{last}");
        assert!(last <= 3 * 12_800 / 128 + 2 * 3, "{last}");
    }

    #[test]
    fn empty_copies_finish_when_they_start() {
        let mut f = Flows::new(1, vec![64]);
        f.push(0, Transfer::new(0, 0, 0, 5, 10, 0, 64, Some(0), 0, 0));
        let d = run(&mut f);
        assert_eq!((d[0].start, d[0].end), (15, 15));
    }
}
