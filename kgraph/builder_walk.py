"""The AST pass of the builder: copy one function's tree-sitter tree into the builder's flat arrays.

One ``TreeCursor`` pass in pre-order (no recursion, so nesting depth is bounded by memory, not by
Python's recursion limit); an anonymous token costs one table miss. Per kept node it appends its
column entries (type, kind, field name, parent, child list, depth, start, end) and its AST edge's
position: no per-node object. The columns with a common default (token, dtype, address space,
function) and the AST edges' source/target columns are extended once per function; the source bytes
are sliced and decoded only for leaves. Per-grammar tables (kind id → category, NodeType id, role)
are computed once; an operator (``+``, ``*=``, ``->``) is read with one ``child_by_field_id`` call
on the kinds that carry one.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import repeat

from kgraph.schema import AST_KIND_TO_TYPE, LOOP_KINDS, SKIPPED_KINDS, TRANSPARENT_KINDS, NodeType, dtype_name
from kgraph.vocab import literal_token

LEAF_KINDS = frozenset({"identifier", "field_identifier", "type_identifier", "primitive_type",
                        "sized_type_specifier", "number_literal", "string_literal", "char_literal",
                        "concatenated_string", "true", "false", "null", "nullptr", "statement_identifier",
                        "type_qualifier", "storage_class_specifier", "preproc_call", "preproc_def",
                        "preproc_function_def", "preproc_include", "system_lib_string"})
LITERAL_KINDS = frozenset({"number_literal", "string_literal", "char_literal", "concatenated_string",
                           "true", "false", "null", "nullptr"})
TEXT_TOKEN_KINDS = frozenset({"field_identifier", "type_qualifier", "storage_class_specifier"})
TYPE_KINDS = frozenset({"primitive_type", "type_identifier", "sized_type_specifier"})
SCOPE_KINDS = frozenset({"function_definition", "compound_statement", "for_statement"})
DECL_KINDS = frozenset({"declaration", "parameter_declaration"})
# kinds whose ``operator`` field the passes read (tree-sitter-c and tree-sitter-cuda)
OPERATOR_KINDS = frozenset({"binary_expression", "unary_expression", "update_expression", "assignment_expression",
                            "pointer_expression", "field_expression"})

SKIPPED, TRANSPARENT, LEAF, INNER = range(4)
# expression kinds the dtype pass (kgraph.builder_dtypes) and the DATA passes (kgraph.data_flow) look at
EXPRESSION_KINDS = frozenset({"binary_expression", "assignment_expression", "update_expression", "unary_expression",
                              "comma_expression", "conditional_expression", "subscript_expression",
                              "pointer_expression", "field_expression", "cast_expression", "call_expression",
                              "init_declarator"})
# roles: what the scope pass (kgraph.builder_scopes) looks at (b.marks), expressions (b.expressions),
# return statements (b.returns_of)
ROLE_NONE, ROLE_SCOPE, ROLE_DECL, ROLE_IDENTIFIER, ROLE_EXPRESSION, ROLE_RETURN = range(6)
_TABLES: dict = {}
_TYPE_IDS = {kind: int(node_type) for kind, node_type in AST_KIND_TO_TYPE.items()}


@lru_cache(maxsize=None)
def classify(kind: str) -> tuple:
    """``(kind, category, NodeType id, role, opens a loop, has an operator)`` of a named kind (one
    tuple per kind name, so ``entry is IDENTIFIER`` identifies identifiers)."""
    if kind in SKIPPED_KINDS:
        category = SKIPPED
    elif kind in TRANSPARENT_KINDS:
        category = TRANSPARENT
    else:
        category = LEAF if kind in LEAF_KINDS else INNER
    role = (ROLE_SCOPE if kind in SCOPE_KINDS else ROLE_DECL if kind in DECL_KINDS
            else ROLE_IDENTIFIER if kind == "identifier" else ROLE_EXPRESSION if kind in EXPRESSION_KINDS
            else ROLE_RETURN if kind == "return_statement" else ROLE_NONE)
    return (kind, category, int(AST_KIND_TO_TYPE.get(kind, NodeType.OTHER)), role, kind in LOOP_KINDS,
            kind in OPERATOR_KINDS)


IDENTIFIER = classify("identifier")


def language_tables(language) -> tuple[list, dict, int]:
    """Per grammar: ``classify(kind)`` by kind id (``0`` for anonymous kinds), field id → name, and
    the ``operator`` field id."""
    key = (language.name, language.node_kind_count, language.field_count)
    if key not in _TABLES:
        kinds = [classify(language.node_kind_for_id(kind_id) or "") if language.node_kind_is_named(kind_id) else 0
                 for kind_id in range(language.node_kind_count)]
        fields = {i: language.field_name_for_id(i) for i in range(1, language.field_count + 1)}
        _TABLES[key] = (kinds, fields, language.field_id_for_name("operator"))
    return _TABLES[key]


def leaf_tokens(b, leaves: list[int]) -> None:
    """Set the token (and dtype) of literal, type and spelled leaves from their source text."""
    kind, text, token, dtype = b.kind, b.text, b.token, b.dtype
    for i in leaves:
        k, spelling = kind[i], text[i]
        if k in LITERAL_KINDS:
            token[i], dtype[i] = literal_token(k, spelling)
        elif k in TYPE_KINDS:
            name = dtype[i] = dtype_name(spelling)
            token[i] = name if name not in ("none", "other") else spelling
        elif k in TEXT_TOKEN_KINDS:
            token[i] = spelling


def walk(b, ts_root, function: str) -> int:
    """Append the kept nodes of ``ts_root``'s tree to builder ``b`` in pre-order; returns the root's index.

    Fills the node columns of ``b`` (``node_type, token, kind, dtype, space, loop_depth, start, end,
    owner``) and ``field, parent, children`` (one entry per node), ``b.text`` (leaves), ``b.op``
    (operator nodes), ``b.scope_end`` (scope node → index of its subtree's last node), ``b.marks``
    (scope, declaration and identifier nodes, in order), ``b.expressions`` (:data:`EXPRESSION_KINDS`
    nodes, in order), ``b.returns_of`` (return statements) and the AST edge columns.
    """
    kinds, field_names, operator_field = language_tables(b.unit.tree.language)
    field_name = field_names.get
    ascii_only = b.source_text is not None  # then a str slice is the leaf's spelling: no per-leaf decode
    src = b.source_text if ascii_only else b.source
    text, op, marks, expressions, scope_end = b.text, b.op, b.marks, b.expressions, b.scope_end
    returns = b.returns_of
    no_children = ()
    leaves: list[int] = []  # leaves whose token is their spelling (literals, types, qualifiers, fields)
    rows: list[tuple] = []  # per node: kind, field, parent, loop depth, start, end, position, children
    row = rows.append
    first = index = len(b.kind)
    cursor = ts_root.walk()
    # context of the cursor's current sibling list: kept parent and its child list, field inherited
    # through a transparent node, loop depth, and whether the parent is a scope (closed on leaving)
    parent, siblings, inherited, depth, closes = -1, [], None, 0, False
    saved: list = []  # contexts of the enclosing levels
    save, restore = saved.append, saved.pop
    while True:
        node = cursor.node
        try:
            entry = kinds[node.kind_id]
        except IndexError:  # ERROR and other ids outside the grammar's table
            entry = classify(node.type) if node.is_named else 0
        if entry is IDENTIFIER:  # the most common node: a leaf the scope pass resolves
            start, end = node.byte_range
            marks.append(index)
            row(("identifier", inherited or field_name(cursor.field_id), parent, depth, start, end, len(siblings),
                 no_children))
            siblings.append(index)
            text[index] = src[start:end] if ascii_only else src[start:end].decode("utf-8", "replace")
            index += 1
        elif entry:
            kind, category, node_type, role, is_loop, has_operator = entry
            if category >= LEAF:
                start, end = node.byte_range
                if role:
                    if role == ROLE_EXPRESSION:
                        expressions.append(index)
                    elif role == ROLE_RETURN:
                        returns.append(index)
                    else:
                        marks.append(index)
                if category == LEAF:
                    row((kind, inherited or field_name(cursor.field_id), parent, depth, start, end, len(siblings),
                         no_children))
                    siblings.append(index)
                    text[index] = src[start:end] if ascii_only else src[start:end].decode("utf-8", "replace")
                    if kind != "identifier":
                        leaves.append(index)
                else:
                    kids = []
                    row((kind, inherited or field_name(cursor.field_id), parent, depth, start, end, len(siblings),
                         kids))
                    siblings.append(index)
                    if has_operator:
                        operator = node.child_by_field_id(operator_field)
                        if operator is not None and not operator.is_named:
                            op[index] = operator.type
                    if cursor.goto_first_child():
                        save((parent, siblings, inherited, depth, closes))
                        parent, siblings, inherited, depth, closes = index, kids, None, depth + is_loop, \
                            role == ROLE_SCOPE
                        index += 1
                        continue
                    if role == ROLE_SCOPE:
                        scope_end[index] = index
                index += 1
            elif category == TRANSPARENT:
                field = inherited or field_name(cursor.field_id)
                if cursor.goto_first_child():
                    save((parent, siblings, inherited, depth, closes))
                    inherited, closes = field, False
                    continue
        # next node: the next sibling, else the next sibling of the nearest ancestor that has one
        while not cursor.goto_next_sibling():
            if not saved:
                break
            cursor.goto_parent()
            if closes:
                scope_end[parent] = index - 1
            parent, siblings, inherited, depth, closes = restore()
        else:
            continue
        break
    kind, field, parent, depth, start, end, position, kids = zip(*rows)  # columns, in one go
    count = len(rows)
    b.kind += kind
    b.field += field
    b.parent += parent
    b.loop_depth += depth
    b.start += start
    b.end += end
    b.children += kids
    ast_src, ast_dst, ast_position = b.edge_columns[0]
    ast_src += parent[1:]  # every node but the root has its parent's AST edge, in pre-order
    ast_dst += range(first + 1, first + count)
    ast_position += position[1:]
    b.node_type += map(_TYPE_IDS.get, kind, repeat(int(NodeType.OTHER)))
    b.token += kind
    b.dtype += repeat("none", count)
    b.space += repeat("none", count)
    b.owner += repeat(function, count)
    leaf_tokens(b, leaves)
    return first
