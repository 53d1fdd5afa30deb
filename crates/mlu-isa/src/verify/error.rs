//! The verifier's errors as data: what is wrong ([`VerifyProblem`], with
//! the values involved), about which entity ([`VerifySubject`]: an
//! instruction with its text, an object or a label with its name, or the
//! whole program), and the coarse class of each ([`VerifyErrorKind`]).
//!
//! Invariants: `Display` of a [`VerifyError`] is its subject then its
//! problem (`instruction 3 `ld.i32 %r1, wram[0]`: the address must be in
//! nram or sram or dram, not wram`); every problem has exactly one kind;
//! nothing here depends on the program once the error is built, so errors
//! outlive the program they describe.

use crate::inst::{LabelId, MemId};
use crate::ops::{Class, ConvOp, Route};
use crate::text::{SourceMap, Span};
use crate::types::{Reg, Space, Ty};
use core::fmt;

/// The kinds of verifier errors: the class of a [`VerifyProblem`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum VerifyErrorKind {
    /// An object or label id that does not exist (API-built programs only).
    UnknownEntity,
    /// A register number at or above the configuration's GPR count.
    Register,
    /// A type outside the opcode's class, an `i1` vector, or a conversion
    /// that does not exist.
    TypeClass,
    /// An operand in a space its unit cannot reach, or an object named in
    /// another space's brackets.
    Space,
    /// A copy direction the machine does not have.
    Direction,
    /// An immediate address that breaks its alignment rule.
    Alignment,
    /// An object or an immediate range outside its space.
    Capacity,
    /// Two objects of one space overlap.
    Overlap,
    /// A negative immediate count, size, stride or barrier id, or a vector
    /// count that is not a multiple of the configuration's count rule.
    Count,
    /// A malformed object declaration (name, initial values).
    MemDecl,
    /// Labels out of position order, duplicated, or past the end.
    Labels,
    /// The last instruction can fall off the end of the program.
    FallsOffEnd,
    /// A barrier count that can never be met.
    Barrier,
}

/// The operand (or immediate) an instruction error is about.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum OperandRole {
    /// A scalar load's or store's address.
    Address,
    /// A vector or copy destination.
    Destination,
    /// A vector or copy source.
    Source,
    /// A vector operation's first source.
    FirstSource,
    /// A vector operation's second source.
    SecondSource,
    /// `vfma`'s third source.
    ThirdSource,
    /// `mmul`'s result C.
    ResultC,
    /// `mmul`'s left operand A.
    LeftA,
    /// `mmul`'s right operand B.
    RightB,
    /// A vector element count.
    ElementCount,
    /// `mmul`'s `m`.
    M,
    /// `mmul`'s `k`.
    K,
    /// `mmul`'s `n`.
    N,
    /// A copy's byte count.
    ByteCount,
    /// `dma2d`'s destination stride.
    DestinationStride,
    /// `dma2d`'s source stride.
    SourceStride,
    /// `dma2d`'s row count.
    RowCount,
    /// A barrier's id.
    BarrierId,
    /// A barrier's count.
    BarrierCount,
}

impl OperandRole {
    /// How messages name it (`the destination`, `m`).
    pub fn name(self) -> &'static str {
        match self {
            OperandRole::Address => "the address",
            OperandRole::Destination => "the destination",
            OperandRole::Source => "the source",
            OperandRole::FirstSource => "the first source",
            OperandRole::SecondSource => "the second source",
            OperandRole::ThirdSource => "the third source",
            OperandRole::ResultC => "the result C",
            OperandRole::LeftA => "the left operand A",
            OperandRole::RightB => "the right operand B",
            OperandRole::ElementCount => "the element count",
            OperandRole::M => "m",
            OperandRole::K => "k",
            OperandRole::N => "n",
            OperandRole::ByteCount => "the byte count",
            OperandRole::DestinationStride => "the destination stride",
            OperandRole::SourceStride => "the source stride",
            OperandRole::RowCount => "the row count",
            OperandRole::BarrierId => "the barrier id",
            OperandRole::BarrierCount => "the barrier count",
        }
    }
}

