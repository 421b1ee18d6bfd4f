"""Containers: ``Sequential``, ``ModuleList`` and ``ModuleDict``."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from symgrad.nn.modules.module import Module, _addindent


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
