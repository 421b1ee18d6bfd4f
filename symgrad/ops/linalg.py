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


# linalg.inv_ex: a singular matrix's inverse through its LU factors (inf, nan), no error
inverse_ex = Op("inverse_ex", "LinalgInvExBackward0", forward=lambda xp, a: xp.inv_ex(a),
                vjp=(_inverse_grad,), saves_output=True)


def _det_grad(xp, g, ans, a):
    # d det A = det A * tr(A^-1 dA): the cotangent g det A A^-T (0 where det A is 0, as
    # PyTorch's: xp.inv_unless_singular)
    scale = xp.expand_dims(g * ans, (-2, -1))
    return scale * _mT(xp, xp.inv_unless_singular(a))


# linalg.inv_ex: a singular matrix's inverse through its LU factors (inf, nan), no error
inverse_ex = Op("inverse_ex", "LinalgInvExBackward0", forward=lambda xp, a: xp.inv_ex(a),
                vjp=(_inverse_grad,), saves_output=True)


det = register(Op(
    "det", "LinalgDetBackward0",
    forward=lambda xp, a: xp.det(a),
    vjp=(_det_grad,),
    saves_output=True,
    samples=(Sample(((2, 2),)), Sample(((3, 3),), low=0.5), Sample(((2, 2, 2),))),
))


def _solve_forward(xp, a, b, left=True, solver=None):
    solve = solver or xp.solve
    if not left:  # X A = B: A^T X^T = B^T
        return _mT(xp, solve(_mT(xp, a), _mT(xp, b)))
    if b.ndim == 1:  # one right-hand side for every matrix of a (numpy reads a 1-d b alone)
        return xp.squeeze(solve(a, xp.expand_dims(b, -1)), -1)
    return solve(a, b)


def _solve_grad_b(xp, g, ans, a, b, left=True):
    # X = A^-1 B: the cotangent of B is A^-T g (for a vector b, g is a batch of vectors);
    # X = B A^-1: g A^-T
    if not left:
        return _mT(xp, xp.solve(a, _mT(xp, g)))
    if b.ndim == 1:
        return xp.squeeze(xp.solve(_mT(xp, a), xp.expand_dims(g, -1)), -1)
    return xp.solve(_mT(xp, a), g)


