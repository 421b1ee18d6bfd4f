"""The numeric interpretation: the numpy array namespace, dtype rules and printing.

Nothing here imports sympy.
"""
