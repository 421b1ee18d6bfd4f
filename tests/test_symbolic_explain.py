"""symgrad.symbolic.explain: the node, line, cause, exact derivative and fix behind a NaN or
infinite gradient.

The expected values are independent facts: what PyTorch's backward gives at these points (0 * inf
= nan in a where's masked branch, inf for log and sqrt at 0, ...), and derivatives and limits
written out by hand in sympy.
"""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest
import sympy

import symgrad as t
from symgrad.symbolic import Explanation, explain

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

X = sympy.Symbol("x", real=True)


def _here() -> str:
    """'file:line' of the caller's current line."""
    frame = inspect.currentframe().f_back
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def test_where_log_at_zero_is_zero_times_inf_in_the_masked_branch():
    x = t.tensor([0.0, 2.0], requires_grad=True)
    y = t.where(x > 0, x.log(), 0.0).sum(); site = _here()  # noqa: E702
    e = explain(y, x)
    assert isinstance(e, Explanation) and not e.finite
    assert e.input == "x" and e.elements == [(0,)]
    assert math.isnan(e.numeric[0])  # PyTorch gives nan there too
    assert e.node_name == "LogBackward0" and e.created_at == site
    assert e.source == "y = t.where(x > 0, x.log(), 0.0).sum(); site = _here()  # noqa: E702"
    assert e.cause == "0*inf in masked where branch"
    assert e.masked_by == f"WhereBackward0 created at {site}"
    # the derivative of the Piecewise at 0 is exactly 0
    piecewise = sympy.Piecewise((sympy.log(X), X > 0), (0, True))
    assert e.exact == [sympy.diff(piecewise, X).subs(X, 0)] == [0]
    assert e.one_sided == [None]
    assert "safe = t.where(mask, x, 1.0)" in e.fix and "t.where(mask, safe.log(), 0.0)" in e.fix
    text = str(e)
    assert "LogBackward0" in text and site in text and "double where" in text
    assert "nan at (0,)" in text


def test_where_sqrt_masked():
    x = t.tensor([[1.0, 0.0], [4.0, -1.0]], requires_grad=True)
    e = explain(t.where(x > 0, x.sqrt(), 0.0).sum())
    # sqrt(-1) is nan in the forward, but the where's masked branch hides it: only 0 * inf at
    # x = 0 (sqrt'(0) = inf) and 0 * nan at x = -1 are not finite
    assert e.elements == [(0, 1), (1, 1)]
    assert all(math.isnan(v) for v in e.numeric)
    assert e.node_name == "SqrtBackward0"
    assert e.cause == "0*inf in masked where branch"
    assert e.exact == [0, 0]
    assert "safe.sqrt()" in e.fix


def test_log_at_zero_gives_inf_and_the_right_limit():
    x = t.tensor([0.0, 1.0], requires_grad=True)
    e = explain(x.log().sum(), x)
    assert e.numeric == [math.inf] and e.elements == [(0,)]
    assert e.node_name == "LogBackward0" and e.cause == "log at 0"
    derivative = sympy.diff(sympy.log(X), X)
    assert e.exact == [derivative.subs(X, 0)] == [sympy.zoo]
    # log is not real left of 0: only the right limit exists
    assert e.one_sided == [(None, sympy.limit(derivative, X, 0, "+"))] == [(None, sympy.oo)]
    assert "clamp_min(eps)" in e.fix and "log1p" in e.fix


def test_sqrt_at_zero_0d():
    z = t.tensor(0.0, requires_grad=True)
    y = z.sqrt(); site = _here()  # noqa: E702
    e = explain(y)
    assert e.input == "z" and e.elements == [()] and e.numeric == [math.inf]
    assert e.node_name == "SqrtBackward0" and e.cause == "sqrt at 0" and e.created_at == site
    derivative = sympy.diff(sympy.sqrt(X), X)
    assert e.exact == [sympy.zoo]
    assert e.one_sided == [(None, sympy.limit(derivative, X, 0, "+"))] == [(None, sympy.oo)]
    assert "vector_norm" in e.fix