def _solve_grad_a(xp, g, ans, a, b, left=True):
    # ... and that of A is -(A^-T g) X^T (-X^T (g A^-T) for X A = B)
    gb = _solve_grad_b(xp, g, ans, a, b, left)
    if not left:
        return -xp.matmul(_mT(xp, ans), gb)
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
             Sample(((2, 2, 2), (2,))), Sample(((2, 2), (3, 2, 1))),
             Sample(((3, 3), (2, 3)), {"left": False}, low=0.5)),
))
# linalg.solve_ex: a singular A gives inf and nan (through its LU factors) instead of an error
solve_ex = Op("solve_ex", "LinalgSolveExBackward0",
              forward=lambda xp, a, b, left=True: _solve_forward(xp, a, b, left, xp.solve_ex),
              vjp=(_solve_grad_a, _solve_grad_b), saved={0: (0,), 1: (0,)}, saves_output=True)


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
# linalg.cholesky_ex: what LAPACK leaves of a failed factorization instead of an error
cholesky_ex = Op(
    "cholesky_ex", "LinalgCholeskyExBackward0",
    forward=lambda xp, a, upper=False: (lambda f: _mT(xp, f) if upper else f)(
        xp.cholesky_ex(a)[0]),
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


# ---------------------------------------------------------------- decompositions
# svd, eigh and qr record one op per output, each with PyTorch's node name. PyTorch's rule is
# linear in the output cotangents, so each output's rule gives its share of it, recomputing the
# factors it reads with the forward's own call (hence the same bits, the same signs). Their
# forwards have no sympy form: lowering one raises, and symbolic.check refuses such graphs; the
# tests check the rules against differences, PyTorch's gradients, and sympy on closed forms.
# None of them is in the registry (its random samples would give ill-defined signs and gaps).

def _skew_over_gaps(xp, j, gaps, off):
    # the off-diagonal (J - J^T)_ij / gaps_ij, 0 on the diagonal
    return xp.where(off, (j - _mT(xp, j)) / xp.where(off, gaps, 1.0), 0.0)


def _svd_cotangent(xp, a, full_matrices, gu=None, gs=None, gvh=None):
    """A's cotangent from those of U, S, Vh (None: unused). With k = min(m, n) and
    F_ij = 1 / (s_j^2 - s_i^2) off the diagonal: U [(F . (U^T gU - gU^T U)) S + diag(gS) +
    S (F . (V^T gV - gV^T V))] V^T, plus (I - U U^T) gU S^-1 V^T when m > k and
    U S^-1 gV^T (I - V V^T) when n > k. Full matrices' extra columns carry no gradient, as in
    PyTorch; repeated singular values give nan where U or Vh is used."""
    u, s, vh = xp.svd(a, full_matrices)
    rows, cols = a.shape[-2:]
    k = min(rows, cols)
    if full_matrices:
        u, vh = u[..., :, :k], vh[..., :k, :]
        gu = None if gu is None else gu[..., :, :k]
        gvh = None if gvh is None else gvh[..., :k, :]
    off = xp.off_diagonal(k)
    inner = 0.0 if gs is None else xp.where(off, 0.0, xp.expand_dims(gs, -2))
    if gu is not None or gvh is not None:
        squares = s * s
        gaps = xp.expand_dims(squares, -2) - xp.expand_dims(squares, -1)
        if gu is not None:
            inner = inner + _skew_over_gaps(xp, xp.matmul(_mT(xp, u), gu), gaps, off) \
                * xp.expand_dims(s, -2)
        if gvh is not None:
            inner = inner + xp.expand_dims(s, -1) * _skew_over_gaps(
                xp, xp.matmul(vh, _mT(xp, gvh)), gaps, off)
    grad = xp.matmul(u, xp.matmul(inner, vh))
    if gu is not None and rows > k:
        outside = gu - xp.matmul(u, xp.matmul(_mT(xp, u), gu))
        grad = grad + xp.matmul(outside / xp.expand_dims(s, -2), vh)
    if gvh is not None and cols > k:
        outside = gvh - xp.matmul(xp.matmul(gvh, _mT(xp, vh)), vh)
        grad = grad + xp.matmul(u, outside / xp.expand_dims(s, -1))
    return grad


def _svd_output(index):
    return lambda xp, a, full_matrices: xp.svd(a, full_matrices)[index]


svd_u = Op("svd_u", "LinalgSvdBackward0", forward=_svd_output(0),
           vjp=(lambda xp, g, ans, a, full_matrices: _svd_cotangent(xp, a, full_matrices, gu=g),),
           saved=(0,))
svd_s = Op("svd_s", "LinalgSvdBackward0", forward=_svd_output(1),
           vjp=(lambda xp, g, ans, a, full_matrices: _svd_cotangent(xp, a, full_matrices, gs=g),),
           saved=(0,))
svd_vh = Op("svd_vh", "LinalgSvdBackward0", forward=_svd_output(2),
            vjp=(lambda xp, g, ans, a, full_matrices: _svd_cotangent(xp, a, full_matrices,
                                                                     gvh=g),),
            saved=(0,))
# the singular values alone (linalg.svdvals, the matrix 2-norms): U diag(gS) V^T
svdvals = Op("svdvals", "LinalgSvdBackward0", forward=lambda xp, a: xp.svdvals(a),
             vjp=(lambda xp, g, ans, a: _svd_cotangent(xp, a, False, gs=g),), saved=(0,))


def _eigh_cotangent(xp, a, upper, gl=None, gv=None):
    """A's cotangent from those of the eigenvalues L and eigenvectors V: V (diag(gL) +
    skew(V^T gV) / E) V^T with E_ij = L_j - L_i, skew(X) = (X - X^T) / 2 (PyTorch's
    projection, which makes it symmetric); repeated eigenvalues give nan where V is used."""
    values, vectors = xp.eigh(a, upper)
    off = xp.off_diagonal(values.shape[-1])
    inner = 0.0 if gl is None else xp.where(off, 0.0, xp.expand_dims(gl, -2))
    if gv is not None:
        gaps = xp.expand_dims(values, -2) - xp.expand_dims(values, -1)
        inner = inner + _skew_over_gaps(xp, xp.matmul(_mT(xp, vectors), gv), gaps, off) * 0.5
    return xp.matmul(vectors, xp.matmul(inner, _mT(xp, vectors)))


eigh_values = Op("eigh_values", "LinalgEighBackward0",
                 forward=lambda xp, a, upper: xp.eigh(a, upper)[0],
                 vjp=(lambda xp, g, ans, a, upper: _eigh_cotangent(xp, a, upper, gl=g),),
                 saved=(0,))
eigh_vectors = Op("eigh_vectors", "LinalgEighBackward0",
                  forward=lambda xp, a, upper: xp.eigh(a, upper)[1],
                  vjp=(lambda xp, g, ans, a, upper: _eigh_cotangent(xp, a, upper, gv=g),),
                  saved=(0,))


def _qr_tall_cotangent(xp, q, r, gq, gr):
    # A = QR with R square: gA = (gQ + Q copyu(M)) R^-T, M = gR R^T - Q^T gQ, copyu(M) its
    # upper triangle mirrored below (from Q^T dQ skew and dR R^-1 upper triangular)
    m = xp.matmul(gr, _mT(xp, r)) - xp.matmul(_mT(xp, q), gq)
    mirrored = xp.triu(m, 0) + _mT(xp, xp.triu(m, 1))
    rhs = gq + xp.matmul(q, mirrored)
    return _mT(xp, xp.solve_triangular(r, _mT(xp, rhs), False))


def _qr_cotangent(xp, a, mode, gq=None, gr=None):
    """A's cotangent from those of Q and R (None: zeros). For a wide A = Q [R1 R2], the square
    part's rule with gQ + A2 gR2^T, and Q gR2 for A2. PyTorch's errors where it has none."""
    rows, cols = a.shape[-2:]
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when "
                           "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going "
                           "to differentiate through linalg.qr.")
    if mode == "complete" and rows > cols:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols.")
    q, r = xp.qr(a, mode == "complete")
    gq = xp.zeros_like(q) if gq is None else gq
    gr = xp.zeros_like(r) if gr is None else gr
    if rows >= cols:
        return _qr_tall_cotangent(xp, q, r, gq, gr)
    wide, gr_wide = a[..., :, rows:], gr[..., :, rows:]
    square = _qr_tall_cotangent(xp, q, r[..., :, :rows], gq + xp.matmul(wide, _mT(xp, gr_wide)),
                                gr[..., :, :rows])
    return xp.concatenate([square, xp.matmul(q, gr_wide)], len(a.shape) - 1)


