"""Pictures of a recorded graph: Mermaid text (for the docs site) and Graphviz DOT text.

Two views of the graph behind a tensor:

* the forward picture (``backward=False``): one box per recorded op, labelled with the op's name
  and output shape (``mul`` / ``(3,)``), prefixed by the variable that holds its output when the
  calling code has one (``c = mul``); Python-number operands and scalar params are written into
  the label (``mul(·, 2)``, ``rsub(other=2.5)``). Leaves that require grad are ovals
  named as :func:`symgrad.symbolic.lower` names their symbols (the tensor's ``name``, else its
  variable in the calling code, else ``x0``, ``x1`` ...); constant tensors are dashed ovals
  (their name if they have one, else ``const``).
* the backward picture (``backward=True``): the nodes ``backward()`` walks, as PyTorch names them
  (``MulBackward0``, ``MySquareBackward`` for a custom Function), one ``AccumulateGrad`` per leaf
  labelled with the leaf's name and shape. A custom Function with several outputs is one node,
  as in PyTorch.

In both, arrows point the way values flowed forward, from an input to the op that used it (in
the backward picture: from each of a node's ``next_functions`` to the node, as torchviz draws
them); gradients flow against the arrows. A value used by several ops is one box with an arrow
to each of them, and an op that uses one value twice (``c + c``) gets two arrows from it, one per
input. The output is highlighted. Node ids ``n0``, ``n1`` ... follow a topological order, inputs
before the ops that use them, so the same graph always gives the same text.

A tensor without a graph is a single box: a leaf, or a constant when it does not require grad
(as torchviz draws it). The walk is iterative (a graph of any depth), reads only the graph's
structure and the tensors' shapes (so it works after a backward freed the graph) and imports
no sympy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from symgrad.autograd.function import _output_op
from symgrad.autograd.graph import AccumulateGrad, Node
from symgrad.autograd.naming import (
    TensorNames,
    caller_names,
    mask_operands,
    mask_producers,
    topological,
)
from symgrad.tensor import Tensor

__all__ = ["dot", "mermaid"]

DIRECTIONS = ("TB", "BT", "LR", "RL")
_BOXES = ("op", "mask")  # drawn as boxes; leaves and constants as rounded pills

# kind -> (fill, stroke, extra Mermaid style, extra DOT attributes)
_STYLES = {
    "op": ("#f3f4f6", "#6b7280", "", ""),
    "leaf": ("#dbeafe", "#2563eb", "", ""),
    "constant": ("#ffffff", "#9ca3af", ",stroke-dasharray:4 2", ', style="filled,dashed"'),
    "mask": ("#fef3c7", "#b45309", ",stroke-dasharray:4 2", ', style="filled,dashed"'),
    "output": ("#d9f99d", "#4d7c0f", ",stroke-width:2px", ", penwidth=2"),
}


@dataclass
class _Picture:
    """The boxes (kind and label lines, by id) and arrows ``(from, to)`` of one picture."""

    kinds: list[str] = field(default_factory=list)
    labels: list[list[str]] = field(default_factory=list)
    edges: list[tuple[int, int]] = field(default_factory=list)
    output: int = -1
    ids: dict[Any, int] = field(default_factory=dict)  # (kind, id(object)) -> box id

    def box(self, key: Any, kind: str, lines: list[str]) -> int:
        self.ids[key] = len(self.kinds)
        self.kinds.append(kind)
        self.labels.append(lines)
        return self.ids[key]


def mermaid(output: Tensor, backward: bool = False, *, direction: str = "TB",
            show_attrs: bool = False) -> str:
    """The graph recorded for ``output`` as a Mermaid flowchart (see the module docstring).

    ``direction`` is the flow of the arrows: ``'TB'`` (top to bottom), ``'BT'``, ``'LR'`` or
    ``'RL'``; ``show_attrs`` adds each op's parameters (``sum(dim=(0,), keepdim=False)``).
    Mermaid itself draws at most 500 arrows unless its ``maxEdges`` setting is raised: use
    :func:`dot` for large graphs.

    >>> a = symgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> b = symgrad.tensor([4.0, 5.0, 6.0], requires_grad=True)
    >>> y = (a * b).sum()
    >>> print(symgrad.viz.mermaid(y))
    flowchart TB
        n0(["a<br>(3,)"]):::leaf
        n1(["b<br>(3,)"]):::leaf
        n2["mul<br>(3,)"]:::op
        n3["y = sum<br>()"]:::output
        n0 --> n2
        n1 --> n2
        n2 --> n3
        classDef op fill:#f3f4f6,stroke:#6b7280
        classDef leaf fill:#dbeafe,stroke:#2563eb
        classDef output fill:#d9f99d,stroke:#4d7c0f,stroke-width:2px
    >>> print(symgrad.viz.mermaid(y, backward=True))
    flowchart TB
        n0(["AccumulateGrad<br>a (3,)"]):::leaf
        n1(["AccumulateGrad<br>b (3,)"]):::leaf
        n2["MulBackward0"]:::op
        n3["SumBackward0"]:::output
        n0 --> n2
        n1 --> n2
        n2 --> n3
        classDef op fill:#f3f4f6,stroke:#6b7280
        classDef leaf fill:#dbeafe,stroke:#2563eb
        classDef output fill:#d9f99d,stroke:#4d7c0f,stroke-width:2px
    """
    picture = _draw(output, backward, direction, show_attrs, "mermaid", caller_names())
    lines = [f"flowchart {direction}"]
    for k, (kind, label) in enumerate(zip(picture.kinds, picture.labels, strict=True)):
        text = "<br>".join(_mermaid_text(line) for line in label)
        shape = f'["{text}"]' if kind in _BOXES else f'(["{text}"])'
        lines.append(f"    n{k}{shape}:::{_style_of(picture, k)}")
    lines += [f"    n{a} --> n{b}" for a, b in picture.edges]
    for kind in _used_styles(picture):
        fill, stroke, extra, _ = _STYLES[kind]
        lines.append(f"    classDef {kind} fill:{fill},stroke:{stroke}{extra}")
    return "\n".join(lines)


def dot(output: Tensor, backward: bool = False, *, direction: str = "TB",
        show_attrs: bool = False) -> str:
    """The graph recorded for ``output`` as Graphviz DOT text (see the module docstring); the
    options are those of :func:`mermaid`. Render it with ``dot -Tsvg`` or any DOT viewer.

    >>> x = symgrad.tensor(2.0, requires_grad=True)
    >>> print(symgrad.viz.dot(x.tanh(), backward=True))
    digraph {
        rankdir=TB
        node [shape=box, style="filled,rounded", fontname="Helvetica", fontsize=11]
        n0 [label="AccumulateGrad\\nx ()", shape=ellipse, fillcolor="#dbeafe", color="#2563eb"]
        n1 [label="TanhBackward0", fillcolor="#d9f99d", color="#4d7c0f", penwidth=2]
        n0 -> n1
    }
    """
    picture = _draw(output, backward, direction, show_attrs, "dot", caller_names())
    lines = ["digraph {", f"    rankdir={direction}",
             '    node [shape=box, style="filled,rounded", fontname="Helvetica", fontsize=11]']
    for k, (kind, label) in enumerate(zip(picture.kinds, picture.labels, strict=True)):
        text = "\\n".join(_dot_text(line) for line in label)
        fill, stroke, _, extra = _STYLES[_style_of(picture, k)]
        shape = "" if kind in _BOXES else ", shape=ellipse"
        lines.append(f'    n{k} [label="{text}"{shape}, fillcolor="{fill}", color="{stroke}"'
                     f"{extra}]")
    lines += [f"    n{a} -> n{b}" for a, b in picture.edges]
    lines.append("}")
    return "\n".join(lines)


def _draw(output: Any, backward: bool, direction: str, show_attrs: bool, caller: str,
          names: dict[int, str]) -> _Picture:
    if not isinstance(output, Tensor):
        raise TypeError(f"{caller}() expects a Tensor, but got {type(output).__name__}")
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(map(repr, DIRECTIONS))}, "
                         f"got {direction!r}")
    names_of = TensorNames(names)
    picture = _Picture()
    root = output.grad_fn
    if root is None:
        if not output.requires_grad:
            picture.output = _constant(picture, names_of, output)
        elif backward:
            picture.output = _accumulator(picture, names_of, output)
        else:
            picture.output = _leaf(picture, names_of, output)
    elif backward:
        _backward(picture, names_of, root, show_attrs)
    else:
        _forward(picture, names_of, output, show_attrs)
    return picture


def _forward(picture: _Picture, names: TensorNames, output: Tensor, show_attrs: bool) -> None:
    root = output.grad_fn
    order = topological(root, mask_producers)
    # each node's output tensor, as its consumers hold it: its shape, and its variable's name
    # (only when that tensor's grad_fn is still this node, i.e. no in-place op changed it)
    held: dict[Node, Tensor] = {root: output}
    for node in order:
        uses = list(zip(node.next, node.inputs, strict=True))
        uses += [(producer, operand) for operand, producer in mask_operands(node)]
        for edge, raw in uses:
            if isinstance(edge, Node):
                known = held.get(edge)
                if known is None or (known.grad_fn is not edge and raw.grad_fn is edge):
                    held[edge] = raw
    for node in order:
        sources = []
        for edge, raw in zip(node.next, node.inputs, strict=True):
            if isinstance(edge, Node):
                sources.append(picture.ids[("node", id(edge))])
            elif isinstance(edge, Tensor):  # a leaf that requires grad
                sources.append(_leaf(picture, names, edge))
            elif isinstance(raw, Tensor) and raw._recipe is not None:
                sources.append(_mask(picture, names, raw))
            elif isinstance(raw, Tensor):
                sources.append(_constant(picture, names, raw))
        tensor = held[node]
        call = _call(node, show_attrs)
        name = names.known(tensor) if tensor.grad_fn is node else None
        layout = (node.params or {}).get("layout") if _is_function(node) else None
        # a Function with several outputs computes their concatenation: show their shapes
        shape = _shape(tensor) if layout is None else ", ".join(
            str(tuple(piece[2])) for piece in layout)
        box = picture.box(("node", id(node)), "op",
                          [call if name is None else f"{name} = {call}", shape])
        picture.edges += [(source, box) for source in sources]
    picture.output = picture.ids[("node", id(root))]


def _backward(picture: _Picture, names: TensorNames, root: Node, show_attrs: bool) -> None:
    for node in topological(root):
        if node.op is _output_op:  # one output of a multi-output Function: drawn as the Function
            continue
        sources = []
        for function, _ in node.next_functions:
            if isinstance(function, AccumulateGrad):
                sources.append(_accumulator(picture, names, function.variable))
            elif function is not None:
                sources.append(picture.ids[("node", id(_whole(function)))])
        label = [node.name()]
        attrs = _arguments(node) if show_attrs else []
        if attrs:
            label.append(", ".join(attrs))
        box = picture.box(("node", id(node)), "op", label)
        picture.edges += [(source, box) for source in sources]
    picture.output = picture.ids[("node", id(_whole(root)))]


def _whole(node: Node) -> Node:
    """The node PyTorch shows for ``node``: a multi-output Function's node for one output."""
    return node.next[0] if node.op is _output_op else node


