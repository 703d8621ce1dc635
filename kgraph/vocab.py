"""The token vocabulary (column 1 of ``x``) and the token normalisation rules.

The vocabulary is a fixed list built from rules (canonical names, literal buckets, operators, AST
kinds, types) plus fixed lists of builtin names, stored in ``kgraph/vocab.json`` with
:data:`~kgraph.schema.VOCAB_VERSION`. Token ``i`` of the list has id ``i``. A token outside the
list gets one of :data:`NUM_UNK_BUCKETS` ids after the list, chosen by a CRC-32 of its text: stable
across runs and machines, never by order of appearance.

Regenerate the JSON after changing a rule (and bump VOCAB_VERSION): ``python -m kgraph.vocab``.
"""
from __future__ import annotations

import json
import sys
import zlib
from functools import lru_cache
from pathlib import Path

from kgraph.schema import AST_KIND_TO_TYPE, DTYPES, VOCAB_VERSION

VOCAB_PATH = Path(__file__).with_name("vocab.json")
NUM_UNK_BUCKETS = 256
NUM_VARIABLE_NAMES, NUM_BUFFER_NAMES, NUM_FUNCTION_NAMES = 128, 32, 16

INT_BUCKETS = ("int:0", "int:1", "int:2", "int:pow2", "int:small", "int:medium", "int:large")
FLOAT_BUCKETS = ("float:0", "float:1", "float:half", "float:2", "float:lit")
OTHER_LITERALS = ("char:lit", "str:lit", "true", "false", "NULL", "macro")
OPERATORS = ("+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "~", "!", "&&", "||", "==", "!=",
             "<", ">", "<=", ">=", "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=",
             "++", "--", ".", "->", "cast", "sizeof", "?:")
SYNTHETIC_KINDS = ("VARIABLE", "BUFFER", "CONSTANT", "BUILTIN")
EXTRA_TYPES = ("unsigned", "signed", "image2d_t", "image3d_t", "sampler_t", "event_t", "dim3",
               "__half", "half2", "bool", "_Bool")
QUALIFIERS = ("const", "volatile", "restrict", "__restrict", "__restrict__", "static", "inline",
              "extern", "register", "__shared__", "__constant__", "__device__", "__global__",
              "__forceinline__", "__inline__", "__attribute__", "reqd_work_group_size")
FIELDS = ("x", "y", "z", "w", "lo", "hi", "even", "odd", "xy", "zw", "xyz", "xyzw",
          *(f"s{c}" for c in "0123456789abcdefABCDEF"))
WORK_ITEM = ("get_global_id", "get_local_id", "get_group_id", "get_global_size", "get_local_size",
             "get_num_groups", "get_work_dim", "get_global_offset", "get_enqueued_local_size",
             "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize")
SYNC = ("barrier", "mem_fence", "read_mem_fence", "write_mem_fence", "work_group_barrier",
        "CLK_LOCAL_MEM_FENCE", "CLK_GLOBAL_MEM_FENCE", "__syncthreads", "__syncwarp", "__threadfence",
        "__shfl_sync", "__shfl_down_sync", "__shfl_up_sync", "__shfl_xor_sync", "sub_group_reduce_add")
ATOMIC_OPS = ("add", "sub", "xchg", "inc", "dec", "cmpxchg", "min", "max", "and", "or", "xor")
CUDA_ATOMICS = ("atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicInc",
                "atomicDec", "atomicCAS", "atomicAnd", "atomicOr", "atomicXor")
MATH = ("sqrt", "rsqrt", "cbrt", "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p",
        "pow", "pown", "powr", "rootn", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh",
        "cosh", "tanh", "asinh", "acosh", "atanh", "sinpi", "cospi", "tanpi", "fabs", "fmin", "fmax",
        "floor", "ceil", "round", "trunc", "rint", "fmod", "remainder", "hypot", "copysign", "erf",
        "erfc", "tgamma", "lgamma", "ldexp", "frexp", "modf", "fma", "fdim", "recip", "divide")
