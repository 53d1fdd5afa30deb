//! The printer and the parser are inverse: random programs using every
//! instruction form, type, operand kind (registers, immediates of every
//! type with NaN payloads and extreme values, addresses with and without
//! objects, registers and negative offsets), labels and memory objects
//! print, parse back to themselves, and print identically again.

use mlu_isa::*;
use proptest::prelude::*;

fn ty() -> impl Strategy<Value = Ty> {
    prop::sample::select(Ty::ALL.to_vec())
}

fn vty() -> impl Strategy<Value = Ty> {
    prop::sample::select(vec![Ty::I8, Ty::I16, Ty::I32, Ty::I64, Ty::F32, Ty::F64])
}

fn reg() -> impl Strategy<Value = Reg> {
    (0u16..64).prop_map(Reg)
}

fn bits() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u64>(),
        Just(0u64),
        Just(u64::MAX),
        Just(0x7fc0_0000),
        Just(0xffa0_0001),
        Just(0x7ff0_0000_0000_0001),
        Just(1u64 << 63),
        (0u64..1000),
    ]
}

fn typed(t: Ty) -> impl Strategy<Value = Operand> {
    prop_oneof![reg().prop_map(Operand::Reg), bits().prop_map(move |b| Operand::Imm(t.canonical(b)))]
}

fn int() -> impl Strategy<Value = Operand> {
    prop_oneof![reg().prop_map(Operand::Reg), any::<i64>().prop_map(Operand::int), (0i64..4096).prop_map(Operand::int)]
}

fn addr(mems: u32) -> impl Strategy<Value = Addr> {
    (
        prop::sample::select(Space::ALL.to_vec()),
        prop::option::of(0..mems.max(1)).prop_map(move |m| m.filter(|_| mems > 0)),
        prop::option::of(reg()),
        prop_oneof![any::<i64>(), -300i64..300, Just(0)],
    )
        .prop_map(|(space, sym, base, offset)| Addr { space, sym: sym.map(MemId), base, offset })
}

fn vsrc(t: Ty, mems: u32) -> impl Strategy<Value = VSrc> {
    prop_oneof![addr(mems).prop_map(VSrc::Mem), typed(t).prop_map(VSrc::Scalar)]
}

