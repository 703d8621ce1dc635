"""What registering a kernel with the code LM costs on one CPU core (issue 11: ≤ 50 ms per kernel).

    python -m benchmarks.lm_embed_cost [--weights models/code_lm/weights] [--kernels 413] [--threads 1]
        [--out benchmarks/results/lm/embed_cost.json]

For each kernel of the hand-written corpus (``data/corpus``): parse it (graph only), then one LM pass over
its translation unit and the per-node span means — what ``kgraph lm embed`` and the predictor do per kernel.
The LM time (tokenise + forward + span means) is timed apart from parsing, which a caller has done
already (the graph is built for the GNN anyway). Reports median, p90 and max per kernel, with the token
count, on ``--threads`` torch threads. Without trained weights (``--preset``) a randomly initialised LM of
the preset's shape is timed: the cost depends on the shape, not on the weights.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.lm_embed_cost", description=__doc__.splitlines()[0])
    p.add_argument("--weights", default="models/code_lm/weights", help="code-LM folder")
    p.add_argument("--preset", default=None, help="time a random LM of this preset instead of --weights")
    p.add_argument("--kernels", type=int, default=413, help="how many corpus kernels")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", default=None, help="JSON result file")
    args = p.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    import kgraph
    from kgraph.data.corpus import all_specs
    from kgraph.data.lm_corpus.tokenizer import load_tokenizer
    from kgraph.models.code_lm.embed import span_means, token_states
    from kgraph.models.code_lm.graph_features import load_lm, unit_text

    if args.preset:
        from kgraph.models.code_lm.config import PRESETS
        from kgraph.models.code_lm.model import build_model

        tok = load_tokenizer(Path(args.weights) / "tokenizer.json")
        model = build_model(PRESETS[args.preset], tok, seed=0).eval()
    else:
        model, tok = load_lm(args.weights)
    specs = list(all_specs())[: args.kernels]
    times, tokens = [], []
    with torch.no_grad():
        for spec in specs:
            graph = next(g for g in kgraph.from_source(spec.source, spec.lang, filename=f"k.{spec.lang}",
                                                        analyze=False) if g.name == spec.kernel_name)
            cols = graph.columns
            text = unit_text(graph)
            t0 = time.perf_counter()
            pooled, states, offsets = token_states(model, tok, text)
            span_means(states, offsets, pooled, list(zip(cols.start, cols.end)))
            times.append(time.perf_counter() - t0)
            tokens.append(int(states.shape[0]))
    ms = sorted(t * 1e3 for t in times[1:] or times)  # the first call pays one-off setup
    result = {"kernels": len(specs), "threads": args.threads, "median_ms": statistics.median(ms),
              "p90_ms": ms[int(0.9 * (len(ms) - 1))], "max_ms": ms[-1], "median_tokens": statistics.median(tokens),
              "max_tokens": max(tokens), "weights": args.preset or args.weights, "torch": torch.__version__,
              "cpu": platform.processor() or platform.machine(), "load": os.getloadavg()[0]}
    print(json.dumps(result, indent=1))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
