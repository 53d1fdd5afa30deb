//! The differential oracle of the Keel IR → MLU compiler (feature `sim`).
//! [`run`] compiles a Keel function with [`compile`],
//! runs it on `mlu-sim` (cycle model, race detector in error mode) and runs
//! the same function on the reference interpreter (`ir_core::interp`, the
//! judge), then compares the results and the final contents of every
//! memory object. [`sync_removals`] is the sync-removal oracle: which syncs
//! and barriers of a compiled kernel are reached, and which the race
//! detector needs.
//!
//! It lives in the compiler's crate, behind the optional `sim` feature (a
//! dependency on `mlu-sim`): the simulator depends on the ISA crate alone,
//! so this edge is downward. `keel run-mlu`, the differential tests
//! (`tests/`) and the `mlu_compile` fuzz target all judge with it.
//!
//! Comparison: integers and bit-moving results bit for bit; floats bit for
//! bit except that any NaN equals any NaN (the IR leaves the sign and
//! payload of a produced NaN unspecified, docs/ir.md §6.7). When the
//! interpreter traps, the compiled program must trap too for the traps the
//! lowering reproduces (arithmetic, bounds, shapes, `trap`); a trap on an
//! undefined value is not reproduced (compiled registers start at zero) and
//! the run is reported as [`Verdict::Skipped`].
//!
//! Invariants: deterministic (the simulator and the interpreter are);
//! never panics: a module that does not compile is [`DiffError::Compile`]
//! (holding the [`CompileError`]), one the simulator refuses is
//! [`DiffError::Load`] (holding the `mlu_sim::LoadError`). A run's two
//! sides keep their traps typed: the interpreter's `ir_core::interp::Trap`
//! (`describe(module)` names the function and instruction) and the
//! simulator's `mlu_sim::Trap`.
//!
//! # Example
//!
//! ```
//! use ir_core::Imm;
//! use target_mlu::differential::{DiffOptions, run};
//!
//! let src = "func @f(%a: i32) -> i32 {\nbb0:\n    %a = mul %a, 3\n    ret %a\n}\n";
//! let (module, _) = ir_core::text::parse(src).unwrap();
//! let f = module.function_by_name("f").unwrap();
//! let args = [Imm::int(ir_core::Type::I32, 14)];
//! let run = run(&module, f, &args, &DiffOptions::default()).unwrap();
//! assert!(run.verdict.is_equal());
//! assert_eq!(run.simulated.as_ref().unwrap()[0].as_i64(), 42);
//! ```

use crate::compile::{CompileError, CompileOptions, Compiled, compile};
use ir_core::interp::{self, TrapKind};
use ir_core::{FuncId, Imm, Module, Type};
use mlu_isa::{Inst, MachineConfig, Program};
use mlu_sim::{Instance, LoadError, Mode, RaceMode, SimOptions, Simulator};

/// How to run.
#[derive(Clone, Debug)]
pub struct DiffOptions {
    /// The machine.
    pub config: MachineConfig,
    /// Compiler options.
    pub compile: CompileOptions,
    /// Interpreter fuel.
    pub interp_fuel: u64,
    /// Simulator fuel.
    pub sim_fuel: u64,
    /// Cycle model (else functional only).
    pub cycles: bool,
    /// Host memory, in bytes, each side may spend on the program's memory:
    /// the interpreter's objects and tensor temporaries
    /// (`ir_core::interp::Config::max_memory_bytes`) and the simulated
    /// memories ([`SimOptions::max_memory`]). Default 2 GiB.
    pub max_memory: u64,
}

impl Default for DiffOptions {
    fn default() -> DiffOptions {
        DiffOptions {
            config: MachineConfig::mlu370(),
            compile: CompileOptions::default(),
            interp_fuel: 100_000_000,
            sim_fuel: 1_000_000_000,
            cycles: true,
            max_memory: 2 << 30,
        }
    }
}

/// Why there is no comparison.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum DiffError {
    /// The compiler refused the function.
    Compile(CompileError),
    /// The simulator refused the program (or the arguments).
    Load(LoadError),
}

impl std::fmt::Display for DiffError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiffError::Compile(e) => write!(f, "compile error: {e}"),
            DiffError::Load(e) => write!(f, "the simulator refused the program: {e}"),
        }
    }
}

