//! Execution traces in Chrome's trace-event format (viewable in Perfetto
//! or `chrome://tracing`): one process per cluster, one track (thread) per
//! core and pipe, one complete event per instruction on the compute and
//! copy pipes, merged busy spans and stall spans on the scalar pipe.
//!
//! Time is in cycles: the `ts` and `dur` fields, which the format reads as
//! microseconds, count cycles (the metadata says so and gives the clock).
//!
//! Invariants: at most `limit` events are kept (the rest are counted in
//! `dropped`); output is deterministic (events in recording order,
//! metadata first, tracks sorted).

use mlu_isa::Pipe;
use serde_json::{Value, json};
use std::io::{self, Write};

/// One slice of a track.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TraceEvent {
    /// The core (task id).
    pub core: u32,
    /// The pipe.
    pub pipe: Pipe,
    /// What ran (an instruction's mnemonic, `scalar`, or a stall reason).
    pub name: String,
    /// Start cycle.
    pub start: u64,
    /// Length in cycles.
    pub dur: u64,
    /// The instruction, if the slice is one.
    pub pc: Option<u32>,
}

/// A recorded trace.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Trace {
    /// The slices.
    pub events: Vec<TraceEvent>,
    /// Slices not kept because the limit was reached.
    pub dropped: u64,
    pub(crate) limit: usize,
    /// Open scalar busy span per core: (start, end).
    open: Vec<Option<(u64, u64)>>,
}

impl Trace {
    pub(crate) fn new(cores: usize, limit: usize) -> Trace {
        Trace { events: Vec::new(), dropped: 0, limit, open: vec![None; cores] }
    }

    pub(crate) fn push(&mut self, e: TraceEvent) {
        if e.dur == 0 {
            return;
        }
        if self.events.len() < self.limit {
            self.events.push(e);
        } else {
            self.dropped += 1;
        }
    }

    /// Extends core `core`'s scalar busy span to cover `[start, end)`.
    pub(crate) fn scalar(&mut self, core: u32, start: u64, end: u64) {
        match &mut self.open[core as usize] {
            Some((_, e)) if *e == start => *e = end,
            slot => {
                let closed = slot.replace((start, end));
                if let Some((s, e)) = closed {
                    self.push(TraceEvent {
                        core,
                        pipe: Pipe::Scalar,
                        name: "scalar".into(),
                        start: s,
                        dur: e - s,
                        pc: None,
                    });
                }
            }
        }
    }

    /// Closes open scalar spans.
    pub(crate) fn finish(&mut self) {
        for c in 0..self.open.len() {
            if let Some((s, e)) = self.open[c].take() {
                self.push(TraceEvent {
                    core: c as u32,
                    pipe: Pipe::Scalar,
                    name: "scalar".into(),
                    start: s,
                    dur: e - s,
                    pc: None,
                });
            }
        }
    }

