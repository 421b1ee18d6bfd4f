"""Edge conventions where PyTorch's behaviour is easy to get wrong (found by comparing symgrad
with PyTorch 2.13 case by case; the expected values are PyTorch's)."""

import copy
import warnings

import numpy as np
import pytest

import symgrad as t

MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace"


def test_a_view_of_a_view_shares_the_base_version_counter():
    a = t.ones(4)
    a[1:][1:].add_(1)
    assert a._version == 1 and a.tolist() == [1.0, 1.0, 2.0, 2.0]
    x = t.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x[1:][1:].mul_(2)
    y = x.sigmoid()
    y.detach()[1:][1:].zero_()
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.sum().backward()


def test_a_view_taken_before_an_inplace_change_of_its_base_follows_the_new_history():
    x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    v = y[1:]
    y.mul_(2)
    assert v.tolist() == [4.0, 6.0]
    v.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 2.0, 2.0])


def test_the_same_output_twice_counts_twice():
    a = t.ones(3, requires_grad=True)
    y = (a * 2).sum()
    t.autograd.backward([y, y], retain_graph=True)
    np.testing.assert_array_equal(a.grad.numpy(), [4.0, 4.0, 4.0])
    (g,) = t.autograd.grad([y, y], a)
    np.testing.assert_array_equal(g.numpy(), [4.0, 4.0, 4.0])


def test_empty_dim_list_reduces_everything():
    x = t.ones(2, 3, requires_grad=True)
    s = x.sum(())
    assert s.shape == () and s.item() == 6.0 and type(s.grad_fn).__name__ == "SumBackward1"
    m = x.mean(dim=())
    assert m.shape == () and type(m.grad_fn).__name__ == "MeanBackward1"
    m.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), 1 / 6))
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        x.sum((0, 0))
    with pytest.raises(RuntimeError, match="dim 1 appears multiple times"):
        x.sum((-1, 1))
    with pytest.raises(TypeError, match="sum\\(\\) received an invalid combination of arguments"):
        x.sum(keepdim=True)
    assert x.sum(axis=1).tolist() == [3.0, 3.0]


@pytest.mark.parametrize(
    ("make", "dtype", "values"),
    [
        (lambda: 2.5 - t.tensor([1, 2]), t.float32, [1.5, 0.5]),
        (lambda: t.tensor([1, 4, 9]) ** 0.5, t.float32, [1.0, 2.0, 3.0]),
        (lambda: t.tensor([1, 2]) ** t.tensor([2, 2]), t.int64, [1, 4]),
        (lambda: 3 ** t.tensor([1, 2]), t.int64, [3, 9]),
        (lambda: t.tensor([1, 2]) ** 2, t.int64, [1, 4]),
        (lambda: t.tensor([1, 2]) / 2, t.float32, [0.5, 1.0]),
    ],
)
def test_python_number_operands_take_part_in_promotion(make, dtype, values):
    result = make()
    assert result.dtype is dtype
    assert result.tolist() == values


def test_negative_scalar_base_gives_nan_gradient_not_an_error():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    with np.errstate(invalid="ignore"):
        ((-2) ** x).sum().backward()
    assert np.isnan(x.grad.numpy()).all()


def test_hooks_cannot_change_the_gradient_shape_or_type():
    a = t.ones(3, requires_grad=True)
    a.register_hook(lambda g: t.ones(4))
    with pytest.raises(RuntimeError, match="hook '<lambda>' has changed the size of value"):
        a.sum().backward()
    b = t.ones(3, requires_grad=True)
    b.register_hook(lambda g: 1)
    with pytest.raises(TypeError, match="expected Variable, but hook returned 'int'"):
        (b * 2).sum().backward()
    assert a.grad is None and b.grad is None


def test_integer_results_are_not_recorded():
    x = t.tensor([1.5, -2.5], requires_grad=True)
    for result in (x.long(), x.bool(), x.to(t.int64), x > 0):
        assert not result.requires_grad and result.grad_fn is None and result.is_leaf


def test_version_is_an_int_counting_inplace_changes():
    x = t.ones(2)
    assert x._version == 0
    x.add_(1)
    x[0] = 3.0
    assert x._version == 2
    d = x.detach()
    d.mul_(2)
    assert x._version == 3 and x.data._version == 0


