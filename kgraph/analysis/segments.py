"""Segment loops: loops of unknown trip count that walk one segment of an offsets array, and their mean trip
count from the lengths of the buffers a launch passes.

A compressed sparse row (CSR) kernel walks row ``r``'s entries with ``for (k = ptr[r]; k < ptr[r + 1]; k++)``; a
graph kernel walks a vertex's neighbours, a segmented reduction a segment, a varint decoder a block, the same way.
The analysis cannot count such a loop (its bounds are loads: ``trip_<line>``, :mod:`kgraph.analysis.trips`), but
its *mean* trip count over the segments follows from the buffer lengths alone: ``ptr`` holds ``R + 1`` offsets of
``R`` segments, and a buffer read at ``k`` (``col[k]``, ``val[k]``) holds the ``E`` entries of all of them, so a
segment has ``E / R`` entries on average. A loop that strides its segment by ``c`` lanes
(``for (k = ptr[r] + lane; k < ptr[r + 1]; k += c)``) runs ``E / (R c)`` iterations per entry, averaged over
the lanes.

Recognised (:func:`segment_loops`, per kernel):

- **segment**: a ``for`` loop ``k = B[e] (+ q); k < B[e + 1]; k++`` (or ``k += c``, ``k = k + c``, ``c`` a
  constant or macro), ``B`` a buffer parameter; the start and bound may be locals defined once
  (``const int end = ptr[r + 1];``), possibly behind casts and parentheses. The buffers read or written at
  ``k`` itself (``X[k]``) give ``E``; a loop with none gets no mean.
- **prefix / suffix**: a loop of unknown trip count nested in a segment loop over ``i`` that walks the
  segment before ``i`` (``j = begin; j < i``: mean ``(E/R - 1) / 2``), after it (``j = i + 1; j < end``:
  the same) or from it (``j = i; j < end``: ``(E/R + 1) / 2``), as a quadratic scan of a neighbour list does.
  These means take every segment at the mean length (exact when they are equal, low when they vary).

What the mean assumes: the launch's work-items enter the segments evenly (each once, as a kernel over rows or
vertices does). It is a launch input, like ``--arg trip_<line>=N`` (:func:`segment_trips`), never a count the
analysis calls exact: the counts of a kernel with a segment loop stay inexact (:mod:`kgraph.exact_counts`).
"""
from __future__ import annotations

from dataclasses import dataclass

from kgraph.analysis.context import node_text, subscript_index
from kgraph.analysis.symbolic_math import TRIP_PREFIX

#: kinds of recognised loops: the segment itself, and the scans of a segment before / after / from its variable
KINDS = ("segment", "prefix", "suffix", "rest")


@dataclass(frozen=True)
class Segment:
    """One recognised loop (module doc).

    Args:
        symbol: its trip symbol (``trip_<line>``).
        kind: one of :data:`KINDS`.
        offsets: the buffer whose consecutive entries bound the segments (``ptr`` of ``ptr[r]..ptr[r + 1]``).
        entries: the buffers indexed by the segment loop's variable itself (their length is the entries' total).
        lanes: the segment loop's constant stride (its lanes split a segment).
        local_dim: where the stride is the work-group size (``k += get_local_size(d)``), that dimension ``d``
            (``lanes`` is then 1 and the launch's local size divides); else -1.
        outer: for a prefix/suffix/rest scan, the symbol of the segment loop it is nested in; else "".
    """

    symbol: str
    kind: str
    offsets: str
    entries: tuple[str, ...]
    lanes: int = 1
    outer: str = ""
    local_dim: int = -1

    def describe(self) -> str:
        total = "/".join(self.entries)
        stride = (f" / {self.lanes}" if self.lanes > 1 else
                  f" / local size {self.local_dim}" if self.local_dim >= 0 else "")
        mean = f"len({total}) / (len({self.offsets}) - 1){stride}"
        if self.kind == "segment":
            return f"{self.symbol} = {mean}"
        scan = {"prefix": "(m - 1) / 2", "suffix": "(m - 1) / 2", "rest": "(m + 1) / 2"}[self.kind]
        return f"{self.symbol} = {scan}, m = {mean}"


def segment_loops(analysis, unit, function) -> dict[str, Segment]:
    """The segment loops of a kernel (``analysis`` of ``function`` in the parsed ``unit``), by trip symbol;
    made once per analysis."""
    return analysis.derived("segments.loops", lambda: _find(analysis, unit, function))


def segment_trips(segments: dict[str, Segment], buffers: dict[str, float],
                  local_size: list[int] | None = None) -> dict[str, float]:
    """Mean trip counts (per entry of each loop) of the ``segments`` whose buffers have a length in ``buffers``
    (buffer name -> elements), by trip symbol; ``local_size`` is the launch's work-group (for a loop strided by
    it). A loop whose offsets buffer holds fewer than 2 elements (no segment) or none of whose entry buffers is
    given gets none."""
    means: dict[str, float] = {}
    for s in segments.values():
        rows = buffers.get(s.offsets, 0) - 1
        total = [buffers[b] for b in s.entries if b in buffers]
        if rows < 1 or not total:
            continue
        mean = min(total) / rows  # the shortest: a longer one may have padding, never fewer entries
        if s.kind == "segment":
            lanes = s.lanes
            if s.local_dim >= 0:
                lanes = (local_size or [])[s.local_dim] if s.local_dim < len(local_size or []) else 1
            means[s.symbol] = mean / max(lanes, 1)
        else:
            means[s.symbol] = max(mean - 1.0, 0.0) / 2 if s.kind in ("prefix", "suffix") else (mean + 1.0) / 2
    return means


