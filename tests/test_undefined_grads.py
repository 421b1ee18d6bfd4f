"""Undefined gradients, as PyTorch has them (observed in torch 2.x): a custom Function's backward
returning None for an input, or a hook dropping a gradient, gives no gradient at all -- not a
zero one. It adds nothing where another path gives a gradient; a leaf keeps its ``.grad``; a
node that only undefined gradients reach still runs: its hooks see None, an op's node passes None
on, a custom Function's backward gets zeros (None after ``set_materialize_grads(False)``)."""

import warnings

import numpy as np
import pytest

import symgrad as t
from symgrad.autograd import Function

FREED = "Trying to backward through the graph a second time"
MODIFIED = "one of the variables needed for gradient computation has been modified"
UNUSED = (r"^The differentiated Tensor at index 0 appears to not have been used in the graph. "
          r"Set allow_unused=True if this is the desired behavior.$")
REPLACED = r"^can't replace a None gradient with a non-None value$"


def _x(values=(1.0, 2.0, 3.0)):
    return t.tensor(list(values), dtype=t.float64, requires_grad=True)


class NoGrad(Function):
    """Differentiable output, but backward gives no gradient."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return None


def _recording(seen, name, materialize=True, factor=7.0):
    """A pass-through Function whose backward records what it receives."""

    class Mid(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            seen[name] = g
            return None if g is None else g * factor

    return Mid


def test_backward_leaves_grad_none():
    x = _x()
    NoGrad.apply(x).sum().backward()
    assert x.grad is None


def test_an_existing_grad_is_left_as_it_was():
    x = _x()
    (x * 2).sum().backward()
    NoGrad.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_autograd_grad_reports_the_input_unused():
    x = _x()
    assert t.autograd.grad(NoGrad.apply(x).sum(), x, allow_unused=True) == (None,)
    with pytest.raises(RuntimeError, match=UNUSED):
        t.autograd.grad(NoGrad.apply(x).sum(), x)
    (g,) = t.autograd.grad(NoGrad.apply(x).sum(), x, materialize_grads=True)
    assert g.tolist() == [0.0, 0.0, 0.0]


def test_another_path_gives_the_gradient():
    x = _x()
    (NoGrad.apply(x).sum() + (x * 3).sum()).backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]
    (g,) = t.autograd.grad(NoGrad.apply(x).sum() + (x * 3).sum(), x)
    assert g.tolist() == [3.0, 3.0, 3.0]
    x, z = _x(), _x()
    gx, gz = t.autograd.grad(NoGrad.apply(x).sum() + z.sum(), [x, z], allow_unused=True)
    assert gx is None and gz.tolist() == [1.0, 1.0, 1.0]


def test_a_function_giving_none_for_one_of_its_inputs():
    class Pair(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g * 3, None

    x, z = _x(), _x()
    Pair.apply(x, z).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0] and z.grad is None


def test_an_op_node_reached_only_by_undefined_gradients_passes_none_on():
    x = _x()
    h = x * 5
    h.retain_grad()
    seen = {}
    h.register_hook(lambda g: seen.update(tensor=g))
    h.grad_fn.register_prehook(lambda go: seen.update(pre=go))
    h.grad_fn.register_hook(lambda gi, go: seen.update(post=(gi, go)))
    NoGrad.apply(h).sum().backward()
    assert seen == {"tensor": None, "pre": (None,), "post": ((None, None), (None,))}
    assert h.grad is None and x.grad is None


def test_grad_with_respect_to_an_intermediate_reached_only_by_none():
    x = _x()
    h = x * 5
    assert t.autograd.grad(NoGrad.apply(h).sum(), h, allow_unused=True) == (None,)
    with pytest.raises(RuntimeError, match=UNUSED):
        t.autograd.grad(NoGrad.apply(h).sum(), h)
    seen = {}
    m = _recording(seen, "mid").apply(x)
    assert t.autograd.grad(NoGrad.apply(m).sum(), m, allow_unused=True) == (None,)
    assert seen == {}  # only captured: not run


def test_backward_inputs_reached_only_by_none():
    x = _x()
    h = x * 5
    NoGrad.apply(h).sum().backward(inputs=[h])
    assert h.grad is None
    x, z = _x(), _x()
    (NoGrad.apply(x).sum() + z.sum()).backward(inputs=[x])
    assert x.grad is None and z.grad is None


def test_a_function_in_the_middle_gets_zeros_or_none():
    seen = {}
    x = _x()
    NoGrad.apply(_recording(seen, "zeros").apply(x)).sum().backward()
    assert seen["zeros"].tolist() == [0.0, 0.0, 0.0] and not seen["zeros"].requires_grad
    assert x.grad.tolist() == [0.0, 0.0, 0.0]  # its backward's zeros times 7
    x = _x()
    NoGrad.apply(_recording(seen, "none", materialize=False).apply(x)).sum().backward()
    assert seen["none"] is None and x.grad is None


def test_a_function_with_two_outputs_reached_only_by_none():
    seen = {}

    def two(materialize):
        class Two(Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                return x * 1, x * 2

            @staticmethod
            def backward(ctx, ga, gb):
                seen[materialize] = (ga, gb)
                return None if ga is None else ga + gb

        return Two

    x = _x()
    a, b = two(True).apply(x)
    (NoGrad.apply(a).sum() + NoGrad.apply(b).sum()).backward()
    assert [g.tolist() for g in seen[True]] == [[0.0, 0.0, 0.0]] * 2
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    x = _x()
    a, b = two(False).apply(x)
    (NoGrad.apply(a).sum() + NoGrad.apply(b).sum()).backward()
    assert seen[False] == (None, None) and x.grad is None


def test_leaf_hooks_see_none_and_nothing_is_accumulated():
    x = _x()
    y = NoGrad.apply(x)
    seen = []
    x.register_hook(lambda g: seen.append(("tensor", g)))
    accumulator = y.grad_fn.next_functions[0][0]
    accumulator.register_prehook(lambda go: seen.append(("pre", go)))
    accumulator.register_hook(lambda gi, go: seen.append(("post", gi, go)))
    x.register_post_accumulate_grad_hook(lambda p: seen.append(("accumulated", p.grad)))
    y.sum().backward()
    assert seen == [("tensor", None), ("pre", (None,)), ("accumulated", None),
                    ("post", (), (None,))]
    assert x.grad is None


def test_autograd_grad_runs_the_leaf_hook_with_none():
    x = _x()
    seen = []
    x.register_hook(lambda g: seen.append(g))
    assert t.autograd.grad(NoGrad.apply(x).sum(), x, allow_unused=True) == (None,)
    assert seen == [None]


@pytest.mark.parametrize("where", ["tensor", "leaf", "pre", "post", "accumulate_pre"])
def test_a_hook_may_not_replace_none(where):
    x = _x()
    h = x * 5
    ones = t.ones(3, dtype=t.float64)
    if where == "tensor":
        h.register_hook(lambda g: ones)
        y = NoGrad.apply(h)
    elif where == "leaf":
        x.register_hook(lambda g: ones)
        y = NoGrad.apply(x)
    elif where == "pre":
        h.grad_fn.register_prehook(lambda go: (ones,))
        y = NoGrad.apply(h)
    elif where == "post":
        h.grad_fn.register_hook(lambda gi, go: (ones, None))
        y = NoGrad.apply(h)
    else:
        y = NoGrad.apply(x)
        y.grad_fn.next_functions[0][0].register_prehook(lambda go: (ones,))
    with pytest.raises(RuntimeError, match=REPLACED):
        y.sum().backward()
    assert x.grad is None


def test_a_hook_dropping_the_gradient_leaves_none_downstream():
    x = _x()
    h = x * 5
    k = h * 2
    seen = []
    h.register_hook(lambda g: seen.append(g))
    k.grad_fn.register_prehook(lambda go: (None,))
    k.sum().backward()
    assert seen == [None] and x.grad is None


def test_create_graph():
    x = _x()
    assert t.autograd.grad(NoGrad.apply(x).sum(), x, create_graph=True,
                           allow_unused=True) == (None,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the create_graph reference-cycle warning
        NoGrad.apply(x).sum().backward(create_graph=True)
    assert x.grad is None
    seen = {}
    x = _x()
    (g,) = t.autograd.grad(NoGrad.apply(_recording(seen, "mid").apply(x)).sum() + x.sum(), x,
                           create_graph=True)
    assert seen["mid"].tolist() == [0.0, 0.0, 0.0] and not seen["mid"].requires_grad
    assert g.tolist() == [1.0, 1.0, 1.0]
    x = _x()
    (g,) = t.autograd.grad(
        NoGrad.apply(_recording(seen, "none", materialize=False).apply(x)).sum() + x.sum(), x,
        create_graph=True)
    assert seen["none"] is None and g.tolist() == [1.0, 1.0, 1.0]


def test_double_backward_through_a_gradient_without_gradient():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return NoGrad.apply(x) * g  # 2x, through a Function giving no gradient

    x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
    (g,) = t.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    assert g.tolist() == [2.0, 4.0] and g.requires_grad
    assert t.autograd.grad(g.sum(), x, allow_unused=True) == (None,)


def test_anomaly_mode():
    x = _x()
    with pytest.warns(UserWarning), t.autograd.detect_anomaly():
        NoGrad.apply(x.exp()).sum().backward()
    assert x.grad is None


def test_a_node_reached_only_by_none_still_checks_its_saved_values():
    x = _x()
    y = NoGrad.apply(x.exp())
    y.sum().backward()
    with pytest.raises(RuntimeError, match=FREED):
        y.sum().backward()
    x = _x()
    y = NoGrad.apply(x.exp())
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert x.grad is None
    x = _x()
    h = x.exp()
    y = NoGrad.apply(h * 1)
    with t.no_grad():
        h.add_(1)
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.sum().backward()


def test_grad_fn_call_gives_none():
    x = _x()
    y = NoGrad.apply(x)
    assert y.grad_fn(t.ones(3, dtype=t.float64)) is None


def test_a_registry_ops_none_is_still_a_zero_gradient():
    # cat skips 1-D empty inputs in its forward; PyTorch still gives them an (empty) gradient
    x = t.ones(2, 2, dtype=t.float64, requires_grad=True)
    e = t.zeros(0, dtype=t.float64, requires_grad=True)
    ge, gx = t.autograd.grad(t.cat([e, x], dim=1).sum(), [e, x])
    assert ge.shape == (0,) and np.array_equal(gx.numpy(), np.ones((2, 2)))
