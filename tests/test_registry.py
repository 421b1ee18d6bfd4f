"""Every registered op, on every one of its samples: VJP and double-backward against central
finite differences in float64. A new op is picked up here automatically, so it cannot skip
the check; the completeness tests make sure it declares everything the check needs."""

from __future__ import annotations

import inspect
import operator

import numpy as np
import pytest

import symgrad as t
from symgrad import methods, ops
from symgrad.dispatch import apply_op
from symgrad.ops import REGISTRY, Sample
from symgrad.tensor import Tensor

EPS = 1e-6

CASES = [
    pytest.param(op, sample, id=f"{name}-{i}")
    for name, op in sorted(REGISTRY.items())
    for i, sample in enumerate(op.samples)
]


def _draw(rng: np.random.Generator, shape, sample: Sample) -> np.ndarray:
    values = rng.uniform(sample.low, sample.high, size=shape if shape is not None else ())
    for kink in sample.kinks:  # keep away from non-differentiable points
        near = np.abs(values - kink) < sample.gap
        values = np.where(near, kink + np.sign(values - kink + 1e-12) * 2 * sample.gap, values)
    return np.asarray(values, dtype=np.float64)


def _build(op, sample: Sample, seed: int):
    """Inputs (Tensors requiring grad, bool masks, Python scalars) for one sample."""
    rng = np.random.default_rng(seed)
    inputs, differentiable = [], []
    for i, shape in enumerate(sample.shapes):
        if i in sample.bool_inputs:
            inputs.append(t.tensor(rng.random(shape) > 0.5))
        elif shape is None:
            inputs.append(float(_draw(rng, None, sample)))
        else:
            x = t.tensor(_draw(rng, shape, sample), dtype=t.float64, requires_grad=True)
            inputs.append(x)
            differentiable.append(i)
    return inputs, differentiable, rng


def _forward(op, inputs, params) -> np.ndarray:
    with t.no_grad():
        return apply_op(op, *inputs, **params).numpy().astype(np.float64)


def _fd_directional(op, inputs, params, i, u) -> np.ndarray:
    """Central difference of the forward along direction ``u`` of input ``i``."""
    plus = list(inputs)
    minus = list(inputs)
    base = inputs[i].detach().numpy()
    plus[i] = t.tensor(base + EPS * u, dtype=t.float64)
    minus[i] = t.tensor(base - EPS * u, dtype=t.float64)
    return (_forward(op, plus, params) - _forward(op, minus, params)) / (2 * EPS)


@pytest.mark.parametrize(("op", "sample"), CASES)
def test_vjp_matches_central_differences(op, sample):
    inputs, differentiable, rng = _build(op, sample, seed=0)
    out = apply_op(op, *inputs, **sample.params)
    assert out.requires_grad
    assert out.dtype is t.float64
    v = rng.standard_normal(out.shape)
    grads = t.autograd.grad(out, [inputs[i] for i in differentiable],
                            grad_outputs=t.tensor(v, dtype=t.float64))
    for i, g in zip(differentiable, grads, strict=True):
        assert g.shape == inputs[i].shape, f"input {i}: gradient shape"
        u = rng.standard_normal(inputs[i].shape)
        jvp = _fd_directional(op, inputs, sample.params, i, u)
        lhs = float(np.sum(u * g.numpy()))
        rhs = float(np.sum(v * jvp))
        assert lhs == pytest.approx(rhs, rel=1e-6, abs=1e-7), f"input {i}"


