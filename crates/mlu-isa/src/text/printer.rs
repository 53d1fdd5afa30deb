//! The printer: a program as canonical assembly text.
//!
//! Canonical form: every `.mem` line first (in declaration order, always
//! with its address), a blank line if there are both objects and code,
//! then the code: each label on its own line at column 0 before the
//! instruction it names, each instruction indented by four spaces. No
//! comments, no trailing blank line.
//!
//! Invariant: for a well-formed program `p` (every id it names exists,
//! labels in position order), `parse(print(p)) == p` and printing is a
//! fixed point: `print(parse(print(p))) == print(p)`. A malformed program
//! prints as far as its data allows (`@?3`, `?L7`), for diagnostics.

use super::literal::format_literal;
use crate::inst::{Addr, Inst, LabelId, MemId, Operand, VSrc};
use crate::program::Program;
use crate::types::Ty;
use core::fmt::{self, Write};

/// The program as canonical text.
pub fn print_program(p: &Program) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = write_program(&mut s, p);
    s
}

/// Writes the program as canonical text.
pub fn write_program(out: &mut impl Write, p: &Program) -> fmt::Result {
    for m in &p.mems {
        write!(out, ".mem @{}: {}[{}] {} at {}", m.name, m.ty, m.len, m.space, m.addr)?;
        if !m.init.is_empty() {
            out.write_str(" = [")?;
            for (i, &v) in m.init.iter().enumerate() {
                if i > 0 {
                    out.write_str(", ")?;
                }
                out.write_str(&format_literal(v, m.ty))?;
            }
            out.write_str("]")?;
        }
        out.write_str("\n")?;
    }
    let has_code = !p.insts.is_empty() || !p.labels.is_empty();
    if !p.mems.is_empty() && has_code {
        out.write_str("\n")?;
    }
    let mut order: Vec<usize> = (0..p.labels.len()).collect();
    order.sort_by_key(|&i| (p.labels[i].at, i));
    let mut next_label = order.iter().peekable();
    for (pc, inst) in p.insts.iter().enumerate() {
        while let Some(&&l) = next_label.peek() {
            if p.labels[l].at as usize > pc {
                break;
            }
            writeln!(out, "{}:", p.labels[l].name)?;
            next_label.next();
        }
        out.write_str("    ")?;
        write_inst(out, p, inst)?;
        out.write_str("\n")?;
    }
    for &l in next_label {
        writeln!(out, "{}:", p.labels[l].name)?;
    }
    Ok(())
}

/// One instruction as text (without indentation or newline).
pub fn inst_text(p: &Program, inst: &Inst) -> String {
    let mut s = String::new();
    let _ = write_inst(&mut s, p, inst);
    s
}

struct Typed(Operand, Ty);
struct Int(Operand);
struct A<'a>(&'a Program, Addr);
struct Src<'a>(&'a Program, VSrc, Ty);
struct L<'a>(&'a Program, LabelId);

impl fmt::Display for Typed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Operand::Reg(r) => write!(f, "{r}"),
            Operand::Imm(bits) => f.write_str(&format_literal(bits, self.1)),
        }
    }
}

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Operand::Reg(r) => write!(f, "{r}"),
            Operand::Imm(bits) => write!(f, "{}", bits as i64),
        }
    }
}

impl fmt::Display for A<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = self.1;
        write!(f, "{}[", a.space)?;
        let mut first = true;
        if let Some(MemId(m)) = a.sym {
            match self.0.mems.get(m as usize) {
                Some(decl) => write!(f, "@{}", decl.name)?,
                None => write!(f, "@?{m}")?,
            }
            first = false;
        }
        if let Some(r) = a.base {
            if !first {
                f.write_str(" + ")?;
            }
            write!(f, "{r}")?;
            first = false;
        }
        if first {
            write!(f, "{}", a.offset)?;
        } else if a.offset > 0 {
            write!(f, " + {}", a.offset)?;
        } else if a.offset < 0 {
            write!(f, " - {}", a.offset.unsigned_abs())?;
        }
        f.write_str("]")
    }
}

