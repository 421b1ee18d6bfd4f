"""Linear algebra: matmul in all of numpy's/PyTorch's rank combinations, batched and broadcast."""

from __future__ import annotations

from symgrad.ops.record import Op, Sample, register

_MATMUL_KERNELS = {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (2, 2): "MmBackward0",
                   (1, 2): "SqueezeBackward4"}


def _matmul_node_name(params, a, b):
    # PyTorch names the node after the kernel matmul dispatches to for these ranks; a matrix
    # (or a batch of one) times a batch of matrices is computed transposed, then cloned
    name = _MATMUL_KERNELS.get((a.ndim, b.ndim))
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


# ---------------------------------------------------------------- diagonals and triangles


def _diagonal_forward(xp, a, offset, dim1, dim2, copy=False):
    d = xp.diagonal(a, offset, dim1, dim2)  # a view, with the diagonal as the last dim
    return xp.astype(d, None) if copy else d


diagonal = register(Op(
    "diagonal", "DiagonalBackward0",
    forward=_diagonal_forward,
    vjp=(lambda xp, g, ans, a, offset, dim1, dim2, copy=False:
         xp.diagonal_backward(g, a.shape, offset, dim1, dim2),),
    # torch.diag of a matrix copies (diagonal_copy)
    node_name_of=lambda params, a: "DiagonalBackward0_copy" if params.get("copy")
    else "DiagonalBackward0",
    samples=(Sample(((3, 3),), {"offset": 0, "dim1": 0, "dim2": 1}),
             Sample(((3, 4),), {"offset": 1, "dim1": 1, "dim2": 0}),
             Sample(((2, 3, 4),), {"offset": -1, "dim1": 2, "dim2": 0, "copy": True}),
             Sample(((2, 3),), {"offset": 5, "dim1": 0, "dim2": 1})),
))

diag_embed = register(Op(
    "diag_embed", "DiagEmbedBackward0",
    # the last dim of a on the diagonal of dims dim1, dim2 of zeros shaped ``shape``
    forward=lambda xp, a, shape, offset, dim1, dim2:
        xp.diagonal_backward(a, shape, offset, dim1, dim2),
    vjp=(lambda xp, g, ans, a, shape, offset, dim1, dim2: xp.diagonal(g, offset, dim1, dim2),),
    samples=(Sample(((3,),), {"shape": (3, 3), "offset": 0, "dim1": 0, "dim2": 1}),
             Sample(((2, 3),), {"shape": (4, 2, 4), "offset": 1, "dim1": 0, "dim2": 2}),
             Sample(((2,),), {"shape": (4, 3), "offset": -1, "dim1": 1, "dim2": 0})),
))


def _trace_grad(xp, g, ans, a):
    return xp.diagonal_backward(xp.spread(g, (min(a.shape),)), a.shape, 0, 0, 1)


trace = register(Op(
    "trace", "TraceBackward0",
    forward=lambda xp, a: xp.sum(xp.diagonal(a, 0, 0, 1)),
    vjp=(_trace_grad,),
    samples=(Sample(((3, 3),)), Sample(((2, 4),))),
))

tril = register(Op(
    "tril", "TrilBackward0",
    forward=lambda xp, a, diagonal: xp.tril(a, diagonal),
    vjp=(lambda xp, g, ans, a, diagonal: xp.tril(g, diagonal),),
    samples=(Sample(((3, 3),), {"diagonal": 0}), Sample(((2, 3, 4),), {"diagonal": -1}),
             Sample(((3, 2),), {"diagonal": 1})),
))

triu = register(Op(
    "triu", "TriuBackward0",
    forward=lambda xp, a, diagonal: xp.triu(a, diagonal),
    vjp=(lambda xp, g, ans, a, diagonal: xp.triu(g, diagonal),),
    samples=(Sample(((3, 3),), {"diagonal": 0}), Sample(((2, 3, 4),), {"diagonal": 1}),
             Sample(((4, 2),), {"diagonal": -2})),
))


