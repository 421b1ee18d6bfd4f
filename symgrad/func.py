"""``symgrad.func``: PyTorch's function transforms ``grad``, ``grad_and_value``, ``vjp``,
``jvp``, ``linearize``, ``jacrev``, ``jacfwd``, ``hessian`` and ``vmap``, ``functional_call``
and ``stack_module_state``.

They are built on the recorded graph: ``grad(f)(x)`` runs ``f`` on a copy of ``x`` that
requires grad and differentiates with ``autograd.grad``, so transforms nest (``grad(grad(f))``)
and the graphs they record are ordinary graphs that ``symbolic.check`` can read. Inputs may be
tensors or tuples, lists and dicts of them. Two differences from PyTorch: ``jacfwd``, ``jvp``
and ``linearize`` compute in reverse mode (``jvp`` by the double-backward trick: the same
numbers), and ``vmap`` calls the function once per
element of the mapped dimension and stacks the results, so it needs no batching rules but
costs one call per element.

>>> from symgrad.func import grad
>>> grad(lambda x: (x ** 3).sum())(symgrad.tensor([1.0, 2.0]))
tensor([ 3., 12.])
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import symgrad
from symgrad.autograd.naming import topological
from symgrad.tensor import Tensor

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "linearize", "stack_module_state", "vjp", "vmap"]

_state = threading.local()  # how many transforms are running on this thread


@contextlib.contextmanager
def _level() -> Iterator[bool]:
    """Enter a transform; yields whether it runs inside another one (then its results stay
    differentiable, for the outer transform)."""
    depth = getattr(_state, "depth", 0)
    _state.depth = depth + 1
    try:
        with symgrad.enable_grad():
            yield depth > 0
    finally:
        _state.depth = depth


def _flatten(tree: Any) -> tuple[list[Any], Callable[[list[Any]], Any]]:
    """The leaves of a tuple/list/dict tree, and a function rebuilding it from new leaves."""
    if isinstance(tree, tuple | list):
        parts = [_flatten(x) for x in tree]
        counts = [len(leaves) for leaves, _ in parts]

        def rebuild(leaves: list[Any]) -> Any:
            out, start = [], 0
            for (_, sub), n in zip(parts, counts, strict=True):
                out.append(sub(leaves[start:start + n]))
                start += n
            return type(tree)(out)
        return [leaf for leaves, _ in parts for leaf in leaves], rebuild
    if isinstance(tree, dict):
        keys = list(tree)
        values, rebuild_values = _flatten([tree[k] for k in keys])
        return values, lambda leaves: dict(zip(keys, rebuild_values(leaves), strict=True))
    return [tree], lambda leaves: leaves[0]


def _map(fn: Callable[[Any], Any], tree: Any) -> Any:
    leaves, rebuild = _flatten(tree)
    return rebuild([fn(x) for x in leaves])


def _lifted(tree: Any, tracked: list[Tensor]) -> Any:
    """The tensors of a transform's result as the caller sees them: still recorded where their
    graph reaches a tensor from outside the transform (a parameter the function closes over, an
    input that required grad), else detached, as PyTorch's results at the outermost level."""
    inside = {id(x) for x in tracked}

    def lift(x: Any) -> Any:
        if not isinstance(x, Tensor) or not x.requires_grad:
            return x
        if x.grad_fn is None:  # (a leaf from outside itself)
            return x if id(x) not in inside else x.detach()
        for node in topological(x.grad_fn):
            if any(isinstance(edge, Tensor) and id(edge) not in inside for edge in node.next):
                return x
        return x.detach()
    return _map(lift, tree)


def _argnums(argnums: int | tuple[int, ...], count: int) -> tuple[int, ...]:
    chosen = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for a in chosen:
        if not -count <= a < count:
            raise RuntimeError(f"Got argnum={a}, but only {count} positional inputs")
    return tuple(a % count for a in chosen)