def test_bool_subtraction_and_negation_are_refused():
    mask = t.tensor([True, False])
    for run in (lambda: t.ones(2) - mask, lambda: mask - 1, lambda: t.ones(2) - True,
                lambda: 0.5 - t.tensor(True)):
        with pytest.raises(RuntimeError, match="^Subtraction, the `-` operator, with a bool "
                                               "tensor is not supported."):
            run()
    # two bools: PyTorch's other sentence (torch 2.13), whichever spelling
    for run in (lambda: mask.sub(mask), lambda: mask - True, lambda: True - mask,
                lambda: t.sub(mask, mask), lambda: mask.sub_(mask), lambda: mask - t.tensor(True)):
        with pytest.raises(RuntimeError, match="^Subtraction, the `-` operator, with two bool "
                                               "tensors is not supported. Use the `\\^`"):
            run()
    # relu and abs have no bool kernel (torch 2.13), in any spelling
    for run in (mask.relu, mask.relu_, lambda: t.relu(mask), lambda: t.nn.functional.relu(mask)):
        with pytest.raises(RuntimeError, match="^Boolean inputs not supported for relu$"):
            run()
    for run in (mask.abs, mask.abs_, lambda: t.abs(mask), lambda: abs(mask), mask.absolute):
        with pytest.raises(NotImplementedError, match="^\"abs_cpu\" not implemented for 'Bool'$"):
            run()
    assert mask.tolist() == [True, False]  # (refused before any change)
    with pytest.raises(RuntimeError, match="^Negation, the `-` operator, on a bool tensor is not "
                                           "supported."):
        -mask  # noqa: B018


def test_integer_alpha_rule_and_mixed_dtype_matmul():
    i = t.tensor([1, 2])
    with pytest.raises(RuntimeError, match="For integral input tensors, argument alpha must not "
                                           "be a floating point number."):
        i.add(i, alpha=0.5)
    assert i.add(i, alpha=2).tolist() == [3, 6]
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: "
                                           "float != double"):
        t.ones(2, 2) @ t.ones(2, 2, dtype=t.float64)
    with pytest.raises(RuntimeError, match="dot : expected both vectors to have same dtype, but "
                                           "found Float and Double"):
        t.ones(3).dot(t.ones(3, dtype=t.float64))
    with pytest.raises(RuntimeError, match="The size of tensor a \\(4\\) must match the size of "
                                           "tensor b \\(3\\) at non-singleton dimension 0"):
        t.ones(4, 2, 3) @ t.ones(3, 3, 2)


def test_accumulating_into_a_grad_that_has_a_graph_keeps_it():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the reference-cycle warning
        (a ** 3).sum().backward(create_graph=True)
    (a * 2).sum().backward()
    assert a.grad.requires_grad
    np.testing.assert_array_equal(a.grad.detach().numpy(), [5.0, 14.0])


def test_size_slices_and_sums_stay_sizes():
    s = t.ones(2, 3, 4).shape
    assert isinstance(s[1:], t.Size) and s[1:] == (3, 4) and repr(s[:1]) == "symgrad.Size([2])"
    assert isinstance(s + (5,), t.Size)
    assert s.numel() == 24


def test_deepcopy_of_leaves_only():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    (a * 3).sum().backward()
    b = copy.deepcopy(a)
    assert b is not a and b.requires_grad and b.is_leaf and b.grad.tolist() == [3.0, 3.0]
    b.detach()[0] = 9.0
    assert a[0].item() == 1.0
    with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
        copy.deepcopy(a * 2)


def test_devices_compare_like_pytorch():
    assert t.ones(1).device == t.device("cpu")
    assert t.ones(1).device != "cpu"  # a device is not equal to a string, as in PyTorch
    assert str(t.device("cuda:0")) == "cuda:0" and t.device("cuda:0").index == 0


def test_grad_mode_decorators_without_parentheses():
    x = t.ones(2, requires_grad=True)

    @t.no_grad
    def doubled(v):
        return v * 2

    @t.enable_grad
    def tripled(v):
        return v * 3

    assert not doubled(x).requires_grad
    with t.no_grad():
        assert tripled(x).requires_grad
    assert t.is_grad_enabled()