@pytest.mark.parametrize(("op", "sample"), CASES)
def test_double_backward_matches_central_differences(op, sample):
    """create_graph=True runs the VJP rules on Tensors; check d<vjp, w>/dx against FD."""
    inputs, differentiable, rng = _build(op, sample, seed=1)
    out = apply_op(op, *inputs, **sample.params)
    v = t.tensor(rng.standard_normal(out.shape), dtype=t.float64)
    leaves = [inputs[i] for i in differentiable]
    weights = [rng.standard_normal(x.shape) for x in leaves]

    def inner(xs) -> float:
        trial = list(inputs)
        for i, x in zip(differentiable, xs, strict=True):
            trial[i] = t.tensor(x, dtype=t.float64, requires_grad=True)
        result = apply_op(op, *trial, **sample.params)
        gs = t.autograd.grad(result, [trial[i] for i in differentiable], grad_outputs=v)
        return sum(float(np.sum(w * g.numpy())) for w, g in zip(weights, gs, strict=True))

    grads = t.autograd.grad(out, leaves, grad_outputs=v, create_graph=True)
    h = sum((g * t.tensor(w, dtype=t.float64)).sum() for g, w in zip(grads, weights, strict=True))
    if h.requires_grad:
        second = t.autograd.grad(h, leaves, allow_unused=True)
    else:
        second = [None] * len(leaves)  # the VJP does not depend on the inputs
    base = [x.detach().numpy() for x in leaves]
    for k, s in enumerate(second):
        u = rng.standard_normal(base[k].shape)
        plus = [b + (EPS * u if j == k else 0) for j, b in enumerate(base)]
        minus = [b - (EPS * u if j == k else 0) for j, b in enumerate(base)]
        fd = (inner(plus) - inner(minus)) / (2 * EPS)
        analytic = 0.0 if s is None else float(np.sum(u * s.numpy()))
        assert analytic == pytest.approx(fd, rel=1e-5, abs=1e-6), f"input {differentiable[k]}"


@pytest.mark.parametrize(("op", "sample"), CASES)
def test_float32_forward_keeps_dtype_and_gradient_dtype(op, sample):
    inputs, differentiable, _ = _build(op, sample, seed=2)
    inputs32 = [x.detach().float().requires_grad_() if isinstance(x, Tensor)
                and x.is_floating_point() else x for x in inputs]
    params = dict(sample.params)
    out = apply_op(op, *inputs32, **params)
    expected = t.float64 if params.get("dtype") == "float64" else t.float32
    assert out.dtype is expected
    grads = t.autograd.grad(out, [inputs32[i] for i in differentiable],
                            grad_outputs=t.ones_like(out))
    for g in grads:
        assert g.dtype is t.float32


def test_registry_is_complete():
    assert len(REGISTRY) >= 30
    for name, op in REGISTRY.items():
        assert op.name == name
        assert op.node_name and (op.node_name.endswith(("Backward0", "Backward1", "Backward2"))
                                 or op.node_name in ("CopySlices", "CopyBackwards"))
        assert callable(op.forward)
        assert op.samples, f"{name} has no samples"
        parameters = inspect.signature(op.forward).parameters
        positional = [p for p in list(parameters)[1:]
                      if parameters[p].default is inspect.Parameter.empty]
        tensor_inputs = len(op.samples[0].shapes)
        if op.joint_vjp is not None:  # one rule for any number of inputs
            assert callable(op.joint_vjp) and not op.vjp, name
            continue
        assert len(op.vjp) == tensor_inputs, f"{name}: one VJP rule per input"
        for sample in op.samples:
            assert len(sample.shapes) == tensor_inputs
            required = set(positional[tensor_inputs:])
            assert required <= set(sample.params), f"{name}: sample misses params"
            for i, rule in enumerate(op.vjp):
                assert callable(rule) or i in sample.bool_inputs, f"{name}: input {i} has no VJP"
        reads = op.saved.values() if isinstance(op.saved, dict) else [op.saved]
        for i in (i for r in reads for i in r):
            assert i < tensor_inputs


