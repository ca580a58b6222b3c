"""The autograd graph as a picture: DOT text (what torchviz users know) and SVG drawn here, with no
Graphviz: `gradcalc --graph NAME --format dot|svg` and the classroom page (gradcalc serve).

Both read the Graph that `:graph` draws as text (graph.py), so they show the same things: PyTorch's
node names, the leaves with their names, shapes and `.grad`, saved values (or that backward freed
them), retained grads and hooks. A node reached twice is one box with two edges out; a straight run
of look-alike nodes is one box (`MulBackward0 ×10,000`); past MAX_BOXES boxes the rest is one box
that counts them. As in torchviz, the leaves are at the top and the arrows run forward, down to the
tensor asked for.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from .graph import FREED, Graph, GraphNode, single_input, straight_run

MAX_BOXES = 60
MAX_LINE = 60  # characters of a box's line before it is cut with "…"
FONT_SIZE = 13
HEAD_SIZE = 14  # the title's font
CHAR_WIDTH = FONT_SIZE * 0.62  # a monospace font's advance (0.6 em), with a little to spare
LINE_HEIGHT = 17
PAD_X, PAD_Y = 8, 6
GAP_X, GAP_Y = 24, 44
MARGIN = 12
SWEEPS = 4  # barycentre passes that untangle the edges between layers


@dataclass
class Box:
    """One box of the picture: a node, a collapsed run of nodes, or the nodes left out."""

    kind: str  # "root", "node", "leaf" or "more"
    lines: list[tuple[str, str]]  # (text, style: "title", "", "freed", "mark")
    inputs: list[int] = field(default_factory=list)  # boxes whose edges come into this one
    layer: int = 0
    x: float = 0.0
    y: float = 0.0
    width: float = 0.0
    height: float = 0.0


def boxes(graph: Graph) -> list[Box]:
    """The graph's nodes grouped into boxes, the root's first, at most MAX_BOXES (+1 for the rest)."""
    unit_of: dict[int, int] = {}
    units: list[tuple[list[int], int]] = []  # (positions, output_nr of the first)
    stack = [(0, 0)]
    while stack:  # depth first from the root, as `:graph` draws (no recursion: chains are deep)
        position, output_nr = stack.pop()
        if position in unit_of:
            continue
        run = straight_run(graph.nodes, position, output_nr, set(unit_of))
        run = run if len(run) >= 3 else [position]  # graph.MIN_RUN: two equal boxes read better
        for member in run:
            unit_of[member] = len(units)
        units.append((run, output_nr))
        last = graph.nodes[run[-1]]
        edges = [single_input(last)] if len(run) > 1 else [e for e in last.inputs if e[0] is not None]
        stack.extend(reversed(edges))
    kept = units[:MAX_BOXES]
    result = [Box("root" if i == 0 else "leaf" if graph.nodes[run[0]].leaf else "node",
                  _box_lines(graph.nodes[run[0]], output_nr, len(run))) for i, (run, output_nr) in enumerate(kept)]
    hidden = [position for run, _ in units[MAX_BOXES:] for position in run]
    if hidden:
        result.append(Box("more", [(f"… {len(hidden):,} more nodes", "title")] + _kinds(graph, hidden)))
    for i, (run, _) in enumerate(kept):
        targets = []
        for target, _nr in graph.nodes[run[-1]].inputs:
            if target is not None:
                box = min(unit_of[target], len(kept))  # a left-out node: the "more" box
                if box not in targets:
                    targets.append(box)
        result[i].inputs = targets
    return result


def _kinds(graph: Graph, hidden: list[int]) -> list[tuple[str, str]]:
    counts: dict[str, int] = {}
    for position in hidden:
        counts[graph.nodes[position].name] = counts.get(graph.nodes[position].name, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: -item[1])
    return [(f"{name} ×{count:,}", "") for name, count in ranked[:6]]


def _box_lines(node: GraphNode, output_nr: int, repeated: int) -> list[tuple[str, str]]:
    title = node.name + (f" ×{repeated:,}" if repeated > 1 else "") + (f" (output {output_nr})" if output_nr else "")
    lines = [(title, "title")]
    if node.leaf is not None:
        leaf = node.leaf
        lines.append((", ".join(leaf.names) if leaf.names else "(unnamed leaf)", "mark"))
        lines.append((leaf.description, ""))
        lines.append((f"grad={leaf.grad}", ""))
        if leaf.hooks:
            lines.append((_count(leaf.hooks, "hook"), "mark"))
    if node.tensors:
        lines.append((f"grad_fn of {', '.join(node.tensors)}", "mark"))
    for name, value in node.saved:
        lines.append((f"saved {name}: {value}", "freed" if value == FREED else ""))
    for retained in node.retained:
        lines.append((f"retains grad: {retained}", "mark"))
    if node.hooks:
        lines.append((_count(node.hooks, "hook"), "mark"))
    return [(_cut(text), style) for text, style in lines]


def _cut(text: str) -> str:
    text = " ".join(text.split())  # a tensor's value on one line
    return text if len(text) <= MAX_LINE else text[:MAX_LINE - 1] + "…"


def _count(number: int, singular: str) -> str:
    return f"{number:,} {singular if number == 1 else singular + 's'}"


# ------------------------------------------------------------------ DOT

_DOT_FILL = {"root": "darkolivegreen1", "leaf": "lightblue", "node": "lightgrey", "more": "white"}


def to_dot(graph: Graph) -> str:
    """The graph as Graphviz DOT, in torchviz's style (`dot -Tsvg` draws it)."""
    out = ["digraph {", f"\tgraph [label={_dot_string(graph.title)} labelloc=t size=\"12,12\"]",
           "\tnode [align=left fontname=monospace fontsize=10 height=0.2 ranksep=0.1 shape=box style=filled]"]
    if not graph.nodes:
        out.append(f"\tnote [label={_dot_string(graph.remark)} fillcolor=white]")
    drawn = boxes(graph) if graph.nodes else []
    for i, box in enumerate(drawn):
        label = "\n".join(text for text, _ in box.lines)
        style = " style=\"filled,dashed\"" if box.kind == "more" else ""
        out.append(f"\tn{i} [label={_dot_string(label)} fillcolor={_DOT_FILL[box.kind]}{style}]")
    for i, box in enumerate(drawn):
        for source in box.inputs:
            out.append(f"\tn{source} -> n{i}")
    out.append("}")
    return "\n".join(out) + "\n"


