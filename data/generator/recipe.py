"""Recipes: which idioms one generated kernel combines, drawn from its random generator.

A :class:`Recipe` fixes the index space, the loop nest, the types, the access pattern of each
input, the output, and the optional idioms (local-memory tile, work-group reduction, register
blocking, atomics, divergence, helpers, macros, ``#pragma unroll``, ``__constant`` tables).
:func:`sample_recipe` only draws combinations the assembler supports (e.g. no barrier after an
early return, no triangular loop under a guard); its ``family`` groups kernels by their loop
structure and first access pattern for leave-family-out splits.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Optional

import numpy as np

from .access import LOOP_PATTERNS, TOP_PATTERNS, TRIANGULAR_PATTERNS
from .arith import FLOAT_FLAVOURS

LOOP_KINDS = {"none": 12, "affine": 20, "stepped": 10, "nested": 14, "triangular": 12, "data": 10, "tile": 14}
COMPUTE = {"fp32": 45, "fp64": 20, "mixed": 15, "int": 20}
FIXED_SHAPES = {1: [(64,), (128,), (256,)], 2: [(16, 8), (8, 8), (16, 16), (32, 4)],
                3: [(8, 4, 4), (4, 4, 4), (8, 8, 2)]}


@dataclass(frozen=True)
class Recipe:
    """The idioms of one kernel (see the module docstring)."""

    dims: int
    mode: str
    loops: str
    compute: str
    flavours: tuple
    width: int
    inputs: tuple  # ((level, pattern), ...), level in top | outer | inner
    update: str
    output: str
    private: int = 0
    atomic: str = ""
    reduce: bool = False
    diverge: str = ""
    shape: Optional[tuple] = None
    helper: bool = False
    macro: bool = False
    unroll: bool = False
    constant: bool = False
    #: where the atomic lands: "" (a bin from the ids), ``gathered``, ``runs`` or ``skewed`` (a bin loaded from
    #: memory: uniform, sorted, or hub-skewed) or ``counter`` (one element every lane updates); drawn by
    #: :func:`atomic_target` for seeds from :data:`LOADED_BINS_FROM_SEED` on (``skewed`` from
    #: :data:`SKEWED_BINS_FROM_SEED` on, ``counter`` from :data:`COUNTER_FROM_SEED` on)
    atomic_target: str = ""
    #: a loop of data-dependent trip count beside the nest: "" (none), ``search``, ``converge``, ``fixup`` or
    #: ``segment``, and its variant (``exit_detail``); drawn by :func:`early_exit` from :data:`EARLY_EXIT_FROM_SEED`
    #: on (see :mod:`.early_exit`)
    early_exit: str = ""
    exit_detail: str = ""
    #: no input buffer: every input is made from the ids (pattern ``ids``), as in fills, iotas and counter-based
    #: random-number kernels; drawn by :func:`store_only` from :data:`STORE_ONLY_FROM_SEED` on
    store_only: bool = False

    @property
    def structure(self) -> str:
        """The dominant structural idiom (the first half of the family name)."""
        for flag, name in ((self.loops == "tile", "tile"), (self.reduce, "wgreduce"), (self.private, "regblock"),
                           (self.loops == "triangular", "triangular"), (self.loops == "data", "datalen"),
                           (self.mode == "gridstride", "gridstride"), (self.mode == "guarded", "guarded"),
                           (self.loops == "nested", "nest"), (self.loops in ("affine", "stepped"), "loop")):
            if flag:
                return name
        return "flat"

    def idioms(self) -> list[str]:
        """The idioms this recipe combines beyond a plain element-wise kernel."""
        named = {"loop": self.loops != "none", f"{self.mode}": self.mode != "direct", "vector": self.width > 1,
                 "regblock": bool(self.private), "atomic": bool(self.atomic),
                 "atomic-loaded": self.atomic_target not in ("", "counter"),
                 "atomic-counter": self.atomic_target == "counter", "early-exit": bool(self.early_exit),
                 "wgreduce": self.reduce,
                 "diverge": bool(self.diverge), "helper": self.helper, "macro": self.macro, "unroll": self.unroll,
                 "constant": self.constant, "inputs": len(self.inputs) > 1, "fp64": self.compute in ("fp64", "mixed"),
                 "access": any(p not in ("coalesced",) for _, p in self.inputs)}
        return [name for name, present in named.items() if present]

    @property
    def family(self) -> str:
        """``generated.<structure>-<first access pattern of the innermost level>``."""
        inner = [p for level, p in self.inputs if level == "inner"] or [p for _, p in self.inputs]
        return f"generated.{self.structure}-{inner[0]}"

    def variant(self) -> dict:
        """The recipe as plain JSON values (the spec's ``variant``)."""
        out = asdict(self)
        out["flavours"] = list(self.flavours)
        out["inputs"] = [f"{level}:{pattern}" for level, pattern in self.inputs]
        out["shape"] = list(self.shape) if self.shape else None
        for name in ("atomic_target", "early_exit", "exit_detail", "store_only"):
            if not out[name]:
                del out[name]  # the variants of kernels from before the idiom stay as they were
        return out

    @property
    def data_trips(self) -> bool:
        """Whether a loop's trip count depends on the data (``k < lens[gi]`` or an early-exit idiom): the static
        counts then hold a ``trip_<line>`` symbol or, for a search that leaves by ``break``, an upper bound."""
        return self.loops == "data" or bool(self.early_exit)


#: the first generator seed whose atomics may land on a bin loaded from memory (session 18): the kernels of every
#: earlier seed are unchanged, so their measured rows, counts and checks still describe them
LOADED_BINS_FROM_SEED = 32
#: the first seed whose loaded bins may be hub-skewed (session 19: a few bins take most updates, as a graph's hubs
#: do in a scatter over edges); seed 32's kernels are unchanged
SKEWED_BINS_FROM_SEED = 33
#: the first seed whose atomics may update one counter (``hist[0]``), an address every lane of a warp shares, which
#: NVIDIA's compiler applies once per warp (session 23, BENCHMARKS.md section 54); earlier seeds are unchanged
COUNTER_FROM_SEED = 35


def atomic_target(recipe: Recipe, seed: int, number: int, attempt: int) -> Recipe:
    """``recipe`` with where its atomic lands: from :data:`LOADED_BINS_FROM_SEED` on, half of the atomics update a
    bin loaded from memory (``gathered`` or ``runs``, a quarter each; from :data:`SKEWED_BINS_FROM_SEED` on, a
    sixth each of ``gathered``, ``runs`` and ``skewed``; from :data:`COUNTER_FROM_SEED` on, 40% keep a bin from the
    ids and 15% each update a loaded bin of the three kinds or one counter), drawn from a generator of their own so
    that nothing else of the kernel changes.

    Args:
        recipe: a sampled recipe; seed, number, attempt: the kernel's (as :func:`~.build.generate`'s).
    """
    if not recipe.atomic or seed < LOADED_BINS_FROM_SEED:
        return recipe
    side = np.random.default_rng([int(seed), int(number), int(attempt), 18])
    table = {"": 50, "gathered": 25, "runs": 25} if seed < SKEWED_BINS_FROM_SEED else \
        {"": 50, "gathered": 17, "runs": 17, "skewed": 16} if seed < COUNTER_FROM_SEED else \
        {"": 40, "gathered": 15, "runs": 15, "skewed": 15, "counter": 15}
    return replace(recipe, atomic_target=_weighted(side, table))


#: the first seed whose kernels may hold a loop of data-dependent trip count beside their nest (session 20: a
#: search with an early exit, a convergence loop, a fix-up loop or a CSR-style segment loop); earlier seeds unchanged
EARLY_EXIT_FROM_SEED = 34
#: weights of the early-exit idioms ("" none): about 30% of the kernels hold one
EARLY_KINDS = {"": 70, "search": 9, "converge": 8, "fixup": 7, "segment": 6}
#: each idiom's variants, drawn uniformly: a search's form (``break`` or a ``flag`` conjunct in the loop condition)
#: and the spread of its first hit; the recurrence of a convergence loop; a fix-up loop's form and how often it runs;
#: a segment loop's lengths
EXIT_DETAILS = {"search": ("break-early", "break-uniform", "break-rare", "flag-early", "flag-uniform", "flag-rare"),
                "converge": ("collatz", "newton", "halve"), "fixup": ("while-rare", "while-few", "do-rare", "do-few"),
                "segment": ("skewed", "even")}


def early_exit(recipe: Recipe, seed: int, number: int, attempt: int) -> Recipe:
    """``recipe`` with its early-exit idiom: from :data:`EARLY_EXIT_FROM_SEED` on, drawn (:data:`EARLY_KINDS`,
    :data:`EXIT_DETAILS`) from a generator of its own, so that nothing else of the kernel's recipe changes.

    Args:
        recipe: a sampled recipe; seed, number, attempt: the kernel's (as :func:`~.build.generate`'s).
    """
    if seed < EARLY_EXIT_FROM_SEED:
        return recipe
    side = np.random.default_rng([int(seed), int(number), int(attempt), 34])
    kind = _weighted(side, EARLY_KINDS)
    if not kind:
        return recipe
    return replace(recipe, early_exit=kind, exit_detail=_pick(side, EXIT_DETAILS[kind]))


#: the first seed whose kernels may read no memory at all (session 27): until then every store-only launch the
#: training folders held was an escape-time loop (``mandelbrot``, ``julia``), and refits priced a 64 MiB fill
#: ×1.8–×17 its measured time (docs/MODELS.md "v40"); earlier seeds are unchanged
STORE_ONLY_FROM_SEED = 36
#: the share of a store-only seed's kernels (tiled loops and loops of loaded lengths aside) that read no input buffer
STORE_ONLY_SHARE = 0.6


def store_only(recipe: Recipe, seed: int, number: int, attempt: int) -> Recipe:
    """``recipe`` as a kernel that reads no memory, for :data:`STORE_ONLY_SHARE` of the kernels from
    :data:`STORE_ONLY_FROM_SEED` on (a generator of its own decides): every input becomes ``ids``, an in-place output a
    plain store, a divergence on data one on parity, a loaded atomic bin one from the ids, and no early-exit loop
    (all of these read memory). Tiled loops (a __local tile loaded from a buffer) and loops of loaded lengths
    (``k < lens[gi]``) are kept as they are.

    Args:
        recipe: a sampled recipe (after :func:`atomic_target` and :func:`early_exit`); seed, number, attempt: the
            kernel's (as :func:`~.build.generate`'s).
    """
    if seed < STORE_ONLY_FROM_SEED or recipe.loops in ("tile", "data"):
        return recipe
    side = np.random.default_rng([int(seed), int(number), int(attempt), 36])
    if side.random() >= STORE_ONLY_SHARE:
        return recipe
    return replace(recipe, inputs=tuple((level, "ids") for level, _ in recipe.inputs), store_only=True,
                   output="coalesced" if recipe.output == "inout" else recipe.output,
                   diverge="parity" if recipe.diverge == "data" else recipe.diverge,
                   atomic_target="" if recipe.atomic_target not in ("", "counter") else recipe.atomic_target,
                   early_exit="", exit_detail="")


def _weighted(rng: np.random.Generator, table: dict):
    names = list(table)
    p = np.array([table[n] for n in names], float)
    return names[int(rng.choice(len(names), p=p / p.sum()))]


def _pick(rng: np.random.Generator, options):
    return options[int(rng.integers(0, len(options)))]


MIN_IDIOMS = 4


def sample_recipe(rng: np.random.Generator) -> Recipe:
    """A random supported combination of at least :data:`MIN_IDIOMS` idioms.

    Args:
        rng: the kernel's generator (the recipe is a pure function of its state).
    """
    while True:
        recipe = _draw(rng)
        if len(recipe.idioms()) >= MIN_IDIOMS:
            return recipe


def _draw(rng: np.random.Generator) -> Recipe:
    dims = int(rng.choice([1, 2, 3], p=[0.45, 0.35, 0.2]))
    mode = "direct" if dims > 1 else _weighted(rng, {"direct": 60, "guarded": 20, "gridstride": 20})
    kinds = dict(LOOP_KINDS)
    if mode != "direct":
        kinds.pop("tile"), kinds.pop("triangular")
    loops = _weighted(rng, kinds)
    compute = _weighted(rng, COMPUTE)
    width = 1
    if compute != "int" and loops != "tile" and rng.random() < 0.4:
        width = _pick(rng, (2, 4, 8) if compute == "fp32" else (2, 4))  # PoCL mis-builds some double8 kernels
    flavours = ("int",)
    if compute != "int":
        n = 1 + int(rng.random() < 0.5)
        flavours = tuple(sorted(set(_pick(rng, FLOAT_FLAVOURS) for _ in range(n))))
    reduce = dims == 1 and mode == "direct" and rng.random() < 0.3  # 2D/3D trees: see docs/GENERATOR.md
    private = _pick(rng, (2, 4, 8)) if width == 1 and not reduce and rng.random() < 0.18 else 0
    diverge = _weighted(rng, {"": 40, "parity": 15, "half": 15 if mode != "guarded" else 0, "data": 15,
                              "lane": 15 if mode == "direct" else 0})
    shape = _pick(rng, FIXED_SHAPES[dims]) if (loops == "tile" or reduce or diverge == "lane") else None
    atomic = _pick(rng, ("add", "inc", "max", "xor")) if rng.random() < 0.2 else ""
    inputs = _inputs(rng, dims, loops)
    if private:
        output = _pick(rng, ("blocked", "planes"))
    else:
        outputs = ["coalesced", "coalesced", "inout"] + (["transposed"] if dims > 1 else []) \
            + (["lanes"] if width > 1 else []) + (["none"] if reduce else [])
        output = _pick(rng, outputs)
    update = _pick(rng, ("add", "xor", "hash")) if compute == "int" else \
        _weighted(rng, {"sum": 60, "damped": 20, "max": 20})
    flags = [bool(rng.random() < 0.35) for _ in range(4)]
    return Recipe(dims, mode, loops, compute, flavours, width, inputs, update, output, private, atomic,
                  reduce, diverge, shape, *flags)


def _inputs(rng: np.random.Generator, dims: int, loops: str) -> tuple:
    levels = ["top"] if loops == "none" else ["top", "inner"] + (["outer"] if loops in ("nested", "tile") else [])
    count = int(rng.integers(1, 4))
    chosen = []
    for i in range(count):
        level = "inner" if (i == 0 and loops not in ("none", "tile")) else _pick(rng, levels)
        if level == "top":
            options = TOP_PATTERNS
        elif loops == "triangular":
            options = TRIANGULAR_PATTERNS
        else:
            options = LOOP_PATTERNS
        if level == "outer":
            options = tuple(p for p in options if p != "stencil")
        if dims == 1:
            options = tuple(p for p in options if p not in ("transposed", "column"))
        if any(p == "stencil" for _, p in chosen):
            options = tuple(p for p in options if p != "stencil")
        chosen.append((level, _pick(rng, options)))
    return tuple(chosen)
