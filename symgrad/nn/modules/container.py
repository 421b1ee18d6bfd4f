"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList`` and
``ParameterDict``."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from symgrad.nn.modules.module import Module, _addindent, typename
from symgrad.nn.parameter import Parameter
from symgrad.tensor import Tensor


def _index(idx: Any, size: int) -> int:
    """``idx`` as a position in ``0..size-1`` (negative from the end), or PyTorch's
    IndexError."""
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


class Sequential(Module):
    """Modules applied in order; children are named ``'0'``, ``'1'`` ... or by the keys of an
    OrderedDict.

    >>> net = symgrad.nn.Sequential(symgrad.nn.Linear(2, 3), symgrad.nn.ReLU())
    >>> net
    Sequential(
      (0): Linear(in_features=2, out_features=3, bias=True)
      (1): ReLU()
    )
    >>> net(symgrad.zeros(4, 2)).shape
    symgrad.Size([4, 3])
    """

    def __init__(self, *args: Module) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input: Any) -> Any:  # noqa: A002 - PyTorch's name
        """Each module's output is the next one's input.

        >>> symgrad.nn.Sequential(symgrad.nn.ReLU(), symgrad.nn.Tanh())(symgrad.tensor([-1.0]))
        tensor([0.])
        """
        for module in self._modules.values():
            input = module(input)
        return input

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, idx: int | slice) -> Module:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(idx, len(self._modules))]

    def __setitem__(self, idx: int, module: Module) -> None:
        key = list(self._modules)[_index(idx, len(self._modules))]
        setattr(self, key, module)

    def __delitem__(self, idx: int | slice) -> None:
        keys = list(self._modules)
        for key in (keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(keys))]]):
            del self._modules[key]
        self._renumber()

    def _renumber(self) -> None:
        self.__dict__["_modules"] = {str(i): m for i, m in enumerate(self._modules.values())}

    def append(self, module: Module) -> Sequential:
        """Add ``module`` at the end; returns self.

        >>> symgrad.nn.Sequential().append(symgrad.nn.ReLU())
        Sequential(
          (0): ReLU()
        )
        """
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Insert ``module`` before position ``index``; returns self.

        >>> symgrad.nn.Sequential(symgrad.nn.ReLU()).insert(0, symgrad.nn.Tanh())[0]
        Tanh()
        """
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        items = list(self._modules.values())
        items.insert(index, module)
        self.__dict__["_modules"] = {}
        for i, m in enumerate(items):
            self.add_module(str(i), m)
        return self

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        """Append each module of ``sequential``; returns self.

        >>> len(symgrad.nn.Sequential().extend([symgrad.nn.ReLU(), symgrad.nn.Tanh()]))
        2
        """
        for module in sequential:
            self.append(module)
        return self

    def pop(self, key: int | slice) -> Module:
        """Remove and return the module at ``key``.

        >>> net = symgrad.nn.Sequential(symgrad.nn.ReLU(), symgrad.nn.Tanh())
        >>> net.pop(0), len(net)
        (ReLU(), 1)
        """
        module = self[key]
        del self[key]
        return module


class ModuleList(Module):
    """A list of modules, registered as children ``'0'``, ``'1'`` ... (it has no forward).

    >>> layers = symgrad.nn.ModuleList([symgrad.nn.Linear(2, 2) for _ in range(3)])
    >>> layers
    ModuleList(
      (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)
    )
    >>> len(list(layers.parameters()))
    6
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self._modules)))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, str(_index(idx, len(self._modules))), module)

    def __delitem__(self, idx: int | slice) -> None:
        keys = list(self._modules)
        for key in (keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(keys))]]):
            del self._modules[key]
        self.__dict__["_modules"] = {str(i): m for i, m in enumerate(self._modules.values())}

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def append(self, module: Module) -> ModuleList:
        """Add ``module`` at the end; returns self.

        >>> len(symgrad.nn.ModuleList().append(symgrad.nn.ReLU()))
        1
        """
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Append each module of ``modules``; returns self.

        >>> len(symgrad.nn.ModuleList().extend([symgrad.nn.ReLU(), symgrad.nn.Tanh()]))
        2
        """
        if isinstance(modules, Mapping) or not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        """Insert ``module`` before position ``index``.

        >>> layers = symgrad.nn.ModuleList([symgrad.nn.ReLU()])
        >>> layers.insert(0, symgrad.nn.Tanh())
        >>> layers[0]
        Tanh()
        """
        items = list(self._modules.values())
        items.insert(index, module)
        self.__dict__["_modules"] = {}
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def pop(self, key: int | slice) -> Module:
        """Remove and return the module at ``key``.

        >>> symgrad.nn.ModuleList([symgrad.nn.ReLU(), symgrad.nn.Tanh()]).pop(-1)
        Tanh()
        """
        module = self[key]
        del self[key]
        return module

    def __repr__(self) -> str:
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        lines = []
        start = 0
        for end in range(1, len(reprs) + 1):
            if end < len(reprs) and reprs[end] == reprs[start]:
                continue
            body = _addindent(reprs[start], 2)
            if end - start == 1:
                lines.append(f"({start}): {body}")
            else:
                lines.append(f"({start}-{end - 1}): {end - start} x {body}")
            start = end
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules, registered as children under their keys (insertion order).

    >>> heads = symgrad.nn.ModuleDict({"act": symgrad.nn.ReLU(), "out": symgrad.nn.Linear(2, 1)})
    >>> list(heads), heads["act"]
    (['act', 'out'], ReLU())
    """

    def __init__(self, modules: Mapping[str, Module] | Iterable | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every module.

        >>> heads = symgrad.nn.ModuleDict({"a": symgrad.nn.ReLU()})
        >>> heads.clear()
        >>> len(heads)
        0
        """
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove and return the module under ``key``.

        >>> symgrad.nn.ModuleDict({"a": symgrad.nn.ReLU()}).pop("a")
        ReLU()
        """
        module = self[key]
        del self[key]
        return module

    def keys(self) -> Iterable[str]:
        """The keys, in insertion order.

        >>> list(symgrad.nn.ModuleDict({"a": symgrad.nn.ReLU()}).keys())
        ['a']
        """
        return self._modules.keys()

    def items(self) -> Iterable[tuple[str, Module]]:
        """The (key, module) pairs.

        >>> list(symgrad.nn.ModuleDict({"a": symgrad.nn.ReLU()}).items())
        [('a', ReLU())]
        """
        return self._modules.items()

    def values(self) -> Iterable[Module]:
        """The modules.

        >>> list(symgrad.nn.ModuleDict({"a": symgrad.nn.ReLU()}).values())
        [ReLU()]
        """
        return self._modules.values()

    def update(self, modules: Mapping[str, Module] | Iterable) -> None:
        """Add the modules of a mapping or of an iterable of (key, module) pairs.

        >>> heads = symgrad.nn.ModuleDict()
        >>> heads.update([("a", symgrad.nn.ReLU())])
        >>> list(heads)
        ['a']
        """
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value "
                            "pairs, but got " + type(modules).__name__)
        pairs = modules.items() if isinstance(modules, Mapping) else modules
        for j, pair in enumerate(pairs):
            if not isinstance(pair, Mapping) and len(pair) != 2:
                raise ValueError(f"ModuleDict update sequence element #{j} has length "
                                 f"{len(pair)}; 2 is required")
            self[pair[0]] = pair[1]


