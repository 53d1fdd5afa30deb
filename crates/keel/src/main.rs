//! `keel`: the command-line front of the Keel toolkit.
//!
//! # Bad input
//!
//! Every subcommand reports problems as diagnostics (`error: message`,
//! `--> file:line:col`, the source line and a caret) and exits 1; usage
//! errors exit 2. Diagnostics are rendered by ir-core (`ir_core::text`'s
//! renderer, built on `annotate-snippets`), never here, so the parser's,
//! the verifier's and the importer's errors look alike. A panic would be a
//! bug: the hook below turns it into a one-line report instead of a
//! backtrace.

mod dot;
mod du;
mod generate;
mod import;
mod input;
mod run;
mod source;
mod ssa_cmd;
mod vectorize_cmd;

use clap::{Parser, Subcommand};
use input::Input;
use ir_core::{VerifyOptions, text, verify_module};
use std::io::Write;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "keel", version, about = "Keel: compiler middle-end libraries, from the command line")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Parse and verify IR files; print diagnostics and exit 1 on any error.
    Check {
        /// Files to check (`-` reads standard input).
        #[arg(required = true)]
        files: Vec<String>,
        /// Also check SSA form (one definition per var, dominance).
        #[arg(long)]
        ssa: bool,
        /// Print nothing on success.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Interpret a function and print its results, one `TYPE VALUE` per line.
    ///
    /// Exit status: 0 on return, 1 on bad input, 2 on bad usage, 3 on a trap.
    Run {
        /// The IR file (`-` reads standard input).
        file: String,
        /// Function to run (default: `@main`, or the only function).
        #[arg(long)]
        func: Option<String>,
        /// An argument, in order; a literal of the parameter's type.
        #[arg(long = "arg", value_name = "V", allow_hyphen_values = true)]
        args: Vec<String>,
        /// Initial contents of a memory object: literals in FILE, from element 0.
        #[arg(long = "mem", value_name = "NAME=FILE")]
        mems: Vec<String>,
        /// Fuel: instructions visited plus tensor elements processed.
        #[arg(long, default_value_t = 100_000_000)]
        fuel: u64,
        /// Print dynamic counts per opcode and the hottest instructions.
        #[arg(long)]
        stats: bool,
        /// Print a memory object's contents after the run.
        #[arg(long = "show-mem", value_name = "NAME")]
        show_mem: Vec<String>,
    },
    /// Print a generated module: valid, terminating, deterministic per seed.
    ///
    /// A comment at the top gives the fuel bound for `@main`.
    Gen {
        /// Blocks in the whole module.
        #[arg(long, default_value_t = 64)]
        blocks: usize,
        /// Vars of `@main` that random instructions read and write.
        #[arg(long, default_value_t = 16)]
        vars: usize,
        /// Seed: the same seed and options print the same module.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Rate of guarded (predicated) instructions, 0..1.
        #[arg(long, default_value_t = 0.1)]
        predicated: f64,
        /// Rate of memory instructions (scalar and tensor), 0..1.
        #[arg(long, default_value_t = 0.1)]
        memory: f64,
        /// Emit irreducible regions, at RATE (0.25 if given without a value).
        #[arg(long, value_name = "RATE", num_args = 0..=1, default_missing_value = "0.25")]
        irreducible: Option<f64>,
        /// Average definitions per var.
        #[arg(long, default_value_t = 4.0)]
        defs_per_var: f64,
        /// Functions in the module (`@main` calls the others acyclically).
        #[arg(long, default_value_t = 1)]
        functions: usize,
        /// Maximum nesting of loops, ifs and switches (at most 6).
        #[arg(long, default_value_t = 3)]
        max_depth: u32,
        /// Rate of unreachable block runs, 0..1.
        #[arg(long, default_value_t = 0.05)]
        unreachable: f64,
        /// Rate of phis at join blocks, 0..1.
        #[arg(long, default_value_t = 0.0)]
        phis: f64,
    },
    /// Print a Graphviz view of a function: its CFG, dominator tree,
    /// post-dominator tree, or loops (as nested clusters); or of a
    /// graph-IR file (`.vg`): its nodes, lambdas as nested clusters.
    Dot {
        /// The IR file (`-` reads standard input).
        file: String,
        /// The function (default: the only one, or `@main`).
        #[arg(long)]
        func: Option<String>,
        /// What to draw.
        #[arg(long, value_enum, default_value_t = dot::What::Cfg)]
        what: dot::What,
        /// Show each block's instructions in its node.
        #[arg(long)]
        insts: bool,
    },
    /// Print a module in SSA form (all functions, or one).
    Ssa {
        /// The IR file (`-` reads standard input).
        file: String,
        /// Only this function.
        #[arg(long)]
        func: Option<String>,
        /// Which vars get phis.
        #[arg(long, default_value = "semi-pruned", value_parser = ["minimal", "semi-pruned", "pruned"])]
        placement: String,
        /// Keep trivial and dead phis.
        #[arg(long)]
        no_cleanup: bool,
        /// Then take the result back out of SSA (phis to copies).
        #[arg(long)]
        destruct: bool,
        /// Print what construction did, on stderr.
        #[arg(long)]
        stats: bool,
    },
    /// Def-use and use-def chains: through SSA, iterative, or both.
    ///
    /// `--verify` exits 1 on any difference between the methods; `--stats`
    /// times each phase and gives the speedup (iterative / ssa). FILE may be
    /// IR text or a WebAssembly module (imported first; functions that
    /// cannot be imported are listed, not fatal). Functions run in parallel.
    Du {
        /// The IR file or `.wasm` module (`-` reads standard input).
        file: String,
        /// Only this function.
        #[arg(long)]
        func: Option<String>,
        /// Which method computes the chains.
        #[arg(long, value_enum, default_value_t = du::Method::Ssa)]
        method: du::Method,
        /// Compute both methods and exit 1 if they differ anywhere.
        #[arg(long)]
        verify: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t = du::Format::Table)]
        format: du::Format,
        /// Time each phase of both methods and report the ratio.
        #[arg(long)]
        stats: bool,
        /// Functions analysed in parallel (default: one per core).
        #[arg(long, short = 'j')]
        jobs: Option<usize>,
    },
    /// Import a WebAssembly module: IR text on stdout (or -o), a summary on stderr.
    ///
    /// A function that cannot be imported is listed and becomes an extern;
    /// only an invalid module is an error (exit 1).
    Import {
        /// The `.wasm` file (`-` reads standard input).
        module: String,
        /// Write the IR text to this file instead of stdout.
        #[arg(short, long, value_name = "OUT.kir")]
        output: Option<String>,
        /// Import only the defined function with this wasm index (the others become externs).
        #[arg(long, value_name = "N")]
        func: Option<u32>,
        /// Ignore the name section (names like `@f12`, `%l3`).
        #[arg(long)]
        no_names: bool,
        /// No summary on stderr.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Vectorize a function: `/p/` maps `p` over arrays of its arguments.
    ///
    /// FILE is a graph-IR file (`.vg`, or `--graph`) or Keel IR, whose
    /// scalar function is imported first. Prints the vectorized graph, or
    /// with `--emit kir` the Keel function it lowers to (arrays as memory
    /// objects, element-wise work as tensor instructions).
    Vectorize {
        /// The input file (`-` reads standard input).
        file: String,
        /// The function (default: the only one, or `@main`).
        #[arg(long)]
        func: Option<String>,
        /// What to print.
        #[arg(long, value_enum, default_value_t = vectorize_cmd::Emit::Graph)]
        emit: vectorize_cmd::Emit,
        /// A rule file to use instead of the default rules.
        #[arg(long, value_name = "FILE")]
        rules: Option<String>,
        /// A parameter that is the same in every lane (not mapped); repeatable.
        #[arg(long, value_name = "PARAM")]
        same: Vec<String>,
        /// Read FILE as graph IR whatever its extension.
        #[arg(long)]
        graph: bool,
        /// With `--emit kir`: exactly this many lanes (exact descriptors).
        #[arg(long)]
        lanes: Option<u64>,
        /// With `--emit kir` and no `--lanes`: the most lanes (a `%lanes` parameter).
        #[arg(long, default_value_t = 1024)]
        capacity: u64,
        /// With `--emit kir`: room for the elements of per-lane array parameters.
        #[arg(long, default_value_t = 65536)]
        elements: u64,
        /// Print what vectorization did, on stderr.
        #[arg(long)]
        stats: bool,
    },
    /// Print an IR file in canonical form.
    Fmt {
        /// File to format (`-` reads standard input).
        file: String,
        /// Do not print; exit 1 if the file is not in canonical form.
        #[arg(long)]
        check: bool,
    },
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("keel: internal error: {info}");
        eprintln!("keel: this is a bug in keel; please report it with the input that caused it");
    }));
    let cli = Cli::parse();
    match cli.command {
        Command::Check { files, ssa, quiet } => check(&files, ssa, quiet),
        Command::Fmt { file, check } => fmt(&file, check),
        Command::Ssa { file, func, placement, no_cleanup, destruct, stats } => {
            let policy = ssa::Policy::from_name(&placement).unwrap_or_default();
            ssa_cmd::ssa(&file, func.as_deref(), policy, !no_cleanup, destruct, stats)
        }
        Command::Du { file, func, method, verify, format, stats, jobs } => {
            du::du(&du::DuArgs { file, func, method, verify, format, stats, jobs })
        }
        Command::Import { module, output, func, no_names, quiet } => {
            import::import(&module, output.as_deref(), func, !no_names, quiet)
        }
        Command::Dot { file, func, what, insts } => dot::dot(&file, func.as_deref(), what, insts),
        Command::Vectorize { file, func, emit, rules, same, graph, lanes, capacity, elements, stats } => {
            let args =
                vectorize_cmd::VectorizeArgs { file, func, emit, rules, same, graph, lanes, capacity, elements, stats };
            written(vectorize_cmd::vectorize(&args, &mut std::io::stdout().lock()))
        }
        Command::Gen {
            blocks,
            vars,
            seed,
            predicated,
            memory,
            irreducible,
            defs_per_var,
            functions,
            max_depth,
            unreachable,
            phis,
        } => {
            let config = ir_gen::GenConfig {
                blocks,
                vars,
                defs_per_var,
                predication: predicated,
                memory,
                irreducible: irreducible.unwrap_or(0.0),
                functions,
                max_depth,
                unreachable,
                phis,
                ..ir_gen::GenConfig::default()
            };
            let line: Vec<String> = std::env::args().skip(1).collect();
            generate::print_generated(&config, seed, &format!("keel {}", line.join(" ")))
        }
        Command::Run { file, func, args, mems, fuel, stats, show_mem } => {
            run::run(&run::RunArgs { file, func, args, mems, fuel, stats, show_mem })
        }
    }
}

