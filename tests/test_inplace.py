"""In-place ops: results, recorded history, version counters and the errors PyTorch raises."""

import numpy as np
import pytest

import symgrad as t

MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace"


@pytest.mark.parametrize(
    ("apply", "node", "expected_value", "expected_grad"),
    [
        (lambda x, b: x.add_(b), "AddBackward0", [3.0, 5.0], ([1.0, 1.0], [1.0, 1.0])),
        (lambda x, b: x.add_(b, alpha=2), "AddBackward0", [5.0, 8.0], ([1.0, 1.0], [2.0, 2.0])),
        (lambda x, b: x.sub_(b), "SubBackward0", [-1.0, -1.0], ([1.0, 1.0], [-1.0, -1.0])),
        (lambda x, b: x.mul_(b), "MulBackward0", [2.0, 6.0], ([2.0, 3.0], [1.0, 2.0])),
        (lambda x, b: x.div_(b), "DivBackward0", [0.5, 2 / 3], ([0.5, 1 / 3], [-0.25, -2 / 9])),
        (lambda x, b: x.__iadd__(b), "AddBackward0", [3.0, 5.0], ([1.0, 1.0], [1.0, 1.0])),
        (lambda x, b: x.__imul__(b), "MulBackward0", [2.0, 6.0], ([2.0, 3.0], [1.0, 2.0])),
        (lambda x, b: x.copy_(b), "CopyBackwards", [2.0, 3.0], ([0.0, 0.0], [1.0, 1.0])),
    ],
)
def test_inplace_ops_rebase_history(apply, node, expected_value, expected_grad):
    a = t.tensor([1.0, 2.0], requires_grad=True)
    b = t.tensor([2.0, 3.0], requires_grad=True)
    x = a * 1  # a non-leaf can be changed in place
    version = x._version
    out = apply(x, b)
    assert out is x
    assert x._version == version + 1
    assert type(x.grad_fn).__name__ == node
    np.testing.assert_allclose(x.detach().numpy(), expected_value, rtol=1e-6)
    x.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), expected_grad[0], rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), expected_grad[1], rtol=1e-6)


def test_zero_fill_and_setitem():
    a = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = a * 2
    x.zero_()
    assert type(x.grad_fn).__name__ == "ZeroBackward0" and x.tolist() == [0.0, 0.0, 0.0]
    y = a * 2
    y.fill_(7)
    assert type(y.grad_fn).__name__ == "FillBackward2" and y.tolist() == [7.0, 7.0, 7.0]
    (x.sum() + y.sum()).backward()
    np.testing.assert_array_equal(a.grad.numpy(), [0.0, 0.0, 0.0])

    a.grad = None
    v = t.tensor(10.0, requires_grad=True)
    z = a * 2
    z[1] = v
    assert type(z.grad_fn).__name__ == "CopySlices"
    assert z.tolist() == [2.0, 10.0, 6.0]
    (z * t.tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 0.0, 6.0])
    assert v.grad.item() == 2.0


def test_inplace_on_leaf_requiring_grad_is_refused_except_under_no_grad():
    w = t.ones(3, requires_grad=True)
    for change in (lambda: w.add_(1), lambda: w.mul_(2), lambda: w.zero_(),
                   lambda: w.__iadd__(1)):
        with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used "
                                               "in an in-place operation.$"):
            change()
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad"):
        w[0] = 5.0
    assert w.tolist() == [1.0, 1.0, 1.0] and w._version == 0
    with t.no_grad():
        w -= 0.5  # the optimizer step pattern
        w[0] = 2.0
    assert w.tolist() == [2.0, 0.5, 0.5] and w.is_leaf and w.requires_grad


