"""Static footprint (kgraph/analysis/footprint.py) against the instrumented ``footprint_bytes``.

    PYTHONPATH=. .venv/bin/python benchmarks/footprint_static.py [--dataset data/datasets/nvidia-h200]
        [--family F] [--show-inexact-exact]

For every corpus kernel (``kgraph.data.corpus.all_specs()``) and every ok row of the dataset with
``counts_source == "instrumented"``: the static footprint at the row's global/local size and scalar
arguments vs ``footprint_bytes``. Prints the share of rows marked exact, the MAPE on those rows (should
be ~0: the flag must not lie), the MAPE over every row with a static value, and the worst families.
"""
from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict

import numpy as np


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default="data/datasets/nvidia-h200")
    parser.add_argument("--family", default=None)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--predictions", help="a model's predictions parquet (models/predictions.py): also report "
                        "its footprint MAPE on these rows alone and with the exact static footprint in its place")
    args = parser.parse_args(argv)

    from kgraph.data.corpus import all_specs
    from kgraph.data.harness.store import read_launches
    from kgraph.analysis import analyze
    from kgraph.analysis.footprint import static_footprint
    from kgraph.parsers import parse_source

    t0 = time.time()
    df = read_launches(args.dataset)
    df = df[(df.status == "ok") & (df.counts_source == "instrumented") & (df.footprint_bytes >= 0)]
    specs = {s.kernel_id: s for s in all_specs()}
    if args.family:
        df = df[df.family == args.family]
    model_fp = None
    if args.predictions:
        import pandas as pd

        pred = pd.read_parquet(args.predictions)
        model_fp = dict(zip(pred["key"], np.expm1(pred["pred_log_footprint"])))
        df = df[df.key.isin(model_fp)]
    fps, failed = {}, {}
    rows = []  # (family, kernel_id, truth, static or None, exact)
    for kernel_id, group in df.groupby("kernel_id", sort=True):
        spec = specs.get(kernel_id)
        if spec is None:
            continue
        if kernel_id not in fps:
            try:
                unit = parse_source(spec.source, spec.lang)
                fn = next(k for k in unit.kernels if k.name == spec.kernel_name)
                fps[kernel_id] = static_footprint(fn, unit, analyze(fn, unit))
            except Exception as exc:  # noqa: BLE001 - reported, the kernel counts as no estimate
                failed[kernel_id] = f"{type(exc).__name__}: {exc}"
                fps[kernel_id] = None
        fp = fps[kernel_id]
        cache = {}
        for r in group.itertuples(index=False):
            key = (r.args, r.g0, r.g1, r.g2, r.l0, r.l1, r.l2)
            if key not in cache:
                if fp is None:
                    cache[key] = (None, False)
                else:
                    env = dict(json.loads(r.args) if r.args else {})
                    env.update({"gsz0": r.g0, "gsz1": r.g1, "gsz2": r.g2, "lsz0": r.l0, "lsz1": r.l1, "lsz2": r.l2})
                    res = fp.evaluate(env)
                    cache[key] = (res.total_bytes, res.exact)
            est, exact = cache[key]
            rows.append((r.family, kernel_id, float(r.footprint_bytes), est, exact, r.key))
    elapsed = time.time() - t0

    def ape(truth, est):
        return abs(est - truth) / truth * 100 if truth > 0 else (0.0 if est == 0 else 100.0)

    n = len(rows)
    with_est = [r for r in rows if r[3] is not None]
    ex = [r for r in with_est if r[4]]
    print(f"dataset {args.dataset}: {n} instrumented rows, {len({r[1] for r in rows})} kernels "
          f"({len(failed)} failed to analyse), {elapsed:.1f} s")
    print(f"{'rows':28s} {'n':>7s} {'share':>7s} {'MAPE %':>9s} {'max APE %':>10s} {'APE>0.01% rows':>15s}")
    for label, sel in (("marked exact", ex), ("static value (any)", with_est),
                       ("static value, not exact", [r for r in with_est if not r[4]])):
        apes = [ape(r[2], r[3]) for r in sel]
        print(f"{label:28s} {len(sel):7d} {len(sel) / max(n, 1) * 100:6.1f}% "
              f"{(np.mean(apes) if apes else float('nan')):9.3f} {(max(apes) if apes else float('nan')):10.3f} "
              f"{sum(a > 0.01 for a in apes):15d}")
    print(f"{'no static value':28s} {n - len(with_est):7d} {(n - len(with_est)) / max(n, 1) * 100:6.1f}%")
    fam = defaultdict(list)
    for r in rows:
        fam[r[0]].append(r)
    table = []
    for f, rs in fam.items():
        est = [r for r in rs if r[3] is not None]
        exr = [r for r in est if r[4]]
        table.append((f, len(rs), len(exr) / len(rs) * 100,
                      np.mean([ape(r[2], r[3]) for r in exr]) if exr else float("nan"),
                      np.mean([ape(r[2], r[3]) for r in est]) if est else float("nan"), len(est) / len(rs) * 100))
    print(f"\nper family (sorted by share exact, then MAPE of static values; worst first, {args.top} shown)")
    print(f"{'family':22s} {'rows':>6s} {'exact %':>8s} {'MAPE exact':>11s} {'has value %':>12s} {'MAPE value':>11s}")
    table.sort(key=lambda t: (t[2], -(t[4] if t[4] == t[4] else 1e9)))
    for f, cnt, share, mex, share_v, mall in [(t[0], t[1], t[2], t[3], t[5], t[4]) for t in table][: args.top]:
        print(f"{f:22s} {cnt:6d} {share:7.1f}% {mex:11.3f} {share_v:11.1f}% {mall:11.3f}")
    if model_fp is not None:
        learned = [ape(r[2], model_fp[r[5]]) for r in rows]
        combined = [ape(r[2], r[3]) if r[4] else ape(r[2], model_fp[r[5]]) for r in rows]
        print(f"\n{args.predictions}: footprint MAPE on these {n} rows: model {np.mean(learned):.2f}%, "
              f"exact static where available else model {np.mean(combined):.2f}% "
              f"(median APE {np.median(learned):.2f}% -> {np.median(combined):.2f}%)")
    lying = defaultdict(int)
    for r in ex:
        if ape(r[2], r[3]) > 0.01:
            lying[r[1]] += 1
    if lying:
        print("\nkernels marked exact with an error > 0.01%: " + ", ".join(f"{k} ({v})" for k, v in sorted(lying.items())))
    if failed:
        print("\nfailed: " + "; ".join(f"{k}: {v}" for k, v in sorted(failed.items())[:10]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
