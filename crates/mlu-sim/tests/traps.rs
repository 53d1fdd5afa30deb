//! Every trap kind, in both modes, naming the core, the instruction and the
//! cycle; and what the simulator refuses to load.

use mlu_isa::{Addr, BinOp, Inst, MachineConfig, Operand, Program, Reg, Space, Ty, text};
use mlu_sim::{
    CoreRef, Instance, LoadError, Missing, Mode, RaceMode, SimOptions, Simulator, Trap, TrapKind, WriteError,
};

fn run(p: &Program, clusters: u32, cores: u32, mode: Mode) -> Trap {
    let opts = SimOptions { clusters, cores: Some(cores), mode, fuel: 100_000, ..SimOptions::default() };
    Simulator::new(p, &MachineConfig::mlu370(), opts).unwrap().run().expect_err("the program should trap")
}

fn parse(src: &str) -> Program {
    text::parse(src).unwrap_or_else(|e| panic!("{e:?}")).0
}

/// Checks kind, core and instruction in both modes; returns the cycle-mode trap.
fn expect(p: &Program, cores: u32, kind: TrapKind, core: u32, pc: u32, inst: &str, msg: &str) -> Trap {
    let mut last = None;
    for mode in [Mode::Functional, Mode::Cycle] {
        let t = run(p, 1, cores, mode);
        assert_eq!(t.kind, kind, "{mode:?}: {t}");
        assert_eq!(t.core.map(|c| c.task), Some(core), "{mode:?}: {t}");
        assert_eq!(t.pc, Some(pc), "{mode:?}: {t}");
        assert_eq!(t.inst.as_deref(), Some(inst), "{mode:?}: {t}");
        assert!(t.message.contains(msg), "{mode:?}: {} does not mention {msg:?}", t.message);
        last = Some(t);
    }
    last.unwrap()
}

#[test]
fn misalignment() {
    let p = parse(".mem @a: f32[256] nram\n    vexp.f32 nram[@a + 4], nram[@a], 64\n    exit\n");
    expect(&p, 1, TrapKind::Misaligned, 0, 0, "vexp.f32 nram[@a + 4], nram[@a], 64", "not aligned to 128 bytes");
    let p = parse(".mem @a: f32[256] nram\n    mov.i64 %r1, 63\n    vexp.f32 nram[@a], nram[@a], %r1\n    exit\n");
    expect(&p, 1, TrapKind::Misaligned, 0, 1, "vexp.f32 nram[@a], nram[@a], %r1", "not a multiple of 64");
    let p = parse(".mem @a: f32[4] nram\n    mov.i64 %r1, 2\n    ld.f32 %r2, nram[@a + %r1]\n    exit\n");
    expect(&p, 1, TrapKind::Misaligned, 0, 1, "ld.f32 %r2, nram[@a + %r1]", "not aligned to 4 bytes");
    let p = parse(
        ".mem @x: i8[256] dram\n.mem @w: i8[256] wram\n    mov.i64 %r1, 32\n    dma wram[@w + %r1], dram[@x], 64\n    exit\n",
    );
    expect(&p, 1, TrapKind::Misaligned, 0, 1, "dma wram[@w + %r1], dram[@x], 64", "not aligned to 64 bytes");
}

#[test]
fn capacity_and_bounds() {
    let p = parse("    mov.i64 %r1, 786432\n    st.i32 nram[%r1], 7\n    exit\n");
    expect(&p, 1, TrapKind::Capacity, 0, 1, "st.i32 nram[%r1], 7", "exceed its capacity of 786432 bytes");
    let p = parse(".mem @x: f32[16] dram\n    mov.i64 %r2, 64\n    ld.f32 %r1, dram[@x + %r2]\n    exit\n");
    expect(
        &p,
        1,
        TrapKind::OutOfBounds,
        0,
        1,
        "ld.f32 %r1, dram[@x + %r2]",
        "outside the program's DRAM objects (0..64)",
    );
    let p = parse("    mov.i64 %r1, -8\n    ld.i64 %r2, nram[%r1]\n    exit\n");
    expect(&p, 1, TrapKind::OutOfBounds, 0, 1, "ld.i64 %r2, nram[%r1]", "negative");
}