def test_division_by_zero():
    x = t.tensor([1.0, 0.0], requires_grad=True)
    y = t.tensor([0.0, 0.0], requires_grad=True)
    e = explain((x / y).sum(), [x, y])
    assert e.input == "x" and e.elements == [(0,), (1,)]
    assert e.numeric == [math.inf, math.inf]  # 1/y at y = 0 (as PyTorch)
    assert e.others == {"y": [(0,), (1,)]}  # -x/y**2: -inf and 0/0 = nan
    assert e.node_name == "DivBackward0" and e.cause == "division by zero"
    a, b = sympy.symbols("a b", real=True)
    assert e.exact == [sympy.diff(a / b, a).subs(b, 0)] * 2 == [sympy.zoo] * 2
    assert "clamp_min(eps)" in e.fix


def test_normalizing_by_a_zero_norm():
    x = t.zeros(2, requires_grad=True)
    e = explain((x / x.norm()).sum())
    assert e.elements == [(0,), (1,)]
    assert not any(math.isfinite(v) for v in e.numeric)
    assert e.node_name == "DivBackward0" and e.cause == "division by zero"
    assert "0/0" in e.detail  # the forward is nan as well
    assert "x.norm().clamp_min(eps)" in e.fix
    # d/dx0 of x0/|x| + x1/|x| along x1 = 0 is d/dx0 sign(x0): 0 on either side
    x0, x1 = sympy.symbols("x0 x1", real=True)
    f = (x0 + x1) / sympy.sqrt(x0**2 + x1**2)
    along = sympy.diff(f, x0).subs(x1, 0)
    expected = (sympy.limit(along, x0, 0, "-"), sympy.limit(along, x0, 0, "+"))
    assert e.one_sided[0] == expected == (0, 0)
    assert e.exact[0] is sympy.nan


def test_sqrt_of_a_sum_of_squares_at_zero():
    x = t.zeros(2, requires_grad=True)
    e = explain((x ** 2).sum().sqrt())
    assert all(math.isnan(v) for v in e.numeric)  # sqrt'(0) = inf, then 2*x*inf = 0*inf
    assert e.node_name == "SqrtBackward0" and e.cause == "sqrt at 0"
    x0, x1 = sympy.symbols("x0 x1", real=True)
    along = sympy.diff(sympy.sqrt(x0**2 + x1**2), x0).subs(x1, 0)
    assert e.one_sided[0] == (sympy.limit(along, x0, 0, "-"), sympy.limit(along, x0, 0, "+"))
    assert e.one_sided[0] == (-1, 1)
    assert "vector_norm" in e.fix
    # and the fix it names is finite at 0
    assert explain(t.linalg.vector_norm(x)).finite


def test_gradient_v_zero_times_inf():
    x = t.tensor([0.0, 1.0], requires_grad=True)
    y = x.log()
    e = explain(y, x, gradient=t.tensor([0.0, 1.0]))
    assert e.elements == [(0,)] and math.isnan(e.numeric[0])  # 0 * (1/0)
    assert e.cause == "0*inf" and e.masked_by == "the gradient passed in"
    x0, x1 = sympy.symbols("x0 x1", real=True)
    assert e.exact == [sympy.diff(0 * sympy.log(x0) + 1 * sympy.log(x1), x0)] == [0]
    # an array-like gradient works as in backward; a wrong shape is backward's error
    assert explain(y, x, gradient=[2.0, 1.0]).numeric == [math.inf]
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        explain(y, x, gradient=t.ones(3))
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        explain(y, x)


def test_finite_gradient():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    b = t.tensor(3.0, requires_grad=True)
    e = explain((a * b).sum())
    assert e.finite and e.elements == [] and e.cause is None and e.fix is None
    assert str(e).endswith("with respect to a, b is finite at every element.")
    assert "finite at every element" in str(explain(a.log().sum(), a))