# Every public Tensor method: the op it records, or why it records none.
COMPOSITE = methods.COMPOSITE
NO_GRAPH = methods.NO_GRAPH
ATTRIBUTE = "attribute or autograd state"
METHOD_OPS = {
    "add": "add", "sub": "sub", "mul": "mul", "div": "div", "pow": "pow_scalar",
    "neg": "neg", "negative": "neg", "reciprocal": "reciprocal", "square": "pow_scalar",
    "exp": "exp", "log": "log", "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tanh": "tanh",
    "sigmoid": "sigmoid", "relu": "relu", "abs": "abs", "sign": "sign", "sum": "sum",
    "mean": "mean",
    "matmul": "matmul", "mm": "matmul", "mv": "matmul", "dot": "matmul",
    "reshape": "reshape", "view": "reshape", "reshape_as": "reshape", "view_as": "reshape",
    "flatten": "reshape", "transpose": "transpose", "swapaxes": "transpose",
    "permute": "permute", "t": "t", "T": "permute", "mT": "transpose",
    "unsqueeze": "unsqueeze", "squeeze": "squeeze", "expand": "expand", "expand_as": "expand",
    "broadcast_to": "expand", "clone": "clone", "to": "to_dtype", "type": "to_dtype",
    "float": "to_dtype", "double": "to_dtype", "long": NO_GRAPH, "bool": NO_GRAPH,
    "add_": "add", "sub_": "sub", "mul_": "mul", "div_": "div", "pow_": "pow_scalar",
    "zero_": "zero", "fill_": "fill", "copy_": "copy", "neg_": "neg", "exp_": "exp",
    "log_": "log", "sqrt_": "sqrt", "sin_": "sin", "cos_": "cos", "tanh_": "tanh",
    "sigmoid_": "sigmoid", "relu_": "relu", "abs_": "abs", "sign_": "sign",
    "reciprocal_": "reciprocal", "square_": "pow_scalar", "where": "where",
    "unsqueeze_": "unsqueeze", "squeeze_": "squeeze", "transpose_": "transpose", "t_": "t",
    "eq": NO_GRAPH, "ne": NO_GRAPH, "lt": NO_GRAPH, "le": NO_GRAPH, "gt": NO_GRAPH,
    "ge": NO_GRAPH, "equal": NO_GRAPH, "all": NO_GRAPH, "any": NO_GRAPH, "allclose": NO_GRAPH,
    "item": NO_GRAPH,
    "tolist": NO_GRAPH, "numpy": NO_GRAPH, "detach": NO_GRAPH, "detach_": NO_GRAPH,
    "data": NO_GRAPH, "contiguous": COMPOSITE, "cpu": COMPOSITE, "new_tensor": NO_GRAPH,
    "new_full": NO_GRAPH, "int": NO_GRAPH, "half": NO_GRAPH, "data_ptr": NO_GRAPH,
    "new_ones": NO_GRAPH, "new_zeros": NO_GRAPH, "new_empty": NO_GRAPH,
}
for _name in ("shape", "dtype", "ndim", "device", "is_cuda", "name", "dim", "size", "numel",
              "nelement", "is_floating_point", "element_size", "ndimension",
              "is_contiguous", "requires_grad",
              "requires_grad_", "is_leaf", "grad", "grad_fn", "retains_grad", "retain_grad",
              "register_hook", "volatile", "backward",
              "register_post_accumulate_grad_hook", "cuda", "is_complex", "is_sparse",
              "to_sparse"):
    METHOD_OPS[_name] = ATTRIBUTE

