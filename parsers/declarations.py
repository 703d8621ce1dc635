"""Describe declarations from their tree-sitter nodes: parameter records and type spellings."""
from __future__ import annotations

import tree_sitter as ts

from kgraph.parsers.unit import Param, TranslationUnit

_RESTRICT = {"restrict", "__restrict", "__restrict__"}
_POINTERS = ("pointer_declarator", "abstract_pointer_declarator")
_ARRAYS = ("array_declarator", "abstract_array_declarator")


def _qualifier_words(node: ts.Node) -> set[str]:
    return {c.text.decode() for c in node.children if c.type == "type_qualifier"}


def declarator_shape(decl: ts.Node) -> tuple[str, int, set[str], set[str]]:
    """(name, pointer depth incl. array dims, qualifiers on the pointers, value qualifiers) of a declaration."""
    value_quals = _qualifier_words(decl)
    pointer_quals: set[str] = set()
    depth, name = 0, ""
    d = decl.child_by_field_name("declarator")
    while d is not None:
        if d.type in _POINTERS:
            depth += 1
            pointer_quals |= _qualifier_words(d)
        elif d.type in _ARRAYS:
            depth += 1
        elif d.type in ("identifier", "field_identifier", "type_identifier"):
            name = d.text.decode()
            break
        nxt = d.child_by_field_name("declarator")
        if nxt is None and d.type in ("parenthesized_declarator",):
            nxt = next((c for c in d.named_children), None)
        d = nxt
    return name, depth, pointer_quals, value_quals


def type_spelling(decl: ts.Node) -> str:
    """The type as written (``unsigned int``, ``float4``, ``struct Point``), qualifiers left out."""
    t = decl.child_by_field_name("type")
    return " ".join(t.text.decode().split()) if t is not None else "int"


def to_param(node: ts.Node, unit: TranslationUnit) -> Param:
    """The :class:`Param` of one ``parameter_declaration`` node."""
    spelling = type_spelling(node)
    name, depth, pointer_quals, value_quals = declarator_shape(node)
    info = unit.dialect.type_info(spelling)
    written = {"restrict" if q in _RESTRICT else q for q in value_quals | pointer_quals}
    quals = frozenset(unit.qualifiers_at(node) | written)
    is_pointer = depth > 0
    return Param(
        name=name,
        base_type=info.base_type if info is not None else spelling,
        vector_width=info.vector_width if info is not None else 1,
        is_pointer=is_pointer,
        address_space=unit.address_space_of(node),
        is_const="const" in value_quals,
        is_restrict=bool(pointer_quals & _RESTRICT),
        kind="buffer" if is_pointer else "scalar",
        elem_bytes=info.bytes if info is not None and info.bytes > 0 else None,
        qualifiers=quals,
        pointer_depth=depth,
        node=node,
    )


def return_type(fn: ts.Node) -> str:
    """Return type of a ``function_definition`` as written, with one ``*`` per pointer level."""
    stars = 0
    d = fn.child_by_field_name("declarator")
    while d is not None and d.type == "pointer_declarator":
        stars += 1
        d = d.child_by_field_name("declarator")
    return type_spelling(fn) + "*" * stars