def _qr_q(xp, a, mode):
    if mode == "r":  # (Q is not computed: an empty tensor, still of the node, as PyTorch's)
        return xp.reshape(a, (-1,))[:0]
    return xp.qr(a, mode == "complete")[0]


qr_q = Op("qr_q", "LinalgQrBackward0", forward=_qr_q,
          vjp=(lambda xp, g, ans, a, mode: _qr_cotangent(xp, a, mode, gq=g),), saved=(0,))
qr_r = Op("qr_r", "LinalgQrBackward0", forward=lambda xp, a, mode: xp.qr(a, mode == "complete")[1],
          vjp=(lambda xp, g, ans, a, mode: _qr_cotangent(xp, a, mode, gr=g),), saved=(0,))


def _matrix_exp_grad(xp, g, ans, a):
    # the Frechet derivative of exp at A^T applied to g: the top right block of
    # exp([[A^T, g], [0, A^T]]), as PyTorch computes it
    n, last = a.shape[-1], len(a.shape) - 1  # (cat's dims are counted from the front)
    transposed = _mT(xp, a)
    block = xp.concatenate([xp.concatenate([transposed, g], last),
                            xp.concatenate([xp.zeros_like(transposed), transposed], last)],
                           last - 1)
    return xp.matrix_exp(block)[..., :n, n:]


