"""A binary spelling given an operand of no type it takes (None, a str, a list, a tuple, a dict,
an object): PyTorch's exception type and first sentence, in each form (``symgrad.add(x, bad)``,
``symgrad.add(bad, x)``, ``x.add(bad)``, ``x.add_(bad)``). A spelling with one signature names
the argument by its position in the form called (a method's ``self`` is not counted); an
overloaded one lists the types it got (``subtract``, not ``sub``; the comparisons).

PyTorch's outcomes are recorded by ``python tools/record_torch_cases.py
tests/test_operand_types.py`` into ``tests/data/torch_operand_types.json.gz``; this module never
imports torch.
"""

from __future__ import annotations

import gzip
import json
import pathlib
import warnings

import pytest
from torch_cases import first_sentence

import symgrad as t
from symgrad.torch_api import load_all

DATA = pathlib.Path(__file__).parent / "data" / "torch_operand_types.json.gz"
load_all()
SPELLINGS = """add sub subtract mul multiply div divide true_divide floor_divide remainder fmod
pow float_power atan2 arctan2 hypot maximum minimum fmax fmin eq ne lt le gt ge greater less
greater_equal less_equal not_equal logical_and logical_or logical_xor bitwise_and bitwise_or
bitwise_xor bitwise_left_shift bitwise_right_shift copysign xlogy dist dot mm matmul mv outer
inner cross kron heaviside isclose allclose equal logaddexp logaddexp2 clamp_min clamp_max
bucketize searchsorted masked_select take vdot ger""".split()
FORMS = ("function", "reversed", "method", "inplace")
BAD = {"none": None, "str": "a", "list": [1.0, 2.0], "tuple": (1.0,), "dict": {},
       "object": object()}
CASES = [f"{name}|{form}|{bad}" for name in SPELLINGS for form in FORMS for bad in BAD]


def _call(L, key: str):  # noqa: ANN202 - a test helper
    """The call of case ``key`` with library ``L``, or None when ``L`` has no such spelling."""
    name, form, bad = key.split("|")
    x, value = L.ones(2), BAD[bad]
    if form in ("function", "reversed"):
        fn = getattr(L, name, None)
        args = (x, value) if form == "function" else (value, x)
        return None if fn is None else lambda: fn(*args)
    fn = getattr(x, name if form == "method" else name + "_", None)
    return None if fn is None else lambda: fn(value)


def run(L, key: str) -> dict | None:
    """What the case does: None when ``L`` has no such spelling, else the error's type and
    first sentence (None when it returns)."""
    call = _call(L, key)
    if call is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
    except Exception as error:  # noqa: BLE001 - the outcome compared is the error
        return {"error": first_sentence(error)}
    return {"error": None}


def record_all(L) -> dict:
    """Every case's outcome with library ``L`` (tools/record_torch_cases.py)."""
    return {key: run(L, key) for key in CASES}


RECORDED = json.loads(gzip.decompress(DATA.read_bytes())) if DATA.exists() else {}

# PyTorch's own outcome is an accident of its Python code there
KNOWN_GAPS = {f"tensordot|{form}|{bad}": "PyTorch's Python tensordot fails with an "
              "AttributeError on a non-tensor; symgrad refuses it with a TypeError"
              for form in ("function", "reversed") for bad in BAD}


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


