"""PyTorch spellings of the reductions beyond sum and mean (see symgrad.torch_api): prod, max/min
(with indices), amax/amin, argmax/argmin, var/std, norm, logsumexp, cumsum/cumprod.

Selections find their indices here, numerically (the first extreme of each slice, nan counting
as the extreme, as PyTorch), and record a plain gather whose VJP sends the gradient where
PyTorch sends it: to the returned index (``max(dim)``), or split evenly among the tied extremes
(``max()``, ``amax``, the inf-norms), whose mask is computed here too when a gradient is recorded.
"""

from __future__ import annotations

import functools
import math
import types
from collections import namedtuple
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad import ops
from symgrad.autograd.grad_mode import is_grad_enabled
from symgrad.autograd.graph import node_class, warn_at_user
from symgrad.dispatch import apply_inplace, apply_op, unary_method
from symgrad.numeric import dtypes
from symgrad.ops.reduction import gather_key
from symgrad.tensor import Tensor, _dim, _dims, _make
from symgrad.torch_api.arguments import check_ints
from symgrad.torch_api.declaration import NO_GRAPH, torch_api

_REQUIRED: Any = object()  # marks a required argument PyTorch names in its own error
# x.sum() of all elements: the unary methods' fast path, with np.add.reduce over every axis
# (sum's forward without xp), two frames below the op's caller
_sum_all = unary_method(ops.reduction.sum, kernel=functools.partial(np.add.reduce, axis=None),
                        cls=node_class("SumBackward0"), depth=2)


# one namedtuple base per set of field names (namedtuple() compiles code: too slow to call for
# each result type at import)
_BASES: dict[tuple[str, ...], type] = {}


def result_type(name: str, fields: tuple[str, ...], doc: str, module: str = __name__) -> type:
    """A tuple type with named ``fields``, printed as PyTorch prints its
    ``torch.return_types.<name>`` (a structseq): the results of ``max(dim)``, ``aminmax``,
    ``slogdet`` ... (``module``: where it is defined, for the stubs)."""
    base = _BASES.get(fields)
    if base is None:
        base = _BASES[fields] = namedtuple("_" + "".join(f.title() for f in fields), fields)

    def __repr__(self: Any) -> str:
        shown = ",\n".join(f"{field}={value!r}" for field, value in zip(fields, self,
                                                                        strict=True))
        return f"symgrad.return_types.{name}(\n{shown})"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__, "__module__": module,
                                "__qualname__": f"return_types.{name}", "__doc__": doc})


def _return_type(name: str) -> type:
    return result_type(name, ("values", "indices"), f"""What ``{name}(dim)`` returns: a tuple
    ``(values, indices)`` with names (PyTorch's ``torch.return_types.{name}``).

    >>> values, indices = symgrad.tensor([[1.0, 3.0], [2.0, 0.0]]).{name}(dim=1)
    >>> indices
    tensor({[1, 0] if name == "max" else [0, 1]})
    """)


return_types = types.SimpleNamespace(max=_return_type("max"), min=_return_type("min"))


def _numpy_names(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Accept numpy's ``axis=`` and ``keepdims=`` for ``dim=`` and ``keepdim=``, as PyTorch."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            if "axis" in kwargs:
                kwargs["dim"] = kwargs.pop("axis")
            if "keepdims" in kwargs:
                kwargs["keepdim"] = kwargs.pop("keepdims")
            if "input" in kwargs:  # the function spelling's name for the tensor
                args = (kwargs.pop("input"), *args)
        return fn(*args, **kwargs)

    return call


def _records(x: Tensor) -> bool:
    return x._requires_grad and is_grad_enabled()


def _source(x: Tensor, dtype: dtypes.dtype | None) -> Tensor:
    return x._cast(dtypes.as_dtype(dtype)) if dtype is not None else x


def _as_asked(result: Tensor, dtype: dtypes.dtype | None) -> Tensor:
    """A sum's or product's result in the dtype asked for (integers accumulate as int64)."""
    return result if dtype is None else result._cast(dtypes.as_dtype(dtype))


def _int_dim(name: str, dim: Any, ndim: int) -> int:
    if dim is _REQUIRED:
        raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
    if isinstance(dim, bool) or not isinstance(dim, int | np.integer):
        raise TypeError(f"{name}(): argument 'dim' (position 1) must be int, not "
                        f"{type(dim).__name__}")
    return _dim(dim, ndim)


def _no_keepdim_alone(name: str, keepdim: bool, signatures: str) -> None:
    if keepdim:
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"(keepdim=bool, ), but expected one of:{signatures}")


