"""The symbolic interpretation: lowering recorded graphs to sympy (see DESIGN.md).

The lowering, the gradient cross-check and code generation land here; ``import symgrad`` never
imports this package, so sympy loads only when the symbolic side is used.
"""
