"""Issue 14 row 14: the exported C validates every input with a distinct return code, under
AddressSanitizer + UndefinedBehaviorSanitizer, fed NaN/inf/zero/negative/huge values."""
from __future__ import annotations

import math
import os
import re
import shutil
import subprocess

import numpy as np
import pytest
import torch

from kgraph.data.corpus import tile_kernel_files
from kgraph.models.compact import CompactConfig, CompactHead
from kgraph.models.export import to_c
from kgraph.models.export.c_api import ERRORS, MAX_ITEMS, code
from kgraph.models.export.c_driver import INTERVAL_COLUMNS, SANITIZE_FLAGS, build_driver
from kgraph.models.export.features_c import to_features_c

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
KERNELS = ["tile_gemm", "tile_trsm"]
CODE_DIM = 4
# LeakSanitizer needs ptrace, which containers often refuse; nothing here allocates
SANITIZER_ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:halt_on_error=1",
                     UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")
NULL_CASES = r"""
#include "kgraph_model.h"
#include <stdio.h>
int main(void) {
  kgraph_prediction p;
  double x[KGRAPH_N_LAUNCH] = {0}, g[3] = {64, 1, 1}, l[3] = {8, 1, 1}, args[2] = {64, 1}, f[KGRAPH_N_LAUNCH];
  float emb[KGRAPH_CODE_DIM] = {0};
  double d[KGRAPH_N_DEVICE_FEATURES] = {0};
  int k = kgraph_kernel_index("tile_gemm");
  printf("kernel_null %d\n", kgraph_kernel_index(NULL));
  printf("kernel_unknown %d\n", kgraph_kernel_index("no_such_kernel"));
  printf("device_null %d\n", kgraph_device_index(NULL));
  printf("device_unknown %d\n", kgraph_device_index("no-such-device"));
  printf("predict_name_null %d\n", kgraph_predict(NULL, x, 0, &p));
  printf("predict_x_null %d\n", kgraph_predict("tile_gemm", NULL, 0, &p));
  printf("predict_out_null %d\n", kgraph_predict("tile_gemm", x, 0, NULL));
  printf("embedding_code_null %d\n", kgraph_predict_embedding(NULL, x, d, &p));
  printf("embedding_device_null %d\n", kgraph_predict_embedding(emb, x, NULL, &p));
  printf("embedding_out_null %d\n", kgraph_predict_embedding(emb, x, d, NULL));
  printf("features_out_null %d\n", kgraph_features(k, 1, g, l, args, 2, 0, NULL));
  printf("features_global_null %d\n", kgraph_features(k, 1, NULL, l, args, 2, 0, f));
  printf("features_args_null %d\n", kgraph_features(k, 1, g, l, NULL, 2, 0, f));
  printf("features_args_null_none %d\n", kgraph_features(k, 1, g, l, NULL, 0, 0, f));
  printf("strerror_unknown %s\n", kgraph_strerror(12345));
  return 0;
}
"""


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    """A tiny head in the kgraph.data.features layout whose time is exp(1000 * relu(first launch
    feature)) ns (finite below 0.7, overflowing at 1), exported with two tile kernels, and its driver
    built under the sanitizers."""
    root = tmp_path_factory.mktemp("cval")
    cfg = CompactConfig.for_dataset_features(code_dim=CODE_DIM, size="tiny")
    head = CompactHead(cfg).eval()
    with torch.no_grad():
        for layer in head.layers:
            layer.weight.zero_()
            layer.bias.zero_()
        head.layers[0].weight[0, CODE_DIM] = 1.0
        head.layers[1].weight[0, 0] = 1000.0
    sources = {k: ((tile_kernel_files()[0].parent / f"{k}.cl").read_text(), "opencl") for k in KERNELS}
    devices = {"dev0": torch.zeros(len(cfg.device_names)), "dev1": torch.ones(len(cfg.device_names))}
    to_c(head, root, {k: torch.zeros(CODE_DIM) for k in KERNELS}, devices,
         to_features_c(KERNELS, sources, cfg.device_names))
    return root, build_driver(root, root / "driver_asan", extra_flags=SANITIZE_FLAGS), cfg


def _run(binary, lines: list[str], *args) -> list[list[str]]:
    """Run a sanitized binary; fails on a non-zero exit or anything on stderr (a sanitizer report)."""
    proc = subprocess.run([str(binary), *args], input="\n".join(lines) + "\n", capture_output=True, text=True,
                          env=SANITIZER_ENV, timeout=120)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr[-3000:]
    return [line.split() for line in proc.stdout.splitlines()]