def test_view_and_reshape_on_non_contiguous_storage():
    a = t.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^view size is not compatible with input tensor's size "
                                           "and stride"):
        a.t().view(6)
    r = a.t().reshape(6)
    assert type(r.grad_fn).__name__ == "UnsafeViewBackward0"
    assert type(a.reshape(6).grad_fn).__name__ == "ViewBackward0"
    assert type(a.unsqueeze(0).unsqueeze(2).squeeze((0, 2)).grad_fn).__name__ == \
        "SqueezeBackward2"


def test_foreign_operands_raise_pythons_type_error():
    x = t.ones(2)
    with pytest.raises(TypeError, match="unsupported operand type\\(s\\) for \\+: 'Tensor' and "
                                        "'str'"):
        x + "a"
    with pytest.raises(TypeError, match="unsupported operand type\\(s\\) for @"):
        x @ [1.0, 2.0]
    assert (x == [1.0, 1.0]) is False  # not a tensor: plain identity comparison, as in PyTorch
    assert (x + np.ones(2)).dtype is t.float64  # numpy arrays are accepted, as in PyTorch


def test_scalar_conversions_and_format():
    with pytest.raises(ValueError, match="only one element tensors can be converted to Python "
                                         "scalars"):
        float(t.ones(2))
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with no values is ambiguous"):
        bool(t.ones(0))
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        format(t.ones(2), ".2f")
    with pytest.warns(UserWarning, match="Converting a tensor with requires_grad=True to a "
                                         "scalar may lead to unexpected behavior"):
        float(t.tensor(2.0, requires_grad=True))
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        t.tensor(1.0).size(0)


def test_indexing_edges():
    with pytest.raises(IndexError, match="^invalid index of a 0-dim tensor"):
        t.tensor(1.0)[0]
    z = t.zeros(3)
    z[1] = t.tensor([6.0])  # a one-element tensor fills one slot, as in PyTorch
    assert z.tolist() == [0.0, 6.0, 0.0]
    with pytest.raises(RuntimeError, match="The expanded size of the tensor \\(2\\) must match the "
                                           "existing size \\(3\\) at non-singleton dimension 0"):
        z[:2] = t.ones(3)
    y = t.ones(3, requires_grad=True) * 1
    y[t.tensor([0, 2])] = 0.0
    assert type(y.grad_fn).__name__ == "IndexPutBackward0"
    y[...] = 1.0
    assert type(y.grad_fn).__name__ == "CopyBackwards"


def test_creation_errors():
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1 \\(got 1\\)"):
        t.tensor([[1, 2], [3]])
    with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension -1"):
        t.zeros(-1)
    with pytest.raises(NotImplementedError, match="\"normal_kernel_cpu\" not implemented for "
                                                  "'Long'"):
        t.randn(2, dtype=t.int64)
    with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent with step "
                                           "sign"):
        t.arange(1, 0)
    assert t.tensor(range(3)).tolist() == [0, 1, 2]
    assert t.tensor([np.float64(1.0), 2]).dtype is t.float64
    t_ = t.Tensor(2, 3)
    assert t_.shape == (2, 3) and t_.dtype is t.float32
    assert t.Tensor([1, 2]).tolist() == [1.0, 2.0]


def test_saved_input_error_names_the_tensors_current_producer():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    h = a * 1
    y = h * h
    h.add_(1)
    with pytest.raises(RuntimeError, match=MODIFIED + " operation: \\[symgrad.FloatTensor "
                                                      "\\[2\\]\\], which is output 0 of Add, "
                                                      "is at version 1"):
        y.sum().backward()


@pytest.mark.parametrize(
    "make",
    [
        lambda x: x.relu().sqrt(),
        lambda x: x.relu().log(),
        lambda x: x.sign().sqrt(),
        lambda x: (x ** 0 * 0).log(),
    ],
)
def test_zero_gradients_stay_zero_behind_infinite_ones(make):
    # PyTorch selects or returns zeros; multiplying an infinite gradient by 0 would give nan
    x = t.tensor([-1.0, 0.0], dtype=t.float64, requires_grad=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        make(x).sum().backward()
    assert not np.isnan(x.grad.numpy()).any()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])


