//! Regions: the control-flow shapes a body is made of, and their fuel.
//!
//! A *sequence* fills an exact block budget with regions, one after the
//! other, by a loop (never by recursion over the sequence, so a 10^6-block
//! chain uses constant stack). A *region* starts in the open *tail* block
//! left by the previous one (a block without a terminator yet), appends its
//! branch there, and leaves a new open tail. Region bodies (arms) are
//! sequences one level deeper; that recursion is bounded by `max_depth <= 6`.
//!
//! Invariants:
//! - A region uses exactly the number of blocks it was given.
//! - Nothing branches to the entry block or to a block of an earlier
//!   region, except a loop latch to its own header, an irreducible cycle
//!   between its own two blocks, and early exits (and unreachable blocks) to
//!   the return block.
//! - **Termination.** Every cycle is a loop or an irreducible pair at some
//!   depth `d`, controlled by the dedicated counter `%kd`: set to a value in
//!   `[0, max_trips]` just before the cycle is entered, decremented once per
//!   trip, and tested on every trip. Nested cycles use deeper counters and
//!   nothing else writes any counter, so each cycle runs at most
//!   `max(max_trips, 1)` times per entry.
//! - **Fuel.** Each region returns an upper bound on the fuel spent from
//!   its first instruction in the incoming tail up to (not including) what
//!   the next region appends to its outgoing tail: straight code is its
//!   instruction count, a branch is the condition plus the worst arm plus
//!   the join, a loop with trip bound `T` is
//!   `pre + (T + 1) * header + T * (body + latch) + exit`, a cycle is
//!   `pre + max(T, 1) * max(A, B) + exit`. All arithmetic saturates.

use crate::body::{Body, Role};
use crate::source::{Choices, Source};
use crate::types::{COMPARE_TYPES, imm};
use ir_core::{Block, FloatCC, Imm, IntCC, Opcode, Type, Var};

/// Largest top-level region, in blocks: keeps a long function a mix of many
/// regions instead of a few huge ones.
const REGION_CAP: usize = 32;

/// Longest run of unreachable blocks one top-level step emits.
const UNREACHABLE_RUN: usize = 4;

/// Most early exits per function, spread evenly over its blocks (the
/// `n`-th may only come after `n / MAX_EARLY_EXITS` of the budget). Without
/// a cap a 10^6-block function has thousands: the return block's fan-in
/// makes dominator computations that walk idom chains per predecessor
/// (the textbook iterative ones, petgraph's among them) quadratic, and almost
/// every run would leave within the first few hundred blocks. Functions
/// under a few hundred blocks never reach the cap.
const MAX_EARLY_EXITS: usize = 64;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Kind {
    Straight,
    Diamond,
    Loop,
    Switch,
    EarlyExit,
    Chain,
    Ladder,
    Irreducible,
}

impl Kind {
    /// The menu a choice picks from; the zero answer is a straight block.
    /// Irreducible regions are chosen by their own rate, not from here.
    const MENU: [Kind; 7] =
        [Kind::Straight, Kind::Diamond, Kind::Loop, Kind::Switch, Kind::EarlyExit, Kind::Chain, Kind::Ladder];

    fn min_blocks(self) -> usize {
        match self {
            Kind::Straight | Kind::EarlyExit => 1,
            Kind::Diamond | Kind::Chain => 2,
            Kind::Switch | Kind::Irreducible => 3,
            Kind::Loop | Kind::Ladder => 4,
        }
    }

    /// Kinds that nest (arms one level deeper) or use a depth counter.
    fn nests(self) -> bool {
        matches!(self, Kind::Diamond | Kind::Loop | Kind::Switch | Kind::Ladder | Kind::Irreducible)
    }
}

/// A region body: its first block, its open last block, and its fuel
/// (without the jump that will close it).
#[derive(Copy, Clone, Debug)]
struct Arm {
    first: Block,
    last: Block,
    fuel: u64,
}

