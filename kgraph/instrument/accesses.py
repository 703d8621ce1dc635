"""Find every global-memory access of a kernel body and rewrite it to count and mark itself.

Each access is rewritten in place so that its index goes through ``__kg_access`` (see
:mod:`kgraph.instrument.prelude`), which adds the access's bytes to the work-item's private
load/store counters, marks the touched elements in the buffer's byte map and returns the index
unchanged. The access is therefore counted exactly when (and as often as) it is evaluated:
inside a ternary branch, a short-circuit operand or a loop condition alike.

Forms handled: ``X[i]`` (X a buffer, an alias or a cast of one, optional vector components
``X[i].xy``), ``*(P)`` with P = buffer ± integers, ``vloadN(i, P)`` / ``vstoreN(v, i, P)``, and
the pointer argument of atomic built-ins (``&X[i]`` or ``P``; marked, counted as one atomic,
not as load/store bytes). ``__local`` and ``__private`` accesses are left untouched.
"""
from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from kgraph.instrument.buffers import BufferTable, PointerRoot
from kgraph.instrument.edits import SourceEdits
from kgraph.instrument.prelude import MARKS_ARG, PRIVATE_NAME

VECTOR_WIDTHS = ("", "2", "3", "4", "8", "16")
ROUNDING_SUFFIXES = ("", "_rte", "_rtz", "_rtp", "_rtn")
_PURE_CALL_PREFIXES = ("get_", "mad", "mul24", "mad24", "min", "max", "clamp", "abs")


@dataclass
class AccessSummary:
    """What the rewrite found: number of rewritten sites per form and what it could not handle."""

    subscripts: int = 0
    derefs: int = 0
    vector_calls: int = 0
    atomics: int = 0
    warnings: list[str] | None = None


def vector_memory_call(name: str) -> tuple[bool, int, bool] | None:
    """``(is_load, width, half)`` for ``vloadN``/``vstoreN``/``vload_halfN``/``vstorea_halfN_rte``...,
    None for any other name (name classification, not source matching)."""
    for prefix, is_load in (("vload", True), ("vstore", False)):
        for aligned in ("", "a"):
            for half in ("", "_half"):
                for width in VECTOR_WIDTHS:
                    for rounding in ROUNDING_SUFFIXES if (half and not is_load) else ("",):
                        if name == f"{prefix}{aligned}{half}{width}{rounding}":
                            if not half and (aligned or not width):
                                continue
                            return is_load, int(width or 1), bool(half)
    return None


def rewrite_accesses(body: Node, table: BufferTable, edits: SourceEdits, filename: str,
                     dialect) -> AccessSummary:
    """Add the counting/marking rewrites of every global access under ``body`` to ``edits``.

    ``dialect`` (the unit's :class:`parsers.Dialect`) says which calls are atomic built-ins.
    """
    rw = _Rewriter(table, edits, filename, dialect)
    rw.walk(body, 0)
    rw.summary.warnings = rw.warnings
    return rw.summary


