"""Every registered op, on every one of its samples: VJP and double-backward against central
finite differences in float64. A new op is picked up here automatically, so it cannot skip
the check; the completeness tests make sure it declares everything the check needs."""

from __future__ import annotations

import inspect
import operator

import numpy as np
import pytest

import symgrad as t
from symgrad import ops, torch_api
from symgrad.dispatch import apply_op
from symgrad.numeric import numpy_namespace
from symgrad.ops import REGISTRY, Sample
from symgrad.tensor import Tensor

EPS = 1e-6

CASES = [
    pytest.param(op, sample, id=f"{name}-sample{i}")
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


def _value_cases(op, sample, dtype, seed):
    """The sample's values in ``dtype``, as 0-d values (numpy gives scalars) and as special
    values (Python-number operands kept)."""
    inputs, _, _ = _build(op, sample, seed=seed)
    values = [x.detach().numpy().astype(dtype) if isinstance(x, Tensor) else x for x in inputs]
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e-30], dtype=dtype)
    return (values, [v.reshape(-1)[:1].reshape(()) if isinstance(v, np.ndarray) else v
                     for v in values],
            [special if isinstance(v, np.ndarray) else v for v in values])


# (a kernel takes no params: the fast paths call it only for calls without)
KERNEL_CASES = [case for case in CASES
                if case.values[0].kernel is not None and not case.values[1].params]


@pytest.mark.parametrize(("op", "sample"), KERNEL_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_an_ops_kernel_computes_what_its_forward_computes(op, sample, dtype):
    # the fast paths of the Tensor methods call the kernel in place of forward: the same bits,
    # Python-number operands, 0-d values (numpy gives scalars) and special values included
    from symgrad.numeric import numpy_namespace as xp

    for case in _value_cases(op, sample, dtype, seed=3):
        with np.errstate(all="ignore"):
            expected, got = op.forward(xp, *case), op.kernel(*case)
        assert type(got) is type(expected) and got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected, strict=True)
        assert np.array_equal(np.signbit(got), np.signbit(expected))


