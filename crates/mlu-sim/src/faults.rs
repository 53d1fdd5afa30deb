//! What the machine checks when it loads a program: what cannot run at
//! all (ids and registers the program does not have: a load error) and
//! what the verifier would reject but can be loaded (a type outside its
//! class, a scalar access to WRAM, a vector operand outside NRAM, an
//! unknown copy direction: a trap when the instruction runs).
//!
//! Invariant: after `check_ids`, every register, label and object an
//! instruction names exists, so `Machine::step` indexes them without a
//! check.

use crate::error::{LoadError, Missing};
use crate::trap::TrapKind;
use mlu_isa::text::inst_text;
use mlu_isa::{Addr, Class, Inst, LabelId, MachineConfig, Program, Route, Space, Ty, VSrc};

/// Checks what the machine cannot run at all: ids and registers.
pub(crate) fn check_ids(p: &Program, cfg: &MachineConfig) -> Result<(), LoadError> {
    for (i, l) in p.labels.iter().enumerate() {
        if l.at as usize > p.insts.len() {
            return Err(LoadError::LabelPastEnd { label: LabelId(i as u32), name: l.name.clone(), at: l.at });
        }
    }
    for (pc, inst) in p.insts.iter().enumerate() {
        let bad = |missing: Missing| Err(LoadError::Instruction { pc: pc as u32, text: inst_text(p, inst), missing });
        for &reg in inst.uses().as_slice().iter().chain(inst.def().as_ref()) {
            if u32::from(reg.0) >= cfg.gprs {
                return bad(Missing::Register { reg, gprs: cfg.gprs });
            }
        }
        if let Some(t) = inst.target()
            && p.label(t).is_none()
        {
            return bad(Missing::Label(t));
        }
        for a in inst.addrs() {
            if let Some(m) = a.sym
                && p.mem(m).is_none()
            {
                return bad(Missing::Mem(m));
            }
        }
    }
    Ok(())
}

/// Faults the verifier would report that the machine can still load: the
/// instruction traps when it runs.
pub(crate) fn static_fault(inst: &Inst, p: &Program) -> Option<(TrapKind, String)> {
    let malformed = |why: String| Some((TrapKind::Malformed, why));
    let class = |class: Class, ty: Ty, what: &str| {
        if class.accepts(ty) { None } else { malformed(format!("{what} does not take {ty}")) }
    };
    let vty = |ty: Ty| if Inst::vector_type_ok(ty) { None } else { malformed("no vector operation takes i1".into()) };
    let nram =
        |a: &Addr| if a.space == Space::Nram { None } else { malformed(format!("a vector operand in {}", a.space)) };
    let src = |s: &VSrc| match s {
        VSrc::Mem(a) => nram(a),
        VSrc::Scalar(_) => None,
    };
    let sym_space = inst.addrs().into_iter().find_map(|a| {
        let m = p.mem(a.sym?)?;
        (m.space != a.space).then(|| format!("@{} is in {}, not {}", m.name, m.space, a.space))
    });
    if let Some(why) = sym_space {
        return malformed(why);
    }
    match inst {
        Inst::Unary { op, ty, .. } => class(op.class(), *ty, op.name()),
        Inst::Binary { op, ty, .. } => class(op.class(), *ty, op.name()),
        Inst::Setp { ty, .. } => class(Class::Int, *ty, "setp"),
        Inst::Fsetp { ty, .. } => class(Class::Float, *ty, "fsetp"),
        Inst::Convert { op, to, from, .. } => {
            if op.legal(*to, *from) {
                None
            } else {
                malformed(format!("there is no {op} from {from} to {to}"))
            }
        }
        Inst::Load { addr, .. } | Inst::Store { addr, .. } if addr.space == Space::Wram => {
            malformed("scalar loads and stores do not reach wram".into())
        }
        Inst::VUnary { op, ty, dst, src: s, .. } => {
            class(op.class(), *ty, op.name()).or_else(|| vty(*ty)).or_else(|| nram(dst)).or_else(|| nram(s))
        }
        Inst::VBinary { ty, dst, a, b, .. } => vty(*ty).or_else(|| nram(dst)).or_else(|| src(a)).or_else(|| src(b)),
        Inst::VFma { ty, dst, a, b, c, .. } => {
            vty(*ty).or_else(|| nram(dst)).or_else(|| src(a)).or_else(|| src(b)).or_else(|| src(c))
        }
        Inst::VFill { ty, dst, .. } => vty(*ty).or_else(|| nram(dst)),
        Inst::VConvert { op, to, from, dst, src: s, .. } => {
            if !op.legal(*to, *from) {
                return malformed(format!("there is no {op} from {from} to {to}"));
            }
            vty(*to).or_else(|| vty(*from)).or_else(|| nram(dst)).or_else(|| nram(s))
        }
        Inst::VReduce { ty, src: s, .. } => vty(*ty).or_else(|| nram(s)),
        Inst::Matmul { ty, c, a, b, .. } => vty(*ty).or_else(|| nram(c)).or_else(|| nram(a)).or_else(|| {
            if b.space == Space::Wram { None } else { malformed(format!("mmul's right operand in {}", b.space)) }
        }),
        Inst::Dma { dst, src, .. } | Inst::Dma2d { dst, src, .. } => {
            let r = Route::new(src.space, dst.space);
            if r.exists() {
                None
            } else {
                Some((TrapKind::UnknownDirection, format!("there is no copy direction {r} ({})", r.bang_name())))
            }
        }
        _ => None,
    }
}