# how to call each differentiable method on a 2x3 float64 tensor
CALLS = {
    "add": lambda x: x.add(x), "sub": lambda x: x.sub(1.0), "mul": lambda x: x.mul(x),
    "div": lambda x: x.div(2.0), "pow": lambda x: x.pow(2), "matmul": lambda x: x.matmul(x.T),
    "mm": lambda x: x.mm(x.T), "mv": lambda x: x.mv(x[0]), "dot": lambda x: x[0].dot(x[1]),
    "reshape": lambda x: x.reshape(3, 2), "view": lambda x: x.view(-1),
    "reshape_as": lambda x: x.reshape_as(x.T), "view_as": lambda x: x.view_as(x.T),
    "transpose": lambda x: x.transpose(0, 1), "swapaxes": lambda x: x.swapaxes(0, 1),
    "permute": lambda x: x.permute(1, 0), "T": lambda x: x.T, "mT": lambda x: x.mT,
    "unsqueeze": lambda x: x.unsqueeze(0), "squeeze": lambda x: x.unsqueeze(0).squeeze(),
    "expand": lambda x: x.expand(4, 2, 3), "expand_as": lambda x: x.expand_as(x.expand(2, 2, 3)),
    "broadcast_to": lambda x: x.broadcast_to((2, 2, 3)), "to": lambda x: x.to(t.float32),
    "type": lambda x: x.type(t.float32), "float": lambda x: x.float(),
    "double": lambda x: x.float().double(), "flatten": lambda x: x.flatten(),
    "where": lambda x: x.where(x > 2, 0.0),
}
INPLACE_CALLS = {
    "add_": lambda x: x.add_(1.0), "sub_": lambda x: x.sub_(1.0), "mul_": lambda x: x.mul_(2.0),
    "div_": lambda x: x.div_(2.0), "pow_": lambda x: x.pow_(2), "zero_": lambda x: x.zero_(),
    "fill_": lambda x: x.fill_(2.0), "copy_": lambda x: x.copy_(t.ones(3)),
    **{name: operator.methodcaller(name)
       for name in ("neg_", "exp_", "log_", "sqrt_", "sin_", "cos_", "tanh_", "sigmoid_",
                    "relu_", "abs_", "sign_", "reciprocal_", "square_")},
    "unsqueeze_": lambda x: x.unsqueeze_(0), "squeeze_": lambda x: x.unsqueeze_(0).squeeze_(),
    "transpose_": lambda x: x.transpose_(0, 1), "t_": lambda x: x.t_(),
}


def _public_tensor_names():
    return sorted(n for n in dir(Tensor) if not n.startswith("_"))


# the methods of symgrad.methods declare what they record (and how to call them) themselves
for _name, _fn in methods.METHODS.items():
    METHOD_OPS[_name] = _fn.records
    if _fn.inplace:
        INPLACE_CALLS[_name] = _fn.example or operator.methodcaller(_name)
    elif _fn.example is not None:
        CALLS[_name] = _fn.example


def test_every_public_tensor_method_is_classified():
    unclassified = [n for n in _public_tensor_names() if n not in METHOD_OPS]
    assert not unclassified, f"classify these in METHOD_OPS: {unclassified}"
    for name, target in METHOD_OPS.items():
        assert hasattr(Tensor, name), name
        assert target in REGISTRY or target in (COMPOSITE, NO_GRAPH, ATTRIBUTE), name


@pytest.mark.parametrize("name", sorted(n for n, op in METHOD_OPS.items() if op in REGISTRY))
def test_each_differentiable_method_records_its_op(name):
    x = t.tensor(np.arange(1.0, 7.0).reshape(2, 3), dtype=t.float64, requires_grad=True)
    if name in INPLACE_CALLS:
        y = x * 1.0
        INPLACE_CALLS[name](y)
    else:
        y = CALLS.get(name, lambda x: getattr(x, name)())(x)
    assert y.grad_fn is not None, name
    op_name = METHOD_OPS[name]
    node = y.grad_fn
    # a composite (e.g. mv on x[0]) or an in-place change of a view (CopySlices) may add
    # nodes in front: search the graph back from the output for the op
    seen, todo = [], [node]
    while todo and todo[0].op is not REGISTRY[op_name]:
        node = todo.pop(0)
        seen.append(node.op.name)
        todo += [n for n in node.next if isinstance(n, t.autograd.Node)]
    assert todo, f"{name} recorded {seen}, not {op_name}"


def test_ops_are_only_declared_in_the_registry_modules():
    modules = {op.forward.__module__ for op in REGISTRY.values()}
    assert modules <= {"symgrad.ops.elementwise", "symgrad.ops.reduction", "symgrad.ops.shape",
                       "symgrad.ops.linalg", "symgrad.ops.nn"}
    assert ops.REGISTRY is REGISTRY
