"""The spelling families load on first use (``symgrad.torch_api.lazy``): from the user's side
nothing shows. Each scenario below is a ``import symgrad as torch`` script whose very first use
of a spelling is an unusual one (a reflected operator, ``torch.Tensor.add`` unbound,
``getattr``, ``inspect.signature``, ``help``, pickling, a patch, threads racing); it runs in a
fresh interpreter and must give exactly what the same code gives here, where every family is
long loaded."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import symgrad

ROOT = Path(symgrad.__file__).resolve().parent.parent

PRELUDE = """
import contextlib, copy, inspect, io, json, pickle, sys, threading
from unittest import mock
import symgrad as torch
x = torch.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
out = {}
"""

# after the scenario: the usual spellings answer as always
AFTER = """
out["after"] = [(x * 2).tolist(), (2 - x).tolist(), x.exp().tolist(), torch.exp(x).tolist(),
                torch.Tensor.add(x, 1).tolist(), str(inspect.signature(torch.Tensor.exp)),
                torch.Tensor.exp.__doc__, (x.tanh() @ x).sum().item()]
y = (x.sigmoid() * x).sum()
y.backward()
out["grad"] = x.grad.tolist()
print(json.dumps(out))
"""

SCENARIOS = {
    "reflected_first": """
out["first"] = [(1.0 / x).tolist(), (2 ** x).tolist(), (3 - x).tolist(), (2 + x).tolist()]
""",
    "unbound_method_first": """
out["first"] = [torch.Tensor.add(x, 1).tolist(), torch.Tensor.__rmul__(x, 3).tolist(),
                torch.Tensor.exp(x).tolist()]
""",
    "getattr_first": """
out["first"] = [getattr(torch.Tensor, "exp")(x).tolist(), getattr(x, "log1p")().tolist(),
                hasattr(torch.Tensor, "no_such_spelling"), callable(getattr(x, "tanh"))]
""",
    "signature_and_doc_first": """
out["first"] = [str(inspect.signature(torch.Tensor.clamp)), str(inspect.signature(torch.exp)),
                torch.Tensor.softmax.__doc__, inspect.getdoc(torch.sort),
                torch.Tensor.add.__qualname__, torch.Tensor.add.__module__]
""",
    "help_first": """
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    help(torch.Tensor.exp)
    help(torch.where)
out["first"] = buf.getvalue()
""",
    "pickle_first": """
p = torch.nn.Parameter(torch.tensor([1.5, -2.0]))
again = pickle.loads(pickle.dumps([x, p]))
buffer = io.BytesIO()
torch.save({"x": x, "p": p}, buffer)
buffer.seek(0)
loaded = torch.load(buffer)
out["first"] = [again[0].tolist(), again[0].requires_grad, type(again[1]).__name__,
                again[1].requires_grad, loaded["x"].tolist(), type(loaded["p"]).__name__,
                copy.deepcopy(x).tolist(), repr(x)]
""",
    "patched_before_first_use": """
with mock.patch.object(torch.Tensor, "exp", lambda self: "patched"):
    patched = [x.exp(), x.sigmoid().tolist()]  # loads exp's family while exp is patched
out["first"] = [patched, x.exp().tolist(), type(vars(torch.Tensor)["sigmoid"]).__name__]
saved = vars(torch.Tensor)["sin"]
torch.Tensor.sin = lambda self: "mine"      # a patch by hand, then undone by hand
out["first"].append([x.sin(), x.cos().tolist()])
torch.Tensor.sin = saved
out["first"].append(x.sin().tolist())
""",
    "subclass_first": """
class Mine(torch.Tensor):
    def exp(self):
        return "own exp"

m = torch.nn.Parameter(torch.tensor([0.5, 1.0]))
out["first"] = [type(m * 2).__name__, (m * 2).tolist(), issubclass(Mine, torch.Tensor),
                Mine.exp(x), Mine.log(x).tolist(), [n for n in dir(Mine) if n == "exp"]]
""",
    "vars_and_dir_first": """
names = dir(torch.Tensor)
out["first"] = [len(names), "exp" in names, "T" in names, x.T.tolist(), x.mT.tolist(),
                sorted(n for n in dir(torch) if n.startswith("log"))]
""",
    "threads_race_first_uses": """
sys.setswitchinterval(1e-6)
jobs = {
    "exp": lambda: x.exp().tolist(), "rsub": lambda: (2 - x).tolist(),
    "matmul": lambda: (x @ x).tolist(), "sort": lambda: torch.sort(x.detach(), 1)[0].tolist(),
    "sum": lambda: x.sum().item(), "relu": lambda: torch.nn.functional.relu(x).tolist(),
    "view": lambda: x.view(4).tolist(), "where": lambda: torch.where(x > 0, x, 0.0).tolist(),
    "getitem": lambda: x[0].tolist(), "T": lambda: x.T.tolist(),
    "clamp": lambda: x.clamp(min=0).tolist(), "softmax": lambda: x.softmax(1).tolist(),
    "unbound": lambda: torch.Tensor.add(x, 1).tolist(),
    "getattr": lambda: getattr(torch.Tensor, "tanh")(x).tolist(),
    "max": lambda: x.max(1).values.tolist(), "cumsum": lambda: x.cumsum(0).tolist(),
    "abs": lambda: torch.abs(x).tolist(), "signature": lambda: str(inspect.signature(torch.mean)),
}
barrier = threading.Barrier(len(jobs))
results = {}

def run(name):
    barrier.wait()
    try:
        results[name] = jobs[name]()
    except Exception as error:
        results[name] = f"{type(error).__name__}: {error}"

threads = [threading.Thread(target=run, args=(name,)) for name in sorted(jobs)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
out["first"] = results
""",
}


def _script(scenario: str) -> str:
    return textwrap.dedent(PRELUDE) + textwrap.dedent(SCENARIOS[scenario]) + AFTER


def _here(scenario: str) -> dict:
    """The scenario in this process (every family loaded), its output as JSON would give it."""
    import contextlib
    import io

    symgrad.torch_api.load_all()
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(compile(_script(scenario), "<scenario>", "exec"), {"__name__": "__scenario__"})
    return json.loads(buffer.getvalue().strip().splitlines()[-1])


@pytest.fixture(scope="module")
def fresh() -> dict:
    """Every scenario run at once, each in its own fresh interpreter."""
    running = {name: subprocess.Popen([sys.executable, "-c", _script(name)], cwd=ROOT,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for name in SCENARIOS}
    found = {}
    for name, process in running.items():
        stdout, stderr = process.communicate(timeout=120)
        found[name] = (process.returncode, stdout, stderr)
    return found


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_a_fresh_interpreter_answers_as_a_loaded_one(fresh, scenario):
    code, stdout, stderr = fresh[scenario]
    assert code == 0, stderr
    got = json.loads(stdout.strip().splitlines()[-1])
    assert got == _here(scenario)


def test_a_patch_made_before_the_first_use_is_kept_and_undone(fresh):
    """(What mock.patch.object does to a Tensor method, before or after its family loads.)"""
    _, stdout, _ = fresh["patched_before_first_use"]
    first = json.loads(stdout.strip().splitlines()[-1])["first"]
    x = symgrad.tensor([[1.0, -2.0], [3.0, 4.0]])
    assert first[0] == ["patched", x.sigmoid().tolist()]  # patched, though its family loaded
    assert first[1] == x.exp().tolist()  # the real exp once the patch is undone
    assert first[3] == ["mine", x.cos().tolist()]
    assert first[4] == x.sin().tolist()
