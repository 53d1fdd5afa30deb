//! `keel memdep`'s default output: the compact form (issue 31). Each
//! function's result is printed as the library keeps it: every write once
//! with its id (`w<id>`), every read once with the ids of its interned
//! sets (`S<k>`) of must dependences (writes it certainly overlaps) and of
//! may dependences (the rest), and each distinct set once, as ranges of
//! write ids. Reads
//! with equal dependences share one set, so the output grows with the
//! accesses and the distinct sets' ranges, never with the (read, write)
//! pairs; `--expand` prints the pairs with a reason each (the document's
//! table, `memdep_cmd`).
//!
//! Set numbers are local to a function, one per distinct content, given in
//! order of first reference in the output, so the output is the same for
//! any number of workers and any internal set numbering. Loop-carried flow sets are given per read and
//! enclosing loop (its header); their distances, which are per pair, only
//! in the expanded form.
//!
//! Invariants: every line and every JSON element is O(1) plus the ranges
//! of one set; nothing is quadratic in the function's accesses.

use crate::memdep_view::{View, counts_json, header};
use memdep::{ANY, MemDeps, Site};
use std::collections::HashMap;
use std::io::Write;

/// Local set numbers, in order of first reference, by content: a must or
/// may part equal to some flow set, carried set or other part gets its
/// number.
#[derive(Default)]
struct Numbering {
    local: HashMap<Vec<(u32, u32)>, u32>,
    order: Vec<Vec<(u32, u32)>>,
}

impl Numbering {
    fn number(&mut self, ranges: &[(u32, u32)]) -> u32 {
        if let Some(&k) = self.local.get(ranges) {
            return k;
        }
        let k = self.order.len() as u32;
        self.local.insert(ranges.to_vec(), k);
        self.order.push(ranges.to_vec());
        k
    }
}

/// Per use, its loop-carried sets `(header, set)`, by header (the
/// library's order, bucketed by use).
fn carried_by_use(deps: &MemDeps) -> HashMap<u32, Vec<(u32, u32)>> {
    let mut by_use: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
    for (h, u, s) in deps.carried_sets() {
        by_use.entry(u).or_default().push((h, s));
    }
    by_use
}

/// The ranges of a set of write ids, inclusive, as text: `w0-w3, w7`.
fn ranges_text(ranges: &[(u32, u32)]) -> String {
    let parts: Vec<String> = ranges
        .iter()
        .map(|&(lo, hi)| if hi == lo + 1 { format!("w{lo}") } else { format!("w{lo}-w{}", hi - 1) })
        .collect();
    parts.join(", ")
}

fn count(ranges: &[(u32, u32)]) -> u64 {
    ranges.iter().map(|&(lo, hi)| u64::from(hi - lo)).sum()
}

/// The compact text of one function.
pub(crate) fn text(v: &View<'_>, out: &mut dyn Write) -> std::io::Result<()> {
    header(v, out)?;
    let sites = v.deps.sites();
    let carried = carried_by_use(&v.deps);
    let mut sets = Numbering::default();
    for &i in &v.mem {
        writeln!(out, "  {:<5} {}", v.label(i), v.inst_text(i))?;
        for &d in sites.defs_of_inst(i) {
            let s = sites.def_site(d).expect("a site of this function");
            writeln!(out, "        writes w{d} {}", v.descriptor(s))?;
        }
        for &u in sites.uses_of_inst(i) {
            let s = sites.use_site(u).expect("a site of this function");
            write!(out, "        reads  {} <- ", v.descriptor(s))?;
            let mut parts = Vec::new();
            for (kind, ranges) in [("must", v.deps.must_of(u)), ("may", v.deps.may_of(u))] {
                let n = count(&ranges);
                if n > 0 {
                    parts.push(format!(
                        "{kind} S{} ({n} write{})",
                        sets.number(&ranges),
                        if n == 1 { "" } else { "s" }
                    ));
                }
            }
            if parts.is_empty() {
                write!(out, "nothing in the function")?;
            } else {
                write!(out, "{}", parts.join(", "))?;
            }
            for &(h, set) in carried.get(&u).map_or(&[][..], Vec::as_slice) {
                write!(out, "; carried around bb{h}: S{}", sets.number(v.deps.set(set)))?;
            }
            writeln!(out)?;
        }
    }
    if !sets.order.is_empty() {
        writeln!(out, "  sets (of writes):")?;
        for (k, ranges) in sets.order.iter().enumerate() {
            writeln!(out, "        S{k} = {}", ranges_text(ranges))?;
        }
    }
    Ok(())
}

