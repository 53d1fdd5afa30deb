//! Locals and globals: `local.get`/`local.set`/`local.tee` and
//! `global.get`/`global.set`.
//!
//! Invariants: `local.get` pushes a lazy `Local` entry; `local.set` and
//! `local.tee` materialise every pending read of the local before
//! assigning it (`state.rs`). A constant global folds to immediates; any
//! other global is a memory object of one element per part, read and
//! written at index `i` for part `i`.

use super::env::GlobalEnv;
use super::state::{Entry, R, Translator};
use crate::error::Inconsistency;
use ir_core::{Opcode, Var};
use smallvec::SmallVec;

impl Translator<'_, '_> {
    pub(super) fn op_local_get(&mut self, l: u32) -> R<()> {
        let vars = self.local_vars(l)?;
        self.locals[l as usize].read = true;
        for v in vars {
            self.push(Entry::Local(v, l));
        }
        Ok(())
    }

    pub(super) fn op_local_set(&mut self, l: u32) -> R<()> {
        let vars = self.local_vars(l)?;
        let mut values: SmallVec<[Entry; 2]> = SmallVec::new();
        for _ in 0..vars.len() {
            values.push(self.pop()?);
        }
        values.reverse();
        self.materialize_local(l)?;
        for (&dst, &e) in vars.iter().zip(values.iter()) {
            self.assign(dst, e)?;
        }
        Ok(())
    }

    /// `dst = e`, retargeting the instruction that just computed `e` when
    /// it can (so `local.set` after an `add` is one instruction).
    fn assign(&mut self, dst: Var, e: Entry) -> R<()> {
        if let Entry::Slot(v) = e {
            let block = self.b.current_block();
            let func = self.b.func();
            let last = block.and_then(|blk| func.layout().last_inst(blk));
            if let Some(inst) = last
                && func.results(inst) == [v]
                && func.opcode(inst) != Opcode::Phi
                && func.guard(inst).is_none()
            {
                func.set_result(inst, 0, dst);
                return Ok(());
            }
        }
        self.write_to(dst, e);
        Ok(())
    }

    pub(super) fn op_local_tee(&mut self, l: u32) -> R<()> {
        self.op_local_set(l)?;
        let vars = self.local_vars(l)?;
        for v in vars {
            self.push(Entry::Local(v, l));
        }
        Ok(())
    }

    pub(super) fn op_global_get(&mut self, g: u32) -> R<()> {
        // The environment outlives the translator: borrow it, not `self`.
        let env = self.env;
        match env.globals.get(g as usize) {
            Some(GlobalEnv::Const(values)) => {
                for &i in values.iter() {
                    self.push(Entry::Imm(i));
                }
            }
            Some(&GlobalEnv::Mem(mem, ref types)) => {
                for (i, &ty) in types.iter().enumerate() {
                    let r = self.push_result(ty);
                    self.b.ins().load(r, mem, i as i64);
                }
            }
            None => return Err(Inconsistency::NoSuchGlobal(g).into()),
        }
        Ok(())
    }

    pub(super) fn op_global_set(&mut self, g: u32) -> R<()> {
        let Some(GlobalEnv::Mem(mem, types)) = self.env.globals.get(g as usize) else {
            return Err(Inconsistency::ImmutableGlobal(g).into());
        };
        let (mem, n) = (*mem, types.len());
        let values = self.pop_args(n)?;
        for (i, v) in values.into_iter().enumerate() {
            self.b.ins().store(mem, i as i64, v);
        }
        Ok(())
    }
}