matrix_exp = Op("matrix_exp", "LinalgMatrixExpBackward0", forward=lambda xp, a: xp.matrix_exp(a),
                vjp=(_matrix_exp_grad,), saved=(0,))


def _pinv_grad(xp, g, ans, a, atol, rtol, hermitian):
    # dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P (P of constant rank), so
    # gA = -P^T g P^T + (I - A P) g^T P P^T + P^T P g^T (I - P A)
    p, gt = ans, _mT(xp, g)
    pt = _mT(xp, p)
    left = gt - xp.matmul(a, xp.matmul(p, gt))
    right = gt - xp.matmul(xp.matmul(gt, p), a)
    return (xp.matmul(left, xp.matmul(p, pt)) + xp.matmul(xp.matmul(pt, p), right)
            - xp.matmul(pt, xp.matmul(g, pt)))


# lowered (for full-rank matrices, where the tolerances cut nothing) as (A^T A)^-1 A^T or
# A^T (A A^T)^-1, so symbolic.check proves its rule
pinv = Op("pinv", "LinalgPinvBackward0", forward=lambda xp, a, atol, rtol, hermitian:
          xp.pinv(a, atol, rtol, hermitian),
          lower=lambda xp, a, atol, rtol, hermitian: xp.full_rank_pinv(a),
          vjp=(_pinv_grad,), saved=(0,), saves_output=True)


def _lstsq_forward(xp, a, b, rtol):
    solution = xp.matmul(xp.pinv(a, 0.0, rtol, False), b if b.ndim > 1 else xp.expand_dims(b, -1))
    return solution if b.ndim > 1 else xp.squeeze(solution, -1)


def _lstsq_grad_a(xp, g, ans, a, b, rtol):
    # X = pinv(A) B: pinv's rule on g B^T
    if b.ndim == 1:
        g, b = xp.expand_dims(g, -1), xp.expand_dims(b, -1)
    p = xp.pinv(a, 0.0, rtol, False)
    return _pinv_grad(xp, xp.matmul(g, _mT(xp, b)), p, a, 0.0, rtol, False)


def _lstsq_grad_b(xp, g, ans, a, b, rtol):
    pt = _mT(xp, xp.pinv(a, 0.0, rtol, False))
    if b.ndim == 1:
        return xp.squeeze(xp.matmul(pt, xp.expand_dims(g, -1)), -1)
    return xp.matmul(pt, g)


lstsq = Op("lstsq", "LinalgLstsqBackward0", forward=_lstsq_forward,
           lower=lambda xp, a, b, rtol: _lstsq_forward_full_rank(xp, a, b),
           vjp=(_lstsq_grad_a, _lstsq_grad_b), saved={0: (0, 1), 1: (0,)})


def _lstsq_forward_full_rank(xp, a, b):
    vector = b.ndim == 1
    solution = xp.matmul(xp.full_rank_pinv(a), xp.expand_dims(b, -1) if vector else b)
    return xp.squeeze(solution, -1) if vector else solution


def _residuals(xp, a, b, rtol):
    # the squared residuals |A X - B|^2 of each column of B (a vector b: one column),
    # X = pinv(A) B
    if b.ndim == 1:
        b = xp.expand_dims(b, -1)
    r = xp.matmul(a, _lstsq_forward(xp, a, b, rtol)) - b
    return xp.sum(r * r, (len(r.shape) - 2,))


def _residual_parts(xp, g, a, b, rtol):
    # at the least-squares X, d|AX - B|^2 = 2 <AX - B, dA X - dB> (X's own change is
    # orthogonal): gA = 2 (R g) X^T, gB = -2 R g, R = A X - B, g broadcast down the rows
    vector = b.ndim == 1
    if vector:  # (g is then that of the one column already)
        b = xp.expand_dims(b, -1)
    x = xp.matmul(xp.pinv(a, 0.0, rtol, False), b)
    weighted = (xp.matmul(a, x) - b) * xp.expand_dims(g, -2) * 2.0
    return weighted, x, vector


