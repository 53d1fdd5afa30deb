//! Compiling Keel IR to the MLU: `compile(module, func, config, options)`
//! lowers one Keel function (and every module function it calls, inlined)
//! to a [`Program`] the simulator runs, with a [`Report`].
//!
//! The default compile (`CompileOptions::default()`) is the three slices
//! of issue 17 together: slice 1 lowers every construct the ISA expresses,
//! slice 2 allocates registers with `regalloc-pebble`, and slice 3 places
//! syncs and barriers from `memdep`'s dependences (module `syncs`),
//! double-buffers tile loops whose buffer sets the red-blue pebble game
//! sizes (`maps`), fuses runs of maps into one tile DAG (`fuse`) and, with
//! [`CompileOptions::cores`], splits the kernel over cores (`split`).
//! [`CompileOptions::naive`] is issue 17's baseline, its "naive lowering
//! (no double buffering, a sync after every DMA, one buffer per tensor)":
//! a sync after every copy and every compute instruction
//! ([`SyncPolicy::Naive`]), one buffer per tensor slot and no fusion, with
//! registers still from [`CompileOptions::allocator`]. The parts:
//!
//! - **Scalar code** ([`lower`]): every Keel var is a virtual register;
//!   arithmetic, compares, selects and conversions map one to one (the ISA's
//!   semantics are Keel's); branches, loops and `switch` become `br`/`jmp`
//!   chains; phis become parallel copies on their edges (critical edges get
//!   a stub); a guarded instruction becomes a branch around it (with its
//!   `else` fallbacks copied on the other side); `trap` is `trap`.
//! - **Calls** between module functions are inlined: each call site gets its
//!   own copy of the callee's body, laid out after the caller's code and
//!   reached by `jmp` (the ISA has no indirect jump, so there is no
//!   return-address convention). Recursion, externs and intrinsics are
//!   compile errors naming the instruction.
//! - **Memory** ([`place`]): each Keel object becomes an object of the same
//!   name, type, length, space and initial values, placed in declaration
//!   order with the ISA's alignment (128 bytes; WRAM 64). Exceeding a
//!   space's capacity is an error naming every object and its size.
//! - **Tensor ops** ([`tensor`]): operands are staged through NRAM
//!   buffers, tile by tile (tile = buffer bytes / element size, a multiple
//!   of 64 elements). A map's buffer set is the fewest buffers whose
//!   red-blue pebbling reaches the DMA lower bound, and there are two sets
//!   (double buffering) when `memdep` proves consecutive tiles independent
//!   (`maps`); a run of maps over the same elements is one fused tile loop
//!   (`fuse`); with [`CompileOptions::naive`], one buffer per tensor slot.
//!   `matmul` stages A and C whole in NRAM and B in
//!   WRAM. Sources that may overlap the destination's object at another
//!   offset are first copied whole to a DRAM temporary (the IR's
//!   read-before-write rule). Descriptors with var parts get the
//!   interpreter's bounds and shape checks (a failed check jumps to `trap`).
//! - **Scalar access** to WRAM and tensor operands that would need a
//!   WRAM→NRAM copy are compile errors: the machine has no such path.
//! - **Syncs and barriers** (`syncs`): a `sync` of a pipe goes right before
//!   the first instruction that `memdep` says depends on an access still
//!   in flight on it, and a barrier between the regions of a multi-core
//!   kernel that may touch the same memory; with
//!   [`CompileOptions::naive`], the emitter puts a sync after every copy
//!   and every compute instruction instead.
//! - **Multi-core** (`split`, [`CompileOptions::cores`]): SPMD code whose
//!   independent tile loops are shared out by `%taskid`; other shared
//!   writes run on core 0.
//! - **Registers** ([`regalloc`]): the lowering produces virtual-register
//!   code; an [`Allocator`] maps it to the configuration's GPRs. Slice 2
//!   makes `regalloc-pebble` the default ([`PebbleAllocator`], module
//!   [`pebble`]: red-blue pebbling per block, values kept in registers
//!   across edges, moves on split edges); slice 1's [`HomeAllocator`]
//!   (each virtual register gets one home for the whole function: a GPR by
//!   use count, otherwise an NRAM spill slot, with reserved scratch
//!   registers for reloads) stays as the baseline
//!   ([`CompileOptions::allocator`]). [`check_allocation`] verifies every
//!   allocation symbolically (regalloc2's checker idea) and runs on every
//!   compile in debug builds (within [`MAX_STATE`] abstract-state entries;
//!   a larger function is compiled unchecked unless
//!   [`CompileOptions::check`] asks, which then makes it an error).
//!
//! **Calling convention** of the compiled kernel: parameter `i` is read from
//! `@keel.args[i]` (a DRAM `i64` object) and result `i` is written to
//! `@keel.ret[i]`, both as the canonical 64-bit register form of their type
//! (`ir_core::Imm::bits`); see [`Abi`].
//!
//! **Module layering.** Every dependency between the modules goes one way.
//! This module is the driver: it defines [`compile`], [`compile_with`] and
//! [`Compiled`], declares the others and re-exports their public items,
//! and calls the passes in order (lowering, `syncs`, the allocator, the
//! checker, [`place`], the report); no module calls back into it. What
//! several modules share lives in leaves that depend on nothing else in
//! the compiler: `placed` ([`Placed`], [`PlacedKind`]), `error`
//! ([`CompileError`], [`AllocError`]; it names `placed` only), `options`
//! ([`CompileOptions`], [`SyncPolicy`], [`AllocatorChoice`]), `abi`
//! ([`Abi`], [`ARGS_OBJECT`], [`RESULTS_OBJECT`]) and `cores` (a
//! multi-core kernel's regions and barrier, which the lowering records and
//! `syncs` reads). The lowering is a stack of modules adding methods to
//! one state, each using only those below it, with [`lower`] on top
//! (module `lowerer` documents the order). `blocks` (blocks, leaders and
//! CFG of compiled code) sits below the allocators, the checker and
//! `syncs`.
//!
//! Invariants: the result is deterministic (no hash-order output); compile
//! never panics on a verified module, and an unverified one is refused with
//! the verifier's errors ([`CompileError::NotVerified`]). Every failure is a
//! [`CompileError`] variant holding the entity as data: the instruction's
//! [`Site`] (function, block, instruction), the object, the opcode, the
//! sizes and limits, or the refusing crate's own error (kept typed, and
//! returned by `source()`).
//!
//! # Example
//!
//! ```
//! use mlu_isa::{MachineConfig, text, verify};
//! use target_mlu::compile::{CompileOptions, compile};
//!
//! let src = "mem @x: f32[256] dram\n\nfunc @scale(%a: f32) {\nbb0:\n    tmul @x[0, 256], @x[0, 256], %a\n    ret\n}\n";
//! let (module, _) = ir_core::text::parse(src).unwrap();
//! let f = module.function_by_name("scale").unwrap();
//! let config = MachineConfig::mlu370();
//! let compiled = compile(&module, f, &config, &CompileOptions::default()).unwrap();
//! verify(&compiled.program, &config).unwrap();
//! let asm = text::print_program(&compiled.program);
//! assert!(asm.contains("vmul.f32 nram[@keel.stage0]"));
//! assert_eq!(compiled.abi.args_object, "keel.args");
//! ```