@pytest.mark.parametrize(("op", "sample"), KERNEL_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_an_ops_rules_keep_shape_and_dtype_where_node_fits_says_so(op, sample, dtype):
    # the fast paths record Node.fits (the engine then neither sums nor casts the rules'
    # results) for an op with a kernel on arrays of one shape and dtype, or an array and a
    # Python number: its rules must give the input's shape and dtype there
    from symgrad.numeric import numpy_namespace as xp

    inputs, _, _ = _build(op, sample, seed=4)
    arrays = [x.detach().numpy() for x in inputs if isinstance(x, Tensor)]
    shape = arrays[0].shape
    values = [np.asarray(x.detach().numpy(), dtype=dtype).reshape(-1)[:1].repeat(
        int(np.prod(shape))).reshape(shape) + 0.5 if isinstance(x, Tensor) else x for x in inputs]
    with np.errstate(all="ignore"):
        ans = op.kernel(*values)
        g = np.full(shape, 0.75, dtype=dtype)
        for i, v in enumerate(values):
            if isinstance(v, np.ndarray):
                gi = op.vjp[i](xp, g, ans, *values)
                assert gi.shape == v.shape and gi.dtype == v.dtype, f"input {i}"


INLINE_CASES = [case for case in CASES
                if any(case.values[0].inline_vjp) and not case.values[1].params]
INLINE = {1: lambda g, ans, a, b: g, 2: lambda g, ans, a, b: -g,
          3: lambda g, ans, a, b: g * a, 4: lambda g, ans, a, b: g * b,
          5: lambda g, ans, a, b: g * ans,
          6: lambda g, ans, a, b: numpy_namespace.tanh_backward(g, ans)}


def test_inline_forms_are_the_ones_written_out_here():
    from symgrad.ops.record import INLINE_FORMS

    assert set(INLINE_FORMS.values()) == set(INLINE)
    assert {op.name for op in REGISTRY.values() if any(op.inline_vjp)} >= {
        "add", "sub", "mul", "exp", "tanh"}


@pytest.mark.parametrize(("op", "sample"), INLINE_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_an_ops_inline_vjp_computes_what_its_rule_computes(op, sample, dtype):
    # the engine computes a rule named in inline_vjp itself: the same bits as the rule, 0-d
    # values (numpy gives scalars) and special values included
    from symgrad.numeric import numpy_namespace as xp

    for case in _value_cases(op, sample, dtype, seed=5):
        with np.errstate(all="ignore"):
            ans = op.forward(xp, *case)
            g = np.ones_like(ans) * np.asarray(case[0]).dtype.type(-1.5) if np.ndim(ans) \
                else ans * 0 - 1.5
            pair = (*case, None)[:2]
            for i, form in enumerate(op.inline_vjp):
                if not form:
                    continue
                expected, got = op.vjp[i](xp, g, ans, *case), INLINE[form](g, ans, *pair)
                assert type(got) is type(expected) and got.dtype == expected.dtype
                np.testing.assert_array_equal(got, expected, strict=True)
                assert np.array_equal(np.signbit(got), np.signbit(expected))


def test_a_rule_changed_after_its_form_was_written_is_called(monkeypatch):
    # a form stands for its rule only while it is that rule: one checked wrong on probe values
    # when the op is made (an edited rule) is not used, and neither are the forms of an op
    # whose rules were replaced since (a mutation test's monkeypatch): the engine calls them
    from symgrad.ops.record import Op

    edited = Op("edited", "EditedBackward0", lambda xp, a, b: a * b,
                (lambda xp, g, ans, a, b: g * a, lambda xp, g, ans, a, b: g * a),
                inline_vjp=("g * b", "g * a"))
    assert edited.inline_vjp == (0, 3)
    x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = t.tensor([5.0, 7.0, 11.0], requires_grad=True)
    mul = ops.elementwise.mul
    monkeypatch.setattr(mul, "vjp", (lambda xp, g, ans, a, b: g * a, mul.vjp[1]))
    (x.exp() * w).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0, 3.0]) ** 2, rtol=1e-6)
    monkeypatch.undo()  # the op's own rules again: the forms apply again
    assert mul.vjp is mul.inline_of
    x.grad = None
    (x.exp() * w).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0, 3.0]) * [5.0, 7.0, 11.0],
                               rtol=1e-6)


def test_the_engine_computes_the_inline_forms_it_is_given(monkeypatch):
    # a wrong form (g * a for mul's first input, whose rule is g * b) changes the gradient: the
    # engine reads the forms, and the check above is what keeps them right
    x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = t.tensor([5.0, 7.0, 11.0], requires_grad=True)
    (x.exp() * w).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0, 3.0]) * [5.0, 7.0, 11.0],
                               rtol=1e-6)
    monkeypatch.setattr(ops.elementwise.mul, "inline_vjp", (3, 3))
    x.grad = None
    (x.exp() * w).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0, 3.0]) ** 2, rtol=1e-6)


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


# Every public Tensor method: the op it records, or why it records none. The spellings that
# symgrad.torch_api declares say so themselves (and how to call them); what tensor.py defines is
# the tensor's own state and protocols.
COMPOSITE = torch_api.COMPOSITE
NO_GRAPH = torch_api.NO_GRAPH
ATTRIBUTE = "attribute or autograd state"
METHOD_OPS = {
    _name: ATTRIBUTE
    for _name in ("shape", "dtype", "ndim", "device", "is_cuda", "name", "dim", "size", "numel",
                  "nelement", "is_floating_point", "element_size", "ndimension",
                  "is_contiguous", "requires_grad", "requires_grad_", "is_leaf", "grad",
                  "grad_fn", "retains_grad", "retain_grad", "register_hook", "volatile",
                  "register_post_accumulate_grad_hook", "cuda", "is_complex", "is_sparse",
                  "to_sparse", "item", "tolist", "numpy", "detach_", "data", "cpu", "data_ptr")
}
CALLS = {}  # how to call each differentiable method on a 2x3 float64 tensor
INPLACE_CALLS = {}


