"""``symgrad.func`` (``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``linearize``, ``jacrev``,
``jacfwd``, ``hessian``, ``vmap``, ``functional_call``, ``stack_module_state``) against PyTorch
2.13's ``torch.func``: each case's tensors (values, dtype, whether they carry a graph) or its
error's type and first sentence, recorded by ``python tools/record_torch_cases.py
tests/test_func.py`` into ``tests/data/torch_func.json``; this module never imports torch. The
graphs the transforms record are checked against sympy.
"""

from __future__ import annotations

import json
import pathlib

import pytest
from torch_cases import assert_same, outcome

import symgrad as t
from symgrad import symbolic

DATA = pathlib.Path(__file__).parent / "data" / "torch_func.json"

x3 = lambda L: L.tensor([1.0, 2.0, 3.0])
CASES = {
    "grad": lambda L: L.func.grad(lambda x: (x**3).sum())(x3(L)),
    "grad nonscalar": lambda L: L.func.grad(lambda x: x**3)(x3(L)),
    "grad argnums tuple": lambda L: L.func.grad(lambda x: (x**3).sum(), argnums=(0,))(x3(L)),
    "grad argnums 1": lambda L: L.func.grad(lambda x, y: (x * y).sum(), argnums=1)(
        x3(L), x3(L) * 2
    ),
    "grad argnums both": lambda L: L.func.grad(lambda x, y: (x * y).sum(), argnums=(0, 1))(
        x3(L), x3(L) * 2
    ),
    "grad aux": lambda L: L.func.grad(lambda x: ((x**3).sum(), x.mean()), has_aux=True)(x3(L)),
    "grad aux missing": lambda L: L.func.grad(lambda x: (x**3).sum(), has_aux=True)(x3(L)),
    "grad grad": lambda L: L.func.grad(L.func.grad(lambda x: (x**3).sum()))(L.tensor(2.0)),
    "grad grad grad": lambda L: L.func.grad(L.func.grad(L.func.grad(lambda x: (x**4).sum())))(
        L.tensor(2.0)
    ),
    "grad bad argnum": lambda L: L.func.grad(lambda x: (x**3).sum(), argnums=2)(x3(L)),
    "grad of a float": lambda L: L.func.grad(lambda x: (x**3).sum())(3.0),
    "grad of int": lambda L: L.func.grad(lambda x: (x**3).sum())(L.tensor([1, 2])),
    "grad of a dict": lambda L: L.func.grad(lambda p: (p["a"] * p["b"]).sum())(
        {"a": x3(L), "b": x3(L) + 1}
    ),
    "grad of a closure": lambda L: L.func.grad(
        lambda y: L.func.grad(lambda x: (x * y).sum())(x3(L)).pow(2).sum()
    )(x3(L) + 1),
    "grad requires grad input": lambda L: (
        lambda x: L.autograd.grad(L.func.grad(lambda z: (z**3).sum())(x).sum(), x)
    )(x3(L).requires_grad_()),
    "grad closes over a parameter": lambda L: (
        lambda w: L.autograd.grad(L.func.grad(lambda x: (x * w).sum() * w.sum())(x3(L)).sum(), w)
    )(x3(L).requires_grad_()),
    "grad's result without outer parameters": lambda L: (
        L.func.grad(lambda x: (x**3).sum())(x3(L)).requires_grad
    ),
    "vjp closes over a parameter": lambda L: (
        lambda w: L.func.vjp(lambda x: x * w, x3(L))[1](L.ones(3))[0].requires_grad
    )(x3(L).requires_grad_()),
    "grad_and_value": lambda L: L.func.grad_and_value(lambda x: (x**3).sum())(x3(L)),
    "grad_and_value aux": lambda L: L.func.grad_and_value(
        lambda x: ((x**3).sum(), x * 2), has_aux=True
    )(x3(L)),
    "vjp": lambda L: L.func.vjp(lambda x: x**2, x3(L))[1](L.ones(3)),
    "vjp out": lambda L: L.func.vjp(lambda x: x**2, x3(L))[0],
    "vjp two": lambda L: L.func.vjp(lambda x, y: x * y, x3(L), x3(L) + 1)[1](L.ones(3)),
    "jacrev": lambda L: L.func.jacrev(lambda x: x**2)(x3(L)),
    "jacrev 2d": lambda L: L.func.jacrev(lambda x: x.sum(0))(L.ones(2, 3)),
    "jacfwd": lambda L: L.func.jacfwd(lambda x: x.sin())(x3(L)),
    "jacrev argnums": lambda L: L.func.jacrev(lambda x, y: x * y, argnums=(0, 1))(x3(L), x3(L)),
    "jacrev scalar": lambda L: L.func.jacrev(lambda x: (x**2).sum())(x3(L)),
    "hessian": lambda L: L.func.hessian(lambda x: (x**3).sum())(x3(L)),
    "hessian cross": lambda L: L.func.hessian(lambda x: x[0] * x[1] ** 2)(x3(L)),
    "vmap sum": lambda L: L.func.vmap(lambda x: x.sum())(L.arange(12.0).reshape(4, 3)),
    "vmap in_dims": lambda L: L.func.vmap(lambda x, y: x @ y, in_dims=(0, None))(
        L.ones(4, 3), x3(L)
    ),
    "vmap out_dims": lambda L: L.func.vmap(lambda x: x * 2, in_dims=1, out_dims=1)(
        L.arange(10.0).reshape(2, 5)
    ),
    "vmap tuple out": lambda L: L.func.vmap(lambda x: (x, x.sum()))(L.ones(4, 3)),
    "vmap bad in_dims": lambda L: L.func.vmap(lambda x: x.sum(), in_dims=(0, 0))(L.ones(4, 3)),
    "vmap sizes": lambda L: L.func.vmap(lambda x, y: x + y)(L.ones(4, 3), L.ones(5, 3)),
    "vmap grad": lambda L: L.func.vmap(L.func.grad(lambda x: (x**2).sum()))(
        L.arange(12.0).reshape(4, 3)
    ),
    "functional_call": lambda L: (
        lambda m: L.func.functional_call(
            m, {"weight": L.ones(1, 2), "bias": L.zeros(1)}, (L.tensor([[1.0, 2.0]]),)
        )
    )(L.nn.Linear(2, 1)),
    "functional_call one tensor arg": lambda L: (
        lambda m: L.func.functional_call(
            m, {"weight": L.ones(1, 2), "bias": L.zeros(1)}, L.tensor([[1.0, 2.0]])
        )
    )(L.nn.Linear(2, 1)),
    "functional_call restores": lambda L: (
        lambda m: (
            L.func.functional_call(m, {"weight": L.ones(1, 2)}, L.ones(1, 2)),
            m.weight.shape,
            type(m.weight).__name__,
        )[1:]
    )(L.nn.Linear(2, 1)),
    "functional_call strict": lambda L: L.func.functional_call(
        L.nn.Linear(2, 1),
        {"weight": L.ones(1, 2), "nope": L.zeros(1)},
        (L.ones(3, 2),),
        strict=True,
    ),
    "functional_call dicts": lambda L: L.func.functional_call(
        L.nn.Linear(2, 1), ({"weight": L.ones(1, 2)}, {"bias": L.zeros(1)}), (L.ones(3, 2),)
    ),
    "functional_call duplicate": lambda L: L.func.functional_call(
        L.nn.Linear(2, 1), ({"weight": L.ones(1, 2)}, {"weight": L.zeros(1, 2)}), (L.ones(3, 2),)
    ),
    "functional_call nested": lambda L: L.func.functional_call(
        L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU(), L.nn.Linear(2, 1)),
        {"0.weight": L.eye(2), "0.bias": L.zeros(2), "2.weight": L.ones(1, 2), "2.bias": L.ones(1)},
        (L.tensor([[1.0, -2.0]]),),
    ),
    "grad of functional_call": lambda L: (
        lambda m: L.func.grad(lambda p: L.func.functional_call(m, p, (L.ones(3, 2),)).sum())(
            {"weight": L.ones(1, 2), "bias": L.zeros(1)}
        )
    )(L.nn.Linear(2, 1)),
    "per-sample grads": lambda L: (
        lambda m: L.func.vmap(
            L.func.grad(lambda p, x: L.func.functional_call(m, p, (x.unsqueeze(0),)).pow(2).sum()),
            in_dims=(None, 0),
        )(
            {"weight": L.tensor([[1.0, -1.0]]), "bias": L.tensor([0.5])},
            L.tensor([[1.0, 2.0], [3.0, 4.0], [0.0, 1.0]]),
        )
    )(L.nn.Linear(2, 1)),
    "jvp": lambda L: L.func.jvp(lambda x, y: (x.sin() * y, x + y), (x3(L), x3(L) * 2),
                                (L.ones(3), L.zeros(3))),
    "jvp aux": lambda L: L.func.jvp(lambda x: (x**2, x.sum()), (x3(L),), (L.ones(3),),
                                    has_aux=True),
    "jvp of a dict": lambda L: L.func.jvp(lambda p: (p["a"] * p["b"]).sum(),
                                          ({"a": x3(L), "b": x3(L) + 1},),
                                          ({"a": L.ones(3), "b": x3(L)},)),
    "jvp of an unused input": lambda L: L.func.jvp(lambda x, y: x.exp(), (x3(L), x3(L)),
                                                   (L.ones(3), L.ones(3))),
    "jvp closes over a parameter": lambda L: (
        lambda w: L.func.jvp(lambda x: x * w, (x3(L),), (L.ones(3),))
    )(L.tensor([1.0, 2.0, 3.0], requires_grad=True))[1].requires_grad,
    "jvp of grad": lambda L: L.func.jvp(L.func.grad(lambda x: (x**3).sum()), (x3(L),),
                                        (L.ones(3),)),
    "grad of jvp": lambda L: L.func.grad(
        lambda x: L.func.jvp(lambda z: z.sin(), (x,), (L.ones(3),))[1].sum())(x3(L)),
    "jvp primals a list": lambda L: L.func.jvp(lambda x: x, [x3(L)], [x3(L)]),
    "jvp structures": lambda L: L.func.jvp(lambda x, y: x, (x3(L), x3(L)), (x3(L),)),
    "jvp sizes": lambda L: L.func.jvp(lambda x: x, (x3(L),), (L.ones(2),)),
    "jvp returns a float": lambda L: L.func.jvp(lambda x: 1.0, (x3(L),), (x3(L),)),
    "jvp of nothing": lambda L: L.func.jvp(lambda: x3(L), (), ()),
    "linearize": lambda L: (lambda out, fn: (out, fn(L.ones(3)), fn(x3(L))))(
        *L.func.linearize(lambda x: x.sin() * x, x3(L))),
    "stack_module_state": lambda L: (lambda p, b: (sorted(p), [v.shape for v in p.values()],
                                                   [v.requires_grad for v in p.values()],
                                                   [v.is_leaf for v in p.values()], b))(
        *L.func.stack_module_state([L.nn.Linear(2, 1) for _ in range(3)])),
    "stack_module_state buffers": lambda L: (lambda p, b: (sorted(b), [v.shape for v in
                                                                       b.values()],
                                                           [v.requires_grad for v in
                                                            b.values()]))(
        *L.func.stack_module_state([L.nn.BatchNorm1d(2) for _ in range(2)])),
}