# ---------------------------------------------------------------- sum, mean
@torch_api("sum")
def sum(self, dim: int | Sequence[int] | None = None, keepdim: bool = False, *,
        dtype: dtypes.dtype | None = None, axis: int | Sequence[int] | None = None,
        keepdims: bool | None = None) -> Tensor:
    """Sum of all elements (``SumBackward0``), or over ``dim`` (an int or a tuple), keeping the
    summed dims with size 1 if ``keepdim`` (``SumBackward1``); bools and ints sum as int64.

    >>> x = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> x.sum()
    tensor(10.)
    >>> symgrad.sum(x, dim=1, keepdim=True)
    tensor([[3.],
            [7.]])
    """
    if dim is None and axis is None and keepdim is False and keepdims is None and dtype is None \
            and isinstance(self, Tensor):  # (the common case: all elements)
        return _sum_all(self)
    return _as_asked(_reduce(self, ops.reduction.sum, "sum", axis if dim is None else dim,
                             keepdim if keepdims is None else keepdims, _source(self, dtype)),
                     dtype)


def _reduce(self, op: ops.Op, name: str, dim: Any, keepdim: bool, source: Tensor) -> Tensor:
    """Apply a reduction: all elements when ``dim`` is None, else the given dims."""
    if dim is None:
        if keepdim:
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            "(keepdim=bool, ), but expected one of:\n"
                            " * (*, dtype dtype = None)\n"
                            " * (tuple of ints dim, bool keepdim = False, *, dtype dtype = None)")
        return apply_op(op, source)
    if not (isinstance(dim, int | np.integer) or isinstance(dim, Sequence) and all(
            isinstance(d, int | np.integer) for d in dim)) or isinstance(dim, bool | str):
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({type(dim).__name__}), but expected one of:\n"
                        " * (*, dtype dtype = None)\n"
                        " * (tuple of ints dim, bool keepdim = False, *, dtype dtype = None)")
    dims = _dims(dim, self._value.ndim)
    return apply_op(op, source, dim=dims, keepdim=bool(keepdim))


@torch_api("mean")
def mean(self, dim: int | Sequence[int] | None = None, keepdim: bool = False, *,
         dtype: dtypes.dtype | None = None, axis: int | Sequence[int] | None = None,
         keepdims: bool | None = None) -> Tensor:
    """Mean of all elements, or over ``dim``; floating-point tensors only (``MeanBackward0`` /
    ``MeanBackward1``).

    >>> x = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> x.mean()
    tensor(2.5000)
    >>> symgrad.mean(x, dim=0)
    tensor([2., 3.])
    """
    source = self._cast(dtype) if dtype is not None else self
    if not source.is_floating_point():
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either "
                           "a floating point or complex dtype. Got: "
                           f"{source.dtype._torch_name}")
    return _reduce(self, ops.reduction.mean, "mean", axis if dim is None else dim,
                   keepdim if keepdims is None else keepdims,
                        source)


# ---------------------------------------------------------------- prod
_PROD_SIGNATURES = ("\n * (*, dtype dtype = None)\n * (int dim, bool keepdim = False, *, dtype "
                    "dtype = None)")