def _residuals_grad_a(xp, g, ans, a, b, rtol):
    weighted, x, _ = _residual_parts(xp, g, a, b, rtol)
    return xp.matmul(weighted, _mT(xp, x))


def _residuals_grad_b(xp, g, ans, a, b, rtol):
    weighted, _, vector = _residual_parts(xp, g, a, b, rtol)
    return -(xp.squeeze(weighted, -1) if vector else weighted)


lstsq_residuals = Op("lstsq_residuals", "LinalgLstsqBackward0", forward=_residuals,
                     lower=lambda xp, a, b, rtol: _residuals_full_rank(xp, a, b),
                     vjp=(_residuals_grad_a, _residuals_grad_b), saved=(0, 1))


def _residuals_full_rank(xp, a, b):
    if b.ndim == 1:
        b = xp.expand_dims(b, -1)
    r = xp.matmul(a, _lstsq_forward_full_rank(xp, a, b)) - b
    return xp.sum(r * r, (len(r.shape) - 2,))


# the residuals PyTorch does not compute: an empty tensor, still of the node
lstsq_no_residuals = Op("lstsq_no_residuals", "LinalgLstsqBackward0",
                        forward=lambda xp, a, b, rtol: xp.reshape(a, (-1,))[:0],
                        vjp=(lambda xp, g, ans, a, b, rtol: xp.zeros_like(a),
                             lambda xp, g, ans, a, b, rtol: xp.zeros_like(b)))


# ---------------------------------------------------------------- LU
# Partial pivoting's P is constant (a function of the values that does not move with them): the
# rules below differentiate P^T A = L U with the row swaps of the recorded factorization, as
# PyTorch's. ``lu`` is the packed square factor (L's multipliers below the diagonal, U on and
# above), solved against with its triangles.
def _l_inv_t(xp, lu, x):  # L^-T x
    return xp.solve_triangular(_mT(xp, lu), x, False, True)


def _u_inv_t(xp, lu, x):  # U^-T x
    return xp.solve_triangular(_mT(xp, lu), x, True)


def _square_lu_cotangent(xp, lu, gl, gu):
    # P^T A = L U: with X = L^-1 P^T dA U^-1, dL = L tril(X, -1) and dU = triu(X) U, so the
    # cotangent of P^T A is L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T
    lower = xp.tril(lu, -1) + (1.0 - xp.off_diagonal(lu.shape[-1]))
    m = xp.tril(xp.matmul(_mT(xp, lower), gl), -1) \
        + xp.triu(xp.matmul(gu, _mT(xp, xp.triu(lu, 0))), 0)
    return _mT(xp, xp.solve_triangular(lu, _mT(xp, _l_inv_t(xp, lu, m)), False))


def _lu_cotangent(xp, a, gl=None, gu=None):
    """A's cotangent from those of L (m x k, unit lower) and U (k x n) of P^T A = L U, k =
    min(m, n). A tall A's extra rows of L and a wide A's extra columns of U are solved for
    from the square part (L2 = A2 U^-1, U2 = L^-1 A2), whose rule takes their share."""
    lu, pivots, _ = xp.lu_factor(a)
    rows, cols = a.shape[-2:]
    k = min(rows, cols)
    square = lu[..., :k, :k]
    gl = xp.zeros_like(lu[..., :, :k]) if gl is None else gl
    gu = xp.zeros_like(lu[..., :k, :]) if gu is None else gu
    last = len(a.shape) - 1
    if rows > k:  # L2 = A2 U^-1: gA2 = gL2 U^-T, and gU takes -L2^T gA2
        g_rest = _mT(xp, xp.solve_triangular(square, _mT(xp, gl[..., k:, :]), False))
        gu = gu - xp.matmul(_mT(xp, lu[..., k:, :k]), g_rest)
        top = _square_lu_cotangent(xp, square, gl[..., :k, :], gu)
        permuted = xp.concatenate([top, g_rest], last - 1)
    elif cols > k:  # U2 = L^-1 A2: gA2 = L^-T gU2, and gL takes -gA2 U2^T
        g_rest = _l_inv_t(xp, square, gu[..., :, k:])
        gl = gl - xp.matmul(g_rest, _mT(xp, lu[..., :, k:]))
        permuted = xp.concatenate([_square_lu_cotangent(xp, square, gl, gu[..., :, :k]),
                                   g_rest], last)
    else:
        permuted = _square_lu_cotangent(xp, square, gl, gu)
    return xp.matmul(xp.lu_permutation(pivots, rows, a.dtype), permuted)


