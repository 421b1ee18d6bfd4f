"""Tensor creation, dtypes and promotion, attributes, conversions and Python protocols."""

import warnings

import numpy as np
import pytest

import symgrad as t


@pytest.fixture
def float64_default():
    t.set_default_dtype(t.float64)
    yield
    t.set_default_dtype(t.float32)


def test_tensor_infers_pytorch_dtypes():
    assert t.tensor([1.0, 2.0]).dtype is t.float32
    assert t.tensor([1, 2]).dtype is t.int64
    assert t.tensor([True, False]).dtype is t.bool
    assert t.tensor([1, 2.5]).dtype is t.float32
    assert t.tensor(3).dtype is t.int64 and t.tensor(3).shape == ()
    assert t.tensor(np.array([1.0, 2.0])).dtype is t.float64  # numpy keeps its dtype
    assert t.tensor(np.array([1, 2], dtype=np.int32)).dtype is t.int32
    assert t.tensor(np.array([1], dtype=np.uint16)).dtype is t.int64  # (no uint16: widened)
    assert t.tensor([[1.0, 2.0]], dtype=t.float64).dtype is t.float64
    assert t.float is t.float32 and t.double is t.float64 and t.long is t.int64
    assert repr(t.float32) == "symgrad.float32"


def test_tensor_copies_its_data():
    data = np.array([1.0, 2.0], dtype=np.float32)
    x = t.tensor(data)
    data[0] = 5.0
    assert x[0].item() == 1.0
    shared = t.from_numpy(data)
    data[1] = 7.0
    assert shared[1].item() == 7.0


def test_tensor_of_tensor_warns_like_pytorch():
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        x = t.tensor(t.ones(2, requires_grad=True))
    assert not x.requires_grad


def test_default_dtype(float64_default):
    assert t.get_default_dtype() is t.float64
    assert t.ones(2).dtype is t.float64
    assert t.tensor([1.5]).dtype is t.float64
    assert repr(t.ones(2)) == "tensor([1., 1.])"
    assert repr(t.ones(2, dtype=t.float32)) == "tensor([1., 1.], dtype=symgrad.float32)"


def test_set_default_dtype_refuses_integers():
    with pytest.raises(TypeError, match="only floating-point types are supported as the default "
                                        "type"):
        t.set_default_dtype(t.int64)
    assert t.get_default_dtype() is t.float32


def test_factories():
    assert t.ones(2, 3).shape == (2, 3) and t.ones((2, 3)).shape == (2, 3)
    assert t.zeros(4).tolist() == [0.0] * 4
    assert t.full((2,), 3).dtype is t.int64
    assert t.full((2,), 3.0).dtype is t.float32
    assert t.full((2,), True).dtype is t.bool
    assert t.arange(5).dtype is t.int64 and t.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert t.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert t.arange(1.0, 4.0).dtype is t.float32
    np.testing.assert_allclose(t.linspace(0, 1, 5).numpy(), [0, 0.25, 0.5, 0.75, 1.0])
    assert t.eye(2, 3).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert t.empty(2, 2).shape == (2, 2)
    x = t.ones(2, 3, dtype=t.float64)
    for like in (t.ones_like, t.zeros_like, t.rand_like, t.randn_like, t.empty_like):
        y = like(x)
        assert y.shape == x.shape and y.dtype is t.float64
    assert t.full_like(x, 7).tolist() == [[7.0] * 3] * 2
    r = t.rand(1000)
    assert float(r.numpy().min()) >= 0.0
    assert float(r.numpy().max()) < 1.0
    assert t.ones(3, requires_grad=True).requires_grad


def test_manual_seed_makes_random_factories_repeatable():
    t.manual_seed(3)
    a = t.randn(4)
    t.manual_seed(3)
    b = t.randn(4)
    assert a.equal(b)


def test_random_factories_refuse_integer_dtypes():
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        t.rand(2, dtype=t.int64)