impl fmt::Display for Src<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            VSrc::Mem(a) => write!(f, "{}", A(self.0, a)),
            VSrc::Scalar(o) => write!(f, "{}", Typed(o, self.2)),
        }
    }
}

impl fmt::Display for L<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.labels.get(self.1.index()) {
            Some(l) => f.write_str(&l.name),
            None => write!(f, "?L{}", self.1.0),
        }
    }
}

fn write_inst(out: &mut impl Write, p: &Program, inst: &Inst) -> fmt::Result {
    let m = inst.mnemonic();
    match *inst {
        Inst::Mov { ty, dst, src } => write!(out, "{m} {dst}, {}", Typed(src, ty)),
        Inst::Unary { ty, dst, a, .. } => write!(out, "{m} {dst}, {}", Typed(a, ty)),
        Inst::Binary { ty, dst, a, b, .. } | Inst::Setp { ty, dst, a, b, .. } | Inst::Fsetp { ty, dst, a, b, .. } => {
            write!(out, "{m} {dst}, {}, {}", Typed(a, ty), Typed(b, ty))
        }
        Inst::Select { ty, dst, cond, a, b } => write!(out, "{m} {dst}, {cond}, {}, {}", Typed(a, ty), Typed(b, ty)),
        Inst::Convert { from, dst, src, .. } => write!(out, "{m} {dst}, {}", Typed(src, from)),
        Inst::Load { dst, addr, .. } => write!(out, "{m} {dst}, {}", A(p, addr)),
        Inst::Store { ty, addr, value } => write!(out, "{m} {}, {}", A(p, addr), Typed(value, ty)),
        Inst::ReadSreg { dst, sreg } => write!(out, "{m} {dst}, {sreg}"),
        Inst::Jump { target } => write!(out, "{m} {}", L(p, target)),
        Inst::Branch { cond, target, .. } => write!(out, "{m} {cond}, {}", L(p, target)),
        Inst::Exit | Inst::Trap | Inst::Nop | Inst::Sync(_) => out.write_str(&m),
        Inst::VUnary { dst, src, n, .. } | Inst::VConvert { dst, src, n, .. } => {
            write!(out, "{m} {}, {}, {}", A(p, dst), A(p, src), Int(n))
        }
        Inst::VBinary { ty, dst, a, b, n, .. } => {
            write!(out, "{m} {}, {}, {}, {}", A(p, dst), Src(p, a, ty), Src(p, b, ty), Int(n))
        }
        Inst::VFma { ty, dst, a, b, c, n } => {
            write!(out, "{m} {}, {}, {}, {}, {}", A(p, dst), Src(p, a, ty), Src(p, b, ty), Src(p, c, ty), Int(n))
        }
        Inst::VFill { ty, dst, value, n } => write!(out, "{m} {}, {}, {}", A(p, dst), Typed(value, ty), Int(n)),
        Inst::VReduce { dst, src, n, .. } => write!(out, "{m} {dst}, {}, {}", A(p, src), Int(n)),
        Inst::Matmul { c, a, b, m: mm, k, n, .. } => {
            write!(out, "{m} {}, {}, {}, {}, {}, {}", A(p, c), A(p, a), A(p, b), Int(mm), Int(k), Int(n))
        }
        Inst::Dma { dst, src, bytes } => write!(out, "{m} {}, {}, {}", A(p, dst), A(p, src), Int(bytes)),
        Inst::Dma2d { dst, src, bytes, dst_stride, src_stride, rows } => write!(
            out,
            "{m} {}, {}, {}, {}, {}, {}",
            A(p, dst),
            A(p, src),
            Int(bytes),
            Int(dst_stride),
            Int(src_stride),
            Int(rows)
        ),
        Inst::Barrier { id, count, .. } => write!(out, "{m} {}, {}", Int(id), Int(count)),
    }
}
