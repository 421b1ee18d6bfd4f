"""The declaration of a PyTorch spelling: :func:`torch_api` installs a function as a Tensor method
and/or a ``symgrad`` function and notes the op it records; :data:`METHODS` and :data:`FUNCTIONS`
hold what it installed, :data:`DECLARED_IN` the family module that declared each (see
``symgrad.torch_api``).
"""

from __future__ import annotations

import gc
import importlib
import inspect
import os
import sys
import types
from collections.abc import Callable
from typing import Any

from symgrad import parser
from symgrad.tensor import Tensor

COMPOSITE = "composite of registered ops"
NO_GRAPH = "not differentiable / no graph"

FUNCTIONS: dict[str, Callable[..., Any]] = {}  # symgrad.<name>, re-exported by symgrad/__init__
METHODS: dict[str, Callable[..., Any]] = {}  # Tensor.<name> installed from here
# ("method" or "function", spelling) -> the family module whose import installs it: what
# tools/generate_tensor_stub.py writes into symgrad/torch_api/_manifest.py
DECLARED_IN: dict[tuple[str, str], str] = {}
# (owner, name) -> the attribute its module declared while the user's own attribute stood in
# the placeholder's place (mock.patch.object before the first use): installed if the
# placeholder comes back (the patch undone), as it would have been there all along
_DEFERRED: dict[tuple[type, str], Any] = {}
_PLACED: set[str] = set()  # the Tensor attributes a placeholder was made for


def load(module: str) -> Any:
    """Import ``module`` (a family of spellings or ops, the engine), with the garbage collector
    paused as ``import symgrad`` pauses it: the import makes thousands of objects and frees
    almost none, so the collector's passes over them would find nothing.

    >>> load("symgrad.autograd.engine").__name__
    'symgrad.autograd.engine'
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        return importlib.import_module(module)
    finally:
        if collecting:
            gc.enable()


class Placeholder:
    """Stands in a class's ``__dict__`` (``Tensor``'s, for a method or, as
    :class:`AttributePlaceholder`, a property) for an attribute that the module ``module``
    installs when imported (``symgrad.torch_api.lazy`` puts them there): the first lookup of
    the name imports the module, which replaces the placeholder with the real attribute, and
    answers with it; later lookups find the attribute itself.

    >>> x = symgrad.ones(2)
    >>> x.exp is not None and not isinstance(type(x).__dict__["exp"], Placeholder)
    True
    """

    __slots__ = ("owner", "name", "module")

    def __init__(self, owner: type, name: str, module: str) -> None:
        self.owner = owner
        self.name = name
        self.module = module
        if owner is Tensor:
            _PLACED.add(name)

    def resolve(self) -> Any:
        """Import the module; the real attribute it installed."""
        load(self.module)
        real = self.owner.__dict__.get(self.name)
        if real is self and (self.owner, self.name) in _DEFERRED:  # a user's patch undone
            real = _DEFERRED.pop((self.owner, self.name))
            setattr(self.owner, self.name, real)
        if real is self or real is None:  # the module did not install it (a stale manifest)
            raise AttributeError(f"type object {self.owner.__name__!r} has no attribute "
                                 f"{self.name!r}")
        return real

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        real = self.resolve()
        return real.__get__(instance, owner) if hasattr(type(real), "__get__") else real


class AttributePlaceholder(Placeholder):
    """A :class:`Placeholder` for a property (``x.T``): assigning or deleting goes to the
    property too, as it would once installed.

    >>> symgrad.ones(2, 3).mT.shape
    symgrad.Size([3, 2])
    """

    __slots__ = ()

    def __set__(self, instance: Any, value: Any) -> None:
        self.resolve()
        setattr(instance, self.name, value)

    def __delete__(self, instance: Any) -> None:
        self.resolve()
        delattr(instance, self.name)


def family() -> str:
    """The module whose body is running: the family that declares what is installed now."""
    frame = sys._getframe(1)
    while frame.f_code.co_name != "<module>" and frame.f_back is not None:
        frame = frame.f_back
    return frame.f_globals["__name__"]


def torch_api(
    records: str,
    *,
    method: bool = True,
    function: bool = True,
    aliases: tuple[str, ...] = (),
    method_aliases: tuple[str, ...] = (),
    function_aliases: tuple[str, ...] = (),
    example: Callable[[Tensor], Any] | None = None,
    inplace: bool = False,
    name: str | None = None,
    attribute: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Install the decorated function under its name (and ``aliases``) as a Tensor method
    (``method``) and as a ``symgrad`` function (``function``).

    ``records`` is the registry name of the op it records, or :data:`COMPOSITE` /
    :data:`NO_GRAPH`. ``example(x)`` calls it on a 2x3 float64 tensor that requires grad (for
    the registry test; default ``x.name()``); ``inplace`` marks in-place methods, which the test
    calls on a non-leaf copy.

    ``method_aliases`` are further names on Tensor only (operators: ``__eq__`` for ``eq``),
    ``function_aliases`` further names in ``symgrad`` only (``subtract`` for ``sub``). ``name``
    renames the function first (a function made by a factory, or a method whose name its module
    already uses for the function spelling); ``attribute`` installs a property (``x.T``).
    Operators are declared here like any method: the installed function is the one Python calls,
    so a declaration costs nothing per call.

    Docstrings: an in-place function without an example gets one derived from its out-of-place
    twin's (``name`` without the trailing ``_``), and each alias is installed as a copy of the
    function with its own "Alias of" docstring and example (see ``symgrad._docs``).
    """

    def install(fn: Callable[..., Any]) -> Callable[..., Any]:
        from symgrad import _docs  # (here: only a family's import needs it, not symgrad's)

        if name is not None:
            fn.__name__ = name
            fn.__qualname__ = fn.__qualname__.rpartition(".")[0] + "." * (
                "." in fn.__qualname__) + name
        fn.records = records  # type: ignore[attr-defined]
        fn.example = example  # type: ignore[attr-defined]
        fn.inplace = inplace  # type: ignore[attr-defined]
        if inplace:
            base = _out_of_place(fn)
            if base is not None:
                _docs.document_inplace(fn, base, method=method)
        module = family()
        for spelling in (fn.__name__, *aliases, *method_aliases, *function_aliases):
            named = fn if spelling == fn.__name__ else _docs.alias(fn, spelling,
                                                                    method=not function)
            if method and spelling not in function_aliases:
                present = Tensor.__dict__.get(spelling)
                replaced = spelling in _PLACED and not isinstance(present, Placeholder)
                if spelling in METHODS or not (present is None or replaced
                                               or isinstance(present, Placeholder)):
                    raise ValueError(f"Tensor.{spelling} is defined twice")
                METHODS[spelling] = named
                DECLARED_IN["method", spelling] = module
                value = property(named) if attribute else named
                if not attribute:
                    _note_spelling(named, spelling, method=True)
                if replaced:  # the user set Tensor.<spelling> before its first use: it stays
                    _DEFERRED[Tensor, spelling] = value
                else:
                    setattr(Tensor, spelling, value)
            if function and spelling not in method_aliases:
                if spelling in FUNCTIONS:
                    raise ValueError(f"symgrad.{spelling} is defined twice")
                FUNCTIONS[spelling] = function_spelling(named, spelling, of_method=method)
                DECLARED_IN["function", spelling] = module
        return fn

    return install