mod abi;
mod access;
mod blocks;
mod checker;
mod control;
mod cores;
mod emit;
mod error;
mod fuse;
pub mod lower;
mod lowerer;
mod maps;
mod options;
pub mod pebble;
pub mod place;
mod placed;
pub mod regalloc;
mod report;
mod split;
mod staging;
mod syncs;
pub mod tensor;

pub use abi::{ARGS_OBJECT, Abi, RESULTS_OBJECT};
pub use checker::{MAX_STATE, check_allocation};
pub use emit::{MAX_INSTS, MAX_VREGS, SyncNote};
pub use error::{AllocError, AllocErrorKind, BufferPlanError, CompileError, CopyOf, Site, Unlowerable};
pub use options::{AllocatorChoice, CompileOptions, SyncPolicy};
pub use pebble::PebbleAllocator;
pub use place::{Placed, PlacedKind};
pub use regalloc::{Allocation, Allocator, HomeAllocator, Origin, VirtualCode};
pub use report::Report;

use crate::planted::{Bug, planted};
use ir_core::{FuncId, Module};
use mlu_isa::{MachineConfig, Program};

/// A compiled kernel.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The program, over physical registers; it verifies for the
    /// configuration.
    pub program: Program,
    /// Where parameters and results go.
    pub abi: Abi,
    /// Placement, buffers, syncs, registers and a static cost estimate.
    pub report: Report,
    /// Cores to launch: the split kernel's count, or 1 (a single-core
    /// kernel is also right on more: every core but task 0 exits).
    pub cores: u32,
}

