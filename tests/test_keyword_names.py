"""Every public spelling takes PyTorch's keyword names (issue 15 item 14): the snapshot in
tests/data/torch_keywords.json holds, per spelling symgrad provides, the names torch 2.13
accepts ("accepted": its docstring signatures and ATen schemas) and documents ("documented");
``python tools/torch_keywords.py`` rewrites it from an installed torch. No torch needed here."""

from __future__ import annotations

import inspect
import json
import pathlib

import pytest

import symgrad as t
import symgrad.nn.functional as F

SNAPSHOT = json.loads((pathlib.Path(__file__).parent / "data" / "torch_keywords.json").read_text())
SPACES = {"torch": t, "Tensor": t.Tensor, "F": F}

# keywords of PyTorch's that symgrad has no use for (no layouts, devices, generators, names)
NOT_APPLICABLE = {"out", "layout", "pin_memory", "memory_format", "generator", "names",
                  "non_blocking", "implicit"}
NUMPY_ALIASES = {"axis": "dim", "keepdims": "keepdim"}  # PyTorch's parser takes these too
# what the audit found and leaves, with the reason
KNOWN = {
    "torch.mm": "out_dtype (a CUDA-only option) not implemented",
    "torch.addmm": "out_dtype (a CUDA-only option) not implemented",
    "torch.bmm": "out_dtype (a CUDA-only option) not implemented",
    "Tensor.uniform_": "from is a Python keyword: a def cannot name it, so it is positional only",
    "Tensor.random_": "from is a Python keyword: a def cannot name it, so it is positional only",
    "Tensor.hsplit": "the method shares torch.hsplit's indices_or_sections (PyTorch's method "
                     "names it split_size_or_sections)",
    "Tensor.vsplit": "the method shares torch.vsplit's indices_or_sections",
    "Tensor.dsplit": "the method shares torch.dsplit's indices_or_sections",
    "torch.rrelu": "torch.rrelu shares F.rrelu's inplace",
    "torch.baddbmm": "out_dtype (a CUDA-only option) not implemented",
    "Tensor.cuda": "takes device= and non_blocking= and raises PyTorch's no-CUDA error",
    "Tensor.tensor_split": "sections= and indices= are PyTorch's (its docs list only one name)",
    "Tensor.nonzero": "as_tuple= is PyTorch's (its docs list it apart)",
    "torch.nonzero": "as_tuple= is PyTorch's (its docs list it apart)",
    "Tensor.true_divide": "shares div's rounding_mode",
    "Tensor.true_divide_": "shares div's rounding_mode",
    "torch.true_divide": "shares div's rounding_mode",
    "F.one_hot": "PyTorch's F.one_hot takes tensor= (its schema names it self)",
    "torch.adaptive_max_pool1d": "torch.* shares F.*'s return_indices",
    "torch.max_pool1d": "torch.* shares F.*'s return_indices",
    "torch.max_pool2d": "torch.* shares F.*'s return_indices",
    "torch.max_pool3d": "torch.* shares F.*'s return_indices",
    "torch.celu": "torch.celu shares F.celu's inplace",
    "torch.selu": "torch.selu shares F.selu's inplace",
    "torch.randint": "randint(low, high, size) parsed from *args: low=/high=/size= not taken",
    "torch.randint_like": "randint_like(input, low, high) parsed from *args: no low=/high=",
    "torch.save": "pickle_module/pickle_protocol and the zipfile switches not implemented",
    "torch.concatenate": "PyTorch takes dim= as well as axis=",
    "torch.einsum": "PyTorch's Python einsum(*args) has no names",
    "torch.from_numpy": "PyTorch takes no keywords at all",
    "torch.is_tensor": "PyTorch's signature has obj too (wrapped)",
    "torch.set_default_dtype": "PyTorch's signature has d too (wrapped)",
}


def _symgrad_keywords(space: str, name: str) -> tuple[set[str], bool] | None:
    fn = getattr(SPACES[space], name, None)
    if fn is None:
        return None
    parameters = list(inspect.signature(fn).parameters.values())
    if space == "Tensor" and parameters and parameters[0].kind is not \
            inspect.Parameter.VAR_POSITIONAL:
        parameters = parameters[1:]  # self
    names = {p.name for p in parameters
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)} - {"name"}
    return names, any(p.kind is p.VAR_KEYWORD for p in parameters)


CASES = sorted(k for k in SNAPSHOT if k not in KNOWN)


def test_the_snapshot_covers_the_api():
    assert len(SNAPSHOT) > 400
    assert {"torch.flip", "Tensor.permute", "torch.exp", "Tensor.sum", "F.relu"} <= set(SNAPSHOT)


