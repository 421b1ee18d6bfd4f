"""Snapshot the keyword names PyTorch accepts for every spelling symgrad provides.

    python tools/torch_keywords.py            # rewrite tests/data/torch_keywords.json
    python tools/torch_keywords.py --check    # print the differences, change nothing

Needs torch (for reading its signatures only). For a builtin (``torch.flip``, ``Tensor.flip``)
the names come from the ATen schemas of all its overloads (``self`` is ``input`` in the function
form, bound in the method form; out= variants are left out); for a Python function
(``torch.split``, ``F.relu``) from its signature. tests/test_keyword_names.py compares symgrad's
signatures with the snapshot without torch.
"""

from __future__ import annotations

import inspect
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "tests" / "data" / "torch_keywords.json"


def _schema_keywords(name: str, method: bool) -> list[list[str]] | None:
    import torch

    schemas = torch._C._jit_get_schemas_for_operator(f"aten::{name}")
    if not schemas:
        return None
    overloads = []
    for schema in schemas:
        if schema.overload_name.endswith("out") or any(
                a.alias_info is not None and a.alias_info.is_write and a.kwarg_only
                for a in schema.arguments):
            continue  # out= variants
        if not any(str(r.type).startswith("Tensor") for r in schema.returns) or (
                schema.arguments and not str(schema.arguments[0].type).startswith("Tensor")
                and not any(a.name == "layout" for a in schema.arguments)):
            continue  # TorchScript's scalar overloads (add.int(int a, int b)), not Python's
        names = []
        for a in schema.arguments:
            if a.name == "self":
                if not method:
                    names.append("input")
                continue
            names.append(a.name)
        if names not in overloads:
            overloads.append(names)
    return overloads


def _doc_keywords(fn: object, name: str, method: bool) -> list[list[str]] | None:
    """The keyword names of the signature lines of ``fn``'s docstring (``flip(input, dims) ->
    Tensor``); a ``*size`` entry takes the name of the schema's list argument (``view(*shape)``
    accepts ``size=``)."""
    import torch

    lines = [m.group(1) for m in (re.match(rf"^(?:\.\. function:: )?{re.escape(name)}\((.*?)\)"
                                           r"\s*(?:->|$)", line.strip())
                                  for line in (getattr(fn, "__doc__", "") or "").splitlines())
             if m]
    if not lines:
        return None
    lists = [a.name for schema in torch._C._jit_get_schemas_for_operator(f"aten::{name}")
             for a in schema.arguments if str(a.type).endswith("[]")]
    overloads = []
    for line in lines:
        names = []
        for part in (p.strip() for p in line.split(",")):
            key = part.split("=")[0].split(":")[0].strip()
            if key in ("*", "", "...") or not re.match(r"^\*?\w+$", key):
                continue
            if key.startswith("*"):
                key = lists[0] if lists else key[1:]
            names.append(key)
        if method and names and names[0] == "input":
            names = names[1:]
        overloads.append(names)
    return overloads


def _python_keywords(fn: object, method: bool) -> list[list[str]] | None:
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    if any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values()):
        return None  # a dispatching wrapper: its keywords are not in its signature
    names = [p.name for p in signature.parameters.values()
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if method and names and names[0] == "self":
        names = names[1:]
    return [names]


def _torch_keywords(space: str, name: str) -> dict[str, list[list[str]]] | None:
    import torch
    import torch.nn.functional as torch_f

    owner = {"torch": torch, "Tensor": torch.Tensor, "F": torch_f}[space]
    fn = getattr(owner, name, None)
    if fn is None:
        return None
    method = space == "Tensor"
    if inspect.isfunction(fn):
        found = _python_keywords(fn, method)
        return None if found is None else {"documented": found, "accepted": found}
    documented = _doc_keywords(fn, name, method)
    schemas = _schema_keywords(name, method) or []
    if documented is None:
        documented = schemas or _python_keywords(fn, method)
    elif schemas:  # a docstring's names that the binding does not take (matmul(tensor2)) go
        known = {k for names in schemas for k in names}
        documented = [[k for k in names if k in known] for names in documented]
    if documented is None:
        return None
    factory = any("layout" in names for names in schemas)
    accepted = sorted({k for names in documented + schemas for k in names}
                      | ({"requires_grad"} if factory else set()))
    return {"documented": documented, "accepted": [accepted]}


def symgrad_spellings() -> list[tuple[str, str]]:
    """Every public callable symgrad provides, as (namespace, name)."""
    sys.path.insert(0, str(ROOT))
    import symgrad
    import symgrad.nn.functional as sym_f

    out = []
    for name in sorted(getattr(symgrad, "__all__", dir(symgrad))):
        if not name.startswith("_") and callable(getattr(symgrad, name, None)) and not \
                isinstance(getattr(symgrad, name), type):
            out.append(("torch", name))
    for name in sorted(dir(symgrad.Tensor)):
        if not name.startswith("_") and callable(getattr(symgrad.Tensor, name, None)):
            out.append(("Tensor", name))
    for name in sorted(dir(sym_f)):
        if not name.startswith("_") and inspect.isfunction(getattr(sym_f, name)):
            out.append(("F", name))
    return out


def snapshot() -> dict[str, dict[str, list[list[str]]]]:
    result = {}
    for space, name in symgrad_spellings():
        found = _torch_keywords(space, name)
        if found is not None:
            result[f"{space}.{name}"] = found
    return result


def main() -> None:
    data = snapshot()
    if "--check" in sys.argv:
        old = json.loads(SNAPSHOT.read_text()) if SNAPSHOT.exists() else {}
        for key in sorted(set(data) | set(old)):
            if data.get(key) != old.get(key):
                print(f"{key}: snapshot {old.get(key)} torch {data.get(key)}")
        return
    lines = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(data.items())]
    SNAPSHOT.write_text("{\n" + ",\n".join(lines) + "\n}\n")
    print(f"{len(data)} spellings written to {SNAPSHOT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
