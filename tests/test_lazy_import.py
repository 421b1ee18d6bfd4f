"""``import symgrad`` defers the spelling families (``symgrad.torch_api``) and the op families
(``symgrad.ops``) to their first use: checked in fresh interpreters, since in the test process
everything is long imported. The first use of any spelling must behave as if it had always been
there, and cost nothing per call afterwards."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import symgrad
from symgrad.torch_api import declaration, lazy

ROOT = Path(symgrad.__file__).resolve().parent.parent


def _fresh(code: str) -> dict:
    """Run ``code`` in a fresh interpreter that imports this checkout; the JSON it prints."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_loads_no_family_no_engine_no_factories_no_sympy():
    found = _fresh("""
        import json, sys
        import symgrad
        print(json.dumps(sorted(m for m in sys.modules
                                if m.startswith(("symgrad", "sympy")))))
    """)
    families = {*lazy.FAMILIES, *symgrad.ops.FAMILIES, lazy.ENGINE, "sympy", "symgrad.dispatch",
                "symgrad.creation", "symgrad.numeric.printing", "symgrad._docs"}
    assert "symgrad.torch_api.lazy" in found  # the placeholders are installed
    assert not families & set(found), sorted(families & set(found))


def test_first_uses_behave_as_installed_methods():
    found = _fresh("""
        import copy, inspect, json
        import symgrad
        from symgrad.torch_api.declaration import Placeholder
        T = symgrad.Tensor
        out = {"static": type(inspect.getattr_static(T, "exp")).__name__}
        a = symgrad.tensor([1.0, 2.0], requires_grad=True)
        b = symgrad.tensor([3.0, 4.0])
        # calling a node before any backward: the engine installs Node.__call__
        out["node_call"] = [g.tolist() if g is not None else None
                            for g in (a * b).grad_fn(symgrad.ones(2))]
        out["reflected"] = (2 - b).tolist()            # __rsub__, arithmetic not yet used
        out["matmul"] = (b @ b).item()                 # products, through the slot
        out["eq"] = (b == b).tolist()                  # comparison
        out["item"] = b[1].item()                      # __getitem__
        c = b.clone(); c += 1; out["iadd"] = c.tolist()
        out["T"] = list(symgrad.ones(2, 3).T.shape)    # a property (views)
        try:
            symgrad.ones(2, 3).mT = 1
        except AttributeError as error:
            out["set_property"] = str(error)
        out["exp"] = symgrad.exp(b).tolist()
        out["bound"] = "exp" in vars(symgrad)
        out["deepcopy"] = copy.deepcopy(a).tolist()
        out["installed"] = not isinstance(T.__dict__["exp"], Placeholder)
        out["dir"] = dir(symgrad) == symgrad.__all__
        print(json.dumps(out))
    """)
    a = symgrad.tensor([1.0, 2.0], requires_grad=True)
    b = symgrad.tensor([3.0, 4.0])
    assert found["static"] == "Placeholder"
    assert found["node_call"] == [g.tolist() if g is not None else None
                                  for g in (a * b).grad_fn(symgrad.ones(2))]
    assert found["reflected"] == (2 - b).tolist()
    assert found["matmul"] == (b @ b).item()
    assert found["eq"] == [True, True]
    assert found["item"] == 4.0
    assert found["iadd"] == [4.0, 5.0]
    assert found["T"] == [3, 2]
    with pytest.raises(AttributeError) as installed:
        symgrad.ones(2, 3).mT = 1
    assert found["set_property"] == str(installed.value)
    assert found["exp"] == symgrad.exp(b).tolist()
    assert found["bound"] and found["installed"] and found["dir"]
    assert found["deepcopy"] == [1.0, 2.0]


# families whose docstrings derive from another family's (in-place twins, aliases, helpers
# declared in pointwise and used by integer): loaded first, they must give what the
# alphabetical order gives
@pytest.mark.parametrize("family", ["inplace_functions", "integer", "views", "nn", "sorting"])
def test_spellings_do_not_depend_on_which_family_loads_first(family):
    code = """
        import hashlib, importlib, inspect, json, re
        import symgrad
        {first}
        from symgrad import torch_api

        def describe(f):
            return [f.__doc__, str(inspect.signature(f)), f.__qualname__, f.__module__]

        text = json.dumps([{{n: describe(f) for n, f in sorted(torch_api.METHODS.items())}},
                           {{n: describe(f) for n, f in sorted(torch_api.FUNCTIONS.items())}}])
        text = re.sub(r"0x[0-9a-f]+", "0x", text)
        print(json.dumps(hashlib.sha256(text.encode()).hexdigest()))
    """
    first = _fresh(code.format(first=f"importlib.import_module('symgrad.torch_api.{family}')"))
    alphabetical = _fresh(code.format(first="symgrad.torch_api.load_all()"))
    assert first == alphabetical


def test_a_placeholder_that_resolves_to_nothing_is_an_attribute_error():
    class Owner:
        pass

    Owner.spelling = declaration.Placeholder(Owner, "spelling", "symgrad.torch_api.declaration")
    with pytest.raises(AttributeError, match="type object 'Owner' has no attribute 'spelling'"):
        Owner().spelling  # noqa: B018 - the lookup is the test
    with pytest.raises(AttributeError):
        Owner.spelling  # noqa: B018


def test_installed_methods_replace_their_placeholders():
    symgrad.torch_api.load_all()
    left = [n for n, v in vars(symgrad.Tensor).items() if isinstance(v, declaration.Placeholder)]
    assert left == []
    assert not isinstance(vars(symgrad.autograd.Node)["__call__"], declaration.Placeholder)


def test_return_types_holds_every_family_s_types_on_first_access():
    # sorting adds its named tuples (sort, topk ...) to the namespace reductions makes
    found = _fresh("""
        import json
        import symgrad
        print(json.dumps(sorted(vars(symgrad.return_types))))
    """)
    assert found == sorted(vars(symgrad.return_types))
    assert {"max", "sort", "topk"} <= set(found)