def _tracked(x: Any) -> Tensor:
    """An input of a transform as a tensor the transform differentiates: a view of it when it
    already requires grad (an outer transform's input: the graph stays connected), else a
    detached copy that requires grad."""
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    if not x.is_floating_point():
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    return x.view_as(x) if x.requires_grad else x.detach().requires_grad_()


def _prepare(args: Sequence[Any], argnums: tuple[int, ...]) -> tuple[list[Any], list[Any],
                                                                     list[Any]]:
    """The arguments with those in ``argnums`` tracked, their tracked leaves per argument, and
    each argument's rebuild function."""
    args = list(args)
    leaves_per_arg, rebuilds = [], []
    for a in argnums:
        leaves, rebuild = _flatten(args[a])
        tracked = [_tracked(x) for x in leaves]
        args[a] = rebuild(tracked)
        leaves_per_arg.append(tracked)
        rebuilds.append(rebuild)
    return args, leaves_per_arg, rebuilds


def _call(func: Callable, args: Sequence[Any], kwargs: dict, chosen: tuple[int, ...],
          has_aux: bool, who: str) -> tuple[Any, Any, list[Any], list[Any]]:
    """``func`` run on the arguments with those in ``chosen`` tracked: its output, its aux (with
    ``has_aux``, PyTorch's error when it returns no pair), and the tracked leaves and rebuild
    functions of :func:`_prepare`."""
    inner, leaves_per_arg, rebuilds = _prepare(args, chosen)
    output, aux = func(*inner, **kwargs), None
    if has_aux:
        if not (isinstance(output, tuple) and len(output) == 2):
            raise RuntimeError(f"{who}: output of function f should be a tuple: (output, aux) "
                               "if has_aux is True")
        output, aux = output
    return output, aux, leaves_per_arg, rebuilds


def _per_argument(values: list[Any], leaves_per_arg: list[list[Any]],
                  rebuilds: list[Callable[[list[Any]], Any]]) -> list[Any]:
    """``values`` (one per tracked leaf, in order) regrouped into each argument's tree."""
    out, start = [], 0
    for leaves, rebuild in zip(leaves_per_arg, rebuilds, strict=True):
        out.append(rebuild(values[start:start + len(leaves)]))
        start += len(leaves)
    return out


def _gradients(output: Tensor, leaves: list[Tensor]) -> list[Tensor]:
    # (recorded: an outer transform, or a tensor the function closes over, may need them)
    return list(symgrad.autograd.grad(output, leaves, retain_graph=True, create_graph=True,
                                      allow_unused=True, materialize_grads=True))


def grad_and_value(func: Callable, argnums: int | tuple[int, ...] = 0,
                   has_aux: bool = False) -> Callable:
    """``func`` made to return its gradient with respect to the arguments ``argnums`` and its
    value: ``(grad, value)``, or ``(grad, (value, aux))`` with ``has_aux`` (``func`` returning
    ``(value, aux)``). ``value`` must be a scalar tensor.

    >>> g, value = symgrad.func.grad_and_value(lambda x: (x ** 2).sum())(symgrad.ones(2))
    >>> g, value
    (tensor([2., 2.]), tensor(2.))
    """
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        chosen = _argnums(argnums, len(args))
        with _level() as nested:
            output, aux, leaves_per_arg, rebuilds = _call(func, args, kwargs, chosen, has_aux,
                                                          "grad_and_value(f)(*args)")
            if not isinstance(output, Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"Tensor, got {type(output)}")
            if output.ndim != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"scalar Tensor, got tensor with {output.ndim} dims. Maybe "
                                   "you wanted to use the vjp or jacrev APIs instead?")
            flat = [x for leaves in leaves_per_arg for x in leaves]
            grads = _gradients(output, flat)
        per_arg = _per_argument(grads, leaves_per_arg, rebuilds)
        result = per_arg[0] if isinstance(argnums, int) else tuple(per_arg)
        result = (result, (output, aux) if has_aux else output)
        return result if nested else _lifted(result, flat)
    return wrapper