OPENCL_COMMON = ("mad", "mad24", "mul24", "mad_hi", "mul_hi", "min", "max", "abs", "abs_diff", "clamp",
                 "mix", "step", "smoothstep", "sign", "select", "bitselect", "dot", "cross", "length",
                 "normalize", "distance", "fast_length", "fast_normalize", "isnan", "isinf",
                 "isfinite", "any", "all", "popcount", "clz", "rotate", "hadd", "rhadd", "add_sat",
                 "sub_sat", "upsample", "degrees", "radians", "printf", "vload_half", "vstore_half",
                 "read_imagef", "write_imagef", "async_work_group_copy", "wait_group_events")
CUDA_MISC = ("__ldg", "__fdividef", "__fmaf_rn", "__fmul_rn", "__fadd_rn", "__saturatef", "__popc",
             "__clz", "__float2half", "__half2float", "__float2int_rn", "__int2float_rn", "__umulhi",
             "__mul24", "__umul24", "make_float2", "make_float3", "make_float4", "make_int2",
             "make_int4", "make_uint2", "make_double2", "min", "max", "abs")
NAMED_CONSTANTS = ("M_PI", "M_PI_F", "M_E", "M_E_F", "M_SQRT2", "FLT_MAX", "FLT_MIN", "FLT_EPSILON",
                   "DBL_MAX", "DBL_EPSILON", "INFINITY", "NAN", "MAXFLOAT", "HUGE_VALF", "INT_MAX",
                   "INT_MIN", "UINT_MAX", "CHAR_BIT")


def _builtin_names() -> list[str]:
    names = list(WORK_ITEM) + list(SYNC)
    names += [f"atomic_{op}" for op in ATOMIC_OPS] + [f"atom_{op}" for op in ATOMIC_OPS]
    names += [f"atomic_{op}_explicit" for op in ("load", "store", "fetch_add", "fetch_sub", "fetch_min",
                                                  "fetch_max", "exchange")]
    names += list(CUDA_ATOMICS)
    names += list(MATH) + [f"{m}f" for m in MATH] + [f"native_{m}" for m in MATH] + [f"half_{m}" for m in MATH]
    names += [f"__{m}f" for m in ("exp", "log", "sin", "cos", "tan", "pow", "sqrt", "expf", "logf")]
    names += list(OPENCL_COMMON) + list(CUDA_MISC)
    widths = ("", "2", "3", "4", "8", "16")
    names += [f"vload{w}" for w in widths[1:]] + [f"vstore{w}" for w in widths[1:]]
    bases = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half", "float", "double")
    names += [f"convert_{b}{w}" for b in bases for w in widths] + [f"as_{b}{w}" for b in bases for w in widths]
    return names + list(NAMED_CONSTANTS)


def build_vocabulary() -> list[str]:
    """The token list, from the fixed rules and lists above (order matters: it fixes the ids)."""
    tokens: list[str] = []
    tokens += [f"var{i}" for i in range(NUM_VARIABLE_NAMES)]
    tokens += [f"buf{i}" for i in range(NUM_BUFFER_NAMES)]
    tokens += ["kernel"] + [f"fn{i}" for i in range(NUM_FUNCTION_NAMES)]
    tokens += list(INT_BUCKETS) + list(FLOAT_BUCKETS) + list(OTHER_LITERALS) + list(OPERATORS)
    tokens += list(AST_KIND_TO_TYPE) + list(SYNTHETIC_KINDS)
    tokens += list(DTYPES) + list(EXTRA_TYPES) + list(QUALIFIERS) + list(FIELDS)
    tokens += _builtin_names()
    seen: set[str] = set()
    return [t for t in tokens if not (t in seen or seen.add(t))]