def _lu_factor_grad(xp, g, ans, a):
    k = min(a.shape[-2:])
    return _lu_cotangent(xp, a, xp.tril(g, -1)[..., :, :k], xp.triu(g, 0)[..., :k, :])


# the packed factor of linalg.lu_factor (pivots and info are not differentiable)
lu_factor = Op("lu_factor", "LinalgLuFactorExBackward0", forward=lambda xp, a: xp.lu_factor(a)[0],
               vjp=(_lu_factor_grad,), saved=(0,))


def _unit_rows(xp, lu, k):
    # the identity's first k columns, m x k (L's unit diagonal)
    rows = lu.shape[-2]
    return (1.0 - xp.off_diagonal(max(rows, k)))[:rows, :k]


lu_l = Op("lu_l", "LinalgLuBackward0",
          forward=lambda xp, a: xp.tril(xp.lu_factor(a)[0], -1)[..., :, :min(a.shape[-2:])]
          + _unit_rows(xp, a, min(a.shape[-2:])),
          vjp=(lambda xp, g, ans, a: _lu_cotangent(xp, a, gl=g),), saved=(0,))
lu_u = Op("lu_u", "LinalgLuBackward0",
          forward=lambda xp, a: xp.triu(xp.lu_factor(a)[0], 0)[..., :min(a.shape[-2:]), :],
          vjp=(lambda xp, g, ans, a: _lu_cotangent(xp, a, gu=g),), saved=(0,))


def _pad_to(xp, g, shape):
    # g (m x k or k x n) in the zeros of the packed factor's shape
    widths = [(0, 0)] * (len(shape) - 2) + [(0, shape[-2] - g.shape[-2]),
                                            (0, shape[-1] - g.shape[-1])]
    return xp.pad(g, widths, 0.0)


# lu_unpack's L and U of a packed factor: linear in it
lu_unpack_l = Op("lu_unpack_l", "LuUnpackBackward0",
                 forward=lambda xp, lu: xp.tril(lu, -1)[..., :, :min(lu.shape[-2:])]
                 + _unit_rows(xp, lu, min(lu.shape[-2:])),
                 vjp=(lambda xp, g, ans, lu: _pad_to(xp, xp.tril(g, -1), lu.shape),))
lu_unpack_u = Op("lu_unpack_u", "LuUnpackBackward0",
                 forward=lambda xp, lu: xp.triu(lu, 0)[..., :min(lu.shape[-2:]), :],
                 vjp=(lambda xp, g, ans, lu: _pad_to(xp, xp.triu(g, 0), lu.shape),))


def _lu_solve_forward(xp, lu, b, pivots, left=True, adjoint=False):
    # A = P L U; X A = B is A^T X^T = B^T (and X A^T = B is A X^T = B^T)
    if not left:
        return _mT(xp, _lu_solve_forward(xp, lu, _mT(xp, b), pivots, True, not adjoint))
    p = xp.lu_permutation(pivots, lu.shape[-1], lu.dtype)
    if adjoint:  # A^T X = B: X = P L^-T U^-T B
        return xp.matmul(p, _l_inv_t(xp, lu, _u_inv_t(xp, lu, b)))
    y = xp.solve_triangular(lu, xp.matmul(_mT(xp, p), b), True, True)
    return xp.solve_triangular(lu, y, False)


