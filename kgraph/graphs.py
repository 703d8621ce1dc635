"""Kernel graphs from sources: ``from_file``, ``from_source``, ``from_unit`` and the conversions
``to_pyg``, ``to_dot``, ``to_png`` (re-exported lazily as ``kgraph.*``)."""
from __future__ import annotations

from kgraph.graph import KernelGraph


def from_unit(unit, analyze: bool = True) -> list[KernelGraph]:
    """One :class:`KernelGraph` per kernel of a parsed :class:`parsers.TranslationUnit`, in source order.

    Syntax errors in ``unit`` are not checked here (the graph of a partly broken kernel is built from
    tree-sitter's recovery); ``analyze=False`` skips the static analysis.
    """
    from kgraph.builder import build_kernel_graph

    graphs = []
    for function in unit.kernels:
        graph = build_kernel_graph(unit, function)
        if analyze:
            _attach_analysis(graph, unit, function)
        graphs.append(graph)
    return graphs


def from_source(text: str, lang: str, filename: str = "<string>", analyze: bool = True,
                defines: dict[str, str] | None = None) -> list[KernelGraph]:
    """Parse ``text`` as ``lang`` (``opencl`` | ``cuda`` | ``c``) and build its kernel graphs.
    ``defines``: command-line macros (``-D``), e.g. ``{"TILE": "16"}``.

    Raises:
        InputError: empty/binary/oversized text. SourceError: syntax errors (``file:line:col`` diagnostics).
    """
    from kgraph.parsers import parse_source

    unit = parse_source(text, lang, filename=filename, defines=defines)
    unit.raise_on_errors()
    return from_unit(unit, analyze=analyze)


def from_file(path, lang: str | None = None, analyze: bool = True,
              defines: dict[str, str] | None = None) -> list[KernelGraph]:
    """Parse the file at ``path`` (language from its extension unless ``lang``) and build its kernel graphs.
    ``defines``: command-line macros (``-D``).

    Raises:
        InputError: missing/unreadable/empty/binary/oversized file. SourceError: syntax errors.
    """
    from kgraph.parsers import parse_file

    unit = parse_file(path, lang, defines=defines)
    unit.raise_on_errors()
    return from_unit(unit, analyze=analyze)


def analysis_of(graph: KernelGraph):
    """``graph``'s static :class:`~kgraph.analysis.KernelAnalysis` (None when it has none), analysed on
    first use and kept on the graph: a graph built with ``analyze=False`` is analysed here once, and every
    consumer of the graph (static-count features, static footprint, exact counts) shares that one analysis.
    """
    if graph.analysis is None and graph.analysis_error is None and graph.function is not None:
        _attach_analysis(graph, graph.unit, graph.function)
    return graph.analysis


def to_pyg(graph: KernelGraph):
    """The ``torch_geometric.data.Data`` of ``graph`` (see :func:`kgraph.pyg.to_pyg`)."""
    from kgraph.pyg import to_pyg as convert

    return convert(graph)


def to_dot(graph: KernelGraph) -> str:
    """Graphviz DOT text of ``graph``, flows in distinct colours (see :mod:`kgraph.render`)."""
    from kgraph.render import to_dot as render

    return render(graph)


def to_png(graph: KernelGraph, path) -> str:
    """Draw ``graph`` to a PNG file at ``path`` (matplotlib, layered layout); returns the path."""
    from kgraph.render import to_png as render

    return render(graph, path)


def with_branch_fractions(graph: KernelGraph, shares: dict[int, float]) -> KernelGraph:
    """``graph`` analysed with the given shares of its undecided branches (line -> the share of executions that
    take it, :mod:`kgraph.analysis.branches`): a copy sharing the graph's nodes and source, with its own analysis,
    made once per distinct set of shares and kept with ``graph``. No shares, or a graph without an analysis:
    ``graph`` itself."""
    import copy

    from kgraph.analysis.branches import as_share

    if not shares or analysis_of(graph) is None:
        return graph
    key = tuple(sorted((int(line), float(p)) for line, p in shares.items()))
    made = graph.__dict__.setdefault("_by_shares", {})
    if key not in made:
        twin = copy.copy(graph)
        twin.__dict__.pop("_by_shares", None)
        twin.analysis, twin.analysis_error = None, None
        _attach_analysis(twin, graph.unit, graph.function, {line: as_share(p) for line, p in key})
        made[key] = twin
    return made[key]


def _attach_analysis(graph: KernelGraph, unit, function, shares: dict | None = None) -> None:
    """Set ``graph.analysis`` from :func:`kgraph.analysis.analyze` (``shares``: given branch shares); on failure
    keep why in ``analysis_error``."""
    try:
        from kgraph.analysis import analyze
    except ImportError as exc:
        graph.analysis_error = f"static analysis unavailable ({exc})"
        return
    try:
        graph.analysis = analyze(function, unit, shares) if shares else analyze(function, unit)
    except RecursionError:
        graph.analysis_error = "static analysis failed: kernel nested too deeply"
    except Exception as exc:  # a broken analysis must not hide the graph; the reason is kept and printed
        graph.analysis_error = f"static analysis failed: {type(exc).__name__}: {exc}"