def _leaf(picture: _Picture, names: TensorNames, tensor: Tensor) -> int:
    key = ("leaf", id(tensor))
    if key in picture.ids:
        return picture.ids[key]
    return picture.box(key, "leaf", [names(tensor, "x"), _shape(tensor)])


def _accumulator(picture: _Picture, names: TensorNames, tensor: Tensor) -> int:
    key = ("leaf", id(tensor))
    if key in picture.ids:
        return picture.ids[key]
    return picture.box(key, "leaf", ["AccumulateGrad", f"{names(tensor, 'x')} {_shape(tensor)}"])


# the numpy functions of Tensor._recipe as PyTorch spells them
_MASK_OPS = {"equal": "eq", "not_equal": "ne", "less": "lt", "less_equal": "le",
             "greater": "gt", "greater_equal": "ge", "bitwise_and": "and", "bitwise_or": "or",
             "bitwise_xor": "xor", "invert": "not"}


def _mask(picture: _Picture, names: TensorNames, tensor: Tensor) -> int:
    """A mask compared from graph values: a dashed box for the comparison, fed by its
    operands (it records no gradient; lowering reads it as a condition)."""
    key = ("mask", id(tensor))
    if key in picture.ids:
        return picture.ids[key]
    function, operands = tensor._recipe
    sources, args = [], []
    for operand, producer in operands:
        if not isinstance(operand, Tensor):
            args.append(_format(operand))
            continue
        args.append("·")
        if operand._recipe is not None:
            sources.append(_mask(picture, names, operand))
        elif producer is not None:
            sources.append(picture.ids[("node", id(producer))])
        elif operand.requires_grad:
            sources.append(_leaf(picture, names, operand))
        else:
            sources.append(_constant(picture, names, operand))
    call = _MASK_OPS[function]
    label = f"{call}({', '.join(args)})" if any(a != "·" for a in args) else call
    box = picture.box(key, "mask", [label, _shape(tensor)])
    picture.edges += [(source, box) for source in sources]
    return box