/// Compiles `func` of `module` for `config` as `options` says (by default:
/// syncs and barriers from `memdep`'s dependences, double buffering and
/// fused maps, one core; [`CompileOptions::naive`] for issue 17's
/// baseline), with the allocator `options.allocator` names
/// ([`PebbleAllocator`] by default; under the planted bug `SharedHome`,
/// tests only, [`HomeAllocator`]).
pub fn compile(
    module: &Module,
    func: FuncId,
    config: &MachineConfig,
    options: &CompileOptions,
) -> Result<Compiled, CompileError> {
    if options.allocator == AllocatorChoice::Home || planted(Bug::SharedHome) {
        compile_with(module, func, config, options, &mut HomeAllocator)
    } else {
        compile_with(module, func, config, options, &mut PebbleAllocator { check: options.check, ..Default::default() })
    }
}

/// The most bytes any tensor operand of `module` may cover: its object's
/// size, or less when the descriptor's size is an immediate.
fn largest_operand_bytes(module: &Module) -> u64 {
    let mut most = 0u64;
    for (_, f) in module.functions() {
        for b in f.blocks() {
            for i in f.block_insts(b) {
                for slot in f.tensor_slots(i) {
                    let ir_core::Slot::Desc(d) = slot else { continue };
                    let Some(obj) = module.mem(d.mem) else { continue };
                    let elem = lower::ty(obj.elem).bytes();
                    let mut bytes = obj.len.saturating_mul(elem);
                    if let Some(n) = d.size.as_const().and_then(|c| f.imm(c)) {
                        bytes = bytes.min(n.as_u64().saturating_mul(elem));
                    }
                    most = most.max(bytes);
                }
            }
        }
    }
    most
}

/// Compiles with a given register allocator.
pub fn compile_with(
    module: &Module,
    func: FuncId,
    config: &MachineConfig,
    options: &CompileOptions,
    allocator: &mut dyn Allocator,
) -> Result<Compiled, CompileError> {
    config.validate().map_err(CompileError::Config)?;
    ir_core::verify_module(module, &ir_core::VerifyOptions::default()).map_err(CompileError::NotVerified)?;
    let f = module.function(func).ok_or(CompileError::NoSuchFunction { func })?;
    let cores = options.cores.max(1);
    if cores > config.cores() || (cores > 4 && !cores.is_multiple_of(4)) {
        return Err(CompileError::CoreCount { cores, machine: config.cores() });
    }
    let tiles: Vec<u64> = match options.tile_bytes {
        Some(t) => {
            if t < 512 || t % 512 != 0 {
                return Err(CompileError::TileSize { bytes: t });
            }
            vec![t]
        }
        None => {
            // No buffer larger than the largest tensor operand needs.
            let cap = largest_operand_bytes(module).next_power_of_two();
            [65536, 32768, 16384, 8192, 4096, 2048, 1024, 512].into_iter().filter(|&t| t <= cap.max(512)).collect()
        }
    };
    let mut last = None;
    for (i, &tile) in tiles.iter().enumerate() {
        let mut lowered = lower::lower(module, func, config, tile, options)?;
        if options.syncs == SyncPolicy::Dependences {
            lowered.syncs =
                syncs::place_syncs(&mut lowered.program, lowered.vregs, lowered.cores.as_ref(), options.max_memory)?;
        }
        let given = VirtualCode { program: lowered.program, vregs: lowered.vregs };
        let mut alloc = allocator.allocate(&given, config)?;
        // The allocation implements the code as the allocator renamed it.
        let vcode = alloc.renamed.take().unwrap_or(given);
        if cfg!(debug_assertions) || options.check {
            // Debug builds check what fits the checker's budget; asked for
            // explicitly, a check that cannot run is an error too.
            if let Err(e) = check_allocation(&vcode, &alloc)
                && (options.check || !matches!(e.kind, AllocErrorKind::TooLarge { .. }))
            {
                return Err(CompileError::WrongAllocation(e));
            }
        }
        match place::place(&mut alloc.program, config, &lowered.kinds) {
            Ok(placed) => {
                let abi = Abi {
                    args_object: ARGS_OBJECT.into(),
                    results_object: RESULTS_OBJECT.into(),
                    params: f.signature().params.iter().map(|&t| lower::ty(t)).collect(),
                    returns: f.signature().returns.iter().map(|&t| lower::ty(t)).collect(),
                };
                let launch = lowered.cores.as_ref().map_or(1, |c| c.count);
                let mut report = Report::new(&alloc, &vcode, placed, lowered.syncs, lowered.buffering, tile, config);
                report.cores = lowered.cores_note;
                return Ok(Compiled { program: alloc.program, abi, report, cores: launch });
            }
            Err(e) => {
                // Only the staging buffers shrink; retry smaller if there is room to.
                if !e.retry || i + 1 == tiles.len() {
                    return Err(e.error);
                }
                last = Some(e.error);
            }
        }
    }
    Err(last.unwrap_or(CompileError::NoTileFits))
}
