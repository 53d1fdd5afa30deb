//! The module level: parsing and validating the sections, naming and
//! creating the IR's memory objects and externs, translating every body,
//! and assembling the `ir-core` module.
//!
//! Invariants:
//! - wasmparser validates every payload before it is used, and every
//!   function body operator before the translator sees it; any validation
//!   or decoding error is a [`ModuleError`] for the whole module.
//! - The IR module is built in one fixed order (memories, globals and data
//!   segments as memory objects; imported functions as externs; defined
//!   functions in index order; then the functions that failed, as externs),
//!   so the output is a function of the input bytes and the options alone.
//! - A function that fails to translate becomes an `extern` of the same name
//!   and signature, and calls to it are rewritten to call that extern, so
//!   every other function still imports and verifies.

use crate::error::{FuncError, FuncErrorKind, ModuleError};
use crate::names::{NameSection, Namespace};
use crate::options::{ImportOptions, MemorySize};
use crate::report::{FuncReport, Import};
use crate::translate::{GlobalEnv, MemEnv, ModuleEnv, Pre, Translator, flatten, param_names};
use ir_core::{Callee, FuncId, Function, FunctionBuilder, Imm, MemSpace, Module, Opcode, Signature, Type};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use wasmparser::{
    BinaryReaderError, CompositeInnerType, ConstExpr, Data, DataKind, Encoding, ExternalKind, FuncToValidate, FuncType,
    FuncValidatorAllocations, FunctionBody, GlobalType, KnownCustom, MemoryType, Operator, Parser, Payload, TypeRef,
    ValidPayload, Validator, ValidatorResources, WasmFeatures,
};

/// The proposals the importer accepts: WebAssembly 2.0 (sign extension,
/// non-trapping conversions, bulk memory, multi-value, reference types,
/// SIMD) plus what common toolchains emit beyond it (tail calls, extended
/// constants, multiple and 64-bit memories, threads, relaxed SIMD,
/// exceptions). Operators the translator cannot express fail their
/// function, not the module.
fn features() -> WasmFeatures {
    WasmFeatures::WASM2
        | WasmFeatures::TAIL_CALL
        | WasmFeatures::EXTENDED_CONST
        | WasmFeatures::MULTI_MEMORY
        | WasmFeatures::MEMORY64
        | WasmFeatures::THREADS
        | WasmFeatures::RELAXED_SIMD
        | WasmFeatures::EXCEPTIONS
        | WasmFeatures::LEGACY_EXCEPTIONS
        | WasmFeatures::WIDE_ARITHMETIC
}

fn invalid(e: BinaryReaderError) -> ModuleError {
    ModuleError::Invalid { offset: e.offset() as usize, message: e.message().to_string() }
}

enum GlobalDef<'a> {
    Imported(GlobalType),
    Defined(GlobalType, ConstExpr<'a>),
}

/// Everything read from the binary.
pub(crate) struct Parsed<'a> {
    types: Vec<Option<FuncType>>,
    func_types: Vec<u32>,
    pub(crate) func_imports: Vec<(&'a str, &'a str)>,
    memories: Vec<(MemoryType, bool)>,
    globals: Vec<GlobalDef<'a>>,
    data: Vec<Data<'a>>,
    exports: FxHashMap<(u8, u32), &'a str>,
    start: Option<u32>,
    pub(crate) bodies: Vec<(FuncToValidate<ValidatorResources>, FunctionBody<'a>)>,
    names: NameSection<'a>,
}

fn kind_key(kind: ExternalKind) -> u8 {
    match kind {
        ExternalKind::Func | ExternalKind::FuncExact => 0,
        ExternalKind::Table => 1,
        ExternalKind::Memory => 2,
        ExternalKind::Global => 3,
        ExternalKind::Tag => 4,
    }
}