def _constant(picture: _Picture, names: TensorNames, tensor: Tensor) -> int:
    key = ("constant", id(tensor))
    if key in picture.ids:
        return picture.ids[key]
    return picture.box(key, "constant", [names.known(tensor) or "const", _shape(tensor)])


def _shape(tensor: Tensor) -> str:
    return str(tuple(tensor.shape))


def _call(node: Node, show_attrs: bool) -> str:
    """The forward op of ``node`` as a label: its name, with its number operands and scalar
    params (and, with ``show_attrs``, its other params) as arguments."""
    function = getattr(type(node), "_forward_cls", None)
    if function is not None:  # a custom Function: its class, or one of its outputs
        if node.op is not _output_op:
            return function.__name__
        starts = [piece[0] for piece in node.next[0].params["layout"]]
        return f"{function.__name__}[{starts.index(node.params['start'])}]"
    args = []
    if any(not isinstance(raw, Tensor) for raw in node.inputs):
        args = ["·" if isinstance(raw, Tensor) else _format(raw) for raw in node.inputs]
    args += _arguments(node, only_scalars=not show_attrs)
    return f"{node.op.name}({', '.join(args)})" if args else node.op.name


def _arguments(node: Node, only_scalars: bool = False) -> list[str]:
    """``key=value`` for the params of ``node`` that read as Python literals (not a custom
    Function's internals): its scalar params only, or all of them."""
    if _is_function(node):
        return []
    scalars = node.op.scalar_params
    return [f"{key}={_format(value)}" for key, value in (node.params or {}).items()
            if (key in scalars or not only_scalars) and _literal(value)]