def test_zero_and_fill_and_copy_give_zero_gradients_to_the_old_value():
    x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
    for change in (lambda y: y.zero_(), lambda y: y.fill_(0.0),
                   lambda y: y.copy_(t.zeros(2, dtype=t.float64))):
        x.grad = None
        y = x * 1
        change(y)
        with np.errstate(divide="ignore"):
            y.log().sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])


def test_copy_into_integer_and_bool_tensors_converts_as_pytorch():
    # PyTorch: floats truncated toward zero, nonzero is True, no gradient reaches an integer
    x = t.zeros(2, 3, dtype=t.long)
    src = t.tensor([1.7, -2.5, 3.9], requires_grad=True)
    assert x.copy_(src) is x and x._version == 1
    np.testing.assert_array_equal(x.numpy(), [[1, -2, 3], [1, -2, 3]])
    assert x.dtype is t.int64 and not x.requires_grad and x.grad_fn is None
    flags = t.zeros(3, dtype=t.bool).copy_(t.tensor([0.5, 0.0, -2.0]))
    np.testing.assert_array_equal(flags.numpy(), [True, False, True])
    with pytest.raises(RuntimeError, match="The size of tensor a"):
        t.zeros(2, dtype=t.long).copy_(t.tensor([1.0, 2.0, 3.0]))


def test_float32_inputs_of_a_float64_result_are_differentiated_in_float64():
    a = t.tensor([0.7], requires_grad=True)
    b = t.tensor([1.3], dtype=t.float64, requires_grad=True)
    (a ** b).sum().backward()
    a64 = np.float64(np.float32(0.7))
    expected = a64 ** 1.3 * np.log(a64)  # PyTorch computes log(a) in float64
    assert b.grad.item() == pytest.approx(expected, rel=1e-14)
    assert a.grad.dtype is t.float32 and b.grad.dtype is t.float64


def test_contiguous_makes_view_possible():
    x = t.arange(6.0).reshape(2, 3).requires_grad_()
    y = x.T.contiguous()
    assert y.is_contiguous() and type(y.grad_fn).__name__ == "CloneBackward0"
    (y.view(-1) * t.arange(6.0)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]])
    assert x.contiguous() is x


def test_retain_grad_survives_inplace_through_a_view():
    x = t.ones(3, 3, requires_grad=True)
    y = x * x
    y.retain_grad()
    y[:2].mul_(2)
    (y * 3).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), np.full((3, 3), 3.0))
    np.testing.assert_array_equal(x.grad.numpy(), [[12.0] * 3, [12.0] * 3, [6.0] * 3])


@pytest.mark.parametrize(
    ("method", "function", "node"),
    [("neg_", np.negative, "NegBackward0"), ("exp_", np.exp, "ExpBackward0"),
     ("log_", np.log, "LogBackward0"), ("sqrt_", np.sqrt, "SqrtBackward0"),
     ("sin_", np.sin, "SinBackward0"), ("cos_", np.cos, "CosBackward0"),
     ("tanh_", np.tanh, "TanhBackward0"), ("relu_", lambda v: np.maximum(v, 0), "ReluBackward0"),
     ("abs_", np.abs, "AbsBackward0"), ("reciprocal_", np.reciprocal, "ReciprocalBackward0"),
     ("square_", np.square, "PowBackward0")],
)
def test_inplace_unary_methods(method, function, node):
    x = t.tensor([0.5, 1.5], dtype=t.float64, requires_grad=True)
    y = x * 1
    assert getattr(y, method)() is y
    np.testing.assert_allclose(y.detach().numpy(), function(np.array([0.5, 1.5])))
    assert type(y.grad_fn).__name__ == node and y._version == 1
    out_of_place = getattr(x, method.rstrip("_"), None) or (lambda: x ** 2)
    (g_expected,) = t.autograd.grad(out_of_place().sum(), x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), g_expected.numpy())


def test_function_forms_accept_a_number_first_and_tensor_where():
    x = t.tensor([1.0, 4.0])
    assert t.sub(1.0, x).tolist() == [0.0, -3.0]
    assert t.div(2.0, x).tolist() == [2.0, 0.5]
    assert t.add(1, x, alpha=2).tolist() == [3.0, 9.0]
    assert x.where(x > 2, t.tensor(0.0)).tolist() == [0.0, 4.0]