def _tensor_line(key: Any, value: Any, dtype_name: Callable[[Tensor], str]) -> str:
    """One line of ParameterList's / ParameterDict's repr."""
    if isinstance(value, Tensor):
        size = "x".join(str(n) for n in value.shape)
        kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
        return f"  ({key}): {kind} containing: [{dtype_name(value)} of size {size}]"
    return f"  ({key}): Object of type: {type(value).__name__}"


class ParameterList(Module):
    """A list of parameters registered under ``'0'``, ``'1'`` ...; tensors put in it become
    Parameters.

    >>> params = symgrad.nn.ParameterList([symgrad.ones(2), symgrad.zeros(2, 3)])
    >>> params
    ParameterList(
        (0): Parameter containing: [symgrad.float32 of size 2]
        (1): Parameter containing: [symgrad.float32 of size 2x3]
    )
    >>> [name for name, _ in params.named_parameters()]
    ['0', '1']
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            out = type(self)()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, str(_index(idx, len(self))))

    def __setitem__(self, idx: int, param: Any) -> None:
        key = str(_index(idx, len(self)))
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, key, param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> ParameterList:
        return self.extend(parameters)

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value: Any) -> ParameterList:
        """Add ``value`` at the end (a tensor becomes a Parameter); returns self.

        >>> len(symgrad.nn.ParameterList().append(symgrad.ones(1)))
        1
        """
        index = len(self)
        self._size += 1
        self[index] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        """Append every value of ``values``; returns self.

        >>> len(symgrad.nn.ParameterList().extend([symgrad.ones(1), symgrad.ones(2)]))
        2
        """
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        """PyTorch's lines of the repr: one per entry, with its dtype and size.

        >>> symgrad.nn.ParameterList([symgrad.ones(2)]).extra_repr()
        '  (0): Parameter containing: [symgrad.float32 of size 2]'
        """
        return "\n".join(_tensor_line(k, p, lambda t: repr(t.dtype)) for k, p in enumerate(self))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters registered under their keys; tensors put in it become
    Parameters. A plain dict is inserted in sorted key order, as PyTorch does.

    >>> params = symgrad.nn.ParameterDict({"b": symgrad.ones(2), "a": symgrad.zeros(1)})
    >>> list(params)
    ['a', 'b']
    >>> params["b"].requires_grad
    True
    """

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a "
                            f"string (type is '{type(key).__name__}'). Open an issue on github "
                            "if you need non-string keys.")
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        """A new ParameterDict holding the same parameters.

        >>> d = symgrad.nn.ParameterDict({"w": symgrad.ones(1)})
        >>> d.copy()["w"] is d["w"]
        True
        """
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default: Any | None = None) -> Any:
        """``self[key]``, first set to ``default`` if absent.

        >>> symgrad.nn.ParameterDict().setdefault("w", symgrad.ones(1)).shape
        symgrad.Size([1])
        """
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        """Remove every entry.

        >>> d = symgrad.nn.ParameterDict({"w": symgrad.ones(1)}); d.clear(); len(d)
        0
        """
        for key in list(self._keys):
            del self[key]

    def pop(self, key: str) -> Any:
        """Remove ``key`` and return its parameter.

        >>> symgrad.nn.ParameterDict({"w": symgrad.ones(1)}).pop("w").shape
        symgrad.Size([1])
        """
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        """Remove and return the last inserted ``(key, parameter)``.

        >>> symgrad.nn.ParameterDict({"w": symgrad.ones(1)}).popitem()[0]
        'w'
        """
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def get(self, key: str, default: Any | None = None) -> Any:
        """``self[key]`` if present, else ``default``.

        >>> print(symgrad.nn.ParameterDict().get("w"))
        None
        """
        return self[key] if key in self else default

    def fromkeys(self, keys: Iterable[str], default: Any | None = None) -> ParameterDict:
        """A new ParameterDict with ``keys``, each set to ``default``.

        >>> list(symgrad.nn.ParameterDict().fromkeys(["a", "b"], symgrad.ones(1)))
        ['a', 'b']
        """
        return ParameterDict((k, default) for k in keys)

    def keys(self) -> Iterable[str]:
        """The keys, in insertion order.

        >>> list(symgrad.nn.ParameterDict({"w": symgrad.ones(1)}).keys())
        ['w']
        """
        return self._keys.keys()

    def items(self) -> Iterable[tuple[str, Any]]:
        """The ``(key, parameter)`` pairs.

        >>> [k for k, _ in symgrad.nn.ParameterDict({"w": symgrad.ones(1)}).items()]
        ['w']
        """
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterable[Any]:
        """The parameters.

        >>> [tuple(v.shape) for v in symgrad.nn.ParameterDict({"w": symgrad.ones(2)}).values()]
        [(2,)]
        """
        return (self[k] for k in self._keys)

    def update(self, parameters: Any) -> None:
        """Insert the pairs of a mapping (a plain dict in sorted key order, an OrderedDict or
        ParameterDict in its order) or of an iterable of pairs.

        >>> d = symgrad.nn.ParameterDict()
        >>> d.update([("b", symgrad.ones(1)), ("a", symgrad.ones(1))])
        >>> list(d)
        ['b', 'a']
        """
        if not isinstance(parameters, Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of "
                            "key/value pairs, but got " + type(parameters).__name__)
        if isinstance(parameters, OrderedDict | ParameterDict):
            for key, value in parameters.items():
                self[key] = value
        elif isinstance(parameters, Mapping):
            for key, value in sorted(parameters.items()):
                self[key] = value
        else:
            for j, pair in enumerate(parameters):
                if not isinstance(pair, Iterable):
                    raise TypeError(f"ParameterDict update sequence element #{j} should be "
                                    f"Iterable; is{type(pair).__name__}")
                if len(pair) != 2:
                    raise ValueError(f"ParameterDict update sequence element #{j} has length "
                                     f"{len(pair)}; 2 is required")
                self[pair[0]] = pair[1]

    def extra_repr(self) -> str:
        """PyTorch's lines of the repr: one per entry, with its type name and size.

        >>> symgrad.nn.ParameterDict({"w": symgrad.ones(2)}).extra_repr()
        '  (w): Parameter containing: [symgrad.FloatTensor of size 2]'
        """
        return "\n".join(_tensor_line(k, p, typename) for k, p in self.items())

    def __call__(self, input: Any) -> Any:  # noqa: A002
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other: ParameterDict) -> ParameterDict:
        copy = self.copy()
        copy.update(other)
        return copy

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        copy = other.copy()
        copy.update(self)
        return copy

    def __ior__(self, other: ParameterDict) -> ParameterDict:
        self.update(other)
        return self