impl fmt::Display for OperandRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The entity a verifier error is about.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum VerifySubject {
    /// The program as a whole (it has no instructions).
    Program,
    /// An instruction: its index and its text as printed.
    Inst {
        /// Its position.
        index: u32,
        /// Its text (`ld.i32 %r1, wram[0]`).
        text: String,
    },
    /// A memory object.
    Mem {
        /// Its id.
        id: MemId,
        /// Its name (without `@`).
        name: String,
    },
    /// A label.
    Label {
        /// Its id.
        id: LabelId,
        /// Its name.
        name: String,
    },
}

/// What is wrong, with the values involved. Its `Display` is the part of
/// the message after the subject.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum VerifyProblem {
    /// An object name that is not a plain name.
    ObjectName,
    /// An object name declared before.
    DeclaredTwice,
    /// More initial values than elements.
    TooManyInitialValues {
        /// Initial values.
        values: usize,
        /// Elements.
        len: u64,
    },
    /// An initial value that is not canonical bits of the object's type.
    NonCanonicalInit {
        /// The object's type.
        ty: Ty,
    },
    /// An object address that is not a multiple of its space's alignment.
    ObjectMisaligned {
        /// The address.
        addr: u64,
        /// The space.
        space: Space,
        /// The alignment.
        align: u64,
    },
    /// An object past its space's capacity.
    ObjectCapacity {
        /// First byte.
        start: u64,
        /// One past the last byte.
        end: u64,
        /// The space's capacity.
        capacity: u64,
        /// The space.
        space: Space,
        /// The configuration's name.
        config: String,
    },
    /// An object overlapping an earlier-placed one of its space.
    ObjectOverlap {
        /// First byte.
        start: u64,
        /// One past the last byte.
        end: u64,
        /// The other object.
        other: MemId,
        /// Its name.
        other_name: String,
        /// Its first byte.
        other_start: u64,
        /// One past its last byte.
        other_end: u64,
        /// The space.
        space: Space,
    },
    /// A label past the end of the program.
    LabelPastEnd {
        /// Its position.
        at: u32,
        /// The instruction count.
        len: usize,
    },
    /// A label name defined before.
    LabelTwice,
    /// A label before the previous one's position.
    LabelOutOfOrder,
    /// A label name that is not a word.
    LabelNotWord,
    /// A register at or above the configuration's count.
    Register {
        /// The register.
        reg: Reg,
        /// The configuration's GPR count.
        gprs: u32,
        /// The configuration's name.
        config: String,
    },
    /// A type outside the operation's class.
    TypeClass {
        /// The operation's name.
        op: &'static str,
        /// The class it takes.
        class: Class,
        /// The type given.
        ty: Ty,
    },
    /// A vector or matrix operation on `i1`.
    I1Vector,
    /// A conversion that does not exist.
    NoConversion {
        /// The conversion.
        op: ConvOp,
        /// Its source type.
        from: Ty,
        /// Its result type.
        to: Ty,
    },
    /// An object named in another space's brackets.
    ObjectSpace {
        /// The object.
        id: MemId,
        /// Its name.
        name: String,
        /// Its space.
        declared: Space,
        /// The brackets' space.
        used: Space,
    },
    /// An object id the program does not have.
    UnknownMem {
        /// The id.
        id: MemId,
    },
    /// An operand in a space its unit cannot reach.
    OperandSpace {
        /// The operand.
        role: OperandRole,
        /// The spaces it may be in.
        allowed: Vec<Space>,
        /// Its space.
        space: Space,
    },
    /// An immediate address below zero.
    NegativeAddress {
        /// The operand.
        role: OperandRole,
        /// The address.
        addr: i128,
    },
    /// An immediate address that breaks its alignment rule.
    Misaligned {
        /// The operand.
        role: OperandRole,
        /// Its space.
        space: Space,
        /// The address.
        addr: i128,
        /// The alignment.
        align: u64,
    },
    /// An immediate byte range past its space's end (in DRAM: past the
    /// program's DRAM objects).
    OutOfRange {
        /// The operand.
        role: OperandRole,
        /// Its space.
        space: Space,
        /// First byte.
        start: i128,
        /// One past the last byte.
        end: i128,
        /// Where the space (or the DRAM objects) end.
        limit: u64,
    },
    /// A negative immediate count, size, stride or barrier id.
    NegativeCount {
        /// The operand.
        role: OperandRole,
        /// Its value.
        value: i64,
    },
    /// A vector count that is not a multiple of `count_multiple`.
    CountMultiple {
        /// The count.
        count: u64,
        /// The configuration's `count_multiple`.
        multiple: u64,
    },
    /// A label id the program does not have.
    UnknownLabel {
        /// The id.
        id: LabelId,
    },
    /// A barrier count no launch can meet.
    BarrierCount {
        /// The count.
        count: u64,
        /// The most cores the scope has.
        most: u32,
        /// The configuration's name.
        config: String,
    },
    /// A copy direction the machine does not have.
    NoDirection {
        /// The direction.
        route: Route,
    },
    /// The program has no instructions.
    NoInstructions,
    /// The last instruction can fall off the end.
    FallsOffEnd,
}

