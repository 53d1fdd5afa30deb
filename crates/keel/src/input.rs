//! The CLI's one input loader: reading a file (or stdin, capped at
//! [`MAX_INPUT`]), then parsing IR text or importing a WebAssembly module
//! (the first bytes decide, not the name) and verifying it, with
//! diagnostics on stderr (rendered by the `diagnostics` crate through
//! `ir_core::text`: [`Diagnostic::render`] and `VerifierError::render`),
//! each run's errors followed by a `NAME: N errors` count.

use ir_core::Module;
use ir_core::text::{self, Diagnostic, SourceMap};
use std::io::{Read, Write};

/// The largest input Keel reads (IR text, a WebAssembly module, a `--mem`
/// file): 1 GiB (docs/ir.md §2).
pub(crate) const MAX_INPUT: u64 = 1 << 30;

/// Reads all of `r`, failing with a clear error past `limit` bytes (so
/// `/dev/zero` or an endless pipe is refused, not read until memory runs
/// out).
pub(crate) fn read_capped(mut r: impl Read, limit: u64) -> std::io::Result<Vec<u8>> {
    // Grow by doubling, but never past `limit + 1` bytes of capacity: the
    // cap bounds the memory too, not only what is kept.
    let cap = usize::try_from(limit + 1).unwrap_or(usize::MAX);
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    while buf.len() < cap {
        let want = chunk.len().min(cap - buf.len());
        let n = match r.read(&mut chunk[..want]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.len() + n > buf.capacity() {
            let grow = buf.capacity().max(1 << 16).min(cap - buf.len());
            buf.reserve_exact(grow.max(n));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    if buf.len() as u64 > limit {
        return Err(std::io::Error::other(format!(
            "the input is larger than {}, the most Keel reads",
            crate::size::show_size(limit)
        )));
    }
    Ok(buf)
}

/// Reads `path` (`-`: stdin) through [`read_capped`] at [`MAX_INPUT`].
pub(crate) fn read_path(path: &str) -> std::io::Result<Vec<u8>> {
    if path == "-" {
        read_capped(std::io::stdin().lock(), MAX_INPUT)
    } else {
        std::fs::File::open(path).and_then(|f| read_capped(f, MAX_INPUT))
    }
}

/// Reads a small UTF-8 file (a configuration, a `--mem` file) through
/// [`read_capped`] at [`MAX_INPUT`].
pub(crate) fn read_text(path: &str) -> std::io::Result<String> {
    let bytes = read_path(path)?;
    String::from_utf8(bytes).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to()),
        )
    })
}

/// How many verifier errors a run renders (`--error-limit`).
static ERROR_LIMIT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(100);

/// Sets how many verifier errors are rendered per input.
pub(crate) fn set_error_limit(n: usize) {
    ERROR_LIMIT.store(n, std::sync::atomic::Ordering::Relaxed);
}

/// How many verifier errors are rendered per input.
pub(crate) fn error_limit() -> usize {
    ERROR_LIMIT.load(std::sync::atomic::Ordering::Relaxed)
}

/// Writes `items` rendered by `render`, at most [`error_limit`] of them,
/// then one line counting the rest (so 10^5 errors print a screenful, in
/// time linear in what is shown).
pub(crate) fn write_limited<T>(
    err: &mut dyn Write,
    name: &str,
    items: &[T],
    mut render: impl FnMut(&T) -> String,
) -> std::io::Result<()> {
    let limit = error_limit();
    for item in items.iter().take(limit) {
        write!(err, "{}", render(item))?;
    }
    if items.len() > limit {
        writeln!(
            err,
            "{name}: ... and {} more error(s) not shown (--error-limit {limit}; raise it to see them)",
            items.len() - limit
        )?;
    }
    Ok(())
}

/// A file (or standard input) read into memory.
pub(crate) struct Input {
    /// How diagnostics name the input.
    pub(crate) name: String,
    contents: Contents,
}

enum Contents {
    Text(String),
    /// Not UTF-8: the raw bytes, and the valid prefix for diagnostics (so
    /// that line and column of the first bad byte are still right).
    Bytes(Vec<u8>, String),
}

impl Input {
    /// Reads `path` (`-` for stdin); prints an error and returns `None` on
    /// failure, or when the input exceeds [`MAX_INPUT`] bytes.
    pub(crate) fn read(path: &str) -> Option<Input> {
        let name = if path == "-" { "<stdin>".to_string() } else { path.to_string() };
        let result = read_path(path);
        match result {
            Ok(bytes) => {
                let contents = match String::from_utf8(bytes) {
                    Ok(text) => Contents::Text(text),
                    Err(e) => {
                        let valid = e.utf8_error().valid_up_to();
                        let bytes = e.into_bytes();
                        let prefix = String::from_utf8_lossy(&bytes[..valid]).into_owned();
                        Contents::Bytes(bytes, prefix)
                    }
                };
                Some(Input { name, contents })
            }
            Err(e) => {
                eprintln!("keel: cannot read {name}: {e}");
                None
            }
        }
    }

