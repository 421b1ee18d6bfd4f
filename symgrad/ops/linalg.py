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
    grad = xp.matmul(u, xp.matmul(inner, vh)) if not isinstance(inner, float) else None
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
