"""PyTorch's ``torch.<name>_`` functions for in-place methods that the family modules declare
as methods only (``torch.exp_(x)`` is ``x.exp_()``)."""

from __future__ import annotations

# the families that declare those methods (imported first, whatever the package's order)
from symgrad.torch_api import arithmetic, fused, integer, pointwise, views  # noqa: F401
from symgrad.torch_api.declaration import DECLARED_IN, FUNCTIONS, METHODS, function_spelling

# the in-place functions torch 2.13 has (dir(torch)) whose method symgrad declares
NAMES = ("abs_", "absolute_", "addmv_", "cos_", "exp_", "fill_", "gcd_", "i0_",
         "index_put_", "lcm_", "log_", "nan_to_num_", "neg_", "negative_", "reciprocal_",
         "sigmoid_", "sin_", "sqrt_", "square_", "tanh_", "xlogy_", "zero_")

for _name in NAMES:
    if _name not in FUNCTIONS:
        FUNCTIONS[_name] = function_spelling(METHODS[_name], _name, of_method=True)
        DECLARED_IN["function", _name] = __name__
