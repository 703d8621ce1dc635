"""The token vocabulary (column 1 of ``x``) and the token normalisation rules.

The vocabulary is a fixed list built from rules (canonical names, literal buckets, operators, AST
kinds, types) plus builtin names (defined by the dialect tables, ids fixed by the shipped list; see
:func:`builtin_tokens`), stored in ``kgraph/vocab.json`` with
:data:`~kgraph.schema.VOCAB_VERSION`. Token ``i`` of the list has id ``i``. A token outside the
list gets one of :data:`NUM_UNK_BUCKETS` ids after the list, chosen by a CRC-32 of its text: stable
across runs and machines, never by order of appearance.

Regenerate the JSON after changing a rule (and bump VOCAB_VERSION): ``python -m kgraph.vocab``; it also
checks the builtin section against the dialect tables (tests/test_vocab_builtins.py).
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

# Builtin names are defined once, by the dialect tables (parsers/dialects/*/builtins.json: cost tables,
# work-item functions and variables, barriers, atomics, and the library names and prefixes). Their ids are
# the shipped vocabulary's: the builtin section of vocab.json, in its order (the shipped models were
# trained on those ids). A dialect builtin without an id of its own hashes to an unknown-token bucket;
# giving it one lengthens the list, which moves every bucket: a new VOCAB_VERSION and retrained models.
# Names with an id that no dialect table defines as a builtin, each group named for why it has one:
VOCAB_ONLY_NAMES = ("warpSize", "CLK_LOCAL_MEM_FENCE", "CLK_GLOBAL_MEM_FENCE")  # builtin variables, constants
NAMED_CONSTANTS = ("M_PI", "M_PI_F", "M_E", "M_E_F", "M_SQRT2", "FLT_MAX", "FLT_MIN", "FLT_EPSILON",
                   "DBL_MAX", "DBL_EPSILON", "INFINITY", "NAN", "MAXFLOAT", "HUGE_VALF", "INT_MAX",
                   "INT_MIN", "UINT_MAX", "CHAR_BIT")  # header macros, not functions
# Spellings the first vocabulary's suffix and prefix rules made (``f`` after OpenCL-only math, ``__`` + ``f``
# on CUDA intrinsics) that no compiler provides; kept so that no id moves.
RULE_SPELLINGS = ("pownf", "powrf", "rootnf", "tanpif", "recipf", "dividef", "__sqrtf", "__expff", "__logff")


def _rule_tokens() -> list[str]:
    """The tokens made by rules (names, literal buckets, operators, AST kinds, types, qualifiers, fields)."""
    tokens: list[str] = []
    tokens += [f"var{i}" for i in range(NUM_VARIABLE_NAMES)]
    tokens += [f"buf{i}" for i in range(NUM_BUFFER_NAMES)]
    tokens += ["kernel"] + [f"fn{i}" for i in range(NUM_FUNCTION_NAMES)]
    tokens += list(INT_BUCKETS) + list(FLOAT_BUCKETS) + list(OTHER_LITERALS) + list(OPERATORS)
    tokens += list(AST_KIND_TO_TYPE) + list(SYNTHETIC_KINDS)
    tokens += list(DTYPES) + list(EXTRA_TYPES) + list(QUALIFIERS) + list(FIELDS)
    return list(dict.fromkeys(tokens))


def is_dialect_builtin(name: str) -> bool:
    """Whether a dialect table defines ``name`` as a builtin: a function a compiler provides (cost tables,
    library names and prefixes, ``native_``/``half_`` math) or a work-item variable (``threadIdx``)."""
    from kgraph.parsers.dialect import LANGS, get_dialect

    return any(get_dialect(lang).is_library(name) or name in get_dialect(lang).tables.get("work_item_variables", {})
               for lang in LANGS)


def builtin_tokens(shipped: list[str], rule_tokens: list[str]) -> list[str]:
    """The builtin section of the vocabulary: the shipped tokens that no rule makes, in their order (their
    ids), each a dialect builtin or one of the vocab-only names above.

    Args:
        shipped: the tokens of the shipped vocab.json.
        rule_tokens: the tokens :func:`_rule_tokens` makes, which come first.

    Raises:
        ValueError: a shipped builtin that no dialect table defines and no vocab-only list names (a
            dialect table lost a name the vocabulary has an id for).
    """
    made = set(rule_tokens)
    section = [t for t in shipped if t not in made]
    vocab_only = {*VOCAB_ONLY_NAMES, *NAMED_CONSTANTS, *RULE_SPELLINGS}
    strays = [t for t in section if t not in vocab_only and not is_dialect_builtin(t)]
    if strays:
        raise ValueError(f"builtin token(s) no dialect table defines: {', '.join(strays)} (add them to "
                         "parsers/dialects/*/builtins.json, or to a vocab-only list of kgraph/vocab.py)")
    return section


def build_vocabulary() -> list[str]:
    """The token list: the rule tokens, then the shipped builtin section (order matters: it fixes the ids)."""
    with open(VOCAB_PATH, encoding="utf-8") as fh:
        shipped = json.load(fh)["tokens"]
    rules = _rule_tokens()
    return rules + builtin_tokens(shipped, rules)


def vocabulary_json() -> str:
    """The text of ``kgraph/vocab.json`` as :func:`build_vocabulary` makes it."""
    return json.dumps(Vocabulary(build_vocabulary(), VOCAB_VERSION).to_json(), indent=0) + "\n"


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
    text = vocabulary_json()
    VOCAB_PATH.write_text(text, encoding="utf-8")
    tokens = len(json.loads(text)["tokens"])
    print(f"wrote {VOCAB_PATH} ({tokens} tokens + {NUM_UNK_BUCKETS} buckets, {VOCAB_VERSION})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