def test_index_tensor_changed_after_indexing_does_not_change_the_gradient():
    a = t.ones(3, requires_grad=True)
    i = t.tensor([0, 1])
    c = a[i]
    i.add_(1)
    c.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [1.0, 1.0, 0.0])
    assert a[[]].shape == (0,)


def test_hooks_cannot_change_the_gradient_dtype():
    a = t.ones(2, requires_grad=True)
    a.register_hook(lambda g: g.double())
    with pytest.raises(RuntimeError, match="hook '<lambda>' has changed the type of value \\(was "
                                           "symgrad.FloatTensor got symgrad.DoubleTensor\\)"):
        (a * 2).sum().backward()


def test_leaf_switched_off_after_recording_gets_no_grad():
    a = t.ones(2, requires_grad=True)
    y = (a * 2).sum()
    a.requires_grad_(False)
    y.backward()
    assert a.grad is None


@pytest.mark.parametrize(
    ("change", "node", "shape"),
    [(lambda y: y.unsqueeze_(0), "UnsqueezeBackward1", (1, 2, 1, 3)),
     (lambda y: y.squeeze_(), "SqueezeBackward3", (2, 3)),
     (lambda y: y.squeeze_(1), "SqueezeBackward4", (2, 3)),
     (lambda y: y.transpose_(0, 2), "TransposeBackward1", (3, 1, 2))],
)
def test_inplace_shape_ops(change, node, shape):
    x = t.ones(2, 1, 3, requires_grad=True)
    y = x * t.arange(1.0, 4.0)
    assert change(y) is y
    assert y.shape == shape and type(y.grad_fn).__name__ == node and y._version == 1
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.broadcast_to([1.0, 2.0, 3.0], (2, 1, 3)))
    leaf = t.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        leaf.t_()


def test_inference_mode_is_a_no_grad_mode():
    x = t.ones(2, requires_grad=True)
    with t.inference_mode():
        assert t.is_inference_mode_enabled() and not t.is_grad_enabled()
        assert not (x * 2).requires_grad
    assert t.is_grad_enabled() and not t.is_inference_mode_enabled()

    @t.inference_mode
    def doubled(v):
        return v * 2

    assert not doubled(x).requires_grad


def test_view_made_under_no_grad_cannot_change_in_place_with_grad_on():
    y = t.ones(3, requires_grad=True) * 2
    with t.no_grad():
        v = y[:2]
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being "
                                           "modified inplace with grad mode enabled."):
        v.mul_(2)
    with t.no_grad():
        v.mul_(2)  # allowed when both happen without grad
    assert y.tolist() == [4.0, 4.0, 2.0]


def test_retain_grad_on_a_view_survives_an_inplace_change_of_its_base():
    x = t.ones(3, 3, requires_grad=True)
    y = x * x
    v = y[0]
    v.retain_grad()
    y.mul_(2)
    (v * 2).sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [2.0, 2.0, 2.0])


def test_number_first_function_forms_record_like_pytorch():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    assert type(t.sub(1.0, x).grad_fn).__name__ == "SubBackward0"
    assert type(t.div(2.0, x).grad_fn).__name__ == "DivBackward0"
    t.div(2.0, x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [-2.0, -0.5])


def test_version_error_names_nodes_as_pytorch_shortens_them():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    y = a * 1
    y.pow_(2)
    z = y * y
    y.add_(1)
    with pytest.raises(RuntimeError, match="which is output 0 of Add,"):
        z.sum().backward()
    w = a * 1
    w[0] = 5.0
    z = w * w
    w[1] = 6.0
    with pytest.raises(RuntimeError, match="which is output 0 of symgrad::autograd::CopySlices,"):
        z.sum().backward()


