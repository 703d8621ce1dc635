"""DATA edges of one function: reaching definitions over scalars, buffer traffic through BUFFER nodes.

Scalars: a definition is an ``init_declarator`` with a value, an assignment to a scalar, a ``++``/``--``
of one, or — at the function entry — a parameter's VARIABLE node. Iterative reaching-definitions
dataflow over the CONTROL graph (bitsets, one bit per definition) gives, for each statement, the
definitions reaching it; walking the statement in evaluation order (right-hand side before the
definition it feeds) then links each definition to every identifier use it reaches (DATA_VALUE).

Buffers (flow-insensitive): an access is the outermost ``subscript_expression`` of a chain
(``tile[ty][tx]``) or a ``*`` dereference whose base names a BUFFER. A store is the assignment (or
``++``) whose left side is the access: ``assignment -> BUFFER`` (DATA_WRITE); a load is
``BUFFER -> access`` (DATA_VALUE; a compound assignment is both); every index expression gets
``index -> BUFFER`` (DATA_INDEX). A bare buffer name (``vload4(i, A)``, a helper argument) is read
``BUFFER -> identifier``; passed to ``vstore*``/``atomic*`` it is also written by the call.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right

from kgraph.schema import DATA_INDEX, DATA_VALUE, DATA_WRITE, Flow

_USE, _DEF = 0, 1
_EVENT_KINDS = frozenset({"assignment_expression", "update_expression", "init_declarator"})


def _scalar(b, i: int | None):
    if i is None or b.kind[i] != "identifier":
        return None
    symbol = b.sym_of.get(i)
    return symbol if symbol is not None and not symbol.is_buffer else None


def _subtree_last(children, i: int) -> int:
    """The last node of ``i``'s subtree (nodes are numbered in pre-order: its rightmost descendant)."""
    kids = children[i]
    while kids:
        i = kids[-1]
        kids = children[i]
    return i


def _events(b, relevant: list[int], lo: int, hi: int, out: list) -> None:
    """Append the (USE, symbol, identifier) / (DEF, symbol, defining node) events of ``relevant[lo:hi]``
    (the identifiers, assignments, updates and init_declarators of one subtree, in pre-order) in
    evaluation order: a definition comes after the right-hand side it reads. Pre-order already is
    evaluation order except there, so such a definition waits on a stack until the scan leaves its
    subtree (innermost first), and an initialised declarator's value is scanned before its declarator."""
    kind, children, sym_of, child = b.kind, b.children, b.sym_of, b.child
    deferred: list = []  # (last node of the subtree, events to emit after it), innermost last
    skip = -1            # the scalar target of the assignment/update just seen (its events are deferred)
    k = lo
    while k < hi:
        i = relevant[k]
        k += 1
        while deferred and deferred[-1][0] < i:
            out += deferred.pop()[1]
        if i == skip:
            continue
        node_kind = kind[i]
        if node_kind == "identifier":
            symbol = sym_of.get(i)
            if symbol is not None and not symbol.is_buffer:
                out.append((_USE, symbol, i))
        elif node_kind == "assignment_expression":
            left = child(i, "left")
            symbol = _scalar(b, left)
            if symbol is not None:
                after = [(_USE, symbol, left)] if b.op.get(i) not in (None, "=") else []
                after.append((_DEF, symbol, i))
                deferred.append((_subtree_last(children, i), after))
                skip = left
        elif node_kind == "update_expression":
            arg = child(i, "argument")
            symbol = _scalar(b, arg)
            if symbol is not None:
                out.append((_USE, symbol, arg))
                out.append((_DEF, symbol, i))
                skip = arg
        else:  # init_declarator
            value = child(i, "value")
            ident = child(i, "declarator")
            symbol = b.declared.get(ident) if ident is not None else None
            if symbol is not None and not symbol.is_buffer and value is not None:
                deferred.append((_subtree_last(children, i), [(_DEF, symbol, i)]))
            elif ident is not None and value is not None and children[ident]:
                end = _subtree_last(children, i)
                stop = k
                while stop < hi and relevant[stop] <= end:
                    stop += 1
                split = k  # relevant[k:split] lie in the declarator, relevant[split:stop] in the value
                while split < stop and relevant[split] < value:
                    split += 1
                _events(b, relevant, split, stop, out)
                _events(b, relevant, k, split, out)
                k = stop
    while deferred:
        out += deferred.pop()[1]