fn inst(mems: u32, labels: u32) -> impl Strategy<Value = Inst> {
    let label = (0..labels.max(1)).prop_map(LabelId);
    let scalar = prop_oneof![
        ty().prop_flat_map(|t| (reg(), typed(t)).prop_map(move |(dst, src)| Inst::Mov { ty: t, dst, src })),
        (prop::sample::select(UnOp::ALL.to_vec()), ty())
            .prop_flat_map(|(op, t)| (reg(), typed(t)).prop_map(move |(dst, a)| Inst::Unary { op, ty: t, dst, a })),
        (prop::sample::select(BinOp::ALL.to_vec()), ty()).prop_flat_map(|(op, t)| {
            (reg(), typed(t), typed(t)).prop_map(move |(dst, a, b)| Inst::Binary { op, ty: t, dst, a, b })
        }),
        (prop::sample::select(IntCC::ALL.to_vec()), ty()).prop_flat_map(|(cc, t)| {
            (reg(), typed(t), typed(t)).prop_map(move |(dst, a, b)| Inst::Setp { cc, ty: t, dst, a, b })
        }),
        (prop::sample::select(FloatCC::ALL.to_vec()), ty()).prop_flat_map(|(cc, t)| {
            (reg(), typed(t), typed(t)).prop_map(move |(dst, a, b)| Inst::Fsetp { cc, ty: t, dst, a, b })
        }),
        ty().prop_flat_map(|t| {
            (reg(), reg(), typed(t), typed(t)).prop_map(move |(dst, cond, a, b)| Inst::Select {
                ty: t,
                dst,
                cond,
                a,
                b,
            })
        }),
        (prop::sample::select(ConvOp::ALL.to_vec()), ty(), ty()).prop_flat_map(|(op, to, from)| {
            (reg(), typed(from)).prop_map(move |(dst, src)| Inst::Convert { op, to, from, dst, src })
        }),
        (ty(), reg(), addr(mems)).prop_map(|(t, dst, addr)| Inst::Load { ty: t, dst, addr }),
        ty().prop_flat_map(move |t| (addr(mems), typed(t)).prop_map(move |(addr, value)| Inst::Store {
            ty: t,
            addr,
            value
        })),
        (reg(), prop::sample::select(Sreg::ALL.to_vec())).prop_map(|(dst, sreg)| Inst::ReadSreg { dst, sreg }),
        label.clone().prop_map(|target| Inst::Jump { target }),
        (any::<bool>(), reg(), label).prop_map(|(on_zero, cond, target)| Inst::Branch { on_zero, cond, target }),
        prop::sample::select(vec![Inst::Exit, Inst::Trap, Inst::Nop]),
    ];
    let vector = prop_oneof![
        (prop::sample::select(VUnOp::ALL.to_vec()), vty()).prop_flat_map(move |(op, t)| {
            (addr(mems), addr(mems), int()).prop_map(move |(dst, src, n)| Inst::VUnary { op, ty: t, dst, src, n })
        }),
        (prop::sample::select(VBinOp::ALL.to_vec()), vty()).prop_flat_map(move |(op, t)| {
            (addr(mems), vsrc(t, mems), vsrc(t, mems), int()).prop_map(move |(dst, a, b, n)| Inst::VBinary {
                op,
                ty: t,
                dst,
                a,
                b,
                n,
            })
        }),
        vty().prop_flat_map(move |t| {
            (addr(mems), vsrc(t, mems), vsrc(t, mems), vsrc(t, mems), int())
                .prop_map(move |(dst, a, b, c, n)| Inst::VFma { ty: t, dst, a, b, c, n })
        }),
        vty().prop_flat_map(move |t| {
            (addr(mems), typed(t), int()).prop_map(move |(dst, value, n)| Inst::VFill { ty: t, dst, value, n })
        }),
        (prop::sample::select(ConvOp::ALL.to_vec()), vty(), vty(), addr(mems), addr(mems), int())
            .prop_map(|(op, to, from, dst, src, n)| Inst::VConvert { op, to, from, dst, src, n }),
        (prop::sample::select(RedOp::ALL.to_vec()), vty(), reg(), addr(mems), int())
            .prop_map(|(op, t, dst, src, n)| Inst::VReduce { op, ty: t, dst, src, n }),
        (vty(), addr(mems), addr(mems), addr(mems), int(), int(), int())
            .prop_map(|(t, c, a, b, m, k, n)| Inst::Matmul { ty: t, c, a, b, m, k, n }),
        (addr(mems), addr(mems), int()).prop_map(|(dst, src, bytes)| Inst::Dma { dst, src, bytes }),
        (addr(mems), addr(mems), int(), int(), int(), int()).prop_map(
            |(dst, src, bytes, dst_stride, src_stride, rows)| {
                Inst::Dma2d { dst, src, bytes, dst_stride, src_stride, rows }
            }
        ),
        prop::sample::select(SyncKind::ALL.to_vec()).prop_map(Inst::Sync),
        (prop::sample::select(Scope::ALL.to_vec()), int(), int()).prop_map(|(scope, id, count)| Inst::Barrier {
            scope,
            id,
            count
        }),
    ];
    prop_oneof![scalar, vector]
}

fn program() -> impl Strategy<Value = Program> {
    let mems = prop::collection::vec(
        (
            ty(),
            0u64..5000,
            prop::sample::select(Space::ALL.to_vec()),
            prop::option::of(0u64..100_000),
            prop::collection::vec(bits(), 0..4),
        ),
        0..5,
    );
    (mems, 0u32..6).prop_flat_map(|(mems, nlabels)| {
        let m = mems.len() as u32;
        (Just(mems), prop::collection::vec(inst(m, nlabels), 0..40), prop::collection::vec(0u32..41, nlabels as usize))
            .prop_map(|(mems, insts, mut label_at)| {
                let mut p = Program::new();
                for (i, (t, len, space, addr, init)) in mems.into_iter().enumerate() {
                    let init: Vec<u64> = init.into_iter().take(len as usize).collect();
                    p.add_mem(&format!("m{i}"), t, len, space, addr, init).unwrap();
                }
                let has_labels = !label_at.is_empty();
                p.insts = insts;
                if !has_labels {
                    // Branches need a label to name.
                    label_at.push(0);
                }
                label_at.sort_unstable();
                for (i, at) in label_at.into_iter().enumerate() {
                    p.add_label(&format!("L{i}"), at.min(p.insts.len() as u32)).unwrap();
                }
                p
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn print_parse_round_trip(p in program()) {
        let printed = text::print_program(&p);
        let (q, smap) = text::parse(&printed).map_err(|e| TestCaseError::fail(format!("{e:?}\n{printed}")))?;
        prop_assert_eq!(&q, &p, "{}", printed);
        prop_assert_eq!(text::print_program(&q), printed);
        prop_assert_eq!(smap.insts.len(), p.insts.len());
        // The verifier never panics on what parses.
        let _ = verify(&p, &MachineConfig::mlu270());
    }
}
