"""Graph pictures: symgrad.viz.mermaid and symgrad.viz.dot."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import symgrad as t
from symgrad import viz
from symgrad.autograd.naming import TensorNames

LEAF = "    classDef leaf fill:#dbeafe,stroke:#2563eb"
OP = "    classDef op fill:#f3f4f6,stroke:#6b7280"
CONSTANT = "    classDef constant fill:#ffffff,stroke:#9ca3af,stroke-dasharray:4 2"
OUTPUT = "    classDef output fill:#d9f99d,stroke:#4d7c0f,stroke-width:2px"


def shared_graph():
    """c = a * b is used twice by d = c + c."""
    a = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = t.tensor([4.0, 5.0, 6.0], requires_grad=True)
    c = a * b
    d = c + c
    e = d.sum()
    return a, b, c, d, e


# --------------------------------------------------------------------------- mermaid parsing
_MERMAID_NODE = re.compile(r'^    (n\d+)(\["(.*)"\]|\(\["(.*)"\]\)):::(\w+)$')
_MERMAID_EDGE = re.compile(r"^    (n\d+) --> (n\d+)$")


def parse_mermaid(text):
    """(nodes: id -> (label lines, class), edges: list of (from, to)); fails on any other line."""
    lines = text.split("\n")
    assert re.fullmatch(r"flowchart (TB|BT|LR|RL)", lines[0])
    nodes, edges, classes = {}, [], set()
    for line in lines[1:]:
        if m := _MERMAID_NODE.match(line):
            label = m.group(3) if m.group(3) is not None else m.group(4)
            assert '"' not in label
            assert m.group(1) not in nodes
            nodes[m.group(1)] = (label.split("<br>"), m.group(5))
        elif m := _MERMAID_EDGE.match(line):
            edges.append((m.group(1), m.group(2)))
        else:
            m = re.match(r"^    classDef (\w+) \S.*$", line)
            assert m, f"unexpected line {line!r}"
            classes.add(m.group(1))
    assert {cls for _, cls in nodes.values()} == classes
    for a, b in edges:
        assert a in nodes and b in nodes
    return nodes, edges


# --------------------------------------------------------------------------- DOT parsing
_DOT_STRING = r'"(?:[^"\\]|\\.)*"'
_DOT_NODE = re.compile(rf"^    (n\d+) \[label=({_DOT_STRING})((?:, \w+=(?:{_DOT_STRING}|\w+))*)\]$")
_DOT_EDGE = re.compile(r"^    (n\d+) -> (n\d+)$")


def parse_dot(text):
    """A sanity check of the DOT text: the layout our renderer writes, strings closed, braces
    balanced, every edge endpoint declared. Returns (nodes: id -> label lines, edges)."""
    lines = text.split("\n")
    assert lines[0] == "digraph {" and lines[-1] == "}"
    assert re.fullmatch(r"    rankdir=(TB|BT|LR|RL)", lines[1])
    assert lines[2].startswith("    node [") and lines[2].endswith("]")
    outside = re.sub(_DOT_STRING, "", text)
    assert '"' not in outside  # every string closed
    assert outside.count("{") == outside.count("}") == 1
    assert outside.count("[") == outside.count("]")
    nodes, edges = {}, []
    for line in lines[3:-1]:
        if m := _DOT_NODE.match(line):
            assert m.group(1) not in nodes
            nodes[m.group(1)] = _dot_lines(m.group(2)[1:-1])
        elif m := _DOT_EDGE.match(line):
            edges.append((m.group(1), m.group(2)))
        else:
            raise AssertionError(f"unexpected line {line!r}")
    for a, b in edges:
        assert a in nodes and b in nodes
    return nodes, edges


def _dot_lines(label):
    """The lines of a DOT label: ``\\n`` separates them, ``\\x`` stands for ``x``."""
    lines, current = [], ""
    for escape, char in re.findall(r"\\(.)|([^\\])", label):
        if escape == "n":
            lines.append(current)
            current = ""
        else:
            current += escape or char
    return [*lines, current]


def all_nodes(root):
    """The nodes reachable through next_functions, each once (kept alive in the list, so
    that a leaf's AccumulateGrad stays the same object)."""
    seen, stack, out = set(), [root], []
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            out.append(node)
            stack += [fn for fn, _ in node.next_functions if fn is not None]
    return out


# --------------------------------------------------------------------------- exact texts
def test_forward_mermaid_of_a_shared_node():
    a, b, c, d, e = shared_graph()
    expected = "\n".join([
        "flowchart TB",
        '    n0(["a<br>(3,)"]):::leaf',
        '    n1(["b<br>(3,)"]):::leaf',
        '    n2["c = mul<br>(3,)"]:::op',
        '    n3["d = add<br>(3,)"]:::op',
        '    n4["e = sum<br>()"]:::output',
        "    n0 --> n2",
        "    n1 --> n2",
        "    n2 --> n3",  # c is one node: one arrow per input of c + c
        "    n2 --> n3",
        "    n3 --> n4",
        OP, LEAF, OUTPUT,
    ])
    assert viz.mermaid(e) == expected
    nodes, edges = parse_mermaid(viz.mermaid(e))
    assert len(nodes) == 5 and len(edges) == 5
    assert edges.count(("n2", "n3")) == 2


def test_forward_dot_of_a_shared_node():
    a, b, c, d, e = shared_graph()
    expected = "\n".join([
        "digraph {",
        "    rankdir=TB",
        '    node [shape=box, style="filled,rounded", fontname="Helvetica", fontsize=11]',
        '    n0 [label="a\\n(3,)", shape=ellipse, fillcolor="#dbeafe", color="#2563eb"]',
        '    n1 [label="b\\n(3,)", shape=ellipse, fillcolor="#dbeafe", color="#2563eb"]',
        '    n2 [label="c = mul\\n(3,)", fillcolor="#f3f4f6", color="#6b7280"]',
        '    n3 [label="d = add\\n(3,)", fillcolor="#f3f4f6", color="#6b7280"]',
        '    n4 [label="e = sum\\n()", fillcolor="#d9f99d", color="#4d7c0f", penwidth=2]',
        "    n0 -> n2",
        "    n1 -> n2",
        "    n2 -> n3",
        "    n2 -> n3",
        "    n3 -> n4",
        "}",
    ])
    assert viz.dot(e) == expected
    nodes, edges = parse_dot(expected)
    assert len(nodes) == 5 and len(edges) == 5


def test_backward_mermaid_of_a_shared_node():
    a, b, c, d, e = shared_graph()
    expected = "\n".join([
        "flowchart TB",
        '    n0(["AccumulateGrad<br>a (3,)"]):::leaf',
        '    n1(["AccumulateGrad<br>b (3,)"]):::leaf',
        '    n2["MulBackward0"]:::op',
        '    n3["AddBackward0"]:::op',
        '    n4["SumBackward0"]:::output',
        "    n0 --> n2",
        "    n1 --> n2",
        "    n2 --> n3",  # AddBackward0.next_functions lists MulBackward0 twice, as PyTorch
        "    n2 --> n3",
        "    n3 --> n4",
        OP, LEAF, OUTPUT,
    ])
    assert viz.mermaid(e, backward=True) == expected
    assert [fn.name() for fn, _ in e.grad_fn.next_functions[0][0].next_functions] == [
        "MulBackward0", "MulBackward0"]


def test_backward_dot_of_a_shared_node():
    a, b, c, d, e = shared_graph()
    nodes, edges = parse_dot(viz.dot(e, backward=True))
    assert nodes == {"n0": ["AccumulateGrad", "a (3,)"], "n1": ["AccumulateGrad", "b (3,)"],
                     "n2": ["MulBackward0"], "n3": ["AddBackward0"], "n4": ["SumBackward0"]}
    assert edges == [("n0", "n2"), ("n1", "n2"), ("n2", "n3"), ("n2", "n3"), ("n3", "n4")]


def test_a_value_used_by_two_ops_is_one_node_with_two_arrows():
    x = t.tensor([0.5, 1.5], requires_grad=True)
    s = x.sin()
    y = (s * s.exp() + s).sum()
    nodes, edges = parse_mermaid(viz.mermaid(y))
    [sin] = [k for k, (label, _) in nodes.items() if label[0] == "s = sin"]
    targets = sorted(nodes[b][0][0] for a, b in edges if a == sin)
    assert targets == ["add", "exp", "mul"]
    [leaf] = [k for k, (_, cls) in nodes.items() if cls == "leaf"]
    assert [b for a, b in edges if a == leaf] == [sin]


def test_backward_names_are_the_grad_fn_names():
    x = t.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    w = t.tensor([1.0, 2.0], requires_grad=True)
    y = ((x @ w).tanh() - x.sum(0) / 3).relu().mean()
    nodes, edges = parse_dot(viz.dot(y, backward=True))
    reachable = all_nodes(y.grad_fn)
    labels = sorted(label[0] for label in nodes.values())
    assert labels == sorted(type(n).__name__ for n in reachable)
    assert sum(type(n).__name__ == "AccumulateGrad" for n in reachable) == 2
    # one arrow per non-None entry of each node's next_functions
    assert len(edges) == sum(f is not None for n in reachable for f, _ in n.next_functions)


# --------------------------------------------------------------------------- names
def test_leaf_names_from_name_variables_and_numbering():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    w = t.tensor([3.0, 4.0], requires_grad=True, name="weight")  # name= wins over w
    y = (a * w * t.ones(2, requires_grad=True) + t.ones(2, requires_grad=True)).sum()
    nodes, _ = parse_mermaid(viz.mermaid(y))
    leaves = [label for label, cls in nodes.values() if cls == "leaf"]
    assert leaves == [["a", "(2,)"], ["weight", "(2,)"], ["x0", "(2,)"], ["x1", "(2,)"]]


def test_leaf_names_are_those_of_lowering():
    x0 = t.tensor(1.0, requires_grad=True)  # takes the fallback name x0: the others skip it
    q = t.tensor([1.0, 2.0], requires_grad=True, name="q")
    y = (x0 * q * t.ones(2, requires_grad=True) * t.ones(2, requires_grad=True, name="q")).sum()
    nodes, _ = parse_mermaid(viz.mermaid(y))
    leaves = [label[0] for label, cls in nodes.values() if cls == "leaf"]
    assert leaves == ["x0", "q", "x1", "x2"]
    assert leaves == [s.name for s in t.symbolic.lower(y).sources]


def test_tensor_names_skip_variable_names():
    taken = t.ones(1)
    names = TensorNames({id(taken): "x0"})
    assert names(t.ones(1), "x") == "x1"
    assert names(taken, "x") == "x0"
    assert names(t.ones(1, name="x0"), "x") == "x2"  # x0 already given out


def test_constants_and_number_operands():
    x = t.tensor([1.0, -2.0], requires_grad=True)
    k = t.tensor([0.5, 0.5])
    y = ((x - k) * 2 + (3.5 - x) + t.zeros(2)).sum()
    nodes, edges = parse_mermaid(viz.mermaid(y))
    labels = {k: (label[0], cls) for k, (label, cls) in nodes.items()}
    assert sorted(v for v in labels.values() if v[1] == "constant") == [
        ("const", "constant"), ("k", "constant")]
    ops = sorted(v[0] for v in labels.values() if v[1] in ("op", "output"))
    assert ops == ["add", "add", "mul(·, 2)", "rsub(other=3.5)", "sub", "y = sum"]
    # no node and no arrow for the numbers 2 and 3.5
    assert len(nodes) == 9 and len(edges) == 9


def test_in_place_op_takes_the_variable_name():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.add_(1)
    z = y.sum()
    nodes, _ = parse_mermaid(viz.mermaid(z))
    ops = [label[0] for label, cls in nodes.values() if cls != "leaf"]
    assert ops == ["mul(·, 2)", "y = add(·, 1)", "z = sum"]  # y is the output of add_ now


# --------------------------------------------------------------------------- custom Functions
class MySquare(t.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


class Split(t.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, (x * 3)[:1]

    @staticmethod
    def backward(ctx, g1, g2):
        return g1 * 2 + t.cat([g2 * 3, t.zeros(1)])


def test_custom_function_names():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = MySquare.apply(x).sum()
    assert parse_dot(viz.dot(y))[0] == {"n0": ["x", "(2,)"], "n1": ["MySquare", "(2,)"],
                                        "n2": ["y = sum", "()"]}
    assert parse_dot(viz.dot(y, backward=True))[0] == {
        "n0": ["AccumulateGrad", "x (2,)"], "n1": ["MySquareBackward"], "n2": ["SumBackward0"]}
    assert y.grad_fn.next_functions[0][0].name() == "MySquareBackward"


def test_function_with_two_outputs_is_one_backward_node():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    p, q = Split.apply(x)
    y = (p * q).sum()
    nodes, edges = parse_mermaid(viz.mermaid(y, backward=True))
    assert [label for label, _ in nodes.values()] == [
        ["AccumulateGrad", "x (2,)"], ["SplitBackward"], ["MulBackward0"], ["SumBackward0"]]
    assert edges == [("n0", "n1"), ("n1", "n2"), ("n1", "n2"), ("n2", "n3")]
    nodes, edges = parse_mermaid(viz.mermaid(y))
    assert [label for label, _ in nodes.values()] == [
        ["x", "(2,)"], ["Split", "(2,), (1,)"], ["p = Split[0]", "(2,)"],
        ["q = Split[1]", "(1,)"], ["mul", "(2,)"], ["y = sum", "()"]]
    assert edges == [("n0", "n1"), ("n1", "n2"), ("n1", "n3"), ("n2", "n4"), ("n3", "n4"),
                     ("n4", "n5")]


# --------------------------------------------------------------------------- options and edges
def test_show_attrs_and_direction():
    x = t.ones(2, 3, requires_grad=True)
    y = x.sum(0)
    assert parse_mermaid(viz.mermaid(y, show_attrs=True))[0]["n1"][0] == [
        "y = sum(dim=(0,), keepdim=False)", "(3,)"]
    assert parse_mermaid(viz.mermaid(y))[0]["n1"][0] == ["y = sum", "(3,)"]
    assert parse_dot(viz.dot(y, backward=True, show_attrs=True))[0]["n1"] == [
        "SumBackward1", "dim=(0,), keepdim=False"]
    assert viz.mermaid(y, direction="LR").startswith("flowchart LR\n")
    assert "\n    rankdir=BT\n" in viz.dot(y, direction="BT")
    with pytest.raises(ValueError, match="direction must be one of 'TB', 'BT', 'LR', 'RL'"):
        viz.mermaid(y, direction="down")


def test_tensors_without_a_graph():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    c = t.tensor([1.0, 2.0])
    assert viz.mermaid(x) == "\n".join(['flowchart TB', '    n0(["x<br>(2,)"]):::output',
                                        OUTPUT])
    assert parse_mermaid(viz.mermaid(x, backward=True))[0] == {
        "n0": (["AccumulateGrad", "x (2,)"], "output")}
    for backward in (False, True):
        assert parse_dot(viz.dot(c, backward))[0] == {"n0": ["c", "(2,)"]}
        assert parse_dot(viz.dot(t.zeros(()), backward))[0] == {"n0": ["const", "()"]}


def test_wrong_input_type():
    with pytest.raises(TypeError, match="^mermaid\\(\\) expects a Tensor, but got list$"):
        viz.mermaid([1.0])
    with pytest.raises(TypeError, match="^dot\\(\\) expects a Tensor, but got float$"):
        viz.dot(1.0)


def test_escaping():
    x = t.tensor(1.0, requires_grad=True, name='a "b" <c> & #d\\n\n`e`')
    y = x.exp()
    nodes, _ = parse_mermaid(viz.mermaid(y))
    assert nodes["n0"][0] == ["a #34;b#34; #60;c#62; #38; #35;d\\n #96;e#96;", "()"]
    nodes, _ = parse_dot(viz.dot(y))
    assert nodes["n0"] == ['a "b" <c> & #d\\n `e`', "()"]


def test_where_condition_is_a_constant_forward_and_absent_backward():
    x = t.tensor([-1.0, 2.0], requires_grad=True)
    y = t.where(t.tensor([True, False]), x, 0.0)
    nodes, edges = parse_mermaid(viz.mermaid(y))
    assert [(label[0], cls) for label, cls in nodes.values()] == [
        ("const", "constant"), ("x", "leaf"), ("y = where(·, ·, 0.0)", "output")]
    assert len(edges) == 2
    nodes, edges = parse_mermaid(viz.mermaid(y, backward=True))
    assert len(nodes) == 2 and edges == [("n0", "n1")]


def test_a_mask_compared_from_graph_values_is_drawn_with_its_operands():
    # x > 0 records no gradient, but lowering reads it as the condition x > 0: the forward
    # picture shows where it comes from (a dashed mask box); the backward one has no such node
    x = t.tensor([-1.0, 2.0], requires_grad=True)
    w = t.tensor([1.0, 1.0], requires_grad=True)  # a graph value too, used only in the mask
    m = (x.exp() > 1) & ~(w < 0)
    y = t.where(m, x, 0.0)
    nodes, edges = parse_mermaid(viz.mermaid(y))
    labels = {key: (label[0], cls) for key, (label, cls) in nodes.items()}
    by_label = {label: key for key, (label, _) in labels.items()}
    assert labels[by_label["gt(·, 1)"]][1] == "mask"
    assert (by_label["exp"], by_label["gt(·, 1)"]) in edges
    assert (by_label["w"], by_label["lt(·, 0)"]) in edges
    assert (by_label["lt(·, 0)"], by_label["not"]) in edges
    assert {(by_label["gt(·, 1)"], by_label["and"]), (by_label["not"], by_label["and"]),
            (by_label["and"], by_label["y = where(·, ·, 0.0)"])} <= set(edges)
    # the exp node feeds only the mask, and appears once
    assert sum(label == "exp" for label, _ in labels.values()) == 1
    nodes, edges = parse_mermaid(viz.mermaid(y, backward=True))
    assert [label[0] for label, _ in nodes.values()] == ["AccumulateGrad", "WhereBackward0"]
    # a mask of constants is a constant
    c = t.where(~(t.tensor([1.0, -1.0]) < 0), x, 0.0)
    nodes, _ = parse_mermaid(viz.mermaid(c))
    assert [cls for _, cls in nodes.values()].count("constant") == 1


def test_same_text_after_backward_and_on_every_call():
    a, b, c, d, e = shared_graph()
    before = [viz.mermaid(e), viz.dot(e), viz.mermaid(e, backward=True)]
    assert before == [viz.mermaid(e), viz.dot(e), viz.mermaid(e, backward=True)]
    e.backward()  # frees the saved values
    assert [viz.mermaid(e), viz.dot(e), viz.mermaid(e, backward=True)] == before


def test_same_text_in_a_fresh_interpreter():
    code = ("import symgrad as t\n"
            "a = t.tensor([1.0, 2.0], requires_grad=True)\n"
            "y = (a * a.exp()).sum()\n"
            "print(t.viz.mermaid(y))\n")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout for _ in range(2)]
    assert runs[0] == runs[1] and runs[0].startswith("flowchart TB\n")


def test_long_chain_without_recursion():
    x = t.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(5000):
        y = y.sin()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)  # a recursive walk would fail here
    try:
        text = viz.mermaid(y)
        back = viz.dot(y, backward=True)
    finally:
        sys.setrecursionlimit(limit)
    nodes, edges = parse_mermaid(text)
    assert len(nodes) == 5001 and len(edges) == 5000
    assert nodes["n0"] == (["x", "(1,)"], "leaf")
    assert nodes["n5000"] == (["y = sin", "(1,)"], "output")
    assert edges == [(f"n{k}", f"n{k + 1}") for k in range(5000)]
    nodes, edges = parse_dot(back)
    assert len(nodes) == 5001 and len(edges) == 5000
    assert nodes["n4999"] == ["SinBackward0"]