#[test]
fn unknown_direction_and_malformed_instructions_from_the_api() {
    let mut p = Program::new();
    p.push(Inst::Dma { dst: Addr::abs(Space::Dram, 0), src: Addr::abs(Space::Wram, 0), bytes: Operand::int(64) });
    p.push(Inst::Exit);
    expect(&p, 1, TrapKind::UnknownDirection, 0, 0, "dma dram[0], wram[0], 64", "WRAM2GDRAM");
    let mut p = Program::new();
    p.push(Inst::Binary { op: BinOp::Fadd, ty: Ty::I32, dst: Reg(1), a: Operand::Reg(Reg(1)), b: Operand::Imm(1) });
    p.push(Inst::Exit);
    expect(&p, 1, TrapKind::Malformed, 0, 0, "fadd.i32 %r1, %r1, 1", "does not take i32");
    let mut p = Program::new();
    p.push(Inst::Nop);
    let t = run(&p, 1, 1, Mode::Cycle);
    assert_eq!((t.kind, t.pc, t.inst.as_deref()), (TrapKind::FellOffEnd, Some(1), None));
}

#[test]
fn deadlocks_name_the_barrier() {
    // Only core 0 reaches a barrier counting the whole cluster.
    let src = "    sreg %r0, %coreid\n    br %r0, done\n    barrier.sync.local 0, 4\ndone:\n    exit\n";
    let t = expect(
        &parse(src),
        4,
        TrapKind::Deadlock,
        0,
        2,
        "barrier.sync.local 0, 4",
        "waits for 4 cores but only 1 arrived",
    );
    assert_eq!(t.cycle, 2, "core 0 reaches the barrier at cycle 2");
    // A global barrier over two clusters that one cluster skips.
    let src = "    sreg %r0, %clusterid\n    br %r0, done\n    barrier.sync.global 3, 8\ndone:\n    exit\n";
    for mode in [Mode::Functional, Mode::Cycle] {
        let t = run(&parse(src), 2, 4, mode);
        assert_eq!(t.kind, TrapKind::Deadlock);
        assert!(
            t.message.contains("barrier.sync.global 3 waits for 8 cores but only 4 arrived (cores 0, 1, 2, 3)"),
            "{t}"
        );
    }
}

#[test]
fn barrier_counts_must_agree() {
    let src = "    sreg %r0, %coreid\n    add.i64 %r1, %r0, 2\n    barrier.sync.local 0, %r1\n    exit\n";
    for mode in [Mode::Functional, Mode::Cycle] {
        let t = run(&parse(src), 1, 4, mode);
        assert_eq!(t.kind, TrapKind::BarrierMismatch, "{t}");
        assert_eq!(t.core, Some(CoreRef { cluster: 0, core: 1, task: 1 }));
        assert!(t.message.contains("gives the count 3; the first core at this barrier gave 2"), "{t}");
    }
}