impl<S: Source + ?Sized> Body<'_, '_, S> {
    /// Fills exactly `budget` blocks with regions at `depth`, starting from
    /// the open block `tail`; returns the final open tail and the fuel
    /// bound. At the top level (`top`) a step may instead reserve a run of
    /// unreachable blocks (never the first step, so the return block is
    /// never the entry block when unreachable blocks jump to it).
    pub(crate) fn sequence(&mut self, depth: u32, mut tail: Block, budget: usize, top: bool) -> (Block, u64) {
        let mut rem = budget;
        let mut fuel = 0u64;
        let mut first = true;
        while rem > 0 {
            if top && !first && self.src.chance(self.env.knobs.unreachable) {
                let n = 1 + self.src.below(rem.min(UNREACHABLE_RUN));
                self.unreachable += n;
                rem -= n;
                continue;
            }
            let cap = if top { rem.min(REGION_CAP) } else { rem };
            let (next, used, f) = self.region(depth, tail, cap);
            tail = next;
            rem -= used;
            fuel = fuel.saturating_add(f);
            first = false;
        }
        (tail, fuel)
    }

    /// One region of at most `cap` blocks: returns its open tail, the blocks
    /// it used and its fuel.
    fn region(&mut self, depth: u32, tail: Block, cap: usize) -> (Block, usize, u64) {
        let nest = depth < self.env.knobs.max_depth;
        let kind = if nest && cap >= Kind::Irreducible.min_blocks() && self.src.chance(self.env.knobs.irreducible) {
            Kind::Irreducible
        } else if nest && cap >= Kind::Loop.min_blocks() && self.src.chance(self.env.knobs.loops) {
            Kind::Loop
        } else {
            let mut menu = [Kind::Straight; Kind::MENU.len()];
            let mut n = 0;
            let exits = self.early_exits.len();
            let made = self.b.func().num_blocks();
            let exits_left = exits < MAX_EARLY_EXITS && exits * self.budget <= MAX_EARLY_EXITS * made;
            for k in Kind::MENU {
                if k.min_blocks() <= cap && (nest || !k.nests()) && (exits_left || k != Kind::EarlyExit) {
                    menu[n] = k;
                    n += 1;
                }
            }
            menu[self.src.below(n)]
        };
        let size = match kind {
            Kind::Straight | Kind::EarlyExit => 1,
            Kind::Irreducible => 3,
            _ => self.src.range(kind.min_blocks(), cap),
        };
        let (next, fuel) = match kind {
            Kind::Straight => self.straight(tail),
            Kind::Chain => {
                let (mut t, mut fuel) = (tail, 0u64);
                for _ in 0..size {
                    let (next, f) = self.straight(t);
                    t = next;
                    fuel = fuel.saturating_add(f);
                }
                (t, fuel)
            }
            Kind::EarlyExit => self.early_exit(tail),
            Kind::Diamond => self.diamond(depth, tail, size),
            Kind::Ladder => {
                let (mut t, mut fuel, mut rem) = (tail, 0u64, size);
                while rem > 0 {
                    // Rungs of 2 (if-then) or 3 (if-else) blocks; never
                    // leave a single block over.
                    let rung = match rem {
                        2 | 4 => 2,
                        3 => 3,
                        _ => 2 + self.src.below(2),
                    };
                    let (next, f) = self.diamond(depth, t, rung);
                    t = next;
                    fuel = fuel.saturating_add(f);
                    rem -= rung;
                }
                (t, fuel)
            }
            Kind::Loop => self.natural_loop(depth, tail, size),
            Kind::Switch => self.switch(depth, tail, size),
            Kind::Irreducible => self.irreducible(depth, tail),
        };
        (next, size, fuel)
    }

    /// `tail: jump X`; X is the new tail. One block.
    fn straight(&mut self, tail: Block) -> (Block, u64) {
        let (x, xc) = self.begin_block(false);
        self.b.switch_to_block(tail);
        self.b.ins().jump(x);
        (x, xc.saturating_add(1))
    }

    /// `tail: br c, RET, X`: leaves the function from anywhere, loops
    /// included. The return block does not exist yet; successor 0 is
    /// patched when it does. One block.
    fn early_exit(&mut self, tail: Block) -> (Block, u64) {
        self.b.switch_to_block(tail);
        let (c, cc) = self.exit_condition();
        let (x, xc) = self.begin_block(false);
        self.b.switch_to_block(tail);
        let br = self.b.ins().br(c, x, x);
        self.early_exits.push(br);
        (x, cc.saturating_add(1).saturating_add(xc))
    }