    /// Writes the trace as a Chrome trace-event JSON object.
    pub fn write_chrome(&self, out: &mut dyn Write, cores_per_cluster: u32, clock_mhz: u32) -> io::Result<()> {
        let per = cores_per_cluster.max(1);
        let tid = |core: u32, pipe: Pipe| (core % per) * 4 + pipe.index() as u32;
        let mut tracks: Vec<(u32, Pipe)> = self.events.iter().map(|e| (e.core, e.pipe)).collect();
        tracks.sort();
        tracks.dedup();
        let mut clusters: Vec<u32> = tracks.iter().map(|t| t.0 / per).collect();
        clusters.dedup();
        out.write_all(b"{\"displayTimeUnit\":\"ns\",\"otherData\":")?;
        let other = json!({ "time_unit": "1 us in the viewer is 1 cycle", "clock_mhz": clock_mhz, "dropped_events": self.dropped });
        serde_json::to_writer(&mut *out, &other)?;
        out.write_all(b",\"traceEvents\":[\n")?;
        let mut first = true;
        let mut emit = |out: &mut dyn Write, v: Value| -> io::Result<()> {
            if !first {
                out.write_all(b",\n")?;
            }
            first = false;
            serde_json::to_writer(&mut *out, &v).map_err(io::Error::other)
        };
        for k in clusters {
            emit(
                out,
                json!({ "ph": "M", "name": "process_name", "pid": k, "tid": 0, "args": { "name": format!("cluster {k}") } }),
            )?;
        }
        for &(core, pipe) in &tracks {
            let name = format!("core {} {}", core, pipe.name());
            emit(
                out,
                json!({ "ph": "M", "name": "thread_name", "pid": core / per, "tid": tid(core, pipe), "args": { "name": name } }),
            )?;
            emit(
                out,
                json!({ "ph": "M", "name": "thread_sort_index", "pid": core / per, "tid": tid(core, pipe), "args": { "sort_index": tid(core, pipe) } }),
            )?;
        }
        for e in &self.events {
            let mut v = json!({
                "ph": "X", "name": e.name, "cat": e.pipe.name(),
                "pid": e.core / per, "tid": tid(e.core, e.pipe), "ts": e.start, "dur": e.dur,
            });
            if let Some(pc) = e.pc {
                v["args"] = json!({ "pc": pc });
            }
            emit(out, v)?;
        }
        out.write_all(b"\n]}\n")
    }

    /// Writes the trace as a text picture: one row per core and pipe,
    /// `width` columns over cycles `0..cycles`, each column showing how busy
    /// the track was in its share of the cycles (` ` idle, `.` under a
    /// third, `:` under two thirds, `#` more; a scalar row shows `-` where
    /// the front end mostly stalled).
    pub fn write_timeline(&self, out: &mut dyn Write, cycles: u64, width: usize) -> io::Result<()> {
        let width = width.clamp(10, 1000);
        let span = cycles.max(1).div_ceil(width as u64);
        let mut tracks: Vec<(u32, Pipe)> = self.events.iter().map(|e| (e.core, e.pipe)).collect();
        tracks.sort();
        tracks.dedup();
        writeln!(out, "timeline: {cycles} cycles, {span} per column")?;
        for (core, pipe) in tracks {
            let (mut busy, mut stall) = (vec![0u64; width], vec![0u64; width]);
            for e in self.events.iter().filter(|e| e.core == core && e.pipe == pipe) {
                let into = if pipe == Pipe::Scalar && e.name != "scalar" { &mut stall } else { &mut busy };
                let (start, end) = (e.start, e.start.saturating_add(e.dur));
                let mut col = (start / span) as usize;
                while col < width && (col as u64) * span < end {
                    let (lo, hi) = (col as u64 * span, (col as u64 + 1) * span);
                    into[col] += end.min(hi) - start.max(lo);
                    col += 1;
                }
            }
            let row: String = (0..width)
                .map(|c| match (busy[c] * 3, stall[c] * 2) {
                    (0, s) if s > span => '-',
                    (0, _) => ' ',
                    (b, _) if b < span => '.',
                    (b, _) if b < 2 * span => ':',
                    _ => '#',
                })
                .collect();
            writeln!(out, "core {core:>2} {:<8} |{}|", pipe.name(), row.trim_end())?;
        }
        if self.dropped > 0 {
            writeln!(out, "({} events beyond the trace limit are not shown)", self.dropped)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timeline_shades_each_column_by_busy_cycles() {
        let mut t = Trace::new(1, 100);
        let ev = |pipe, name: &str, start, dur| TraceEvent { core: 0, pipe, name: name.into(), start, dur, pc: None };
        t.push(ev(Pipe::Io, "dma", 0, 40));
        t.push(ev(Pipe::Compute, "vadd.f32", 40, 15));
        t.push(ev(Pipe::Scalar, "stall: sync.io", 10, 30));
        let mut out = Vec::new();
        t.write_timeline(&mut out, 100, 10).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "timeline: 100 cycles, 10 per column\n\
             core  0 scalar   | ---|\n\
             core  0 compute  |    #:|\n\
             core  0 io       |####|\n"
        );
    }
}
