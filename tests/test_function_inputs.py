"""Every ``symgrad.<function>`` spelling given a list where PyTorch wants its ``input`` Tensor:
the error's type as PyTorch 2.13 gives it, recorded by ``python tools/record_torch_cases.py
tests/test_function_inputs.py`` into ``tests/data/torch_function_inputs.json``; this module never
imports torch. A function made from a method failed on it with an AttributeError before.
"""

from __future__ import annotations

import json
import pathlib
import warnings

import pytest
from torch_cases import first_sentence

import symgrad as t
from symgrad.torch_api import declaration, load_all

DATA = pathlib.Path(__file__).parent / "data" / "torch_function_inputs.json"
load_all()
ARGS = {"1": ([1.0, 2.0],), "2": ([1.0, 2.0], 0)}
CASES = [f"{name}|{n}" for name in sorted(declaration.FUNCTIONS) for n in ARGS]

# PyTorch's own outcome differs where its function is Python code or overloaded on numbers
KNOWN_GAPS = {
    "broadcast_shapes|1": "symgrad reads the list as a shape",
    "einsum|1": "symgrad raises TypeError for a list equation, PyTorch a ValueError",
    "norm|1": "PyTorch's Python norm fails with an AttributeError, symgrad refuses the list",
    "norm|2": "PyTorch's Python norm fails with an AttributeError, symgrad refuses the list",
    "tensordot|2": "PyTorch's Python tensordot fails with an AttributeError",
}


def run(L, key: str) -> dict | None:
    """What ``L.<name>(*args)`` does: None when it returns, else the error's type and first
    sentence; None too when ``L`` has no such function."""
    name, n = key.split("|")
    fn = getattr(L, name, None)
    if fn is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(*ARGS[n])
    except Exception as error:  # noqa: BLE001 - the outcome compared is the error
        return {"error": first_sentence(error)}
    return {"error": None}


def record_all(L) -> dict:
    """Every case's outcome with library ``L`` (tools/record_torch_cases.py)."""
    return {key: run(L, key) for key in CASES}


RECORDED = json.loads(DATA.read_text()) if DATA.exists() else {}


def _same(ours: dict, theirs: dict) -> bool:
    """The same outcome type: no error, or an error of the same class (PyTorch checks the
    input before a missing argument, and names some functions by their internal kernel, so
    the sentence is compared in test_the_refusal_names_the_function instead)."""
    if ours["error"] is None or theirs["error"] is None:
        return ours["error"] == theirs["error"]
    return ours["error"][0] == theirs["error"][0]


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


def test_a_list_input_is_refused_as_pytorch_refuses_it():
    compared = [key for key in CASES if RECORDED[key] is not None and key not in KNOWN_GAPS]
    assert len(compared) > 200
    wrong = [f"{key}: symgrad {run(t, key)} != torch {RECORDED[key]}" for key in compared
             if not _same(run(t, key), RECORDED[key])]
    assert not wrong, "\n".join(wrong)


def test_the_refusal_names_the_function():
    with pytest.raises(TypeError, match=r"^exp\(\): argument 'input' \(position 1\) must be "
                                        r"Tensor, not list$"):
        t.exp([1.0])
    with pytest.raises(TypeError, match=r"^std\(\): argument 'input' \(position 1\) must be "
                                        r"Tensor, not tuple$"):
        t.std((1.0, 2.0), axis=0)  # (a wrapper mapping numpy's names: checked too)
    assert t.exp(input=t.zeros(1)).tolist() == [1.0]  # input by name still works


@pytest.mark.xfail(strict=True, reason="; ".join(sorted(set(KNOWN_GAPS.values()))))
def test_known_gaps():
    assert all(_same(run(t, key), RECORDED[key]) for key in KNOWN_GAPS)