def _lu_solve_grad_lu(xp, g, ans, lu, b, pivots, left=True, adjoint=False):
    if not left:
        return _lu_solve_grad_lu(xp, _mT(xp, g), _mT(xp, ans), lu, _mT(xp, b), pivots, True,
                                 not adjoint)
    p = xp.lu_permutation(pivots, lu.shape[-1], lu.dtype)
    if adjoint:
        # X = P L^-T Z, Z = U^-T B, W = P^T X: gL = -tril(W H^T), gU = -triu(Z K^T) with
        # H = L^-1 P^T g and K = U^-1 H
        z = _u_inv_t(xp, lu, b)
        w = xp.matmul(_mT(xp, p), ans)
        h = xp.solve_triangular(lu, xp.matmul(_mT(xp, p), g), True, True)
        k = xp.solve_triangular(lu, h, False)
        return -(xp.tril(xp.matmul(w, _mT(xp, h)), -1) + xp.triu(xp.matmul(z, _mT(xp, k)), 0))
    # X = U^-1 Y, Y = L^-1 P^T B = U X: gU = -triu(G X^T), gL = -tril(L^-T G Y^T) with
    # G = U^-T g
    grad = _u_inv_t(xp, lu, g)
    y = xp.matmul(xp.triu(lu, 0), ans)
    return -(xp.tril(xp.matmul(_l_inv_t(xp, lu, grad), _mT(xp, y)), -1)
             + xp.triu(xp.matmul(grad, _mT(xp, ans)), 0))


def _lu_solve_grad_b(xp, g, ans, lu, b, pivots, left=True, adjoint=False):
    # B's cotangent is the solve with A^T in place of A
    return _lu_solve_forward(xp, lu, g, pivots, left, not adjoint)


lu_solve = Op("lu_solve", "LinalgLuSolveBackward0", forward=_lu_solve_forward,
              vjp=(_lu_solve_grad_lu, _lu_solve_grad_b), saved={0: (0, 1), 1: (0,)},
              saves_output=True)


# ---------------------------------------------------------------- Cholesky factors
# A = L L^T (or U^T U with upper): solves and the inverse from the factor's triangle
def _cholesky_solve_forward(xp, b, factor, upper=False):
    if upper:  # A^-1 B = U^-1 U^-T B
        return xp.solve_triangular(factor, xp.solve_triangular(_mT(xp, factor), b, True), False)
    return xp.solve_triangular(_mT(xp, factor), xp.solve_triangular(factor, b, True), False)


def _factor_cotangent(xp, grad_a, factor, upper):
    # A = L L^T: <gA, dA> = <(gA + gA^T) L, dL> (U (gA + gA^T) for A = U^T U), PyTorch's
    # gradient of the whole factor (not only its triangle)
    both = grad_a + _mT(xp, grad_a)
    return xp.matmul(factor, both) if upper else xp.matmul(both, factor)


def _cholesky_solve_grad_factor(xp, g, ans, b, factor, upper=False):
    # X = A^-1 B: gA = -(A^-1 g) X^T
    return _factor_cotangent(xp, -xp.matmul(_cholesky_solve_forward(xp, g, factor, upper),
                                            _mT(xp, ans)), factor, upper)


cholesky_solve = Op("cholesky_solve", "CholeskySolveBackward0", forward=_cholesky_solve_forward,
                    vjp=(lambda xp, g, ans, b, factor, upper=False: _cholesky_solve_forward(
                        xp, g, factor, upper), _cholesky_solve_grad_factor),
                    saved={0: (1,), 1: (1,)}, saves_output=True)


def _cholesky_inverse_forward(xp, factor, upper=False):
    n = factor.shape[-1]
    eye = xp.broadcast_to(1.0 - xp.off_diagonal(n), factor.shape) * 1.0
    return _cholesky_solve_forward(xp, eye, factor, upper)


def _cholesky_inverse_grad(xp, g, ans, factor, upper=False):
    # P = A^-1 (symmetric): gA = -P g P
    return _factor_cotangent(xp, -xp.matmul(ans, xp.matmul(g, ans)), factor, upper)


