//! `keel`: the command-line front of the Keel toolkit.
//!
//! # Bad input
//!
//! Every subcommand reports problems as diagnostics (`error: message`,
//! `--> file:line:col`, the source line and a caret) and exits 1; usage
//! errors exit 2. Diagnostics are rendered by Keel's one renderer, the
//! `diagnostics` crate (on `annotate-snippets`): Keel IR and WebAssembly
//! errors reach it through `ir_core::text`, graph-IR and rule errors
//! through `vectorize`, MLU assembly and configurations through
//! `mlu_isa::text` (feature `render`). Nothing is drawn here, so every
//! error looks alike. A panic would be a bug: the hook below turns it into
//! a two-line report instead of a backtrace.
//!
//! # One way to do each thing
//!
//! - Output goes to the `&mut dyn Write` that [`out::finish`] hands each
//!   subcommand; write errors go back up with `?` (a closed pipe ends the
//!   run quietly).
//! - Diagnostics go to stderr, for every subcommand alike: rendered ones
//!   with `eprint!`, one-line messages as `keel: MESSAGE` through
//!   [`out::say`].
//! - Input: [`input::Input::read`], then [`input::Input::parse`] or
//!   [`input::Input::load`] (parse and verify); `--func`: [`select`];
//!   whole-module runs: [`per_function`] (worker threads, progress bar).
//! - Each subcommand's module parses nothing but its own arguments, calls
//!   the libraries and prints; no two modules import each other
//!   (`scripts/module-cycles` checks it in CI).
//!
/// std's `eprintln!`, minus the panic when stderr cannot be written.
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// std's `eprint!`, minus the panic when stderr cannot be written.
macro_rules! eprint {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

mod asm_cmd;
mod budget;
mod compile_cmd;
mod dot;
mod du;
mod generate;
mod import;
mod input;
mod limits;
mod mem_file;
mod memdep_cmd;
mod memdep_compact;
mod memdep_explain;
mod memdep_view;
mod out;
mod per_function;
mod pre_cmd;
mod regalloc_cmd;
mod run;
mod run_mlu_cmd;
mod select;
mod sim_cmd;
mod size;
mod ssa_cmd;
mod vectorize_cmd;

use clap::{Parser, Subcommand};
use input::Input;
use ir_core::{VerifyOptions, text, verify_module};
use std::io::Write;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "keel",
    version,
    about = "Keel: compiler middle-end libraries, from the command line",
    after_help = "Exit status, for every subcommand: 0 success; 1 bad input, a failed check or an unwritable \
                  output; 2 bad usage; 3 a trap at run time (keel run, sim, run-mlu). `keel help SUBCOMMAND` gives details."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Most verifier errors shown per input; one line counts the rest.
    #[arg(long, global = true, value_name = "N", default_value_t = 100)]
    error_limit: usize,
    /// The memory budget, e.g. 2G or 512M: the most any pass may spend on
    /// a table that grows with a product of sizes (liveness and bit-vector
    /// matrices, interference graphs, phi and dependence tables), on
    /// simulated or interpreted memory, or on DMA rows. A pass that would
    /// need more refuses with exit 1, naming the sizes (`run` traps, exit 3;
    /// `sim` refuses simulated memories over it before the run, and traps,
    /// exit 3, when its race record or an overlapping copy's staging would
    /// pass it; `du` skips the iterative baseline for that function).
    /// Default 2G; `run`: 1G.
    #[arg(long, global = true, value_name = "SIZE", value_parser = size::parse_size)]
    max_memory: Option<u64>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Parse and verify IR files; print diagnostics and exit 1 on any error.
    ///
    /// A WebAssembly module is imported, then verified.
    ///
    /// Exit status: 0 when every file verifies, 1 on any error (or an
    /// unwritable output), 2 on bad usage.
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
    /// A WebAssembly module is imported first.
    ///
    /// Exit status: 0 on return, 1 on bad input (or an unwritable output),
    /// 2 on bad usage, 3 on a trap (fuel, memory limit, division by zero,
    /// ...).
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
        #[arg(long = "mem", value_name = "NAME=FILE", value_parser = mem_file::mem_spec)]
        mems: Vec<mem_file::MemSpec>,
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
    /// A comment at the top gives the fuel bound for `@main` and a `keel
    /// run` command that works on the output. Every knob is checked against
    /// its documented range (exit 2 when out of it); generation is linear
    /// in the module's size.
    ///
    /// Exit status: 0 on success, 1 when the output cannot be written, 2 on
    /// bad usage (a knob out of range).
    #[command(allow_negative_numbers = true)]
    Gen(generate::GenArgs),
    /// Print a Graphviz view of a function: its CFG, dominator tree,
    /// post-dominator tree, loops (as nested clusters), a block's pebble
    /// game (`--what dag`) or the sparse value flow graph (`--what svfg`);
    /// or of a graph-IR file (`.vg`): its nodes, lambdas as nested
    /// clusters.
    ///
    /// A WebAssembly module is imported first.
    ///
    /// Exit status: 0 on success, 1 on bad input (or an unwritable output),
    /// 2 on bad usage.
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
        /// With `--what dag`: the block whose DAG to draw (`bbN`).
        #[arg(long, value_name = "bbN")]
        block: Option<String>,
        /// With `--what dag`: registers for the pebble game (1..=65536).
        #[arg(long, default_value_t = 3, value_parser = limits::registers())]
        regs: u32,
    },
    /// Allocate registers and print the allocated IR: registers as vars
    /// `%r0..`, spill slots in a `@spill.NAME` memory object.
    ///
    /// `--method pebble` (default) allocates the whole function by
    /// Belady's rule over global next-use distances (`--strategy global`),
    /// or plays the red-blue pebble game on each block's DAG with the
    /// global step (`--strategy blocks`); `--method briggs` is the
    /// Chaitin-Briggs baseline. Every allocation is checked symbolically
    /// before it is printed.
    ///
    /// Exit status: 0 on success, 1 on bad input (a parse or verifier error,
    /// a function the allocator cannot take, a failed check, or an
    /// unwritable output), 2 on bad usage.
    Regalloc(regalloc_cmd::RegallocArgs),
    /// Print a module in SSA form (all functions, or one).
    ///
    /// A WebAssembly module is imported first. Memory stays linear in the
    /// CFG (phi placement switches from frontier sets to subtree walks on
    /// deep loop nests). Minimal and semi-pruned placement stop at a budget
    /// of phi operands proportional to the function's size and place pruned
    /// phis instead (a note on stderr says so): the phis left out are dead.
    ///
    /// Exit status: 0 on success, 1 on bad input (or an unwritable output),
    /// 2 on bad usage.
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
    /// The iterative baseline needs blocks x definitions bits per function;
    /// over `--max-memory` it skips the function, saying so.
    ///
    /// Exit status: 0 on success; 1 on bad input, an unwritable output, a
    /// mismatch under `--verify`, or a function the chosen method skipped
    /// (`--method iterative`, or `--verify`); 2 on bad usage.
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
        /// Functions analysed in parallel (default and most: one per core,
        /// and never more than there are functions).
        #[arg(long, short = 'j', value_parser = limits::jobs())]
        jobs: Option<usize>,
    },
    /// Memory dependences over tensor descriptors: per read, the writes it
    /// may depend on, in the compact form (each read names its sets of
    /// writes, `S<k>`: the ones it must depend on, which it certainly
    /// overlaps, and the ones it may; each distinct set is printed once, as
    /// ranges of write ids `w<id>`), or with `--expand` one by one with the
    /// reason and, for loop-carried ones, their distance.
    ///
    /// FILE may be IR text or a WebAssembly module. `json` adds output and
    /// anti dependences and edge counts (compact: one object per line, in
    /// an array; shape in docs/memdep-json.md); `dot` draws the
    /// dependences over the CFG.
    ///
    /// Exit status: 0 on success, 1 on bad input (a parse, verifier or
    /// import error, a `--func` the module does not define, or an
    /// unwritable output), 2 on bad usage.
    Memdep {
        /// The IR file or `.wasm` module (`-` reads standard input).
        file: String,
        /// Only this function.
        #[arg(long)]
        func: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = memdep_cmd::Format::Text)]
        format: memdep_cmd::Format,
        /// Print every (read, write) pair with its reason and loop-carried
        /// distance (the document's table) instead of the compact form,
        /// where each read names its set of writes and each distinct set
        /// is printed once. The pairs can be quadratic in the accesses.
        #[arg(long)]
        expand: bool,
        /// Show, at memory instruction irN (the N-th in layout order, as in
        /// the other outputs), the definitions live on entry: per segment
        /// of each object it touches, and per definition where it is live,
        /// its killed intervals and what may have overwritten it (the
        /// document's tables). Needs `--func` unless the module has one
        /// function.
        #[arg(long, value_name = "irN", conflicts_with_all = ["expand", "format"])]
        explain: Option<String>,
    },
    /// Partial redundancy elimination: semantic PRE on the sparse value flow
    /// graph (default), lazy code motion or plain GVN; prints the module.
    ///
    /// Each function is put in SSA form first. After the transform, copies
    /// are forwarded and unused phis, copies and pure computations deleted
    /// (`--no-cleanup` keeps them). FILE may be IR text or a WebAssembly
    /// module. `--stats` adds computations removed and inserted, phis
    /// placed, created and deleted, what the clean-up forwarded and
    /// deleted, and phase times.
    ///
    /// Exit status: 0 on success, 1 on bad input or an unwritable output, 2
    /// on bad usage.
    Pre {
        /// The IR file or `.wasm` module (`-` reads standard input).
        file: String,
        /// Only this function.
        #[arg(long)]
        func: Option<String>,
        /// The transform.
        #[arg(long, value_enum, default_value_t = pre_cmd::PreMethod::Svfg)]
        method: pre_cmd::PreMethod,
        /// Take the result out of SSA form (`ssa::destruct`): phis become
        /// copies in the predecessors.
        #[arg(long)]
        destruct: bool,
        /// Rotate top-tested loops first (`keel rotate`): an invariant of a
        /// loop that may run zero times then moves into the guarded
        /// preheader.
        #[arg(long)]
        rotate: bool,
        /// Keep what the transform leaves unused: no copy forwarding, no
        /// deletion of unused phis, copies and pure computations (the
        /// clean-up of source document 001's last step, on by default).
        #[arg(long)]
        no_cleanup: bool,
        /// Add statistics.
        #[arg(long)]
        stats: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t = pre_cmd::Format::Text)]
        format: pre_cmd::Format,
    },
    /// Loop rotation: each top-tested natural loop becomes a guard plus a
    /// bottom-tested loop (its header duplicated onto its entry and back
    /// edges); prints the module.
    ///
    /// Left alone, and listed with `--stats`: irreducible loops, loops
    /// headed by the entry block, headers without a two-way top test,
    /// one-block loops, and a header next to another rotated header (run
    /// again for it). Exit status: 0 on success, 1 on bad input or an
    /// unwritable output, 2 on bad usage.
    Rotate {
        /// The IR file or `.wasm` module (`-` reads standard input).
        file: String,
        /// Only this function.
        #[arg(long)]
        func: Option<String>,
        /// Add, per function, the loops rotated and those left alone.
        #[arg(long)]
        stats: bool,
    },
    /// Import a WebAssembly module: IR text on stdout (or -o), a summary on stderr.
    ///
    /// A function that cannot be imported is listed and becomes an extern;
    /// only an invalid module is an error (exit 1).
    ///
    /// Exit status: 0 on success, 1 on an invalid module, a `--func` the
    /// module does not define, or an unwritable output; 2 on bad usage.
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
    ///
    /// Exit status: 0 on success, 1 on bad input (a parse, verifier, import,
    /// rule, vectorization or lowering error, or an unwritable output), 2 on
    /// bad usage.
    Vectorize(vectorize_cmd::VectorizeArgs),
    /// Check MLU assembly and print it in canonical form.
    ///
    /// Exit status: 0 on success, 1 on bad input (or an unwritable output),
    /// 2 on bad usage.
    Asm(asm_cmd::AsmArgs),
    /// Run MLU assembly on the simulator (results, statistics, trace).
    ///
    /// Exit status: 0 on success, 1 on bad input (or an unwritable output),
    /// 2 on bad usage, 3 on a trap or a detected race.
    Sim(sim_cmd::SimArgs),
    /// Compile a Keel IR function to MLU assembly (`--target mlu`).
    ///
    /// Exit status: 0 on success, 1 on bad input or a construct the MLU
    /// cannot express, 2 on bad usage.
    Compile(compile_cmd::CompileArgs),
    /// Compile for the MLU, simulate, and compare with the interpreter.
    ///
    /// Exit status: 0 when they agree, 1 on bad input, a compile error or a
    /// disagreement, 2 on bad usage, 3 when the interpreter traps and the
    /// compiled program traps too, or when the interpreter's trap is one the
    /// MLU need not reproduce (an undefined value: "not compared").
    RunMlu(run_mlu_cmd::RunMluArgs),
    /// Print an IR file in canonical form, keeping its comments.
    ///
    /// A comment on its own line stays with the item, var, block or
    /// instruction below it; a comment after code stays at the end of that
    /// line (from column 33).
    ///
    /// Exit status: 0 on success (with `--check`: the file is canonical), 1
    /// on bad input, an unwritable output, or (with `--check`) a file not in
    /// canonical form; 2 on bad usage.
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
    input::set_error_limit(cli.error_limit);
    budget::set(cli.max_memory);
    out::finish(|out| dispatch(cli.command, out))
}

