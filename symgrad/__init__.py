"""symgrad: PyTorch-style autograd on numpy whose recorded graphs lower to sympy.

Write ``import symgrad as t`` and use it as you would use PyTorch's autograd.
"""

from __future__ import annotations

import builtins
import gc
import math
import os
import warnings
from typing import TYPE_CHECKING, Any

# Loading the package makes thousands of objects (functions, code, ops) and frees almost none:
# the garbage collector's passes over them find nothing, and cost a tenth of the import.
_collecting = gc.isenabled()
gc.disable()
try:
    from symgrad import autograd, cuda, ops, symbolic, torch_api
    from symgrad.autograd.anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled
    from symgrad.autograd.grad_mode import (
        enable_grad,
        inference_mode,
        is_grad_enabled,
        is_inference_mode_enabled,
        no_grad,
        set_grad_enabled,
    )
    from symgrad.numeric.dtypes import bool_ as bool  # noqa: A001 - PyTorch's name
    from symgrad.numeric.dtypes import (
        dtype,
        finfo,
        float16,
        float32,
        float64,
        get_default_dtype,
        iinfo,
        int8,
        int16,
        int32,
        int64,
        promote_types,
        set_default_dtype,
        uint8,
    )
    from symgrad.tensor import Size, Tensor, device, layout, strided
finally:
    if _collecting:
        gc.enable()
# importing the submodule symgrad.tensor bound it here as ``tensor``: that name is the factory
# (``symgrad.tensor([1.0])``), from symgrad.creation on first use like the others in _LAZY below
del globals()["tensor"]

# numpy warns where PyTorch silently computes inf or nan (log(0), 0/0, exp overflow, 0 * inf in
# a backward rule); silence that in symgrad's own code only: the user's numpy calls still warn.
# Where the user's np.seterr or a warnings filter turns it into an exception, symgrad computes
# again under its own error state (symgrad.numeric.numpy_namespace.quietly), so no result depends on
# either; reductions call the ufuncs themselves, so that numpy's Python wrappers do not warn.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"symgrad\.")

float = float32  # noqa: A001 - PyTorch's alias
double = float64
long = int64
half = float16
int = int32  # noqa: A001 - PyTorch's alias
short = int16

__version__ = "0.1.0"

e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
def is_tensor(obj: Any) -> bool:
    """Whether ``obj`` is a symgrad Tensor.

    >>> symgrad.is_tensor(symgrad.ones(1)), symgrad.is_tensor([1.0])
    (True, False)
    """
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:  # noqa: A002 - PyTorch's name
    """The number of elements of ``input``.

    >>> symgrad.numel(symgrad.zeros(2, 3))
    6
    """
    return input.numel()


# The function spellings declared in ``symgrad.torch_api`` (``symgrad.exp``, ``symgrad.tan`` ...):
# every one is declared there once, none is listed here; each is exported when first used, its
# family module imported then (``symgrad.torch_api.lazy``; see __getattr__ below).
if TYPE_CHECKING:  # what __getattr__ below loads on first use, for type checkers
    from symgrad import (
        backends,
        distributions,
        func,
        linalg,
        nn,
        optim,
        random,
        special,
        testing,
        utils,
        viz,
    )
    from symgrad._functions import *  # noqa: F403
    from symgrad.creation import (
        Generator,
        arange,
        as_tensor,
        asarray,
        default_generator,
        empty,
        empty_like,
        empty_strided,
        eye,
        from_numpy,
        full,
        full_like,
        get_rng_state,
        initial_seed,
        linspace,
        manual_seed,
        multinomial,
        ones,
        ones_like,
        rand,
        rand_like,
        randint,
        randint_like,
        randn,
        randn_like,
        randperm,
        seed,
        set_rng_state,
        tensor,
        zeros,
        zeros_like,
    )
    from symgrad.creation import range_ as range  # noqa: A004
    from symgrad.func import vmap
    from symgrad.nn.toplevel import (
        batch_norm,
        bilinear,
        binary_cross_entropy_with_logits,
        constant_pad_nd,
        convolution,
        cosine_embedding_loss,
        ctc_loss,
        embedding,
        group_norm,
        hinge_embedding_loss,
        instance_norm,
        kl_div,
        layer_norm,
        margin_ranking_loss,
        max_pool1d_with_indices,
        poisson_nll_loss,
        triplet_margin_loss,
    )
    from symgrad.numeric.printing import set_printoptions
    from symgrad.runtime import (
        are_deterministic_algorithms_enabled,
        compile,
        get_default_device,
        get_deterministic_debug_mode,
        get_float32_matmul_precision,
        get_num_interop_threads,
        get_num_threads,
        is_deterministic_algorithms_warn_only_enabled,
        is_warn_always_enabled,
        set_default_device,
        set_default_tensor_type,
        set_deterministic_debug_mode,
        set_float32_matmul_precision,
        set_flush_denormal,
        set_num_interop_threads,
        set_num_threads,
        set_warn_always,
        typename,
        use_deterministic_algorithms,
    )
    from symgrad.serialization import load, save
    from symgrad.torch_api.sorting import return_types

