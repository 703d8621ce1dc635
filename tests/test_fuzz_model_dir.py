"""Fuzzing of model directories (guard and property: :mod:`tests.fuzz_guard`).

A copy of ``models/default`` with ``config.json`` and the ``model.safetensors`` header mutated (values,
shapes, dtypes, byte ranges, header length, truncation, appended bytes), through
``Predictor.from_directory``.
"""
from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz_guard import (  # noqa: F401 - base, _report_and_originals: the module fixtures
    COUNTS, MODEL, _dumps, _report_and_originals, _settings, base, byte_mutation, count_input, guarded,
    json_mutation, sandbox)

_CONFIG = json.loads((MODEL / "config.json").read_text())
_ST = (MODEL / "model.safetensors").read_bytes()
_HLEN = int.from_bytes(_ST[:8], "little")
_HEADER = json.loads(_ST[8:8 + _HLEN])
_DATA = _ST[8 + _HLEN:]


@st.composite
def header_mutation(draw):
    header = json.loads(json.dumps(_HEADER))
    names = sorted(k for k in header if k != "__metadata__")
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(names))
        entry = header[name]
        op = draw(st.sampled_from(["shape", "dtype", "offsets", "swap", "delete", "rename", "generic"]))
        if op == "shape":
            shape = entry["shape"] if isinstance(entry.get("shape"), list) else [1]
            entry["shape"] = draw(st.sampled_from([[], [0], [1], [2**40, 2**40], [-1], [1.5], list(reversed(shape)),
                                                   shape + [1], [s * 2 if isinstance(s, int) else s for s in shape],
                                                   "x"]))
        elif op == "dtype":
            entry["dtype"] = draw(st.sampled_from(["F16", "F64", "I8", "BOOL", "U64", "Q4", "", None]))
        elif op == "offsets":
            a, b = (entry["data_offsets"] + [0, 0])[:2] if isinstance(entry.get("data_offsets"), list) else (0, 0)
            entry["data_offsets"] = draw(st.sampled_from([[b, a], [a, a], [a, b + 4], [a + 4, b + 4], [0, 2**63],
                                                          [-4, b], [a], [a, b, b], None]))
        elif op == "swap":
            other = header[draw(st.sampled_from(names))]
            entry["shape"], other["shape"] = other["shape"], entry["shape"]
        elif op == "delete":
            header.pop(name, None)
            names = sorted(k for k in header if k != "__metadata__") or ["__metadata__"]
            if names == ["__metadata__"]:
                break
        elif op == "rename":
            header["fuzz." + name] = header.pop(name)
            names = sorted(k for k in header if k != "__metadata__")
        else:
            header = draw(json_mutation(header))
            break
    return header


@st.composite
def model_cases(draw):
    config = _dumps(draw(json_mutation(_CONFIG))) if draw(st.integers(0, 2)) == 0 else None
    if config is not None and draw(st.integers(0, 3)) == 0:
        config = draw(byte_mutation(config))
    header = None
    if config is None or draw(st.booleans()):
        header = json.dumps(draw(header_mutation())).encode()
    tail = draw(st.sampled_from(["keep", "keep", "keep", "truncate", "append", "length", "bytes"]))
    return config, header, tail, draw(st.integers(0, 2**20))


def _check_model(base: Path, config, header, tail, k):
    from kgraph.models.predictor import Predictor

    count_input("model")
    with sandbox(base) as box:
        model = box / "model"
        model.mkdir()
        (model / "config.json").write_bytes(config if config is not None else (MODEL / "config.json").read_bytes())
        head = header if header is not None else _ST[8:8 + _HLEN]
        blob = len(head).to_bytes(8, "little") + head + _DATA
        if tail == "truncate":
            blob = blob[:k % len(blob)]
        elif tail == "append":
            blob += b"\x00" * (1 + k % 64)
        elif tail == "length":
            blob = struct.pack("<Q", [0, 7, 2**63, len(head) + 1, len(head) - 1, k][k % 6]) + blob[8:]
        elif tail == "bytes":
            i = 8 + k % (len(head) + 16)
            blob = blob[:i] + bytes([blob[i] ^ 0x5A]) + blob[i + 1:] if i < len(blob) else blob
        (model / "model.safetensors").write_bytes(blob)
        with guarded("model", [box]):
            p = Predictor.from_directory(model)
            assert isinstance(p.devices, dict)


@given(model_cases())
@_settings(COUNTS["model"][0])
def test_fuzz_model_directory(base, case):
    _check_model(base, *case)


@pytest.mark.slow
@given(model_cases())
@_settings(COUNTS["model"][1])
def test_fuzz_model_directory_slow(base, case):
    _check_model(base, *case)