def test_codes_are_distinct_and_generated_into_the_header(export):
    root, _, _ = export
    header = (root / "kgraph_model.h").read_text()
    assert len({e.value for e in ERRORS}) == len(ERRORS) and code("KGRAPH_OK") == 0
    assert all(e.value < 0 for e in ERRORS if e.name != "KGRAPH_OK")
    for e in ERRORS:
        assert re.search(rf"#define {e.name} \(?{e.value}\)? /\* {re.escape(e.meaning)} \*/", header), e.name


def test_predict_refuses_nan_inf_and_huge_features(export):
    _, driver, cfg = export
    n = len(cfg.launch_names)
    good = ["0.5"] + ["1"] * (n - 1)
    cases = {  # first launch feature -> expected code
        "0.5": "KGRAPH_OK", "0": "KGRAPH_OK", "-3": "KGRAPH_OK", "nan": "KGRAPH_E_FEATURE",
        "inf": "KGRAPH_E_FEATURE", "-inf": "KGRAPH_E_FEATURE", "1e300": "KGRAPH_E_FEATURE",
        "-2000": "KGRAPH_E_FEATURE", "1": "KGRAPH_E_RANGE",  # exp(1000) ns overflows: not finite
    }
    lines = [f"tile_gemm 0 {v} " + " ".join(good[1:]) for v in cases]
    lines += [f"tile_gemm 0 " + " ".join(good[:-1] + ["nan"]),   # the last feature too
              "no_such_kernel 0 " + " ".join(good), "tile_gemm -1 " + " ".join(good),
              "tile_gemm 2 " + " ".join(good), "tile_gemm 2147483647 " + " ".join(good)]
    expected = [*cases.values(), "KGRAPH_E_FEATURE", "KGRAPH_E_KERNEL", "KGRAPH_E_DEVICE", "KGRAPH_E_DEVICE",
                "KGRAPH_E_DEVICE"]
    out = _run(driver, lines)
    assert [int(row[0]) for row in out] == [code(name) for name in expected]
    for row, name in zip(out, expected):
        values = np.array(row[1:], dtype=float)
        if name == "KGRAPH_OK":  # every field finite; the interval NaN (this head has no interval outputs)
            interval = slice(INTERVAL_COLUMNS.start - 1, INTERVAL_COLUMNS.stop - 1)
            assert np.isfinite(np.delete(values, np.r_[interval])).all() and np.isnan(values[interval]).all()
        else:  # never a plausible number: every field NaN, bound -1
            bound = row[2 + 5]
            assert np.isnan(values[:6]).all() and bound == "-1", row


def test_features_refuse_bad_dims_sizes_and_args(export):
    _, driver, _ = export
    big = f"{MAX_ITEMS * 2:.17g}"
    cases = [  # (dims, global, local, args) -> code
        (1, "64 1 1", "8 1 1", ["64", "-1"], "KGRAPH_OK"),
        (2, "64 64 1", "8 8 1", ["64", "1e300"], "KGRAPH_OK"),       # a huge argument is a value
        (0, "64 1 1", "8 1 1", ["64", "1"], "KGRAPH_E_DIMS"),
        (4, "64 1 1", "8 1 1", ["64", "1"], "KGRAPH_E_DIMS"),
        (-1, "64 1 1", "8 1 1", ["64", "1"], "KGRAPH_E_DIMS"),
        (1, "0 1 1", "1 1 1", ["64", "1"], "KGRAPH_E_SIZE"),
        (1, "-64 1 1", "8 1 1", ["64", "1"], "KGRAPH_E_SIZE"),
        (1, "nan 1 1", "8 1 1", ["64", "1"], "KGRAPH_E_SIZE"),
        (1, "inf 1 1", "8 1 1", ["64", "1"], "KGRAPH_E_SIZE"),
        (1, "64.5 1 1", "8 1 1", ["64", "1"], "KGRAPH_E_SIZE"),
        (1, "64 1 1", "0 1 1", ["64", "1"], "KGRAPH_E_SIZE"),
        (1, "64 1 1", "nan 1 1", ["64", "1"], "KGRAPH_E_SIZE"),
        (1, "64 1 1", "128 1 1", ["64", "1"], "KGRAPH_E_SIZE"),       # local > global
        (1, "64 0 1", "8 1 1", ["64", "1"], "KGRAPH_E_SIZE"),         # unused dimension not 1
        (1, f"{big} 1 1", "8 1 1", ["64", "1"], "KGRAPH_E_SIZE"),
        (3, "4294967296 4294967296 2", "1 1 1", ["64", "1"], "KGRAPH_E_SIZE"),  # 2^65 items
        (1, "64 1 1", "8 1 1", ["nan", "1"], "KGRAPH_E_ARGS"),
        (1, "64 1 1", "8 1 1", ["64", "-inf"], "KGRAPH_E_ARGS"),
        (1, "64 1 1", "8 1 1", [], "KGRAPH_OK"),                       # missing arguments: no static counts
    ]
    lines = [f"tile_gemm 0 {d} {g} {l} {len(a)} {' '.join(a)}" for d, g, l, a, _ in cases]
    lines += ["tile_gemm 0 1 64 1 1 8 1 1 -1", "no_such_kernel 0 1 64 1 1 8 1 1 0", "tile_gemm 5 1 64 1 1 8 1 1 0"]
    expected = [c[-1] for c in cases] + ["KGRAPH_E_ARGS", "KGRAPH_E_KERNEL", "KGRAPH_E_DEVICE"]
    out = _run(driver, lines, "--features")
    assert [int(row[0]) for row in out] == [code(name) for name in expected]
    for row, name in zip(out, expected):
        assert np.isfinite(np.array(row[1:], dtype=float)).all() == (name == "KGRAPH_OK")


