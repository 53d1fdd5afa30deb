//! `keel memdep --explain irN`: the document's own view at one memory
//! instruction (digest §002's tables), from `memdep::MemDep::explain`:
//! per object it touches, the segments and the definitions live there on
//! entry, then per live definition its extent, where it is still live,
//! its killed intervals (exact definitions) and the inexact definitions
//! live on the same object, which may have overwritten it (the document's
//! "possibly killed" mark). An inexact definition kills nothing and is
//! live over the whole object.

use crate::memdep_view::View;
use memdep::{Explanation, LiveSegment, Offset};
use std::io::Write;

fn seg_text(s: &LiveSegment) -> String {
    match s.hi {
        Some(hi) => format!("[{}, {hi})", s.lo),
        None => format!("[{}, end)", s.lo),
    }
}

/// The exact extent `[lo, hi)` of write `d`, if it has one.
fn exact_extent(v: &View<'_>, d: u32) -> Option<(i64, i64)> {
    let s = v.deps.sites().def_site(d)?;
    let a = v.q.access(s.inst, s.access)?;
    match (a.offset, a.size) {
        (Offset::Exact(lo), Some(n)) => Some((lo, lo.saturating_add(n as i64))),
        _ => None,
    }
}

/// `[a, b)` minus the sorted, disjoint `live` intervals.
fn minus(a: i64, b: i64, live: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    let mut at = a;
    for &(lo, hi) in live {
        if lo > at {
            out.push((at, lo.min(b)));
        }
        at = at.max(hi);
        if at >= b {
            break;
        }
    }
    if at < b {
        out.push((at, b));
    }
    out.retain(|&(x, y)| x < y);
    out
}

fn intervals(list: &[(i64, i64)]) -> String {
    list.iter().map(|(a, b)| format!("[{a}, {b})")).collect::<Vec<_>>().join(", ")
}

/// Writes the explanation of the instruction labelled `label` in `v`.
pub(crate) fn write(v: &View<'_>, e: &Explanation, out: &mut dyn Write) -> std::io::Result<()> {
    let sites = v.deps.sites();
    writeln!(out, "{} at {}: {}", crate::out::global(v.func.name()), v.label(e.inst), v.inst_text(e.inst))?;
    if e.objects.is_empty() {
        return writeln!(out, "  nothing is live: the instruction touches no memory");
    }
    let write_name = |d: u32| -> String {
        let s = sites.def_site(d).expect("own site");
        format!("{} (w{d} {})", v.label(s.inst), v.descriptor(s))
    };
    for o in &e.objects {
        let name =
            v.module.mem(ir_core::Mem::from_u32(o.object)).map_or("?".to_string(), |m| crate::out::global(&m.name));
        writeln!(out, "  {name}: definitions live on entry")?;
        if o.segments.is_empty() && o.relative.is_empty() {
            writeln!(out, "    none")?;
        }
        for s in &o.segments {
            let defs: Vec<String> = s.defs.iter().map(|&d| write_name(d)).collect();
            writeln!(out, "    {:<14} {}", seg_text(s), defs.join(", "))?;
        }
        for r in &o.relative {
            for s in &r.segments {
                let defs: Vec<String> = s.defs.iter().map(|&d| write_name(d)).collect();
                writeln!(out, "    {} x symbol {} + {:<8} {}", r.scale, r.symbol, seg_text(s), defs.join(", "))?;
            }
        }
        // Per definition (absolute segments): where it is live.
        let mut live: Vec<(u32, (i64, i64))> = Vec::new();
        for s in &o.segments {
            for &d in &s.defs {
                live.push((d, (s.lo, s.hi.unwrap_or(i64::MAX))));
            }
        }
        live.sort_unstable();
        let inexact: Vec<u32> = {
            let mut ds: Vec<u32> = live.iter().map(|x| x.0).filter(|&d| exact_extent(v, d).is_none()).collect();
            ds.dedup();
            ds
        };
        if !live.is_empty() {
            writeln!(out, "    per definition:")?;
        }
        let mut k = 0;
        while k < live.len() {
            let d = live[k].0;
            let mut mine: Vec<(i64, i64)> = Vec::new();
            while k < live.len() && live[k].0 == d {
                // Adjacent segments (a set changed for another definition
                // there) make one interval of this one.
                match mine.last_mut() {
                    Some(last) if last.1 == live[k].1.0 => last.1 = live[k].1.1,
                    _ => mine.push(live[k].1),
                }
                k += 1;
            }
            match exact_extent(v, d) {
                Some((a, b)) => {
                    let killed = minus(a, b, &mine);
                    let mut line = format!("      {}: live on {}", write_name(d), intervals(&mine));
                    if !killed.is_empty() {
                        line += &format!("; killed on {}", intervals(&killed));
                    }
                    let by: Vec<String> = inexact
                        .iter()
                        .filter(|&&w| w != d)
                        .map(|&w| v.label(sites.def_site(w).expect("own").inst))
                        .collect();
                    if !by.is_empty() {
                        line += &format!("; possibly killed by {}", by.join(", "));
                    }
                    writeln!(out, "{line}")?;
                }
                None => writeln!(out, "      {}: inexact, live over the object, kills nothing", write_name(d))?,
            }
        }
    }
    Ok(())
}