def _public_tensor_names():
    return sorted(n for n in dir(Tensor) if not n.startswith("_"))


for _name, _fn in torch_api.METHODS.items():
    METHOD_OPS[_name] = _fn.records
    if _fn.inplace:
        INPLACE_CALLS[_name] = _fn.example or operator.methodcaller(_name)
    elif _fn.example is not None:
        CALLS[_name] = _fn.example


# ops outside the registry because random samples do not lie in their domain, each checked
# against differences and sympy by its own test module
UNSAMPLED = {"cholesky": "tests/test_linalg_extra.py (symmetric positive definite inputs)",
             **dict.fromkeys(("svd_u", "qr_q", "pinv", "matrix_exp"),
                             "tests/test_linalg_decompositions.py (sign-invariant cases; no "
                             "sympy form but pinv's)"),
             **dict.fromkeys(("lu_factor", "lu_solve", "lu_unpack_l", "cholesky_solve",
                              "cholesky_inverse", "householder_product", "geqrf_a"),
                             "tests/test_linalg_factorizations.py (nonsingular and triangular "
                             "inputs)")}


def test_every_public_tensor_method_is_classified():
    unclassified = [n for n in _public_tensor_names() if n not in METHOD_OPS]
    assert not unclassified, f"classify these in METHOD_OPS: {unclassified}"
    for name, target in METHOD_OPS.items():
        assert hasattr(Tensor, name), name
        assert target in REGISTRY or target in (COMPOSITE, NO_GRAPH, ATTRIBUTE) or \
            target in UNSAMPLED, name


@pytest.mark.filterwarnings("ignore:torch.triangular_solve is deprecated")
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
                       "symgrad.ops.conv",
                       "symgrad.ops.linalg", "symgrad.ops.nn"}
    assert ops.REGISTRY is REGISTRY


def test_ops_with_kinks_state_their_convention():
    # a kink declared in a sample is a point where the op is not differentiable: its record
    # says which gradient it uses there (shown by symbolic.check and the conventions table)
    silent = [name for name, op in REGISTRY.items()
              if any(s.kinks for s in op.samples) and not op.convention]
    assert not silent, f"declare Op.convention for {silent}"


@pytest.mark.parametrize("op", [op for op in REGISTRY.values() if op.singular],
                         ids=lambda op: op.name)
def test_singular_points_are_declared_where_the_vjp_is_not_finite(op):
    # each declared singular point: the op's own VJP is inf or nan there, and the record
    # recognises it from the values (what symbolic.explain relies on)
    import warnings

    sample = next(s for s in op.samples if None not in s.shapes and not s.bool_inputs)
    for point in op.singular:
        values = [np.full(shape, 0.5) for shape in sample.shapes]
        values[point.shows or 0][...] = point.value
        params = dict(sample.params)
        if "exponent" in params:  # a power: singular at 0 for exponents below 1
            params["exponent"] = 0.5
        if point.shows is None:  # var/std: no degrees of freedom left
            params["correction"] = values[0].size
        inputs = [t.tensor(v, dtype=t.float64, requires_grad=True) for v in values]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = apply_op(op, *inputs, **params)
            grads = t.autograd.grad(out.sum(), inputs, allow_unused=True)
        assert any(g is not None and not np.isfinite(g.numpy()).all() for g in grads), point.cause
        shapes = [v.shape for v in values]
        assert point.hits(lambda j, v=values: np.asarray(v[j], dtype=np.float64), params, shapes)
        why = point.why if isinstance(point.why, str) else point.why(params, shapes)
        assert point.fix and why