@torch_api("prod")
@_numpy_names
def prod(input: Tensor, dim: int | None = None, keepdim: bool = False, *,  # noqa: A002
         dtype: dtypes.dtype | None = None) -> Tensor:
    """Product of all elements (``ProdBackward0``), or along ``dim`` (``ProdBackward1``); the
    gradient is exact where elements are zero.

    >>> symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).prod(1)
    tensor([ 2., 12.])
    """
    if dim is None:
        _no_keepdim_alone("prod", keepdim, _PROD_SIGNATURES)
        return _as_asked(apply_op(ops.reduction.prod, _source(input, dtype)), dtype)
    if isinstance(dim, bool) or not isinstance(dim, int | np.integer):
        raise TypeError("prod() received an invalid combination of arguments - got "
                        f"(dim={type(dim).__name__}, ), but expected one of:{_PROD_SIGNATURES}")
    ndim = input._value.ndim
    d = _dim(dim, ndim)
    return _as_asked(apply_op(ops.reduction.prod, _source(input, dtype), dim=(d,) if ndim else (),
                              keepdim=bool(keepdim)), dtype)


# ---------------------------------------------------------------- max, min, amax, amin
def _arg_extreme(value: np.ndarray, dims: tuple[int, ...],
                 largest: bool) -> tuple[np.ndarray, ...]:
    """In each slice along ``dims``, the position of the first largest (smallest) element, nan
    counting as the extreme (numpy's argmax and PyTorch agree): one int array per dim, in the
    keepdim shape."""
    if not dims:
        return ()
    if len(dims) == 1:
        found = value.argmax(dims[0], keepdims=True) if largest else value.argmin(
            dims[0], keepdims=True)
        return (found,)
    kept = [d for d in range(value.ndim) if d not in dims]
    sizes = [value.shape[d] for d in dims]
    rows = value.transpose(kept + list(dims)).reshape(
        [value.shape[d] for d in kept] + [math.prod(sizes)])
    found = rows.argmax(-1) if largest else rows.argmin(-1)
    keep_shape = [1 if d in dims else n for d, n in enumerate(value.shape)]
    return tuple(p.reshape(keep_shape) for p in np.unravel_index(found, sizes))


_MAX_SIGNATURES = "\n * ()\n * (Tensor other)\n * (int dim, bool keepdim = False)"


def _extreme(name: str, input: Tensor, dim: Any, keepdim: Any, other: Any,  # noqa: A002
             largest: bool) -> Any:
    if other is not None or isinstance(dim, Tensor):
        other = dim if other is None else other
        return input.maximum(other) if largest else input.minimum(other)
    if not isinstance(keepdim, bool):
        raise TypeError(f"{name}(): argument 'keepdim' (position 2) must be bool, not "
                        f"{type(keepdim).__name__}")
    if dim is None:
        _no_keepdim_alone(name, keepdim, _MAX_SIGNATURES)
        return _select_all(ops.reduction.max if largest else ops.reduction.min, name, input,
                           largest)
    if isinstance(dim, bool) or not isinstance(dim, int | np.integer):
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({type(dim).__name__}), but expected one of:{_MAX_SIGNATURES}")
    value = input._value
    d = _dim(dim, value.ndim)
    if value.ndim and value.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    dims = (d,) if value.ndim else ()
    positions = _arg_extreme(value, dims, largest)
    op = ops.reduction.max_dim if largest else ops.reduction.min_dim
    values = apply_op(op, input, key=gather_key(positions, value.shape, dims, keepdim))
    index = positions[0] if dims else np.zeros((), dtype=np.int64)
    if dims and not keepdim:
        index = index.squeeze(d)
    return getattr(return_types, name)(values, _make(np.array(index, dtype=np.int64)))


def _select_all(op: ops.Op, name: str, input: Tensor, largest: bool) -> Tensor:  # noqa: A002
    value = input._value
    if value.size == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                           "input.numel() == 0. Specify the reduction dim with the 'dim' argument.")
    dims = tuple(range(value.ndim))
    key = gather_key(_arg_extreme(value, dims, largest), value.shape, dims, False)
    if not _records(input):
        return apply_op(op, input, key=key)
    picked = value[key]
    # the gradient is split among the elements equal to the result (the nans, for a nan)
    mask = np.isnan(value) if picked != picked else value == picked
    return apply_op(op, input, key=key, mask=mask, count=mask.sum(keepdims=True))


