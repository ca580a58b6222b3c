""":vars and :graph, the REPL's own views, against the session's real state: what each shows is
compared with what the program itself reads from the same tensors and grad_fn nodes."""
from __future__ import annotations

import io
import re
import warnings
from typing import Any

import pytest

from gradcalc.autograd.engine import FREED_MESSAGE, AccumulateGrad, Node
from gradcalc.display import graph, variables
from gradcalc.display.console import show
from gradcalc.nn.modules import Module
from gradcalc.session import Session, TextOutput


def session_after(program: str) -> Session:
    session = Session(TextOutput(io.StringIO(), io.StringIO()))
    assert session.run(program), session.output.stderr.getvalue()
    return session


def text_of(renderable: Any, width: int = 100) -> str:
    out = io.StringIO()
    show(renderable, out, False, width)
    return out.getvalue()


def graph_text(drawn: graph.Graph) -> str:
    """As :graph and --graph print it: each line whole."""
    out = io.StringIO()
    show(graph.render(drawn), out, False, whole_lines=True)
    return out.getvalue()


# ------------------------------------------------------------------ :vars

def expected_tensor_row(name: str, tensor: Any) -> tuple:
    """The row as the program reads each attribute."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a non-leaf's .grad warns
        grad = tensor.grad
    if grad is None:
        shown_grad = "None"
    elif grad.numel() <= 6 and grad.dim() <= 1:
        shown_grad = repr(grad)
    else:
        shown_grad = f"[{', '.join(map(str, grad.shape))}] {str(grad.dtype)[6:]}"
    grad_fn = tensor.grad_fn
    return (name, "Parameter" if type(tensor).__name__ == "Parameter" else "Tensor",
            "[" + ", ".join(str(size) for size in tensor.shape) + "]", str(tensor.dtype)[len("torch."):],
            str(tensor.requires_grad), str(tensor.is_leaf), type(grad_fn).__name__ if grad_fn is not None else "None",
            shown_grad, str(tensor.retains_grad), str(tensor._version))


def assert_rows_match_the_session(session: Session) -> variables.Variables:
    found = variables.collect(session.namespace)
    tensors = [(name, value) for name, value in session.namespace.items()
               if hasattr(value, "grad_fn") and not isinstance(value, (Node, Module)) and not name.startswith("$")
               and name != "_"]
    assert found.tensors == [expected_tensor_row(name, tensor) for name, tensor in tensors]
    return found


STAGES = [
    # (program, the names whose rows are checked, what the stage is about)
    ("x = tensor([1., 2.], requires_grad=True); w = tensor(3.0, requires_grad=True); y = x * w; z = y.sum()",
     "before backward"),
    ("y.retain_grad(); z.backward(retain_graph=True)", "after retain_grad and backward"),
    ("z.backward()", "gradients accumulate"),
    ("y.detach_()", "after detach_"),
    ("x.data.mul_(2); x.add_(1) if False else None; v = x.detach(); v.zero_()", "versions after in-place changes"),
    ("with torch.no_grad():\n    x.add_(1)\n", "an in-place change under no_grad"),
    ("big = ones(4, 4, requires_grad=True); (big * 2).sum().backward()", "a gradient too big for one line"),
    ("p = nn.Parameter(torch.zeros(2)); q = tensor([1, 2]); r = tensor([1+2j])", "parameters and other dtypes"),
]


def test_vars_follow_the_session_stage_by_stage() -> None:
    session = session_after("")
    for program, _ in STAGES:
        assert session.run(program), session.output.stderr.getvalue()
        assert_rows_match_the_session(session)
    rows = {row[0]: row for row in variables.collect(session.namespace).tensors}
    assert rows["y"][4:7] == ("False", "True", "None")  # detach_ made y a leaf that requires no grad
    assert rows["x"][-1] != "0" and rows["big"][7] == "[4, 4] float32"
    assert session.output.stderr.getvalue() == ""  # reading a non-leaf's .grad warned nobody


def test_vars_show_modules_with_their_parameters() -> None:
    session = session_after(
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.a = nn.Linear(3, 2)\n"
        "        self.b = nn.Linear(2, 1, bias=False)\n"
        "        self.shared = self.a\n"
        "    def parameters(self):\n"  # never called by :vars: it is the program's code
        "        raise RuntimeError('called')\n"
        "net = Net(); net.b.weight.requires_grad_(False)\n"
        "net.a(ones(3)).sum().backward(); net.eval()\n")
    (row,) = variables.collect(session.namespace).modules
    assert row == ("net", "Net", "3", "10", "2 of 3", "2 of 3", "False")


def test_vars_hide_the_compilers_names_and_show_nothing_of_the_prelude() -> None:
    session = session_after("[t for t in [ones(1)]]; ones(2)")
    assert session.builtins["_"] is not None  # the last echoed value: not a variable of the program
    assert variables.collect(session.namespace) == variables.Variables([], [])
    assert "No tensors or modules yet." in text_of(variables.render(variables.collect(session.namespace), 80))


@pytest.mark.parametrize("width", [60, 80, 100, 200])
def test_vars_table_fits_the_terminal(width: int) -> None:
    session = session_after("x = tensor([1., 2.], requires_grad=True); y = (x * 2).sum(); y.backward()\n"
                            "w = nn.Parameter(torch.randn(3, 4)); net = nn.Linear(4, 2)")
    text = text_of(variables.render(variables.collect(session.namespace), width), width)
    assert max(len(line.rstrip()) for line in text.splitlines()) <= width
    for value in ("SumBackward0", "tensor([2., 2.])", "Parameter", "[3, 4]", "Linear", "requires_grad"):
        assert value in text


def test_vars_never_run_the_programs_code() -> None:
    session = session_after(
        "calls = []\n"
        "class Spy(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.w = nn.Parameter(ones(1))\n"
        "    def __getattr__(self, name):\n"
        "        calls.append(name)\n"
        "        raise AttributeError(name)\n"
        "    def __dir__(self):\n"
        "        calls.append('dir')\n"
        "        return []\n"
        "spy = Spy()\n"
        "calls.clear()\n")  # Module.__setattr__ asks __getattr__ first, as PyTorch's does
    from gradcalc.display.completion import complete

    assert variables.collect(session.namespace).modules[0][2:4] == ("1", "1")
    graph.collect(session.namespace["spy"]._parameters["w"], "w", session.namespace)
    assert "parameters" in complete(session, "spy.")
    assert session.namespace["calls"] == []


# ------------------------------------------------------------------ :graph

def reference_walk(root: Node) -> list:
    """The graph as the program sees it: every node once, in depth-first order of next_functions."""
    seen, order, stack = set(), [], [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        stack.extend(reversed([target for target, _ in node.next_functions if target is not None]))
    return order


def assert_graph_matches(session: Session, name: str) -> graph.Graph:
    tensor = session.namespace[name]
    drawn = graph.collect(tensor, name, session.namespace)
    nodes = reference_walk(tensor.grad_fn)
    assert [node.name for node in drawn.nodes] == [node.name().rsplit("::", 1)[-1] for node in nodes]
    position = {id(node): i for i, node in enumerate(nodes)}
    for shown, node in zip(drawn.nodes, nodes):
        assert shown.inputs == [(position[id(t)] if t is not None else None, nr) for t, nr in node.next_functions]
        assert shown.uses == sum(1 for other in nodes for t, _ in other.next_functions if t is node)
        if isinstance(node, AccumulateGrad):
            leaf = node.variable
            assert shown.leaf.names == [n for n, v in session.namespace.items() if v is leaf]
            assert shown.leaf.grad == (repr(leaf.grad) if leaf.grad is not None else "None")
        else:
            assert shown.leaf is None
        named = [n for n, v in session.namespace.items() if getattr(v, "grad_fn", None) is node
                 and not n.startswith("$")]
        assert shown.tensors == named
    return drawn


def test_graph_of_a_shared_sub_graph_draws_it_once() -> None:
    session = session_after("a = tensor([1., 2.], requires_grad=True); b = tensor(3., requires_grad=True)\n"
                            "s = a * b\nout = (s + s.exp() + a).sum()")
    drawn = assert_graph_matches(session, "out")
    shared = [node for node in drawn.nodes if node.uses > 1]
    assert sorted(node.name for node in shared) == ["AccumulateGrad", "MulBackward0"]
    text = graph_text(drawn)
    assert text.count("MulBackward0") == 2 and "MulBackward0 #" in text and "(drawn above)" in text
    assert text.count("AccumulateGrad") == 3  # a, b, and a drawn above
    assert "grad_fn of s" in text and "grad_fn of out" in text


def test_graph_after_backward_retain_grad_and_hooks() -> None:
    session = session_after("x = tensor([1., 2.], requires_grad=True)\ny = x * 2\ny.retain_grad()\n"
                            "h = y.register_hook(lambda g: g * 1)\nh2 = x.register_hook(lambda g: g)\nz = y.sum()\n")
    before = assert_graph_matches(session, "z")
    assert session.run("z.backward()")
    after = assert_graph_matches(session, "z")
    mul = [node for node in after.nodes if node.name == "MulBackward0"][0]
    assert mul.retained == ["y.grad = tensor([1., 1.])"] and mul.hooks == 1
    assert [node for node in before.nodes if node.name == "MulBackward0"][0].retained == ["y.grad = None"]
    leaf = after.nodes[-1].leaf
    assert leaf.names == ["x"] and leaf.hooks == 1 and leaf.grad == "tensor([2., 2.])"
    text = graph_text(after)
    assert "retains grad: y.grad = tensor([1., 1.])  1 hook" in text and "1 hook" in text.split("AccumulateGrad")[1]
    # the grad_fn's own hooks count with those on its output
    assert session.run("h3 = y.grad_fn.register_hook(lambda gi, go: None)\n"
                       "h4 = y.grad_fn.register_prehook(lambda go: None)")
    assert [node for node in assert_graph_matches(session, "z").nodes if node.name == "MulBackward0"][0].hooks == 3


def test_graph_after_detach_() -> None:
    session = session_after("x = tensor(2., requires_grad=True); y = x * 3; z = y + 1; y.detach_()")
    drawn = assert_graph_matches(session, "z")
    assert drawn.nodes[1].name == "MulBackward0" and drawn.nodes[1].tensors == []  # y no longer owns it
    detached = graph.collect(session.namespace["y"], "y", session.namespace)
    assert detached.nodes == [] and detached.remark == "y does not require grad: no graph is recorded for it"
    leaf = graph.collect(session.namespace["x"], "x", session.namespace)
    assert leaf.remark.startswith("x is a leaf: backward() accumulates its gradient into x.grad (now None)")


def test_graph_of_a_grad_fn_and_of_a_dotted_name() -> None:
    session = session_after("net = nn.Linear(2, 1); out = net(ones(2)); g = out.grad_fn")
    value = graph.lookup_tensor(session.namespace, session.builtins, "g")
    drawn = graph.collect(value, "g", session.namespace)
    assert drawn.nodes[0].name == type(session.namespace["g"]).__name__
    weight = graph.lookup_tensor(session.namespace, session.builtins, "net.weight")
    assert weight is session.namespace["net"].weight
    leaves = [node.leaf for node in drawn.nodes if node.leaf is not None]
    assert sorted(len(leaf.names) for leaf in leaves) == [0, 0]  # net.weight and net.bias have no names of their own


@pytest.mark.parametrize("name, message", [
    ("nothing", "name 'nothing' is not defined"),
    ("net", "'net' is a Linear, not a tensor: :graph draws the graph behind a tensor"),
    ("net.nothing", "AttributeError: 'Linear' object has no attribute 'nothing'"),
    ("x._data", "AttributeError: 'Tensor' object attribute '_data' is not accessible in gradcalc"),
    ("$program", "'$program' is not a name (a name or a dotted chain of names, as in y or model.weight)"),
    ("x + 1", "'x + 1' is not a name (a name or a dotted chain of names, as in y or model.weight)"),
])
def test_graph_names_what_it_cannot_draw(name: str, message: str) -> None:
    session = session_after("net = nn.Linear(2, 1); x = ones(1)")
    with pytest.raises(graph.GraphError) as raised:
        graph.collect(graph.lookup_tensor(session.namespace, session.builtins, name), name, session.namespace)
    assert str(raised.value) == message


def test_a_ten_thousand_node_chain_is_one_line() -> None:
    session = session_after("x = tensor([1., 2.], requires_grad=True)\ny = x\n"
                            "for i in range(10_000):\n    y = y * 1.0001\n")
    drawn = graph.collect(session.namespace["y"], "y", session.namespace)
    assert len(drawn.nodes) == len(reference_walk(session.namespace["y"].grad_fn)) == 10_001
    # the root carries y's name, so it keeps a line of its own; the 9,999 below it read the same
    saved = "saved: other=tensor(1.0001, dtype=torch.float64), self=None"
    assert graph_text(drawn).splitlines() == [
        "y: tensor [2] float32, grad_fn=<MulBackward0>",
        "10,001 nodes, 1 leaf",
        f"MulBackward0  +1 None  grad_fn of y  {saved}",
        f"MulBackward0 ×9,999  +1 None  {saved}",
        "AccumulateGrad  x [2] float32, grad=None",
    ]


def chain_lines(program: str, name: str = "y") -> list[str]:
    session = session_after("x = tensor(1., requires_grad=True)\n" + program)
    drawn = assert_graph_matches(session, name)
    return [re.sub(r"  .*", "", line) for line in graph_text(drawn).splitlines()[2:]]  # the nodes' names


@pytest.mark.parametrize("program, lines", [
    # a run shorter than MIN_RUN is drawn node by node
    ("y = x.exp().exp().exp().detach_().requires_grad_().exp()", ["ExpBackward0", "AccumulateGrad"]),
    ("y = (x * 2 * 2).sum()", ["SumBackward0", "MulBackward0", "MulBackward0", "AccumulateGrad"]),
    ("y = (x * 2 * 2 * 2).sum()", ["SumBackward0", "MulBackward0 ×3", "AccumulateGrad"]),
    # a session's name in the middle of the chain splits it
    ("a = x * 2 * 2 * 2 * 2\nb = a * 2 * 2 * 2 * 2\ny = b.sum()",
     ["SumBackward0", "MulBackward0", "MulBackward0 ×3", "MulBackward0", "MulBackward0 ×3", "AccumulateGrad"]),
    ("y = x * 2 * 2 * 2 * 2 * 2", ["MulBackward0", "MulBackward0 ×4", "AccumulateGrad"]),
    # so do a retained grad and a hook, on a tensor the session has no name for
    ("kept = [x * 2 * 2]; kept[0].retain_grad(); y = kept[0] * 2 * 2", ["MulBackward0"] * 4 + ["AccumulateGrad"]),
    ("kept = [x * 2 * 2]; h = kept[0].register_hook(lambda g: g); y = kept[0] * 2 * 2",
     ["MulBackward0"] * 4 + ["AccumulateGrad"]),
    ("kept = [x * 2 * 2]; y = kept[0] * 2 * 2", ["MulBackward0", "MulBackward0 ×3", "AccumulateGrad"]),
    # different saved values are different lines: not a run, until backward frees them
    ("y = x.exp().exp().exp().exp()", ["ExpBackward0"] * 4 + ["AccumulateGrad"]),
    ("y = x.exp().exp().exp().exp(); y.backward()", ["ExpBackward0", "ExpBackward0 ×3", "AccumulateGrad"]),
    # alternating nodes are not a run of identical ones
    ("y = x\nfor i in range(3):\n    y = y * 2 + 1", ["AddBackward0", "MulBackward0"] * 3 + ["AccumulateGrad"]),
])
def test_only_runs_of_identical_unmarked_nodes_collapse(program: str, lines: list) -> None:
    assert chain_lines(program) == lines


def test_a_run_stops_at_a_shared_node_and_at_a_fork() -> None:
    session = session_after("x = tensor(1., requires_grad=True)\ns = x * 3\n"
                            "y = (s * 2 * 2 * 2) + (s * 2 * 2 * 2 * 2)")
    text = graph_text(assert_graph_matches(session, "y"))
    assert text.splitlines()[2:] == [
        "AddBackward0  grad_fn of y  saved: alpha=1",
        "├─ MulBackward0 ×3  +1 None  saved: other=tensor(2), self=None",
        "│  MulBackward0 #1  +1 None  grad_fn of s  saved: other=tensor(3), self=None",
        "│  AccumulateGrad  x [] float32, grad=None",
        "└─ MulBackward0 ×4  +1 None  saved: other=tensor(2), self=None",
        "   MulBackward0 #1  (drawn above)",
    ]


def test_a_big_graph_is_cut_and_summarised() -> None:
    session = session_after("x = tensor([1., 2.], requires_grad=True)\ny = x\n"
                            "for i in range(5_000):\n    y = y * 1.0001 + 1\n")
    drawn = graph.collect(session.namespace["y"], "y", session.namespace)
    assert len(drawn.nodes) == 10_001
    text = graph_text(drawn)
    lines = text.splitlines()
    assert len(lines) < graph.MAX_SHOWN + 12
    assert lines[1] == "10,001 nodes, 1 leaf"
    hidden = 10_001 - graph.MAX_SHOWN
    assert f"{hidden:,} more nodes not drawn: AddBackward0 ×{hidden // 2:,}, MulBackward0 ×{hidden // 2:,}, " \
           "AccumulateGrad ×1" in text
    assert re.search(r"leaves reached \(1\):\n  AccumulateGrad  x \[2\] float32, grad=None", text)
    # a chain stays a column: no line is indented
    assert all(not line.startswith(" ") for line in lines[2:graph.MAX_SHOWN + 2])


def test_a_collapsed_run_counts_as_one_line_towards_the_cut() -> None:
    session = session_after("x = tensor(1., requires_grad=True)\ny = x\n"
                            "for i in range(5_000):\n    y = y * 2 + 1\n"
                            "for i in range(10_000):\n    y = y * 3\n")
    lines = graph_text(graph.collect(session.namespace["y"], "y", session.namespace)).splitlines()
    assert lines[1] == "20,001 nodes, 1 leaf"
    assert lines[3].startswith("MulBackward0 ×9,999  +1 None") and lines[4].startswith("AddBackward0  +1 None")
    assert len(lines) == 2 + graph.MAX_SHOWN + 1 + 3  # title, count; the lines drawn, `...`; the summary
    assert lines[2 + graph.MAX_SHOWN] == "..."
    drawn = 1 + 9_999 + graph.MAX_SHOWN - 2
    assert lines[-3] == f"{20_001 - drawn:,} more nodes not drawn: AddBackward0 ×4,976, MulBackward0 ×4,976, " \
                        "AccumulateGrad ×1"


def test_saved_values_and_what_backward_freed() -> None:
    """A node's `_saved_*` attributes, read as the program reads them: a value, or freed."""

    class SavingNode(Node):
        __slots__ = ("freed",)

        @property
        def _saved_self(self) -> Any:
            if self.freed:
                raise RuntimeError(FREED_MESSAGE)
            return session.namespace["x"]

        @property
        def _saved_exponent(self) -> Any:
            return 2

    session = session_after("x = tensor([1., 2.], requires_grad=True)")
    node = SavingNode(((session.namespace["x"]._grad_accumulator(), 0),))
    node.freed = False
    drawn = graph.collect(node, "node", session.namespace)
    assert drawn.nodes[0].saved == [("self", "x"), ("exponent", "2")]
    node.freed = True
    drawn = graph.collect(node, "node", session.namespace)
    assert drawn.nodes[0].saved == [("self", graph.FREED), ("exponent", "2")]
    assert "saved: self=freed by backward, exponent=2" in graph_text(drawn)


def test_saved_values_of_pytorchs_nodes_as_far_as_they_are_exposed() -> None:
    session = session_after("x = tensor([1., 2.], requires_grad=True); y = (x ** 2).sum()")
    drawn = graph.collect(session.namespace["y"], "y", session.namespace)
    for shown, node in zip(drawn.nodes, reference_walk(session.namespace["y"].grad_fn)):
        expected = [name[len("_saved_"):] for cls in reversed(type(node).__mro__) for name in vars(cls)
                    if name.startswith("_saved_")]
        assert [name for name, _ in shown.saved] == list(dict.fromkeys(expected))
    assert session.run("y.backward()")
    after = graph.collect(session.namespace["y"], "y", session.namespace)
    for shown in after.nodes:
        for name, value in shown.saved:
            if value == graph.FREED:
                with pytest.raises(RuntimeError, match="backward through the graph a second time"):
                    getattr(reference_walk(session.namespace["y"].grad_fn)[after.nodes.index(shown)], "_saved_" + name)