def function_spelling(fn: Callable[..., Any], spelling: str, *,
                      of_method: bool) -> Callable[..., Any]:
    """``symgrad.<spelling>`` for ``fn`` (see :func:`_function_form`), noted for PyTorch's
    argument errors; ``of_method``: ``fn`` is the Tensor method too, and the function runs a
    copy of its code."""
    form = _function_form(_own_copy(fn) if of_method else fn)
    _note_spelling(form, spelling, method=False)
    return form


def _own_copy(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``_docs.function_copy`` of a plain function (a wrapper as it is)."""
    if not isinstance(fn, types.FunctionType) or hasattr(fn, "__wrapped__"):
        return fn
    from symgrad import _docs  # (as in torch_api: only a family's import needs it)

    return _docs.function_copy(fn)


def _note_spelling(fn: Callable[..., Any], spelling: str, *, method: bool) -> None:
    """Note the code that runs the body of installed ``fn`` as ``spelling``'s (the method's or
    the function's), for PyTorch's argument errors (``parser.spelling_running``). A function
    whose code another function runs too (a factory's functions share theirs) is given a copy
    of its own first; one function object installed as two spellings is noted for neither
    (its errors keep the wording its code gives)."""
    inner = fn.__dict__.get("__wrapped__", fn)  # (_tensor_input's check: the form it calls)
    if not isinstance(inner, types.FunctionType):
        return
    if id(inner) in _NOTED:  # (the same object again: which spelling runs is not known)
        parser.SPELLINGS.pop(id(inner.__code__), None)
        return
    _NOTED[id(inner)] = inner
    if id(inner.__code__) in parser.SPELLINGS:
        inner.__code__ = inner.__code__.replace()
    parser.SPELLINGS[id(inner.__code__)] = (inner.__code__, spelling, method)


_NOTED: dict[int, Any] = {}  # the functions noted, by id (kept alive: their ids stay theirs)


def _out_of_place(fn: Callable[..., Any]) -> Callable[..., Any] | None:
    """The function that in-place ``fn`` (``acos_``) is a variant of (``acos``)."""
    name = fn.__name__.removesuffix("_")
    twin = fn.__globals__.get(name)
    if callable(twin) and hasattr(twin, "records"):
        return twin
    return METHODS.get(name) or FUNCTIONS.get(name) or getattr(Tensor, name, None)


def _function_form(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` for the ``symgrad.<name>`` spelling: a method's first parameter ``self`` is
    PyTorch's ``input`` there (``symgrad.exp(input=x)``), and an ``input`` that must be a
    Tensor (a method's, or one annotated so) is checked first, as PyTorch checks it."""
    form = _renamed(fn)
    inner = inspect.unwrap(fn)
    code = inner.__code__
    if code.co_argcount and (code.co_varnames[0] == "self" or code.co_varnames[0] == "input"
                             and inner.__annotations__.get("input") in ("Tensor", Tensor)):
        return _tensor_input(form)
    return form


def _renamed(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with a method's first parameter ``self`` renamed ``input``: the copy runs the
    same code, with the local renamed, so it costs nothing more per call."""
    wrapped = getattr(fn, "__wrapped__", None)
    if wrapped is not None:  # a wrapper (it maps input= itself): its signature shows input
        inner = _renamed(wrapped)
        if inner is wrapped:
            return fn
        form = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                                  fn.__closure__)
        form.__dict__.update(fn.__dict__)
        form.__wrapped__ = inner
        return form
    code = fn.__code__
    if code.co_argcount == 0 or code.co_varnames[0] != "self" or "input" in code.co_varnames:
        return fn

    def rename(names: tuple[str, ...]) -> tuple[str, ...]:
        return tuple("input" if n == "self" else n for n in names)

    form = types.FunctionType(code.replace(co_varnames=rename(code.co_varnames),
                                           co_cellvars=rename(code.co_cellvars)),
                              fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    form.__kwdefaults__ = fn.__kwdefaults__
    form.__qualname__, form.__module__, form.__doc__ = fn.__qualname__, fn.__module__, fn.__doc__
    form.__annotations__ = {("input" if k == "self" else k): v
                            for k, v in fn.__annotations__.items()}
    form.__dict__.update(fn.__dict__)
    return form


def _tensor_input(form: Callable[..., Any]) -> Callable[..., Any]:
    """``form``, behind a function of the same signature that first refuses an ``input`` that
    is not a Tensor with PyTorch's TypeError (the method's code would fail on it with an
    AttributeError). The checking function is compiled from its signature, so that a call
    costs one plain call more, not an ``*args`` repacking."""
    name = form.__name__
    scope: dict[str, Any] = {"_form": form, "_Tensor": Tensor, "_refuse": _not_a_tensor}
    signature = inspect.signature(form, follow_wrapped=False)
    first = next(iter(signature.parameters.values()), None)
    if first is None or first.name != "input" or first.kind is not first.POSITIONAL_OR_KEYWORD:
        # a wrapper taking (*args, **kwargs): input is the first of args, or given by name
        signature = inspect.Signature([
            inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
            inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])
        scope["_absent"] = _ABSENT
    params, passed, star = [], [], False
    for i, p in enumerate(signature.parameters.values()):
        text = p.name
        if p.default is not p.empty:
            scope[f"_default{i}"] = p.default
            text += f"=_default{i}"
        if p.kind is p.VAR_POSITIONAL:
            text, star = f"*{p.name}", True
        elif p.kind is p.VAR_KEYWORD:
            text = f"**{p.name}"
        elif p.kind is p.KEYWORD_ONLY and not star:
            params.append("*")
            star = True
        params.append(text)
        passed.append(f"*{p.name}" if p.kind is p.VAR_POSITIONAL else
                      f"**{p.name}" if p.kind is p.VAR_KEYWORD else
                      f"{p.name}={p.name}" if p.kind is p.KEYWORD_ONLY else p.name)
    # (what the call got, for an overloaded spelling's error: its positional arguments)
    given = "args" if "_absent" in scope else "(" + "".join(
        f"{p.name}, " for p in signature.parameters.values()
        if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty) + ")"
    fetch = "" if "_absent" not in scope else \
        "    input = args[0] if args else kwargs.get('input', _absent)\n"
    source = (f"def {name}({', '.join(params)}):\n{fetch}"
              f"    if not isinstance(input, _Tensor){' and input is not _absent' * bool(fetch)}:\n"
              f"        raise _refuse({name!r}, input, {given})\n"
              f"    return _form({', '.join(passed)})\n")
    # (a file name inside the package: the creation-site search skips this frame as symgrad's)
    exec(compile(source, os.path.join(os.path.dirname(__file__), f"<{name}: input check>"),
                 "exec"), scope)
    checked = scope[name]
    checked.__qualname__, checked.__module__ = form.__qualname__, form.__module__
    checked.__doc__, checked.__annotations__ = form.__doc__, form.__annotations__
    checked.__dict__.update(form.__dict__)
    checked.__wrapped__ = form
    return checked


_ABSENT: Any = object()  # (no input given: the function's own error says so)


def _not_a_tensor(name: str, value: Any, given: tuple) -> TypeError:
    if name in parser.OVERLOADED:  # (PyTorch lists the types it got)
        return parser.invalid_combination(name, given, {})
    return TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                     f"{type(value).__name__}")