@torch_api("max")
@_numpy_names
def max(input: Tensor, dim: int | Tensor | None = None, keepdim: bool = False, *,  # noqa: A001,A002
        other: Tensor | None = None) -> Any:
    """The largest element (``MaxBackward1``, gradient split evenly among ties); with ``dim``,
    the named tuple ``(values, indices)`` of each slice's first largest element
    (``MaxBackward0``, gradient to that index); with a tensor, :func:`maximum`.

    >>> symgrad.tensor([[1.0, 5.0], [3.0, 2.0]]).max(1).indices
    tensor([1, 0])
    """
    return _extreme("max", input, dim, keepdim, other, True)


@torch_api("min")
@_numpy_names
def min(input: Tensor, dim: int | Tensor | None = None, keepdim: bool = False, *,  # noqa: A001,A002
        other: Tensor | None = None) -> Any:
    """The smallest element, or ``(values, indices)`` along ``dim``, or :func:`minimum` (see
    :func:`max`).

    >>> symgrad.tensor([[1.0, 5.0], [3.0, 2.0]]).min(1).values
    tensor([1., 2.])
    """
    return _extreme("min", input, dim, keepdim, other, False)


def _amax(op: ops.Op, name: str, input: Tensor, dim: Any, keepdim: bool,  # noqa: A002
          largest: bool) -> Tensor:
    value = input._value
    everything = dim is None or (isinstance(dim, Sequence) and not dim)
    dims = _dims(() if dim is None else dim, value.ndim)
    if value.size == 0:
        if everything:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        for given in (dim if isinstance(dim, Sequence) else (dim,)):  # (named as given)
            if value.shape[_dim(given, value.ndim)] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {given} to have non-zero "
                                 "size.")
    keepdim = bool(keepdim)
    positions = _arg_extreme(value, dims, largest)
    params = {"key": gather_key(positions, value.shape, dims, keepdim), "dim": dims,
              "keepdim": keepdim}
    if _records(input):
        mask = value == value[gather_key(positions, value.shape, dims, True)]
        params.update(mask=mask, count=mask.sum(axis=dims, keepdims=True))
    return apply_op(op, input, **params)


@torch_api("amax", example=lambda x: x.amax(1))
@_numpy_names
def amax(input: Tensor, dim: int | Sequence[int] = (), keepdim: bool = False  # noqa: A002
         ) -> Tensor:
    """The largest value over ``dim`` (all dims by default); the gradient is split evenly among
    tied extremes (``AmaxBackward0``).

    >>> symgrad.tensor([[1.0, 5.0], [3.0, 2.0]]).amax(0)
    tensor([3., 5.])
    """
    return _amax(ops.reduction.amax, "amax", input, dim, keepdim, True)


@torch_api("amin", example=lambda x: x.amin(1))
@_numpy_names
def amin(input: Tensor, dim: int | Sequence[int] = (), keepdim: bool = False  # noqa: A002
         ) -> Tensor:
    """The smallest value over ``dim`` (see :func:`amax`).

    >>> symgrad.tensor([[1.0, 5.0], [3.0, 2.0]]).amin(0)
    tensor([1., 2.])
    """
    return _amax(ops.reduction.amin, "amin", input, dim, keepdim, False)


def _arg(name: str, input: Tensor, dim: int | None, keepdim: bool,  # noqa: A002
         largest: bool) -> Tensor:
    value = input._value
    if value.dtype.kind == "b":
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if value.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        flat = value.reshape(-1)
        found = flat.argmax() if largest else flat.argmin()
        return _make(np.full((1,) * value.ndim if keepdim else (), found, dtype=np.int64))
    d = _dim(dim, value.ndim)
    if not value.ndim:
        return _make(np.zeros((), dtype=np.int64))
    if value.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    found = value.argmax(d, keepdims=bool(keepdim)) if largest else value.argmin(
        d, keepdims=bool(keepdim))
    return _make(found.astype(np.int64, copy=False))


