"""Build the graph cache of a set of datasets once, before several fits share it (fits building one cache at
once would race): ``python -m benchmarks.build_graph_cache CACHE_DIR DATASET...``."""
from __future__ import annotations

import sys
import time


def main(argv: list[str] | None = None) -> int:
    from kgraph.data.datamodule import KGraphDataModule

    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2:
        print("usage: python -m benchmarks.build_graph_cache CACHE_DIR DATASET...", file=sys.stderr)
        return 2
    start = time.perf_counter()
    dm = KGraphDataModule(datasets=argv[1:], cache_dir=argv[0], split="unseen_launch")
    dm.setup("fit")
    print(f"{len(dm.graphs)} graphs, {len(dm.graphs.failed)} failed, {len(dm.table)} launches, "
          f"{time.perf_counter() - start:.0f} s")
    for key, why in list(dm.graphs.failed.items())[:10]:
        print(f"  failed {key}: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
