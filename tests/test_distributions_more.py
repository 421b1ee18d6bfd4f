"""More of ``symgrad.distributions`` against PyTorch 2.13's ``torch.distributions``: the
distributions built on transforms (``Pareto``, ``Weibull``, ``HalfCauchy``, ``Kumaraswamy``,
``InverseGamma``), the others added with them, and the names PyTorch exports. Each case's value
(tensors with their dtype, node and the gradients of a weighted sum with respect to the
parameters), or its error's type and first sentence, is recorded by ``python
tools/record_torch_cases.py tests/test_distributions_more.py`` into
``tests/data/torch_distributions_more.json``; this module never imports torch. Samples come from
symgrad's stream, so only their shapes and statistics are compared.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from torch_cases import first_sentence

import symgrad as t

DATA = pathlib.Path(__file__).parent / "data" / "torch_distributions_more.json"


def _params(L):
    return {"a": L.tensor([1.5, 0.5, 2.0], dtype=L.float64, requires_grad=True),
            "b": L.tensor([0.5, 1.0, 2.5], dtype=L.float64, requires_grad=True),
            "p": L.tensor([0.2, 0.5, 0.9], dtype=L.float64, requires_grad=True)}


def _d(L):
    return L.distributions


def _names(L):
    """The public names of ``distributions`` and their kinds (module, class, other)."""
    d = _d(L)
    return sorted(f"{name}:{type(getattr(d, name)).__name__}" for name in _EXPORTED)


_EXPORTED = ("AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform",
             "PowerTransform", "SigmoidTransform", "TanhTransform", "Transform", "beta",
             "binomial", "chi2", "exp_family", "geometric", "gumbel", "half_normal",
             "independent", "laplace", "log_normal", "multinomial", "multivariate_normal",
             "one_hot_categorical", "poisson", "studentT", "transformed_distribution")

_V = [2.0, 1.5, 3.0]  # values above each scale
_U = [0.2, 0.5, 0.9]  # values in the unit interval


def _v(L, values=_V):
    return L.tensor(values, dtype=L.float64)


# name -> f(L, params): a tensor (or a Python value)
CASES = {
    "exported names": lambda L, P: _names(L),
    "submodules hold their classes": lambda L, P: [
        _d(L).beta.Beta.__name__, _d(L).studentT.StudentT.__name__,
        _d(L).multivariate_normal.MultivariateNormal.__name__,
        _d(L).transformed_distribution.TransformedDistribution.__name__,
        _d(L).exp_family.ExponentialFamily.__name__, _d(L).poisson.Poisson.__name__],
}


def _plain(L, value):
    if isinstance(value, L.Tensor):
        return {"values": np.asarray(value.detach().tolist(), dtype=np.float64).tolist(),
                "dtype": str(value.dtype).split(".")[-1],
                "node": None if value.grad_fn is None else value.grad_fn.name()}
    if isinstance(value, str):
        return value.replace("torch.", "").replace("symgrad.", "")
    if isinstance(value, list | tuple):
        return [_plain(L, v) for v in value]
    return value


def _run(L, name):
    params = _params(L)
    try:
        value = CASES[name](L, params)
    except Exception as e:  # noqa: BLE001 - the outcome is what is recorded
        kind, text = first_sentence(e)
        return ["error", kind, text.replace("torch.", "").replace("symgrad.", "")]
    result = ["value", _plain(L, value)]
    if isinstance(value, L.Tensor) and value.requires_grad:
        weights = L.arange(1.0, 1.0 + value.numel(), dtype=value.dtype).reshape(value.shape)
        grads = L.autograd.grad((value * weights).sum(), list(params.values()),
                                allow_unused=True, materialize_grads=True)
        result.append([np.asarray(g.tolist(), dtype=np.float64).tolist() for g in grads])
    return result


def record_all(L) -> dict:
    return {name: _run(L, name) for name in CASES}


RECORDED = json.loads(DATA.read_text()) if DATA.exists() else {}
LOOSER: dict[str, float] = {}


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    got, expected = _run(t, name), RECORDED[name]
    assert got[0] == expected[0], (got, expected)
    if isinstance(expected[1], dict):
        assert got[1]["dtype"] == expected[1]["dtype"]
        assert got[1]["node"] == expected[1]["node"]
        np.testing.assert_allclose(got[1]["values"], expected[1]["values"], rtol=1e-12,
                                   atol=1e-14)
        assert len(got) == len(expected)
        for mine, theirs in zip(got[2:3], expected[2:3], strict=True):
            for g, e in zip(mine, theirs, strict=True):
                np.testing.assert_allclose(g, e, rtol=LOOSER.get(name, 1e-11),
                                           atol=1e-8 if name in LOOSER else 1e-13)
    else:
        assert got == expected


def test_submodules_import_by_their_pytorch_names():
    import symgrad.distributions.studentT as student

    assert student.StudentT is t.distributions.StudentT
