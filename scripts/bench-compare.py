#!/usr/bin/env python3
"""Compares two criterion runs cell by cell: for each benchmark group given
(a regex on the group name; all groups by default), every peer's mean in
both runs, and the ratio of two peers (ours / theirs) before and after.

    python3 scripts/bench-compare.py BEFORE/target/criterion target/criterion \\
        --groups 'dominators-.*' --ours cfg-dom --theirs petgraph

Run each side with the same command on the same machine, nothing else
running. Means in ms (criterion's `estimates.json`, `mean`)."""
import argparse, glob, json, re


def load(root):
    out = {}
    for f in glob.glob(f"{root}/*/*/*/new/estimates.json"):
        group, peer, param = f[len(root) + 1:].split("/")[:3]
        out[(group, peer, param)] = json.load(open(f))["mean"]["point_estimate"] / 1e6
    return out


def fmt(ms):
    return "—" if ms is None else f"{ms:.3f}" if ms < 10 else f"{ms:.1f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--groups", default=".*")
    ap.add_argument("--params", default=".*", help="regex on the parameter (size) column")
    ap.add_argument("--ours", required=True)
    ap.add_argument("--theirs", required=True)
    a = ap.parse_args()
    before, after = load(a.before), load(a.after)
    keys = sorted(
        {(g, p) for g, _, p in before.keys() | after.keys() if re.fullmatch(a.groups, g) and re.fullmatch(a.params, p)},
        key=lambda k: (k[0], [int(x) for x in re.findall(r"\d+", k[1])], k[1]),
    )
    print(f"| group | size | {a.ours} before | {a.ours} after | {a.theirs} before | {a.theirs} after "
          f"| ratio before | ratio after | ratio change |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for g, p in keys:
        ob, oa = before.get((g, a.ours, p)), after.get((g, a.ours, p))
        tb, ta = before.get((g, a.theirs, p)), after.get((g, a.theirs, p))
        rb = tb / ob if ob and tb else None
        ra = ta / oa if oa and ta else None
        change = f"{ra / rb:.2f}" if ra and rb else "—"
        print(f"| {g} | {p} | {fmt(ob)} | {fmt(oa)} | {fmt(tb)} | {fmt(ta)} | "
              f"{'—' if rb is None else f'{rb:.1f}x'} | {'—' if ra is None else f'{ra:.1f}x'} | {change} |")


if __name__ == "__main__":
    main()