# Loaded on first use (``symgrad.nn``, ``symgrad.save``), so that ``import symgrad`` costs little
# more than ``import numpy``: the name -> (module, attribute or None for the module itself).
_LAZY = {"linalg": ("symgrad.linalg", None), "nn": ("symgrad.nn", None),
         "optim": ("symgrad.optim", None), "testing": ("symgrad.testing", None),
         "utils": ("symgrad.utils", None), "random": ("symgrad.random", None),
         "backends": ("symgrad.backends", None), "special": ("symgrad.special", None),
         "distributions": ("symgrad.distributions", None), "func": ("symgrad.func", None),
         "viz": ("symgrad.viz", None), "load": ("symgrad.serialization", "load"),
         "save": ("symgrad.serialization", "save"),
         "return_types": ("symgrad.torch_api.sorting", "return_types"),  # (it adds sort ...)
         "set_printoptions": ("symgrad.numeric.printing", "set_printoptions"),
         **{name: ("symgrad.runtime", name) for name in (
             "are_deterministic_algorithms_enabled", "compile", "get_default_device",
             "get_deterministic_debug_mode", "get_float32_matmul_precision",
             "get_num_interop_threads", "get_num_threads",
             "is_deterministic_algorithms_warn_only_enabled", "is_warn_always_enabled",
             "set_default_device", "set_deterministic_debug_mode", "set_flush_denormal",
             "set_float32_matmul_precision", "set_num_interop_threads", "set_num_threads",
             "set_warn_always", "typename", "use_deterministic_algorithms")},
         **{name: ("symgrad.creation", name) for name in (
             "Generator", "arange", "as_tensor", "asarray", "default_generator", "empty",
             "empty_like", "empty_strided", "eye", "from_numpy", "full", "full_like",
             "get_rng_state", "initial_seed", "linspace", "manual_seed", "multinomial", "ones",
             "ones_like", "rand", "rand_like",
             "randint", "randint_like", "randn", "randn_like", "randperm", "seed",
             "set_rng_state", "tensor", "zeros", "zeros_like")},
         "range": ("symgrad.creation", "range_"), "vmap": ("symgrad.func", "vmap"),
         "set_default_tensor_type": ("symgrad.runtime", "set_default_tensor_type"),
         **{name: ("symgrad.nn.toplevel", name) for name in (  # (symgrad.nn.toplevel.NAMES)
             "batch_norm", "bilinear", "binary_cross_entropy_with_logits", "constant_pad_nd",
             "convolution", "cosine_embedding_loss", "ctc_loss", "embedding", "group_norm",
             "hinge_embedding_loss", "instance_norm", "kl_div", "layer_norm",
             "margin_ranking_loss", "max_pool1d_with_indices", "poisson_nll_loss",
             "triplet_margin_loss")}}

_clash = sorted(name for name in torch_api.lazy.FUNCTION_FAMILIES
                if name in globals() or name in _LAZY)
if _clash:
    raise ImportError(f"symgrad.torch_api redefines {_clash}")


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        value = torch_api.lazy.function(name)
        if value is None:
            raise AttributeError(f"module 'symgrad' has no attribute {name!r}")
    else:
        module = torch_api.load(target[0])
        value = module if target[1] is None else getattr(module, target[1])
    globals()[name] = value
    return value


# The public namespace is exactly __all__: the public subpackages, the names defined or
# re-exported above and every function spelling declared in symgrad.torch_api. Internal modules
# (creation, dispatch, numeric, ops, tensor, torch_api ...) stay importable by their full names.
_PUBLIC_MODULES = frozenset({"autograd", "backends", "cuda", "distributions", "func", "linalg",
                             "nn", "optim", "random", "special", "symbolic", "testing",
                             "utils", "viz"})
_NOT_PUBLIC = frozenset({"TYPE_CHECKING", "Any", "annotations", "builtins", "gc",
                         "math", "os"})
__all__ = sorted([
    *(name for name, value in globals().items()
      if not name.startswith("_") and name not in _NOT_PUBLIC
      and (not isinstance(value, type(ops)) or name in _PUBLIC_MODULES)),
    *_LAZY,
    *torch_api.lazy.FUNCTION_FAMILIES,
])


def __dir__() -> list[str]:
    return list(__all__)