@torch_api(NO_GRAPH)
@_numpy_names
def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False  # noqa: A002
           ) -> Tensor:
    """Index of the first largest element (of the flattened tensor, or along ``dim``), as int64.

    >>> symgrad.tensor([1.0, 3.0, 3.0]).argmax()
    tensor(1)
    """
    return _arg("argmax", input, dim, keepdim, True)


@torch_api(NO_GRAPH)
@_numpy_names
def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False  # noqa: A002
           ) -> Tensor:
    """Index of the first smallest element (of the flattened tensor, or along ``dim``).

    >>> symgrad.tensor([2.0, 1.0, 1.0]).argmin()
    tensor(1)
    """
    return _arg("argmin", input, dim, keepdim, False)


# ---------------------------------------------------------------- var, std
def _variance_params(name: str, input: Tensor, dim: Any, unbiased: bool | None,  # noqa: A002
                     keepdim: bool, correction: float | None) -> tuple[dict, float]:
    """The op params of a var/std call (PyTorch's two signatures), and its degrees of freedom."""
    check_ints(correction)
    if isinstance(dim, bool):  # x.var(False): the legacy unbiased flag
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        got = [type(dim).__name__] if dim is not None else []
        got += [f"correction={type(correction).__name__}", "unbiased=bool"]
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({', '.join(got)}), but expected one of:\n * (tuple of "
                        "ints dim, bool unbiased = True, bool keepdim = False)\n * (tuple of ints "
                        "dim = None, *, Number correction = None, bool keepdim = False)")
    if not input.is_floating_point():
        raise RuntimeError(f"{name if name.endswith('_mean') else 'std and var'} only support "
                           "floating point and complex dtypes")
    if correction is None:
        correction = 0 if unbiased is False else 1
    value = input._value
    params: dict[str, Any] = {"correction": correction, "keepdim": bool(keepdim)}
    count = value.size
    if dim is not None:
        dims = _dims(dim, value.ndim)
        # a 0-d tensor, or an empty list of dims, reduces everything (PyTorch's full variant)
        if value.ndim and not (isinstance(dim, Sequence) and not dim):
            params["dim"] = dims
            count = math.prod(value.shape[d] for d in dims)
    return params, count - correction


def _variance(op: ops.Op, name: str, input: Tensor, params: dict, dof: float,  # noqa: A002
              ) -> Tensor:
    if dof > 0:
        return apply_op(op, input, **params)
    warn_at_user(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                 "than the reduction factor (input numel divided by output numel).")
    with np.errstate(divide="ignore", invalid="ignore"):
        return apply_op(op, input, **params)


@torch_api("var")
@_numpy_names
def var(input: Tensor, dim: int | Sequence[int] | None = None,  # noqa: A002
        unbiased: bool | None = None, keepdim: bool = False, *,
        correction: float | None = None) -> Tensor:
    """Variance over ``dim`` (all elements by default), dividing by ``N - correction``
    (``correction=1`` unless ``unbiased=False``); ``VarBackward0``.

    >>> symgrad.tensor([1.0, 2.0, 6.0]).var()
    tensor(7.)
    """
    params, dof = _variance_params("var", input, dim, unbiased, keepdim, correction)
    return _variance(ops.reduction.var, "var", input, params, dof)


@torch_api("std")
@_numpy_names
def std(input: Tensor, dim: int | Sequence[int] | None = None,  # noqa: A002
        unbiased: bool | None = None, keepdim: bool = False, *,
        correction: float | None = None) -> Tensor:
    """Standard deviation, the square root of :func:`var` (``StdBackward0``; a zero standard
    deviation gets a zero gradient).

    >>> symgrad.tensor([1.0, 3.0]).std(correction=0)
    tensor(1.)
    """
    params, dof = _variance_params("std", input, dim, unbiased, keepdim, correction)
    return _variance(ops.reduction.std, "std", input, params, dof)