fn check(files: &[String], ssa: bool, quiet: bool) -> ExitCode {
    let mut failed = false;
    for file in files {
        let Some(input) = Input::read(file) else {
            failed = true;
            continue;
        };
        let Some((module, smap)) = input.parse() else {
            failed = true;
            continue;
        };
        match verify_module(&module, &VerifyOptions { ssa }) {
            Ok(()) => {
                if !quiet {
                    let blocks: usize = module.functions().map(|(_, f)| f.layout().num_blocks()).sum();
                    let insts: usize = module.functions().map(|(_, f)| f.count_inserted_insts()).sum();
                    let fns = module.num_functions();
                    println!(
                        "{}: ok ({fns} function{}, {blocks} block{}, {insts} instruction{})",
                        input.name,
                        plural(fns),
                        plural(blocks),
                        plural(insts)
                    );
                }
            }
            Err(errors) => {
                failed = true;
                let mut err = std::io::stderr().lock();
                // Report in source order; the verifier finds some classes in a later sweep.
                let mut errs: Vec<_> = errors.0.iter().collect();
                errs.sort_by_key(|e| {
                    let l = &e.location;
                    l.func.and_then(|f| smap.locate(f, l.inst, l.block, l.var)).map_or(0, |s| s.start)
                });
                for e in errs {
                    let _ = write!(err, "{}", e.render(&module, &input.name, input.text(), &smap));
                }
                let n = errors.0.len();
                let _ = writeln!(err, "{}: {n} error{}", input.name, plural(n));
            }
        }
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

fn fmt(file: &str, check_only: bool) -> ExitCode {
    let Some(input) = Input::read(file) else {
        return ExitCode::FAILURE;
    };
    let Some((module, _)) = input.parse() else {
        return ExitCode::FAILURE;
    };
    let printed = text::print_module(&module);
    if check_only {
        if printed == input.text() {
            return ExitCode::SUCCESS;
        }
        eprintln!("{}: not in canonical form (run `keel fmt {}`)", input.name, input.name);
        return ExitCode::FAILURE;
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(printed.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`keel fmt x | head`) is not an error worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("keel: cannot write output: {e}");
            ExitCode::FAILURE
        }
    }
}

/// An exit code from a subcommand that writes its output, or the failure
/// to write it (a closed pipe is not an error worth a message).
fn written(result: std::io::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("keel: cannot write output: {e}");
            ExitCode::FAILURE
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