/// Parses and validates everything but the function bodies (validated
/// while they are translated).
pub(crate) fn parse(bytes: &[u8]) -> Result<Parsed<'_>, ModuleError> {
    let mut p = Parsed {
        types: Vec::new(),
        func_types: Vec::new(),
        func_imports: Vec::new(),
        memories: Vec::new(),
        globals: Vec::new(),
        data: Vec::new(),
        exports: FxHashMap::default(),
        start: None,
        bodies: Vec::new(),
        names: NameSection::default(),
    };
    let mut validator = Validator::new_with_features(features());
    for payload in Parser::new(0).parse_all(bytes) {
        let payload = payload.map_err(invalid)?;
        match validator.payload(&payload).map_err(invalid)? {
            ValidPayload::Ok | ValidPayload::End(_) => {}
            ValidPayload::Func(f, body) => p.bodies.push((f, body)),
            ValidPayload::Parser(_) => {
                let offset = payload.as_section().map_or(0, |(_, range)| range.start as usize);
                return Err(ModuleError::Nested { offset });
            }
        }
        match payload {
            Payload::Version { encoding: Encoding::Component, range, .. } => {
                return Err(ModuleError::Component { offset: range.start as usize });
            }
            Payload::TypeSection(reader) => {
                for group in reader {
                    for sub in group.map_err(invalid)?.into_types() {
                        p.types.push(match sub.composite_type.inner {
                            CompositeInnerType::Func(f) => Some(f),
                            _ => None,
                        });
                    }
                }
            }
            Payload::ImportSection(reader) => {
                for import in reader.into_imports() {
                    let import = import.map_err(invalid)?;
                    match import.ty {
                        TypeRef::Func(t) | TypeRef::FuncExact(t) => {
                            p.func_types.push(t);
                            p.func_imports.push((import.module, import.name));
                        }
                        TypeRef::Memory(m) => p.memories.push((m, true)),
                        TypeRef::Global(g) => p.globals.push(GlobalDef::Imported(g)),
                        TypeRef::Table(_) | TypeRef::Tag(_) => {}
                    }
                }
            }
            Payload::FunctionSection(reader) => {
                for t in reader {
                    p.func_types.push(t.map_err(invalid)?);
                }
            }
            Payload::MemorySection(reader) => {
                for m in reader {
                    p.memories.push((m.map_err(invalid)?, false));
                }
            }
            Payload::GlobalSection(reader) => {
                for g in reader {
                    let g = g.map_err(invalid)?;
                    p.globals.push(GlobalDef::Defined(g.ty, g.init_expr));
                }
            }
            Payload::ExportSection(reader) => {
                for e in reader {
                    let e = e.map_err(invalid)?;
                    p.exports.entry((kind_key(e.kind), e.index)).or_insert(e.name);
                }
            }
            Payload::StartSection { func, .. } => p.start = Some(func),
            Payload::DataSection(reader) => {
                for d in reader {
                    p.data.push(d.map_err(invalid)?);
                }
            }
            Payload::CustomSection(c) => {
                if let KnownCustom::Name(names) = c.as_known() {
                    p.names.read(names);
                }
            }
            _ => {}
        }
    }
    Ok(p)
}

/// Evaluates a constant expression to its IR parts, if it is constant
/// (`global.get` of a global whose value is unknown is not).
fn eval_const(expr: &ConstExpr<'_>, globals: &[Option<SmallVec<[Imm; 2]>>]) -> Option<SmallVec<[Imm; 2]>> {
    let mut stack: SmallVec<[Imm; 4]> = SmallVec::new();
    let mut reader = expr.get_operators_reader();
    while !reader.eof() {
        let op = reader.read().ok()?;
        if let Some(parts) = crate::generic::constant_parts(&op) {
            stack.extend(parts);
            continue;
        }
        match op {
            Operator::GlobalGet { global_index } => {
                stack.extend(globals.get(global_index as usize)?.as_ref()?.iter().copied());
            }
            Operator::I32Add
            | Operator::I32Sub
            | Operator::I32Mul
            | Operator::I64Add
            | Operator::I64Sub
            | Operator::I64Mul => {
                let b = stack.pop()?;
                let a = stack.pop()?;
                let (x, y) = (a.as_i64(), b.as_i64());
                let v = match op {
                    Operator::I32Add | Operator::I64Add => x.wrapping_add(y),
                    Operator::I32Sub | Operator::I64Sub => x.wrapping_sub(y),
                    _ => x.wrapping_mul(y),
                };
                stack.push(Imm::int(a.ty(), v));
            }
            Operator::End => break,
            _ => return None,
        }
    }
    Some(stack.into_iter().collect())
}

/// Pages to bytes, saturating.
fn pages_to_bytes(pages: u64, ty: &MemoryType) -> u64 {
    let log2 = ty.page_size_log2.unwrap_or(16).min(63);
    pages.saturating_mul(1u64 << log2)
}

struct Skeleton {
    module: Module,
    env: ModuleEnv,
    func_names: Vec<String>,
    sigs: Vec<Signature>,
    notes: Vec<String>,
}

