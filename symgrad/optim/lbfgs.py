"""``symgrad.optim.LBFGS``: limited-memory BFGS with an optional strong-Wolfe line search,
PyTorch's algorithm step for step (its 0-dimensional tensors are numpy scalars of the
parameters' dtype here, so the float32 arithmetic rounds where PyTorch's does)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from symgrad.autograd.grad_mode import enable_grad, no_grad
from symgrad.creation import from_numpy
from symgrad.optim import _kernels as K
from symgrad.optim.optimizer import Optimizer, _check
from symgrad.tensor import Tensor


def _map(value: Any, convert: Callable[[Any], Any]) -> Any:
    """``convert`` applied to ``value``, or to each item of a list."""
    if isinstance(value, list):
        return [convert(v) for v in value]
    return convert(value)


def _to_numpy(value: Any) -> Any:
    if isinstance(value, Tensor):
        array = np.array(value.detach().numpy())
        return array[()] if array.ndim == 0 else array
    return value


def _to_tensor(value: Any) -> Any:
    if isinstance(value, np.ndarray | np.generic):
        return from_numpy(np.array(value))
    return value


def _cubic_interpolate(x1: Any, f1: Any, g1: Any, x2: Any, f2: Any, g2: Any,
                       bounds: tuple[Any, Any] | None = None) -> Any:
    """The minimiser of the cubic through two points with their slopes, within ``bounds``
    (PyTorch's formula)."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = np.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _bracket_phase(obj_func: Callable[..., Any], x: Any, t: Any, d: np.ndarray, f: float,
                   g: np.ndarray, gtd: Any, c1: float, c2: float,
                   max_ls: int) -> tuple[list[Any], ...]:
    """The first phase of the strong-Wolfe search: grow the step until an interval holds a
    point satisfying the conditions (or the step satisfies them)."""
    f_new, g_new = obj_func(x, t, d)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    bracket: list[Any] = []
    bracket_f: list[Any] = []
    bracket_g: list[Any] = []
    bracket_gtd: list[Any] = []
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                               bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]
    return bracket, bracket_f, bracket_g, bracket_gtd, [done, ls_iter, evals]


def _strong_wolfe(obj_func: Callable[..., Any], x: Any, t: Any, d: np.ndarray, f: float,
                  g: np.ndarray, gtd: Any, c1: float = 1e-4, c2: float = 0.9,
                  tolerance_change: float = 1e-9, max_ls: int = 25) -> tuple[Any, ...]:
    """PyTorch's strong-Wolfe line search (from minFunc): ``(f, g, t, evaluations)``."""
    d_norm = np.abs(d).max()
    g = g.copy()
    bracket, bracket_f, bracket_g, bracket_gtd, (done, ls_iter, evals) = _bracket_phase(
        obj_func, x, t, d, f, g, gtd, c1, c2, max_ls)
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], evals


