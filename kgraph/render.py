"""Draw a KernelGraph: Graphviz DOT text, and a PNG through matplotlib (no Graphviz needed).

The PNG uses a layered layout: each function's AST is a tidy tree (depth downwards, leaves in
source order, parents centred over their children), functions side by side, and the VARIABLE /
BUFFER / CONSTANT / BUILTIN nodes in a row underneath. AST edges are thin grey lines; CONTROL,
DATA and CALL edges are arcs in their own colours, with a legend.
"""
from __future__ import annotations

from pathlib import Path

from kgraph.errors import InputError
from kgraph.graph import KernelGraph
from kgraph.schema import Flow, NodeType

FLOW_COLORS = {Flow.AST: "#9e9e9e", Flow.CONTROL: "#1f77b4", Flow.DATA: "#d62728", Flow.CALL: "#2ca02c"}
_SYNTHETIC_COLORS = {NodeType.VARIABLE: "#ffbb78", NodeType.BUFFER: "#ff7f0e", NodeType.CONSTANT: "#c5b0d5",
                     NodeType.BUILTIN: "#98df8a"}
_STATEMENTS = {NodeType.FUNCTION, NodeType.COMPOUND, NodeType.EXPRESSION_STMT, NodeType.DECLARATION, NodeType.IF,
               NodeType.FOR, NodeType.WHILE, NodeType.DO, NodeType.SWITCH, NodeType.CASE, NodeType.BREAK,
               NodeType.CONTINUE, NodeType.RETURN, NodeType.GOTO, NodeType.LABEL}


def node_color(node_type: int) -> str:
    t = NodeType(node_type)
    if t in _SYNTHETIC_COLORS:
        return _SYNTHETIC_COLORS[t]
    return "#aec7e8" if t in _STATEMENTS else "#f0f0f0"


def node_label(graph: KernelGraph, index: int) -> str:
    node = graph.nodes[index]
    kind = node.kind.replace("_expression", "").replace("_statement", "").replace("_declarator", "_decl")
    return kind if node.token in (node.kind, kind) else f"{kind}\n{node.token}"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def to_dot(graph: KernelGraph) -> str:
    """Graphviz DOT of ``graph``: one node per graph node, edges coloured by flow, a legend cluster."""
    lines = [f'digraph "{_escape(graph.name)}" {{', "  node [shape=box, style=filled, fontsize=9];"]
    for i, node in enumerate(graph.nodes):
        shape = "ellipse" if node.type in _SYNTHETIC_COLORS else "box"
        lines.append(f'  n{i} [label="{_escape(node_label(graph, i))}", fillcolor="{node_color(node.type)}", '
                     f"shape={shape}];")
    for e in graph.edges:
        flow = Flow(e.flow)
        style = "" if flow == Flow.AST else ", constraint=false"
        lines.append(f'  n{e.src} -> n{e.dst} [color="{FLOW_COLORS[flow]}", label="{e.position}", '
                     f"fontsize=7{style}];")
    lines.append('  subgraph cluster_legend { label="flows"; fontsize=10;')
    for flow, color in FLOW_COLORS.items():
        lines.append(f'    legend_{flow.name} [label="{flow.name}", shape=plaintext, fontcolor="{color}"];')
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def layout(graph: KernelGraph) -> dict[int, tuple[float, float]]:
    """Positions ``index -> (x, y)``: tidy AST trees side by side, synthetic nodes in a bottom row."""
    children: dict[int, list[int]] = {}
    has_parent: set[int] = set()
    for e in graph.edges:
        if e.flow == Flow.AST:
            children.setdefault(e.src, []).append(e.dst)
            has_parent.add(e.dst)
    roots = [i for i, n in enumerate(graph.nodes) if n.type == NodeType.FUNCTION and i not in has_parent]
    pos: dict[int, tuple[float, float]] = {}
    next_x = 0.0
    max_depth = 0
    for root in roots:
        stack = [(root, 0, False)]
        while stack:  # iterative post-order: leaves get consecutive x, parents the mean of their children
            index, depth, done = stack.pop()
            kids = children.get(index, [])
            if done or not kids:
                if kids:
                    x = sum(pos[k][0] for k in kids) / len(kids)
                else:
                    x, next_x = next_x, next_x + 1.0
                pos[index] = (x, -float(depth))
                max_depth = max(max_depth, depth)
                continue
            stack.append((index, depth, True))
            stack.extend((k, depth + 1, False) for k in reversed(kids))
        next_x += 2.0
    others = [i for i in range(len(graph.nodes)) if i not in pos]
    width = max(next_x - 2.0, 1.0)
    for k, index in enumerate(others):
        pos[index] = ((k + 0.5) * width / max(len(others), 1), -float(max_depth + 2 + (k % 2)))
    return pos


def to_png(graph: KernelGraph, path, dpi: int = 110) -> str:
    """Draw ``graph`` into a PNG at ``path`` (parent folders are created); returns the path as a string."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import FancyArrowPatch

    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{path}: cannot create the folder for the picture ({exc.strerror})") from None
    pos = layout(graph)
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    width = min(max(8.0, (max(xs) - min(xs)) * 0.32), 60.0)
    height = min(max(5.0, (max(ys) - min(ys)) * 0.55), 30.0)
    fig, ax = plt.subplots(figsize=(width, height))
    for e in graph.edges:
        (x0, y0), (x1, y1) = pos[e.src], pos[e.dst]
        flow = Flow(e.flow)
        if flow == Flow.AST:
            ax.plot([x0, x1], [y0, y1], color=FLOW_COLORS[flow], lw=0.6, zorder=1)
            continue
        rad = 0.25 if flow == Flow.CONTROL else (-0.2 if flow == Flow.DATA else 0.35)
        ax.add_patch(FancyArrowPatch((x0, y0), (x1, y1), connectionstyle=f"arc3,rad={rad}", arrowstyle="-|>",
                                     mutation_scale=7, lw=0.7, color=FLOW_COLORS[flow], alpha=0.75, zorder=2))
    small = len(graph.nodes) <= 600
    for i, node in enumerate(graph.nodes):
        x, y = pos[i]
        box = dict(boxstyle="round,pad=0.2", fc=node_color(node.type), ec="#555555", lw=0.4)
        ax.text(x, y, node_label(graph, i) if small else "", fontsize=4.5, ha="center", va="center", bbox=box, zorder=3)
    handles = [Line2D([0], [0], color=c, lw=2, label=f.name) for f, c in FLOW_COLORS.items()]
    ax.legend(handles=handles, loc="upper right", fontsize=8, title="flows", title_fontsize=8)
    ax.set_title(f"{graph.name} ({graph.lang}): {graph.num_nodes} nodes, "
                 + ", ".join(f"{k} {v}" for k, v in graph.edge_counts().items()), fontsize=10)
    ax.set_xlim(min(xs) - 1, max(xs) + 1)
    ax.set_ylim(min(ys) - 1, max(ys) + 1)
    ax.axis("off")
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=dpi, format="png")
    except OSError as exc:
        raise InputError(f"{path}: cannot write the picture ({exc.strerror})") from None
    finally:
        plt.close(fig)
    return str(path)