def test_a_python_int_beyond_int64_and_uint64_is_refused_as_pytorch_refuses_it():
    # torch 2.13: every op converts a Python int operand to int64 (uint64 above int64's range)
    x = t.ones(2)
    too_big = (lambda: x * 2 ** 64, lambda: 2 ** 70 - x, lambda: t.add(x, 2 ** 70),
               lambda: x.add(2 ** 70), lambda: x.add_(2 ** 70), lambda: x.pow(2 ** 70),
               lambda: x ** 2 ** 70, lambda: x > 2 ** 70, lambda: x.clamp(max=2 ** 70),
               lambda: t.full((2,), 2 ** 70), lambda: x.fill_(2 ** 70),
               lambda: t.tensor([True]) - 2 ** 64)
    for run in too_big:
        with pytest.raises(OverflowError, match="^int too big to convert$"):
            run()
    for run in (lambda: x * (-2 ** 63 - 1), lambda: x / -2 ** 70, lambda: x == -2 ** 64):
        with pytest.raises(OverflowError, match="^can't convert negative int to unsigned$"):
            run()
    assert x.tolist() == [1.0, 1.0]  # (refused before any change)
    # the edges of the range are numbers
    assert (x * 2 ** 63).tolist() == [2.0 ** 63] * 2
    assert (x * (2 ** 64 - 1)).tolist() == [2.0 ** 64] * 2
    assert (x * -2 ** 63).tolist() == [-2.0 ** 63] * 2


def _signbits(x) -> list:
    return np.signbit(x.detach().numpy()).tolist()


def test_signed_zeros_and_nan_at_activations_and_special_functions():
    """Values at -0.0, +-inf and nan that numpy's obvious formulas get wrong (torch 2.13's, in
    float64: its float32 kernels differ at some of these points by vector lane)."""
    f64 = t.float64
    zeros = t.tensor([-0.0, 0.0], dtype=f64)
    assert _signbits(t.relu(zeros)) == [True, False]  # max(x, 0) keeps the input on a tie
    assert _signbits(t.nn.functional.relu6(zeros)) == [True, False]
    assert _signbits(t.erfinv(zeros)) == [True, False]
    assert t.digamma(zeros).tolist() == [np.inf, -np.inf]  # copysign(inf, -x)
    x = t.tensor([-0.0], dtype=f64, requires_grad=True)
    t.lgamma(x).backward()
    assert x.grad.tolist() == [np.inf]
    F = t.nn.functional
    edges = t.tensor([-np.inf, -1e30, np.inf, np.nan], dtype=f64)
    hardswish = F.hardswish(edges).numpy()
    assert np.isnan(hardswish[0]) and hardswish[1] == 0 and np.signbit(hardswish[1])
    assert _signbits(F.logsigmoid(edges[2:3])) == [False]  # +0.0 at +inf
    assert np.isnan(F.hardshrink(edges[3:]).item()) and np.isnan(F.softshrink(edges[3:]).item())
    assert _signbits(F.softshrink(t.tensor([-0.5, -0.25]))) == [True, True]  # input * 0


def test_logit_gradient_is_nan_outside_the_unit_interval():
    x = t.tensor([-0.5, 0.25, 1.5], dtype=t.float64, requires_grad=True)
    t.logit(x).sum().backward()
    grad = x.grad.numpy()
    assert np.isnan(grad[0]) and np.isnan(grad[2]) and grad[1] == pytest.approx(1 / (0.25 * 0.75))


def test_sinc_gradient_where_pi_x_squared_underflows():
    x = t.tensor([1e-30, 1e-45, 0.3], requires_grad=True)  # float32: pi x^2 is 0 for the first two
    t.sinc(x).sum().backward()
    grad = x.grad.numpy()
    assert grad[:2].tolist() == [0.0, 0.0]
    pi_x = np.pi * 0.3
    assert grad[2] == pytest.approx((np.cos(pi_x) * pi_x - np.sin(pi_x)) / (pi_x * 0.3), rel=1e-6)


def test_fmax_fmin_ties_and_remainder_zeros_keep_pytorchs_signs():
    a = t.tensor([0.0, -0.0, np.nan, 1.0], dtype=t.float64)
    b = t.tensor([-0.0, 0.0, 2.0, np.nan], dtype=t.float64)
    for fn in (t.fmax, t.fmin):  # the first operand on a tie of zeros; nan ignored
        out = fn(a, b)
        assert _signbits(out)[:2] == [False, True] and out.tolist()[2:] == [2.0, 1.0]
    # remainder: the divisor's sign, a zero signed as the dividend (PyTorch adjusts fmod)
    out = t.remainder(t.tensor([0.0, -0.0, 4.0, -4.0, 5.0]), -2.0)
    assert out.tolist() == [0.0, 0.0, 0.0, 0.0, -1.0]
    assert _signbits(out) == [False, True, False, True, True]


