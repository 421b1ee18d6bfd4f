"""Custom autograd Functions (``symgrad.autograd.Function``), checked against PyTorch's behaviour
(observed in torch 2.x) and closed-form derivatives."""

import warnings

import numpy as np
import pytest

import symgrad as t
from symgrad import ops
from symgrad.autograd import Function, gradcheck, gradgradcheck
from symgrad.autograd.function import FunctionCtx
from symgrad.autograd.gradcheck import GradcheckError

FREED = "Trying to backward through the graph a second time"


def _x(values=(1.0, 2.0, 3.0), requires_grad=True):
    return t.tensor(list(values), dtype=t.float64, requires_grad=requires_grad)


class Power(Function):
    @staticmethod
    def forward(ctx, x, k=2):
        ctx.save_for_backward(x)
        ctx.k = k
        ctx.grad_enabled_in_forward = t.is_grad_enabled()
        return x ** k

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * ctx.k * x ** (ctx.k - 1), None


class Exp(Function):
    """Saves its output, as PyTorch's own exp does."""

    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out


def test_save_for_backward_gradient_node_name_and_ctx_attributes():
    x = _x()
    y = Power.apply(x, 3)
    assert type(y.grad_fn).__name__ == y.grad_fn.name() == "PowerBackward"
    assert y.grad_fn.k == 3  # ctx attributes show on grad_fn, as in PyTorch
    assert y.grad_fn.grad_enabled_in_forward is False  # forward runs with grad disabled
    assert t.is_grad_enabled()
    (saved,) = y.grad_fn.saved_tensors
    np.testing.assert_array_equal(saved.detach().numpy(), [1.0, 2.0, 3.0])
    assert [type(f).__name__ for f, _ in y.grad_fn.next_functions] == ["AccumulateGrad"]
    np.testing.assert_array_equal(y.detach().numpy(), [1.0, 8.0, 27.0])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 12.0, 27.0])  # 3 x^2


def test_node_class_per_subclass_and_one_unregistered_op_cached_on_the_class():
    class MySquare(Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g

    x = _x()
    a, b = MySquare.apply(x), MySquare.apply(x)
    assert type(a.grad_fn).__name__ == "MySquareBackward"
    assert type(a.grad_fn) is type(b.grad_fn)
    assert type(a.grad_fn)._forward_cls is MySquare
    assert a.grad_fn.op is b.grad_fn.op is MySquare._op
    assert MySquare._op.joint_vjp is not None
    assert MySquare._op not in ops.REGISTRY.values()
    assert Power._op is not MySquare._op


def test_recorded_call_replays_its_forward_on_other_values():
    x = _x()
    y = Power.apply(x, 3)
    node = y.grad_fn
    assert [type(a).__name__ for a in node.params["args"]] == ["Slot", "int"]
    assert node.inputs[0] is x
    replayed = node.op.forward(None, np.array([2.0, -1.0]), **node.params)
    np.testing.assert_array_equal(replayed, [8.0, -1.0])


def test_non_tensor_arguments_keywords_and_needs_input_grad():
    seen = {}

    class Scale(Function):
        @staticmethod
        def forward(ctx, a, s, b, *, shift=0.0):
            seen["forward"] = ctx.needs_input_grad
            return a * b * s + shift

        @staticmethod
        def backward(ctx, g):
            seen["backward"] = ctx.needs_input_grad
            return None, None, g * 2.0

    a, b = _x(requires_grad=False), _x()
    y = Scale.apply(a, 2.0, b, shift=1.0)
    np.testing.assert_array_equal(y.detach().numpy(), [3.0, 9.0, 19.0])
    assert seen["forward"] == (False, False, True)
    assert [f is None for f, _ in y.grad_fn.next_functions] == [True, False]
    y.sum().backward()
    assert seen["backward"] == (False, False, True)
    np.testing.assert_array_equal(b.grad.numpy(), [2.0, 2.0, 2.0])
    with t.no_grad():  # PyTorch still reports requires_grad here, and records nothing
        z = Scale.apply(a, 2.0, b)
    assert seen["forward"] == (False, False, True)
    assert not z.requires_grad and z.grad_fn is None
    z = Scale.apply(a, 2.0, a)  # nothing requires grad: nothing recorded
    assert not z.requires_grad


def test_saved_input_changed_in_place_raises_pytorchs_error():
    x = _x()
    z = x * 1
    y = Power.apply(z)
    z.add_(1)
    with pytest.raises(RuntimeError, match=r"^one of the variables needed for gradient "
                       r"computation has been modified by an inplace operation: "
                       r"\[symgrad.DoubleTensor \[3\]\], which is output 0 of Add, is at "
                       r"version 1; expected version 0 instead\."):
        y.sum().backward()
    assert x.grad is None


def test_saved_output_changed_in_place_names_the_function():
    x = _x()
    y = Exp.apply(x)
    y.mul_(2)
    with pytest.raises(RuntimeError, match=r"\[symgrad.DoubleTensor \[3\]\], which is output 0 "
                                           r"of Exp, is at version 1; expected version 0"):
        y.sum().backward()


def test_saved_output_unpacks_with_the_function_as_grad_fn():
    x = _x()
    y = Exp.apply(x)
    (out,) = y.grad_fn.saved_tensors
    assert out is not y and out.grad_fn is y.grad_fn and out.requires_grad


def test_saved_tensors_are_freed_by_a_backward_without_retain_graph():
    x = _x()
    y = Power.apply(x)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 8.0, 12.0])
    with pytest.raises(RuntimeError, match=FREED):
        y.sum().backward()
    with pytest.raises(RuntimeError, match=FREED):
        y.grad_fn.saved_tensors  # noqa: B018