def _with_mean(op: ops.Op, name: str, node_name: str, input: Tensor, params: dict,  # noqa: A002
               dof: float) -> tuple[Tensor, Tensor]:
    spread = _variance(op, name, input, params, dof)
    with np.errstate(invalid="ignore"):  # the mean of nothing is nan
        mean = apply_op(ops.reduction.mean, input, **{k: v for k, v in params.items()
                                                      if k in ("dim", "keepdim")})
    for result in (spread, mean):  # PyTorch computes both in one node
        if result.grad_fn is not None:
            result.grad_fn.__class__ = node_class(node_name)
    return spread, mean


@torch_api("var", method=False)
@_numpy_names
def var_mean(input: Tensor, dim: int | Sequence[int] | None = None,  # noqa: A002
             unbiased: bool | None = None, keepdim: bool = False, *,
             correction: float | None = None) -> tuple[Tensor, Tensor]:
    """``(var, mean)`` over the same dims (see :func:`var`); both record ``VarMeanBackward0``.

    >>> symgrad.var_mean(symgrad.tensor([1.0, 2.0, 6.0]))
    (tensor(7.), tensor(3.))
    """
    params, dof = _variance_params("var_mean", input, dim, unbiased, keepdim, correction)
    return _with_mean(ops.reduction.var, "var_mean", "VarMeanBackward0", input, params, dof)


@torch_api("std", method=False)
@_numpy_names
def std_mean(input: Tensor, dim: int | Sequence[int] | None = None,  # noqa: A002
             unbiased: bool | None = None, keepdim: bool = False, *,
             correction: float | None = None) -> tuple[Tensor, Tensor]:
    """``(std, mean)`` over the same dims (see :func:`std`); both record ``StdMeanBackward0``.

    >>> symgrad.std_mean(symgrad.tensor([1.0, 3.0]), correction=0)
    (tensor(1.), tensor(2.))
    """
    params, dof = _variance_params("std_mean", input, dim, unbiased, keepdim, correction)
    return _with_mean(ops.reduction.std, "std_mean", "StdMeanBackward0", input, params, dof)


# ---------------------------------------------------------------- norms
def _ord_text(ord: float) -> str:  # noqa: A002
    if math.isinf(ord):
        return "inf" if ord > 0 else "-inf"
    return str(int(ord)) if float(ord).is_integer() else repr(ord)


def vector_norm(x: Tensor, ord: float = 2, dim: int | Sequence[int] | None = None,  # noqa: A002
                keepdim: bool = False, *, dtype: dtypes.dtype | None = None) -> Tensor:
    """The ``ord``-norm of ``x`` over ``dim`` (all elements when None): 2, 1, inf (the largest
    ``|x|``), -inf, 0 (the count of nonzeros) or any other float; ``LinalgVectorNormBackward0``
    with PyTorch's gradient conventions (0 where the norm is 0).

    >>> symgrad.linalg.vector_norm(symgrad.tensor([3.0, -4.0]))
    tensor(5.)
    """
    return _vector_norm(x, ord, dim, keepdim, dtype)


