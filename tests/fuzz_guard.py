"""Shared by the fuzz suites of every entry point that reads hostile input (hardening issue, "What done
looks like"): the guard, the generic mutations and the shipped originals.

Five targets, each fed mutated copies of what the project ships (one test module each, the first two
together: ``test_fuzz_frontend.py``, ``test_fuzz_descriptor.py``, ``test_fuzz_model_dir.py``,
``test_fuzz_dataset.py``; what the fuzzer found: ``test_fuzz_regressions.py``):

* **front end**: shipped example kernels (OpenCL, CUDA, C) with hostile fragments spliced in, spans
  deleted or repeated, truncated, byte noise, hostile ``-D`` macros, through ``kgraph.from_source`` (parse,
  kernel graphs, static analysis) and ``parse_source``;
* **constant evaluator**: free-form token soup and macro tables through ``fold_checked``;
* **device descriptors**: ``data/datasets/ci-tiny/device.json`` with values replaced, keys dropped or
  added and bytes damaged, through ``validate_descriptor`` / ``load_descriptor`` / ``to_feature_vector``;
* **model directories**: a copy of ``models/default`` with ``config.json`` and the ``model.safetensors``
  header mutated (values, shapes, dtypes, byte ranges, header length, truncation, appended bytes),
  through ``Predictor.from_directory``;
* **dataset folders**: a copy of ``data/datasets/ci-tiny`` with the manifest, shards (bytes and table
  contents), ``sources.parquet``, ``device.json`` and the journal damaged, files deleted, orphan shards,
  symlinks pointing out of the folder, through ``validate_dataset``, ``describe_dataset``,
  ``read_launches``, ``DatasetStore`` (open + close, which replays and commits) and ``repair_dataset``.

Property, for every input: the call returns, or raises a ``KGraphError`` subclass; never another
exception (a traceback), never longer than ``HANG_S`` (a SIGALRM timer raises :class:`Hang`, a
``BaseException`` no ``except Exception`` can swallow; hypothesis' deadline is set too), and nothing is
written outside the example's temporary folder: an audit hook records every file opened for writing,
renamed, removed or created and fails the example when a path lies outside it; a canary folder beside it
(the target of the planted symlinks) and the shipped originals are checked unchanged.

The default suite runs a few hundred inputs (``derandomize=True``: the same ones every run, < 60 s); the
slow suite (``-m slow``) runs 10,500. Each test prints its counts (inputs, tracebacks, timeouts) at the
end of its module (``-s`` shows them). A test module takes the guard's module fixtures by importing
``base`` and ``_report_and_originals``.
"""
from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
import shutil
import signal
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from kgraph.errors import KGraphError

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "models" / "default"
DATASET = ROOT / "data" / "datasets" / "ci-tiny"
HANG_S = 20.0  # per input; the slowest seen is well under 2 s: a hang or a blow-up fails
DEADLINE = timedelta(seconds=HANG_S)

# inputs per target: (default suite, slow suite); the slow counts add up to 10,500
COUNTS = {"frontend": (120, 4000), "constexpr": (120, 2500), "descriptor": (120, 2000),
          "model": (25, 800), "dataset": (40, 1200)}
STATS: dict[str, dict[str, int]] = {}


def _settings(n: int):
    return settings(max_examples=n, deadline=DEADLINE, derandomize=True, database=None, print_blob=True,
                    suppress_health_check=list(HealthCheck))


class Hang(BaseException):
    """An input ran past HANG_S."""


# ------------------------------------------------------------------------------------------------
# the guard: timeout, exception class, writes confined to the example's folder
# ------------------------------------------------------------------------------------------------
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_ALLOWED: list[Path] | None = None  # while set, write events outside these folders are recorded
_VIOLATIONS: list[str] = []
_TMP = Path(os.path.abspath(tempfile.gettempdir()))
_LIBRARY_CACHES = ("torchinductor_",)
_WRITE_EVENTS = {"os.rename", "os.remove", "os.rmdir", "os.mkdir", "shutil.rmtree", "shutil.move", "os.truncate",
                 "os.chmod", "os.symlink", "os.link", "os.utime", "os.chown", "shutil.copyfile"}


