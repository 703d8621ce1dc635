"""Count the work done inside helper functions: instrumented clones with the caller's counters.

Every helper function (a non-kernel function with a body) that the kernel calls, directly or
through other helpers, gets a clone ``__kg_h_<name>`` placed right after its definition, with extra
parameters after its own:

* ``__private ulong *__kg_hp_<counter>`` for each of ``COUNTER_NAMES``: the caller's private
  counters. Inside the clone ``#define __kg_c_<counter> (*__kg_hp_<counter>)`` (undefined after the
  clone) makes the statement-cost increments and ``__kg_access`` calls of the ordinary rewrite add
  straight into the caller's counters, so no flush or return rewriting is needed;
* ``__global uint *__kg_marks``;
* for each ``global``/``constant`` pointer parameter ``k``: ``uint __kg_bi_k`` (the caller's mark
  header slot of the buffer passed), ``ulong __kg_el_k`` (its element size) and
  ``__global const char *__kg_base_k`` (its entry address), so the byte map is marked in the
  caller's buffer exactly as a kernel-body access would.

Inside the clone the usual rewrites apply (:mod:`kgraph.instrument.accesses`,
:mod:`kgraph.instrument.costs`); each call site ``h(args)`` in the kernel or in a clone becomes
``__kg_h_h(args, &__kg_c_..., __kg_marks, slot, elem, base, ...)``. A call that passes a pointer
the rewrite cannot trace to one buffer keeps calling the original helper and keeps its warning.
"""
from __future__ import annotations

from dataclasses import dataclass

from kgraph.instrument.accesses import rewrite_accesses
from kgraph.instrument.buffers import Buffer, BufferTable
from kgraph.instrument.costs import insert_statement_costs
from kgraph.instrument.edits import SourceEdits, depth_below
from kgraph.instrument.prelude import COUNTER_NAMES, MARKS_ARG, PRIVATE_NAME

_BEGIN, _END = "/*__kg_clone_begin*/", "/*__kg_clone_end*/"
_POINTER_SPACES = ("global", "constant")


@dataclass(frozen=True)
class HelperBuffer(Buffer):
    """A global pointer parameter of a helper clone: slot and element size come in as parameters."""

    @property
    def index_arg(self) -> str:
        return f"__kg_bi_{self.index}"

    @property
    def elem_arg(self) -> str:
        return f"__kg_el_{self.index}"


def clone_name(name: str) -> str:
    return f"__kg_h_{name}"


def instrument_helpers(unit, kernel, table: BufferTable, edits: SourceEdits,
                       costs: bool = True) -> tuple[set, list[str], list[str]]:
    """Clone the helpers ``kernel`` calls and redirect its calls to them.

    ``costs``: insert the statement costs into the clones too (False: accesses only).

    Returns:
        (``(line, col)`` of every redirected call, for dropping the "not counted" warnings of the
        kernel rewrite; warnings of the clones, ``file:line:col: message``; those of them about
        global accesses the clones could not wrap).
    """
    helpers = {f.name: f for f in unit.functions if f.body is not None and not f.is_kernel}
    handled, warnings, unchecked = set(), [], []
    handled |= _redirect_calls(kernel.body, table, edits, helpers, kernel.body)
    done, todo = set(), _called(kernel.body, helpers, unit.source)
    while todo:
        name = todo.pop()
        if name in done:
            continue
        done.add(name)
        helper = helpers[name]
        text, inner_handled, clone_warnings, access_warnings = _clone(unit, helper, helpers, costs)
        handled |= inner_handled
        warnings.extend(w for w in clone_warnings if warning_position(w) not in inner_handled)
        unchecked.extend(w for w in access_warnings if warning_position(w) not in inner_handled)
        edits.open(helper.node.end_byte, "\n" + text + "\n", -1)
        todo |= _called(helper.body, helpers, unit.source) - done
    return handled, warnings, unchecked