def _dot_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\l") + ('\\l"' if "\n" in text else '"')


# ------------------------------------------------------------------ SVG

# Colours are CSS variables with these defaults, so that a page can theme the picture (light, dark).
_STYLE = """
.gc-graph text{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;fill:var(--gc-ink,#1d1d1f)}
.gc-graph .gc-title{font-weight:bold}
.gc-graph .gc-freed{fill:var(--gc-freed,#c0392b)}
.gc-graph .gc-mark{fill:var(--gc-mark,#8a5a00)}
.gc-graph .gc-head{font-weight:bold;font-size:14px}
.gc-graph .gc-remark{fill:var(--gc-dim,#666)}
.gc-graph rect{stroke:var(--gc-line,#888);stroke-width:1;rx:4}
.gc-graph .gc-node rect{fill:var(--gc-node,#ececec)}
.gc-graph .gc-root rect{fill:var(--gc-root,#caff70)}
.gc-graph .gc-leaf rect{fill:var(--gc-leaf,#add8e6)}
.gc-graph .gc-more rect{fill:var(--gc-more,#fff);stroke-dasharray:4 3}
.gc-graph path{fill:none;stroke:var(--gc-line,#888);stroke-width:1.3}
.gc-graph marker path{fill:var(--gc-line,#888);stroke:none}
"""


def to_svg(graph: Graph) -> str:
    """The graph as a standalone SVG document, laid out in layers (leaves at the top)."""
    head = [(graph.title, "gc-head")] + ([] if graph.nodes else [(graph.remark, "gc-remark")])
    head_height = MARGIN + LINE_HEIGHT * len(head) + (GAP_Y // 2 if graph.nodes else MARGIN)
    drawn = boxes(graph) if graph.nodes else []
    width, height = layout(drawn, head_height)
    width = max(width, MARGIN * 2 + max(len(text) for text, _ in head) * CHAR_WIDTH * HEAD_SIZE / FONT_SIZE)
    height = max(height, head_height)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="gc-graph" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{_xml(graph.title)}">',
           f"<style>{_STYLE}</style>",
           '<defs><marker id="gc-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>']
    for i, (text, style) in enumerate(head):
        out.append(f'<text class="{style}" x="{MARGIN}" y="{MARGIN + LINE_HEIGHT * (i + 1) - 4}">{_xml(text)}</text>')
    for box in drawn:
        for source in box.inputs:
            out.append(_edge(drawn[source], box))
    for box in drawn:
        out.append(f'<g class="gc-{box.kind}"><rect x="{box.x:.1f}" y="{box.y:.1f}" width="{box.width:.1f}" '
                   f'height="{box.height:.1f}"/>')
        for i, (text, style) in enumerate(box.lines):
            css = f' class="gc-{style}"' if style else ""
            out.append(f'<text{css} x="{box.x + PAD_X:.1f}" y="{box.y + PAD_Y + LINE_HEIGHT * (i + 1) - 4:.1f}">'
                       f"{_xml(text)}</text>")
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _xml(text: str) -> str:
    return escape(text, {'"': "&quot;"})