def test_overflow_in_exp():
    x = t.tensor(1000.0, requires_grad=True)
    e = explain(x.exp() / x.exp())
    assert math.isnan(e.numeric[0])  # inf / inf in the backward too
    assert e.cause == "overflow" and "ExpBackward0" in e.detail
    assert "logsumexp" in e.fix
    # the exact derivative of exp(x)/exp(x) = 1 is 0
    assert e.exact == [sympy.simplify(sympy.diff(sympy.exp(X) / sympy.exp(X), X))] == [0]
    # log(exp(x)) at 1000: log's rule makes g / inf = 0, exp's then 0 * inf: still an overflow
    e = explain(x.exp().log())
    assert e.cause == "overflow" and e.node_name == "ExpBackward0" and e.exact == [1]
    # an exp in the masked branch of a where is the where's business
    y = t.tensor([1000.0, 1.0], requires_grad=True)
    e = explain(t.where(y < 100, y.exp(), 0.0).sum())
    assert e.cause == "0*inf in masked where branch" and e.elements == [(0,)]
    assert "safe = t.where(mask, x, 1.0)" in e.fix


def test_non_finite_gradient_passed_in():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    e = explain(x * 2, x, gradient=[math.nan, 1.0])
    assert e.elements == [(0,)] and e.cause == "non-finite gradient passed in"
    assert e.node_name is None and e.exact == []


def test_nan_already_in_the_forward():
    w = t.tensor([-1.0, 3.0], requires_grad=True)
    v = w.log(); site = _here()  # noqa: E702
    e = explain((v ** 2).sum())
    assert e.elements == [(0,)] and math.isnan(e.numeric[0])
    assert e.node_name == "PowBackward0" and e.cause == "nan in forward"
    assert f"LogBackward0 created at {site}" in e.detail
    # sympy's value at -1 is complex (2*log(-1)/-1 = -2*pi*I): outside the real domain
    assert e.exact[0].is_extended_real is False
    assert abs(complex(e.exact[0]) - complex(-2 * sympy.pi * sympy.I)) < 1e-12


def test_asin_at_one_and_pow_at_zero():
    q = t.tensor([1.0, 0.5], requires_grad=True)
    e = explain(q.asin().sum())
    assert e.cause == "asin at ±1" and e.numeric == [math.inf]
    left = sympy.limit(sympy.diff(sympy.asin(X), X), X, 1, "-")
    assert e.one_sided == [(left, None)] == [(sympy.oo, None)]
    assert "clamp(-1 + eps, 1 - eps)" in e.fix
    p = t.tensor([0.0, 4.0], requires_grad=True)
    e = explain((p ** 0.5).sum())
    assert e.node_name == "PowBackward0" and e.cause == "pow at 0" and e.numeric == [math.inf]


def test_after_a_freed_graph_and_grad_untouched():
    x = t.tensor([0.0, 2.0], requires_grad=True)
    y = t.where(x > 0, x.log(), 0.0).sum(); site = _here()  # noqa: E702
    y.backward()  # frees the graph
    before = x.grad.numpy().copy()
    e = explain(y, x)
    assert e.node_name == "LogBackward0" and e.created_at == site
    assert e.cause == "0*inf in masked where branch" and e.masked_by.startswith("WhereBackward0")
    np.testing.assert_array_equal(x.grad.numpy(), before)  # nan compares equal here
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        y.backward()  # still freed: the replay did not revive it


def test_graph_stays_usable_and_unhooked():
    x = t.tensor([0.0, 2.0], requires_grad=True)
    y = t.where(x > 0, x.log(), 0.0).sum()
    calls = []
    y.grad_fn.register_hook(lambda gi, go: calls.append(1))
    explain(y, x)
    assert x.grad is None and calls == [1]  # the user's hook ran once, in explain's pass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y.backward()
    assert calls == [1, 1]
    np.testing.assert_array_equal(x.grad.numpy(), [np.nan, 0.5])
    # explain's own hooks are gone: a second explanation gives the same answer
    assert explain(y, x).node_name == "LogBackward0"


def test_bad_arguments():
    x = t.tensor([1.0], requires_grad=True)
    with pytest.raises(TypeError, match="explain\\(\\) expects a Tensor, but got ndarray"):
        explain(np.ones(1), x)
    with pytest.raises(TypeError, match="expects a Tensor, but got list"):
        explain([1.0])
    with pytest.raises(TypeError, match="inputs must be Tensors"):
        explain(x.sum(), [np.ones(1)])
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        explain(t.ones(1).sum())
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors does not require"):
        explain(x.sum(), t.ones(1))
