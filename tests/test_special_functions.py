"""lgamma, digamma, polygamma and erfinv: values, edges and errors as PyTorch 2.13 gives them
(its numbers recorded here), gradients against finite differences and sympy (the registry
tests run gradcheck and the symbolic check on the ops' samples; these add the compiled path)."""

import math

import numpy as np
import pytest

import symgrad as t
from symgrad import symbolic

INF, NAN = math.inf, math.nan
AT = [0.0, -1.0, -0.5, 0.5, 1.0, 10.0, INF, -INF, NAN]


def _f64(values):
    return t.tensor(values, dtype=t.float64)


@pytest.mark.parametrize("fn, expected", [
    (t.lgamma, [INF, INF, 1.2655121234846454, 0.5723649429247001, 0.0, 12.801827480081469, INF,
                INF, NAN]),
    (t.digamma, [-INF, NAN, 0.03648997397857639, -1.9635100260214229, -0.5772156649015328,
                 2.251752589066721, INF, NAN, NAN]),
], ids=["lgamma", "digamma"])
def test_values_and_edges_are_pytorch_s(fn, expected):
    np.testing.assert_allclose(fn(_f64(AT)).numpy(), expected, rtol=1e-14)


@pytest.mark.parametrize("n, expected", [
    (1, [8.934802200117687, 4.934802202073678, 1.6449340676383375, 0.10516633568216657]),
    (3, [193.40909103400242, 97.40909103400242, 6.493939402266829, 0.0023199013042898686]),
])
def test_polygamma_values(n, expected):
    x = _f64([-0.5, 0.5, 1.0, 10.0])
    # PyTorch's own trigamma is off by up to 5e-10 relative; these agree with mpmath to 1e-15
    np.testing.assert_allclose(t.polygamma(n, x).numpy(), expected, rtol=1e-9)
    np.testing.assert_allclose(x.polygamma(n).numpy(), t.polygamma(n, x).numpy(), rtol=0)
    assert t.polygamma(0, x).tolist() == t.digamma(x).tolist()


def test_erfinv_values_and_edges():
    y = _f64([-1.0, -0.5, 0.0, 0.9, 1.0, 1.5, 1 - 1e-12])
    expected = [-INF, -0.4769362762044699, 0.0, 1.1630871536766743, INF, NAN, 5.042031898572696]
    np.testing.assert_allclose(t.erfinv(y).numpy(), expected, rtol=1e-14)
    assert t.erf(t.erfinv(_f64([0.3]))).item() == pytest.approx(0.3, rel=1e-15)


def test_integer_inputs_give_floats_and_names_are_pytorch_s():
    np.testing.assert_allclose(t.lgamma(t.tensor([1, 2, 3])).numpy(), [0, 0, math.log(2)],
                               atol=1e-7)
    assert t.digamma(t.tensor([1, 2])).dtype is t.float32
    x = t.tensor([0.7], requires_grad=True)
    assert t.lgamma(x).grad_fn.name() == "LgammaBackward0"
    assert t.erfinv(x).grad_fn.name() == "ErfinvBackward0"
    y = t.polygamma(2, x)
    assert y.grad_fn.name() == "PolygammaBackward0"
    y.backward()
    assert x.grad.item() == pytest.approx(25.8792, rel=1e-5)  # PyTorch's polygamma(3, 0.7)


def test_polygamma_refuses_a_bad_order_as_pytorch():
    x = _f64([1.0])
    with pytest.raises(RuntimeError, match=r"polygamma\(n, x\) does not support negative n\."):
        t.polygamma(-1, x)
    with pytest.raises(TypeError, match=r"argument 'n' \(position 1\) must be int, not float"):
        t.polygamma(1.5, x)
    before = x.clone()
    with pytest.raises(RuntimeError):
        x.polygamma_(-2)
    assert x.tolist() == before.tolist() and x._version == 0


@pytest.mark.parametrize("fn", [t.lgamma, t.digamma, lambda a: t.polygamma(2, a),
                                lambda a: t.erfinv(a / 3)],
                         ids=["lgamma", "digamma", "polygamma", "erfinv"])
def test_numeric_symbolic_and_compiled_gradients_agree(fn):
    x = t.tensor([0.7, 1.3, 2.5], dtype=t.float64, requires_grad=True)
    y = (fn(x) * x).sum()
    symbolic.check(y)  # raises GradientMismatch if the VJP rule disagrees with sympy
    value, (compiled,) = symbolic.compile(y, x)(x.detach().numpy())
    y.backward()
    np.testing.assert_allclose(compiled, x.grad.numpy(), rtol=1e-13)
    assert value == pytest.approx(y.item(), rel=1e-14)
    assert t.autograd.gradcheck(lambda a: (fn(a) * a).sum(), (x.detach().requires_grad_(),))
