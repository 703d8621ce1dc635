"""Property-based fuzzing of every entry point that reads hostile input (hardening issue, "What done looks like").

Five targets, each fed mutated copies of what the project ships:

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
end of the module (``-s`` shows them).
"""
from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import math
import os
import shutil
import signal
import struct
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kgraph
from kgraph.errors import KGraphError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p for p in (ROOT / "examples").rglob("*")
                  if p.is_file() and p.suffix in (".cl", ".cu", ".c") and p.parent.name != "bad")
LANG = {".cl": "opencl", ".cu": "cuda", ".c": "c"}
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
    before = {MODEL: _digest(MODEL), DATASET: _digest(DATASET)}
    yield
    for folder, digest in before.items():
        assert _digest(folder) == digest, f"{folder} changed during fuzzing"
    for target, s in STATS.items():
        print(f"\nfuzz {target}: {s['inputs']} inputs, {s['calls']} calls: {s['ok']} ok, {s['refused']} refused (KGraphError), "
              f"{s['tracebacks']} tracebacks, {s['timeouts']} timeouts, {s['writes_outside']} writes outside")
    if os.environ.get("KGRAPH_FUZZ_REPORT"):
        Path(os.environ["KGRAPH_FUZZ_REPORT"]).write_text(json.dumps(STATS, indent=1))


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
# 1. the front end
# ------------------------------------------------------------------------------------------------
_SOURCES = [(p.read_text(), LANG[p.suffix]) for p in EXAMPLES]
_FRAGMENTS = [
    "{" * 300, "(" * 300, "[" * 300, "}" * 50, ")", "x[i << 99999999999]", "1<<40000000000", "1e999", "1e-999",
    "0x1p+99999", "99999999999999999999999999", "0xffffffffffffffffff", "-9223372036854775808",
    "__attribute__((reqd_work_group_size(1e999,1,1)))", "__attribute__((reqd_work_group_size(1<<40,1,1)))",
    "__attribute__((reqd_work_group_size(0,-1,1)))", "float big[1<<2000000000];", "float neg[-5];",
    "float z[0];", "#define N (1<<63)\n", "#define M M\n", "#define F(a) F(a)\n", "#pragma unroll 99999999999\n",
    "#pragma unroll -1\n", "#if 1<<99999\n#endif\n", "#if\n", "#endif\n", "#else\n", "#include \"/etc/passwd\"\n",
    "/*", "*/", "//", "\"", "'", "\\\n", "\x00", "\ufffd", "\u202e", "@", "`", "$", "#", "??=", "__kernel",
    "__global", "__local float s[1<<30];", "for(;;);", "for(int j=0;j<1<<62;j++)x[j]=0;", "while(1){}",
    "do{}while(0)", "goto l; l:", "switch(i){case 1<<70: break;}", "return;", "x[i] = x[i] / 0;",
    "x[i] = 1 % 0;", "int a = 1 >> -1;", "x[(int)1e300] = 0;", "sizeof(float[1<<62])", "get_global_id(99)",
    "get_local_size(-1)", "barrier(CLK_LOCAL_MEM_FENCE);", "__syncthreads();", "atomicAdd(x, 1);",
    "if(a)" * 40, "- " * 200, "1+" * 300 + "1", "x[x[x[x[x[x[0]]]]]]", "int i = get_global_id(0);",
    "\n" * 50, ";" * 200,
]
_DEFINES = {"N": ["16", "1<<62", "1<<64", "1e999", "", "(", "N", "-1", "0", "99999999999999999999999"],
            "TILE": ["16", "0", "-16", "1<<40000000000", "x"], "M": ["1", "M", ")"]}