def _clone(unit, helper, helpers, costs: bool = True) -> tuple[str, set, list[str], list[str]]:
    source = unit.source
    params = [p for p in helper.params if p.is_pointer and p.address_space in _POINTER_SPACES]
    buffers = [HelperBuffer(k, p.name, p.address_space, int(p.elem_bytes or 1), helper.params.index(p))
               for k, p in enumerate(params)]
    table = BufferTable(buffers, source)
    table.aliases = {b.name: b for b in buffers}
    table._scan_aliases(helper.body)  # noqa: SLF001 - same alias rules as the kernel's table
    edits = SourceEdits(unit.text.encode("utf-8"))
    edits.open(helper.node.start_byte, _BEGIN, -100)
    edits.close(helper.node.end_byte, _END, -100)
    name_node = _name_node(helper.node)
    edits.delete(name_node.start_byte, name_node.end_byte)
    edits.open(name_node.start_byte, clone_name(helper.name), 0)
    extra = [f"__private ulong *__kg_hp_{c}" for c in COUNTER_NAMES] + [f"__global uint *{MARKS_ARG}"]
    for b in buffers:
        extra += [f"uint {b.index_arg}", f"ulong {b.elem_arg}", f"{b.char_ptr}{b.base_var}"]
    plist = name_node.parent.child_by_field_name("parameters")
    has_params = any(c.type == "parameter_declaration" and source[c.start_byte:c.end_byte].strip() != b"void"
                     for c in plist.named_children)
    if not has_params:
        for c in plist.named_children:
            edits.delete(c.start_byte, c.end_byte)
    edits.close(plist.end_byte - 1, (", " if has_params else "") + ", ".join(extra), 0)
    summary = rewrite_accesses(helper.body, table, edits, unit.filename, unit.dialect)
    _, cost_warnings = insert_statement_costs(helper, unit, edits) if costs else (0, [])
    handled = _redirect_calls(helper.body, table, edits, helpers, helper.body)
    text = edits.apply()
    body = text[text.index(_BEGIN) + len(_BEGIN):text.index(_END)]
    defines = "".join(f"#define {PRIVATE_NAME[c]} (*__kg_hp_{c})\n" for c in COUNTER_NAMES)
    undefs = "".join(f"#undef {PRIVATE_NAME[c]}\n" for c in COUNTER_NAMES)
    access_warnings = [f"{unit.filename}:{helper.line}:{helper.col}: pointer '{name}' is re-pointed to another "
                       "buffer: its accesses are not counted" for name in sorted(table.conflicts)]
    access_warnings += list(summary.warnings or [])
    return defines + body + "\n" + undefs, handled, access_warnings + cost_warnings, access_warnings


def _redirect_calls(root, table: BufferTable, edits: SourceEdits, helpers, body) -> set:
    """Rewrite calls of helpers under ``root`` to their clones; returns their (line, col)."""
    handled = set()
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type != "call_expression":
            continue
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if fn is None or fn.type != "identifier" or args is None:
            continue
        helper = helpers.get(table.text(fn))
        if helper is None:
            continue
        argv = [a for a in args.named_children if a.type != "comment"]
        extra = [f"&{PRIVATE_NAME[c]}" for c in COUNTER_NAMES] + [MARKS_ARG]
        for p, arg in zip(helper.params, argv):
            if p.is_pointer and p.address_space in _POINTER_SPACES:
                buf = _buffer_of(arg, table)
                if buf is None:
                    extra = None
                    break
                extra += [buf.index_arg, buf.elem_arg, buf.base_var]
        if extra is None:
            continue
        depth = depth_below(args, body)
        edits.delete(fn.start_byte, fn.end_byte)
        edits.open(fn.start_byte, clone_name(helper.name), depth)
        edits.close(args.end_byte - 1, (", " if argv else "") + ", ".join(extra), depth)
        handled.add((node.start_point[0] + 1, node.start_point[1] + 1))
    return handled


def _buffer_of(arg, table: BufferTable):
    """The buffer a pointer argument points into: ``A``, ``A + k``, ``(T *)A``, ``&A[i]``."""
    root = table.root(arg)
    if root is not None:
        return root.buffer
    node = arg
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    if node.type == "pointer_expression" and table.text(node.child_by_field_name("operator")) == "&":
        inner = node.child_by_field_name("argument")
        if inner is not None and inner.type == "subscript_expression":
            root = table.root(inner.child_by_field_name("argument"))
            return root.buffer if root is not None else None
    return None


def _called(root, helpers, source: bytes) -> set:
    out, stack = set(), [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type == "call_expression":
            fn = node.child_by_field_name("function")
            if fn is not None and fn.type == "identifier":
                name = source[fn.start_byte:fn.end_byte].decode("utf-8")
                if name in helpers:
                    out.add(name)
    return out


def _name_node(definition):
    node = definition.child_by_field_name("declarator")
    while node is not None and node.type != "function_declarator":
        node = node.child_by_field_name("declarator")
    name = node.child_by_field_name("declarator")
    while name is not None and name.type != "identifier":
        name = name.child_by_field_name("declarator")
    return name


def warning_position(warning: str) -> tuple[int, int] | None:
    """(line, col) of a ``file:line:col: message`` warning."""
    parts = warning.split(": ", 1)[0].rsplit(":", 2)
    try:
        return int(parts[1]), int(parts[2])
    except (IndexError, ValueError):
        return None