# ---------------------------------------------------------------- inverse, det, solve
# (square matrices in the last two dims, batched; the spellings check shapes and dtypes)
def _mT(xp, a):
    return xp.swapaxes(a, -1, -2)


def _inverse_grad(xp, g, ans, a):
    # d(A^-1) = -A^-1 dA A^-1, so the cotangent is -A^-T g A^-T
    transposed = _mT(xp, ans)
    return -xp.matmul(transposed, xp.matmul(g, transposed))


inverse = register(Op(
    "inverse", "LinalgInvExBackward0",
    forward=lambda xp, a: xp.inv(a),
    vjp=(_inverse_grad,),
    saves_output=True,
    samples=(Sample(((2, 2),), low=0.5), Sample(((3, 3),), low=0.5), Sample(((2, 2, 2),))),
))


def _det_grad(xp, g, ans, a):
    # d det A = det A * tr(A^-1 dA): the cotangent g det A A^-T (0 where det A is 0, as
    # PyTorch's: xp.inv_unless_singular)
    scale = xp.expand_dims(g * ans, (-2, -1))
    return scale * _mT(xp, xp.inv_unless_singular(a))


det = register(Op(
    "det", "LinalgDetBackward0",
    forward=lambda xp, a: xp.det(a),
    vjp=(_det_grad,),
    saves_output=True,
    samples=(Sample(((2, 2),)), Sample(((3, 3),), low=0.5), Sample(((2, 2, 2),))),
))


def _solve_forward(xp, a, b):
    if b.ndim == 1:  # one right-hand side for every matrix of a (numpy reads a 1-d b alone)
        return xp.squeeze(xp.solve(a, xp.expand_dims(b, -1)), -1)
    return xp.solve(a, b)


def _solve_grad_b(xp, g, ans, a, b):
    # X = A^-1 B: the cotangent of B is A^-T g (for a vector b, g is a batch of vectors)
    if b.ndim == 1:
        return xp.squeeze(xp.solve(_mT(xp, a), xp.expand_dims(g, -1)), -1)
    return xp.solve(_mT(xp, a), g)


def _solve_grad_a(xp, g, ans, a, b):
    # ... and that of A is -(A^-T g) X^T
    gb = _solve_grad_b(xp, g, ans, a, b)
    if b.ndim == 1:
        return -(xp.expand_dims(gb, -1) * xp.expand_dims(ans, -2))
    return -xp.matmul(gb, _mT(xp, ans))


solve = register(Op(
    "solve", "LinalgSolveExBackward0",
    forward=_solve_forward,
    vjp=(_solve_grad_a, _solve_grad_b),
    saved={0: (0,), 1: (0,)},
    saves_output=True,
    samples=(Sample(((2, 2), (2,)), low=0.5), Sample(((3, 3), (3, 2)), low=0.5),
             Sample(((2, 2, 2), (2,))), Sample(((2, 2), (3, 2, 1)))),
))


def _expand_matrix_scalar(xp, g):
    return xp.expand_dims(g, (-2, -1))


# slogdet's log|det A| (its sign carries no gradient): the cotangent g A^-T, nan at a singular A
slogdet = register(Op(
    "slogdet", "LinalgSlogdetBackward0",
    forward=lambda xp, a: xp.slogabsdet(a),
    vjp=(lambda xp, g, ans, a: _expand_matrix_scalar(xp, g) * _mT(xp, xp.inv_or_nan(a)),),
    saved=(0,),
    samples=(Sample(((2, 2),), low=0.5), Sample(((3, 3),), low=0.5), Sample(((2, 2, 2),))),
))


