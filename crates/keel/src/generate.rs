//! `keel gen`: print a generated module.
//!
//! The output starts with comments giving the generator settings and the
//! fuel bound for `@main`, so `keel run` can be given exactly that fuel.

use ir_gen::{GenConfig, generate};
use std::io::Write;
use std::process::ExitCode;

/// The knobs of `keel gen`, read loosely (signed, any float) so that an
/// out-of-range value gets a message naming its limit rather than a parse
/// error.
#[derive(clap::Args, Debug)]
pub(crate) struct GenArgs {
    /// Blocks in the whole module (1 to 10^7).
    #[arg(long, default_value_t = 64)]
    blocks: i64,
    /// Vars of `@main` that random instructions read and write (at most 10^6).
    #[arg(long, default_value_t = 16)]
    vars: i64,
    /// Seed: the same seed and options print the same module.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Rate of guarded (predicated) instructions, 0..1.
    #[arg(long, default_value_t = 0.1)]
    predicated: f64,
    /// Rate of memory instructions (scalar and tensor), 0..1.
    #[arg(long, default_value_t = 0.1)]
    memory: f64,
    /// Emit irreducible regions, at RATE (0.25 if given without a value), 0..1.
    #[arg(long, value_name = "RATE", num_args = 0..=1, default_missing_value = "0.25")]
    irreducible: Option<f64>,
    /// Average definitions per var (vars x this is at most 10^7).
    #[arg(long, default_value_t = 4.0)]
    defs_per_var: f64,
    /// Functions in the module (`@main` calls the others acyclically), 1 to 2x10^5.
    #[arg(long, default_value_t = 1)]
    functions: i64,
    /// Maximum nesting of loops, ifs and switches (0 to 6).
    #[arg(long, default_value_t = 3)]
    max_depth: i64,
    /// Rate of unreachable block runs, 0..1.
    #[arg(long, default_value_t = 0.05)]
    unreachable: f64,
    /// Rate of phis at join blocks, 0..1.
    #[arg(long, default_value_t = 0.0)]
    phis: f64,
    /// Rate of loop-invariant computations in loop bodies, 0..1 (every
    /// generated loop is top-tested; `keel rotate` then `keel pre` hoists
    /// them).
    #[arg(long, default_value_t = 0.0)]
    invariants: f64,
    /// Rate at which a region that may nest is a loop, 0..1 (on top of
    /// the one region in seven that the menu of shapes gives loops).
    #[arg(long, default_value_t = 0.0)]
    loops: f64,
}

impl GenArgs {
    /// The generator's configuration, or a message naming the first knob
    /// out of its range (`ir_gen::GenConfig::check`'s limits).
    fn config(&self) -> Result<GenConfig, String> {
        let count = |flag: &str, v: i64, lo: i64, hi: usize| {
            if v < lo || v as u64 > hi as u64 {
                Err(format!("--{flag} must be between {lo} and {hi}, not {v}"))
            } else {
                Ok(v as usize)
            }
        };
        let config = GenConfig {
            blocks: count("blocks", self.blocks, 1, ir_gen::MAX_BLOCKS)?,
            vars: count("vars", self.vars, 0, ir_gen::MAX_VARS)?,
            defs_per_var: self.defs_per_var,
            predication: self.predicated,
            memory: self.memory,
            irreducible: self.irreducible.unwrap_or(0.0),
            functions: count("functions", self.functions, 1, ir_gen::MAX_FUNCTIONS)?,
            max_depth: count("max-depth", self.max_depth, 0, ir_gen::MAX_DEPTH as usize)? as u32,
            unreachable: self.unreachable,
            phis: self.phis,
            invariants: self.invariants,
            loops: self.loops,
            ..GenConfig::default()
        };
        config.check().map_err(|e| {
            let flag = match e.field {
                "predication" => "predicated",
                other => other,
            };
            format!("--{} {}", flag.replace('_', "-"), e.kind)
        })?;
        Ok(config)
    }
}

/// `keel gen`: checks the knobs (exit 2 with a message naming the first
/// one out of range), then prints the module.
pub(crate) fn generate_cmd(args: &GenArgs, command_line: &str, out: &mut dyn Write) -> std::io::Result<ExitCode> {
    match args.config() {
        Ok(config) => print_generated(&config, args.seed, command_line, out),
        Err(msg) => {
            eprintln!("keel gen: {msg}");
            Ok(ExitCode::from(2))
        }
    }
}

/// Adapts an `io::Write` to `fmt::Write` so a huge module streams out
/// instead of being built as one string.
struct IoFmt<'a> {
    out: &'a mut dyn Write,
    error: Option<std::io::Error>,
}

impl core::fmt::Write for IoFmt<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.out.write_all(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            core::fmt::Error
        })
    }
}

fn print_generated(
    config: &GenConfig,
    seed: u64,
    command_line: &str,
    out: &mut dyn Write,
) -> std::io::Result<ExitCode> {
    let g = generate(config, seed);
    let mut w = IoFmt { out, error: None };
    let args = g
        .module
        .function_by_name("main")
        .and_then(|f| g.module.function(f))
        .map_or(String::new(), |f| crate::run::example_args(&f.signature().params));
    let header = format!(
        "; {command_line}\n; fuel bound for @main (any arguments): {}; run with `keel run FILE --fuel {}{args}`\n\n",
        g.fuel, g.fuel
    );
    let result =
        core::fmt::Write::write_str(&mut w, &header).and_then(|()| ir_core::text::write_module(&g.module, &mut w));
    match (result, w.error) {
        (Ok(()), _) => Ok(ExitCode::SUCCESS),
        (Err(_), Some(e)) => Err(e),
        (Err(_), None) => Err(std::io::Error::other("formatting failed")),
    }
}