/// A JSON string literal.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

/// `null` or a set number, for a set that is not empty.
fn set_or_null(sets: &mut Numbering, ranges: &[(u32, u32)]) -> String {
    if ranges.is_empty() { "null".to_string() } else { sets.number(ranges).to_string() }
}

/// The compact JSON object of one function, on one line (see
/// `docs/memdep-json.md`), written as it goes: no document tree is built,
/// so the memory is the text itself.
pub(crate) fn json(v: &View<'_>, out: &mut dyn Write) -> std::io::Result<()> {
    let sites = v.deps.sites();
    let carried = carried_by_use(&v.deps);
    let mut sets = Numbering::default();
    let site = |out: &mut dyn Write, s: Site, id: u32| -> std::io::Result<()> {
        let access = if s.access == ANY { "null".to_string() } else { s.access.to_string() };
        write!(
            out,
            "{{\"id\":{id},\"label\":{},\"inst\":{},\"access\":{access},\"descriptor\":{}",
            quoted(&v.label(s.inst)),
            s.inst,
            quoted(&v.descriptor(s))
        )
    };
    write!(out, "{{\"function\":{},\"writes\":[", quoted(v.func.name()))?;
    let mut first = true;
    for &i in &v.mem {
        for &d in sites.defs_of_inst(i) {
            out.write_all(if first { b"" } else { b"," })?;
            first = false;
            site(out, sites.def_site(d).expect("own site"), d)?;
            let output = set_or_null(&mut sets, v.deps.output_of(d));
            let anti = set_or_null(&mut sets, v.deps.anti_of(d));
            write!(out, ",\"output\":{output},\"anti\":{anti}}}")?;
        }
    }
    out.write_all(b"],\"reads\":[")?;
    let mut first = true;
    for &i in &v.mem {
        for &u in sites.uses_of_inst(i) {
            out.write_all(if first { b"" } else { b"," })?;
            first = false;
            site(out, sites.use_site(u).expect("own site"), u)?;
            let depends = set_or_null(&mut sets, v.deps.defs_of(u));
            let must = set_or_null(&mut sets, &v.deps.must_of(u));
            let may = set_or_null(&mut sets, &v.deps.may_of(u));
            write!(out, ",\"depends_on\":{depends},\"must\":{must},\"may\":{may},\"carried\":[")?;
            for (k, &(h, s)) in carried.get(&u).map_or(&[][..], Vec::as_slice).iter().enumerate() {
                let sep = if k == 0 { "" } else { "," };
                write!(out, "{sep}{{\"loop_header\":{h},\"set\":{}}}", sets.number(v.deps.set(s)))?;
            }
            out.write_all(b"]}")?;
        }
    }
    out.write_all(b"],\"sets\":[")?;
    for (k, ranges) in sets.order.iter().enumerate() {
        out.write_all(if k == 0 { b"[" } else { b",[" })?;
        for (j, &(lo, hi)) in ranges.iter().enumerate() {
            write!(out, "{}[{lo},{hi}]", if j == 0 { "" } else { "," })?;
        }
        out.write_all(b"]")?;
    }
    write!(out, "],\"counts\":{}}}", counts_json(&v.deps))
}