@pytest.mark.parametrize("key", CASES)
def test_keyword_names_match_pytorch(key):
    space, name = key.split(".", 1)
    found = _symgrad_keywords(space, name)
    if found is None:
        pytest.skip(f"{key} is not in this build of symgrad")  # the snapshot may be newer
    mine, takes_any = found
    accepted = {k for names in SNAPSHOT[key]["accepted"] for k in names}
    documented = {k for names in SNAPSHOT[key]["documented"] for k in names}
    unknown = {k for k in mine - accepted
               if not (k in NUMPY_ALIASES and NUMPY_ALIASES[k] in accepted)}
    assert not unknown, f"{key}: symgrad takes {sorted(unknown)}, PyTorch does not"
    missing = set() if takes_any else documented - NOT_APPLICABLE - mine
    assert not missing, f"{key}: PyTorch takes {sorted(missing)}, symgrad does not"


def test_known_differences_are_still_differences():
    # an entry that became right should leave KNOWN
    for key in KNOWN:
        if key not in SNAPSHOT:
            continue
        space, name = key.split(".", 1)
        found = _symgrad_keywords(space, name)
        if found is None:
            continue
        accepted = {k for names in SNAPSHOT[key]["accepted"] for k in names}
        documented = {k for names in SNAPSHOT[key]["documented"] for k in names}
        mine, takes_any = found
        assert (mine - accepted - set(NUMPY_ALIASES)) or (
            not takes_any and documented - NOT_APPLICABLE - mine), key


KEYWORD_CALLS = [  # the cases of the issue and their siblings, called by keyword
    lambda x: x.flip(dims=(0,)), lambda x: t.flip(input=x, dims=(0, 1)),
    lambda x: x.permute(dims=(1, 0)), lambda x: t.permute(input=x, dims=(1, 0)),
    lambda x: x.reshape(shape=(3, 2)), lambda x: x.view(size=(6,)),
    lambda x: x.expand(size=(2, 2, 3)), lambda x: x.repeat(repeats=(2, 1)),
    lambda x: x.tile(dims=(2,)), lambda x: x.new_ones(size=(2,)),
    lambda x: t.ones(size=(2, 3)), lambda x: t.zeros(size=[2]),
    lambda x: t.exp(input=x), lambda x: t.add(input=x, other=x, alpha=2),
    lambda x: t.sum(input=x, dim=0), lambda x: x.sum(axis=0, keepdims=True),
    lambda x: x.swapaxes(axis0=0, axis1=1), lambda x: x.swapdims(dim0=0, dim1=1),
    lambda x: x.broadcast_to(size=(2, 2, 3)), lambda x: x[0].dot(tensor=x[1]),
    lambda x: x.mm(mat2=x.T), lambda x: x.split(split_size=1),
    lambda x: t.split(x, split_size_or_sections=1), lambda x: x.detach().cumsum_(0, dtype=x.dtype),
    lambda x: x.numpy(force=True),
]


@pytest.mark.parametrize("call", KEYWORD_CALLS)
def test_pytorch_keywords_are_taken(call):
    x = t.arange(6.0).reshape(2, 3).requires_grad_()
    call(x)


@pytest.mark.parametrize(("call", "kind", "message"), [
    (lambda x: x.permute(0, 1, 2), RuntimeError, "permute(sparse_coo): number of dimensions in "
     "the tensor input does not match the length of the desired ordering of dimensions i.e. "
     "input.dim() = 2 is not equal to len(dims) = 3"),
    (lambda x: x.permute(0), RuntimeError, "permute(sparse_coo): number of dimensions"),
    (lambda x: x.permute(1.0, 0), TypeError, "permute() takes 1 positional argument but 2 were "
     "given"),
    (lambda x: x.flip(), TypeError, 'flip() missing 1 required positional arguments: "dims"'),
    (lambda x: x.reshape(2.5), TypeError, "reshape(): argument 'shape' (position 1) must be "
     "tuple of ints, not float"),
    (lambda x: x.view(2.5), TypeError, "view() received an invalid combination of arguments - "
     "got (float), but expected one of:"),
    (lambda x: x.flip(0, dims=(0,)), TypeError, "flip() got multiple values for argument "
     "'dims'"),
    (lambda x: x.detach().cumsum_(0, dtype=t.float64), RuntimeError, "Bad in-place call: input "
     "tensor dtype float and output tensor dtype double should match"),
    (lambda x: t.exp(x, out=x), TypeError, "exp() got an unexpected keyword argument 'out'"),
    (lambda x: t.add(x, x, out=x), TypeError, "add() got an unexpected keyword argument 'out'"),
])
def test_wrong_arguments_refused_like_pytorch(call, kind, message):
    x = t.zeros(2, 3)
    with pytest.raises(kind) as caught:
        call(x)
    assert type(caught.value) is kind and str(caught.value).startswith(message)
    assert x._version == 0