def test_attributes():
    x = t.ones(2, 3)
    assert x.shape == t.Size([2, 3]) and repr(x.shape) == "symgrad.Size([2, 3])"
    assert x.size() == (2, 3) and x.size(1) == 3 and x.size(-1) == 3
    assert x.ndim == 2 and x.dim() == 2 and x.numel() == 6 and len(x) == 2
    assert repr(x.device) == "device(type='cpu')" and str(x.device) == "cpu"
    assert x.to("cpu") is x and x.cpu() is x
    assert type(x).__name__ == "Tensor" and repr(type(x)) == "<class 'symgrad.Tensor'>"
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of "
                                         r"\[-2, 1\], but got 2\)"):
        x.size(2)


def test_devices_other_than_cpu_are_refused():
    # PyTorch built without CUDA raises AssertionError (more in tests/test_anomaly_and_refusals.py)
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        t.ones(2).to("cuda")
    with pytest.raises(AssertionError, match="CPU only"):
        t.ones(2, device="cuda:0")
    assert t.ones(2, device="cpu").device == t.device("cpu")
    assert t.device("cuda").type == "cuda"  # naming a device is fine; using it is refused


def test_item_tolist_numpy_and_array_protocol():
    x = t.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert t.tensor(2.5).item() == 2.5 and isinstance(t.tensor(3).item(), int)
    with pytest.raises(RuntimeError, match="a Tensor with 4 elements cannot be converted to "
                                           "Scalar"):
        x.item()
    arr = x.numpy()
    arr[0, 0] = 9.0  # numpy() shares memory, as in PyTorch
    assert x[0, 0].item() == 9.0
    np.testing.assert_array_equal(np.asarray(x), arr)
    w = t.ones(2, requires_grad=True)
    for convert in (w.numpy, lambda: np.asarray(w)):
        with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires "
                                               "grad. Use tensor.detach\\(\\).numpy\\(\\)"):
            convert()
    np.testing.assert_array_equal(w.detach().numpy(), [1.0, 1.0])


def test_clone_is_a_differentiable_copy():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    b = a.clone()
    assert type(b.grad_fn).__name__ == "CloneBackward0"
    b.detach()[0] = 5.0
    assert a[0].item() == 1.0
    (b * 3).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [3.0, 3.0])


def test_len_iter_bool_and_scalars():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    parts = list(x)
    assert [p.item() for p in parts] == [1.0, 2.0]
    assert type(parts[0].grad_fn).__name__ == "SelectBackward0"
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(t.tensor(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(t.tensor(1.0))
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is "
                                           "ambiguous"):
        bool(t.ones(2))
    assert bool(t.tensor([1.0])) and not bool(t.tensor(0.0))
    assert float(t.tensor(2.5)) == 2.5 and int(t.tensor(3)) == 3
    assert f"{t.tensor(2.5):.2f}" == "2.50"


def test_comparisons_give_bool_tensors_without_graph():
    a = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    m = a > 1.5
    assert m.dtype is t.bool and not m.requires_grad
    assert m.tolist() == [False, True, True]
    assert (a == t.tensor([1.0, 0.0, 3.0])).tolist() == [True, False, True]
    assert (a != 2).tolist() == [True, False, True]
    assert (a <= 2).tolist() == [True, True, False]
    assert ((a > 1) & (a < 3)).tolist() == [False, True, False]
    assert (~(a > 1)).tolist() == [True, False, False]
    assert {a: 1}[a] == 1  # tensors hash by identity
    assert repr((a > 0).all()) == "tensor(True)" and not (a > 2).all().item()
    assert (a > 2).any().item() and (a > 2).any(dim=0).shape == ()


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: t.tensor([1, 2]) / 2, t.float32),
        (lambda: t.tensor([1, 2]) * 1.5, t.float32),
        (lambda: t.tensor([1, 2]) + True, t.int64),
        (lambda: t.tensor([1, 2]) / t.tensor([1, 2]), t.float32),
        (lambda: t.tensor([1.0, 2.0]) + t.tensor(1.0, dtype=t.float64), t.float32),
        (lambda: t.tensor([1, 2]) + t.tensor(1.5, dtype=t.float64), t.float64),
        (lambda: t.tensor([1.0], dtype=t.float64) * t.ones(1), t.float64),
        (lambda: t.tensor([1, 2]).exp(), t.float32),
        (lambda: t.tensor([1, 2]).sum(), t.int64),
        (lambda: t.tensor([True, False]).sum(), t.int64),
        (lambda: t.tensor([1.0, 2.0]) ** t.tensor([2, 3]), t.float32),
        (lambda: 2 ** t.tensor([1.0, 2.0]), t.float32),
        (lambda: t.ones(2) * np.float64(2.0), t.float32),
    ],
)
def test_type_promotion_follows_pytorch(make, expected):
    assert make().dtype is expected


