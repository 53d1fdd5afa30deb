#!/usr/bin/env python3
"""Prints the tables of docs/benchmarks-defuse.md from criterion's output
(run from the workspace root, optionally with another criterion directory
as its argument, after `cargo bench -p benches --bench
du_chains`, `ssa_construction` and/or `corpus_du`). Means, in ms."""
import glob, json, math, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
mean = {}
for f in glob.glob(f"{root}/*/*/*/new/estimates.json"):
    group, peer, param = f[len(root) + 1:].split("/")[:3]
    mean[(group, peer, param)] = json.load(open(f))["mean"]["point_estimate"] / 1e6  # ms


def fmt(ms):
    return "—" if ms is None else f"{ms:.3f}" if ms < 10 else f"{ms:.1f}"


def ratio(a, b):
    return "—" if a is None or b is None else f"{a / b:.1f}x"


def cells(group):
    key = lambda p: tuple(int(x) for x in re.findall(r"\d+", p))
    return sorted({p for g, _, p in mean if g == group}, key=key)


for shape in ["structured", "irreducible", "chain"]:
    g = f"du-chains-{shape}"
    if not cells(g):
        continue
    print(f"\n### {g}\n\n| blocks x vars, pred % | via-ssa ms | iterative ms | iterative / via-ssa |")
    print("|---|---:|---:|---:|")
    for p in cells(g):
        s, i = mean.get((g, "via-ssa", p)), mean.get((g, "iterative", p))
        print(f"| {p} | {fmt(s)} | {fmt(i)} | {ratio(i, s)} |")
    for vars_, pred in [(64, 0), (1024, 0), (1024, 10), (4096, 0)]:
        lo, hi = (mean.get((g, "via-ssa", f"{b}x{vars_}p{pred}")) for b in (100, 100000))
        if lo and hi:
            print(f"\nslope of via-ssa, {vars_} vars p{pred}, 10^2..10^5 blocks: {math.log(hi / lo) / math.log(1000):.2f}")
        lo, hi = (mean.get((g, "via-ssa", f"{b}x{vars_}p{pred}")) for b in (1000, 100000))
        if lo and hi:
            print(f"slope of via-ssa, {vars_} vars p{pred}, 10^3..10^5 blocks: {math.log(hi / lo) / math.log(100):.2f}")

for shape in ["structured", "irreducible"]:
    g = f"ssa-construction-{shape}"
    if not cells(g):
        continue
    peers = ["keel-construct", "keel-build", "keel-build-construct", "cranelift-seal-asap", "cranelift-seal-end"]
    print(f"\n### {g}\n\n| blocks x vars, pred % | " + " | ".join(peers) + " | asap / keel-build-construct | asap / keel-construct |")
    print("|---|" + "---:|" * (len(peers) + 2))
    for p in cells(g):
        t = {peer: mean.get((g, peer, p)) for peer in peers}
        print(f"| {p} | " + " | ".join(fmt(t[x]) for x in peers)
              + f" | {ratio(t['cranelift-seal-asap'], t['keel-build-construct'])} | {ratio(t['cranelift-seal-asap'], t['keel-construct'])} |")

for g in ["corpus-du-largest", "corpus-du-module"]:
    if not cells(g) and not any(gg == g for gg, _, _ in mean):
        continue
    ps = sorted({p for gg, _, p in mean if gg == g})
    print(f"\n### {g}\n\n| cell | via-ssa ms | iterative ms | iterative / via-ssa |\n|---|---:|---:|---:|")
    for p in ps:
        s, i = mean.get((g, "via-ssa", p)), mean.get((g, "iterative", p))
        print(f"| {p} | {fmt(s)} | {fmt(i)} | {ratio(i, s)} |")
