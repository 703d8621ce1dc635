"""One generated kernel as a measurement-ready ``KernelSpec``.

Kernel ``n`` of seed ``s`` is a pure function of ``(s, n)``: its generator is
``numpy.random.default_rng([s, n, attempt])``, ``attempt`` counting the (rare) redraws of a
source that repeats an earlier kernel of the same list. Its reference interprets the same
intermediate form that was printed, with the spec's NDRange at the given sizes.
"""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import KernelSpec, to_int

from .assemble import Assembled, assemble
from .builder import Builder
from .early_exit import side_rng
from .inputs import make_inputs_for
from .interpreter import run_kernel
from .launch import constraints, default_local_sizes, thin_sizes, tolerances
from .printer import print_kernel
from .recipe import Recipe, atomic_target, early_exit, sample_recipe, store_only


def reference_for(a: Assembled, global_size: list[str]):
    """The ``reference(inputs, sizes)`` of an assembled kernel: its interpretation with numpy.

    Args:
        a: the assembled kernel.
        global_size: the spec's NDRange expressions.
    """
    kernel = a.kernel
    fixed = a.local_sizes[0] if a.local_sizes else None
    scalars = [p.name for p in kernel.params if p.kind == "scalar"]

    def reference(inputs: dict, sizes: dict) -> dict:
        env = {k: int(v) for k, v in sizes.items()}
        gsize = [to_int(g, env) for g in global_size]
        local = fixed if fixed is not None else [1] * len(gsize)
        arrays = {p.name: inputs[p.name] for p in kernel.params if p.kind == "buffer"}
        return run_kernel(kernel, gsize, local, arrays, {name: inputs[name] for name in scalars})

    return reference


def generate(seed: int, number: int, attempt: int = 0) -> tuple[KernelSpec, Recipe, Assembled]:
    """Kernel ``number`` of ``seed`` (``attempt`` > 0: a redraw); returns the spec, its recipe and
    its intermediate form.

    Args:
        seed: the list's seed.
        number: the kernel's position in the list.
        attempt: how many times it was redrawn.
    """
    rng = np.random.default_rng([int(seed), int(number), int(attempt)])
    recipe = early_exit(atomic_target(sample_recipe(rng), seed, number, attempt), seed, number, attempt)
    recipe = store_only(recipe, seed, number, attempt)
    b = Builder(rng)
    name = f"gen_{seed}_{number}"
    a = assemble(b, recipe, name, side_rng(seed, number, attempt) if recipe.early_exit else None)
    source = print_kernel(a.kernel)
    rtol, atol = tolerances(recipe.compute, a.terms, b.check)
    spec = KernelSpec(
        kernel_id=f"gen.{seed}.{number}", family=recipe.family, variant=recipe.variant(), kernel_name=name,
        source=source, sizes=thin_sizes(b.sizes, {e.name for e in a.space.extents}), check_sizes=dict(b.check),
        constraints=list(b.constraints) + constraints(a, b.args), args=list(b.args),
        global_size=list(a.space.global_size),
        local_sizes=a.local_sizes or default_local_sizes(recipe.dims),
        reference=reference_for(a, a.space.global_size), make_inputs=make_inputs_for(tuple(b.structured)),
        rtol=rtol, atol=atol, tags=["generated", recipe.structure])
    return spec, recipe, a
