"""C's cast/expression ambiguity, settled as a compiler would: by whether the name is a type.

``(gi * (K)) + q`` is valid C two ways: the product ``gi * K`` plus ``q``, or ``+q`` cast to "pointer to a
function taking a ``K`` and returning ``gi``". A compiler knows ``gi`` is a variable; tree-sitter, which
cannot, reads the cast (``queries: casts.scm``), and every analysis after it would see ``q`` alone (the
generated kernel ``a0[(gi * (K * J)) + q]`` lost its work-item term this way: its loads looked like a
broadcast, its footprint 32× too small and still marked exact).

:func:`expression_parens` finds those casts whose type name is used as a value in the same source and
declared by no typedef or tag, and whose parenthesised "parameter list" is one name or a product of names
(``(K)``, ``(K * J)``: exactly the expressions such a list can spell). The front end blanks those two
parentheses (spaces of equal length, as :mod:`.masking` blanks qualifiers: byte offsets and line:column
stay exact) and parses again: ``(gi *  K ) + q`` and ``(gi *  K * J ) + q`` have the same value, as
integer products are associative (also modulo 2^n).
"""
from __future__ import annotations

import tree_sitter as ts

from kgraph.parsers.dialect import Dialect

MAX_PASSES = 4  # a fix can expose another misread cast around it; each pass blanks all it finds


def _product_of_names(param: ts.Node) -> bool:
    """Whether a ``parameter_declaration`` spells ``K`` or ``K * J [* L ...]``."""
    if param.type != "parameter_declaration":
        return False
    kind = param.child_by_field_name("type")
    if kind is None or kind.type != "type_identifier":
        return False
    decl = param.child_by_field_name("declarator")
    while decl is not None and decl.type == "pointer_declarator":
        if any(c.type == "type_qualifier" for c in decl.children):
            return False
        decl = decl.child_by_field_name("declarator")
    return decl is None or decl.type == "identifier"


def expression_parens(dialect: Dialect, root: ts.Node) -> list[tuple[int, int]]:
    """``(start, end)`` byte spans of the parentheses to blank so the misread casts under ``root`` parse
    as the products they are (empty when there are none)."""
    matches = dialect.matches("casts", root)
    casts = [caps for caps in matches if "cast" in caps]
    if not casts:
        return []
    values = {n.text for caps in matches for n in caps.get("value", [])}
    types = {n.text for caps in dialect.matches("declared", root) for n in caps.get("typename", [])}
    spans = []
    for caps in casts:
        name, params = caps["name"][0], caps["params"][0]
        if name.text not in values or name.text in types or dialect.type_info(name.text.decode()) is not None:
            continue
        inner = [c for c in params.named_children if c.type != "comment"]
        if len(inner) != 1 or not _product_of_names(inner[0]):
            continue
        spans += [(params.start_byte, params.start_byte + 1), (params.end_byte - 1, params.end_byte)]
    return spans


def blank(source: bytes, spans: list[tuple[int, int]]) -> bytes:
    """``source`` with each span replaced by spaces of the same length."""
    out = bytearray(source)
    for start, end in spans:
        out[start:end] = b" " * (end - start)
    return bytes(out)
