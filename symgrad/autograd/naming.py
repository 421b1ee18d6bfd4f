"""Reading a recorded graph outside the symbolic side: its nodes in order, and names for its
tensors as the user would call them.

:func:`topological` is the order lowering replays a graph in. For names, a tensor's ``name``
wins; else the variable that holds it in the calling code (the first frame outside symgrad);
else a fresh ``x0``, ``x1`` ... Lowering names its symbols this way and the graph pictures label
their leaves this way (in the same order), so both speak of the same ``a`` and ``x0``. Nothing
here imports sympy.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

from symgrad.autograd.graph import Node, user_frame
from symgrad.tensor import Tensor


def topological(root: Node, also: Callable[[Node], Iterable[Node]] | None = None
                ) -> list[Node]:
    """The nodes reachable from ``root`` through :attr:`Node.next`, each after all nodes that
    feed it, in a fixed order (a depth-first walk taking inputs in order; iterative).
    ``also(node)`` gives further nodes that feed ``node`` (lowering: those behind its masks).

    >>> x = symgrad.ones(2, requires_grad=True)
    >>> [n.name() for n in symgrad.autograd.naming.topological((x.exp() * 2).sum().grad_fn)]
    ['ExpBackward0', 'MulBackward0', 'SumBackward0']
    """
    order: list[Node] = []
    state: dict[Node, bool] = {}  # False: entered, True: finished
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            if not state.get(node):
                state[node] = True
                order.append(node)
            continue
        if node in state:
            continue
        state[node] = False
        stack.append((node, True))
        feeds = [e for e in node.next if isinstance(e, Node)]
        if also is not None:
            feeds += also(node)
        for edge in reversed(feeds):
            if edge not in state:
                stack.append((edge, False))
    return order


def mask_operands(node: Node) -> list[tuple[Tensor, Node]]:
    """``(operand, its grad_fn then)`` for the graph values behind the masks among ``node``'s
    inputs: a bool tensor compared from graph values remembers its operands
    (``Tensor._recipe``), and lowering and the pictures show how it was computed.

    >>> x = symgrad.ones(2, requires_grad=True)
    >>> y = symgrad.where(x.exp() > 2, x, 0.0)
    >>> [n.name() for _, n in symgrad.autograd.naming.mask_operands(y.grad_fn)]
    ['ExpBackward0']
    """
    found: list[tuple[Tensor, Node]] = []
    pending = [raw._recipe for raw in node.inputs
               if isinstance(raw, Tensor) and raw._recipe is not None]
    while pending:
        _, operands = pending.pop()
        for operand, producer in operands:
            if isinstance(operand, Tensor) and operand._recipe is not None:
                pending.append(operand._recipe)
            elif producer is not None:
                found.append((operand, producer))
    return found


def mask_producers(node: Node) -> list[Node]:
    """The nodes of :func:`mask_operands`: they feed ``node`` too (``topological``'s
    ``also``).

    >>> x = symgrad.ones(2, requires_grad=True)
    >>> y = symgrad.where(x.exp() > 2, x, 0.0)
    >>> [n.name() for n in symgrad.autograd.naming.mask_producers(y.grad_fn)]
    ['ExpBackward0']
    """
    return [producer for _, producer in mask_operands(node)]


def caller_names() -> dict[int, str]:
    """Variable names of the tensors in the first calling frame outside symgrad: id -> name
    (also the id of a tensor's grad_fn -> its name).

    >>> w = symgrad.ones(2)
    >>> symgrad.autograd.naming.caller_names()[id(w)]
    'w'
    """
    frame = user_frame()
    if frame is None:
        return {}
    try:
        names: dict[int, str] = {}
        for scope in (frame.f_globals, frame.f_locals):  # locals win over globals
            for name, value in scope.items():
                if isinstance(value, Tensor) and not name.startswith("_"):
                    names[id(value)] = name
                    if value.grad_fn is not None:  # also by its node: a node's inputs may
                        names[id(value.grad_fn)] = name  # give back a stand-in (Node.inputs)
        return names
    finally:
        del frame


class TensorNames:
    """Gives each tensor of one graph a distinct name (see the module docstring).

    >>> a = symgrad.ones(2, requires_grad=True)
    >>> names = symgrad.autograd.naming.TensorNames({id(a): "a"})
    >>> names(a, "x"), names(symgrad.ones(2), "x")
    ('a', 'x0')
    """

    def __init__(self, names: dict[int, str]) -> None:
        """``names``: variable names by tensor id, as :func:`caller_names` gives them."""
        self.names = names
        self.used: set[str] = set()
        self.counter = itertools.count()

    def known(self, tensor: Any) -> str | None:
        """The tensor's own name, else the name it was given the first time it was named,
        else its variable's name, else None (nothing is reserved).

        >>> symgrad.autograd.naming.TensorNames({}).known(symgrad.ones(1, name="w"))
        'w'
        """
        name = tensor.name or fixed_name(tensor) or self.names.get(id(tensor))
        if name is None and tensor.grad_fn is not None:
            name = self.names.get(id(tensor.grad_fn))
        if name is None and "_stands_for" in getattr(tensor, "__dict__", ()):
            held = tensor._stands_for()  # a stand-in for a value a backward freed
            name = None if held is None else self.known(held)
        return name

    def __call__(self, tensor: Any, prefix: str) -> str:
        """A name for ``tensor`` not given out before: :meth:`known`, else ``prefix`` and a
        number that no variable in :attr:`names` uses. The first name a tensor gets is kept
        on it (:func:`fixed_name`): later calls, from any frame, give it the same one (unless
        another tensor of the same graph holds it; ``name=`` always wins)."""
        base = self.known(tensor)
        if base is None or base in self.used:
            while True:
                candidate = f"{prefix}{next(self.counter)}"
                if candidate not in self.used and candidate not in self.names.values():
                    base = candidate
                    break
        self.used.add(base)
        if tensor.name is None and fixed_name(tensor) is None:
            tensor.__dict__[_FIXED] = base
        return base


_FIXED = "_symgrad_fixed_name"


def fixed_name(tensor: Any) -> str | None:
    """The name ``tensor`` got the first time a graph holding it was named (lowered or
    drawn), or None: the same name in every later lowering, whatever the caller's variables.

    >>> w = symgrad.ones(2, requires_grad=True)
    >>> symgrad.symbolic.lower(w * 2).sources[0].name
    'w'
    >>> def helper(leaf):  # its variable is called leaf here, but w is named already
    ...     return symgrad.symbolic.lower(leaf * 3).sources[0].name
    >>> helper(w), symgrad.autograd.naming.fixed_name(w)
    ('w', 'w')
    """
    return getattr(tensor, "__dict__", {}).get(_FIXED)
