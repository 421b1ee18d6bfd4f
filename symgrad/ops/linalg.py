"""Linear algebra: matmul in all of numpy's/PyTorch's rank combinations, batched and broadcast."""

from __future__ import annotations

from symgrad.ops import Op, Sample, register


def _matmul_node_name(params, a, b):
    # PyTorch names the node after the kernel matmul dispatches to for these ranks; a matrix
    # (or a batch of one) times a batch of matrices is computed transposed, then cloned
    name = {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (2, 2): "MmBackward0",
            (1, 2): "SqueezeBackward4"}.get((a.ndim, b.ndim))
    if name:
        return name
    if b.ndim == 3 and (a.ndim == 2 or (a.ndim == 3 and a.shape[0] == 1 and b.shape[0] != 1)):
        return "CloneBackward0"
    return "UnsafeViewBackward0"


def _matmul_grad_a(xp, g, ans, a, b):
    if b.ndim == 1:
        if a.ndim == 1:
            return g * b
        return xp.expand_dims(g, -1) * b  # outer product per batch, (..., n, k)
    if a.ndim == 1:
        return xp.squeeze(xp.matmul(b, xp.expand_dims(g, -1)), axis=-1)  # (..., k), summed later
    return xp.matmul(g, xp.swapaxes(b, -1, -2))


def _matmul_grad_b(xp, g, ans, a, b):
    if a.ndim == 1:
        if b.ndim == 1:
            return g * a
        return xp.expand_dims(a, -1) * xp.expand_dims(g, -2)  # (..., k, m)
    if b.ndim == 1:
        return xp.squeeze(xp.matmul(xp.swapaxes(a, -1, -2), xp.expand_dims(g, -1)), axis=-1)
    return xp.matmul(xp.swapaxes(a, -1, -2), g)


matmul = register(Op(
    "matmul", "MmBackward0",
    forward=lambda xp, a, b: xp.matmul(a, b),
    vjp=(_matmul_grad_a, _matmul_grad_b),
    saved={0: (1,), 1: (0,)},
    node_name_of=_matmul_node_name,
    samples=(Sample(((3,), (3,))), Sample(((2, 3), (3,))), Sample(((3,), (3, 2))),
             Sample(((2, 3), (3, 4))), Sample(((2, 2, 3), (3, 4))),
             Sample(((2, 1, 2, 3), (3, 3, 2))), Sample(((3,), (2, 3, 4))),
             Sample(((2, 2, 3), (3,)))),
))