impl std::error::Error for DiffError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DiffError::Compile(e) => Some(e),
            DiffError::Load(e) => Some(e),
        }
    }
}

/// The outcome of a comparison.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Verdict {
    /// Same results and memory (or both trapped).
    Equal,
    /// They differ: one line per difference.
    Differ(Vec<String>),
    /// Not comparable (the interpreter trapped on something the lowering
    /// does not reproduce).
    Skipped(String),
}

impl Verdict {
    /// Whether the run agrees.
    pub fn is_equal(&self) -> bool {
        *self == Verdict::Equal
    }
}

/// Everything one differential run produced.
#[derive(Debug)]
pub struct DiffRun {
    /// The compiled kernel.
    pub compiled: Compiled,
    /// The interpreter's results, or its trap (`Trap::describe(module)`
    /// names the function and instruction).
    pub interpreted: Result<Vec<Imm>, interp::Trap>,
    /// The simulator's results, or its trap.
    pub simulated: Result<Vec<Imm>, mlu_sim::Trap>,
    /// Simulator statistics (when it finished).
    pub stats: Option<mlu_sim::Stats>,
    /// The comparison.
    pub verdict: Verdict,
}

/// Whether two values of `ty` agree (any NaN equals any NaN).
pub fn same_value(ty: Type, a: u64, b: u64) -> bool {
    if a == b {
        return true;
    }
    match ty {
        Type::F32 => f32::from_bits(a as u32).is_nan() && f32::from_bits(b as u32).is_nan(),
        Type::F64 => f64::from_bits(a).is_nan() && f64::from_bits(b).is_nan(),
        _ => false,
    }
}

/// The launch `compiled` needs: clusters and cores per cluster.
pub fn launch(compiled: &Compiled) -> (u32, u32) {
    let n = compiled.cores.max(1);
    (n.div_ceil(4), n.min(4))
}

/// `compiled`'s program with `args` as the initial contents of its
/// parameter object.
fn with_args(compiled: &Compiled, args: &[Imm]) -> Program {
    let mut program = compiled.program.clone();
    if let Some(m) = program.mem_by_name(&compiled.abi.args_object) {
        program.mems[m.index()].init = args.iter().map(|a| a.bits()).collect();
    }
    program
}

/// What removing one sync or barrier did (see [`sync_removals`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct SyncRemoval {
    /// The sync's (or barrier's) instruction index.
    pub at: usize,
    /// The run reaches it (replaced by `trap`, the run traps there).
    pub executed: bool,
    /// Replaced by `nop`, the race detector fires.
    pub fired: bool,
}

/// The sync-removal oracle: for each `sync` and `barrier` of `compiled`'s
/// program, whether
/// the run on `args` reaches it, and whether the program with that one sync
/// replaced by `nop` makes the simulator's race detector fire (functional
/// mode, the cores the kernel needs, `fuel` instructions). An executed sync whose removal
/// fires is needed; one whose removal stays silent is redundant on this
/// input.
pub fn sync_removals(
    compiled: &Compiled,
    args: &[Imm],
    config: &MachineConfig,
    fuel: u64,
) -> Result<Vec<SyncRemoval>, DiffError> {
    let (clusters, cores) = launch(compiled);
    let options = SimOptions {
        clusters,
        cores: Some(cores),
        mode: Mode::Functional,
        fuel,
        races: RaceMode::Error,
        ..SimOptions::default()
    };
    let program = with_args(compiled, args);
    let syncs = program.insts.iter().enumerate().filter(|(_, i)| matches!(i, Inst::Sync(_) | Inst::Barrier { .. }));
    let mut out = Vec::new();
    for (k, _) in syncs {
        let mut p = program.clone();
        let outcome = |p: &Program| -> Result<Option<mlu_sim::Trap>, DiffError> {
            Ok(Simulator::new(p, config, options.clone()).map_err(DiffError::Load)?.run().err())
        };
        p.insts[k] = Inst::Trap;
        // Reached: the run traps there (or, multi-core, the others then
        // wait for the trapped core at a barrier).
        let executed = outcome(&p)?.is_some_and(|t| {
            (t.kind == mlu_sim::TrapKind::TrapInstruction && t.pc == Some(k as u32))
                || t.kind == mlu_sim::TrapKind::Deadlock
        });
        p.insts[k] = Inst::Nop;
        let fired = outcome(&p)?.is_some_and(|t| t.kind == mlu_sim::TrapKind::Hazard);
        out.push(SyncRemoval { at: k, executed, fired });
    }
    Ok(out)
}