def test_freed_ctx_drops_its_saved_tensors_and_still_lowers():
    """PyTorch releases ctx.saved_tensors with the graph: the ctx keeps no reference to them
    (the memory goes), while lowering replays the forward as before."""
    from symgrad import symbolic

    x = _x()
    y = Exp.apply(x * 1)
    ctx = y.grad_fn
    assert ctx._saved is not None
    y.sum().backward()
    assert ctx._saved is None
    with pytest.raises(RuntimeError, match=FREED):
        ctx.saved_tensors  # noqa: B018
    s, c = SinCos.apply(x)
    (s + c).sum().backward()
    assert s.grad_fn._saved is None
    lowered = symbolic.lower((s * c).sum())
    np.testing.assert_allclose(float(lowered.expr[()].subs(lowered.values)),
                               float((np.sin([1.0, 2, 3]) * np.cos([1.0, 2, 3])).sum()))


def test_function_without_saved_tensors_may_run_backward_twice():
    class Double(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = _x()
    s = Double.apply(x).sum()
    s.backward()
    s.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 4.0, 4.0])


def test_save_for_backward_accepts_tensors_and_none_only():
    class Saves(Function):
        @staticmethod
        def forward(ctx, x, what):
            ctx.save_for_backward(x, what)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            x, nothing = ctx.saved_tensors
            assert nothing is None
            return g * 2, None

    x = _x()
    Saves.apply(x, None).sum().backward()
    with pytest.raises(TypeError, match="^save_for_backward can only save variables, but "
                                        "argument 1 is of type int"):
        Saves.apply(x, 3)


def test_intermediate_saved_tensor_comes_back_as_is():
    class Inter(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x * 5)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            (five_x,) = ctx.saved_tensors
            assert not five_x.requires_grad and five_x.grad_fn is None
            return g * five_x

    x = _x()
    Inter.apply(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 10.0, 15.0])


def _with_backward(rule):
    class F(Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return rule(g)

    return F


@pytest.mark.parametrize("rule, message", [
    (lambda g: (g,), r"^function FBackward returned an incorrect number of gradients "
                     r"\(expected 2, got 1\)$"),
    (lambda g: g, r"^function FBackward returned an incorrect number of gradients "
                  r"\(expected 2, got 1\)$"),
    (lambda g: (g, None, g), r"^function FBackward returned an incorrect number of gradients "
                             r"\(expected 2, got 3\)$"),
    (lambda g: (g, g), r"^function FBackward returned a gradient different than None at "
                       r"position 2, but the corresponding forward input was not a Variable$"),
    (lambda g: (g[:2], None), r"^Function FBackward returned an invalid gradient at index 0 - "
                              r"got \[2\] but expected shape compatible with \[3\]$"),
    (lambda g: (g.sum(), None), r"^Function FBackward returned an invalid gradient at index 0 "
                                r"- got \[\] but expected shape compatible with \[3\]$"),
    (lambda g: (3.0, None), r"^expected Variable or None \(got float\)$"),
])
def test_wrong_backward_results_raise_pytorchs_errors(rule, message):
    x = _x()
    y = _with_backward(rule).apply(x, 2.0).sum()
    with pytest.raises(RuntimeError, match=message):
        y.backward()
    assert x.grad is None


def test_backward_results_pytorch_accepts():
    x = _x()
    _with_backward(lambda g: (g, None, None)).apply(x, 2.0).sum().backward()  # extra Nones
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])
    x.grad = None
    # a gradient in a shape the input broadcasts to is summed back
    _with_backward(lambda g: (t.ones(2, 3, dtype=t.float64), None)).apply(x, 2.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])
    x.grad = None
    _with_backward(lambda g: (g.float(), None)).apply(x, 2.0).sum().backward()  # cast back
    assert x.grad.dtype is t.float64
    x.grad = None
    _with_backward(lambda g: (g.long(), None)).apply(x, 2.0).sum().backward()
    assert x.grad.dtype is t.float64
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])