# -- recognition ------------------------------------------------------------------------------------------------

def _find(analysis, unit, function) -> dict[str, Segment]:
    opaque = {lp.line: lp for lp in analysis.loops if not lp.symbolic and lp.kind == "for"}
    if not opaque or function.body is None:
        return {}
    buffers = {p.name for p in function.params if p.kind == "buffer"}
    defs = _definitions(function.body)
    loops = {}
    for node in _walk(function.body):
        if node.type == "for_statement" and node.start_point[0] + 1 in opaque:
            loops.setdefault(node.start_point[0] + 1, []).append(node)
    found: dict[str, Segment] = {}
    heads = {}  # for_statement node id -> (segment, variable, start text, end text)
    for line, nodes in sorted(loops.items()):
        if len(nodes) != 1:
            continue  # two loops on one line share a symbol: neither is read
        head = _segment_head(nodes[0], defs, buffers, unit)
        if head is None:
            continue
        var, offsets, (lanes, local_dim), start, end = head
        entries = tuple(sorted({b for b in _indexed_by(nodes[0], var) if b in buffers}))
        if not entries:
            continue
        seg = Segment(f"{TRIP_PREFIX}{line}", "segment", offsets, entries, lanes, local_dim=local_dim)
        found[seg.symbol] = seg
        heads[line] = (seg, var, start, end, nodes[0])
    for line, (seg, var, start, end, outer) in heads.items():
        if seg.lanes != 1 or seg.local_dim >= 0:
            continue
        for node in _walk(outer.child_by_field_name("body")):
            inner = node.start_point[0] + 1
            if node.type != "for_statement" or inner not in opaque or len(loops.get(inner, [])) != 1:
                continue
            kind = _scan_kind(node, var, start, end, defs)
            if kind:
                found[f"{TRIP_PREFIX}{inner}"] = Segment(f"{TRIP_PREFIX}{inner}", kind, seg.offsets, seg.entries,
                                                         1, seg.symbol)
    return found


def _walk(node):
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.named_children))


def _definitions(body) -> dict[str, list]:
    """Variable name -> the value nodes it is given anywhere in ``body`` (None for a change without one:
    ``x++``, ``x += 1``, a declaration without a value)."""
    defs: dict[str, list] = {}
    for n in _walk(body):
        if n.type == "init_declarator":
            target = n.child_by_field_name("declarator")
            if target is not None and target.type == "identifier":
                defs.setdefault(node_text(target), []).append(n.child_by_field_name("value"))
        elif n.type == "assignment_expression":
            left = n.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                plain = node_text(n.child_by_field_name("operator")) == "="
                defs.setdefault(node_text(left), []).append(n.child_by_field_name("right") if plain else None)
        elif n.type == "update_expression":
            arg = n.child_by_field_name("argument")
            if arg is not None and arg.type == "identifier":
                defs.setdefault(node_text(arg), []).append(None)
    return defs


def _bare(node):
    """``node`` without parentheses and casts."""
    while node is not None:
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            node = node.named_children[0]
        elif node.type == "cast_expression":
            node = node.child_by_field_name("value")
        else:
            return node
    return node


def _resolve(node, defs, depth: int = 3):
    """``node`` bare, and an identifier given exactly one value in the function replaced by that value."""
    node = _bare(node)
    while depth and node is not None and node.type == "identifier":
        values = defs.get(node_text(node), [])
        if len(values) != 1 or values[0] is None:
            return node
        node, depth = _bare(values[0]), depth - 1
    return node


def _load(node, defs, buffers):
    """``(buffer, index text)`` when ``node`` resolves to ``B[e]`` with ``B`` a buffer parameter, else None."""
    node = _resolve(node, defs)
    if node is None or node.type != "subscript_expression":
        return None
    base = node.child_by_field_name("argument")
    if base is None or base.type != "identifier" or node_text(base) not in buffers:
        return None
    return node_text(base), _squash(node_text(subscript_index(node)))


def _squash(text: str) -> str:
    text = "".join(text.split())
    while text.startswith("(") and text.endswith(")") and text.count("(") == 1:
        text = text[1:-1]
    return text


def _next_of(index: str, following: str) -> bool:
    """Whether index text ``following`` is ``index + 1``."""
    wrapped = index if index.isidentifier() or index.isdigit() else f"({index})"
    return following in {f"{index}+1", f"1+{index}", f"{wrapped}+1", f"1+{wrapped}"}