def test_embedding_refuses_nan_inf_and_huge_inputs(export):
    _, driver, cfg = export
    n, nd = len(cfg.launch_names), len(cfg.device_names)
    base = (["0.1"] * CODE_DIM, ["0.5"] + ["1"] * (n - 1), ["2"] * nd)
    variants = [((), "KGRAPH_OK"), ((0, 0, "nan"), "KGRAPH_E_EMBEDDING"), ((0, 3, "-inf"), "KGRAPH_E_EMBEDDING"),
                ((0, 1, "1e30"), "KGRAPH_E_EMBEDDING"), ((1, 0, "nan"), "KGRAPH_E_FEATURE"),
                ((2, 0, "inf"), "KGRAPH_E_DEVICE_FEATURE"), ((2, nd - 1, "-1e200"), "KGRAPH_E_DEVICE_FEATURE"),
                ((1, 0, "1"), "KGRAPH_E_RANGE")]
    lines = []
    for change, _ in variants:
        parts = [list(p) for p in base]
        if change:
            parts[change[0]][change[1]] = change[2]
        lines.append(" ".join(v for p in parts for v in p))
    out = _run(driver, lines, "--embedding")
    assert [int(row[0]) for row in out] == [code(name) for _, name in variants]
    assert math.isfinite(float(out[0][1])) and all(row[1] == "nan" for row in out[1:])


def test_null_pointers_and_strerror(export):
    root, _, _ = export
    program = root / "null_cases.c"
    program.write_text(NULL_CASES)
    binary = root / "null_cases"
    built = subprocess.run(["gcc", "-O1", "-std=c99", "-Wall", *SANITIZE_FLAGS, "-I", str(root),
                            str(program), str(root / "kgraph_model.c"), "-o", str(binary), "-lm"],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    got = {row[0]: " ".join(row[1:]) for row in _run(binary, [])}
    expected = {"kernel_null": "KGRAPH_E_KERNEL", "kernel_unknown": "KGRAPH_E_KERNEL",
                "device_null": "KGRAPH_E_DEVICE", "device_unknown": "KGRAPH_E_DEVICE",
                "predict_name_null": "KGRAPH_E_KERNEL", "predict_x_null": "KGRAPH_E_NULL",
                "predict_out_null": "KGRAPH_E_NULL", "embedding_code_null": "KGRAPH_E_NULL",
                "embedding_device_null": "KGRAPH_E_NULL", "embedding_out_null": "KGRAPH_E_NULL",
                "features_out_null": "KGRAPH_E_NULL", "features_global_null": "KGRAPH_E_NULL",
                "features_args_null": "KGRAPH_E_ARGS", "features_args_null_none": "KGRAPH_OK"}
    assert {k: int(v) for k, v in got.items() if k in expected} == {k: code(v) for k, v in expected.items()}
    assert got["strerror_unknown"] == "unknown kgraph return code"