def _edge(source: Box, target: Box) -> str:
    """From the bottom of the input's box to the top of the box that uses it (forward, as torchviz)."""
    x1, y1 = source.x + source.width / 2, source.y + source.height
    x2, y2 = target.x + target.width / 2, target.y
    if y2 <= y1:  # an input drawn level with or below its user (a long path beside a short one)
        x1, y1 = source.x + source.width, source.y + source.height / 2
        x2, y2 = target.x + target.width, target.y + target.height / 2
        bend = max(source.width, target.width) / 2 + GAP_X
        return f'<path d="M{x1:.1f},{y1:.1f} C{x1 + bend:.1f},{y1:.1f} {x2 + bend:.1f},{y2:.1f} {x2:.1f},{y2:.1f}" ' \
               'marker-end="url(#gc-arrow)"/>'
    middle = (y1 + y2) / 2
    return f'<path d="M{x1:.1f},{y1:.1f} C{x1:.1f},{middle:.1f} {x2:.1f},{middle:.1f} {x2:.1f},{y2:.1f}" ' \
           'marker-end="url(#gc-arrow)"/>'


def layout(drawn: list[Box], top: float) -> tuple[float, float]:
    """Layers by the longest path from the root (so every edge points down), an order within each
    layer that crosses few edges, then coordinates; the picture's width and height."""
    if not drawn:
        return 0.0, 0.0
    users: list[list[int]] = [[] for _ in drawn]
    for i, box in enumerate(drawn):
        for source in box.inputs:
            users[source].append(i)
    for i in _topological(drawn, users):
        for source in drawn[i].inputs:
            drawn[source].layer = max(drawn[source].layer, drawn[i].layer + 1)
    depth = max(box.layer for box in drawn)
    layers: list[list[int]] = [[] for _ in range(depth + 1)]
    for i, box in enumerate(drawn):  # first-seen order (depth first from the root)
        layers[depth - box.layer].append(i)
    _untangle(drawn, layers, users)
    for box in drawn:
        box.width = PAD_X * 2 + max(len(text) for text, _ in box.lines) * CHAR_WIDTH
        box.height = PAD_Y * 2 + LINE_HEIGHT * len(box.lines)
    widths = [sum(drawn[i].width for i in row) + GAP_X * (len(row) - 1) for row in layers]
    total = max(widths) + MARGIN * 2
    y = top
    for row, row_width in zip(layers, widths):
        x = (total - row_width) / 2
        for i in row:
            drawn[i].x, drawn[i].y = x, y
            x += drawn[i].width + GAP_X
        y += max(drawn[i].height for i in row) + GAP_Y
    return total, y - GAP_Y + MARGIN


def _topological(drawn: list[Box], users: list[list[int]]) -> list[int]:
    """The boxes, each after every box that uses it (the root first)."""
    waiting = [len(users[i]) for i in range(len(drawn))]
    ready = [i for i in range(len(drawn)) if waiting[i] == 0]
    order = []
    while ready:
        i = ready.pop()
        order.append(i)
        for source in drawn[i].inputs:
            waiting[source] -= 1
            if waiting[source] == 0:
                ready.append(source)
    return order


def _untangle(drawn: list[Box], layers: list[list[int]], users: list[list[int]]) -> None:
    """Sort each layer by the mean position of its neighbours in the layer before, down then up."""
    def sweep(rows: list[list[int]], neighbours: list[list[int]]) -> None:
        place: dict[int, float] = {i: float(n) for n, i in enumerate(rows[0])}
        for row in rows[1:]:
            keys = {}
            for n, i in enumerate(row):
                known = [place[j] for j in neighbours[i] if j in place]
                keys[i] = (sum(known) / len(known) if known else float(n), n)
            row.sort(key=keys.__getitem__)
            place.update({i: float(n) for n, i in enumerate(row)})

    inputs = [box.inputs for box in drawn]
    for _ in range(SWEEPS):
        sweep(layers, inputs)  # top down: a box under its inputs
        sweep(layers[::-1], users)  # bottom up: a box over its users