/// Creates the memory objects and externs and names everything.
fn skeleton(p: &Parsed<'_>, options: &ImportOptions) -> Result<Skeleton, ModuleError> {
    let mut ns = Namespace::default();
    let mut notes = Vec::new();
    let n_imports = p.func_imports.len();
    let use_names = options.use_names;
    let name_of = |map: &FxHashMap<u32, &'_ str>, i: u32| -> Option<String> {
        if use_names { map.get(&i).map(|s| s.to_string()) } else { None }
    };
    let export_of = |kind: u8, i: u32| p.exports.get(&(kind, i)).map(|s| s.to_string());

    // Function names: the name section, else an export, else the import's
    // `module.field`, else `funcN`.
    let mut func_names = Vec::with_capacity(p.func_types.len());
    for i in 0..p.func_types.len() {
        let index = i as u32;
        let fallback = match p.func_imports.get(i) {
            Some((m, f)) => format!("{m}.{f}"),
            None => format!("func{index}"),
        };
        let named = name_of(&p.names.functions, index);
        let exported = export_of(0, index);
        func_names.push(ns.claim([named.as_deref(), exported.as_deref()].into_iter().flatten(), &fallback));
    }

    let mut sigs = Vec::with_capacity(p.func_types.len());
    for (i, &t) in p.func_types.iter().enumerate() {
        let ty = p
            .types
            .get(t as usize)
            .and_then(Option::as_ref)
            .ok_or(ModuleError::NotAFunctionType { func: i as u32, ty: t })?;
        sigs.push(Signature::new(flatten(ty.params()).to_vec(), flatten(ty.results()).to_vec()));
    }

    let mut module = Module::new();

    // Linear memories: `i8` objects, initialised from the active data
    // segments with constant offsets.
    let mut memories = Vec::with_capacity(p.memories.len());
    let mut images: Vec<Vec<u8>> = Vec::with_capacity(p.memories.len());
    for (m, (ty, imported)) in p.memories.iter().enumerate() {
        let index = m as u32;
        let pages = match options.memory_size {
            MemorySize::Initial => ty.initial,
            MemorySize::Maximum => ty.maximum.unwrap_or(ty.initial),
        };
        let full = pages_to_bytes(pages, ty);
        let cap = options.max_memory_bytes.min(ir_core::MAX_MEM_LEN);
        let len = full.min(cap);
        if len < full {
            notes.push(format!("memory {index}: {full} bytes capped to {len}"));
        }
        if *imported {
            notes.push(format!("memory {index} is imported: its initial contents are unknown (zero here)"));
        }
        let fallback = if index == 0 { "memory".to_string() } else { format!("memory{index}") };
        let named = name_of(&p.names.memories, index);
        let exported = export_of(2, index);
        let name = ns.claim([named.as_deref(), exported.as_deref()].into_iter().flatten(), &fallback);
        let mem = module.add_mem(&name, Type::I8, len, MemSpace::Dram).map_err(ModuleError::Internal)?;
        memories.push(MemEnv { mem, memory64: ty.memory64, len });
        images.push(Vec::new());
    }

    // Globals: constants fold; the rest are one-element objects (two for
    // a `v128`).
    let mut values: Vec<Option<SmallVec<[Imm; 2]>>> = Vec::with_capacity(p.globals.len());
    let mut globals = Vec::with_capacity(p.globals.len());
    for (g, def) in p.globals.iter().enumerate() {
        let index = g as u32;
        let (ty, value) = match def {
            GlobalDef::Imported(ty) => (ty, None),
            GlobalDef::Defined(ty, init) => (ty, eval_const(init, &values)),
        };
        let types: SmallVec<[Type; 2]> = flatten(&[ty.content_type]).into_iter().collect();
        let known = value.as_ref().filter(|v| v.len() == types.len()).cloned();
        values.push(if ty.mutable { None } else { known.clone() });
        if !ty.mutable
            && let Some(v) = known.clone()
        {
            globals.push(GlobalEnv::Const(v));
            continue;
        }
        match def {
            GlobalDef::Imported(_) => {
                notes.push(format!("global {index} is imported: its value is unknown (zero here)"));
            }
            GlobalDef::Defined(..) if known.is_none() => {
                notes.push(format!("global {index}: initial value not constant (zero here)"));
            }
            GlobalDef::Defined(..) => {}
        }
        let named = name_of(&p.names.globals, index);
        let exported = export_of(3, index);
        let name = ns.claim([named.as_deref(), exported.as_deref()].into_iter().flatten(), &format!("global{index}"));
        let mem = module.add_mem(&name, types[0], types.len() as u64, MemSpace::Dram).map_err(ModuleError::Internal)?;
        if let Some(v) = known {
            module.set_mem_init(mem, v.to_vec());
        }
        globals.push(GlobalEnv::Mem(mem, types));
    }

    // Data segments: active ones with constant offsets fill the memory
    // images; passive ones get objects of their own for `memory.init`.
    let mut data = Vec::with_capacity(p.data.len());
    for (d, seg) in p.data.iter().enumerate() {
        let index = d as u32;
        match &seg.kind {
            DataKind::Passive => {
                let named = name_of(&p.names.data, index);
                let name = ns.claim(named.as_deref(), &format!("data{index}"));
                let len = seg.data.len() as u64;
                let mem = module.add_mem(&name, Type::I8, len, MemSpace::Dram).map_err(ModuleError::Internal)?;
                module.set_mem_init(mem, seg.data.iter().map(|&b| Imm::int(Type::I8, i64::from(b))).collect());
                data.push(Some((mem, len)));
            }
            DataKind::Active { memory_index, offset_expr } => {
                data.push(None);
                if !options.data_segments {
                    continue;
                }
                let m = *memory_index as usize;
                let Some(mem) = memories.get(m) else { continue };
                let offset = eval_const(offset_expr, &values).and_then(|v| v.first().map(|i| i.as_u64()));
                let Some(offset) = offset else {
                    notes.push(format!("data segment {index}: offset not constant; not placed"));
                    continue;
                };
                let end = offset.checked_add(seg.data.len() as u64);
                match end {
                    Some(end) if end <= mem.len && end <= options.max_init_bytes => {
                        let image = &mut images[m];
                        if (image.len() as u64) < end {
                            image.resize(end as usize, 0);
                        }
                        image[offset as usize..end as usize].copy_from_slice(seg.data);
                    }
                    _ => notes.push(format!(
                        "data segment {index}: {} bytes at {offset} do not fit the memory or the initial-value limit; not placed",
                        seg.data.len()
                    )),
                }
            }
        }
    }
    for (mem, image) in memories.iter().zip(images) {
        if !image.is_empty() {
            module.set_mem_init(mem.mem, image.into_iter().map(|b| Imm::int(Type::I8, i64::from(b as i8))).collect());
        }
    }

    // Imported functions are externs.
    let mut callees = Vec::with_capacity(p.func_types.len());
    for i in 0..n_imports {
        let e = module.add_extern(&func_names[i], sigs[i].clone()).map_err(ModuleError::Internal)?;
        callees.push(Callee::Ext(e));
    }
    for k in 0..p.bodies.len() {
        callees.push(Callee::Func(FuncId::from_u32(k as u32)));
    }

    let env = ModuleEnv { types: p.types.clone(), func_types: p.func_types.clone(), callees, memories, globals, data };
    Ok(Skeleton { module, env, func_names, sigs, notes })
}