impl VerifyProblem {
    /// The problem's class.
    pub fn kind(&self) -> VerifyErrorKind {
        use VerifyProblem as P;
        match self {
            P::ObjectName | P::DeclaredTwice | P::TooManyInitialValues { .. } | P::NonCanonicalInit { .. } => {
                VerifyErrorKind::MemDecl
            }
            P::ObjectMisaligned { .. } | P::Misaligned { .. } => VerifyErrorKind::Alignment,
            P::ObjectCapacity { .. } | P::NegativeAddress { .. } | P::OutOfRange { .. } => VerifyErrorKind::Capacity,
            P::ObjectOverlap { .. } => VerifyErrorKind::Overlap,
            P::LabelPastEnd { .. } | P::LabelTwice | P::LabelOutOfOrder | P::LabelNotWord => VerifyErrorKind::Labels,
            P::Register { .. } => VerifyErrorKind::Register,
            P::TypeClass { .. } | P::I1Vector | P::NoConversion { .. } => VerifyErrorKind::TypeClass,
            P::ObjectSpace { .. } | P::OperandSpace { .. } => VerifyErrorKind::Space,
            P::UnknownMem { .. } | P::UnknownLabel { .. } => VerifyErrorKind::UnknownEntity,
            P::NegativeCount { .. } | P::CountMultiple { .. } => VerifyErrorKind::Count,
            P::BarrierCount { .. } => VerifyErrorKind::Barrier,
            P::NoDirection { .. } => VerifyErrorKind::Direction,
            P::NoInstructions | P::FallsOffEnd => VerifyErrorKind::FallsOffEnd,
        }
    }
}

impl fmt::Display for VerifyProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use VerifyProblem as P;
        match self {
            P::ObjectName => f.write_str("the name is not a plain name ([A-Za-z0-9_.]+)"),
            P::DeclaredTwice => f.write_str("declared twice"),
            P::TooManyInitialValues { values, len } => write!(f, "{values} initial values for {len} elements"),
            P::NonCanonicalInit { ty } => write!(f, "an initial value is not a canonical {ty}"),
            P::ObjectMisaligned { addr, space, align } => {
                write!(f, "address {addr} in {space} is not a multiple of {align}")
            }
            P::ObjectCapacity { start, end, capacity, space, config } => {
                write!(f, "bytes {start}..{end} exceed the {capacity} {space} of {config} (`{space}_bytes`)")
            }
            P::ObjectOverlap { start, end, other_name, other_start, other_end, space, .. } => {
                write!(f, "bytes {start}..{end} overlap @{other_name} ({other_start}..{other_end}) in {space}")
            }
            P::LabelPastEnd { at, len } => write!(f, "is at position {at} past the end ({len})"),
            P::LabelTwice => f.write_str("is defined twice"),
            P::LabelOutOfOrder => f.write_str("is out of position order"),
            P::LabelNotWord => f.write_str("is not a word ([A-Za-z_][A-Za-z0-9_.]*)"),
            P::Register { reg, gprs, config } => write!(f, "{reg} is not one of the {gprs} registers of {config}"),
            P::TypeClass { op, class, ty } => {
                let want = match class {
                    Class::Int => "an integer type",
                    Class::Float => "a float type",
                    Class::Any => "any type",
                };
                write!(f, "{op} takes {want}, not {ty}")
            }
            P::I1Vector => f.write_str("vector and matrix operations have no i1 elements"),
            P::NoConversion { op, from, to } => write!(f, "there is no {op} from {from} to {to}"),
            P::ObjectSpace { name, declared, used, .. } => write!(f, "@{name} is in {declared}, not in {used}"),
            P::UnknownMem { id } => write!(f, "memory object {} does not exist", id.0),
            P::OperandSpace { role, allowed, space } => {
                let names: Vec<&str> = allowed.iter().map(|s| s.name()).collect();
                write!(f, "{role} must be in {}, not {space}", names.join(" or "))
            }
            P::NegativeAddress { role, addr } => write!(f, "{role} is at the negative address {addr}"),
            P::Misaligned { role, space, addr, align } => {
                write!(f, "{role} at {space} {addr} is not aligned to {align} bytes")
            }
            P::OutOfRange { role, space, start, end, limit } => {
                let bound = if *space == Space::Dram { "the program's DRAM objects end" } else { "the space ends" };
                write!(f, "{role} bytes {start}..{end} go past {limit}, where {bound}")
            }
            P::NegativeCount { role, value } => write!(f, "{role} is negative ({value})"),
            P::CountMultiple { count, multiple } => {
                write!(f, "the element count {count} is not a multiple of {multiple} (`count_multiple`)")
            }
            P::UnknownLabel { id } => write!(f, "label {} does not exist", id.0),
            P::BarrierCount { count, most, config } => {
                write!(f, "a count of {count} can never be met: the scope has 1 to {most} cores on {config}")
            }
            P::NoDirection { route } => {
                write!(f, "there is no copy direction {route} ({}): see docs/mlu-isa.md §2.5", route.bang_name())
            }
            P::NoInstructions => f.write_str("the program has no instructions"),
            P::FallsOffEnd => f.write_str("the last instruction falls off the end (end with exit, jmp or trap)"),
        }
    }
}