def _segment_head(node, defs, buffers, unit):
    """``(variable, offsets buffer, lanes, start text, end text)`` of a segment loop's header, else None."""
    init, cond, update = (node.child_by_field_name(f) for f in ("initializer", "condition", "update"))
    var, start = _init(init)
    if not var or cond is None or cond.type != "binary_expression" or \
            node_text(cond.child_by_field_name("operator")) not in ("<", "!="):
        return None
    left, right = _bare(cond.child_by_field_name("left")), cond.child_by_field_name("right")
    if left is None or left.type != "identifier" or node_text(left) != var:
        return None
    stride = _step(update, var, unit, defs)
    if stride is None:
        return None
    begin = _load(start, defs, buffers)
    offset = False
    if begin is None:  # B[e] + lane
        bare = _resolve(start, defs)
        if bare is not None and bare.type == "binary_expression" and \
                node_text(bare.child_by_field_name("operator")) == "+":
            begin = _load(bare.child_by_field_name("left"), defs, buffers) or \
                _load(bare.child_by_field_name("right"), defs, buffers)
            offset = True
    end = _load(right, defs, buffers)
    if begin is None or end is None or begin[0] != end[0] or not _next_of(begin[1], end[1]):
        return None
    if offset != (stride != (1, -1)):
        return None  # a lane offset goes with a stride of the lanes, and a step of 1 with none
    return var, begin[0], stride, _squash(node_text(_bare(start))), _squash(node_text(_bare(right)))


def _init(init) -> tuple[str, object]:
    if init is None:
        return "", None
    if init.type == "declaration":
        ds = [d for d in init.children_by_field_name("declarator") if d.type == "init_declarator"]
        if len(ds) == 1 and ds[0].child_by_field_name("declarator").type == "identifier":
            return node_text(ds[0].child_by_field_name("declarator")), ds[0].child_by_field_name("value")
    elif init.type == "assignment_expression" and node_text(init.child_by_field_name("operator")) == "=" and \
            init.child_by_field_name("left").type == "identifier":
        return node_text(init.child_by_field_name("left")), init.child_by_field_name("right")
    return "", None


def _step(update, var: str, unit, defs=None) -> tuple[int, int] | None:
    """The stride of ``var``'s update as ``(lanes, local_dim)``: ``k++`` ``(1, -1)``, ``k += c`` ``(c, -1)`` (a
    constant), ``k += get_local_size(d)`` (or a local holding it) ``(1, d)``; else None."""
    if update is None:
        return None
    if update.type == "update_expression":
        arg = update.child_by_field_name("argument")
        return (1, -1) if node_text(arg) == var and "++" in node_text(update) else None
    if update.type != "assignment_expression" or node_text(update.child_by_field_name("left")) != var:
        return None
    op, right = node_text(update.child_by_field_name("operator")), update.child_by_field_name("right")
    if op == "=" and right.type == "binary_expression" and node_text(right.child_by_field_name("operator")) == "+":
        l, r = _bare(right.child_by_field_name("left")), right.child_by_field_name("right")
        if node_text(l) != var:
            return None
        op, right = "+=", r
    if op != "+=":
        return None
    call = _resolve(right, defs or {})
    if call is not None and call.type == "call_expression" and \
            node_text(call.child_by_field_name("function")) == "get_local_size":
        dim = call.child_by_field_name("arguments").named_children
        return (1, int(node_text(dim[0]))) if len(dim) == 1 and node_text(dim[0]) in ("0", "1", "2") else None
    value = unit.fold(node_text(right)) if unit is not None else None
    ok = isinstance(value, (int, float)) and value >= 1 and float(value).is_integer()
    return (int(value), -1) if ok else None


def _indexed_by(loop, var: str) -> set[str]:
    """Names of the arrays subscripted by exactly ``var`` in ``loop``'s body."""
    out = set()
    for n in _walk(loop.child_by_field_name("body")):
        if n.type == "subscript_expression" and _squash(node_text(subscript_index(n))) == var:
            base = n.child_by_field_name("argument")
            if base is not None and base.type == "identifier":
                out.add(node_text(base))
    return out


def _scan_kind(node, var: str, start: str, end: str, defs) -> str:
    """Which scan of the enclosing segment (over ``var``, from ``start`` to ``end``) the loop ``node`` is
    (``prefix``, ``suffix``, ``rest``), or ""."""
    init, cond, update = (node.child_by_field_name(f) for f in ("initializer", "condition", "update"))
    inner, first = _init(init)
    if not inner or cond is None or cond.type != "binary_expression" or \
            node_text(cond.child_by_field_name("operator")) not in ("<", "!=") or _step(update, inner, None) != (1, -1):
        return ""
    left = _bare(cond.child_by_field_name("left"))
    if left is None or node_text(left) != inner:
        return ""
    lo, hi = _squash(node_text(_bare(first))), _squash(node_text(_bare(cond.child_by_field_name("right"))))
    if lo == start and hi == var:
        return "prefix"
    if hi == end and lo in (f"{var}+1", f"1+{var}"):
        return "suffix"
    if hi == end and lo == var:
        return "rest"
    return ""