def add_scalar_edges(b, cfg, params) -> None:
    """Reaching-definition DATA edges (def -> use) of the function whose CONTROL graph is ``cfg``.

    CONTROL nodes are numbered by creation order; per node, ``gen``/``kill``/``out``/``inn`` are int
    bitsets over the definitions (parameters first, then definitions in evaluation order)."""
    nodes = cfg.nodes
    m = len(nodes)
    position = {n: k for k, n in enumerate(nodes)}
    def_nodes: list[int] = []  # definition number -> defining node
    def_var: list[int] = []    # definition number -> variable (its VARIABLE node)
    for p in params:
        if not p.is_buffer:
            def_nodes.append(p.node)
            def_var.append(p.node)
    entry_defs = (1 << len(def_nodes)) - 1
    events: list = [()] * m
    evaluates, children = cfg.evaluates, b.children
    kind = b.kind
    relevant = sorted(b.scalar_refs + [i for i in b.expressions if kind[i] in _EVENT_KINDS])
    for k, n in enumerate(nodes):
        evs: list = []
        for root in evaluates[n]:
            if root is not None:
                lo = bisect_left(relevant, root)
                hi = bisect_right(relevant, _subtree_last(children, root), lo)
                if lo < hi:
                    _events(b, relevant, lo, hi, evs)
        if not evs:
            continue
        numbered = []
        for tag, symbol, node in evs:
            if tag == _DEF:
                numbered.append((_DEF, symbol.node, len(def_nodes)))
                def_nodes.append(node)
                def_var.append(symbol.node)
            else:
                numbered.append((_USE, symbol.node, node))
        events[k] = numbered
    mask: dict[int, int] = {}
    for d, var in enumerate(def_var):
        mask[var] = mask.get(var, 0) | (1 << d)
    gen = [0] * m
    kill = [0] * m
    for k in range(m):
        g = c = 0
        for tag, var, d in events[k]:
            if tag == _DEF:
                g = (g & ~mask[var]) | (1 << d)
                c |= mask[var]
        gen[k], kill[k] = g, c
    gen[position[cfg.entry]] |= entry_defs
    preds = cfg.preds
    pred_positions = [[position[p] for p in preds.get(n, ()) if p in position] for n in nodes]
    out = list(gen)
    inn = [0] * m
    # one sweep in creation order is exact when every predecessor comes earlier (no cycle); else iterate
    cyclic = any(p >= k for k, ps in enumerate(pred_positions) for p in ps)
    changed = True
    while changed:
        changed = False
        for k in range(m):
            reach = 0
            for p in pred_positions[k]:
                reach |= out[p]
            inn[k] = reach
            new = gen[k] | (reach & ~kill[k])
            if new != out[k]:
                out[k] = new
                changed = cyclic
    data_src, data_dst, data_position = b.edge_columns[Flow.DATA]
    for k in range(m):
        current = inn[k]
        for tag, var, x in events[k]:
            if tag == _DEF:
                current = (current & ~mask[var]) | (1 << x)
                continue
            bits = current & mask.get(var, 0)
            while bits:
                low = bits & -bits
                data_src.append(def_nodes[low.bit_length() - 1])
                data_dst.append(x)
                data_position.append(DATA_VALUE)
                bits ^= low


def _access_base(b, i: int) -> tuple[int | None, list[int]]:
    """The base identifier of an access and its index expressions."""
    k = b.kind[i]
    if k == "subscript_expression":
        indices = []
        while b.kind[i] == "subscript_expression":
            indices.extend(c for c in b.children[i] if b.field[c] != "argument")
            arg = b.child(i, "argument")
            if arg is None:
                return None, []
            i = arg
        return (i if b.kind[i] == "identifier" else None), indices
    arg = b.child(i, "argument")  # '*' dereference: the first identifier down the left spine
    index = arg
    while arg is not None and b.kind[arg] != "identifier":
        if b.kind[arg] == "binary_expression":
            arg = b.child(arg, "left")
        elif b.kind[arg] == "cast_expression":
            arg = b.child(arg, "value")
        else:
            return None, []
    return arg, ([index] if index is not None and index != arg else [])


def _enclosing_call(b, i: int) -> tuple[int | None, str]:
    p = b.parent[i]
    while p >= 0 and b.kind[p] == "pointer_expression":
        p = b.parent[p]
    if p >= 0 and b.kind[p] == "argument_list":
        call = b.parent[p]
        fn = b.child(call, "function")
        return call, (b.text.get(fn) or "") if fn is not None else ""
    return None, ""


def _writes(name: str) -> bool:
    return name.startswith(("atom", "vstore", "write_image"))


def add_buffer_edges(b, expressions: list[int], buffer_refs: list[int]) -> None:
    """Buffer load/store/index DATA edges of one function, given its expression nodes and its
    identifiers that name a buffer, each in pre-order."""
    bases: set[int] = set()
    for i in expressions:
        k = b.kind[i]
        if k == "subscript_expression":
            p = b.parent[i]
            if p >= 0 and b.kind[p] == "subscript_expression" and b.field[i] == "argument":
                continue
        elif not (k == "pointer_expression" and b.op.get(i) == "*"):
            continue
        base, indices = _access_base(b, i)
        symbol = b.sym_of.get(base) if base is not None else None
        if symbol is None or not symbol.is_buffer:
            continue
        bases.add(base)
        buffer = symbol.node
        b.space[i] = symbol.space
        p = b.parent[i]
        pk = b.kind[p] if p >= 0 else ""
        if pk == "assignment_expression" and b.field[i] == "left":
            b.add_edge(p, buffer, Flow.DATA, DATA_WRITE)
            if b.op.get(p) not in (None, "="):
                b.add_edge(buffer, i, Flow.DATA, DATA_VALUE)
        elif pk == "update_expression":
            b.add_edge(buffer, i, Flow.DATA, DATA_VALUE)
            b.add_edge(p, buffer, Flow.DATA, DATA_WRITE)
        else:
            b.add_edge(buffer, i, Flow.DATA, DATA_VALUE)
            if pk == "pointer_expression" and b.op.get(p) == "&":
                call, name = _enclosing_call(b, p)
                if call is not None and _writes(name):
                    b.add_edge(call, buffer, Flow.DATA, DATA_WRITE)
        for index in indices:
            b.add_edge(index, buffer, Flow.DATA, DATA_INDEX)
    for i in buffer_refs:
        if i in bases:
            continue
        symbol = b.sym_of[i]
        b.add_edge(symbol.node, i, Flow.DATA, DATA_VALUE)
        call, name = _enclosing_call(b, i)
        if call is not None and _writes(name):
            b.add_edge(call, symbol.node, Flow.DATA, DATA_WRITE)
