"""The op record (:class:`Op`), its test inputs (:class:`Sample`) and the registry every record
is entered in (:func:`register`). The records themselves are in the family modules of
``symgrad.ops``; the registry is complete once ``symgrad.ops`` is imported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Sample:
    """Inputs on which the registry test checks an op's VJP.

    ``shapes`` gives one entry per positional input: a tuple for a tensor, ``None`` for a Python
    scalar (drawn from the same range). Values are drawn uniformly from ``[low, high]`` and kept at
    least ``gap`` away from each point in ``kinks``, where the op is not differentiable.
    Inputs listed in ``bool_inputs`` are random boolean masks (not differentiated).
    """

    shapes: tuple[tuple[int, ...] | None, ...]
    params: dict[str, Any] = field(default_factory=dict)
    low: float = -2.0
    high: float = 2.0
    kinks: tuple[float, ...] = ()
    gap: float = 0.05
    bool_inputs: tuple[int, ...] = ()


class Op:
    """One differentiable op: ``forward(xp, *inputs, **params)`` and a VJP rule per input.

    ``vjp[i](xp, g, ans, *inputs, **params)`` returns the cotangent of input ``i`` given the
    output cotangent ``g`` and the output ``ans``; it may return it in the broadcast output shape,
    since the engine sums every cotangent back to its input's shape and dtype. ``saved`` lists the
    inputs whose values the VJP rules read (checked against in-place changes at backward) -- or,
    as a dict, which inputs each VJP rule reads, so that a node saves only what the gradients it
    will compute need (``x * c`` with a constant ``c`` does not save ``x``, as in PyTorch);
    ``saves_output`` whether they read ``ans``. ``float_only`` ops compute integer inputs in the
    default float dtype; ``promotes=False`` marks ops whose result dtype is set explicitly
    (PyTorch's type promotion is not applied to them). ``saves_params`` marks ops whose node
    keeps data that a non-retained backward frees, beyond ``saved`` (PyTorch's CopySlices).
    ``scalar_params`` name params that are Python-number operands and take part in type
    promotion (the 2.5 of ``2.5 - x``).

    Ops whose input cotangents come from one computation (a variable number of inputs, as in
    ``cat``; a custom ``Function``'s backward) give ``joint_vjp(xp, g, ans, needs, *inputs,
    **params)`` instead of ``vjp``: it returns one cotangent per input, or None where ``needs[i]``
    is false (for a registry op, a needed input given None receives zeros; for a custom
    Function's node, None means no gradient, as in PyTorch). Their ``saved`` is a tuple.

    ``lower(xp, *inputs, **params)``, when given, replaces ``forward`` on the symbolic side: an
    expression equal to the forward near the recorded point whose sympy derivative encodes the
    op's convention at non-differentiable points (a max over the tied elements, say).
    """

    __slots__ = (
        "name",
        "node_name",
        "forward",
        "vjp",
        "saved",
        "saves_output",
        "float_only",
        "promotes",
        "saves_params",
        "scalar_params",
        "samples",
        "node_name_of",
        "saved_by_need",
        "node_class",
        "joint_vjp",
        "lower",
        "__weakref__",
    )

    def __init__(
        self,
        name: str,
        node_name: str,
        forward: Callable[..., Any],
        vjp: tuple[Callable[..., Any] | None, ...] = (),
        *,
        joint_vjp: Callable[..., Any] | None = None,
        lower: Callable[..., Any] | None = None,
        saved: tuple[int, ...] | dict[int, tuple[int, ...]] = (),
        saves_output: bool = False,
        float_only: bool = False,
        promotes: bool = True,
        saves_params: bool = False,
        scalar_params: tuple[str, ...] = (),
        samples: tuple[Sample, ...] = (),
        node_name_of: Callable[..., str] | None = None,
    ) -> None:
        self.name = name
        self.node_name = node_name
        self.forward = forward
        self.vjp = vjp
        self.joint_vjp = joint_vjp
        self.lower = lower
        self.saved = saved
        self.saves_output = saves_output
        self.float_only = float_only
        self.promotes = promotes
        self.saves_params = saves_params
        self.scalar_params = scalar_params
        self.samples = samples
        self.node_name_of = node_name_of
        self.node_class = None  # set by symgrad.autograd.graph when the op first runs
        # saved_by_need[mask]: the inputs a node saves when the inputs whose bits are set in
        # mask (bit i for input i) need a gradient
        if joint_vjp is not None:
            if vjp or isinstance(saved, dict):
                raise ValueError(f"op {name!r}: a joint_vjp op has no per-input vjp rules")
            self.saved_by_need = _Constant(saved)
        else:
            self.saved_by_need = [
                tuple(sorted({i for rule, reads in saved.items() if mask >> rule & 1
                              for i in reads})) if isinstance(saved, dict) else saved
                for mask in range(1 << len(vjp))
            ]

    def __repr__(self) -> str:
        return f"<Op {self.name} ({self.node_name})>"


class _Constant:
    """``saved_by_need`` of a joint-VJP op: the same inputs whatever the need mask."""

    __slots__ = ("saved",)

    def __init__(self, saved: tuple[int, ...]) -> None:
        self.saved = saved

    def __getitem__(self, mask: int) -> tuple[int, ...]:
        return self.saved


REGISTRY: dict[str, Op] = {}


def register(op: Op) -> Op:
    """Add ``op`` to the registry (names are unique) and return it."""
    if op.name in REGISTRY:
        raise ValueError(f"op {op.name!r} is already registered")
    REGISTRY[op.name] = op
    return op