def record_all(L) -> dict:
    return {name: outcome(L, case) for name, case in CASES.items()}


RECORDED = json.loads(DATA.read_text()) if DATA.exists() else {}


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    assert_same(outcome(t, CASES[name]), RECORDED[name])


def test_a_second_derivative_graph_agrees_with_sympy():
    """grad(f) run inside a recorded computation: its graph, a rule applied to a rule's
    output, is checked against sympy's derivatives."""
    x = t.tensor([0.5, 1.5], dtype=t.float64, requires_grad=True)
    slope = t.func.grad(lambda z: (z.sin() * z**2).sum())(x)
    symbolic.check((slope * t.tensor([1.0, 2.0], dtype=t.float64)).sum(), inputs=[x])


def test_per_sample_gradients_are_the_gradients_of_each_sample():
    model = t.nn.Linear(3, 1)
    params = {k: v.detach() for k, v in model.named_parameters()}
    xs = t.randn(4, 3)

    def loss(p, x):
        return t.func.functional_call(model, p, (x.unsqueeze(0),)).pow(2).sum()

    batched = t.func.vmap(t.func.grad(loss), in_dims=(None, 0))(params, xs)
    for i in range(4):
        model.zero_grad()
        model(xs[i : i + 1]).pow(2).sum().backward()
        assert t.allclose(batched["weight"][i], model.weight.grad)
        assert t.allclose(batched["bias"][i], model.bias.grad)


def test_jvp_agrees_with_sympy_and_differences():
    """A JVP's graph (the double-backward trick) is checked against sympy, and its value
    against central differences along the tangent."""
    x = t.tensor([0.5, 1.5], dtype=t.float64, requires_grad=True)
    tangent = t.tensor([1.0, -2.0], dtype=t.float64)
    f = lambda z: (z.sin() * z**2).exp()  # noqa: E731
    _, pushed = t.func.jvp(f, (x,), (tangent,))
    symbolic.check((pushed * t.tensor([1.0, 2.0], dtype=t.float64)).sum(), inputs=[x])
    h = 1e-6
    with t.no_grad():
        central = (f(x + h * tangent) - f(x - h * tangent)) / (2 * h)
    assert t.allclose(pushed.detach(), central, rtol=1e-7)
