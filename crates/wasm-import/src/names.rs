//! Names: what the importer calls module-level items and function locals.
//!
//! Invariants: every module-level name it hands out is non-empty and unique
//! across functions, externs and memory objects (they share one namespace in
//! the IR); names are claimed in a fixed order (imported functions, defined
//! functions, memories, globals, data segments), so the result is
//! deterministic. Any non-empty UTF-8 string is a valid IR name (the printer
//! quotes what is not plain, docs/ir.md §2), so names from the wasm name
//! section are kept as they are. Local names lose their `.`s (`a.1` would
//! otherwise read as an SSA version of `a`, docs/ir.md §9).

use rustc_hash::{FxHashMap, FxHashSet};

/// The module-level namespace being filled.
#[derive(Default, Debug)]
pub(crate) struct Namespace {
    taken: FxHashSet<String>,
    /// The next suffix to try per base name, so that `n` clashes on one
    /// base cost O(n), not O(n²).
    next: FxHashMap<String, u64>,
}

impl Namespace {
    /// Claims the first usable candidate, or `fallback`, made unique with a
    /// `_N` suffix when taken.
    pub(crate) fn claim<'a>(&mut self, candidates: impl IntoIterator<Item = &'a str>, fallback: &str) -> String {
        let base = candidates.into_iter().find(|c| !c.is_empty()).unwrap_or(fallback);
        let base = if base.is_empty() { "_" } else { base };
        if self.taken.insert(base.to_string()) {
            return base.to_string();
        }
        let mut n = self.next.get(base).copied().unwrap_or(1);
        loop {
            let candidate = format!("{base}_{n}");
            n += 1;
            if self.taken.insert(candidate.clone()) {
                self.next.insert(base.to_string(), n);
                return candidate;
            }
        }
    }
}

/// What the name section says (all optional; a malformed name section is
/// ignored from the first bad entry on).
#[derive(Default, Debug)]
pub(crate) struct NameSection<'a> {
    pub(crate) functions: FxHashMap<u32, &'a str>,
    pub(crate) locals: FxHashMap<u32, FxHashMap<u32, &'a str>>,
    pub(crate) globals: FxHashMap<u32, &'a str>,
    pub(crate) memories: FxHashMap<u32, &'a str>,
    pub(crate) data: FxHashMap<u32, &'a str>,
}

impl<'a> NameSection<'a> {
    /// Reads a `name` custom section, keeping whatever parses.
    pub(crate) fn read(&mut self, reader: wasmparser::NameSectionReader<'a>) {
        use wasmparser::Name;
        for sub in reader {
            let Ok(sub) = sub else { return };
            match sub {
                Name::Function(map) => read_map(map, &mut self.functions),
                Name::Global(map) => read_map(map, &mut self.globals),
                Name::Memory(map) => read_map(map, &mut self.memories),
                Name::Data(map) => read_map(map, &mut self.data),
                Name::Local(indirect) => {
                    for entry in indirect {
                        let Ok(entry) = entry else { break };
                        let mut map = FxHashMap::default();
                        read_map(entry.names, &mut map);
                        self.locals.insert(entry.index, map);
                    }
                }
                _ => {}
            }
        }
    }
}

fn read_map<'a>(map: wasmparser::NameMap<'a>, out: &mut FxHashMap<u32, &'a str>) {
    for naming in map {
        let Ok(naming) = naming else { return };
        out.insert(naming.index, naming.name);
    }
}

/// A local's name from the name section made safe for a var: non-empty,
/// with no `.` (see the module invariant).
pub(crate) fn local_name(name: &str) -> Option<String> {
    if name.is_empty() { None } else { Some(name.replace('.', "_")) }
}
