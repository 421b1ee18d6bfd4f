"""symgrad's pytest plugin (registered through the ``pytest11`` entry point): the fixture
``symgrad_gradients``, which is :func:`symgrad.testing.assert_gradients_correct`.

    def test_my_function(symgrad_gradients):
        x = symgrad.zeros(3, requires_grad=True)
        symgrad_gradients(MyFunction.apply, x)
"""

from __future__ import annotations

from collections.abc import Callable

import pytest


@pytest.fixture
def symgrad_gradients() -> Callable[..., None]:
    """:func:`symgrad.testing.assert_gradients_correct`, for a test that proves a function's
    gradients right."""
    from symgrad.testing import assert_gradients_correct

    return assert_gradients_correct
