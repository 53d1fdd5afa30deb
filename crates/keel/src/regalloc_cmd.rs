//! `keel regalloc`: allocate registers (red-blue pebbling, or the
//! Chaitin-Briggs baseline) and print the allocated IR — registers as vars
//! `%r0..`, spill slots in a `@spill.NAME` memory object — with, on
//! request, each function's loads, stores and moves, plain and weighted by
//! loop depth.

use crate::input::{Input, Loaded};
use crate::per_function::progress;
use crate::select::{Scope, select};
use ir_core::{FuncId, Function, Module, block, text};
use regalloc_pebble::{
    AllocError, Allocated, Allocator, BlockGame, CheckError, GlobalStep, KeelError, LocalRule, Method, Options, Regs,
    Results, Strategy, allocate_in_module,
};
use std::io::Write;
use std::process::ExitCode;

/// Which allocator.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum MethodArg {
    /// Red-blue pebbling with the global step.
    Pebble,
    /// Chaitin-Briggs graph colouring (the baseline).
    Briggs,
}

/// How values get registers across blocks (`--strategy`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum StrategyArg {
    /// The whole-function allocator (the default).
    Global,
    /// Each block's pebble game, values carried across edges, the global
    /// step.
    Blocks,
}

/// The local rule (`--rule`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum RuleArg {
    /// `Local-Alloc` exactly as the document gives it.
    Document,
    /// The document's order and two depth-first orders, re-planned by
    /// Belady's rule; the cheapest game is kept.
    Refined,
    /// `refined`, then a local search over the evaluation order (the
    /// default).
    Searched,
}

impl RuleArg {
    /// The library's rule.
    fn rule(self) -> LocalRule {
        match self {
            RuleArg::Document => LocalRule::Document,
            RuleArg::Refined => LocalRule::Refined,
            RuleArg::Searched => LocalRule::Searched,
        }
    }

    /// The rule as `--rule` spells it.
    fn name(self) -> &'static str {
        match self {
            RuleArg::Document => "document",
            RuleArg::Refined => "refined",
            RuleArg::Searched => "searched",
        }
    }
}

/// The global step (`--global`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum GlobalArg {
    /// Greedily by local loads + stores weighted by loop depth (the
    /// default).
    Weighted,
    /// Greedily by lifetime, ties by use count, then loop depth (the
    /// document's variant).
    Lifetime,
    /// No global step: every register is local.
    Off,
}

/// What `--game` asks of a returning block's results.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ResultsArg {
    /// The `ret` reads them in registers, as the allocated code does.
    Read,
    /// Left where the game leaves them, in a register or in memory (source
    /// document 004's accounting of its example).
    InPlace,
}

/// Output format.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// The allocated IR (with `--stats`, a comment line per function first).
    Text,
    /// One JSON object: the figures per function and the allocated IR.
    Json,
}