def test_gradient_for_an_input_that_needs_none_is_ignored():
    class Both(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g[:1], g  # a's is wrongly shaped, but a does not require grad

    a, b = _x(requires_grad=False), _x()
    Both.apply(a, b).sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 1.0, 1.0])


def test_outputs_marked_non_differentiable_integer_and_python_outputs():
    seen = {}

    class Stats(Function):
        @staticmethod
        def forward(ctx, x):
            copy = x * 1
            ctx.mark_non_differentiable(copy)
            return x.sum(), x.long(), copy, 7

        @staticmethod
        def backward(ctx, g_sum, g_long, g_copy, g_seven):
            seen.update(long=g_long, copy=g_copy, seven=g_seven)
            return g_sum * t.ones(3, dtype=t.float64)

    x = _x()
    total, as_long, copy, seven = Stats.apply(x)
    assert total.requires_grad and type(total.grad_fn).__name__ == "StatsBackward"
    assert not as_long.requires_grad and as_long.grad_fn is None
    assert not copy.requires_grad and copy.grad_fn is None
    assert seven == 7
    total.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])
    # PyTorch materializes zeros for tensor outputs without a gradient, None for the others
    assert seen["long"].dtype is t.int64
    np.testing.assert_array_equal(seen["long"].numpy(), [0, 0, 0])
    np.testing.assert_array_equal(seen["copy"].numpy(), [0.0, 0.0, 0.0])
    assert seen["seven"] is None


def test_set_materialize_grads_false_gives_none():
    seen = {}

    class Masked(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            mask = x > 1
            return x * 2, mask

        @staticmethod
        def backward(ctx, g, g_mask):
            seen["mask"] = g_mask
            return g * 2

    x = _x()
    out, mask = Masked.apply(x)
    assert mask.dtype is t.bool and not mask.requires_grad
    out.sum().backward()
    assert seen["mask"] is None
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])


class SinCos(Function):
    """Two differentiable outputs, both saved."""

    @staticmethod
    def forward(ctx, x):
        s, c = x.sin(), x.cos()
        ctx.save_for_backward(s, c)
        return s, c

    @staticmethod
    def backward(ctx, g_sin, g_cos):
        s, c = ctx.saved_tensors
        return g_sin * c - g_cos * s


def test_several_differentiable_outputs():
    x = _x()
    s, c = SinCos.apply(x)
    assert type(s.grad_fn).__name__ == type(c.grad_fn).__name__ == "SinCosBackward"
    assert s.grad_fn.needs_input_grad == (True,)  # the call's ctx, from either output
    xv = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(s.detach().numpy(), np.sin(xv))
    (3 * s + c * c).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.cos(xv) - 2 * np.cos(xv) * np.sin(xv))
    x.grad = None
    s, c = SinCos.apply(x)
    c.sum().backward()  # the unused output's gradient is materialized as zeros
    np.testing.assert_allclose(x.grad.numpy(), -np.sin(xv))


def test_several_outputs_of_different_dtypes():
    seen = {}

    class Mixed(Function):
        @staticmethod
        def forward(ctx, x):
            return x.float() * 2, x * 3

        @staticmethod
        def backward(ctx, g32, g64):
            seen["dtypes"] = (g32.dtype, g64.dtype)
            return g32 * 2 + g64 * 3

    x = _x()
    a, b = Mixed.apply(x)
    assert (a.dtype, b.dtype) == (t.float32, t.float64)
    (a.sum() + b.sum()).backward()
    assert seen["dtypes"] == (t.float32, t.float64)
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 5.0, 5.0])


def test_double_backward_through_a_function():
    x = _x()
    y = Power.apply(x, 3)
    (g,) = t.autograd.grad(y.sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [3.0, 12.0, 27.0])
    assert g.requires_grad
    (gg,) = t.autograd.grad(g.sum(), x)
    np.testing.assert_array_equal(gg.numpy(), [6.0, 12.0, 18.0])  # 6 x