class _Rewriter:
    def __init__(self, table: BufferTable, edits: SourceEdits, filename: str, dialect):
        self.dialect = dialect
        self.t = table
        self.edits = edits
        self.filename = filename
        self.summary = AccessSummary()
        self.warnings: list[str] = []

    # ---- traversal -------------------------------------------------------------------
    def walk(self, node: Node, depth: int) -> None:
        kind = node.type
        if kind == "subscript_expression":
            self._subscript(node, depth)
        elif kind == "pointer_expression" and self._op(node) == "*":
            self._deref(node, depth)
        elif kind == "call_expression":
            self._call(node, depth)
        elif kind in ("sizeof_expression", "alignof_expression"):
            return  # not evaluated
        for child in node.children:
            self.walk(child, depth + 1)

    # ---- forms -------------------------------------------------------------------------
    def _subscript(self, node: Node, depth: int) -> None:
        base = node.child_by_field_name("argument")
        index = node.child_by_field_name("index")
        root = self.t.root(base)
        if root is None or index is None:
            if index is not None and self._mentions_buffer(base):
                self._warn(node, "subscript of a pointer expression the rewrite cannot trace to one buffer: "
                                 "access not counted")
            return
        if self._has_side_effects(base):
            self._warn(node, "buffer expression with side effects: access not counted")
            return
        outer, _ = self._with_fields(node)
        nld, nst = self._direction(outer)
        if nld is None:
            return
        x = self.t.text(base)
        size = f"sizeof(({x})[0])"
        nld_t = size if nld else "0ul"
        nst_t = size if nst else "0ul"
        self.edits.open(index.start_byte, self._call_head(root, x, nld_t, nst_t) + "(long)(", depth)
        self.edits.close(index.end_byte, f"), sizeof(({x})[0]), {size})", depth)
        self.summary.subscripts += 1

    def _deref(self, node: Node, depth: int) -> None:
        operand = node.child_by_field_name("argument")
        root = self.t.root(operand)
        if root is None:
            if self._mentions_buffer(operand) and self._direction(self._with_fields(node)[0])[0] is not None:
                self._warn(node, "dereference of a side-effecting or untraced pointer expression: access not counted")
            return
        outer, _ = self._with_fields(node)
        nld, nst = self._direction(outer)
        if nld is None:
            return
        if root.has_cast or self._has_side_effects(operand):
            self._warn(node, "dereference of a cast or side-effecting pointer: access not counted")
            return
        r = self.t.text(root.ident)
        size = f"sizeof(*({r}))"
        nld_t = size if nld else "0ul"
        nst_t = size if nst else "0ul"
        star = node.child_by_field_name("operator")
        self.edits.delete(star.start_byte, star.end_byte)
        head = f"({r})[" + self._call_head(root, r, nld_t, nst_t) + "(long)(("
        self.edits.open(star.start_byte, head, depth)
        self.edits.close(operand.end_byte, f") - ({r})), sizeof(*({r})), {size})]", depth)
        self.summary.derefs += 1

    def _call(self, node: Node, depth: int) -> None:
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is None or fn.type != "identifier" or args is None:
            return
        name = self.t.text(fn)
        argv = [a for a in args.named_children if a.type != "comment"]
        vector = vector_memory_call(name)
        if vector is not None and len(argv) == (2 if vector[0] else 3):
            is_load, width, half = vector
            self._vector(node, argv[-2], argv[-1], width, half, is_load, depth)
        elif self._is_atomic(name) and argv:
            self._atomic(node, argv[0], depth)
        elif any(self.t.root(a) is not None for a in argv):
            self._warn(node, f"buffer passed to '{name}': accesses inside it are not counted")

    def _is_atomic(self, name: str) -> bool:
        builtin = self.dialect.builtin(name) if self.dialect is not None else None
        return builtin is not None and builtin.category == "atomic"

    def _vector(self, node: Node, offset: Node, ptr: Node, width: int, half: bool, load: bool,
                depth: int) -> None:
        root = self.t.root(ptr)
        if root is None:
            return
        if self._has_side_effects(ptr):
            self._warn(node, "vector load/store through a side-effecting pointer: not counted")
            return
        p = self.t.text(ptr)
        elem = "2ul" if half else f"sizeof(*({p}))"
        size = f"({width}ul * {elem})"
        head = self._call_head(root, p, size if load else "0ul", "0ul" if load else size)
        self.edits.open(offset.start_byte, head + "(long)(", depth)
        self.edits.close(offset.end_byte, f"), {size}, {size})", depth)
        self.summary.vector_calls += 1

    def _atomic(self, node: Node, ptr: Node, depth: int) -> None:
        counter = PRIVATE_NAME["atomics"]
        self.edits.open(node.start_byte, f"({counter} += 1ul, ", depth)
        self.edits.close(node.end_byte, ")", depth)
        self.summary.atomics += 1
        inner = _strip(ptr)
        if inner.type == "pointer_expression" and self._op(inner) == "&":
            return  # the subscript under '&' is marked by _subscript (direction "atomic")
        root = self.t.root(ptr)
        if root is None:
            return
        if self._has_side_effects(ptr):
            self._warn(node, "atomic on a side-effecting pointer: footprint not marked")
            return
        r = self.t.text(root.ident)
        width, wrap = f"sizeof(*({r}))", ""
        if root.has_cast:
            # the compare-and-swap float add, `atomic_cmpxchg((volatile __global uint *)addr, ...)`: the word is the
            # cast's pointee, and the pointer marked is the one under the cast
            pointee = _cast_pointee(self.t, inner, ptr)
            ptr = inner
            root = self.t.root(ptr)
            if pointee is None or root is None or root.has_cast:
                self._warn(node, "atomic on a cast pointer the rewrite cannot trace: footprint not marked")
                return
            r, width, wrap = self.t.text(root.ident), f"sizeof({pointee})", "("
        head = f"{wrap}({r}) + " + self._call_head(root, r, "0ul", "0ul") + "(long)(("
        self.edits.open(ptr.start_byte, head, depth + 1)
        self.edits.close(ptr.end_byte, f") - ({r})), sizeof(*({r})), {width}){wrap and ')'}", depth + 1)

    # ---- helpers -----------------------------------------------------------------------
    def _call_head(self, root: PointerRoot, ptr_text: str, nld: str, nst: str) -> str:
        b = root.buffer
        ptr_off = f"(long)(({b.char_ptr})({ptr_text}) - {b.base_var})"
        return (
            f"__kg_access(&{PRIVATE_NAME['global_load_bytes']}, &{PRIVATE_NAME['global_store_bytes']}, "
            f"{nld}, {nst}, {MARKS_ARG}, {b.index_arg}, {b.elem_arg}, {ptr_off}, "
        )

    def _with_fields(self, node: Node) -> tuple[Node, str]:
        """Extend an access by its vector components (``X[i].xy``): the node and the suffix text.
        The access still moves the whole element (the static analysis counts it so too)."""
        outer = node
        while (
            outer.parent is not None
            and outer.parent.type == "field_expression"
            and self._op(outer.parent) == "."
            and outer.parent.child_by_field_name("argument") == outer
        ):
            outer = outer.parent
        return outer, self.t.source[node.end_byte:outer.end_byte].decode("utf-8")

    def _direction(self, expr: Node) -> tuple[bool | None, bool | None]:
        """(loads, stores) for an access expression by its use; (None, None): not an access."""
        node = expr
        parent = node.parent
        while parent is not None and parent.type == "parenthesized_expression":
            node, parent = parent, parent.parent
        if parent is None:
            return True, False
        if parent.type == "assignment_expression" and parent.child_by_field_name("left") == node:
            return (self._op(parent) != "="), True
        if parent.type == "update_expression":
            return True, True
        if parent.type == "pointer_expression" and self._op(parent) == "&":
            return (False, False) if self._is_atomic_target(parent) else (None, None)
        if parent.type in ("sizeof_expression", "alignof_expression"):
            return None, None
        return True, False

    def _is_atomic_target(self, addr: Node) -> bool:
        node, parent = addr, addr.parent
        while parent is not None and parent.type in ("parenthesized_expression", "cast_expression"):
            node, parent = parent, parent.parent
        if parent is None or parent.type != "argument_list":
            return False
        args = [a for a in parent.named_children if a.type != "comment"]
        call = parent.parent
        fn = call.child_by_field_name("function") if call is not None else None
        return bool(args) and args[0] == node and fn is not None and self._is_atomic(self.t.text(fn))

    def _has_side_effects(self, node: Node) -> bool:
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type in ("assignment_expression", "update_expression"):
                return True
            if n.type == "call_expression":
                fn = n.child_by_field_name("function")
                if fn is None or not self.t.text(fn).startswith(_PURE_CALL_PREFIXES):
                    return True
            stack.extend(n.children)
        return False

    def _mentions_buffer(self, node: Node) -> bool:
        """Whether a pointer expression the rewrite could not trace uses a buffer or an alias of one
        (``*p++``, ``(c ? A : B)[i]``): an access to global memory that stays unwrapped."""
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type == "identifier" and self.t.lookup(self.t.text(n)) is not None:
                return True
            if n.type in ("subscript_expression", "call_expression", "sizeof_expression"):
                continue  # an index or a call's value: not the pointer itself
            stack.extend(n.children)
        return False

    def _op(self, node: Node) -> str:
        op = node.child_by_field_name("operator")
        return self.t.text(op) if op is not None else ""

    def _warn(self, node: Node, message: str) -> None:
        row, col = node.start_point
        self.warnings.append(f"{self.filename}:{row + 1}:{col + 1}: {message}")


def _cast_pointee(t, inner: Node, ptr: Node) -> str | None:
    """The type a single cast to a pointer points to (``unsigned int`` of ``(volatile __global unsigned int *)p``),
    where ``inner`` is ``ptr`` without its parentheses and that one cast; None for anything else."""
    node = ptr
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    if node.type != "cast_expression" or _strip(node.child_by_field_name("value")) != inner:
        return None
    desc = node.child_by_field_name("type")
    decl = desc.child_by_field_name("declarator") if desc is not None else None
    if decl is None or decl.type != "abstract_pointer_declarator" or decl.named_child_count:
        return None
    return " ".join(t.text(c) for c in desc.children if c != decl)


def _strip(node: Node) -> Node:
    while node.type in ("parenthesized_expression", "cast_expression"):
        inner = node.child_by_field_name("value") if node.type == "cast_expression" else node.named_children[0]
        if inner is None:
            break
        node = inner
    return node