@pytest.mark.parametrize("name", SPELLINGS)
def test_matches_torch(name):
    wrong = []
    for key in CASES:
        if key.split("|")[0] != name or RECORDED[key] is None:
            continue  # (PyTorch has no such spelling: x.dot_, x.maximum_)
        ours = run(t, key)
        if ours != RECORDED[key]:
            wrong.append(f"{key}: symgrad {ours} != torch {RECORDED[key]}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("spelling", ["__eq__", "__lt__", "__add__", "__mul__", "__pow__"])
def test_the_operators_still_answer_not_implemented(spelling):
    """The comparisons' and arithmetic's operators are the same code as their named spellings;
    they still leave an operand they do not take to Python (``x == None`` is False, ``x < None``
    a TypeError from Python), where the named spellings refuse it."""
    x = t.ones(2)
    assert getattr(x, spelling)(None) is NotImplemented
    assert (x == None) is False  # noqa: E711 - the operator is the subject
    with pytest.raises(TypeError, match="'<' not supported between instances of 'Tensor' and "
                                        "'NoneType'"):
        x < None  # noqa: B015


def test_the_position_follows_the_form_called():
    """One code serves ``x.dist(y)`` and ``symgrad.dist(x, y)``: the error counts positions as
    the form called does."""
    x = t.ones(2)
    with pytest.raises(TypeError, match=r"^dist\(\): argument 'other' \(position 1\) must be "
                                        r"Tensor, not NoneType$"):
        x.dist(None)
    with pytest.raises(TypeError, match=r"^dist\(\): argument 'other' \(position 2\) must be "
                                        r"Tensor, not NoneType$"):
        t.dist(x, None)
    with pytest.raises(TypeError, match=r"^subtract\(\) received an invalid combination of "
                                        r"arguments - got \(str\), but expected one of:"):
        x.subtract("a")


def test_where_and_item_assignment_refuse_as_pytorch():
    x = t.ones(2)
    mask = x > 0
    with pytest.raises(TypeError, match=r"^where\(\) received an invalid combination of "
                                        r"arguments - got \(Tensor, Tensor, NoneType\),"):
        t.where(mask, x, None)
    with pytest.raises(TypeError, match=r"^where\(\) received an invalid combination of "
                                        r"arguments - got \(Tensor, str\),"):
        x.where(mask, "a")  # (the method's list leaves self out)
    with pytest.raises(TypeError, match=r"^can't assign a list to a symgrad\.FloatTensor$"):
        x[0] = [1.0]
    assert x.tolist() == [1.0, 1.0] and x._version == 0


@pytest.mark.parametrize("name, expected", [("eq", [0.0, 1.0, 0.0]), ("ne", [1.0, 0.0, 1.0]),
                                            ("lt", [1.0, 0.0, 0.0]), ("le", [1.0, 1.0, 0.0]),
                                            ("gt", [0.0, 0.0, 1.0]), ("ge", [0.0, 1.0, 1.0]),
                                            ("greater", [0.0, 0.0, 1.0])])
def test_in_place_comparisons(name, expected):
    """``x.lt_(y)``: 1 where the comparison holds and 0 elsewhere, in ``x``'s dtype, a new
    version; a leaf that requires grad and a broadcast to a larger shape are refused."""
    x = t.tensor([1.0, 2.0, 3.0])
    assert getattr(x, name + "_")(2.0) is x
    assert x.tolist() == expected and x.dtype is t.float32 and x._version == 1
    ints = t.tensor([1, 2, 3])
    getattr(ints, name + "_")(t.tensor(2))
    assert ints.tolist() == [int(v) for v in expected] and ints.dtype is t.int64
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation"):
        getattr(t.ones(3, requires_grad=True), name + "_")(2.0)
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the "
                                           r"broadcast shape \[2, 3\]"):
        getattr(t.ones(3), name + "_")(t.ones(2, 3))


def test_every_spelling_runs_code_of_its_own():
    """Each installed method and function (properties aside) runs a code object noted for its
    own name and form, which is what lets an error tell ``x.add`` from ``symgrad.add`` and
    ``subtract`` from ``sub``."""
    from symgrad import parser
    from symgrad.torch_api import declaration

    wrong = []
    for method, table in ((True, declaration.METHODS), (False, declaration.FUNCTIONS)):
        for name, fn in table.items():
            code = getattr(fn.__dict__.get("__wrapped__", fn), "__code__", None)
            noted = parser.SPELLINGS.get(id(code))
            if code is not None and not isinstance(t.Tensor.__dict__.get(name), property) \
                    and (noted is None or noted != (code, name, method)):
                wrong.append((name, method, noted and noted[1:]))
    assert not wrong