@st.composite
def kernel_sources(draw):
    text, lang = draw(st.sampled_from(_SOURCES))
    for _ in range(draw(st.integers(1, 4))):
        n = len(text)
        i = draw(st.integers(0, n))
        op = draw(st.sampled_from(["splice", "splice", "delete", "repeat", "truncate", "noise", "replace_number"]))
        if op == "splice":
            text = text[:i] + draw(st.sampled_from(_FRAGMENTS)) + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 200)):]
        elif op == "repeat":
            span = text[i:i + draw(st.integers(1, 200))]
            text = text[:i] + span * draw(st.integers(2, 50)) + text[i:]
        elif op == "truncate":
            text = text[:i]
        elif op == "noise":
            text = text[:i] + draw(st.text(min_size=1, max_size=20)) + text[i:]
        else:
            digits = [j for j, c in enumerate(text) if c.isdigit()]
            if digits:
                j = draw(st.sampled_from(digits))
                text = text[:j] + draw(st.sampled_from(["99999999999999999999999", "1e999", "0", "-1", "1<<99"])) \
                    + text[j + 1:]
    lang = draw(st.sampled_from([lang, lang, lang, "opencl", "cuda", "c"]))
    defines = draw(st.none() | st.dictionaries(st.sampled_from(sorted(_DEFINES)),
                                               st.sampled_from(sum(_DEFINES.values(), [])), max_size=2))
    return text, lang, defines


def _check_frontend(base: Path, text: str, lang: str, defines):
    from kgraph.parsers import parse_source

    count_input("frontend")
    with sandbox(base) as box, guarded("frontend", [box]):
        graphs = kgraph.from_source(text, lang, filename="fuzz" + {"opencl": ".cl", "cuda": ".cu", "c": ".c"}[lang],
                                    defines=defines)
        assert isinstance(graphs, list)
    with sandbox(base) as box, guarded("frontend", [box]):
        parse_source(text, lang=lang)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@given(kernel_sources())
@_settings(COUNTS["frontend"][0])
def test_fuzz_frontend(base, case):
    _check_frontend(base, *case)


@pytest.mark.slow
@given(kernel_sources())
@_settings(COUNTS["frontend"][1])
def test_fuzz_frontend_slow(base, case):
    _check_frontend(base, *case)


# ------------------------------------------------------------------------------------------------
# 2. the constant evaluator
# ------------------------------------------------------------------------------------------------
_TOKENS = ["0", "1", "2", "63", "64", "65", "-1", "0x7fffffffffffffff", "0xffffffffffffffff", "0x10000000000000000",
           "18446744073709551615u", "9223372036854775808", "1e308", "1e309", "1e999", "1e-999", "0x1p1023", "0x1p1024",
           "1.5f", ".5", "1.", "0777", "0b101", "08", "1ul", "1ULL", "'a'", "'\\0'", "\"s\"", "+", "-", "*", "/", "%",
           "<<", ">>", "&", "|", "^", "~", "!", "&&", "||", "==", "!=", "<", ">", "<=", ">=", "?", ":", ",", "(", ")",
           "sizeof", "(int)", "(float)", "(unsigned long)", "(char)", "float", "int", "A", "B", "F", "SELF", "LOOP",
           "BIG", "undefined_name", "#", "##", "defined", "[", "]", "."]
_MACRO_BODIES = ["16", "(1 << 62) * 4", "A * A", "B + 1", "SELF", "LOOP + LOOP", "1e999", "(", "", "a + a",
                 "F(F(a))", "0x1p1024", "1 << 64", "-9223372036854775807 - 1", "A ## B", "#a"]


@st.composite
def const_cases(draw):
    from kgraph.parsers.unit import Macro

    tokens = draw(st.lists(st.sampled_from(_TOKENS), min_size=0, max_size=40))
    if draw(st.booleans()):  # balance the parentheses sometimes, so more inputs reach the evaluator
        tokens = ["("] + tokens + [")"] * (1 + tokens.count("(") - tokens.count(")"))
    macros = {}
    for name in draw(st.lists(st.sampled_from(["A", "B", "F", "SELF", "LOOP", "BIG"]), max_size=4, unique=True)):
        params = ("a",) if name == "F" else None
        macros[name] = Macro(name, params, draw(st.sampled_from(_MACRO_BODIES)))
    sizes = draw(st.sampled_from([None, 4, 0, -1, 2**70]))
    return " ".join(tokens), macros, sizes


def _check_const(base: Path, text: str, macros, size):
    from kgraph.parsers.constexpr import fold, fold_checked
    from kgraph.parsers.limits import MAX_CONSTANT_BITS

    count_input("constexpr")
    with guarded("constexpr", []):  # no file access at all
        value, why = fold_checked(text, macros, lambda _: size)
        assert (value is None) == (why is not None) and why in (None, "range", "no fold")
        if isinstance(value, int) and not isinstance(value, bool):
            assert abs(value) < 2 ** MAX_CONSTANT_BITS
        elif value is not None:
            assert isinstance(value, float) and math.isfinite(value)
        assert fold(text, macros, lambda _: size) == value or (value != value)


