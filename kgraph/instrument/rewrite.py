"""``instrument(unit, kernel_name)``: the counting and marking rewrite of one OpenCL kernel.

The rewritten source keeps the original text and only inserts (see :mod:`kgraph.instrument.edits`):

* the helper functions of :mod:`kgraph.instrument.prelude` at the top of the file;
* two extra kernel parameters, ``__global ulong *__kg_counters, __global uint *__kg_marks``;
* at the start of the kernel body the private counters and each buffer's entry address;
* the per-execution statement costs from :func:`kgraph.analysis.statement_costs` (FLOPs by type,
  integer ops, transcendentals), see :mod:`kgraph.instrument.costs`;
* the counting/marking wrapper of every global access (:mod:`kgraph.instrument.accesses`);
* the flush of the private counters into ``__kg_counters`` before every ``return`` of the kernel
  and at the end of its body.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kgraph.errors import InputError, KGraphError
from kgraph.instrument.accesses import AccessSummary, rewrite_accesses
from kgraph.instrument.buffers import Buffer, BufferTable
from kgraph.instrument.costs import insert_statement_costs
from kgraph.instrument.edits import SourceEdits, depth_below
from kgraph.instrument.helpers import instrument_helpers, warning_position
from kgraph.instrument.prelude import (
    COUNTER_NAMES,
    declare_counters,
    extra_params,
    flush_counters,
    helpers_text,
)


@dataclass
class InstrumentedKernel:
    """An OpenCL kernel rewritten to count its work and mark the global bytes it touches.

    Args:
        kernel_name: the kernel's name (unchanged by the rewrite).
        source: the full instrumented OpenCL C source.
        original_source: the source it was made from.
        buffers: the global/constant pointer parameters, with their mark header slots.
        num_params: the kernel's own parameter count; the counters buffer is argument
            ``num_params`` and the marks buffer ``num_params + 1``.
        counter_names: order of the totals in the counters buffer.
        accesses: how many access sites of each form were rewritten.
        costs_inserted: number of statement-cost insertions (0 when no static costs were available).
        warnings: ``file:line:col: message`` for constructs whose work is not (fully) counted; empty
            means the counts are exact.
        bounded: every instrumented access is bounds-checked against the buffer passed and
            redirected inside it when it falls outside (the buffer-sizing run; see
            :func:`kgraph.instrument.prelude.helpers_text`).
        unchecked: ``file:line:col: message`` for global accesses the rewrite could not wrap (so
            neither counted nor, when ``bounded``, bounds-checked); a subset of ``warnings``.
    """

    kernel_name: str
    source: str
    original_source: str
    buffers: list[Buffer]
    num_params: int
    counter_names: tuple[str, ...] = COUNTER_NAMES
    accesses: AccessSummary = field(default_factory=AccessSummary)
    costs_inserted: int = 0
    warnings: list[str] = field(default_factory=list)
    bounded: bool = False
    unchecked: list[str] = field(default_factory=list)

    @property
    def exact(self) -> bool:
        """True when every construct of the kernel was instrumented."""
        return not self.warnings


def instrument(unit, kernel_name: str, *, costs: bool = True, bounded: bool = False) -> InstrumentedKernel:
    """Rewrite kernel ``kernel_name`` of the parsed OpenCL ``unit`` (a ``parsers.TranslationUnit``).

    Args:
        unit: the parsed translation unit; must be OpenCL without syntax errors.
        kernel_name: which kernel to instrument (other functions are kept as they are).
        costs: insert the static per-statement FLOP/int/transcendental costs (needs
            ``kgraph.analysis.statement_costs``); False counts only memory traffic and atomics.
        bounded: bounds-check every instrumented global access against the capacity of the buffer
            actually passed; an access outside it is recorded and redirected to the buffer's first
            element, never performed (for sizing runs with buffers that may be too small).
            Accesses the rewrite cannot wrap are listed in ``unchecked``.

    Raises:
        KGraphError: CUDA/C input, or no kernel of that name.
        SourceError: the unit has syntax errors.
    """
    if unit.lang != "opencl":
        raise KGraphError(
            f"{unit.filename}: instrumentation runs OpenCL kernels through pyopencl; "
            f"got {unit.lang} source (translate it to OpenCL C first)"
        )
    unit.raise_on_errors()
    function = _find_kernel(unit, kernel_name)
    original = unit.text.encode("utf-8")
    if len(original) != len(unit.source):
        raise InputError(f"{unit.filename}: parsed bytes and original text differ in length")
    table = BufferTable.from_function(function, unit.source)
    edits = SourceEdits(original)
    warnings: list[str] = []

    edits.open(0, helpers_text(bounded), -1)
    _add_params(function, edits, unit.source)
    body = function.body
    entry = declare_counters() + "".join(
        f" {b.char_ptr}{b.base_var} = ({b.char_ptr}){b.name};" for b in table.buffers
    )
    edits.open(body.start_byte + 1, entry, -1)
    for name in sorted(table.conflicts):
        warnings.append(f"{unit.filename}:{function.line}:{function.col}: pointer '{name}' is re-pointed "
                        "to another buffer: its accesses are not counted")
    unchecked = list(warnings)
    summary = rewrite_accesses(body, table, edits, unit.filename, unit.dialect)
    n_costs, cost_warnings = 0, []
    if costs:
        n_costs, cost_warnings = insert_statement_costs(function, unit, edits)
    if costs or bounded:
        # helper calls: instrumented clones count their work (kgraph/instrument/helpers.py)
        handled, helper_warnings, helper_unchecked = instrument_helpers(unit, function, table, edits,
                                                                        costs=costs)
        cost_warnings = [w for w in cost_warnings if warning_position(w) not in handled] + helper_warnings
        unchecked += helper_unchecked
        summary.warnings = [w for w in summary.warnings or [] if warning_position(w) not in handled]
    unchecked += summary.warnings or []
    warnings.extend(summary.warnings or [])
    warnings.extend(cost_warnings)
    _add_flushes(body, edits)
    return InstrumentedKernel(
        kernel_name=kernel_name,
        source=edits.apply(),
        original_source=unit.text,
        buffers=table.buffers,
        num_params=len(function.params),
        accesses=summary,
        costs_inserted=n_costs,
        warnings=warnings,
        bounded=bounded,
        unchecked=unchecked,
    )


def _find_kernel(unit, kernel_name: str):
    kernels = [f for f in unit.functions if f.is_kernel]
    for f in kernels:
        if f.name == kernel_name:
            return f
    names = ", ".join(f.name for f in kernels) or "none"
    raise KGraphError(f"{unit.filename}: no kernel named '{kernel_name}' (kernels: {names})")


def _add_params(function, edits: SourceEdits, source: bytes) -> None:
    declarator = function.node.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    if declarator is None:
        raise KGraphError(f"kernel '{function.name}': cannot find its parameter list")
    plist = declarator.child_by_field_name("parameters")
    params = [c for c in plist.named_children if c.type == "parameter_declaration"]
    close = plist.end_byte - 1
    if not params:
        edits.open(close, extra_params(), 0)
        return
    if len(params) == 1 and source[params[0].start_byte:params[0].end_byte].strip() == b"void":
        edits.delete(params[0].start_byte, params[0].end_byte)
        edits.open(params[0].start_byte, extra_params(), 0)
        return
    edits.close(close, ", " + extra_params(), 0)


def _add_flushes(body, edits: SourceEdits) -> None:
    flush = flush_counters()
    stack = list(body.children)
    while stack:
        node = stack.pop()
        if node.type == "return_statement":
            # innermost at its position: a statement cost inserted before the return runs first
            depth = depth_below(node, body) + 1
            edits.open(node.start_byte, "{" + flush + " ", depth)
            edits.close(node.end_byte, " }", depth)
            continue
        stack.extend(node.children)
    edits.close(body.end_byte - 1, flush + "\n", -1)
