"""Fuzzing of device descriptors (guard and property: :mod:`tests.fuzz_guard`).

``data/datasets/ci-tiny/device.json`` with values replaced, keys dropped or added and bytes damaged,
through ``validate_descriptor`` / ``load_descriptor`` / ``to_feature_vector``.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz_guard import (  # noqa: F401 - base, _report_and_originals: the module fixtures
    COUNTS, _DEVICE, _dumps, _report_and_originals, _settings, base, byte_mutation, count_input, guarded,
    json_mutation, sandbox)


@st.composite
def descriptor_cases(draw):
    doc = draw(json_mutation(_DEVICE)) if draw(st.integers(0, 9)) else _DEVICE
    raw = _dumps(doc)
    if draw(st.integers(0, 3)) == 0:
        raw = draw(byte_mutation(raw))
    return doc, raw


def _check_descriptor(base: Path, doc, raw: bytes):
    from kgraph.data.harness.descriptor import load_descriptor, to_feature_vector, validate_descriptor

    count_input("descriptor")
    with guarded("descriptor", []):
        d = validate_descriptor(json.loads(json.dumps(doc)), "fuzz")
        vector = to_feature_vector(d)
        assert all(math.isfinite(v) for v in vector), vector
    with sandbox(base) as box, guarded("descriptor", [box]):
        (box / "device.json").write_bytes(raw)
        d = load_descriptor(box)
        assert all(math.isfinite(v) for v in to_feature_vector(d))


@given(descriptor_cases())
@_settings(COUNTS["descriptor"][0])
def test_fuzz_descriptor(base, case):
    _check_descriptor(base, *case)


@pytest.mark.slow
@given(descriptor_cases())
@_settings(COUNTS["descriptor"][1])
def test_fuzz_descriptor_slow(base, case):
    _check_descriptor(base, *case)