@given(const_cases())
@_settings(COUNTS["constexpr"][0])
def test_fuzz_constexpr(base, case):
    _check_const(base, *case)


@pytest.mark.slow
@given(const_cases())
@_settings(COUNTS["constexpr"][1])
def test_fuzz_constexpr_slow(base, case):
    _check_const(base, *case)


# ------------------------------------------------------------------------------------------------
# 3. device descriptors
# ------------------------------------------------------------------------------------------------
_DEVICE = json.loads((DATASET / "device.json").read_text())


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


# ------------------------------------------------------------------------------------------------
# 4. model directories
# ------------------------------------------------------------------------------------------------
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


# ------------------------------------------------------------------------------------------------
# 5. dataset folders
# ------------------------------------------------------------------------------------------------
_MANIFEST = json.loads((DATASET / "manifest.json").read_text())
_SHARDS = sorted(p.name for p in DATASET.glob("launches-*.parquet"))
_FILES = ["manifest.json", "device.json", "sources.parquet", *_SHARDS]


def _table_mutation(draw, table):
    """An arrow table with a column dropped, nulled, retyped or overwritten with hostile values, rows
    sliced or repeated."""
    import pyarrow as pa

    op = draw(st.sampled_from(["drop", "null", "retype", "values", "slice", "repeat", "empty"]))
    names = table.column_names
    col = draw(st.sampled_from(names))
    i = names.index(col)
    n = table.num_rows
    if op == "drop":
        return table.drop_columns([col])
    if op == "null":
        return table.set_column(i, col, pa.nulls(n, table.schema.field(col).type))
    if op == "retype":
        return table.set_column(i, col, pa.array([draw(st.sampled_from(["x", "", "\x00"]))] * n))
    if op == "values":
        t = table.schema.field(col).type
        if pa.types.is_floating(t):
            v = draw(st.sampled_from([float("nan"), float("inf"), -1.0, 0.0, 1e308, -1e308]))
        elif pa.types.is_integer(t):  # the extremes of the column's own width (a wider one cannot be stored)
            bits = t.bit_width - 1
            v = draw(st.sampled_from([-1, 0, 2**bits - 1, -(2**bits)]))
        elif pa.types.is_string(t) or pa.types.is_large_string(t):
            v = draw(st.sampled_from(["", "x", "../../etc/passwd", "ok", "\x00" * 3, "a" * 10_000]))
        else:
            return table.set_column(i, col, pa.nulls(n, t))
        k = draw(st.integers(0, max(0, n - 1)))
        values = table.column(col).to_pylist()
        if values:
            values[k] = v
        return table.set_column(i, col, pa.array(values, type=t))
    if op == "slice":
        return table.slice(0, draw(st.integers(0, n)))
    if op == "repeat":
        return pa.concat_tables([table, table.slice(0, draw(st.integers(1, max(1, n))))])
    return table.slice(0, 0)