def _is_function(node: Node) -> bool:
    """Whether ``node`` records a custom Function (or one of its outputs)."""
    return getattr(type(node), "_forward_cls", None) is not None


def _literal(value: Any) -> bool:
    if isinstance(value, tuple | list):
        return all(_literal(v) for v in value)
    return value is None or value is Ellipsis or isinstance(
        value, bool | int | float | complex | str | slice | np.generic)


def _format(value: Any) -> str:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, tuple):
        inner = ", ".join(_format(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return f"[{', '.join(_format(v) for v in value)}]"
    return "..." if value is Ellipsis else repr(value)


def _style_of(picture: _Picture, k: int) -> str:
    return "output" if k == picture.output else picture.kinds[k]


def _used_styles(picture: _Picture) -> list[str]:
    used = {_style_of(picture, k) for k in range(len(picture.kinds))}
    return [kind for kind in _STYLES if kind in used]


# Mermaid reads #code; as a character (and a label starting with ` as Markdown): write the
# characters that mean something to it or to the HTML it renders as codes.
_MERMAID = str.maketrans({"#": "#35;", '"': "#34;", "<": "#60;", ">": "#62;", "&": "#38;",
                          "`": "#96;", "\n": " ", "\r": " "})
_DOT = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": " ", "\r": " "})


def _mermaid_text(text: str) -> str:
    return text.translate(_MERMAID)


def _dot_text(text: str) -> str:
    return text.translate(_DOT)