/// The arguments of `keel regalloc`.
#[derive(clap::Args, Debug)]
pub(crate) struct RegallocArgs {
    /// The IR file (`-` reads standard input).
    pub(crate) file: String,
    /// Only this function.
    #[arg(long)]
    pub(crate) func: Option<String>,
    /// Scalar registers (1..=65536).
    #[arg(long, default_value_t = 16, value_parser = crate::limits::registers())]
    pub(crate) regs: u32,
    /// Vector registers (1..=65536).
    #[arg(long, default_value_t = 16, value_parser = crate::limits::registers())]
    pub(crate) vregs: u32,
    /// The allocator.
    #[arg(long, value_enum, default_value_t = MethodArg::Pebble)]
    pub(crate) method: MethodArg,
    /// Pebble: the whole-function allocator (`global`, the default:
    /// Belady's rule over global next-use distances), or each block's
    /// game with the global step (`blocks`, issue 15's allocator).
    /// `--rule` or `--global` alone select `blocks`.
    #[arg(long, value_enum)]
    pub(crate) strategy: Option<StrategyArg>,
    /// Pebble with `--strategy blocks`: how each block's game decides
    /// spills and registers (default `refined`).
    #[arg(long, value_enum)]
    pub(crate) rule: Option<RuleArg>,
    /// Pebble with `--strategy blocks`: how the registers left after
    /// local allocation go to variables (default `weighted`).
    #[arg(long, value_enum)]
    pub(crate) global: Option<GlobalArg>,
    /// Pebble: also try each function with its innermost loops unrolled
    /// 2..=K times and keep the cheapest per original iteration (the
    /// document's alternative to moves on back edges); 1 never unrolls.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub(crate) unroll: u32,
    /// Loads, stores and moves per function, plain and loop-weighted.
    #[arg(long)]
    pub(crate) stats: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub(crate) format: Format,
    /// Instead of allocating: play source document 004's red-blue
    /// pebble game on this block (`bbN`) and print it move by move, with
    /// where each result ends and the loads and stores. Sources start in
    /// memory and values live out end in memory; `--rule` picks the
    /// heuristic (default `document`).
    #[arg(long, value_name = "BLOCK")]
    pub(crate) game: Option<String>,
    /// With `--game`: a returning block's results are read by its `ret`
    /// in registers (`read`, as the allocated code does) or left where
    /// the game leaves them (`in-place`: the document's accounting of
    /// its example, three loads and one store at two registers).
    #[arg(long, value_enum, requires = "game", default_value_t = ResultsArg::Read)]
    pub(crate) results: ResultsArg,
}