/// Runs one subcommand, its output going to `out`.
fn dispatch(command: Command, out: &mut dyn Write) -> std::io::Result<ExitCode> {
    match command {
        Command::Check { files, ssa, quiet } => check(&files, ssa, quiet, out),
        Command::Fmt { file, check } => fmt(&file, check, out),
        Command::Asm(a) => asm_cmd::asm(&a, out),
        Command::Sim(a) => sim_cmd::sim(&a, out),
        Command::Compile(a) => compile_cmd::compile_cmd(&a, out),
        Command::RunMlu(a) => run_mlu_cmd::run_mlu(&a, out),
        Command::Ssa { file, func, placement, no_cleanup, destruct, stats } => {
            let policy = ssa::Policy::from_name(&placement).unwrap_or_default();
            ssa_cmd::ssa(&file, func.as_deref(), policy, !no_cleanup, destruct, stats, out)
        }
        Command::Du { file, func, method, verify, format, stats, jobs } => {
            du::du(&du::DuArgs { file, func, method, verify, format, stats, jobs, max_memory: budget::get() }, out)
        }
        Command::Import { module, output, func, no_names, quiet } => {
            import::import(&module, output.as_deref(), func, !no_names, quiet, out)
        }
        Command::Dot { file, func, what, insts, block, regs } => {
            dot::dot(&file, func.as_deref(), what, insts, block.as_deref(), regs, out)
        }
        Command::Regalloc(args) => match args.game.clone() {
            Some(block) => regalloc_cmd::game(&args, &block, out),
            None => regalloc_cmd::regalloc(&args, out),
        },
        Command::Memdep { file, func, format, expand, explain } => {
            memdep_cmd::run(&file, func.as_deref(), format, expand, explain.as_deref(), out)
        }
        Command::Rotate { file, func, stats } => pre_cmd::rotate(&file, func.as_deref(), stats, out),
        Command::Pre { file, func, method, destruct, rotate, no_cleanup, stats, format } => {
            let opts = pre_cmd::PreOptions { method, destruct, rotate, cleanup: !no_cleanup, stats, format };
            pre_cmd::pre(&file, func.as_deref(), &opts, out)
        }
        Command::Vectorize(a) => vectorize_cmd::vectorize(&a, out),
        Command::Gen(args) => {
            let line: Vec<String> = std::env::args().skip(1).collect();
            generate::generate_cmd(&args, &format!("keel {}", line.join(" ")), out)
        }
        Command::Run { file, func, args, mems, fuel, stats, show_mem } => run::run(
            &run::RunArgs {
                file,
                func,
                args,
                mems,
                fuel,
                stats,
                show_mem,
                max_memory: budget::get_or(budget::RUN_DEFAULT),
            },
            out,
        ),
    }
}