def test_double_backward_through_saved_outputs_and_several_outputs():
    x = _x()
    xv = np.array([1.0, 2.0, 3.0])
    (g,) = t.autograd.grad(Exp.apply(x).sum(), x, create_graph=True)
    (gg,) = t.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), np.exp(xv))
    s, c = SinCos.apply(x)
    (g,) = t.autograd.grad((3 * s * s + c).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 6 * np.sin(xv) * np.cos(xv) - np.sin(xv))
    (gg,) = t.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), 6 * np.cos(2 * xv) - np.cos(xv))


def test_backward_runs_with_grad_mode_of_the_pass():
    modes = []

    class Spy(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            modes.append(t.is_grad_enabled())
            return g * 2

    x = _x()
    Spy.apply(x).sum().backward()
    t.autograd.grad(Spy.apply(x).sum(), x, create_graph=True)
    assert modes == [False, True]


def test_gradcheck_catches_a_wrong_backward():
    class BadSquare(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x  # should be 2 x

    x = _x((1.0, 2.0))
    with pytest.raises(GradcheckError, match=r"^Jacobian mismatch for output 0 with respect to "
                                             r"input 0,\nnumerical:tensor\(\[\[2\.0000, 0\.0000\]"):
        gradcheck(BadSquare.apply, (x,))
    assert gradcheck(BadSquare.apply, (x,), raise_exception=False) is False
    assert gradcheck(lambda x: Power.apply(x, 3), (x,))
    assert gradgradcheck(lambda x: Power.apply(x, 3), (x,))


def test_gradgradcheck_catches_a_backward_that_is_not_differentiable():
    class DetachedCube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x.detach() ** 2  # right first derivative, lost second one

    x = _x((1.0, 2.0))
    assert gradcheck(DetachedCube.apply, (x,))
    with pytest.raises(GradcheckError, match="^Jacobian mismatch for output 0 with respect to "
                                             "input 0,"):
        gradgradcheck(DetachedCube.apply, (x,))


def test_mark_dirty_rebases_the_modified_input():
    class DoubleInPlace(Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    leaf = _x()
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad has been used in "
                                           "an in-place operation."):
        DoubleInPlace.apply(leaf)
    x = _x()
    z = x * 1
    w = DoubleInPlace.apply(z)
    assert w is z and type(z.grad_fn).__name__ == "DoubleInPlaceBackward"
    assert z._version == 2  # the in-place change and mark_dirty, as in PyTorch
    np.testing.assert_array_equal(z.detach().numpy(), [2.0, 4.0, 6.0])
    (w * w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [8.0, 16.0, 24.0])  # d(4x^2)/dx


def test_input_returned_as_is_becomes_a_new_tensor():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = _x()
    y = Identity.apply(x)
    assert y is not x and type(y.grad_fn).__name__ == "IdentityBackward"
    assert x.grad_fn is None
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0, 3.0])


def test_setup_context_style_and_vjp_alias():
    class Scaled(Function):
        @staticmethod
        def forward(x, k=2.0):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]

        @staticmethod
        def vjp(ctx, g):
            return g * ctx.k, None

    x = _x()
    Scaled.apply(x, k=3.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0, 3.0])
    x.grad = None
    Scaled.apply(x).sum().backward()  # the default is bound, as in PyTorch
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])

    class Both(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

        @staticmethod
        def vjp(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="^Implementing both 'backward' and 'vjp' for a "
                                           "custom Function is not allowed."):
        Both.apply(x).sum().backward()


def test_legacy_style_and_missing_methods():
    class Legacy(Function):
        def forward(self, x):
            return x

        def backward(self, g):
            return g

    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        legacy = Legacy()
    with pytest.raises(RuntimeError, match="^Legacy autograd function with non-static forward "
                                           "method is deprecated. Please use new-style autograd "
                                           "function with static forward method."):
        legacy(_x())

    class NoForward(Function):
        @staticmethod
        def backward(ctx, g):
            return g

    class NoBackward(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    with pytest.raises(NotImplementedError, match="^You must implement the forward function for "
                                                  "custom autograd.Function."):
        NoForward.apply(_x())
    y = NoBackward.apply(_x()).sum()
    with pytest.raises(NotImplementedError, match="^You must implement either the backward or vjp "
                                                  "method for your custom autograd.Function"):
        y.backward()


def test_ctx_outside_a_recorded_call():
    ctx = FunctionCtx()
    assert ctx.saved_tensors == ()
    ctx.save_for_backward(_x())
    assert ctx.saved_tensors == ()  # as in PyTorch's forward: saved tensors come after it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = Power.apply(_x(requires_grad=False), 2)
    assert out.grad_fn is None