cholesky_inverse = Op("cholesky_inverse", "CholeskyInverseBackward0",
                      forward=_cholesky_inverse_forward, vjp=(_cholesky_inverse_grad,),
                      saved=(0,), saves_output=True)


# ---------------------------------------------------------------- Householder reflectors
def _reflectors(xp, a, k):
    # the vectors v_i of H_i = I - tau_i v_i v_i^T: column i of a below the diagonal, 1 on it
    return xp.tril(a, -1)[..., :, :k] + _unit_rows(xp, a, k)


def _householder_partials(xp, a, tau):
    """Q_i = H_i H_(i+1) ... H_k E (E: the first n columns of the identity), i = 1 .. k + 1."""
    rows, cols = a.shape[-2:]
    k = tau.shape[-1]
    v = _reflectors(xp, a, k)
    q = xp.zeros_like(a) + _unit_rows(xp, a, cols)
    partials = [q]
    for i in range(k - 1, -1, -1):
        vi = v[..., :, i:i + 1]
        q = q - xp.expand_dims(tau[..., i:i + 1], -1) * xp.matmul(vi, xp.matmul(_mT(xp, vi), q))
        partials.append(q)
    return v, partials[::-1]


def _householder_cotangents(xp, g, a, tau):
    """The cotangents of a and tau: with Q_i = Q_(i+1) - tau_i v_i (v_i^T Q_(i+1)) and G_i
    that of Q_i (G_1 = g, G_(i+1) = H_i G_i): g_tau_i = -v_i^T G_i Q_(i+1)^T v_i and
    g_v_i = -tau_i (G_i Q_(i+1)^T + Q_(i+1) G_i^T) v_i, of which a takes the entries below
    the diagonal."""
    rows, cols = a.shape[-2:]
    k = tau.shape[-1]
    if k == 0:  # (no reflectors: Q is constant)
        return xp.zeros_like(a), xp.zeros_like(tau)
    v, partials = _householder_partials(xp, a, tau)
    grad, columns, taus = g, [], []
    for i in range(k):
        vi, after = v[..., :, i:i + 1], partials[i + 1]
        t = xp.expand_dims(tau[..., i:i + 1], -1)
        left = xp.matmul(grad, xp.matmul(_mT(xp, after), vi))
        right = xp.matmul(after, xp.matmul(_mT(xp, grad), vi))
        taus.append(-xp.matmul(_mT(xp, vi), left)[..., 0, :])
        columns.append(-t * (left + right))
        grad = grad - t * xp.matmul(vi, xp.matmul(_mT(xp, vi), grad))
    last = len(a.shape) - 1
    grad_a = xp.tril(xp.concatenate(columns, last), -1)  # (a holds v_i below the diagonal)
    if k < cols:
        grad_a = xp.pad(grad_a, [(0, 0)] * (len(a.shape) - 1) + [(0, cols - k)], 0.0)
    return grad_a, xp.concatenate(taus, len(tau.shape) - 1)





householder_product = Op(
    "householder_product", "LinalgHouseholderProductBackward0",
    forward=lambda xp, a, tau: _householder_partials(xp, a, tau)[1][0],
    vjp=(lambda xp, g, ans, a, tau: _householder_cotangents(xp, g, a, tau)[0],
         lambda xp, g, ans, a, tau: _householder_cotangents(xp, g, a, tau)[1]),
    saved=(0, 1))


def _no_geqrf_derivative(xp, g, ans, a):
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


# geqrf's compact QR (LAPACK's own output); PyTorch has no derivative of it
geqrf_a = Op("geqrf_a", "GeqrfBackward0", forward=lambda xp, a: xp.geqrf(a)[0],
             vjp=(_no_geqrf_derivative,))
geqrf_tau = Op("geqrf_tau", "GeqrfBackward0", forward=lambda xp, a: xp.geqrf(a)[1],
               vjp=(_no_geqrf_derivative,))
