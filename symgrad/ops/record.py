"""The op record (:class:`Op`), its test inputs (:class:`Sample`) and the registry every record
is entered in (:func:`register`). The records themselves are in the family modules of
``symgrad.ops``; the registry is complete once ``symgrad.ops`` is imported.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


class _Record:
    """A read-only record compared by its fields (what a frozen dataclass gives, without the
    code a dataclass compiles when its module is imported: hundreds of records are made at
    ``import symgrad``)."""

    __slots__ = ()

    def _set(self, **fields: Any) -> None:
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def _fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def replace(self, **changes: Any) -> Any:
        """A copy with ``changes`` applied (what ``dataclasses.replace`` gives a dataclass)."""
        fields = {name: getattr(self, name) for name in self.__slots__}
        return type(self)(**{**fields, **changes})

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"


class Sample(_Record):
    """Inputs on which the registry test checks an op's VJP.

    ``shapes`` gives one entry per positional input: a tuple for a tensor, ``None`` for a Python
    scalar (drawn from the same range). Values are drawn uniformly from ``[low, high]`` and kept at
    least ``gap`` away from each point in ``kinks``, where the op is not differentiable.
    Inputs listed in ``bool_inputs`` are random boolean masks (not differentiated).

    >>> Sample(((2, 3),), kinks=(0.0,)).kinks
    (0.0,)
    """

    __slots__ = ("shapes", "params", "low", "high", "kinks", "gap", "bool_inputs")
    shapes: tuple[tuple[int, ...] | None, ...]
    params: dict[str, Any]
    low: float
    high: float
    kinks: tuple[float, ...]
    gap: float
    bool_inputs: tuple[int, ...]

    def __init__(self, shapes: tuple[tuple[int, ...] | None, ...],
                 params: dict[str, Any] | None = None, low: float = -2.0, high: float = 2.0,
                 kinks: tuple[float, ...] = (), gap: float = 0.05,
                 bool_inputs: tuple[int, ...] = ()) -> None:
        self._set(shapes=shapes, params={} if params is None else params, low=low, high=high,
                  kinks=kinks, gap=gap, bool_inputs=bool_inputs)


class Singularity(_Record):
    """A point where an op's derivative is infinite or undefined, and the usual fix: what
    ``symbolic.explain`` says when a gradient turns nan or inf there.

    ``hits(at, params, shapes)`` tells whether the offending elements are at the point:
    ``at(j)`` gives input ``j``'s values there (as float64), ``params`` the node's params and
    ``shapes`` its inputs' shapes. ``why`` may be a function of ``(params, shapes)``.

    Its fields: ``cause``, a short name for the point ("log at 0", "division by zero");
    ``hits``; ``why``, the derivative there in words ("1/x is infinite at x = 0"); ``fix``, the
    usual way around it ("x.clamp_min(eps).log()"); for the "double where" advice, ``safe``: the
    op applied to a safe value, and a value safe for it; ``shows``, the input at the point whose
    value explain shows (None: none), and ``value``, its value there (the registry test runs the
    VJP there); ``shown_as``, what explain calls that input ("denominator"); ``nan_note``, added
    when the forward is nan there too ("(0/0)").

    >>> Singularity("log at 0", lambda at, params, shapes: True, "1/x", "add eps").shown_as
    'input'
    """

    __slots__ = ("cause", "hits", "why", "fix", "safe", "shows", "value", "shown_as", "nan_note")
    cause: str
    hits: Callable[..., Any]
    why: str | Callable[..., str]
    fix: str
    safe: tuple[str, str] | None
    shows: int | None
    value: float
    shown_as: str
    nan_note: str

    def __init__(self, cause: str, hits: Callable[..., Any], why: str | Callable[..., str],
                 fix: str, safe: tuple[str, str] | None = None, shows: int | None = 0,
                 value: float = 0.0, shown_as: str = "input", nan_note: str = "") -> None:
        self._set(cause=cause, hits=hits, why=why, fix=fix, safe=safe, shows=shows, value=value,
                  shown_as=shown_as, nan_note=nan_note)


class Op:
    """One differentiable op: ``forward(xp, *inputs, **params)`` and a VJP rule per input.

    ``vjp[i](xp, g, ans, *inputs, **params)`` returns the cotangent of input ``i`` given the
    output cotangent ``g`` and the output ``ans``; it may return it in the broadcast output shape,
    since the engine sums every cotangent back to its input's shape and dtype. ``saved`` lists the
    inputs whose values the VJP rules read (checked against in-place changes at backward) -- or,
    as a dict, which inputs each VJP rule reads, so that a node saves only what the gradients it
    will compute need (``x * c`` with a constant ``c`` does not save ``x``, as in PyTorch).

    Ops whose input cotangents come from one computation (a variable number of inputs, as in
    ``cat``; a custom ``Function``'s backward) give ``joint_vjp(xp, g, ans, needs, *inputs,
    **params)`` instead of ``vjp``: it returns one cotangent per input, or None where ``needs[i]``
    is false (for a registry op, a needed input given None receives zeros; for a custom
    Function's node, None means no gradient, as in PyTorch). Their ``saved`` is a tuple.

    What is known about the op lives here too: where its derivative is infinite or undefined
    (``singular``, read by ``symbolic.explain``) and the gradient it uses where it is not
    differentiable (``convention``, shown by ``symbolic.check`` and the conventions table; the
    points themselves are the ``kinks`` of its samples). Every field after ``vjp`` is
    keyword-only and has a default.

    ``kernel``, for a few elementwise ops, is the forward on numpy values without ``xp`` and
    params: a numpy ufunc or an ``operator`` function, computing exactly what ``forward`` computes
    on :mod:`symgrad.numeric.numpy_namespace`, that the Tensor methods' fast paths call directly
    (``tests/test_registry.py`` checks the two agree bit for bit on the op's samples).
    ``inline_vjp`` names, per input, a rule of a few simple forms (:data:`INLINE_FORMS`:
    ``"g * b"``, ...; a one-input op's: ``"g * ans"`` or a call) that the engine's loop computes
    without calling it, for nodes without params: the same numpy operation as the rule's, hence
    the same bits (tested there too). A form stands for its rule only while it is that rule:
    each is checked against the rule on probe values when the op is made, and the engine uses
    the forms only while ``vjp`` is still the tuple they were checked against (``inline_of``),
    so that a rule changed later (a mutation test's, say) is called.
    """

    __slots__ = ("name", "node_name", "forward", "vjp", "joint_vjp", "lower", "saved",
                 "saves_output", "float_only", "promotes", "saves_params", "scalar_params",
                 "samples", "node_name_of", "singular", "convention", "node_class",
                 "saved_by_need", "kernel", "inline_vjp", "inline_of", "__weakref__")
    name: str  # the registry name: "exp", "matmul"
    node_name: str  # PyTorch's name of the backward node: "ExpBackward0"
    forward: Callable[..., Any]  # forward(xp, *inputs, **params) -> the output
    vjp: tuple[Callable[..., Any] | None, ...]  # one rule per input (None: no gradient)
    # joint_vjp(xp, g, ans, needs, *inputs, **params): every input's cotangent at once
    joint_vjp: Callable[..., Any] | None
    # lower(xp, *inputs, **params): replaces forward on the symbolic side, its sympy derivative
    # encoding the convention at non-differentiable points (a max over tied elements)
    lower: Callable[..., Any] | None
    saved: tuple[int, ...] | dict[int, tuple[int, ...]]  # the inputs the VJP rules read
    saves_output: bool  # whether the VJP rules read the output ``ans``
    float_only: bool  # integer inputs are computed in the default float dtype
    promotes: bool  # PyTorch's type promotion applies (False: the dtype is explicit)
    saves_params: bool  # its node keeps data a non-retained backward frees (CopySlices)
    scalar_params: tuple[str, ...]  # params that are Python-number operands (2.5 - x)
    samples: Sequence[Sample]  # inputs on which the registry tests check it
    node_name_of: Callable[..., str] | None  # the node name, when params decide it
    singular: tuple[Singularity, ...]  # where its derivative is infinite / undefined
    convention: str  # the gradient used at its kinks, in words (PyTorch's choice)
    node_class: type | None  # set when the op first runs
    # saved_by_need[mask]: the inputs a node saves when the inputs whose bits are set in mask
    # (bit i for input i) need a gradient
    saved_by_need: Any
    kernel: Callable[..., Any] | None  # forward(numpy_namespace, *inputs), called without xp
    # inline_vjp[i]: input i's rule as a number of INLINE_FORMS (0: the engine calls vjp[i]),
    # valid while vjp is inline_of
    inline_vjp: tuple[int, ...]
    inline_of: tuple[Callable[..., Any] | None, ...]

    def __init__(self, name: str, node_name: str, forward: Callable[..., Any],
                 vjp: tuple[Callable[..., Any] | None, ...] = (), *,
                 joint_vjp: Callable[..., Any] | None = None,
                 lower: Callable[..., Any] | None = None,
                 saved: tuple[int, ...] | dict[int, tuple[int, ...]] = (),
                 saves_output: bool = False, float_only: bool = False, promotes: bool = True,
                 saves_params: bool = False, scalar_params: tuple[str, ...] = (),
                 samples: Sequence[Sample] = (), node_name_of: Callable[..., str] | None = None,
                 singular: tuple[Singularity, ...] = (), convention: str = "",
                 kernel: Callable[..., Any] | None = None,
                 inline_vjp: tuple[str | None, ...] = ()) -> None:
        self.name, self.node_name, self.forward, self.vjp = name, node_name, forward, vjp
        self.joint_vjp, self.lower, self.saved = joint_vjp, lower, saved
        self.saves_output, self.float_only, self.promotes = saves_output, float_only, promotes
        self.saves_params, self.scalar_params, self.samples = saves_params, scalar_params, samples
        self.node_name_of, self.singular, self.convention = node_name_of, singular, convention
        self.node_class = None
        self.kernel = kernel
        if inline_vjp and len(inline_vjp) != len(vjp):
            raise ValueError(f"op {name!r}: inline_vjp needs one form (or None) per vjp rule")
        self.inline_vjp = _checked_forms(vjp, [INLINE_FORMS[form] if form else 0
                                               for form in inline_vjp]) or (0,) * len(vjp)
        self.inline_of = vjp
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


INLINE_FORMS = {"g": 1, "-g": 2, "g * a": 3, "g * b": 4, "g * ans": 5,
                "tanh_backward(g, ans)": 6}
"""The rules the engine's loop computes inline (``Op.inline_vjp``), as written in numpy on the
output cotangent ``g``, the output ``ans`` and the inputs ``a`` (and ``b``); a function named is
:mod:`symgrad.numeric.numpy_namespace`'s."""


def inline_form(form: int, g: Any, ans: Any, a: Any, b: Any = None) -> Any:
    """What the engine's loop computes for ``form`` (a number of :data:`INLINE_FORMS`).

    >>> inline_form(INLINE_FORMS["g * b"], 2.0, None, 3.0, 5.0)
    10.0
    """
    if form == 1:
        return g
    if form == 2:
        return -g
    if form == 3:
        return g * a
    if form == 4:
        return g * b
    if form == 5:
        return g * ans
    if form == 6:
        from symgrad.numeric import numpy_namespace

        return numpy_namespace.tanh_backward(g, ans)
    raise ValueError(f"no inline form {form}")


def _checked_forms(vjp: tuple, forms: list[int]) -> tuple[int, ...]:
    """``forms``, except those that do not compute what their rule computes on probe values
    (a rule edited since its form was written): the engine calls those rules."""
    if not any(forms):
        return tuple(forms)
    import numpy as np

    from symgrad.numeric import numpy_namespace

    # (distinct values, so that no two forms agree on them)
    a, b, g = np.array([0.7, 1.3, 1.9]), np.array([1.1, 0.55, 1.7]), np.array([1.5, 0.8, 1.25])
    ans = np.array([0.3, -0.6, 0.45])
    inputs = (a,) if len(vjp) == 1 else (a, b)
    checked = []
    for rule, form in zip(vjp, forms, strict=True):
        if form:
            with np.errstate(all="ignore"):
                try:
                    same = np.array_equal(rule(numpy_namespace, g, ans, *inputs),
                                          inline_form(form, g, ans, *inputs))
                except Exception:  # noqa: BLE001 - a rule that does not run on them: called
                    same = False
            form = form if same else 0
        checked.append(form)
    return tuple(checked)


class _Constant:
    """``saved_by_need`` of a joint-VJP op: the same inputs whatever the need mask."""

    __slots__ = ("saved",)

    def __init__(self, saved: tuple[int, ...]) -> None:
        self.saved = saved

    def __getitem__(self, mask: int) -> tuple[int, ...]:
        return self.saved


class LazySamples(Sequence):
    """An op's samples, built by ``make()`` on first use: samples that take real work to build
    (the gather keys of a max pooling) cost ``import symgrad`` nothing.

    >>> samples = LazySamples(lambda: (Sample(((3,),)),))
    >>> len(samples), samples[0].shapes
    (1, ((3,),))
    """

    def __init__(self, make: Callable[[], Sequence[Sample]]) -> None:
        self._make: Callable[[], Sequence[Sample]] | None = make
        self._samples: tuple[Sample, ...] = ()

    def _built(self) -> tuple[Sample, ...]:
        if self._make is not None:
            self._samples, self._make = tuple(self._make()), None
        return self._samples

    def __getitem__(self, index: Any) -> Any:
        return self._built()[index]

    def __len__(self) -> int:
        return len(self._built())


REGISTRY: dict[str, Op] = {}


def register(op: Op) -> Op:
    """Add ``op`` to the registry (names are unique) and return it."""
    if op.name in REGISTRY:
        raise ValueError(f"op {op.name!r} is already registered")
    REGISTRY[op.name] = op
    return op