#[test]
fn arithmetic_counts_fuel_and_trap_instructions() {
    let p = parse("    mov.i32 %r1, 0\n    sdiv.i32 %r2, 7, %r1\n    exit\n");
    expect(&p, 1, TrapKind::Arithmetic, 0, 1, "sdiv.i32 %r2, 7, %r1", "division by zero");
    let p = parse(".mem @a: i32[64] nram\n    vdiv.i32 nram[@a], nram[@a], 0, 64\n    exit\n");
    expect(&p, 1, TrapKind::Arithmetic, 0, 0, "vdiv.i32 nram[@a], nram[@a], 0, 64", "division by zero");
    let p = parse("    fptosi.i8.f32 %r1, 300.0\n    exit\n");
    expect(&p, 1, TrapKind::Arithmetic, 0, 0, "fptosi.i8.f32 %r1, 300.0", "conversion");
    let p = parse(".mem @a: i8[64] nram\n    mov.i64 %r1, -64\n    dma nram[@a], nram[@a], %r1\n    exit\n");
    expect(&p, 1, TrapKind::BadCount, 0, 1, "dma nram[@a], nram[@a], %r1", "negative (-64)");
    let p = parse("loop:\n    jmp loop\n");
    expect(&p, 1, TrapKind::Fuel, 0, 0, "jmp loop", "fuel");
    let p = parse("    nop\n    trap\n");
    let t = expect(&p, 1, TrapKind::TrapInstruction, 0, 1, "trap", "trap");
    assert_eq!(t.cycle, 1);
    assert!(
        t.to_string().starts_with("trap instruction on core 0 (cluster 0, core 0) at instruction 1 `trap`, cycle 1"),
        "{t}"
    );
}

#[test]
fn huge_copies_stop_on_fuel_and_the_host_memory_budget() {
    // 10^9 one-byte rows: the fuel is charged before any per-row work.
    let p = parse(
        ".mem @s: i8[1] dram\n.mem @d: i8[1] nram\n    dma2d nram[@d], dram[@s], 1, 0, 0, 1000000000\n    sync.io\n    exit\n",
    );
    expect(&p, 1, TrapKind::Fuel, 0, 0, "dma2d nram[@d], dram[@s], 1, 0, 0, 1000000000", "fuel ran out");
    // Rows two bytes apart stay separate ranges in the race detector, which
    // are charged against the host memory budget as they are recorded.
    let cfg = MachineConfig::mlu370();
    let on_chip = cfg.nram_bytes + cfg.wram_bytes + cfg.sram_bytes;
    let p = parse(
        ".mem @s: i8[2000000] dram = [0, 0, 7]\n.mem @d: i8[1] nram\n    dma2d nram[@d], dram[@s], 1, 0, 2, 1000000\n    sync.io\n    exit\n",
    );
    let memories = 2_000_000 + on_chip;
    for mode in [Mode::Functional, Mode::Cycle] {
        let tight = SimOptions { cores: Some(1), mode, max_memory: memories + 64 * 1000, ..SimOptions::default() };
        let t = Simulator::new(&p, &cfg, tight.clone()).unwrap().run().unwrap_err();
        assert_eq!((t.kind, t.pc), (TrapKind::HostMemory, Some(0)), "{t}");
        assert!(t.message.contains("the race detector's record of 1001 in-flight byte ranges"), "{t}");
        assert!(t.message.contains(&format!("{memories} bytes of the simulated memories")), "{t}");
        assert!(t.message.contains(&format!("the limit is {} bytes", memories + 64_000)), "{t}");
        assert!(t.to_string().starts_with("out of host memory on core 0"), "{t}");
        // Without race detection nothing is recorded; with the default
        // budget the ranges fit. The last row wins.
        for opts in
            [SimOptions { races: RaceMode::Off, ..tight }, SimOptions { cores: Some(1), mode, ..SimOptions::default() }]
        {
            let mut sim = Simulator::new(&p, &cfg, opts).unwrap();
            sim.write("s", &[0, 0, 0, 0, 0, 0, 0, 0]).unwrap();
            sim.write("d", &[1]).unwrap();
            sim.run().unwrap();
            assert_eq!(sim.read("d", Instance::Core(0)), Some(vec![0]));
        }
    }
    // A copy whose source overlaps its destination is staged; the staging
    // buffer is charged before it is taken.
    let p =
        parse(".mem @d: i8[700000] nram\n    dma2d nram[@d + 4], nram[@d], 8, 4, 8, 80000\n    sync.move\n    exit\n");
    let memories = on_chip;
    for races in [RaceMode::Error, RaceMode::Off] {
        let opts = SimOptions { cores: Some(1), races, max_memory: memories + 600_000, ..SimOptions::default() };
        let t = Simulator::new(&p, &cfg, opts).unwrap().run().unwrap_err();
        assert_eq!(t.kind, TrapKind::HostMemory, "{t}");
        assert!(t.message.contains("staging this copy's source (640000 bytes; it overlaps the destination)"), "{t}");
        let opts = SimOptions { cores: Some(1), races, max_memory: memories + 640_000, ..SimOptions::default() };
        Simulator::new(&p, &cfg, opts).unwrap().run().unwrap();
    }
}