    /// An if-then (`size >= 2`) or if-else diamond (`size >= 3`) whose arms
    /// are sequences one level deeper, joining at a new tail.
    fn diamond(&mut self, depth: u32, tail: Block, size: usize) -> (Block, u64) {
        self.b.switch_to_block(tail);
        let (c, cc) = self.branch_condition();
        let arm_blocks = size - 1;
        let two_arms = arm_blocks >= 2 && self.src.below(2) == 1;
        let then_blocks = if two_arms { 1 + self.src.below(arm_blocks - 1) } else { arm_blocks };
        let then_arm = self.arm(depth + 1, then_blocks);
        let else_arm = if two_arms { Some(self.arm(depth + 1, arm_blocks - then_blocks)) } else { None };
        let (j, jc) = self.begin_block(true);
        self.close(then_arm, j);
        let worst = match else_arm {
            Some(e) => {
                self.close(e, j);
                then_arm.fuel.max(e.fuel).saturating_add(1)
            }
            None => then_arm.fuel.saturating_add(1),
        };
        let else_target = else_arm.map_or(j, |e| e.first);
        // An if-then may skip on either outcome.
        let (t, f) = if !two_arms && self.src.below(2) == 1 {
            (else_target, then_arm.first)
        } else {
            (then_arm.first, else_target)
        };
        self.b.switch_to_block(tail);
        self.b.ins().br(c, t, f);
        (j, cc.saturating_add(1).saturating_add(worst).saturating_add(jc))
    }

    /// `tail` (the preheader) sets `%kd`; the header tests it; the body is a
    /// sequence one level deeper; the latch decrements `%kd`. Blocks:
    /// header, body, latch, exit.
    fn natural_loop(&mut self, depth: u32, tail: Block, size: usize) -> (Block, u64) {
        let k = self.dedicated(Role::Counter(depth));
        self.b.switch_to_block(tail);
        let trips = self.set_counter(k);
        let (header, hc) = self.begin_block(true);
        self.b.switch_to_block(tail);
        self.b.ins().jump(header);
        // In the body and the latch (before its decrement) the counter is in
        // [1, max_trips]: tile accesses may scale it.
        self.loops.push(k);
        let body = self.arm(depth + 1, size - 3);
        let (latch, lc) = self.begin_block(false);
        self.loops.pop();
        self.b.ins().binary(Opcode::Sub, k, k, Imm::int(Type::I64, 1));
        self.b.ins().jump(header);
        let (exit, xc) = self.begin_block(false);
        self.close(body, latch);
        self.b.switch_to_block(header);
        let kc = self.dedicated(Role::LoopTest);
        self.b.ins().setp(IntCC::Sgt, kc, k, Imm::int(Type::I64, 0));
        self.b.ins().br(kc, body.first, exit);

        let header_cost = hc.saturating_add(2);
        let trip_cost = body.fuel.saturating_add(1).saturating_add(lc).saturating_add(2);
        let fuel = 2u64
            .saturating_add(trips.saturating_add(1).saturating_mul(header_cost))
            .saturating_add(trips.saturating_mul(trip_cost))
            .saturating_add(xc);
        (exit, fuel)
    }

    /// `%sw = and %v, 3|7; switch %sw, default, [2-4 cases]`, each case a
    /// sequence one level deeper; the default is an arm or the join.
    fn switch(&mut self, depth: u32, tail: Block, size: usize) -> (Block, u64) {
        let arm_blocks = size - 1;
        let cases = 2 + self.src.below(arm_blocks.min(4) - 1);
        let default_arm = arm_blocks > cases && self.src.below(2) == 1;
        let sizes = self.split(arm_blocks, cases + usize::from(default_arm));
        let mask: u64 = if self.src.below(2) == 0 { 3 } else { 7 };
        self.b.switch_to_block(tail);
        let sw = self.dedicated(Role::SwitchValue);
        let v = self.var(Type::I32);
        self.b.ins().binary(Opcode::And, sw, v, Imm::int(Type::I32, mask as i64));
        let base = self.src.choose(mask + 1);
        let mut arms = Vec::with_capacity(sizes.len());
        for s in sizes {
            arms.push(self.arm(depth + 1, s));
        }
        let (j, jc) = self.begin_block(true);
        for &arm in &arms {
            self.close(arm, j);
        }
        // Distinct values in [0, mask]; the others go to the default.
        let table: Vec<(i64, Block)> = (0..cases).map(|i| (((base + i as u64) & mask) as i64, arms[i].first)).collect();
        let default = if default_arm { arms[cases].first } else { j };
        self.b.switch_to_block(tail);
        self.b.ins().switch(sw, default, &table);
        let worst = arms.iter().map(|a| a.fuel.saturating_add(1)).max().unwrap_or(0);
        (j, 2u64.saturating_add(worst).saturating_add(jc))
    }