# slogdet's sign: PyTorch's node for both outputs, the sign's gradient 0
slogdet_sign = register(Op(
    "slogdet_sign", "LinalgSlogdetBackward0",
    forward=lambda xp, a: xp.sign(xp.det(a)),
    vjp=(lambda xp, g, ans, a: xp.zeros_like(a),),
    samples=(Sample(((2, 2),), low=0.5), Sample(((2, 3, 3),), low=0.5)),
))


def _cholesky_forward(xp, a, upper=False):
    factor = xp.cholesky(a)
    return _mT(xp, factor) if upper else factor


def _cholesky_grad(xp, g, ans, a, upper=False):
    # A = L L^T: with Φ(M) the lower triangle of M with its diagonal halved, the cotangent is
    # L^-T Φ(L^T gL) L^-1 made symmetric: PyTorch's convention, which takes A as symmetric (the
    # factorization reads only its lower triangle)
    lower, g_lower = (_mT(xp, ans), _mT(xp, g)) if upper else (ans, g)
    lower_t = _mT(xp, lower)
    phi = xp.matmul(lower_t, g_lower)
    phi = (xp.tril(phi, 0) + xp.tril(phi, -1)) * 0.5
    left = xp.solve_triangular(lower_t, phi, False)  # L^-T Φ
    grad = _mT(xp, xp.solve_triangular(lower_t, _mT(xp, left), False))  # (L^-T Φ) L^-1
    return (grad + _mT(xp, grad)) * 0.5


# Not in the registry: its inputs must be symmetric positive definite, which the registry's
# random samples are not, and its gradient is that of a symmetric A; tests/test_linalg_extra.py
# checks it against differences and sympy through A = X X^T + I.
cholesky = Op(
    "cholesky", "LinalgCholeskyExBackward0",
    forward=_cholesky_forward,
    vjp=(_cholesky_grad,),
    saves_output=True,
)


def _triangle(xp, a, upper, unitriangular):
    """The part of ``a`` a triangular solve reads (without the diagonal when it is taken as
    ones)."""
    if upper:
        return xp.triu(a, 1 if unitriangular else 0)
    return xp.tril(a, -1 if unitriangular else 0)


def _solve_triangular_forward(xp, a, b, upper, left=True, unitriangular=False):
    if left:  # X = T^-1 B
        return xp.solve_triangular(a, b, not upper, unitriangular)
    # X = B T^-1: X^T = T^-T B^T, T^T triangular the other way
    return _mT(xp, xp.solve_triangular(_mT(xp, a), _mT(xp, b), upper, unitriangular))


def _solve_triangular_grad_b(xp, g, ans, a, b, upper, left=True, unitriangular=False):
    # gB = T^-T g (left), g T^-T (right)
    if left:
        return xp.solve_triangular(_mT(xp, a), g, upper, unitriangular)
    return _mT(xp, xp.solve_triangular(a, _mT(xp, g), not upper, unitriangular))


def _solve_triangular_grad_a(xp, g, ans, a, b, upper, left=True, unitriangular=False):
    # gT = -gB X^T (left), -X^T gB (right), on the part of A the solve read
    gb = _solve_triangular_grad_b(xp, g, ans, a, b, upper, left, unitriangular)
    full = -xp.matmul(gb, _mT(xp, ans)) if left else -xp.matmul(_mT(xp, ans), gb)
    return _triangle(xp, full, upper, unitriangular)


solve_triangular = register(Op(
    "solve_triangular", "LinalgSolveTriangularBackward0",
    forward=_solve_triangular_forward,
    vjp=(_solve_triangular_grad_a, _solve_triangular_grad_b),
    saved={0: (0,), 1: (0,)},
    saves_output=True,
    samples=(Sample(((2, 2), (2, 3)), {"upper": False}, low=0.5),
             Sample(((3, 3), (3, 1)), {"upper": True}, low=0.5),
             Sample(((3, 3), (2, 3)), {"upper": True, "left": False}, low=0.5),
             Sample(((2, 3, 3), (3, 2)), {"upper": False, "unitriangular": True})),
))