pub(crate) fn regalloc(a: &RegallocArgs, out: &mut dyn Write) -> std::io::Result<ExitCode> {
    let Some(input) = Input::read(&a.file) else { return Ok(ExitCode::FAILURE) };
    let Some(Loaded { module, .. }) = input.load(": nothing allocated") else { return Ok(ExitCode::FAILURE) };
    let ids = match select(&module, a.func.as_deref(), Scope::All) {
        Ok(ids) => ids,
        Err(e) => {
            crate::out::say(e);
            return Ok(ExitCode::FAILURE);
        }
    };
    let method = match a.method {
        MethodArg::Pebble => Method::Pebble,
        MethodArg::Briggs => Method::Briggs,
    };
    let strategy = match (a.strategy, a.rule.is_some() || a.global.is_some()) {
        (Some(StrategyArg::Global), true) => {
            crate::out::say("regalloc: --rule and --global apply only to --strategy blocks");
            return Ok(ExitCode::from(2));
        }
        (Some(StrategyArg::Global), false) | (None, false) => Strategy::Global,
        (Some(StrategyArg::Blocks), _) | (None, true) => Strategy::Blocks,
    };
    let local_rule = a.rule.unwrap_or(RuleArg::Searched).rule();
    let global = match a.global.unwrap_or(GlobalArg::Weighted) {
        GlobalArg::Weighted => GlobalStep::Weighted,
        GlobalArg::Lifetime => GlobalStep::Lifetime,
        GlobalArg::Off => GlobalStep::Off,
    };
    let options = Options {
        regs: Regs::new(a.regs, a.vregs),
        strategy,
        local_rule,
        global,
        unroll: a.unroll,
        max_memory: crate::budget::get(),
        ..Options::default()
    };
    // The functions not selected stay as they are.
    let mut allocated = module.clone();
    let mut ctx = Allocator::new();
    let bar = progress(ids.len());
    let results: Vec<_> = ids
        .iter()
        .map(|&f| {
            bar.inc(1);
            (f, allocate_in_module(&mut allocated, f, method, &options, &mut ctx))
        })
        .collect();
    bar.finish_and_clear();
    let mut failed = false;
    for (f, r) in &results {
        if let Err(e) = r {
            failed = true;
            let name = module.function(*f).map_or("?", |f| f.name());
            let name = crate::out::global(name);
            match e {
                KeelError::Check(CheckError::TooLarge { .. })
                | KeelError::Alloc(AllocError::TooLarge { .. } | AllocError::InterferenceTooLarge { .. }) => {
                    crate::budget::refused(name, e)
                }
                KeelError::Check(_) => crate::out::say(format!("internal error: {name}: {e}")),
                KeelError::Alloc(_) => crate::out::say(format!("{name}: {e}")),
            }
        }
    }
    if failed {
        return Ok(ExitCode::FAILURE);
    }
    let ir = compact(&text::print_module(&allocated));
    match a.format {
        Format::Text => {
            if a.stats {
                for (f, r) in &results {
                    if let Ok(done) = r {
                        writeln!(out, "; {}", stats_line(&module, *f, done))?;
                    }
                }
            }
            out.write_all(ir.as_bytes())?;
        }
        Format::Json => {
            let funcs: Vec<serde_json::Value> =
                results.iter().filter_map(|(f, r)| r.as_ref().ok().map(|done| stats_json(&module, *f, done))).collect();
            let v = serde_json::json!({
                "method": match a.method { MethodArg::Pebble => "pebble", MethodArg::Briggs => "briggs" },
                "regs": a.regs,
                "vregs": a.vregs,
                "functions": funcs,
                "ir": ir,
            });
            writeln!(out, "{}", serde_json::to_string_pretty(&v).unwrap_or_default())?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn stats_line(module: &Module, f: FuncId, done: &Allocated) -> String {
    let name = module.function(f).map_or_else(|| "?".to_string(), |f| crate::out::global(f.name()));
    let c = done.allocation.costs;
    let q = done.allocation.local_regs.map_or("-".to_string(), |q| q.to_string());
    let unrolled =
        if done.unroll_factor > 1 { format!("; loops unrolled x{}", done.unroll_factor) } else { String::new() };
    format!(
        "{name}: loads {} stores {} moves {} (weighted {} {} {}, total {}); printed with the params' entry copies and stores: loads {} stores {} moves {}; spill bytes {}; global registers {}; local registers q = {q}{unrolled}",
        c.loads,
        c.stores,
        c.moves,
        c.weighted_loads,
        c.weighted_stores,
        c.weighted_moves,
        c.weighted(),
        c.loads,
        c.stores + u64::from(done.rewritten.param_stores),
        c.moves + u64::from(done.rewritten.param_copies),
        done.rewritten.spill_bytes,
        done.allocation.globals.len(),
    )
}

fn stats_json(module: &Module, f: FuncId, done: &Allocated) -> serde_json::Value {
    let c = done.allocation.costs;
    serde_json::json!({
        "name": module.function(f).map_or("?", |f| f.name()),
        "loads": c.loads,
        "stores": c.stores,
        "moves": c.moves,
        "weighted_loads": c.weighted_loads,
        "weighted_stores": c.weighted_stores,
        "weighted_moves": c.weighted_moves,
        "weighted_total": c.weighted(),
        "param_entry_stores": done.rewritten.param_stores,
        "param_entry_copies": done.rewritten.param_copies,
        "spill_bytes": done.rewritten.spill_bytes,
        "split_edges": done.rewritten.split_blocks,
        "global_registers": done.allocation.globals.len(),
        "unroll_factor": done.unroll_factor,
        "local_regs": done.allocation.local_regs,
    })
}

/// The allocated text without the declarations of vars nothing mentions
/// any more (the original vars: registers replaced them).
fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let lines: Vec<&str> = text.lines().collect();
    let mut k = 0;
    while k < lines.len() {
        let line = lines[k];
        if !line.starts_with("func ") {
            out.push_str(line);
            out.push('\n');
            k += 1;
            continue;
        }
        // One function: its lines up to the closing brace.
        let end = (k..lines.len()).find(|&j| lines[j] == "}").unwrap_or(lines.len() - 1);
        let body = &lines[k..=end];
        let mut used: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for l in body.iter().filter(|l| !l.starts_with("    var ")) {
            used.extend(var_tokens(l));
        }
        for l in body {
            let keep = match l.strip_prefix("    var ") {
                Some(rest) => var_tokens(rest).next().is_some_and(|n| used.contains(n)),
                None => true,
            };
            if keep {
                out.push_str(l);
                out.push('\n');
            }
        }
        k = end + 1;
    }
    out
}

/// The `%name` tokens of a line (quoted names included).
fn var_tokens(line: &str) -> impl Iterator<Item = &str> {
    let b = line.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() && b[i] != b'%' {
            if b[i] == b';' {
                return None;
            }
            i += 1;
        }
        if i >= b.len() {
            return None;
        }
        let start = i;
        i += 1;
        if b.get(i) == Some(&b'"') {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += usize::from(b[i] == b'\\') + 1;
            }
            i += 1;
        } else {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
        }
        line.get(start..i.min(b.len()))
    })
}