def test_pow_to_minus_a_half_is_one_over_sqrt():
    """PyTorch computes x ** -0.5 as 1 / sqrt(x), also in x ** 0.5's gradient: nan at -inf and
    -inf at -0.0, where C's pow gives 0 and +inf."""
    x = t.tensor([-np.inf, -0.0, 4.0], dtype=t.float64, requires_grad=True)
    out = x.pow(-0.5).detach().numpy()
    assert np.isnan(out[0]) and out[1] == -np.inf and out[2] == 0.5
    x.pow(0.5).sum().backward()
    grad = x.grad.numpy()
    assert np.isnan(grad[0]) and grad[1] == -np.inf and grad[2] == 0.25


@pytest.mark.parametrize("name", ["smooth_l1_loss", "huber_loss"])
def test_robust_losses_pass_nan_to_the_gradient(name):
    """PyTorch's branches (below -beta, above beta, between): a nan difference falls between,
    and its gradient is nan (a sign would say 0)."""
    x = t.tensor([np.nan, 2.0, 1.2], dtype=t.float64, requires_grad=True)
    loss = getattr(t.nn.functional, name)(x, t.ones(3, dtype=t.float64), reduction="none",
                                           **{"beta" if name == "smooth_l1_loss" else "delta": 0.5})
    loss.sum().backward()
    grad = x.grad.numpy()
    scale = 1.0 if name == "smooth_l1_loss" else 0.5  # (smooth_l1's slope is huber's / beta)
    assert np.isnan(grad[0]) and grad[1] == scale and grad[2] == pytest.approx(0.4 * scale)


def test_shrinks_and_threshold_pass_nan_and_record_pytorchs_nodes():
    """torch 2.13: hardshrink, softshrink and threshold keep nan in the output (threshold
    replaced it with its value) and pass the gradient through it (the kernels test "inside the
    band", which nan is not); one node each, named as PyTorch's."""
    F = t.nn.functional
    x = t.tensor([np.nan, -0.5, 0.5, -0.7, 0.2, 1.0, -0.0], dtype=t.float64, requires_grad=True)
    band = [1.0, 0.0, 0.0, 4.0, 0.0, 6.0, 0.0]
    cases = {"HardshrinkBackward0": (lambda a: F.hardshrink(a, 0.5),
                                     [np.nan, 0.0, 0.0, -0.7, 0.0, 1.0, 0.0], band),
             "SoftshrinkBackward0": (lambda a: F.softshrink(a, 0.5),
                                     [np.nan, -0.0, 0.0, -0.2, 0.0, 0.5, -0.0], band),
             "ThresholdBackward0": (lambda a: F.threshold(a, 0.5, 20.0),
                                    [np.nan, 20.0, 20.0, 20.0, 20.0, 1.0, 20.0],
                                    [1.0, 0.0, 0.0, 0.0, 0.0, 6.0, 0.0])}
    for name, (fn, values, grads) in cases.items():
        x.grad = None
        y = fn(x)
        assert y.grad_fn.name() == name
        np.testing.assert_allclose(y.detach().numpy(), values, rtol=1e-15)
        y.backward(t.arange(1.0, 8.0, dtype=t.float64))
        assert x.grad.tolist() == grads


def test_copysign_gradient_at_zero_is_the_incoming_gradient_times_zero():
    """torch 2.13 multiplies the incoming gradient by 0 where the input is 0: the zero keeps
    the gradient's sign, and a nan gradient stays nan."""
    x = t.tensor([0.0, -0.0, 2.0, -3.0], requires_grad=True)
    t.copysign(x, -1.0).backward(t.tensor([-1.0, -2.0, 3.0, 4.0]))
    assert x.grad.tolist() == [0.0, 0.0, -3.0, 4.0]
    assert _signbits(x.grad) == [True, True, True, False]
    y = t.tensor([0.0, 1.0], requires_grad=True)
    t.copysign(y, t.ones(2)).backward(t.tensor([np.nan, 1.0]))
    assert np.isnan(y.grad[0].item()) and y.grad[1].item() == 1.0
