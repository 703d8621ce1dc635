"""C value types as the analysis sees them: a scalar base type, a vector width, pointer-ness.

Only what the counting rules need is modelled: whether a value is fp32, fp64 or integer, its lane
count and size in bytes, and for pointers and arrays the address space they point into. Type
spellings are resolved through the dialect's tables (``parsers`` ``Dialect.type_info``).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from kgraph.schema import CONVERSION_RANK, DTYPE_ALIASES, FLOAT_DTYPES

_INT_RANK = CONVERSION_RANK["int"]


def rank(base: str) -> int:
    """Rank of a scalar type in the usual arithmetic conversions (:data:`kgraph.schema.CONVERSION_RANK`,
    spellings through ``DTYPE_ALIASES``: ``__half`` is half, ``_Bool`` bool); unknown types rank as int."""
    return CONVERSION_RANK.get(DTYPE_ALIASES.get(base, base), _INT_RANK)


def is_float_base(base: str) -> bool:
    return DTYPE_ALIASES.get(base, base) in FLOAT_DTYPES


@dataclass(frozen=True)
class CType:
    """A value type.

    Args:
        base: scalar type name (``float``, ``double``, ``int``, ``uint``, ``size_t``, ...).
        width: vector lanes (1 for scalars).
        scalar_bytes: bytes of one lane.
        pointer: ``True`` for a pointer or array (``base``/``width`` then describe the element).
        space: address space pointed into (``global``, ``local``, ``constant``, ``private``).
    """

    base: str = "int"
    width: int = 1
    scalar_bytes: int = 4
    pointer: bool = False
    space: str = "private"

    @property
    def is_float(self) -> bool:
        return not self.pointer and is_float_base(self.base)

    @property
    def elem_bytes(self) -> int:
        """Bytes moved by one access of an element of this type (lanes x lane size)."""
        return self.scalar_bytes * self.width

    @property
    def flop_key(self) -> str:
        """The counter an arithmetic operation on a value of this type feeds."""
        if self.pointer:
            return "int_ops"
        if self.base == "double":
            return "flops_fp64"
        if is_float_base(self.base):
            return "flops_fp32"
        return "int_ops"

    def element(self) -> "CType":
        """The type of ``p[i]`` / ``*p``."""
        return replace(self, pointer=False, space="private")

    def pointer_to(self, space: str) -> "CType":
        return replace(self, pointer=True, space=space)

    def with_width(self, width: int) -> "CType":
        return replace(self, width=width)


INT = CType("int")
SIZE_T = CType("size_t", 1, 8)
FLOAT = CType("float")
DOUBLE = CType("double", 1, 8)
HALF = CType("half", 1, 2)
UNKNOWN = CType("int")


def from_spelling(spelling: str, dialect) -> CType | None:
    """A type spelling (``float4``, ``unsigned int``, ``const double``) through the dialect's tables."""
    words = [w for w in spelling.replace("*", " ").split()
             if w not in ("const", "volatile", "restrict", "__restrict__", "struct", "static", "inline")]
    info = dialect.type_info(" ".join(words)) if words else None
    if info is None:
        return None
    return CType(info.base_type, info.vector_width, info.scalar_bytes)


def from_literal(text: str) -> CType:
    """Type of a C number literal: ``1.0f`` float, ``1.0`` double (as C and OpenCL say), ``1`` int."""
    t = text.strip().lower().replace("'", "")
    if t.startswith("0x") or t.startswith("0b"):
        suffix = t[len(t.rstrip("ul")):]
        return _int_literal(suffix)
    if "." in t or "e" in t or t.endswith("f") or t.endswith("h"):
        if t.endswith("f"):
            return FLOAT
        if t.endswith("h"):
            return HALF
        return DOUBLE
    return _int_literal(t[len(t.rstrip("ul")):])


def _int_literal(suffix: str) -> CType:
    if "l" in suffix:
        return CType("ulong" if "u" in suffix else "long", 1, 8)
    return CType("uint" if "u" in suffix else "int")


def promote(a: CType, b: CType) -> CType:
    """Result type of an arithmetic binary operator.

    Pointer arithmetic keeps the pointer. A vector mixed with a scalar keeps the vector's type
    (OpenCL converts the scalar to the element type: ``float4 * 1.0`` stays fp32). Scalars follow C's
    usual arithmetic conversions: double > float > half > integers by rank.
    """
    if a.pointer or b.pointer:
        return a if a.pointer else b
    if a.width > 1 and b.width == 1:
        return a
    if b.width > 1 and a.width == 1:
        return b
    ra, rb = rank(a.base), rank(b.base)
    pick = a if ra >= rb else b
    if max(ra, rb) < _INT_RANK:
        pick = INT  # integer promotion: char/short/bool arithmetic happens in int
    return replace(pick, width=max(a.width, b.width))


#: the address spaces whose traffic is counted, and the counter each feeds (``constant`` is global memory)
MEMORY_SPACES = {"global": "global", "constant": "global", "local": "local"}
