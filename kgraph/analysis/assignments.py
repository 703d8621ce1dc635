"""How many times a function's variables are assigned (tree-sitter nodes), for the symbolic values.

A name assigned more than once gets no symbolic value (:class:`~kgraph.analysis.symbolic.SymbolicEnv`'s
``multi_assigned``), and a ``for`` loop whose body assigns its variable gets no closed-form trip count
(:mod:`kgraph.analysis.loops`).
"""
from __future__ import annotations

from kgraph.analysis.context import node_text


def assigned_names(node) -> dict:
    """How many times each identifier is assigned in ``node`` (declarations with initialisers,
    ``=``/compound assignments, ``++``/``--``)."""
    out: dict[str, int] = {}
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        target = None
        if n.type == "assignment_expression":
            target = n.child_by_field_name("left")
        elif n.type == "update_expression":
            target = n.child_by_field_name("argument")
        elif n.type == "init_declarator":
            target = n.child_by_field_name("declarator")
        if target is not None and target.type == "identifier":
            name = node_text(target)
            out[name] = out.get(name, 0) + 1
        stack.extend(n.named_children)
    return out


def multi_assigned(node) -> set:
    """The names of ``node`` that get no symbolic value: those assigned more than once (:func:`assigned_names`),
    except a name whose every assignment is a declaration's initialiser in scopes that do not nest (``int t =
    ...;`` in the bodies of two sibling loops: two variables, each assigned once)."""
    counts = assigned_names(node)
    decls: dict[str, list] = {}
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        if n.type == "init_declarator":
            target = n.child_by_field_name("declarator")
            if target is not None and target.type == "identifier":
                decls.setdefault(node_text(target), []).append(_scope_of(n))
        stack.extend(n.named_children)
    return {name for name, k in counts.items() if k > 1 and not (
        len(decls.get(name, ())) == k and all(s is not None for s in decls[name]) and
        not any(_within(a, b) for a in decls[name] for b in decls[name] if a is not b))}


def _scope_of(declarator):
    """The block (or ``for`` statement) a declarator's variable lives in; None at the function's top level."""
    n = declarator.parent
    while n is not None and n.type not in ("compound_statement", "for_statement"):
        n = n.parent
    if n is not None and n.type == "compound_statement" and n.parent is not None and \
            n.parent.type == "function_definition":
        return None
    return n


def _within(inner, outer) -> bool:
    """Whether node ``inner`` lies inside node ``outer`` (or is it)."""
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def _declares(node, name: str) -> bool:
    """Whether a ``declaration`` node declares ``name``."""
    for d in node.children_by_field_name("declarator"):
        while d is not None and d.type != "identifier":
            d = d.child_by_field_name("declarator") or (d.named_children[0] if d.named_child_count else None)
        if d is not None and node_text(d) == name:
            return True
    return False


def assignments_of(node, name: str) -> int:
    """How many times the variable ``name`` visible at ``node`` is assigned in it: as
    :func:`assigned_names`, but a nested declaration of ``name`` starts another variable, so the rest
    of its block (or the ``for`` statement declaring it) is not counted (shadowing)."""
    count, stack = 0, [node] if node is not None else []
    while stack:
        n = stack.pop()
        if n.type == "for_statement":
            init = n.child_by_field_name("initializer")
            if init is not None and init.type == "declaration" and _declares(init, name):
                continue
        target = None
        if n.type == "assignment_expression":
            target = n.child_by_field_name("left")
        elif n.type == "update_expression":
            target = n.child_by_field_name("argument")
        if target is not None and target.type == "identifier" and node_text(target) == name:
            count += 1
        children = n.named_children
        if n.type == "compound_statement":
            cut = next((i for i, c in enumerate(children) if c.type == "declaration" and _declares(c, name)), None)
            if cut is not None:
                children = children[:cut]
        stack.extend(children)
    return count