/// A verifier error: what is wrong, and with which entity.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VerifyError {
    /// The entity.
    pub subject: VerifySubject,
    /// What is wrong.
    pub problem: VerifyProblem,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.subject {
            VerifySubject::Program => write!(f, "{}", self.problem),
            VerifySubject::Inst { index, text } => write!(f, "instruction {index} `{text}`: {}", self.problem),
            VerifySubject::Mem { name, .. } => write!(f, "memory object @{name}: {}", self.problem),
            VerifySubject::Label { name, .. } => write!(f, "label `{name}` {}", self.problem),
        }
    }
}

impl std::error::Error for VerifyError {}

impl VerifyError {
    /// The error's class.
    pub fn kind(&self) -> VerifyErrorKind {
        self.problem.kind()
    }

    /// The instruction, if the error is about one.
    pub fn inst(&self) -> Option<u32> {
        match self.subject {
            VerifySubject::Inst { index, .. } => Some(index),
            _ => None,
        }
    }

    /// The memory object, if the error is about one.
    pub fn mem(&self) -> Option<MemId> {
        match self.subject {
            VerifySubject::Mem { id, .. } => Some(id),
            _ => None,
        }
    }

    /// The label, if the error is about one.
    pub fn label(&self) -> Option<LabelId> {
        match self.subject {
            VerifySubject::Label { id, .. } => Some(id),
            _ => None,
        }
    }

    /// Where the entity the error names (its instruction, object or label)
    /// is in the text the program was parsed from, if the source map has
    /// it.
    pub fn span(&self, smap: &SourceMap) -> Option<Span> {
        let span = match &self.subject {
            VerifySubject::Inst { index, .. } => smap.insts.get(*index as usize),
            VerifySubject::Mem { id, .. } => smap.mems.get(id.index()),
            VerifySubject::Label { id, .. } => smap.labels.get(id.index()),
            VerifySubject::Program => None,
        };
        span.copied()
    }

    /// Renders the error against the text the program was parsed from
    /// (`file:line:col`, the line and a caret), or as a file error when the
    /// source map has no span for the entity (feature `render`: drawn by
    /// the `diagnostics` crate).
    #[cfg(feature = "render")]
    pub fn render(&self, file: &str, src: &str, smap: &SourceMap) -> String {
        let message = self.to_string();
        match self.span(smap) {
            Some(s) => crate::text::render_error(file, src, s, &message),
            None => crate::text::render_file_error(file, &message),
        }
    }
}
