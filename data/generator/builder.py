"""The state one generated kernel accumulates while its idioms are assembled.

A :class:`Builder` hands out fresh names and records, next to the kernel's parameters, what its
launch spec needs: each size parameter's candidate values and check value, each argument's element
count, the constraints, and the structured inputs ``make_inputs`` must produce (index buffers
kept in range, sign-balanced selectors, loop lengths).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kgraph.data.corpus.spec import Arg

from . import ir


@dataclass(frozen=True)
class Structured:
    """One buffer ``make_inputs`` fills.

    Args:
        name: the buffer; dtype: its numpy dtype name; count: its element count expression.
        kind: ``"index"`` (uniform ints in ``[0, high)``), ``"sorted_index"`` (the same, sorted),
            ``"skewed_index"`` (ints in ``[0, high)``, a few hubs taking most: :func:`.inputs.skewed_bins`),
            ``"length"`` (ints in ``[0, high]``),
            ``"signs"`` (floats or ints, exactly half of each consecutive pair positive / nonzero).
        high: the bound's size expression (index and length kinds).
    """

    name: str
    dtype: str
    count: str
    kind: str
    high: str = "0"


@dataclass
class Builder:
    """Names, parameters, sizes and launch facts of the kernel being generated.

    Args:
        rng: the kernel's own random generator (all choices come from it).
    """

    rng: np.random.Generator
    params: list = field(default_factory=list)
    args: list = field(default_factory=list)
    sizes: dict = field(default_factory=dict)
    check: dict = field(default_factory=dict)
    constraints: list = field(default_factory=list)
    macros: list = field(default_factory=list)
    helpers: list = field(default_factory=list)
    structured: list = field(default_factory=list)
    tags: list = field(default_factory=list)
    fp64: bool = False
    unroll: bool = False
    constant: bool = False
    _counter: dict = field(default_factory=dict)

    def fresh(self, prefix: str) -> str:
        """A new name ``prefix<number>`` (``prefix`` alone the first time for short prefixes)."""
        n = self._counter.get(prefix, 0)
        self._counter[prefix] = n + 1
        return f"{prefix}{n}"

    def choice(self, options):
        """One of ``options`` (a sequence), drawn from the kernel's generator."""
        return options[int(self.rng.integers(0, len(options)))]

    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def size(self, name: str, values: list[int], check: int) -> ir.Var:
        """The ``int`` scalar parameter ``name`` that is also a problem-size parameter (added once).

        Args:
            name: the parameter; values: its candidate sizes; check: its value at the check sizes.
        """
        if name not in self.sizes:
            self.sizes[name] = [int(v) for v in values]
            self.check[name] = int(check)
            self.params.append(ir.Param(name, ir.INT))
            self.args.append(Arg(name, "scalar", "int32", name))
        return ir.Var(name, ir.INT)

    def scalar(self, name: str, ty: ir.Type, value: str) -> ir.Var:
        """A scalar parameter with a fixed value expression (e.g. a float coefficient).

        Args:
            name: the parameter; ty: its type; value: its value as a size expression (``"0.5"``).
        """
        self.params.append(ir.Param(name, ty))
        self.args.append(Arg(name, "scalar", ty.dtype.name, value))
        return ir.Var(name, ty)

    def buffer(self, prefix: str, ty: ir.Type, count: str, role: str = "in", space: str = "global") -> str:
        """A new buffer parameter of ``count`` elements of ``ty``; returns its name.

        Args:
            prefix: the name's prefix (a number is appended); ty: the element type;
            count: the element count (size expression); role: in, out or inout; space: global or constant.
        """
        name = self.fresh(prefix)
        self.params.append(ir.Param(name, ty, "buffer", space, role))
        self.args.append(Arg(name, "buffer", ty.dtype.name, count, role))
        if ty.base == "double":
            self.fp64 = True
        return name

    def structured_input(self, name: str, ty: ir.Type, count: str, kind: str, high: str = "0") -> None:
        """Records that ``make_inputs`` fills buffer ``name`` (see :class:`Structured` for the arguments)."""
        self.structured.append(Structured(name, ty.dtype.name, count, kind, high))

    def macro_const(self, name: str, value: int) -> ir.MacroConst:
        """``#define name value`` (added once) and its use.

        Args:
            name: the macro; value: its integer value.
        """
        if not any(m.name == name for m in self.macros):
            self.macros.append(ir.Macro(name, None, int(value)))
        return ir.MacroConst(name, int(value))

    def count_of(self, name: str) -> str:
        return next(a.count for a in self.args if a.name == name)