def test_conversions():
    x = t.tensor([1.5, -2.5], requires_grad=True)
    d = x.double()
    assert d.dtype is t.float64 and type(d.grad_fn).__name__ == "ToCopyBackward0"
    assert x.float() is x
    assert x.long().tolist() == [1, -2] and x.long().dtype is t.int64
    assert x.detach().bool().tolist() == [True, True]
    assert x.to(t.float64).dtype is t.float64 and x.to(dtype=t.float64).dtype is t.float64
    assert x.type() == "symgrad.FloatTensor"
    d.sum().backward()
    assert x.grad.dtype is t.float32


def test_mean_refuses_integers():
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype. Input dtype "
                                           "must be either a floating point or complex dtype. "
                                           "Got: Long"):
        t.tensor([1, 2]).mean()


def test_shape_errors_follow_pytorch():
    with pytest.raises(RuntimeError, match="^mat1 and mat2 shapes cannot be multiplied \\(2x3 and "
                                           "2x3\\)$"):
        t.ones(2, 3) @ t.ones(2, 3)
    with pytest.raises(RuntimeError, match="^The size of tensor a \\(3\\) must match the size of "
                                           "tensor b \\(4\\) at non-singleton dimension 1$"):
        t.ones(2, 3) + t.ones(2, 4)
    with pytest.raises(RuntimeError, match="^shape '\\[4\\]' is invalid for input of size 6$"):
        t.ones(2, 3).view(4)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        t.ones(6).reshape(-1, -1)
    with pytest.raises(IndexError, match="^index 5 is out of bounds for dimension 0 with size 3"):
        t.ones(3)[5]
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.ones(2, 3).sum(2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.ones(2, 3).transpose(0, 2)
    with pytest.raises(RuntimeError, match="The expanded size of the tensor \\(4\\) must match the "
                                           "existing size \\(3\\) at non-singleton dimension 1"):
        t.ones(3).expand(2, 4)


def test_shape_ops_and_their_node_names():
    a = t.ones(2, 3, requires_grad=True)
    names = {
        "reshape": a.reshape(3, 2), "view": a.view(-1), "transpose": a.transpose(0, 1),
        "T": a.T, "t": a.t(), "mT": a.mT, "permute": a.permute(1, 0),
        "unsqueeze": a.unsqueeze(0), "squeeze": a.unsqueeze(0).squeeze(),
        "squeeze_dim": a.unsqueeze(1).squeeze(1), "expand": a.expand(4, 2, 3),
        "int": a[0], "slice": a[1:], "column": a[:, 1], "none": a[None],
        "array": a[t.tensor([0, 0])], "mask": a[a > 0], "flatten": a.flatten(),
    }
    expected = {
        "reshape": "ViewBackward0", "view": "ViewBackward0", "transpose": "TransposeBackward0",
        "T": "PermuteBackward0", "t": "TBackward0", "mT": "TransposeBackward0",
        "permute": "PermuteBackward0", "unsqueeze": "UnsqueezeBackward0",
        "squeeze": "SqueezeBackward0", "squeeze_dim": "SqueezeBackward1",
        "expand": "ExpandBackward0", "int": "SelectBackward0", "slice": "SliceBackward0",
        "column": "SelectBackward0", "none": "UnsqueezeBackward0", "array": "IndexBackward0",
        "mask": "IndexBackward0", "flatten": "ViewBackward0",
    }
    for key, tensor in names.items():
        assert type(tensor.grad_fn).__name__ == expected[key], key
    assert a.unsqueeze(-1).shape == (2, 3, 1)
    assert a.squeeze(0).shape == (2, 3)
    assert a.expand(4, -1, -1).shape == (4, 2, 3)
    assert a.flatten().shape == (6,)


def test_arithmetic_node_names_follow_pytorch():
    a = t.ones(3, requires_grad=True)
    b = t.ones(3, requires_grad=True)
    m = t.ones(2, 3, requires_grad=True)
    cases = {
        "AddBackward0": [a + b, a + 2, 2 + a, a.add(b, alpha=2)],
        "SubBackward0": [a - b, a - 2],
        "RsubBackward1": [2 - a],
        "MulBackward0": [a * b, a * 2, 2 * a, 2 / a],
        "DivBackward0": [a / b, a / 2],
        "PowBackward0": [a ** 2, a.square(), a ** 0.5],
        "PowBackward1": [a ** b],
        "PowBackward2": [2 ** a],
        "NegBackward0": [-a],
        "DotBackward0": [a @ b],
        "MvBackward0": [m @ a],
        "MmBackward0": [m @ m.T],
        "SumBackward0": [a.sum()],
        "SumBackward1": [m.sum(0), m.sum((0, 1)), m.sum(0, keepdim=True)],
        "MeanBackward0": [a.mean()],
        "MeanBackward1": [m.mean(1)],
        "ExpBackward0": [a.exp(), t.exp(a)],
    }
    for name, tensors in cases.items():
        for x in tensors:
            assert type(x.grad_fn).__name__ == name


def test_function_spellings():
    x = t.tensor([0.5, 1.5])
    for name in ("exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "neg",
                 "reciprocal", "square"):
        np.testing.assert_array_equal(getattr(t, name)(x).numpy(), getattr(x, name)().numpy())
    assert t.add(x, 1).tolist() == (x + 1).tolist()
    assert t.matmul(x, x).item() == pytest.approx(2.5)
    assert t.where(x > 1, x, 0.0).tolist() == [0.0, 1.5]
    assert t.is_tensor(x) and not t.is_tensor(1.0) and t.numel(x) == 2


def test_printing_through_tensor_repr():
    assert repr(t.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(t.tensor([True, False])) == "tensor([ True, False])"
    assert repr(t.ones(2, dtype=t.float64)) == "tensor([1., 1.], dtype=symgrad.float64)"
    assert repr(t.tensor(3.5)) == "tensor(3.5000)"
    m = t.tensor([[0.5, 1.0], [2.0, 3.25]], requires_grad=True) * 1
    assert repr(m) == ("tensor([[0.5000, 1.0000],\n        [2.0000, 3.2500]], "
                       "grad_fn=<MulBackward0>)")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert str(m).startswith("tensor([[0.5000")


def test_name_keyword_and_attribute():
    w = t.tensor([1.0], requires_grad=True, name="w")
    assert w.name == "w"
    w.name = "weight"
    assert w.name == "weight"
    assert t.ones(2, name="x").name == "x" and t.ones(2).name is None
    with pytest.raises(TypeError):
        w.name = 3


@pytest.mark.parametrize("value", [None, [1.0, 2.0], 3.0])
def test_setting_data_to_a_non_tensor_raises_pytorchs_type_error(value):
    a = t.ones(2)
    with pytest.raises(TypeError, match="^Variable data has to be a tensor, but got "):
        a.data = value
    assert a.tolist() == [1.0, 1.0]  # unchanged


def test_inf_and_nan_are_computed_silently_as_in_pytorch():
    # numpy warns on log(0), 0/0 and overflow; PyTorch does not, and neither does symgrad,
    # while the user's own numpy calls keep warning (the filter covers symgrad's modules only)
    import subprocess
    import sys

    code = (
        "import numpy as np, symgrad as t\n"
        "x = t.tensor([0.0, -1.0, 1000.0], requires_grad=True)\n"
        "y = t.where(x > 0, x.log(), 0.0) + x.sqrt() + x / 0 + x.exp()\n"
        "y.sum().backward()\n"
        "try:\n"
        "    np.log(np.zeros(1))\n"
        "except RuntimeWarning:\n"
        "    print('user warns')\n"
    )
    result = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", code],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "user warns" and result.stderr == ""