/// Translates one body: `Ok(Err(..))` when the function cannot be
/// imported, `Err` when the module is invalid.
#[allow(clippy::too_many_arguments)]
fn translate_body(
    env: &ModuleEnv,
    p: &Parsed<'_>,
    k: usize,
    name: &str,
    sig: &Signature,
    forced: Option<&FuncErrorKind>,
    allocs: &mut Option<FuncValidatorAllocations>,
) -> Result<Result<Function, FuncError>, ModuleError> {
    let (to_validate, body) = &p.bodies[k];
    let index = to_validate.index;
    let ty = env
        .types
        .get(to_validate.ty as usize)
        .and_then(Option::as_ref)
        .ok_or(ModuleError::NoFunctionType { func: index })?;
    let to_validate = FuncToValidate {
        resources: to_validate.resources.clone(),
        index,
        ty: to_validate.ty,
        features: to_validate.features,
    };
    let mut validator = to_validate.into_validator(allocs.take().unwrap_or_default());
    let local_names = p.names.locals.get(&index);
    let names = param_names(ty.params(), local_names);
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut func = Function::new(name, sig.clone(), &name_refs);
    let mut failure = forced.map(|why| FuncError { offset: body.range().start as usize, kind: why.clone() });
    {
        let mut tx = if failure.is_none() { Some(Translator::new(env, &mut func, ty, local_names)) } else { None };
        let mut locals = body.get_locals_reader().map_err(invalid)?;
        for _ in 0..locals.get_count() {
            let offset = locals.original_position();
            let (count, t) = locals.read().map_err(invalid)?;
            validator.define_locals(offset, count, t).map_err(invalid)?;
            if let Some(tx) = tx.as_mut() {
                tx.add_locals(count, t);
            }
        }
        let mut reader = body.get_operators_reader().map_err(invalid)?;
        while !reader.eof() {
            let (op, offset) = reader.read_with_offset().map_err(invalid)?;
            let pre = match &tx {
                Some(t) if t.live() && Pre::wanted(&op) => Some(Pre::capture(&op, &mut validator, offset)),
                _ => None,
            };
            validator.op(offset, &op).map_err(invalid)?;
            if let Some(t) = tx.as_mut()
                && let Err(kind) = t.op(&op, pre.as_ref(), &validator)
            {
                failure = Some(FuncError { offset: offset as usize, kind });
                tx = None;
            }
        }
        reader.finish().map_err(invalid)?;
        if let Some(t) = tx
            && let Err(kind) = t.finish()
        {
            failure = Some(FuncError { offset: body.range().end as usize, kind });
        }
    }
    *allocs = Some(validator.into_allocations());
    Ok(match failure {
        Some(e) => Err(e),
        None => Ok(func),
    })
}

