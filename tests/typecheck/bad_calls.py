"""Type-checked, not run: every line below is a wrong call that mypy must report (the
checker's own test: tests/test_public_namespace.py counts the errors)."""

from __future__ import annotations

import symgrad as t

x = t.ones(3, requires_grad=True)
x.split(1, dim="0")  # error: dim is an int
x.sum(keepdim="yes")  # error: keepdim is a bool
t.autograd.grad(x.sum(), x, retain_graph=1.5)  # error: retain_graph is a bool | None
s: str = x.exp()  # error: a Tensor is not a str
x.no_such_method()  # error: Tensor has no such attribute
t.nn.Linear(3, "2")  # error: out_features is an int
t.optim.SGD(t.nn.Linear(3, 2).parameters(), lr="fast")  # error: lr is a float