@st.composite
def dataset_ops(draw):
    """A list of damages, applied in order by :func:`_damage` (drawn values baked in)."""
    ops = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["manifest", "manifest", "manifest_shards", "device", "bytes", "bytes", "table",
                                     "table", "table", "delete", "orphan", "symlink", "journal", "dir"]))
        if kind == "manifest":
            ops.append(("write", "manifest.json", _dumps(draw(json_mutation(_MANIFEST)))))
        elif kind == "manifest_shards":
            m = json.loads(json.dumps(_MANIFEST))
            bad = draw(st.sampled_from(["../../../etc/passwd", "/etc/passwd", "../outside/launches-00000.parquet",
                                        "launches-00000.parquet", "", ".", "launches-99999.parquet",
                                        "damaged/launches-00000.parquet", "manifest.json", "x" * 300]))
            idx = draw(st.integers(0, len(m["shards"]) - 1))
            field = draw(st.sampled_from(["file", "rows"]))
            m["shards"][idx][field] = bad if field == "file" else draw(st.sampled_from([0, -1, 10**12, 224, 49, "1", None]))
            ops.append(("write", "manifest.json", _dumps(m)))
        elif kind == "device":
            ops.append(("write", "device.json", _dumps(draw(json_mutation(_DEVICE)))))
        elif kind == "bytes":
            name = draw(st.sampled_from(_FILES))
            ops.append(("bytes", name, draw(st.integers(0, 2**31)), draw(st.sampled_from(["truncate", "flip", "garbage",
                                                                                            "empty"]))))
        elif kind == "table":
            name = draw(st.sampled_from(["sources.parquet", *_SHARDS]))
            ops.append(("table", name, draw(st.randoms(use_true_random=False)).random()))
        elif kind == "delete":
            ops.append(("delete", draw(st.sampled_from(_FILES))))
        elif kind == "orphan":
            ops.append(("copy", draw(st.sampled_from(_SHARDS)), draw(st.sampled_from(["launches-00002.parquet",
                                                                                    "launches-00009.parquet",
                                                                                    "launches-00002.parquet.tmp"]))))
        elif kind == "symlink":
            ops.append(("symlink", draw(st.sampled_from(_FILES + ["journal.jsonl", "launches-00002.parquet"]))))
        elif kind == "journal":
            lines = []
            for _ in range(draw(st.integers(1, 4))):
                entry = draw(st.sampled_from(["row", "row", "source", "failed", "ceiling", "junk"]))
                lines.append(entry)
            ops.append(("journal", tuple(lines), draw(st.integers(0, 2**31))))
        else:
            ops.append(("dir", draw(st.sampled_from(_FILES + ["damaged", "journal.jsonl"]))))
    return ops, draw(st.data())


_FIRST_ROW = None


def _first_row():
    global _FIRST_ROW
    if _FIRST_ROW is None:
        import pyarrow.parquet as pq

        _FIRST_ROW = pq.read_table(DATASET / _SHARDS[0]).slice(0, 1).to_pylist()[0]
    return _FIRST_ROW


