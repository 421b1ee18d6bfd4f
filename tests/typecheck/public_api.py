"""Type-checked, not run by pytest: code a PyTorch user writes against symgrad's public API.

``mypy`` (configured in pyproject.toml) checks it against symgrad's annotations and the
generated stub of the installed Tensor methods; ``bad_calls.py`` beside it must fail.
"""

from __future__ import annotations

import symgrad as t
from symgrad import symbolic

x: t.Tensor = t.ones(2, 3, requires_grad=True)
w = t.randn(3, 4, dtype=t.float64, requires_grad=True)
y: t.Tensor = (x.double() @ w).tanh().sum(dim=1, keepdim=True)
z = t.cat([y, y], dim=0).exp().mean()
z.backward(retain_graph=True)
grad: t.Tensor | None = x.grad
(g,) = t.autograd.grad(z, [w], retain_graph=True)
assert g is not None  # autograd.grad gives None for an unused input with allow_unused=True
with t.no_grad():
    w -= 0.1 * g
pieces: tuple[t.Tensor, ...] = x.split(1, dim=0)
shape: t.Size = x.shape
flag: bool = x.requires_grad and x.is_leaf
value: float = z.item()
report = symbolic.check(z)
t.testing.assert_gradients_correct(lambda a: a.sin(), t.zeros(3, requires_grad=True))

model = t.nn.Sequential(t.nn.Linear(3, 8), t.nn.ReLU(), t.nn.Linear(8, 2))
optimizer = t.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = t.optim.lr_scheduler.StepLR(optimizer, step_size=10)
inputs = t.randn(4, 3)
labels = t.tensor([0, 1, 1, 0])
loss = t.nn.functional.cross_entropy(model(inputs), labels)
optimizer.zero_grad()
loss.backward()
optimizer.step()
scheduler.step()
state = model.state_dict()
model.load_state_dict(state)
