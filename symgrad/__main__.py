"""``python -m symgrad``: the source document's walkthrough of PyTorch autograd, on symgrad.

Each step prints the code it runs and what that code shows, in the order of the blog post that
symgrad grew from (Variable, leaves, requires_grad, backward, accumulation, .data vs .detach()).
"""

from __future__ import annotations

import warnings

import symgrad as t
from symgrad.autograd import Variable


def _show(code: str, value: object) -> None:
    print(f">>> {code}")
    print(value)


def _fails(code: str, run: object) -> None:
    print(f">>> {code}")
    try:
        run()  # type: ignore[operator]
    except RuntimeError as error:
        print(f"RuntimeError: {error}")
    else:  # pragma: no cover - the demonstration expects the error
        print("(no error)")


def _section(title: str) -> None:
    print()
    print(f"== {title} ==")


def main() -> None:
    """Run the walkthrough. Every tensor is printed where it is made, before it is used."""
    t.manual_seed(0)
    _section("Variable and Tensor are one class")
    a = t.ones(3, requires_grad=True)
    _show("a = t.ones(3, requires_grad=True); a", a)
    _show("type(a)", type(a))
    a = Variable(a)
    _show("a = Variable(a); type(a)", type(a))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        volatile = a.volatile
    _show("a.volatile", volatile)
    print(f"UserWarning: {caught[0].message}")

    _section("Leaves and grad_fn")
    a = t.ones(3, requires_grad=True)
    b = t.rand(3, requires_grad=True)
    _show("a = t.ones(3, requires_grad=True); a, a.is_leaf", (a, a.is_leaf))
    _show("b = t.rand(3, requires_grad=True); b", b)
    c = a * b
    _show("c = a * b; c, c.is_leaf", (c, c.is_leaf))
    _show("a.grad_fn", a.grad_fn)
    _show("c.grad_fn", c.grad_fn)
    _show("c.grad_fn.next_functions", c.grad_fn.next_functions)

    _section("requires_grad defaults to False and propagates")
    x = t.ones(3)
    y = t.ones(3, requires_grad=True)
    _show("x = t.ones(3); x.requires_grad", x.requires_grad)
    _show("y = t.ones(3, requires_grad=True); (x + y).requires_grad", (x + y).requires_grad)

    _section("backward: scalars, vectors, accumulation, retain_graph")
    _fails("c.backward(retain_graph=True)", lambda: c.backward(retain_graph=True))
    d = c.sum()
    d.backward(retain_graph=True)
    _show("d = c.sum(); d.backward(retain_graph=True); a.grad", a.grad)
    _show("b.grad", b.grad)
    e = c.sum()
    e.backward(retain_graph=True)
    _show("e = c.sum(); e.backward(retain_graph=True); b.grad  # accumulated", b.grad)
    f = c.sum()  # noqa: F841 - a forward alone changes no gradient
    _show("f = c.sum(); b.grad  # unchanged", b.grad)
    v = t.tensor([1.0, 10.0, 100.0])
    _show("v = t.tensor([1.0, 10.0, 100.0]); v", v)
    a.grad = None
    c.backward(gradient=v, retain_graph=True)
    _show("a.grad = None; c.backward(gradient=v, retain_graph=True); a.grad  # J^T v = v * b",
          a.grad)
    d2 = c.sum()
    d2.backward()
    _fails("d2 = c.sum(); d2.backward(); d2.backward()", lambda: d2.backward())

    _section(".data and .detach()")
    m = t.ones(3, 4, requires_grad=True)
    n = t.rand(3, 4, requires_grad=True)
    _show("m = t.ones(3, 4, requires_grad=True); m", m)
    _show("n = t.rand(3, 4, requires_grad=True); n", n)
    _show("m.data.requires_grad", m.data.requires_grad)
    _fails("(m.data * n.data).sum().backward()", lambda: (m.data * n.data).sum().backward())
    p = t.ones(3, requires_grad=True)
    q = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    _show("p = t.ones(3, requires_grad=True); p", p)
    _show("q = t.tensor([1.0, 2.0, 3.0], requires_grad=True); q", q)
    r = p * q
    p.detach().zero_()
    _show("r = p * q; p.detach().zero_(); p  # the change is seen through the shared version",
          p)
    _fails("r.sum().backward()", lambda: r.sum().backward())
    p = t.ones(3, requires_grad=True)
    r = p * q
    p.data.zero_()
    _show("p = t.ones(3, requires_grad=True); r = p * q; p.data.zero_(); p", p)
    r.sum().backward()
    _show("r.sum().backward(); q.grad  # no error: silently uses the new p", q.grad)

    _section("the same gradients, as sympy formulas")
    from symgrad import symbolic

    s = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = t.tensor([4.0, 5.0, 6.0], requires_grad=True)
    _show("s = t.tensor([1.0, 2.0, 3.0], requires_grad=True); s", s)
    _show("w = t.tensor([4.0, 5.0, 6.0], requires_grad=True); w", w)
    z = s * w
    _show("z = s * w; symbolic.lower(z).expr", symbolic.lower(z).expr)
    u = t.tensor([1.0, 0.1, 0.01])
    _show("u = t.tensor([1.0, 0.1, 0.01]); u", u)
    _show("symbolic.grad(z, [s, w], gradient=u)  # u^T J, by sympy.diff",
          symbolic.grad(z, [s, w], gradient=u))
    z.backward(gradient=u)
    _show("z.backward(gradient=u); s.grad, w.grad", (s.grad, w.grad))
    _show("symbolic.check(z, gradient=u)  # the two agree", symbolic.check(z, gradient=u))
    k = t.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    _show("k = t.tensor([-1.0, 0.0, 2.0], requires_grad=True); k", k)
    _show("symbolic.check(k.relu().sum())  # relu at 0: a kink, reported with its convention",
          symbolic.check(k.relu().sum()))


if __name__ == "__main__":
    main()
