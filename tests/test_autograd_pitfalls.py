"""Every autograd pitfall of the blog post symgrad reproduces (rows S1-S14), one test each."""

import re
import warnings

import numpy as np
import pytest

import symgrad as t
from symgrad.autograd import Variable


def test_s1_variable_is_a_thin_legacy_wrapper_returning_tensor():
    a = t.ones(3, requires_grad=True)
    assert type(a) is t.Tensor
    v = Variable(a)
    assert type(v) is t.Tensor
    assert isinstance(a, Variable)
    np.testing.assert_array_equal(v.numpy(), [1.0, 1.0, 1.0])
    assert v.requires_grad is False  # as torch.autograd.Variable(a)
    assert Variable(t.ones(2), requires_grad=True).requires_grad is True
    # it shares a's numbers and version counter (torch 2.13: a._version is 1 after this)
    b = t.ones(2)
    Variable(b).add_(1)
    assert b.tolist() == [2.0, 2.0] and b._version == 1


def test_s2_volatile_was_removed_and_stays_false():
    a = t.ones(3, requires_grad=True)
    with pytest.warns(UserWarning, match=r"volatile was removed \(Variable.volatile is always "
                                          r"False\)"):
        assert a.volatile is False
    with pytest.warns(UserWarning, match="volatile was removed"):
        a.volatile = True
    with pytest.warns(UserWarning, match="always False"):
        assert a.volatile is False


def test_s3_user_created_tensors_are_leaves_without_grad_fn():
    a = t.ones(3, requires_grad=True)
    b = t.rand(3, requires_grad=True)
    assert a.is_leaf and b.is_leaf
    assert a.grad_fn is None and b.grad_fn is None
    assert repr(a) == "tensor([1., 1., 1.], requires_grad=True)"


def test_s4_results_of_operations_are_not_leaves():
    a = t.ones(3, requires_grad=True)
    b = t.rand(3, requires_grad=True)
    c = a * b
    assert c.is_leaf is False
    assert re.fullmatch(r"<MulBackward0 object at 0x[0-9a-f]+>", repr(c.grad_fn))
    assert type(c.grad_fn).__name__ == "MulBackward0"
    assert c.grad_fn.name() == "MulBackward0"


def test_s5_requires_grad_defaults_to_false():
    assert t.ones(3).requires_grad is False
    assert t.tensor([1.0, 2.0]).requires_grad is False
    assert t.rand(2, 2).requires_grad is False


def test_s6_requires_grad_propagates_to_dependents():
    a = t.ones(3)
    b = t.ones(3, requires_grad=True)
    assert b.requires_grad is True
    c = a + b
    assert c.requires_grad is True
    assert (a * 2).requires_grad is False


def test_s7_implicit_backward_only_for_scalar_outputs():
    a = t.ones(3, requires_grad=True)
    b = t.rand(3, requires_grad=True)
    c = a * b
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar "
                                           "outputs$"):
        c.backward(retain_graph=True)
    assert a.grad is None and b.grad is None


def test_s8_vector_backward_with_explicit_gradient_accumulates_jt_v():
    a = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = t.tensor([0.5, -1.0, 4.0], requires_grad=True)
    v = t.tensor([1.0, 10.0, 100.0])
    c = a * b
    c.backward(gradient=v)
    # J of c = a*b is diag(b) w.r.t. a and diag(a) w.r.t. b, so J^T v = v*b and v*a
    np.testing.assert_allclose(a.grad.numpy(), v.numpy() * b.detach().numpy())
    np.testing.assert_allclose(b.grad.numpy(), v.numpy() * a.detach().numpy())

    m = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    w = t.tensor([[1.0, 0.0], [0.5, 2.0]])
    (m * m).backward(w)
    np.testing.assert_allclose(m.grad.numpy(), 2 * m.detach().numpy() * w.numpy())


