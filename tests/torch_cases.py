"""Shared by the test modules whose cases were recorded from PyTorch (their data files are
written by ``tools/record_torch_cases.py``)."""

from __future__ import annotations


def first_sentence(error: BaseException) -> list[str]:
    """The error's type and its message's first sentence (the library's name read as torch's:
    ``[torch.FloatTensor [2, 3]]``)."""
    text = str(error).strip().split("\n")[0].replace("symgrad.", "torch.")
    return [type(error).__name__, text.split(". ")[0].rstrip(".")]


def leaves_of(out) -> list:
    """The distinct leaves ``out``'s graph reaches (its ``AccumulateGrad`` nodes' variables), in
    the order a depth-first walk from ``out.grad_fn`` finds them."""
    found, stack = [], [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if hasattr(node, "variable"):
            if not any(node.variable is f for f in found):
                found.append(node.variable)
            continue
        stack.extend(f for f, _ in reversed(node.next_functions))
    return found


def plain(L, value):
    """A case's result as JSON records it: a tensor as ``["tensor", values, node name or None,
    dtype]``, tuples/lists and dicts element by element, anything else by its repr (the
    library's name left out)."""
    import numpy as np

    if isinstance(value, L.Tensor):
        return ["tensor", np.asarray(value.detach().tolist(), dtype=np.float64).tolist(),
                None if value.grad_fn is None else value.grad_fn.name(),
                str(value.dtype).split(".")[-1]]
    if isinstance(value, tuple | list):
        return [plain(L, v) for v in value]
    if isinstance(value, dict):
        return {k: plain(L, v) for k, v in value.items()}
    return repr(value).replace("torch.", "").replace("symgrad.", "")


def outcome(L, case):
    """``plain`` of ``case(L)``, or ``["error", type, first sentence]`` (warnings silenced)."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return plain(L, case(L))
    except Exception as e:  # noqa: BLE001 - the outcome is what is recorded
        return ["error", *first_sentence(e)]


def assert_same(got, expected, rtol=1e-6, atol=1e-7):
    """``got`` equals the recorded ``expected``: tensors' values to the tolerances, everything
    else exactly."""
    import numpy as np

    if isinstance(expected, dict):
        assert isinstance(got, dict) and set(got) == set(expected), (got, expected)
        for k in expected:
            assert_same(got[k], expected[k], rtol, atol)
    elif isinstance(expected, list) and expected[:1] == ["tensor"]:
        assert got[0] == "tensor" and got[2:] == expected[2:], (got, expected)
        np.testing.assert_allclose(got[1], expected[1], rtol=rtol, atol=atol)
    elif isinstance(expected, list) and expected[:1] != ["error"]:
        assert isinstance(got, list) and len(got) == len(expected), (got, expected)
        for g, e in zip(got, expected, strict=True):
            assert_same(g, e, rtol, atol)
    else:
        assert got == expected


def weighted_outcome(L, case, leaves):
    """``case(L, *leaves)``'s output (the last of a tuple) as ``["value", values, dtype, node
    name]`` followed, when it is a finite floating tensor that requires grad, by the gradients
    of its weighted sum ``sum(out * (1, 2, 3, ...))`` with respect to each of ``leaves``
    (zeros where unused); or ``["error", type, first sentence]``. UserWarnings (deprecations)
    are silenced."""
    import warnings

    import numpy as np

    def plain_values(values):
        return np.asarray(values, dtype=np.float64).tolist()

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            out = case(L, *leaves)
        if isinstance(out, tuple):
            out = out[-1]
        result = ["value", plain_values(out.detach().tolist()), str(out.dtype).split(".")[-1],
                  None if out.grad_fn is None else out.grad_fn.name()]
        if out.requires_grad and out.is_floating_point() and out.numel() \
                and bool(out.isfinite().all()):
            weights = L.arange(1.0, 1.0 + out.numel(), dtype=out.dtype).reshape(out.shape)
            grads = L.autograd.grad((out * weights).sum(), leaves, allow_unused=True,
                                    materialize_grads=True)
            result.append([plain_values(g.tolist()) for g in grads])
        return result
    except Exception as e:  # noqa: BLE001 - the outcome is what is recorded
        kind, text = first_sentence(e)
        return ["error", kind.lstrip("_"), text]  # (PyTorch's class is _LinAlgError)


def assert_weighted_same(got, expected, rtol, atol):
    """A :func:`weighted_outcome` equals the recorded one: values to ``rtol``/``atol``, the
    gradients to ten times them, dtype, node name and errors exactly."""
    import numpy as np

    assert got[0] == expected[0], (got, expected)
    if got[0] == "error":
        assert got == expected
        return
    np.testing.assert_allclose(got[1], expected[1], rtol=rtol, atol=atol)
    assert got[2:4] == expected[2:4]
    assert len(got) == len(expected)
    for g, e in zip(got[4:5], expected[4:5], strict=True):
        for mine, theirs in zip(g, e, strict=True):
            np.testing.assert_allclose(mine, theirs, rtol=rtol * 10, atol=atol * 10)