#[test]
fn what_cannot_load_is_an_error() {
    let cfg = MachineConfig::mlu370();
    let p = parse("    exit\n");
    let new = |p: &Program, o: SimOptions| Simulator::new(p, &cfg, o).map(|_| ()).unwrap_err();
    let e = new(&p, SimOptions { clusters: 0, ..SimOptions::default() });
    assert_eq!(e, LoadError::Clusters { config: "mlu370".into(), max: 8, asked: 0 });
    assert!(e.to_string().contains("1 to 8 clusters"));
    assert!(new(&p, SimOptions { clusters: 9, ..SimOptions::default() }).to_string().contains("1 to 8 clusters"));
    let e = new(&p, SimOptions { cores: Some(5), ..SimOptions::default() });
    assert_eq!(e.to_string(), "mlu370 has 1 to 4 cores per cluster, not 5");
    let mut q = Program::new();
    q.push(Inst::Mov { ty: Ty::I32, dst: Reg(64), src: Operand::Imm(0) });
    let e = new(&q, SimOptions::default());
    assert!(e.to_string().contains("%r64 is not one of the 64 registers"), "{e}");
    assert!(matches!(e, LoadError::Instruction { pc: 0, missing: Missing::Register { reg: Reg(64), gprs: 64 }, .. }));
    let mut q = Program::new();
    q.push(Inst::Jump { target: mlu_isa::LabelId(0) });
    assert!(new(&q, SimOptions::default()).to_string().contains("label 0 does not exist"));
    let big = parse(".mem @a: f32[1000000] nram\n    exit\n");
    let e = new(&big, SimOptions::default());
    assert!(e.to_string().contains("does not fit"));
    assert!(
        matches!(e, LoadError::ObjectTooLarge { ref name, start: 0, end: 4_000_000, space: Space::Nram, .. } if name == "a")
    );
    let bad = MachineConfig { gprs: 0, ..cfg.clone() };
    let e = Simulator::new(&p, &bad, SimOptions::default()).unwrap_err();
    assert!(e.to_string().contains("`gprs` must be positive"));
    let source = std::error::Error::source(&e).map(|s| s.to_string());
    assert_eq!(source.as_deref(), Some("`gprs` must be positive"));
    let e = new(&p, SimOptions { max_memory: 1000, ..SimOptions::default() });
    assert!(matches!(e, LoadError::HostMemory { limit: 1000, .. }), "{e}");
    // An API-built object with more initial values than elements is
    // refused, not written past its end.
    let mut q = parse(".mem @a: i8[4] nram\n    exit\n");
    q.mems[0].init = vec![1; 5];
    assert_eq!(new(&q, SimOptions::default()), LoadError::TooManyInitialValues { name: "a".into(), values: 5, len: 4 });
}

#[test]
fn what_cannot_be_written_is_an_error() {
    let p = parse(".mem @a: i8[4] nram\n    exit\n");
    let mut sim = Simulator::new(&p, &MachineConfig::mlu370(), SimOptions::default()).unwrap();
    let e = sim.write("b", &[1]).unwrap_err();
    assert_eq!(e, WriteError::UnknownObject { name: "b".into() });
    assert_eq!(e.to_string(), "no memory object @b");
    let e = sim.write("a", &[1; 5]).unwrap_err();
    assert_eq!(e, WriteError::TooManyValues { name: "a".into(), len: 4, given: 5 });
    assert_eq!(e.to_string(), "@a has 4 elements; 5 values given");
    sim.write("a", &[1; 4]).unwrap();
}
