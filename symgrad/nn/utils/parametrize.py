"""``symgrad.nn.utils.parametrize``: PyTorch's ``torch.nn.utils.parametrize``.

A parametrized tensor is computed from its original(s) by a chain of small modules every time
it is read: ``register_parametrization(lin, "weight", Sym())`` moves ``lin.weight`` to
``lin.parametrizations.weight.original`` and makes ``lin.weight`` a property that returns
``Sym()(original)``. The module's class becomes a subclass named ``Parametrized<Name>`` that
holds the property, so other instances of the class are untouched. Assigning to the property
runs the parametrizations' ``right_inverse`` (in reverse order) and writes the originals.
"""

from __future__ import annotations

import contextlib
import copy
import copyreg
from collections.abc import Iterator, Sequence
from typing import Any

from symgrad.autograd.grad_mode import no_grad
from symgrad.nn.modules.container import ModuleDict, ModuleList
from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.tensor import Tensor

__all__ = ["ParametrizationList", "cached", "is_parametrized", "register_parametrization",
           "remove_parametrizations", "transfer_parametrizations_and_params",
           "type_before_parametrizations"]

_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Within this context each parametrized tensor is computed once, at its first read, and
    the same tensor is returned by later reads (the cache is emptied when the outermost
    context exits).

    >>> from symgrad.nn.utils import parametrize
    >>> class Double(symgrad.nn.Module):
    ...     def forward(self, x):
    ...         return 2 * x
    >>> lin = parametrize.register_parametrization(symgrad.nn.Linear(2, 2), "weight", Double())
    >>> with parametrize.cached():
    ...     print(lin.weight is lin.weight)
    True
    >>> lin.weight is lin.weight
    False
    """
    global _cache_enabled, _cache
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, value: Tensor) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_data(dest: Tensor, src: Tensor) -> None:
    """PyTorch's ``dest.set_(src)`` as this package has it: ``dest`` (the same object, which
    optimizers may hold) takes ``src``'s values, shape and dtype."""
    dest.data = src.detach()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in the order they are applied, and the original
    tensor(s) they are applied to: ``original``, or ``original0``, ``original1`` ... when the
    first parametrization's ``right_inverse`` returns a sequence. Calling it computes the
    parametrized tensor. Made by :func:`register_parametrization` (the ``modules`` given here
    are the parametrizations, ``original`` the tensor they replace).

    >>> from symgrad.nn.utils import parametrize
    >>> class Double(symgrad.nn.Module):
    ...     def forward(self, x):
    ...         return 2 * x
    >>> lin = parametrize.register_parametrization(symgrad.nn.Linear(2, 2), "weight", Double())
    >>> lin.parametrizations.weight
    ParametrizationList(
      (0): Double()
    )
    >>> symgrad.equal(lin.parametrizations.weight(), 2 * lin.parametrizations.weight.original)
    True
    """

    original: Tensor
    unsafe: bool
    is_tensor: bool
    ntensors: int

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype
        with no_grad():
            new: Any = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    with contextlib.suppress(NotImplementedError):
                        new = module.right_inverse(new)
        if not isinstance(new, Tensor | Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        previous = None
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 f"the dtype.\noriginal.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            if new is not original:
                previous = original.detach().clone()
                with no_grad():
                    _set_data(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, tensor in enumerate(new):
                if not isinstance(tensor, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     f"tensors (list, tuple...). Got element {i} of the "
                                     f"sequence with type {type(tensor).__name__}.")
            for i, tensor in enumerate(new):
                if isinstance(original, Parameter):
                    tensor = Parameter(tensor, original.requires_grad)
                tensor.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", tensor)
        if self.unsafe:
            return
        try:
            self._check_result(shape, dtype)
        except BaseException:
            if previous is not None:  # the caller's tensor as it was: nothing half-applied
                _set_data(original, previous)
            raise

    def _check_result(self, shape: Any, dtype: Any) -> None:
        result = self()
        if not isinstance(result, Tensor):
            raise ValueError(f"A parametrization must return a tensor. Got "
                             f"{type(result).__name__}.")
        if result.dtype != dtype:
            raise ValueError("Registering a parametrization may not change the dtype of the "
                             "tensor, unless `unsafe` flag is enabled.\n"
                             f"unparametrized dtype: {dtype}\nparametrized dtype: {result.dtype}")
        if result.shape != shape:
            raise ValueError("Registering a parametrization may not change the shape of the "
                             "tensor, unless `unsafe` flag is enabled.\n"
                             f"unparametrized shape: {shape}\nparametrized shape: {result.shape}")

    def right_inverse(self, value: Tensor) -> None:
        """Write the original(s) so that the parametrized tensor becomes ``value``: each
        parametrization's ``right_inverse``, last first (what assigning
        ``module.<name> = value`` calls).

        >>> from symgrad.nn.utils import parametrize
        >>> class Double(symgrad.nn.Module):
        ...     def forward(self, x):
        ...         return 2 * x
        ...     def right_inverse(self, y):
        ...         return y / 2
        >>> lin = parametrize.register_parametrization(symgrad.nn.Linear(2, 2), "weight", Double())
        >>> lin.weight = symgrad.ones(2, 2)
        >>> lin.parametrizations.weight.original
        Parameter containing:
        tensor([[0.5000, 0.5000],
                [0.5000, 0.5000]], requires_grad=True)
        """
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _set_data(self.original, value)
                return
            if not isinstance(value, Sequence):
                raise ValueError("'right_inverse' must return a sequence of tensors. Got "
                                 f"{type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError("'right_inverse' must return a sequence of tensors of length "
                                 f"{self.ntensors}. Got a sequence of length {len(value)}.")
            originals = [getattr(self, f"original{i}") for i in range(self.ntensors)]
            for i, (tensor, original) in enumerate(zip(value, originals, strict=True)):
                if not isinstance(tensor, Tensor):
                    raise ValueError("'right_inverse' must return a sequence of tensors or "
                                     f"reference-type opaques. Got element {i} of type "
                                     f"{type(tensor).__name__}.")
                if original.dtype != tensor.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                     f"{tensor.dtype} while `original{i}` has dtype "
                                     f"{original.dtype}")
            for tensor, original in zip(value, originals, strict=True):
                _set_data(original, tensor)

    def forward(self) -> Tensor:
        """The parametrized tensor: the first parametrization applied to the original(s), each
        next one to the result.

        >>> from symgrad.nn.utils import parametrize
        >>> class Double(symgrad.nn.Module):
        ...     def forward(self, x):
        ...         return 2 * x
        >>> lin = parametrize.register_parametrization(symgrad.nn.Linear(2, 2), "weight", Double())
        >>> _ = parametrize.register_parametrization(lin, "weight", Double())
        >>> chain = lin.parametrizations.weight
        >>> symgrad.equal(chain.forward(), 4 * chain.original)
        True
        """
        first, *rest = list(self)
        if self.is_tensor:
            x = first(self.original)
        else:
            x = first(*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in rest:
            x = module(x)
        return x


def _deepcopy(self: Module, memo: dict) -> Module:
    """A parametrized module's ``copy.deepcopy`` (its pickling refuses): its ``__dict__`` and
    slots copied into a new instance of its class."""
    found = memo.get(id(self))
    if found is not None:
        return found
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):  # type: ignore[attr-defined]
        if hasattr(self, slot):
            setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
    return replica


def _refuse_pickling(self: Module) -> Any:
    raise RuntimeError("Serialization of parametrized modules is only supported through "
                       "state_dict(). See:\n"
                       "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                       "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-"
                       "training")


def _inject_new_class(module: Module) -> None:
    cls = module.__class__
    namespace: dict[str, Any] = {"__getstate__": _refuse_pickling}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module: Module, tensor_name: str) -> None:
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")
    key = (id(module), tensor_name)

    def get_parametrized(self: Module) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        tensor = _cache.get(key)
        if tensor is None:
            tensor = _cache[key] = parametrization()
        return tensor

    def set_original(self: Module, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def _check_added(module: Module, tensor_name: str, parametrization: Module) -> None:
    """PyTorch's checks of a parametrization added to an already parametrized tensor (made
    before anything is added)."""
    current = getattr(module, tensor_name)
    result = parametrization(current)
    if not isinstance(result, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(result).__name__}.")
    if result.dtype != current.dtype:
        raise ValueError("Registering a parametrization may not change the dtype of the tensor, "
                         "unless the `unsafe` flag is enabled.\n"
                         f"module.{tensor_name}.dtype: {current.dtype}\n"
                         f"parametrization(module.{tensor_name}).dtype: {result.dtype}")
    if result.shape != current.shape:
        raise ValueError("Registering a parametrization may not change the shape of the tensor, "
                         "unless the `unsafe` flag is enabled.\n"
                         f"module.{tensor_name}.shape: {current.shape}\n"
                         f"parametrization(module.{tensor_name}).shape: {result.shape}")
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        inverse = parametrization.right_inverse(result)
    except NotImplementedError:
        return
    if not isinstance(inverse, Tensor):
        raise ValueError("parametrization.right_inverse must return a tensor. Got: "
                         f"{type(inverse).__name__}")
    if inverse.dtype != current.dtype:
        raise ValueError("The tensor returned by parametrization.right_inverse must have the "
                         f"same dtype as module.{tensor_name}, unless the `unsafe` flag is "
                         f"enabled.\nmodule.{tensor_name}.dtype: {current.dtype}\n"
                         f"returned dtype: {inverse.dtype}")
    if inverse.shape != current.shape:
        raise ValueError("The tensor returned by parametrization.right_inverse must have the "
                         f"same shape as module.{tensor_name}, unless the `unsafe` flag is "
                         f"enabled.\nmodule.{tensor_name}.shape: {current.shape}\n"
                         f"returned shape: {inverse.shape}")


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Parametrize the parameter or buffer ``tensor_name`` of ``module``: from now on reading
    ``module.<tensor_name>`` returns ``parametrization(original)``, where the original is
    ``module.parametrizations.<tensor_name>.original`` (the same Parameter object, so an
    optimizer built before still trains it). If ``parametrization`` has ``right_inverse``, the
    original is set to ``right_inverse(current value)`` first, and assigning to
    ``module.<tensor_name>`` calls it; a ``right_inverse`` returning a sequence makes one
    original per element (``original0``, ``original1`` ...), which ``forward`` takes as
    arguments. Registering again on the same name appends to the chain. Unless ``unsafe``, the
    result must keep the tensor's shape and dtype. Returns ``module``.

    >>> from symgrad.nn.utils import parametrize
    >>> class Symmetric(symgrad.nn.Module):
    ...     def forward(self, x):
    ...         return x.triu() + x.triu(1).transpose(0, 1)
    >>> lin = parametrize.register_parametrization(symgrad.nn.Linear(3, 3), "weight",
    ...                                            Symmetric())
    >>> type(lin).__name__, symgrad.equal(lin.weight, lin.weight.T)
    ('ParametrizedLinear', True)
    >>> list(lin.state_dict())
    ['bias', 'parametrizations.weight.original']
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_added(module, tensor_name, parametrization)
        chain = module.parametrizations[tensor_name]
        chain.append(parametrization)
        chain.unsafe |= unsafe
        return module
    if tensor_name not in module._buffers and tensor_name not in module._parameters:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    original = getattr(module, tensor_name)
    chain = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        _inject_new_class(module)
        module.parametrizations = ModuleDict()
    _inject_property(module, tensor_name)
    module.parametrizations[tensor_name] = chain
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has a parametrization (on ``tensor_name``, if given).

    >>> from symgrad.nn.utils import parametrize
    >>> parametrize.is_parametrized(symgrad.nn.Linear(2, 2))
    False
    """
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str,
                            leave_parametrized: bool = True) -> Module:
    """Undo the parametrizations of ``tensor_name``: it becomes a plain parameter (or buffer)
    again, holding the current parametrized value (``leave_parametrized``, the default) or the
    original. The original Parameter object is kept when there is one original. When no
    parametrization is left the module gets its class back. Returns ``module``.

    >>> from symgrad.nn.utils import parametrize
    >>> class Double(symgrad.nn.Module):
    ...     def forward(self, x):
    ...         return 2 * x
    >>> lin = parametrize.register_parametrization(symgrad.nn.Linear(2, 2), "weight", Double())
    >>> before = lin.weight.detach().clone()
    >>> lin = parametrize.remove_parametrizations(lin, "weight")
    >>> type(lin).__name__, symgrad.equal(lin.weight, before)
    ('Linear', True)
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
                _set_data(original, value)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        value = getattr(module, tensor_name)
        original = (Parameter(value.detach(), value.requires_grad) if value.requires_grad
                    else value.detach())
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The class ``module`` had before it was parametrized (its class if it is not).

    >>> from symgrad.nn.utils import parametrize
    >>> class Double(symgrad.nn.Module):
    ...     def forward(self, x):
    ...         return 2 * x
    >>> lin = parametrize.register_parametrization(symgrad.nn.Linear(2, 2), "weight", Double())
    >>> parametrize.type_before_parametrizations(lin).__name__
    'Linear'
    """
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """Give ``to_module`` the parametrizations of ``from_module`` (all of them, or those of
    ``tensor_name``) and the same original tensors (shared, not copied). A name
    ``to_module`` lacks is created first from ``from_module``'s value. Returns ``to_module``.

    >>> from symgrad.nn.utils import parametrize
    >>> class Double(symgrad.nn.Module):
    ...     def forward(self, x):
    ...         return 2 * x
    >>> a = parametrize.register_parametrization(symgrad.nn.Linear(2, 2), "weight", Double())
    >>> b = parametrize.transfer_parametrizations_and_params(a, symgrad.nn.Linear(2, 2))
    >>> b.parametrizations.weight.original is a.parametrizations.weight.original
    True
    """
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = from_module.parametrizations[name]
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            i = 0
            while hasattr(source, f"original{i}"):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
                i += 1
    return to_module