def _clear(path: Path) -> None:
    """Remove whatever an earlier op left at ``path``: a planted link (never followed: canaries stay intact),
    a file, or a folder."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def _damage(folder: Path, outside: Path, ops, data):
    import random

    import pyarrow.parquet as pq

    for op in ops:
        kind, name = op[0], op[1]
        path = folder / name if isinstance(name, str) else None
        if kind == "write":
            _clear(path)
            path.write_bytes(op[2])
        elif kind == "bytes" and path.is_file():
            raw, k, how = path.read_bytes(), op[2], op[3]
            if how == "truncate":
                raw = raw[:k % max(1, len(raw))]
            elif how == "flip" and raw:
                i = k % len(raw)
                raw = raw[:i] + bytes([raw[i] ^ (1 << (k % 8))]) + raw[i + 1:]
            elif how == "garbage":
                raw = random.Random(k).randbytes(1 + k % 4096)
            else:
                raw = b""
            path.write_bytes(raw)
        elif kind == "table" and path.is_file():
            try:
                table = pq.read_table(path)
            except Exception:  # noqa: BLE001 - damaged by an earlier op: leave it
                continue
            table = _table_mutation(data.draw, table)
            pq.write_table(table, path)
        elif kind == "delete":
            _clear(path)
        elif kind == "copy" and path.is_file() and not path.is_symlink():
            _clear(folder / op[2])
            shutil.copyfile(path, folder / op[2])
        elif kind == "symlink":
            _clear(path)
            os.symlink(outside / ("canary-" + name), path)
        elif kind == "journal":
            rnd = random.Random(op[2])
            row = dict(_first_row())
            lines = []
            for entry in name:
                if entry == "row":
                    r = dict(row, t="row", key=rnd.choice([row["key"], "fuzz-" + str(rnd.random())]))
                    r[rnd.choice(sorted(row))] = rnd.choice([None, "x", -1, 1e308, [], {}, 2**70])
                    lines.append(json.dumps(r, default=str))
                elif entry == "source":
                    lines.append(json.dumps({"t": "source", "source_id": rnd.choice(["s", None, 1, []]),
                                             "source": rnd.choice(["", "x", None])}))
                elif entry == "failed":
                    lines.append(json.dumps({"t": "failed", "kernel_id": rnd.choice(["k", None, 1]), "status": "crash"}))
                elif entry == "ceiling":
                    lines.append(json.dumps({"t": "ceiling", "kernel_id": "k", "work": rnd.choice([1, "x", None])}))
                else:
                    lines.append(rnd.choice(["{", "[1,2]", "null", "\x00\xff", '{"t": "row"}', "1e999"]))
            _clear(folder / "journal.jsonl")
            (folder / "journal.jsonl").write_text("\n".join(lines) + rnd.choice(["\n", ""]), errors="surrogateescape")
        elif kind == "dir":
            if not (path.is_dir() and not path.is_symlink()):
                _clear(path)
                path.mkdir()


def _check_dataset(base: Path, ops, data):
    from kgraph.data.harness.describe import describe_dataset
    from kgraph.data.harness.descriptor import load_descriptor
    from kgraph.data.harness.repair import repair_dataset
    from kgraph.data.harness.store import DatasetStore, read_launches
    from kgraph.data.harness.validate import validate_dataset

    count_input("dataset")
    with sandbox(base) as box:
        folder, outside = box / "ds", box / "outside"
        shutil.copytree(DATASET, folder)
        outside.mkdir()
        for name in _FILES + ["journal.jsonl", "launches-00002.parquet"]:  # what planted symlinks point at
            (outside / ("canary-" + name)).write_bytes(b"canary " + name.encode())
        _damage(folder, outside, ops, data)
        canary = _digest(outside)
        steps = [("validate", lambda: validate_dataset(folder)), ("describe", lambda: describe_dataset(folder)),
                 ("read", lambda: read_launches(folder)), ("device", lambda: load_descriptor(folder)),
                 ("store", lambda: DatasetStore(folder).close()), ("validate", lambda: validate_dataset(folder)),
                 ("repair", lambda: repair_dataset(folder)), ("validate", lambda: validate_dataset(folder))]
        for _, step in steps:
            with guarded("dataset", [folder]):
                result = step()
                if isinstance(result, list):
                    assert all(isinstance(line, str) and line for line in result)
        assert _digest(outside) == canary, "a file outside the dataset folder was changed through a symlink"
        assert sorted(p.name for p in outside.iterdir()) == sorted("canary-" + n for n in
                                                                   _FILES + ["journal.jsonl", "launches-00002.parquet"])


@given(dataset_ops())
@_settings(COUNTS["dataset"][0])
def test_fuzz_dataset_folder(base, case):
    _check_dataset(base, *case)


@pytest.mark.slow
@given(dataset_ops())
@_settings(COUNTS["dataset"][1])
def test_fuzz_dataset_folder_slow(base, case):
    _check_dataset(base, *case)


# ------------------------------------------------------------------------------------------------
# regressions: what the fuzzer found, each fixed at its root
# ------------------------------------------------------------------------------------------------
def _tiny_copy(tmp_path) -> Path:
    folder = tmp_path / "ds"
    shutil.copytree(DATASET, folder)
    return folder


def test_regression_fuzz_journal_row_with_unhashable_key_is_reported_not_a_traceback(tmp_path):
    """validate: a journal row whose key is an object (``{"t": "row", "key": {}}``) raised TypeError
    (unhashable dict) in the uncommitted-rows check (data/harness/validate.py)."""
    from kgraph.data.harness.validate import validate_dataset

    folder = _tiny_copy(tmp_path)
    (folder / "journal.jsonl").write_text('{"t": "row", "key": {}}\n{"t": "row", "key": [1]}\n')
    assert isinstance(validate_dataset(folder), list)
    (folder / "manifest.json").write_text('{"format": 1, "failed_kernels": []}')  # the no-manifest path too
    assert isinstance(validate_dataset(folder), list)
    DatasetStore_open_or_refuse(folder)


def DatasetStore_open_or_refuse(folder):
    from kgraph.data.harness.store import DatasetStore

    try:
        DatasetStore(folder).close()
    except KGraphError:
        pass


def test_regression_fuzz_journal_row_with_mistyped_value_does_not_break_store_open(tmp_path):
    """DatasetStore: a journal row with a value of the wrong type (1e308 in an integer column, a string in
    a float column) was replayed into the pending rows, and the flush at open raised ArrowInvalid on every
    open (data/harness/store.py): such a line is now skipped like any malformed journal line, the good
    rows beside it are committed."""
    import pyarrow.parquet as pq

    from kgraph.data.harness.store import DatasetStore, read_launches
    from kgraph.data.harness.validate import validate_dataset

    folder = _tiny_copy(tmp_path)
    row = pq.read_table(DATASET / _SHARDS[0]).slice(0, 1).to_pylist()[0]
    good = dict(row, t="row", key="fuzz-good")
    ints = [k for k, v in row.items() if isinstance(v, int) and not isinstance(v, bool)]
    bad = dict(row, t="row", key="fuzz-bad", **{ints[0]: 1e308})
    bad2 = dict(row, t="row", key="fuzz-bad2", median_time_ns="slow")
    ceiling = {"t": "ceiling", "kernel_id": "k", "work": "x"}
    (folder / "journal.jsonl").write_text("\n".join(json.dumps(e, default=str) for e in (bad, good, bad2, ceiling)) + "\n")
    DatasetStore(folder).close()
    keys = set(read_launches(folder)["key"])
    assert "fuzz-good" in keys and not keys & {"fuzz-bad", "fuzz-bad2"}
    assert json.loads((folder / "manifest.json").read_text())["ceilings"].get("k") is None
    assert not any("journal" in p for p in validate_dataset(folder))


def test_regression_fuzz_shard_without_device_id_describes(tmp_path):
    """describe: a shard without its device_id column (read as nulls, like a column an older harness did
    not write) made ``sorted`` compare None with text: TypeError (data/harness/describe.py)."""
    import pyarrow.parquet as pq

    from kgraph.data.harness.describe import describe_dataset

    folder = _tiny_copy(tmp_path)
    shard = folder / _SHARDS[0]
    pq.write_table(pq.read_table(shard).drop_columns(["device_id"]), shard)
    assert describe_dataset(folder)["devices"] == [_DEVICE["device_id"]]


def test_regression_fuzz_symlinked_journal_is_refused_not_written_through(tmp_path):
    """DatasetStore: a journal.jsonl that is a symlink to a file outside the folder was opened for append
    and truncated at the replay flush: a write outside the dataset folder (data/harness/store.py)."""
    from kgraph.data.harness.store import DatasetStore

    folder = _tiny_copy(tmp_path)
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    (folder / "journal.jsonl").symlink_to(outside)
    with pytest.raises(KGraphError, match="symbolic link"):
        DatasetStore(folder)
    assert outside.read_text() == "keep me\n"


@pytest.mark.parametrize("name", ["journal.jsonl", "manifest.json", "sources.parquet"])
def test_regression_fuzz_folder_in_place_of_a_dataset_file_is_refused(tmp_path, name):
    """DatasetStore on a folder whose journal (or manifest, sources) is a directory raised
    IsADirectoryError at the replay flush (slow fuzz suite, session 3): now a KGraphError naming it."""
    from kgraph.data.harness.store import DatasetStore

    folder = _tiny_copy(tmp_path)
    _clear(folder / name)
    (folder / name).mkdir()
    with pytest.raises(KGraphError, match=f"{name}"):
        DatasetStore(folder)


def test_regression_fuzz_shard_with_a_non_utf8_column_name_is_damaged_not_a_traceback(tmp_path):
    """One flipped bit in a shard's footer left a column name that is not UTF-8: reading the schema's
    names raised UnicodeDecodeError in read_launches (slow fuzz suite, session 3)."""
    import pyarrow.parquet as pq

    from kgraph.data.harness.store import read_launches

    folder = _tiny_copy(tmp_path)
    shard = folder / _SHARDS[0]
    table = pq.read_table(shard)
    pq.write_table(table.rename_columns(["k\u00e9y" if n == "key" else n for n in table.schema.names]), shard)
    # every copy of the name (the footer's schema, the pandas metadata): its two-byte "é" turned invalid
    shard.write_bytes(shard.read_bytes().replace("k\u00e9y".encode(), b"k\xf4\xa9y"))
    with pytest.raises(KGraphError, match="cannot be read"):
        read_launches(folder)
    from kgraph.data.harness.repair import repair_dataset

    report = "\n".join(repair_dataset(folder))  # repair read the names too: it moves the shard aside
    assert f"moved {_SHARDS[0]}" in report and "unreadable" in report