def test_inplace_errors_change_nothing():
    x = t.ones(3)
    with pytest.raises(RuntimeError, match="^output with shape \\[3\\] doesn't match the "
                                           "broadcast shape \\[2, 3\\]$"):
        x.add_(t.ones(2, 3))
    i = t.tensor([1, 2])
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired "
                                           "output type Long$"):
        i.add_(t.ones(2) * 0.5)
    assert x.tolist() == [1.0, 1.0, 1.0] and x._version == 0
    assert i.tolist() == [1, 2] and i._version == 0
    i.add_(3)
    assert i.tolist() == [4, 5]


def test_modifying_a_saved_input_is_detected():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    h = a * 1
    y = h * h  # saves h
    h.add_(1)
    with pytest.raises(RuntimeError, match=MODIFIED + r".*is at version 1; expected version 0"):
        y.sum().backward()


def test_modifying_an_input_that_is_not_saved_is_fine():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    h = a * 1
    y = h + 3  # AddBackward0 saves nothing
    h.mul_(5)
    y.sum().backward()
    # y was recorded from h before the change: its edge keeps pointing at h's old history
    np.testing.assert_array_equal(a.grad.numpy(), [1.0, 1.0])


def test_modifying_a_saved_output_is_detected():
    a = t.tensor([0.5, 1.0], requires_grad=True)
    for make in (lambda: a.exp(), lambda: a.tanh(), lambda: a.sigmoid(), lambda: a.sqrt()):
        y = make()
        y.mul_(2)
        with pytest.raises(RuntimeError, match=MODIFIED + ".*which is output 0 of"):
            y.sum().backward()


def test_views_share_the_version_counter():
    a = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    e = a.exp()
    view = e.detach().reshape(3)
    view[0] = 0.0  # changes e's storage through a view of a detached alias
    with pytest.raises(RuntimeError, match=MODIFIED):
        e.sum().backward()


def test_inplace_through_a_view_of_a_leaf_is_refused():
    a = t.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being "
                                           "used in an in-place operation."):
        a[0:2].mul_(2)
    assert a.tolist() == [1.0, 1.0, 1.0]
    plain = t.zeros(4)
    plain[1:3].add_(1)  # no graph involved: a view writes through, as in PyTorch
    assert plain.tolist() == [0.0, 1.0, 1.0, 0.0]


@pytest.mark.parametrize(
    ("change", "values", "grad"),
    [
        (lambda h: h[0:2].mul_(2), [4.0, 8.0, 6.0], [4.0, 4.0, 2.0]),
        (lambda h: h[1].__iadd__(10), [2.0, 14.0, 6.0], [2.0, 2.0, 2.0]),
        (lambda h: h.view(3)[2:].zero_(), [2.0, 4.0, 0.0], [2.0, 2.0, 0.0]),
        (lambda h: h.unsqueeze(0).T[1:, 0].mul_(3), [2.0, 12.0, 18.0], [2.0, 6.0, 6.0]),
    ],
)
def test_inplace_through_a_view_rebases_the_base(change, values, grad):
    a = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = a * 2
    change(h)
    assert h.tolist() == values
    assert type(h.grad_fn).__name__ == "CopySlices"
    h.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), grad)


def test_augmented_assignment_on_an_element():
    w = t.tensor([1.0, 2.0], requires_grad=True)
    x = t.zeros(3)
    x[0] += w[0] * 3  # the view x[0] changes in place; x joins the graph
    x[2] = w[1]
    assert x.requires_grad and x.tolist() == [3.0, 0.0, 2.0]
    (x * t.tensor([1.0, 1.0, 5.0])).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [3.0, 5.0])


def test_expanded_tensors_cannot_be_written():
    with pytest.raises(RuntimeError, match="unsupported operation: more than one element of the "
                                           "written-to tensor refers to a single memory location"):
        t.ones(3).expand(2, 3).add_(1)


def test_retain_grad_survives_an_inplace_change():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    h = a * 1
    h.retain_grad()
    h.mul_(3)
    h.sum().backward()
    np.testing.assert_array_equal(h.grad.numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(a.grad.numpy(), [3.0, 3.0])