def test_s9_reduce_then_backward_gives_the_other_factor():
    a = t.ones(3, requires_grad=True)
    b = t.rand(3, requires_grad=True)
    c = a * b
    d = c.sum()
    d.backward(retain_graph=True)
    np.testing.assert_array_equal(a.grad.numpy(), b.detach().numpy())
    np.testing.assert_array_equal(b.grad.numpy(), a.detach().numpy())
    assert repr(b.grad) == "tensor([1., 1., 1.])"


def test_s10_gradients_accumulate_over_backward_calls():
    a = t.ones(3, requires_grad=True)
    b = t.rand(3, requires_grad=True)
    c = a * b
    c.sum().backward(retain_graph=True)
    e = c.sum()
    e.backward(retain_graph=True)
    assert repr(b.grad) == "tensor([2., 2., 2.])"
    np.testing.assert_allclose(a.grad.numpy(), 2 * b.detach().numpy())


def test_s11_forward_without_backward_leaves_grad_untouched():
    a = t.ones(3, requires_grad=True)
    b = t.rand(3, requires_grad=True)
    c = a * b
    assert b.grad is None
    c.sum().backward(retain_graph=True)
    before = b.grad.numpy().copy()
    f = c.sum()
    assert f.requires_grad
    np.testing.assert_array_equal(b.grad.numpy(), before)


def test_s12_graph_is_freed_after_backward_unless_retained():
    a = t.ones(3, requires_grad=True)
    b = t.rand(3, requires_grad=True)
    c = a * b
    d = c.sum()
    d.backward()
    grads = a.grad.numpy().copy(), b.grad.numpy().copy()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        d.backward()
    with pytest.raises(RuntimeError, match="Specify retain_graph=True"):
        c.sum().backward()
    # the failed passes changed nothing
    np.testing.assert_array_equal(a.grad.numpy(), grads[0])
    np.testing.assert_array_equal(b.grad.numpy(), grads[1])

    kept = (a * b).sum()
    kept.backward(retain_graph=True)
    kept.backward()  # allowed once more


def test_s13_data_is_outside_the_graph():
    a = t.ones(3, 4, requires_grad=True)
    b = t.rand(3, 4, requires_grad=True)
    assert a.data.requires_grad is False
    c = a.data * b.data
    d = c.sum()
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and "
                                           "does not have a grad_fn$"):
        d.backward()
    # .data shares storage with the tensor
    a.data[0, 0] = 5.0
    assert a[0, 0].item() == 5.0


def test_s14_inplace_change_through_detach_is_caught_but_through_data_is_not():
    message = ("one of the variables needed for gradient computation has been modified by an "
               "inplace operation")
    a = t.ones(3, requires_grad=True)
    b = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a * b  # MulBackward0 saves a to compute b's gradient
    a.detach().zero_()
    with pytest.raises(RuntimeError, match=message):
        c.sum().backward()
    assert a.grad is None and b.grad is None

    a = t.ones(3, requires_grad=True)
    b = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a * b
    a.data.zero_()  # same storage, separate version counter: unnoticed
    c.sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), [0.0, 0.0, 0.0])  # silently uses new a
    np.testing.assert_array_equal(a.grad.numpy(), [1.0, 2.0, 3.0])

    # the saved output of exp changed through a detached alias
    x = t.tensor([0.0, 1.0], requires_grad=True)
    y = x.exp()
    y.detach().mul_(2)
    with pytest.raises(RuntimeError, match=message + r".*which is output 0 of Exp, is at "
                                                    r"version 1; expected version 0"):
        y.sum().backward()


def test_printing_follows_pytorch():
    b = t.tensor([0.9373, 0.0556, 0.6426], requires_grad=True)
    c = b * t.ones(3)
    assert repr(c) == "tensor([0.9373, 0.0556, 0.6426], grad_fn=<MulBackward0>)"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert str(t.ones(3, requires_grad=True)) == "tensor([1., 1., 1.], requires_grad=True)"