def _inside(path) -> bool:
    if isinstance(path, int) or path is None:
        return True  # a file descriptor: its open was checked
    try:
        p = Path(os.fsdecode(path))
    except TypeError:
        return True
    p = Path(os.path.abspath(p))
    if p.parent == _TMP and p.name.startswith(_LIBRARY_CACHES):
        return True  # torch's own cache folder (made once per process when the model is built), not kgraph's
    return p == Path(os.devnull) or any(p == a or a in p.parents for a in _ALLOWED)


def _audit(event: str, args) -> None:
    if _ALLOWED is None:
        return
    if event == "open":
        path, mode, flags = args
        writes = (any(c in mode for c in "wax+") if isinstance(mode, str)
                  else isinstance(flags, int) and bool(flags & _WRITE_FLAGS))
        if writes and not _inside(path):
            _VIOLATIONS.append(f"open({path!r}, {mode!r})")
    elif event in _WRITE_EVENTS:
        paths = args[:2] if event in ("os.rename", "os.symlink", "os.link", "shutil.move", "shutil.copyfile") \
            else args[:1]
        for path in paths:
            if not _inside(path):
                _VIOLATIONS.append(f"{event}({path!r})")


sys.addaudithook(_audit)


def _on_alarm(signum, frame):
    raise Hang(f"input ran past {HANG_S} s")


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file() and not p.is_symlink():
            h.update(str(p.relative_to(folder)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def _stats(target: str) -> dict[str, int]:
    return STATS.setdefault(target, {"inputs": 0, "calls": 0, "ok": 0, "refused": 0, "tracebacks": 0,
                                     "timeouts": 0, "writes_outside": 0})


def count_input(target: str) -> None:
    """One generated input (it may make several guarded calls)."""
    _stats(target)["inputs"] += 1


@contextlib.contextmanager
def guarded(target: str, allowed: list[Path] = ()):
    """Run one input: count it, fail on a non-KGraphError exception, a timeout or a write outside
    ``allowed`` (the working directory is an empty folder inside it, so relative writes are caught too)."""
    global _ALLOWED
    stats = _stats(target)
    stats["calls"] += 1
    _VIOLATIONS.clear()
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, HANG_S)
    _ALLOWED = [Path(os.path.abspath(a)) for a in allowed]
    try:
        yield
        stats["ok"] += 1
    except KGraphError as exc:
        assert str(exc).strip(), "a KGraphError carries a message"
        stats["refused"] += 1
    except Hang:
        stats["timeouts"] += 1
        raise
    except Exception:
        stats["tracebacks"] += 1
        raise
    finally:
        _ALLOWED = None
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    if _VIOLATIONS:
        stats["writes_outside"] += 1
        raise AssertionError(f"wrote outside the example's folder: {_VIOLATIONS[:5]}")


@pytest.fixture(scope="module", autouse=True)
def _report_and_originals():
    """Check the shipped originals unchanged after the module; print the counts of the targets it fuzzed."""
    before = {MODEL: _digest(MODEL), DATASET: _digest(DATASET)}
    earlier = set(STATS)
    yield
    for folder, digest in before.items():
        assert _digest(folder) == digest, f"{folder} changed during fuzzing"
    for target, s in STATS.items():
        if target in earlier:
            continue
        print(f"\nfuzz {target}: {s['inputs']} inputs, {s['calls']} calls: {s['ok']} ok, {s['refused']} refused (KGraphError), "
              f"{s['tracebacks']} tracebacks, {s['timeouts']} timeouts, {s['writes_outside']} writes outside")
    if os.environ.get("KGRAPH_FUZZ_REPORT"):
        Path(os.environ["KGRAPH_FUZZ_REPORT"]).write_text(json.dumps(STATS, indent=1))


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@contextlib.contextmanager
def sandbox(base: Path):
    """A fresh folder for one example, with an empty working directory inside, removed afterwards."""
    folder = Path(tempfile.mkdtemp(dir=base))
    cwd = os.getcwd()
    (folder / "cwd").mkdir()
    os.chdir(folder / "cwd")
    try:
        yield folder
    finally:
        os.chdir(cwd)
        shutil.rmtree(folder, ignore_errors=True)


# ------------------------------------------------------------------------------------------------
# generic mutations: JSON values and bytes
# ------------------------------------------------------------------------------------------------
_HOSTILE_JSON = [None, True, False, 0, -1, 1, 0.5, -0.0, 2**31, 2**63, 2**64, -(2**63) - 1, 10**400, 1e308,
                 float("nan"), float("inf"), float("-inf"), "", " ", "x", "\x00", "../../../etc/passwd",
                 "/etc/passwd", "a" * 5000, [], [1, 2, 3], [[]], {}, {"a": 1}, [None], ["1"], [-1, 0], [2**70],
                 [1.5, 2], "NaN", "1e999"]
json_values = st.deferred(lambda: _json_values.map(copy.deepcopy))  # fresh objects: mutations stay local
_json_values = st.recursive(
    st.one_of(st.sampled_from(_HOSTILE_JSON), st.integers(-(2**70), 2**70),
              st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=8)


def _containers(value, path=()):
    """Every (path, container) inside a JSON value, itself first."""
    if isinstance(value, (dict, list)):
        yield path, value
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for k, v in items:
            yield from _containers(v, path + (k,))


def _at(value, path):
    for k in path:
        value = value[k]
    return value


@st.composite
def json_mutation(draw, doc):
    """``doc`` (a JSON value, copied) with 1-4 structural edits: a value replaced, a key or element
    removed, a key added, a list emptied or repeated, the whole document replaced."""
    doc = json.loads(json.dumps(doc))
    for _ in range(draw(st.integers(1, 4))):
        places = list(_containers(doc))
        if not places:
            break
        path, node = draw(st.sampled_from(places))
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        op = draw(st.sampled_from(["replace", "replace", "replace", "delete", "add", "repeat", "whole"]))
        if op == "whole":
            doc = draw(json_values)
            break
        if op == "add" or not keys:
            if isinstance(node, dict):
                node[draw(st.sampled_from(["extra", "device_id", "format", "shards", "keys", "roofline", "", "arch"]))] = \
                    draw(json_values)
            else:
                node.append(draw(json_values))
            continue
        key = draw(st.sampled_from(keys))
        if op == "replace":
            node[key] = draw(json_values)
        elif op == "delete":
            del node[key]
        elif op == "repeat" and isinstance(node, list):
            node.extend(node[: draw(st.integers(1, 3))])
    return doc


def _dumps(doc) -> bytes:
    return json.dumps(doc, indent=1).encode()  # NaN / Infinity written as the tokens Python reads back


@st.composite
def byte_mutation(draw, data: bytes, max_ops: int = 3):
    """``data`` truncated, with bytes flipped, spans deleted, repeated or overwritten with junk."""
    data = bytearray(data)
    for _ in range(draw(st.integers(1, max_ops))):
        n = len(data)
        op = draw(st.sampled_from(["truncate", "flip", "delete", "insert", "junk", "empty"]))
        if op == "empty" or n == 0:
            data = bytearray(draw(st.sampled_from([b"", b"\x00", b"\xff" * 8, b"{", b"[" * 100_000, b"PAR1"])))
            continue
        i = draw(st.integers(0, n - 1))
        if op == "truncate":
            del data[i:]
        elif op == "flip":
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif op == "delete":
            del data[i:i + draw(st.integers(1, 64))]
        elif op == "insert":
            data[i:i] = draw(st.binary(min_size=1, max_size=32))
        else:
            data[i:i + 8] = draw(st.sampled_from([b"\xff" * 8, b"\x00" * 8, b"9" * 8, b"NaN", b"1e999", b'"']))
    return bytes(data)


# ------------------------------------------------------------------------------------------------
# the shipped originals several targets mutate
# ------------------------------------------------------------------------------------------------
_DEVICE = json.loads((DATASET / "device.json").read_text())
_SHARDS = sorted(p.name for p in DATASET.glob("launches-*.parquet"))


def _clear(path: Path) -> None:
    """Remove whatever an earlier op left at ``path``: a planted link (never followed: canaries stay intact),
    a file, or a folder."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)