/// Builds the whole import; `forced` names defined functions (by ordinal)
/// that must fail with the given reason.
pub(crate) fn build(
    p: &Parsed<'_>,
    options: &ImportOptions,
    forced: &FxHashMap<usize, FuncErrorKind>,
) -> Result<Import, ModuleError> {
    let Skeleton { mut module, mut env, func_names, sigs, notes } = skeleton(p, options)?;
    let n_imports = p.func_imports.len();
    let mut allocs = None;
    let mut results = Vec::with_capacity(p.bodies.len());
    for k in 0..p.bodies.len() {
        let i = n_imports + k;
        let r = translate_body(&env, p, k, &func_names[i], &sigs[i], forced.get(&k), &mut allocs)?;
        results.push(r);
    }

    // Final ids: successes in order, then failures as externs.
    let mut next_func = 0u32;
    let mut failed = Vec::new();
    for (k, r) in results.iter().enumerate() {
        match r {
            Ok(_) => {
                env.callees[n_imports + k] = Callee::Func(FuncId::from_u32(next_func));
                next_func += 1;
            }
            Err(_) => failed.push(k),
        }
    }
    for &k in &failed {
        let i = n_imports + k;
        let e = module.add_extern(&func_names[i], sigs[i].clone()).map_err(ModuleError::Internal)?;
        env.callees[i] = Callee::Ext(e);
    }

    let mut functions = Vec::with_capacity(results.len());
    for (k, r) in results.into_iter().enumerate() {
        let i = n_imports + k;
        let index = i as u32;
        let name = func_names[i].clone();
        match r {
            Ok(mut func) => {
                if !failed.is_empty() {
                    remap_calls(&mut func, &env.callees, n_imports);
                }
                let id = module.push_function(func).map_err(ModuleError::Internal)?;
                functions.push(FuncReport { index, name, selected: true, result: Ok(id) });
            }
            Err(e) => {
                let selected = !matches!(forced.get(&k), Some(FuncErrorKind::NotSelected));
                functions.push(FuncReport { index, name, selected, result: Err(e) });
            }
        }
    }
    Ok(Import::new(module, functions, env.callees, notes, p.start))
}

/// Points calls at the final callees (defined functions were numbered as if
/// all succeeded).
fn remap_calls(func: &mut Function, callees: &[Callee], n_imports: usize) {
    let calls: Vec<_> = func
        .blocks()
        .flat_map(|b| func.block_insts(b).collect::<Vec<_>>())
        .filter(|&inst| func.opcode(inst) == Opcode::Call)
        .collect();
    for inst in calls {
        let Some(Callee::Func(provisional)) = func.callee(inst) else { continue };
        let Some(&target) = callees.get(n_imports + provisional.as_u32() as usize) else { continue };
        if target == Callee::Func(provisional) {
            continue;
        }
        let results = func.results(inst).to_vec();
        let Some(args) = func.operands(inst).iter().map(|&o| func.arg(o)).collect::<Option<Vec<_>>>() else { continue };
        FunctionBuilder::new(func).replace(inst).call(target, &results, &args);
    }
}