    /// The raw bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        match &self.contents {
            Contents::Text(t) => t.as_bytes(),
            Contents::Bytes(b, _) => b,
        }
    }

    /// For commands that read IR text only: `None` after a clear error when
    /// the input is a WebAssembly module.
    pub(crate) fn text_only(self) -> Option<Input> {
        if self.is_wasm() {
            let message = "this is a WebAssembly module, not IR text: `keel import FILE` prints it as IR";
            eprint!("{}", ir_core::text::render_file_error(&self.name, message));
            return None;
        }
        Some(self)
    }

    /// True when the input is a WebAssembly binary (it starts with the
    /// `\0asm` magic).
    pub(crate) fn is_wasm(&self) -> bool {
        self.bytes().starts_with(b"\0asm")
    }

    /// The input as text.
    pub(crate) fn text(&self) -> &str {
        match &self.contents {
            Contents::Text(t) | Contents::Bytes(_, t) => t,
        }
    }

    /// The input as text for a format that is UTF-8 only (`what`, e.g. "a
    /// rule file"): `None` after a diagnostic at the first byte that is not
    /// UTF-8 (a WebAssembly module, say), rather than reading the valid
    /// prefix as the whole file.
    pub(crate) fn utf8_text(&self, what: &str) -> Option<&str> {
        let text = self.text();
        if self.bytes().len() == text.len() {
            return Some(text);
        }
        let at = text.len();
        let span = ir_core::text::Span::new(at, at + 1);
        eprint!("{}", text::render_error(&self.name, text, span, &format!("{what} is UTF-8 text; this byte is not")));
        None
    }

    /// Parses the input, or imports it when it is a WebAssembly module;
    /// prints diagnostics and returns `None` when the module is unusable.
    /// A function that cannot be imported is listed on stderr (and in
    /// [`Loaded::failures`]) and becomes an extern; it is not fatal. An
    /// imported module has an empty source map.
    pub(crate) fn parse(&self) -> Option<Loaded> {
        if self.is_wasm() {
            let imported = import_wasm(self, &wasm_import::ImportOptions::default())?;
            let failures: Vec<Failure> = imported
                .functions
                .iter()
                .filter_map(|f| {
                    let e = f.result.as_ref().err()?;
                    Some(Failure { index: f.index, name: f.name.clone(), reason: e.to_string() })
                })
                .collect();
            for f in &failures {
                crate::out::say(format_args!("function {} ({}) not imported: {}", f.index, f.name, f.reason));
            }
            return Some(Loaded {
                module: imported.module,
                smap: SourceMap::default(),
                imported: Some(imported.counts.imported),
                failures,
            });
        }
        let parsed = match &self.contents {
            Contents::Text(t) => text::parse(t),
            Contents::Bytes(b, _) => text::parse_bytes(b),
        };
        match parsed {
            Ok((module, smap)) => Some(Loaded { module, smap, imported: None, failures: Vec::new() }),
            Err(diags) => {
                self.report(&diags);
                None
            }
        }
    }

    /// [`Input::parse`], then the verifier: its errors are rendered
    /// against the source ([`Input::report_verifier_errors`]), followed by
    /// `NAME: the module does not verify` and `consequence` (e.g. `"; not
    /// running it"`). Every subcommand that analyses or transforms a
    /// module loads it here.
    pub(crate) fn load(&self, consequence: &str) -> Option<Loaded> {
        let loaded = self.parse()?;
        if let Err(errors) = ir_core::verify_module(&loaded.module, &Default::default()) {
            self.report_verifier_errors(&loaded.module, &loaded.smap, &errors);
            eprintln!("{}: the module does not verify{consequence}", self.name);
            return None;
        }
        Some(loaded)
    }

    /// Renders verifier errors in source order, at most
    /// [`error_limit`] of them, then one line counting the rest.
    pub(crate) fn report_verifier_errors(&self, module: &Module, smap: &SourceMap, errors: &ir_core::VerifierErrors) {
        let mut err = std::io::stderr().lock();
        // Report in source order; the verifier finds some classes in a later sweep.
        let mut errs: Vec<_> = errors.0.iter().collect();
        errs.sort_by_key(|e| {
            let l = &e.location;
            l.func.and_then(|f| smap.locate(f, l.inst, l.block, l.var)).map_or(0, |s| s.start)
        });
        let _ = write_limited(&mut err, &self.name, &errs, |e| e.render(module, &self.name, self.text(), smap));
    }

    fn report(&self, diags: &[Diagnostic]) {
        let mut err = std::io::stderr().lock();
        for d in diags {
            let _ = write!(err, "{}", d.render(&self.name, self.text()));
        }
        let n = diags.len();
        let _ = writeln!(err, "{}: {n} error{}", self.name, if n == 1 { "" } else { "s" });
    }
}

/// A function the front end could not import (never fatal).
pub(crate) struct Failure {
    /// Its index in the source module.
    pub(crate) index: u32,
    /// Its name, or a description when it has none.
    pub(crate) name: String,
    /// Why.
    pub(crate) reason: String,
}

/// A parsed (or imported) module, with what the front end says of it.
pub(crate) struct Loaded {
    /// The module.
    pub(crate) module: Module,
    /// Where its entities are in the text (empty for an imported module).
    pub(crate) smap: SourceMap,
    /// Functions imported from a binary module (`None` for IR text).
    pub(crate) imported: Option<usize>,
    /// Functions that could not be imported (each became an extern).
    pub(crate) failures: Vec<Failure>,
}

/// Imports a WebAssembly module, printing a module-level error (invalid
/// or malformed binary) as a diagnostic on the file
/// ([`wasm_import::ModuleError::render`]).
pub(crate) fn import_wasm(input: &Input, options: &wasm_import::ImportOptions) -> Option<wasm_import::Import> {
    wasm_import::import(input.bytes(), options).map_err(|e| eprint!("{}", e.render(&input.name))).ok()
}
