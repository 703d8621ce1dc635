"""What the hand-written test sets share (:mod:`kgraph.data.holdout`, :mod:`kgraph.data.holdout2`): the spec
builder of a kernel whose OpenCL C is one package-data file, and the set's catalog (load once, look up by id).

A set is a prefix (its ids are ``<prefix>.<name>``, its family the id itself: one kernel a family) and builders,
one function per kernel returning its :class:`~kgraph.data.corpus.spec.KernelSpec`.
"""
from __future__ import annotations

from functools import cached_property
from importlib import resources

from kgraph.data.corpus.spec import KernelSpec
from kgraph.parsers.errors import InputError


def source_of(package: str, name: str) -> str:
    """The text of ``cl/<name>.cl`` in ``package``'s data.

    Args:
        package: the set's package (``kgraph.data.holdout``); name: the kernel's name (the file's stem).
    """
    return resources.files(package).joinpath("cl", f"{name}.cl").read_text(encoding="utf-8")


def pow2(lo: int, hi: int, step: int = 1) -> list[int]:
    """Powers of two ``2**lo .. 2**hi`` every ``step`` exponents."""
    return [2**e for e in range(lo, hi + 1, step)]


def kernel_spec(prefix: str, source: str, name: str, *, sizes, check, args, gsize, local, reference,
                make_inputs=None, constraints=(), tol=(1e-5, 1e-6), precision="fp32", idiom="") -> KernelSpec:
    """The KernelSpec of kernel ``name`` of a hand-written set, id and family ``<prefix>.<name>``.

    Args:
        prefix: the set's id prefix; source: the kernel's OpenCL C; name: kernel name and file stem;
        sizes, check: candidate and check sizes per parameter; args: the arguments in parameter order;
        gsize: global size expressions; local: work-group shapes; reference, make_inputs: numpy reference and
        input maker; constraints: size expressions that must hold; tol: (rtol, atol); precision, idiom: kept
        in the variant.
    """
    return KernelSpec(
        kernel_id=f"{prefix}.{name}", family=f"{prefix}.{name}",
        variant={"precision": precision, "idiom": idiom}, kernel_name=name, source=source,
        sizes=sizes, check_sizes=check, constraints=list(constraints), args=args, global_size=gsize,
        local_sizes=local, reference=reference, make_inputs=make_inputs, rtol=tol[0], atol=tol[1],
        tags=[prefix])


def spec_maker(prefix: str, package: str, tol: tuple):
    """The ``_spec(name, *, tol=..., **fields)`` of a hand-written set: :func:`kernel_spec` of ``cl/<name>.cl`` in
    ``package``'s data, id and family ``<prefix>.<name>``, ``tol`` the set's default (rtol, atol)."""
    default = tol

    def _spec(name: str, *, tol=default, **fields) -> KernelSpec:
        return kernel_spec(prefix, source_of(package, name), name, tol=tol, **fields)

    return _spec


class SpecSet:
    """A hand-written set's kernels, built once, in the builders' order.

    Args:
        prefix: the ids' prefix (``holdout``); builders: one function per kernel returning its spec.
    """

    def __init__(self, prefix: str, builders):
        self.prefix, self.builders = prefix, tuple(builders)

    @cached_property
    def _specs(self) -> tuple[KernelSpec, ...]:
        out, seen = [], set()
        for build in self.builders:
            spec = build()
            if spec.kernel_id in seen:
                raise InputError(f"{self.prefix} kernel id {spec.kernel_id} defined twice")
            seen.add(spec.kernel_id)
            out.append(spec)
        return tuple(out)

    def specs(self) -> list[KernelSpec]:
        """Every kernel of the set (ids ``<prefix>.<name>``), in a fixed order."""
        return list(self._specs)

    def get_spec(self, kernel_id: str) -> KernelSpec:
        """The spec with this id.

        Args:
            kernel_id: ``<prefix>.<name>`` or just ``<name>``.
        """
        want = kernel_id if kernel_id.startswith(self.prefix + ".") else f"{self.prefix}.{kernel_id}"
        for spec in self._specs:
            if spec.kernel_id == want:
                return spec
        raise InputError(f"no {self.prefix} kernel {kernel_id!r}")

    def holds(self, kernel_id: str) -> bool:
        """True for the id of one of the set's kernels' rows (``<prefix>.<name>``)."""
        return kernel_id.startswith(self.prefix + ".")