class Vocabulary:
    """Token <-> id mapping with stable hash buckets for unknown tokens.

    Args:
        tokens: the known tokens; id ``i`` is ``tokens[i]``.
        version: the vocabulary version string.
        num_unk_buckets: ids ``len(tokens) .. len(tokens)+num_unk_buckets-1`` are unknown-token buckets.
    """

    def __init__(self, tokens: list[str], version: str, num_unk_buckets: int = NUM_UNK_BUCKETS):
        self.tokens = list(tokens)
        self.version = version
        self.num_unk_buckets = num_unk_buckets
        self._ids = {t: i for i, t in enumerate(self.tokens)}

    def __len__(self) -> int:
        return len(self.tokens) + self.num_unk_buckets

    def __contains__(self, token: str) -> bool:
        return token in self._ids

    def id(self, token: str) -> int:
        """The id of ``token``: its index if known, else its CRC-32 bucket."""
        found = self._ids.get(token)
        if found is not None:
            return found
        return len(self.tokens) + zlib.crc32(token.encode("utf-8")) % self.num_unk_buckets

    def token(self, token_id: int) -> str:
        """The token of ``token_id`` (``<unk:k>`` for bucket ``k``)."""
        if token_id < len(self.tokens):
            return self.tokens[token_id]
        return f"<unk:{token_id - len(self.tokens)}>"

    def to_json(self) -> dict:
        return {"version": self.version, "num_unk_buckets": self.num_unk_buckets, "tokens": self.tokens}

    @classmethod
    def from_json(cls, data: dict) -> "Vocabulary":
        return cls(data["tokens"], data["version"], data["num_unk_buckets"])


@lru_cache(maxsize=1)
def load_vocabulary() -> Vocabulary:
    """The shipped vocabulary (``kgraph/vocab.json``)."""
    with open(VOCAB_PATH, encoding="utf-8") as fh:
        return Vocabulary.from_json(json.load(fh))


@lru_cache(maxsize=8192)
def literal_token(kind: str, text: str) -> tuple[str, str]:
    """Bucket a literal: ``(token, dtype)``. ``number_literal`` gives ``int:*`` or ``float:*``."""
    if kind == "char_literal":
        return "char:lit", "char"
    if kind in ("string_literal", "concatenated_string"):
        return "str:lit", "other"
    if kind in ("true", "false"):
        return kind, "bool"
    if kind in ("null", "nullptr"):
        return "NULL", "none"
    t = text.strip().replace("'", "")
    low = t.lower()
    is_hex = low.startswith("0x")
    if not is_hex and ("." in low or "e" in low or low.endswith("f")):
        dtype = "float" if low.endswith("f") else ("half" if low.endswith("h") else "double")
        try:
            value = float(low.rstrip("fhl"))
        except ValueError:
            return "float:lit", dtype
        bucket = {0.0: "float:0", 1.0: "float:1", 0.5: "float:half", 2.0: "float:2"}.get(value, "float:lit")
        return bucket, dtype
    digits = low.rstrip("ul")
    suffix = low[len(digits):]
    dtype = ("ulong" if "l" in suffix else "uint") if "u" in suffix else ("long" if "l" in suffix else "int")
    try:
        value = int(digits, 0) if not (len(digits) > 1 and digits[0] == "0" and digits[1].isdigit()) \
            else int(digits, 8)
    except ValueError:
        return "int:large", dtype
    return int_bucket(value), dtype


def int_bucket(value: int) -> str:
    """``int:0|1|2|pow2|small|medium|large`` for a non-negative integer value."""
    if value in (0, 1, 2):
        return f"int:{value}"
    if value > 0 and value & (value - 1) == 0:
        return "int:pow2"
    if value <= 16:
        return "int:small"
    return "int:medium" if value < 1024 else "int:large"


def value_token(value) -> str:
    """Token of a folded macro value (int or float); ``macro`` when it did not fold."""
    if isinstance(value, bool) or value is None:
        return "macro"
    if isinstance(value, int):
        return int_bucket(abs(value))
    if isinstance(value, float):
        return {0.0: "float:0", 1.0: "float:1", 0.5: "float:half", 2.0: "float:2"}.get(abs(value), "float:lit")
    return "macro"


def main(argv: list[str] | None = None) -> int:
    """Write ``kgraph/vocab.json`` from the rules (run after changing them; bump VOCAB_VERSION)."""
    vocab = Vocabulary(build_vocabulary(), VOCAB_VERSION)
    VOCAB_PATH.write_text(json.dumps(vocab.to_json(), indent=0) + "\n", encoding="utf-8")
    print(f"wrote {VOCAB_PATH} ({len(vocab.tokens)} tokens + {vocab.num_unk_buckets} buckets, {vocab.version})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
