"""symgrad.testing: the assertion a researcher puts in their own suite, and its pytest fixture."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import symgrad as t
from symgrad.testing import GradientCheckError, assert_gradients_correct

pytest_plugins = ["pytester"]


class Cube(t.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x**2


class CubeWrongAtElement0(t.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        grad = g * 3 * x**2
        grad[0] = grad[0] * 1.001  # off by 0.1% on one element only
        return grad


class CubeFarOffAtElement0(CubeWrongAtElement0):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        grad = g * 3 * x**2
        grad[0] = grad[0] * 1.1  # 10% off: beyond gradcheck's default rtol of 1e-3
        return grad


class CubeIgnoresIncomingGradient(t.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x**2  # right only when the incoming gradient is all ones


class Bilinear(t.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g @ b.T, a.T @ g


def test_a_right_function_passes():
    assert_gradients_correct(Cube.apply, t.zeros(4, requires_grad=True))


def test_several_inputs_and_a_matrix_output_pass():
    a = t.zeros(2, 3, requires_grad=True)
    b = t.zeros(3, 2, requires_grad=True)
    assert_gradients_correct(Bilinear.apply, (a, b), points=2)


def test_a_rule_wrong_on_one_element_is_named():
    with pytest.raises(GradientCheckError) as caught:
        assert_gradients_correct(CubeWrongAtElement0.apply, t.zeros(3, requires_grad=True))
    message = str(caught.value)
    assert "CubeWrongAtElement0.apply" in message
    assert "first node whose VJP disagrees with sympy: CubeWrongAtElement0Backward" in message
    assert "test_testing_helper.py" in message  # the line that created the node
    assert isinstance(caught.value, AssertionError)


def test_a_rule_right_only_for_a_gradient_of_ones_is_caught():
    # the output is summed nowhere: the check seeds a random vector gradient=
    with pytest.raises(GradientCheckError, match="CubeIgnoresIncomingGradientBackward"):
        assert_gradients_correct(CubeIgnoresIncomingGradient.apply,
                                 t.zeros(3, requires_grad=True))


def test_finite_differences_catch_what_the_symbolic_check_is_told_to_skip(monkeypatch):
    import symgrad.symbolic
    from symgrad.symbolic import CheckReport

    # a symbolic check that sees nothing wrong: gradcheck must still fail the wrong rule
    monkeypatch.setattr(symgrad.symbolic, "check",
                        lambda *args, **kwargs: CheckReport([], [], 0.0, 0.0))
    with pytest.raises(GradientCheckError, match="finite differences disagree"):
        assert_gradients_correct(CubeFarOffAtElement0.apply, t.ones(3, requires_grad=True),
                                 points=1)


def test_kinks_are_avoided_by_drawing_another_point():
    # the given point sits on abs's and relu's kinks; the helper draws elsewhere and passes
    assert_gradients_correct(lambda x: x.abs() * 2 + x.relu(), t.zeros(3, requires_grad=True))


def test_no_differentiable_point_is_a_clear_failure():
    with pytest.raises(GradientCheckError, match="no differentiable point found"):
        assert_gradients_correct(lambda x: x.abs(), t.zeros(2, requires_grad=True),
                                 low=0.0, high=0.0)


def test_non_differentiated_arguments_are_passed_unchanged():
    def scaled(x, k):
        assert k == 3
        return Cube.apply(x) * k

    assert_gradients_correct(scaled, (t.zeros(2, requires_grad=True), 3), points=1)


def test_argument_names_come_from_the_function():
    def f(weights):
        return CubeWrongAtElement0.apply(weights)

    with pytest.raises(GradientCheckError, match=r"gradient of weights at index \(0,\)"):
        assert_gradients_correct(f, t.zeros(2, requires_grad=True))


def test_bad_calls_raise_value_errors():
    with pytest.raises(ValueError, match="no input requires grad"):
        assert_gradients_correct(Cube.apply, t.zeros(2))
    with pytest.raises(ValueError, match="points must be at least 1"):
        assert_gradients_correct(Cube.apply, t.zeros(2, requires_grad=True), points=0)
    with pytest.raises(ValueError, match="must return a tensor that requires grad"):
        assert_gradients_correct(lambda x: x.detach(), t.zeros(2, requires_grad=True))


def test_the_pytest_plugin_is_declared_as_an_entry_point():
    pyproject = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    module = pyproject["project"]["entry-points"]["pytest11"]["symgrad"]
    assert module == "symgrad.testing.pytest_plugin"


def test_the_fixture_in_a_users_test_suite(pytester):
    pytester.makepyfile(
        """
        import symgrad as t

        class Square(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * x  # wrong: 2 * g * x

        def test_square(symgrad_gradients):
            symgrad_gradients(Square.apply, t.zeros(2, requires_grad=True))
        """
    )
    # the plugin as the entry point installs it (whether or not this environment's install
    # already registered the entry point)
    result = pytester.runpytest("-p", "no:symgrad", "-p", "symgrad.testing.pytest_plugin")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*GradientCheckError: gradient of Square.apply is wrong*",
                                 "*first node whose VJP disagrees with sympy: SquareBackward*"])