# ---------------------------------------------------------------- addmm, addmv, baddbmm
# beta * input + alpha * (mat1 @ mat2): input broadcasts to the product's shape (the engine sums
# its cotangent back); with beta == 0 input is ignored, nan and inf included (PyTorch).
def _add_product(xp, a, b, c, beta=1, alpha=1):
    product = xp.matmul(b, c)
    if alpha != 1:
        product = product * alpha
    if beta == 0:  # input ignored, but its shape still broadcasts with the product's
        return product + xp.zeros_like(a)
    return (a if beta == 1 else a * beta) + product


def _scaled(g, factor):
    return g if factor == 1 else g * factor


def _add_product_grads():
    return (lambda xp, g, ans, a, b, c, beta=1, alpha=1: _scaled(g, beta),
            lambda xp, g, ans, a, b, c, beta=1, alpha=1: _scaled(_matmul_grad_a(xp, g, ans, b, c),
                                                                 alpha),
            lambda xp, g, ans, a, b, c, beta=1, alpha=1: _scaled(_matmul_grad_b(xp, g, ans, b, c),
                                                                 alpha))


addmm = register(Op(
    "addmm", "AddmmBackward0",
    forward=_add_product,
    vjp=_add_product_grads(),
    saved={1: (2,), 2: (1,)},
    samples=(Sample(((2, 4), (2, 3), (3, 4))), Sample(((4,), (2, 3), (3, 4)),
                                                      {"beta": 0.5, "alpha": 2.0}),
             Sample(((2, 1), (2, 3), (3, 4)), {"beta": 0, "alpha": 1})),
))

addmv = register(Op(
    "addmv", "AddmvBackward0",
    forward=_add_product,
    vjp=_add_product_grads(),
    saved={1: (2,), 2: (1,)},
    samples=(Sample(((2,), (2, 3), (3,))), Sample(((), (2, 3), (3,)), {"beta": 2.0,
                                                                      "alpha": -1.0})),
))

baddbmm = register(Op(
    "baddbmm", "BaddbmmBackward0",
    forward=_add_product,
    vjp=_add_product_grads(),
    saved={1: (2,), 2: (1,)},
    samples=(Sample(((2, 2, 4), (2, 2, 3), (2, 3, 4))),
             Sample(((2, 4), (2, 2, 3), (2, 3, 4)), {"beta": 0.5, "alpha": 3.0})),
))

# bmm: matmul of two batches of matrices of the same batch size, under PyTorch's name
bmm = register(Op(
    "bmm", "BmmBackward0",
    forward=matmul.forward,
    vjp=matmul.vjp,
    saved=matmul.saved,
    samples=(Sample(((2, 2, 3), (2, 3, 4))), Sample(((1, 3, 2), (1, 2, 2)))),
))


def _cross(xp, a, b, dim):
    # c_i = a_(i+1) b_(i+2) - a_(i+2) b_(i+1) along dim (of length 3), indices mod 3: the
    # components PyTorch computes, in its order of operations
    def turned(x, k):
        return xp.roll(x, (-k,), (dim,))
    return turned(a, 1) * turned(b, 2) - turned(a, 2) * turned(b, 1)


cross = register(Op(
    "cross", "LinalgCrossBackward0",
    forward=_cross,
    # a x b is linear in each: <g, a x b> = <b x g, a> = <g x a, b>; broadcast inputs get
    # theirs summed back by the engine
    vjp=(lambda xp, g, ans, a, b, dim: _cross(xp, b, g, dim),
         lambda xp, g, ans, a, b, dim: _cross(xp, g, a, dim)),
    saved={0: (1,), 1: (0,)},
    samples=(Sample(((3,), (3,)), {"dim": 0}), Sample(((2, 3), (2, 3)), {"dim": 1}),
             Sample(((3, 2), (1, 2)), {"dim": 0}), Sample(((2, 1, 3), (4, 3)), {"dim": -1})),
))