def _vector_norm(x: Tensor, ord: float, dim: Any, keepdim: bool,  # noqa: A002
                 dtype: dtypes.dtype | None, legacy: bool = False) -> Tensor:
    """:func:`vector_norm`; ``legacy`` records PyTorch's at::norm node (NormBackward1)."""
    if isinstance(ord, bool) or not isinstance(ord, int | float | np.number):
        raise TypeError("linalg_vector_norm(): argument 'ord' (position 2) must be Number, not "
                        f"{type(ord).__name__}")
    if not x.is_floating_point():
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {x.dtype._torch_name}")
    if dtype is not None:
        target = dtypes.as_dtype(dtype)
        if not target.is_floating_point or target.np_dtype.itemsize < x._value.itemsize:
            raise RuntimeError(f"linalg.vector_norm: the dtype of the input "
                               f"({x.dtype._torch_name}) should be convertible without narrowing "
                               f"to the specified dtype ({target._torch_name})")
        x = x._cast(target)
    ord = float(ord)
    value = x._value
    dims = tuple(range(value.ndim)) if dim is None else _dims(dim, value.ndim)
    keepdim = bool(keepdim)
    if (ord < 0 or math.isinf(ord)) and value.size == 0:
        if dim is None:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {_ord_text(ord)} norm on "
                               "an empty tensor because the operation does not have an identity")
        for d in dims:
            if value.shape[d] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {_ord_text(ord)} "
                                   f"norm on the dimension {d}because this dimension is empty "
                                   "and the operation does not have an identity")
    params: dict[str, Any] = {"ord": ord, "dim": dims, "keepdim": keepdim}
    if legacy:
        params["legacy"] = True
    if math.isinf(ord):
        size = np.abs(value)
        positions = _arg_extreme(size, dims, ord > 0)
        params["key"] = gather_key(positions, value.shape, dims, keepdim)
        if _records(x):
            mask = (size == size[gather_key(positions, value.shape, dims, True)]) | (
                size != size)  # nans share the gradient, as PyTorch
            params.update(mask=mask, count=mask.sum(axis=dims, keepdims=True))
    if ord < 0:
        with np.errstate(divide="ignore"):  # |0| ** ord is inf, and the norm 0
            return apply_op(ops.reduction.vector_norm, x, **params)
    return apply_op(ops.reduction.vector_norm, x, **params)


@torch_api("vector_norm")
def norm(input: Tensor, p: float | str | None = "fro",  # noqa: A002
         dim: int | Sequence[int] | None = None, keepdim: bool = False,
         dtype: dtypes.dtype | None = None) -> Tensor:
    """The ``p``-norm over ``dim`` (all elements when None): ``'fro'`` and None mean 2; see
    :func:`symgrad.linalg.vector_norm` for the others.

    >>> symgrad.tensor([[3.0, -4.0], [0.0, 0.0]]).norm(dim=1)
    tensor([5., 0.])
    """
    check_ints(p)
    if p is None or p == "fro":
        if isinstance(p, str) and dim is not None:
            dims = (dim,) if isinstance(dim, int | np.integer) else tuple(dim)
            if len(dims) > 2:
                raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                                   + " ".join(map(str, dims)))
        p = 2
    elif p == "nuc":
        dims = (-2, -1) if dim is None else (dim,) if isinstance(dim, int | np.integer) \
            else tuple(dim)
        if len(dims) != 2 or input.ndim < 2:
            raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                               + " ".join(map(str, dims)))
        if not input.is_floating_point():
            raise RuntimeError("linalg.matrix_norm: Expected a floating point or complex tensor "
                               f"as input. Got {input.dtype._torch_name}")
        if dtype is not None:
            input = input.to(dtypes.as_dtype(dtype))  # noqa: A001
        rows, cols = (_dim(d, input.ndim) for d in dims)
        return singular_value_norm(input, "nuc", rows, cols, keepdim)
    elif isinstance(p, str):
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    return vector_norm(input, p, dim, keepdim, dtype=dtype)


def singular_value_norm(A: Tensor, ord: str | int, rows: int, cols: int,  # noqa: A002,N803
                        keepdim: bool) -> Tensor:
    """The matrix norm 'nuc', 2 or -2 (sum, largest, smallest singular value) of the matrices
    in dims ``rows`` and ``cols`` (non-negative), as PyTorch's graph: those dims moved last
    (``PermuteBackward0``), and back with ``keepdim``."""
    if A.dtype is dtypes.float16:
        raise RuntimeError("linalg.matrix_norm: Low precision dtypes not supported. Got Half")
    order = [d for d in range(A.ndim) if d not in (rows, cols)] + [rows, cols]
    s = apply_op(ops.linalg.svdvals, A.permute(order))
    if ord == 2 and s.shape[-1] == 0:  # (no singular values: PyTorch's 2-norm is 0)
        s = s.new_zeros(s.shape[:-1] + (1,))
    norms = s.sum(-1, keepdim) if ord == "nuc" else s.amax(-1, keepdim) if ord == 2 \
        else s.amin(-1, keepdim)
    if not keepdim:
        return norms
    return norms.unsqueeze(-1).permute([order.index(d) for d in range(A.ndim)])



