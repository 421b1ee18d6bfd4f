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
    """Run the walkthrough."""
    t.manual_seed(0)
    _section("Variable and Tensor are one class")
    a = t.ones(3, requires_grad=True)
    _show("type(a)", type(a))
    a = Variable(a)
    _show("type(Variable(a))", type(a))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        volatile = a.volatile
    _show("a.volatile", volatile)
    print(f"UserWarning: {caught[0].message}")

    _section("Leaves and grad_fn")
    a = t.ones(3, requires_grad=True)
    b = t.rand(3, requires_grad=True)
    _show("a, a.is_leaf", (a, a.is_leaf))
    _show("b", b)
    c = a * b
    _show("c = a * b; c.is_leaf", c.is_leaf)
    _show("a.grad_fn", a.grad_fn)
    _show("c.grad_fn", c.grad_fn)
    _show("c.grad_fn.next_functions", c.grad_fn.next_functions)

    _section("requires_grad defaults to False and propagates")
    x = t.ones(3)
    y = t.ones(3, requires_grad=True)
    _show("t.ones(3).requires_grad", x.requires_grad)
    _show("(t.ones(3) + t.ones(3, requires_grad=True)).requires_grad", (x + y).requires_grad)

    _section("backward: scalars, vectors, accumulation, retain_graph")
    _show("c", c)
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
    a.grad = None
    c.backward(gradient=v, retain_graph=True)
    _show("a.grad = None; c.backward(gradient=v); a.grad  # J^T v = v * b", a.grad)
    d2 = c.sum()
    d2.backward()
    _fails("d2 = c.sum(); d2.backward(); d2.backward()", lambda: d2.backward())

    _section(".data and .detach()")
    a = t.ones(3, 4, requires_grad=True)
    b = t.rand(3, 4, requires_grad=True)
    _show("a.data.requires_grad", a.data.requires_grad)
    _fails("(a.data * b.data).sum().backward()", lambda: (a.data * b.data).sum().backward())
    a = t.ones(3, requires_grad=True)
    b = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = a * b
    a.detach().zero_()
    _fails("c = a * b; a.detach().zero_(); c.sum().backward()", lambda: c.sum().backward())
    a = t.ones(3, requires_grad=True)
    c = a * b
    a.data.zero_()
    c.sum().backward()
    _show("c = a * b; a.data.zero_(); c.sum().backward(); b.grad  # silently uses the new a",
          b.grad)

    _section("the same gradients, as sympy formulas")
    from symgrad import symbolic

    a = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = t.tensor([4.0, 5.0, 6.0], requires_grad=True)
    c = a * b
    v = t.tensor([1.0, 0.1, 0.01])
    c.backward(gradient=v)
    _show("c = a * b; symbolic.lower(c).expr", symbolic.lower(c).expr)
    _show("symbolic.grad(c, [a, b], gradient=v)  # v^T J, by sympy.diff",
          symbolic.grad(c, [a, b], gradient=v))
    _show("c.backward(gradient=v); symbolic.check(c, gradient=v)",
          symbolic.check(c, gradient=v))
    x = t.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    _show("symbolic.check(x.relu().sum())  # relu at 0: a kink, reported with its convention",
          symbolic.check(x.relu().sum()))


if __name__ == "__main__":
    main()