/// Plays block `name` (`bbN`) of `f` (phis lowered first, as the allocator
/// does) in source document 004's model; the lowered function (whose var
/// names the game uses) and the game, or a message and the exit status
/// (2 for a label that is not `bbN`, 1 for a block the function lacks or
/// a game that cannot be played).
pub(crate) fn play_block(
    f: &Function,
    flag: &str,
    name: &str,
    regs: Regs,
    rule: LocalRule,
    results: Results,
) -> Result<(Function, BlockGame), (String, ExitCode)> {
    let Some(n) = name.strip_prefix("bb").and_then(|d| d.parse::<u32>().ok()) else {
        return Err((format!("{flag} takes a block label such as bb0, not `{name}`"), ExitCode::from(2)));
    };
    if !f.block_exists(block(n)) || !f.layout().is_block_inserted(block(n)) {
        return Err((format!("{} has no block bb{n}", crate::out::global(f.name())), ExitCode::FAILURE));
    }
    // The clone has its own stamp: analyse it on its own CFG.
    let mut lowered = f.clone();
    if regalloc_pebble::needs_destruct(&lowered) {
        regalloc_pebble::lower_phis(&mut lowered);
    }
    let g = lowered.cfg();
    match regalloc_pebble::block_game(&g, &lowered, n, regs, rule, results) {
        Ok(game) => Ok((lowered, game)),
        Err(e) => Err((format!("{}: {e}", crate::out::global(f.name())), ExitCode::FAILURE)),
    }
}

/// `keel regalloc --game BLOCK`: one block's pebble game, move by move
/// (`BlockGame::text`), under a header naming the model.
pub(crate) fn game(a: &RegallocArgs, name: &str, out: &mut dyn Write) -> std::io::Result<ExitCode> {
    let results = a.results;
    if a.method == MethodArg::Briggs || a.strategy.is_some() || a.global.is_some() || a.stats || a.unroll > 1 {
        crate::out::say("regalloc: --game plays one block's game: it takes --func, --regs, --vregs and --rule only");
        return Ok(ExitCode::from(2));
    }
    let Some(input) = Input::read(&a.file) else { return Ok(ExitCode::FAILURE) };
    let Some(Loaded { module, .. }) = input.load(": no game played") else { return Ok(ExitCode::FAILURE) };
    let f = match crate::select::select_one(&module, a.func.as_deref()) {
        Ok(id) => module.function(id).expect("a selected function"),
        Err(e) => {
            crate::out::say(e);
            return Ok(ExitCode::FAILURE);
        }
    };
    let rule_arg = a.rule.unwrap_or(RuleArg::Document);
    let results_model = match results {
        ResultsArg::Read => Results::Read,
        ResultsArg::InPlace => Results::InPlace,
    };
    let (lowered, game) =
        match play_block(f, "--game", name, Regs::new(a.regs, a.vregs), rule_arg.rule(), results_model) {
            Ok(played) => played,
            Err((msg, code)) => {
                crate::out::say(msg);
                return Ok(code);
            }
        };
    let rule_name = rule_arg.name();
    let ends = match results {
        ResultsArg::Read => "the ret reads its operands in registers",
        ResultsArg::InPlace => "the ret's operands are left where the game leaves them",
    };
    writeln!(
        out,
        "; {} {name}: the pebble game of source document 004, {} registers, rule {rule_name}; sources start in memory, values live out end in memory, {ends}",
        crate::out::global(f.name()),
        a.regs
    )?;
    let text = game.text(
        |x| format!("%{}", lowered.var_name(ir_core::Var::from_u32(x))),
        |i| text::DisplayInst { module: &module, func: &lowered, inst: ir_core::Inst::from_u32(i) }.to_string(),
    );
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