def grad(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    """``func`` made to return its gradient with respect to the arguments ``argnums`` (a
    tuple of gradients for a tuple of argnums; ``(grad, aux)`` with ``has_aux``); ``func`` must
    return a scalar tensor. Transforms nest: ``grad(grad(f))`` is the second derivative.

    >>> f = lambda x: x ** 3
    >>> symgrad.func.grad(symgrad.func.grad(f))(symgrad.tensor(2.0))
    tensor(12.)
    """
    transformed = grad_and_value(func, argnums, has_aux)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result, value = transformed(*args, **kwargs)
        return (result, value[1]) if has_aux else result
    return wrapper


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` gives the vector-Jacobian product
    with respect to each primal, as a tuple (``(output, vjp_fn, aux)`` with ``has_aux``).

    >>> out, vjp_fn = symgrad.func.vjp(lambda x: x ** 2, symgrad.tensor([1.0, 3.0]))
    >>> vjp_fn(symgrad.ones(2))
    (tensor([2., 6.]),)
    """
    with _level() as nested:
        output, aux, leaves_per_arg, rebuilds = _call(func, primals, {},
                                                      tuple(range(len(primals))), has_aux,
                                                      "vjp(f, *primals)")

    def vjp_fn(cotangents: Any) -> tuple[Any, ...]:
        with _level() as inside:
            outputs, _ = _flatten(output)
            given, _ = _flatten(cotangents)
            grads = symgrad.autograd.grad(outputs, flat, given, retain_graph=True,
                                          create_graph=True, allow_unused=True,
                                          materialize_grads=True)
            result = tuple(_per_argument(list(grads), leaves_per_arg, rebuilds))
        return result if inside or nested else _lifted(result, flat)

    flat = [x for leaves in leaves_per_arg for x in leaves]
    shown, shown_aux = (output, aux) if nested else _lifted((output, aux), flat)
    return (shown, vjp_fn, shown_aux) if has_aux else (shown, vjp_fn)


def _jvp_of(output: Any, flat: list[Tensor], who: str) -> Callable[[list[Tensor]], Any]:
    """The map from tangents of the tracked leaves ``flat`` to the JVP of ``output``: the
    VJP is linear in its cotangent ``u``, so the JVP is the gradient in ``u`` of
    ``<VJP(u), tangent>`` (the double-backward trick)."""
    outputs, rebuild = _flatten(output)
    for o in outputs:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{who}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(o)}")
    cotangents = [symgrad.zeros_like(o).requires_grad_() for o in outputs]
    pulled = symgrad.autograd.grad(outputs, flat, cotangents, retain_graph=True,
                                   create_graph=True, allow_unused=True, materialize_grads=True)

    def push(tangents: list[Tensor]) -> Any:
        for leaf, tangent in zip(flat, tangents, strict=True):
            if tangent.shape != leaf.shape:
                raise RuntimeError("Trying to set a forward gradient that has a different size "
                                   "than that of the original Tensor, this is not supported. "
                                   f"Tensor is of size {list(leaf.shape)} while the given "
                                   f"forward gradient is of size {list(tangent.shape)}.")
        # (a leaf the output does not depend on pulls back a constant zero: no term)
        terms = [(p, t.to(p.dtype)) for p, t in zip(pulled, tangents, strict=True)
                 if p.requires_grad]
        if not terms:
            return rebuild([symgrad.zeros_like(c) for c in cotangents])
        pushed = symgrad.autograd.grad([p for p, _ in terms], cotangents,
                                       [t for _, t in terms], retain_graph=True,
                                       create_graph=True, allow_unused=True,
                                       materialize_grads=True)
        return rebuild(list(pushed))
    return push


def _structure(tree: Any) -> Any:
    if isinstance(tree, tuple | list):
        return (type(tree), [_structure(x) for x in tree])
    if isinstance(tree, dict):
        return (dict, [(k, _structure(v)) for k, v in tree.items()])
    return None


def jvp(func: Callable, primals: Any, tangents: Any, *, strict: bool = False,
        has_aux: bool = False) -> tuple[Any, ...]:
    """``(func(*primals), J tangents)``: the Jacobian-vector product at ``primals`` (tuples of
    the same structure); ``(output, jvp_out, aux)`` with ``has_aux``. Computed in reverse mode
    by the double-backward trick, so the graph it records is an ordinary one.

    >>> symgrad.func.jvp(lambda x: x.sin(), (symgrad.tensor([0.0]),), (symgrad.tensor([2.0]),))
    (tensor([0.]), tensor([2.]))
    """
    who = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{who}: Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    if _structure(primals) != _structure(tangents):
        raise RuntimeError(f"{who}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, "
                           "tangents also must be.")
    if not _flatten(primals)[0]:
        raise RuntimeError(f"{who}: Expected primals to contain at least one Tensor.")
    with _level() as nested:
        output, aux, leaves_per_arg, _ = _call(func, primals, {}, tuple(range(len(primals))),
                                               has_aux, who)
        flat = [x for leaves in leaves_per_arg for x in leaves]
        pushed = _jvp_of(output, flat, who)(_flatten(tangents)[0])
    result = (output, pushed, aux) if has_aux else (output, pushed)
    return result if nested else _lifted(result, flat)


def linearize(func: Callable, *primals: Any) -> tuple[Any, Callable]:
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` gives the Jacobian-vector product
    at ``primals`` (the graph is recorded once and reused).

    >>> out, jvp_fn = symgrad.func.linearize(lambda x: x ** 2, symgrad.tensor([3.0]))
    >>> jvp_fn(symgrad.tensor([1.0]))
    tensor([6.])
    """
    who = "linearize"
    with _level() as nested:
        output, _, leaves_per_arg, _ = _call(func, primals, {}, tuple(range(len(primals))),
                                             False, who)
        flat = [x for leaves in leaves_per_arg for x in leaves]
        push = _jvp_of(output, flat, who)

    def jvp_fn(*tangents: Any) -> Any:
        if _structure(tangents) != _structure(primals):
            raise RuntimeError("linearize: Expected tangents to have the same python structure "
                               "as primals.")
        with _level() as inside:
            result = push(_flatten(tangents)[0])
        return result if inside or nested else _lifted(result, flat)

    return (output if nested else _lifted(output, flat)), jvp_fn


def stack_module_state(models: Sequence[Any]) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """The parameters and buffers of ``models`` (modules of one architecture) stacked along a
    new first dim, by name: new leaves (the parameters requiring grad), for ``vmap`` over
    :func:`functional_call`.

    >>> params, buffers = symgrad.func.stack_module_state([symgrad.nn.Linear(2, 1)] * 3)
    >>> params["weight"].shape
    symgrad.Size([3, 1, 2])
    """
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not all(m.training for m in models) and any(m.training for m in models):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/"
                           "eval mode.")
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(named: list[dict[str, Tensor]], requires_grad: bool) -> dict[str, Tensor]:
        out = {}
        for name in named[0]:
            value = symgrad.stack([n[name].detach() for n in named])
            out[name] = value.requires_grad_() if requires_grad and \
                named[0][name].requires_grad else value
        return out
    params = stacked([dict(m.named_parameters()) for m in models], True)
    buffers = stacked([dict(m.named_buffers()) for m in models], False)
    return params, buffers


def jacrev(func: Callable, argnums: int | tuple[int, ...] = 0, *, has_aux: bool = False,
           chunk_size: int | None = None) -> Callable:
    """``func`` made to return its Jacobian with respect to the arguments ``argnums``, of shape
    ``output.shape + input.shape``, one reverse pass per output element.

    >>> symgrad.func.jacrev(lambda x: x ** 2)(symgrad.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        chosen = _argnums(argnums, len(args))
        with _level() as nested:
            output, aux, leaves_per_arg, rebuilds = _call(func, args, kwargs, chosen, has_aux,
                                                          "jacrev(f, ...)(*args)")
            flat = [x for leaves in leaves_per_arg for x in leaves]
            rows = []
            for i in range(output.numel()):
                rows.append(_gradients(output.reshape(-1)[i], flat))
            jacobians = []
            for k, leaf in enumerate(flat):
                stacked = symgrad.stack([row[k] for row in rows]) if rows else \
                    symgrad.zeros(0, *leaf.shape, dtype=leaf.dtype)
                jacobians.append(stacked.reshape(*output.shape, *leaf.shape))
        per_arg = _per_argument(jacobians, leaves_per_arg, rebuilds)
        result = per_arg[0] if isinstance(argnums, int) else tuple(per_arg)
        result = (result, aux) if has_aux else result
        return result if nested else _lifted(result, flat)
    return wrapper


def jacfwd(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable:
    """The Jacobian as :func:`jacrev` gives it (symgrad has no forward mode; the numbers are
    the same).

    >>> symgrad.func.jacfwd(lambda x: x.sin())(symgrad.tensor([0.0]))
    tensor([[1.]])
    """
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func: Callable, argnums: int | tuple[int, ...] = 0) -> Callable:
    """``func``'s Hessian with respect to the arguments ``argnums``: ``jacfwd(jacrev(func))``.

    >>> symgrad.func.hessian(lambda x: (x ** 3).sum())(symgrad.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)


def vmap(func: Callable, in_dims: int | tuple | None = 0, out_dims: int | tuple = 0,
         randomness: str = "error", *, chunk_size: int | None = None) -> Callable:
    """``func`` mapped over a dimension of its inputs (``in_dims``: one per argument, or one
    for all; None leaves an argument unmapped), the results stacked along ``out_dims``. symgrad
    calls ``func`` once per element and stacks, so gradients flow through as usual.

    >>> symgrad.func.vmap(lambda row, w: row @ w, in_dims=(0, None))(symgrad.ones(3, 2),
    ...                                                               symgrad.tensor([1.0, 2.0]))
    tensor([3., 3., 3.])
    """
    name = getattr(func, "__name__", repr(func))

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        dims = in_dims if isinstance(in_dims, tuple | list) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                             "compatible with the structure of `inputs`.")
        sizes = [a.shape[d] for a, d in zip(args, dims, strict=True)
                 if d is not None and isinstance(a, Tensor)]
        if not sizes:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): at least one "
                             "input must be a Tensor mapped over a dimension.")
        if len(set(sizes)) > 1:
            raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {sizes} for the mapped dimension")
        results = [func(*(a.select(d, i) if d is not None else a
                          for a, d in zip(args, dims, strict=True)), **kwargs)
                   for i in range(sizes[0])]
        first, rebuild = _flatten(results[0])
        columns = list(zip(*(_flatten(r)[0] for r in results), strict=True))
        outs = out_dims if isinstance(out_dims, tuple | list) else (out_dims,) * len(first)
        return rebuild([symgrad.stack(list(column), d) for column, d in
                        zip(columns, outs, strict=True)])
    return wrapper


def functional_call(module: Any, parameter_and_buffer_dicts: dict | Sequence[dict],
                    args: Any = None, kwargs: dict | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """Call ``module`` with some of its parameters and buffers replaced by the tensors given
    (by their dotted names), leaving the module as it was afterwards.

    >>> m = symgrad.nn.Linear(2, 1)
    >>> params = {"weight": symgrad.ones(1, 2), "bias": symgrad.zeros(1)}
    >>> symgrad.func.functional_call(m, params, (symgrad.tensor([[1.0, 2.0]]),))
    tensor([[3.]])
    """
    from symgrad.nn.utils.stateless import _functional_call  # (loads nn on first use)

    return _functional_call(module, parameter_and_buffer_dicts, args, kwargs,
                            tie_weights=tie_weights, strict=strict)