class LBFGS(Optimizer):
    """L-BFGS: each ``step(closure)`` runs up to ``max_iter`` quasi-Newton iterations (the
    inverse Hessian from the last ``history_size`` updates), with step ``lr`` or a
    strong-Wolfe line search (``line_search_fn='strong_wolfe'``). One parameter group only.

    >>> w = symgrad.nn.Parameter(symgrad.tensor([1.5, -0.5]))
    >>> opt = symgrad.optim.LBFGS([w], line_search_fn="strong_wolfe")
    >>> def closure():
    ...     opt.zero_grad()
    ...     loss = ((w - symgrad.tensor([1.0, 2.0])) ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> opt.step(closure)
    tensor(6.5000, grad_fn=<SumBackward0>)
    >>> w
    Parameter containing:
    tensor([1.0000, 2.0000], requires_grad=True)
    """

    def __init__(self, params: Iterable[Any], lr: float = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        _check(lr >= 0.0, f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                    "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                    "history_size": history_size, "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _gather_flat_grad(self) -> np.ndarray:
        views = [np.zeros(p.numel(), p.detach().numpy().dtype) if p.grad is None
                 else p.grad.detach().numpy().reshape(-1) for p in self._params]
        return np.concatenate(views)

    def _add_grad(self, step_size: Any, update: np.ndarray) -> None:
        offset = 0
        with no_grad():
            for p in self._params:
                value = np.array(p.detach().numpy())
                numel = value.size
                K.add_(value.reshape(-1), update[offset:offset + numel], float(step_size))
                p.copy_(from_numpy(value))
                offset += numel

    def _clone_param(self) -> list[np.ndarray]:
        return [np.array(p.detach().numpy()) for p in self._params]

    def _set_param(self, values: list[np.ndarray]) -> None:
        with no_grad():
            for p, value in zip(self._params, values, strict=True):
                p.copy_(from_numpy(value))

    def _directional_evaluate(self, closure: Callable[[], Any], x: list[np.ndarray], t: Any,
                              d: np.ndarray) -> tuple[float, np.ndarray]:
        self._add_grad(t, d)
        value = closure()
        with no_grad():
            loss = float(value)
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def _direction(self, state: dict[str, Any], flat_grad: np.ndarray) -> np.ndarray:
        """The quasi-Newton direction: ``-H·g`` by the two-loop recursion, after folding the
        last step into the history (when its curvature ``y·s`` is positive)."""
        if state["n_iter"] == 1:
            state.update(old_dirs=[], old_stps=[], ro=[], H_diag=1)
            return -flat_grad
        old_dirs, old_stps, ro = state["old_dirs"], state["old_stps"], state["ro"]
        history_size = self.param_groups[0]["history_size"]
        y = flat_grad - state["prev_flat_grad"]
        s = state["d"] * state["d"].dtype.type(state["t"])
        ys = y.dot(s)
        if ys > 1e-10:
            if len(old_dirs) == history_size:
                old_dirs.pop(0)
                old_stps.pop(0)
                ro.pop(0)
            old_dirs.append(y)
            old_stps.append(s)
            ro.append(1.0 / ys)
            state["H_diag"] = ys / y.dot(y)
        if "al" not in state:
            state["al"] = [None] * history_size
        al = state["al"]
        q = -flat_grad
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            K.add_(q, old_dirs[i], -float(al[i]))
        r = q * q.dtype.type(state["H_diag"])
        for i in range(len(old_dirs)):
            be_i = old_dirs[i].dot(r) * ro[i]
            K.add_(r, old_stps[i], float(al[i] - be_i))
        return r

    def _restore(self, state: dict[str, Any]) -> None:
        """The state's tensors (what ``state_dict`` shows, as in PyTorch) as numpy arrays
        and scalars, for the iterations."""
        for key, value in state.items():
            state[key] = _map(value, _to_numpy)

    def _store(self, state: dict[str, Any]) -> None:
        for key, value in state.items():
            state[key] = _map(value, _to_tensor)

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Run up to ``max_iter`` iterations; ``closure`` re-evaluates the loss (and its
        gradients) and is required. Returns the loss of the first evaluation.

        >>> w = symgrad.nn.Parameter(symgrad.tensor([3.0]))
        >>> opt = symgrad.optim.LBFGS([w], lr=0.5, max_iter=1)
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = (w ** 2).sum()
        ...     loss.backward()
        ...     return loss
        >>> opt.step(closure)
        tensor(9., grad_fn=<SumBackward0>)
        """
        if len(self.param_groups) != 1:
            raise AssertionError(
                f"Expected exactly one param_group, but got {len(self.param_groups)}")
        group = self.param_groups[0]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        self._restore(state)
        try:
            return self._iterate(enable_grad()(closure), group, state)
        finally:
            self._store(state)

    def _iterate(self, closure: Callable[[], Any], group: dict[str, Any],
                 state: dict[str, Any]) -> Any:
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn = group["line_search_fn"]
        orig_loss = closure()
        with no_grad():
            loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            d = state["d"] = self._direction(state, flat_grad)
            state["prev_flat_grad"] = flat_grad.copy()
            prev_loss = state["prev_loss"] = loss
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr
            else:
                t = lr
            state["t"] = t
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x: Any, t: Any, d: np.ndarray) -> tuple[float, np.ndarray]:
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd,
                    max_ls=max_eval - current_evals)
                state["t"] = t
                self._add_grad(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                ls_func_evals = 0
                opt_cond = False
                if n_iter != max_iter:
                    value = closure()
                    with no_grad():
                        loss = float(value)
                    flat_grad = self._gather_flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if (n_iter == max_iter or current_evals >= max_eval or opt_cond
                    or np.abs(d * d.dtype.type(t)).max() <= tolerance_change
                    or abs(loss - prev_loss) < tolerance_change):
                break
        return orig_loss