# ---------------------------------------------------------------- logsumexp
@torch_api("logsumexp", example=lambda x: x.logsumexp(1))
@_numpy_names
def logsumexp(input: Tensor, dim: int | Sequence[int] = _REQUIRED,  # noqa: A002
              keepdim: bool = False) -> Tensor:
    """log(sum(exp(x))) over ``dim``, computed stably; its gradient is the softmax
    (``LogsumexpBackward0``). Integers give the default float dtype.

    >>> symgrad.tensor([1000.0, 1000.0]).logsumexp(0)
    tensor(1000.6932)
    """
    if dim is _REQUIRED:
        raise TypeError('logsumexp() missing 1 required positional arguments: "dim"')
    if dim is None:
        raise TypeError("logsumexp(): argument 'dim' (position 1) must be tuple of ints, not "
                        "NoneType")
    return apply_op(ops.reduction.logsumexp, input, dim=_dims(dim, input._value.ndim),
                    keepdim=bool(keepdim))


# ---------------------------------------------------------------- cumsum, cumprod
@torch_api("cumsum", example=lambda x: x.cumsum(1))
@_numpy_names
def cumsum(input: Tensor, dim: int = _REQUIRED, *,  # noqa: A002
           dtype: dtypes.dtype | None = None) -> Tensor:
    """Running sums along ``dim`` (``CumsumBackward0``); bools and ints sum as int64.

    >>> symgrad.tensor([1.0, 2.0, 3.0]).cumsum(0)
    tensor([1., 3., 6.])
    """
    d = _int_dim("cumsum", dim, input._value.ndim)
    return _as_asked(apply_op(ops.reduction.cumsum, _source(input, dtype), dim=d), dtype)


@torch_api("cumprod", example=lambda x: x.cumprod(1))
@_numpy_names
def cumprod(input: Tensor, dim: int = _REQUIRED, *,  # noqa: A002
            dtype: dtypes.dtype | None = None) -> Tensor:
    """Running products along ``dim`` (``CumprodBackward0``); the gradient is exact where
    elements are zero.

    >>> symgrad.tensor([1.0, 2.0, 3.0]).cumprod(0)
    tensor([1., 2., 6.])
    """
    d = _int_dim("cumprod", dim, input._value.ndim)
    return _as_asked(apply_op(ops.reduction.cumprod, _source(input, dtype), dim=d), dtype)


@torch_api("cumsum", function=False, inplace=True, example=lambda x: x.cumsum_(1))
@_numpy_names
def cumsum_(self: Tensor, dim: int = _REQUIRED, dtype: dtypes.dtype | None = None) -> Tensor:
    """In-place :func:`cumsum`.

    >>> symgrad.tensor([1.0, 2.0]).cumsum_(0)
    tensor([1., 3.])
    """
    _same_dtype(self, dtype)
    return apply_inplace(ops.reduction.cumsum, self,
                         dim=_int_dim("cumsum_", dim, self._value.ndim))


@torch_api("cumprod", function=False, inplace=True, example=lambda x: x.cumprod_(1))
@_numpy_names
def cumprod_(self: Tensor, dim: int = _REQUIRED, dtype: dtypes.dtype | None = None,
             ) -> Tensor:
    """In-place :func:`cumprod`.

    >>> symgrad.tensor([2.0, 3.0]).cumprod_(0)
    tensor([2., 6.])
    """
    _same_dtype(self, dtype)
    return apply_inplace(ops.reduction.cumprod, self,
                         dim=_int_dim("cumprod_", dim, self._value.ndim))


def _same_dtype(self: Tensor, dtype: dtypes.dtype | None) -> None:
    """An in-place scan computes in its tensor's dtype: another ``dtype=`` is refused."""
    if dtype is not None and dtypes.as_dtype(dtype) is not self.dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {self.dtype._cpp_name} and "
                           f"output tensor dtype {dtypes.as_dtype(dtype)._cpp_name} should "
                           "match")