    /// Two blocks A and B forming a cycle entered at either one from
    /// `tail` (so neither dominates the other): each decrements `%kd` and
    /// goes to the other while it is positive, else to the exit. Three
    /// blocks.
    fn irreducible(&mut self, depth: u32, tail: Block) -> (Block, u64) {
        let k = self.dedicated(Role::Counter(depth));
        self.b.switch_to_block(tail);
        let trips = self.set_counter(k);
        let (p, pc) = self.branch_condition();
        let (a, ac) = self.begin_block(true);
        let (b, bc) = self.begin_block(true);
        let (exit, xc) = self.begin_block(true);
        let kc = self.dedicated(Role::LoopTest);
        for (from, to) in [(a, b), (b, a)] {
            self.b.switch_to_block(from);
            self.b.ins().binary(Opcode::Sub, k, k, Imm::int(Type::I64, 1));
            self.b.ins().setp(IntCC::Sgt, kc, k, Imm::int(Type::I64, 0));
            self.b.ins().br(kc, to, exit);
        }
        self.b.switch_to_block(tail);
        self.b.ins().br(p, a, b);
        // Starting from T >= 0, the blocks run max(T, 1) times in all.
        let visit = ac.max(bc).saturating_add(3);
        let fuel = 2u64.saturating_add(pc).saturating_add(trips.max(1).saturating_mul(visit)).saturating_add(xc);
        (exit, fuel)
    }

    /// A fresh block followed by a sequence one level deeper.
    fn arm(&mut self, depth: u32, blocks: usize) -> Arm {
        let (first, fc) = self.begin_block(false);
        let (last, sf) = self.sequence(depth, first, blocks - 1, false);
        Arm { first, last, fuel: fc.saturating_add(sf) }
    }

    /// Ends an arm with `jump to` (its cost is the `+ 1` callers add).
    fn close(&mut self, arm: Arm, to: Block) {
        self.b.switch_to_block(arm.last);
        self.b.ins().jump(to);
    }

    /// Splits `total` blocks into `parts` arms of at least one block each.
    fn split(&mut self, total: usize, parts: usize) -> Vec<usize> {
        let mut out = vec![1; parts];
        let mut extra = total - parts;
        for slot in out.iter_mut().take(parts - 1) {
            let e = self.src.below(extra + 1);
            *slot += e;
            extra -= e;
        }
        out[parts - 1] += extra;
        out
    }

    /// Appends `%k = const t` (t in `[0, max_trips]`) or
    /// `%k = urem %v, max_trips + 1` (data-dependent, still in range) to the
    /// current block; returns the trip bound.
    fn set_counter(&mut self, k: Var) -> u64 {
        let max = u64::from(self.env.knobs.max_trips);
        if self.src.below(2) == 0 {
            let t = self.src.choose(max + 1);
            self.b.ins().constant(k, Imm::int(Type::I64, t as i64));
            t
        } else {
            let v = self.var(Type::I64);
            self.b.ins().binary(Opcode::Urem, k, v, Imm::int(Type::I64, (max + 1) as i64));
            max
        }
    }

    /// A branch condition: a pool predicate, or a fresh `setp`/`fsetp`
    /// into one, appended to the current block. Returns it and its cost.
    fn branch_condition(&mut self) -> (Var, u64) {
        let p = self.var(Type::I1);
        match self.src.below(3) {
            0 => (p, 0),
            1 => {
                let t = self.src.pick(&COMPARE_TYPES);
                let cc = self.src.pick(IntCC::ALL);
                let (a, b) = (self.arg(t), self.var(t));
                self.b.ins().setp(cc, p, a, b);
                (p, 1)
            }
            _ => {
                let t = self.src.pick(&[Type::F64, Type::F32]);
                let cc = self.src.pick(FloatCC::ALL);
                let (a, b) = (self.var(t), self.arg(t));
                self.b.ins().fsetp(cc, p, a, b);
                (p, 1)
            }
        }
    }

    /// An early exit's condition: usually `setp.eq` of a pool integer
    /// against a constant, which is rarely true, so most runs go on through
    /// the whole function; one time in eight a pool predicate, which is true
    /// about half the time.
    fn exit_condition(&mut self) -> (Var, u64) {
        let p = self.var(Type::I1);
        if self.src.below(8) == 7 {
            return (p, 0);
        }
        let t = self.src.pick(&COMPARE_TYPES[..4]);
        let v = self.var(t);
        let k = imm(self.src, t);
        self.b.ins().setp(IntCC::Eq, p, v, k);
        (p, 1)
    }
}