fn check(files: &[String], ssa: bool, quiet: bool, out: &mut dyn Write) -> std::io::Result<ExitCode> {
    let mut failed = false;
    for file in files {
        let Some(input) = Input::read(file) else {
            failed = true;
            continue;
        };
        let Some(input::Loaded { module, smap, .. }) = input.parse() else {
            failed = true;
            continue;
        };
        match verify_module(&module, &VerifyOptions { ssa }) {
            Ok(()) => {
                if !quiet {
                    let blocks: usize = module.functions().map(|(_, f)| f.layout().num_blocks()).sum();
                    let insts: usize = module.functions().map(|(_, f)| f.count_inserted_insts()).sum();
                    let fns = module.num_functions();
                    writeln!(
                        out,
                        "{}: ok ({fns} function{}, {blocks} block{}, {insts} instruction{})",
                        input.name,
                        plural(fns),
                        plural(blocks),
                        plural(insts)
                    )?;
                }
            }
            Err(errors) => {
                failed = true;
                input.report_verifier_errors(&module, &smap, &errors);
                let n = errors.0.len();
                eprintln!("{}: {n} error{}", input.name, plural(n));
            }
        }
    }
    Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

fn fmt(file: &str, check_only: bool, out: &mut dyn Write) -> std::io::Result<ExitCode> {
    let Some(input) = Input::read(file).and_then(Input::text_only) else {
        return Ok(ExitCode::FAILURE);
    };
    let Some(input::Loaded { module, smap, .. }) = input.parse() else {
        return Ok(ExitCode::FAILURE);
    };
    let comments = text::Comments::collect(input.text(), &module, &smap);
    let printed = text::print_module_with_comments(&module, &comments);
    if check_only {
        if printed == input.text() {
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!("{}: not in canonical form (run `keel fmt {}`)", input.name, input.name);
        return Ok(ExitCode::FAILURE);
    }
    out.write_all(printed.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