/// Compiles `func`, simulates it on `args`, interprets it on `args`, and
/// compares.
pub fn run(module: &Module, func: FuncId, args: &[Imm], options: &DiffOptions) -> Result<DiffRun, DiffError> {
    let compiled = compile(module, func, &options.config, &options.compile).map_err(DiffError::Compile)?;
    let interp_config =
        interp::Config { fuel: options.interp_fuel, max_memory_bytes: options.max_memory, ..interp::Config::default() };
    let interp_out = interp::run(module, func, args, interp_config);
    let (clusters, cores) = launch(&compiled);
    let sim_options = SimOptions {
        clusters,
        cores: Some(cores),
        mode: if options.cycles { Mode::Cycle } else { Mode::Functional },
        fuel: options.sim_fuel,
        races: RaceMode::Error,
        max_memory: options.max_memory,
        ..SimOptions::default()
    };
    let program = with_args(&compiled, args);
    let mut sim = Simulator::new(&program, &options.config, sim_options).map_err(DiffError::Load)?;
    let sim_out = sim.run();
    let returns = module.function(func).map(|f| f.signature().returns.clone()).unwrap_or_default();
    let stats = sim_out.as_ref().ok().map(|o| o.stats.clone());
    let simulated: Result<Vec<Imm>, mlu_sim::Trap> = sim_out.map(|_| {
        let bits = sim.read(&compiled.abi.results_object, Instance::Global).unwrap_or_default();
        returns.iter().zip(bits).map(|(&t, b)| Imm::from_bits(t, b)).collect()
    });
    let verdict = match (&interp_out, &simulated) {
        (Err(trap), sim) => match trap.kind {
            TrapKind::DivisionByZero
            | TrapKind::IntegerOverflow
            | TrapKind::InvalidConversion
            | TrapKind::OutOfBounds
            | TrapKind::ShapeMismatch
            | TrapKind::Trap => match sim {
                Err(_) => Verdict::Equal,
                Ok(_) => Verdict::Differ(vec![format!(
                    "the interpreter trapped ({}) but the compiled program finished",
                    trap.describe(module)
                )]),
            },
            _ => Verdict::Skipped(format!("the interpreter trapped: {}", trap.describe(module))),
        },
        (Ok(_), Err(t)) => Verdict::Differ(vec![format!("the compiled program trapped: {t}")]),
        (Ok(out), Ok(results)) => {
            let mut diffs = Vec::new();
            for (i, ((a, b), &t)) in out.results.iter().zip(results).zip(&returns).enumerate() {
                if !same_value(t, a.bits(), b.bits()) {
                    diffs.push(format!("result {i}: interpreter {a:?}, simulator {b:?}"));
                }
            }
            for (m, obj) in module.mems() {
                let name = &compiled.program.mems[m.as_u32() as usize].name;
                let instance = match obj.space {
                    ir_core::MemSpace::Dram => Instance::Global,
                    ir_core::MemSpace::Sram => Instance::Cluster(0),
                    _ => Instance::Core(0),
                };
                let want: Vec<u64> = out.memory.elements(m).iter().map(|v| v.bits()).collect();
                let got = sim.read(name, instance).unwrap_or_default();
                if want.len() != got.len() {
                    diffs.push(format!("@{}: {} elements, simulator has {}", obj.name, want.len(), got.len()));
                    continue;
                }
                let bad: Vec<usize> =
                    (0..want.len()).filter(|&k| !same_value(obj.elem, want[k], got[k])).take(4).collect();
                for k in bad {
                    diffs.push(format!(
                        "@{}[{k}]: interpreter {:?}, simulator {:?}",
                        obj.name,
                        Imm::from_bits(obj.elem, want[k]),
                        Imm::from_bits(obj.elem, got[k])
                    ));
                }
            }
            if diffs.is_empty() { Verdict::Equal } else { Verdict::Differ(diffs) }
        }
    };
    let interpreted = interp_out.map(|o| o.results);
    Ok(DiffRun { compiled, interpreted, simulated, stats, verdict })
}
