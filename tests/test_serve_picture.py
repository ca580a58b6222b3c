"""The autograd graph as a picture (display/picture.py): `gradcalc --graph NAME --format dot|svg` and
the SVG the classroom page shows."""
from __future__ import annotations

import io
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

from gradcalc.display import graph, picture
from gradcalc.session import Session, TextOutput

SVG = "{http://www.w3.org/2000/svg}"


def _graph_of(source: str, name: str) -> graph.Graph:
    session = Session(TextOutput(io.StringIO(), io.StringIO()))
    assert session.run(source)
    return graph.collect(graph.lookup_tensor(session.namespace, session.builtins, name), name, session.namespace)


def _texts(svg: str) -> list[str]:
    return [element.text or "" for element in ElementTree.fromstring(svg).iter(SVG + "text")]


def test_the_command_line_draws_dot_and_svg(tmp_path: object) -> None:
    program = tmp_path / "p.grad"
    program.write_text("import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 3).sum()\n")
    dot = subprocess.run([sys.executable, "-m", "gradcalc", "--graph", "y", "--format", "dot", str(program)],
                         capture_output=True, text=True, timeout=60)
    assert dot.returncode == 0, dot.stderr
    assert dot.stdout.startswith("digraph {\n") and dot.stdout.endswith("}\n")
    assert 'n0 [label="SumBackward0\\lgrad_fn of y\\l' in dot.stdout and "fillcolor=darkolivegreen1" in dot.stdout
    assert "n1 -> n0" in dot.stdout and "n2 -> n1" in dot.stdout
    svg = subprocess.run([sys.executable, "-m", "gradcalc", "--graph", "y", "--format", "svg", str(program)],
                         capture_output=True, text=True, timeout=60)
    assert svg.returncode == 0
    texts = _texts(svg.stdout)
    assert texts[0] == "y: tensor [] float32, grad_fn=<SumBackward0>"
    assert {"SumBackward0", "MulBackward0", "AccumulateGrad", "x"} <= set(texts)
    missing = subprocess.run([sys.executable, "-m", "gradcalc", "--graph", "nope", "--format", "svg", str(program)],
                             capture_output=True, text=True, timeout=60)
    assert (missing.returncode, missing.stderr) == (2, "gradcalc: --graph: name 'nope' is not defined\n")


def test_leaves_saved_values_retained_grads_and_hooks_are_marked() -> None:
    drawn = _graph_of("import torch\nw = torch.ones(2, requires_grad=True)\nw.register_hook(lambda g: g)\n"
                      "x = w * w\nx.retain_grad()\nloss = x.sum()\nloss.backward()\n", "loss")
    svg = picture.to_svg(drawn)
    texts = _texts(svg)
    assert "saved self: freed by backward" in texts
    assert "retains grad: x.grad = tensor([1., 1.])" in texts
    assert "grad=tensor([2., 2.])" in texts and "1 hook" in texts
    assert '<g class="gc-leaf">' in svg and '<g class="gc-root">' in svg


def test_a_shared_node_is_one_box_and_every_edge_points_down() -> None:
    drawn = _graph_of("import torch\nx = torch.ones(2, requires_grad=True)\na = x * 2\nb = a + a.exp()\n", "b")
    boxes = picture.boxes(drawn)
    assert [box.lines[0][0] for box in boxes].count("MulBackward0") == 1
    picture.layout(boxes, 0.0)
    for box in boxes:
        for source in box.inputs:
            assert boxes[source].y + boxes[source].height < box.y


def test_big_graphs_are_summarised() -> None:
    chain = _graph_of("import torch\nx = torch.ones(1, requires_grad=True)\ny = x\nfor i in range(500):\n"
                      "    y = y * 2\n", "y")
    titles = [box.lines[0][0] for box in picture.boxes(chain)]
    assert "MulBackward0 ×499" in titles and len(titles) == 3
    wide = _graph_of("import torch\nxs = [torch.ones(1, requires_grad=True) for i in range(100)]\n"
                     "y = xs[0]\nfor x in xs[1:]:\n    y = y + x * 1\n", "y")
    boxes = picture.boxes(wide)
    assert len(boxes) == picture.MAX_BOXES + 1
    assert boxes[-1].kind == "more" and boxes[-1].lines[0][0].startswith("… ")
    ElementTree.fromstring(picture.to_svg(wide))


def test_text_is_escaped_and_a_leaf_has_no_graph() -> None:
    drawn = _graph_of("import torch\nx = torch.ones(2, requires_grad=True)\n", "x")
    svg = picture.to_svg(drawn)
    assert "grad_fn" not in svg and "&lt;" not in svg
    assert _texts(svg)[1] == "x is a leaf: backward() accumulates its gradient into x.grad (now None)"
    assert picture.to_dot(drawn).count("note [label=") == 1
