"""``symgrad.nn.functional``'s activations, normalization, embedding, dropout and small
composites: values and gradients against values recorded from PyTorch 2.x, node names, the
running-statistics update of batch_norm, and PyTorch's errors. The VJPs of the registered ops
are checked against finite differences and sympy by the registry tests."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as t
import symgrad.nn.functional as F

X = [[1.0, 2, 4], [0, -1, 3], [2, 2, -3], [5, 0, 1]]
WEIGHTS = np.arange(12.0).reshape(4, 3)


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-5, atol=2e-5)


def test_batch_norm_training_values_gradients_and_running_stats():
    x = t.tensor(X, requires_grad=True)
    w = t.tensor([1.0, 0.5, 2], requires_grad=True)
    b = t.tensor([0.0, 1, -1], requires_grad=True)
    rm, rv = t.tensor([0.0, 1, 0]), t.tensor([1.0, 2, 1])
    y = F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.1)
    assert type(y.grad_fn).__name__ == "NativeBatchNormBackward0"
    (y * t.tensor(WEIGHTS, dtype=t.float32)).sum().backward()
    _close(y.detach().numpy(), [[-0.534522, 1.481124, 1.051509], [-1.069043, 0.326427, 0.305506],
                                [0.0, 1.481124, -4.170514], [1.603565, 0.711326, -1.186501]])
    _close(x.grad.numpy(), [[-1.603567, -1.411298, -1.751488], [0.801778, -1.026395, -0.097306],
                            [0.801783, 0.898096, -1.362264], [7e-06, 1.539597, 3.211058]])
    _close(w.grad.numpy(), [11.224956, -3.464092, -8.392537])
    _close(b.grad.numpy(), [18.0, 22.0, 26.0])
    _close(rm.numpy(), [0.2, 0.975, 0.125])  # unbiased variance in the running update
    _close(rv.numpy(), [1.366667, 2.025, 1.858333])


def test_batch_norm_eval_uses_running_stats():
    x = t.tensor(X, requires_grad=True)
    y = F.batch_norm(x, t.tensor([1.0, 0, 0]), t.tensor([4.0, 1, 0.25]), eps=0.0)
    _close(y.detach().numpy(), (np.array(X) - [1, 0, 0]) / np.sqrt([4.0, 1, 0.25]))
    y.sum().backward()
    _close(x.grad.numpy(), np.broadcast_to(1 / np.sqrt([4.0, 1, 0.25]), (4, 3)))


def test_layer_and_group_norm_recorded_from_pytorch():
    x = t.tensor(X, requires_grad=True)
    w, b = t.tensor([1.0, 0.5, 2]), t.tensor([0.0, 1, -1])
    y = F.layer_norm(x, (3,), w, b)
    assert type(y.grad_fn).__name__ == "NativeLayerNormBackward0"
    (y * t.tensor(WEIGHTS, dtype=t.float32)).sum().backward()
    _close(y.detach().numpy(), [[-1.069041, 0.86637, 1.672604], [-0.392232, 0.509711, 1.745621],
                                [0.707106, 1.353553, -3.828425], [1.388729, 0.53709, -1.925819]])
    _close(x.grad.numpy(), [[0.28634, -0.429528, 0.143187], [-0.362063, 0.271538, 0.090525],
                            [0.530327, -0.530333, 6e-06], [-0.892755, -3.571016, 4.463772]])
    x.grad = None
    y = F.group_norm(x.reshape(2, 2, 3), 1)
    assert type(y.grad_fn).__name__ == "NativeGroupNormBackward0"
    (y * t.tensor(WEIGHTS.reshape(2, 2, 3), dtype=t.float32)).sum().backward()
    _close(y.detach().numpy(), [[[-0.29277, 0.29277, 1.463848], [-0.878309, -1.463848, 0.878309]],
                                [[0.345857, 0.345857, -1.729285], [1.590942, -0.4842, -0.069171]]])
    _close(x.grad.numpy(), [[-1.488942, -0.853214, -0.167297], [0.217486, 0.752836, 1.539131],
                            [-1.022677, -0.607649, -0.281981], [0.276024, 0.601692, 1.034592]])


@pytest.mark.parametrize(("fn", "node", "values", "grads"), [
    (F.hardsigmoid, "HardsigmoidBackward0", [0.0, 0.333333, 0.5, 1.0, 1.0],
     [0.0, 0.166667, 0.166667, 0.0, 0.0]),
    (F.hardswish, "HardswishBackward0", [0.0, -0.333333, 0.0, 3.0, 4.0],
     [0.0, 0.166667, 0.5, 1.0, 1.0]),
    (F.selu, "EluBackward0", [-1.670569, -1.111331, 0.0, 3.152103, 4.202804],
     [0.087531, 0.646769, 1.758099, 1.050701, 1.050701]),
    (F.mish, "MishBackward0", [-0.145647, -0.303401, 0.0, 2.986535, 3.997413],
     [-0.093393, 0.059217, 0.6, 1.021107, 1.004433]),
    (F.logsigmoid, "LogSigmoidBackward0", [-3.048587, -1.313262, -0.693147, -0.048587, -0.01815],
     [0.952574, 0.731059, 0.5, 0.047426, 0.017986]),
])
def test_activations_at_and_around_their_kinks(fn, node, values, grads):
    z = t.tensor([-3.0, -1, 0, 3, 4], requires_grad=True)
    y = fn(z)
    assert type(y.grad_fn).__name__ == node
    y.sum().backward()
    _close(y.detach().numpy(), values)
    _close(z.grad.numpy(), grads)


def test_embedding_padding_idx_gets_no_gradient():
    w = t.tensor(np.arange(10.0).reshape(5, 2), requires_grad=True)
    y = F.embedding(t.tensor([[1, 0, 3], [3, 3, 2]]), w, padding_idx=-2)
    assert type(y.grad_fn).__name__ == "EmbeddingBackward0"
    assert y[1, 0].tolist() == [6.0, 7.0]
    y.sum().backward()
    assert w.grad.tolist() == [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]


def test_dropout_scales_kept_elements_and_is_identity_when_off():
    x = t.ones(2000, requires_grad=True)
    t.manual_seed(0)
    y = F.dropout(x, 0.25)
    assert type(y.grad_fn).__name__ == "MulBackward0"
    kept = y.detach().numpy() != 0
    assert 0.2 < 1 - kept.mean() < 0.3
    np.testing.assert_allclose(y.detach().numpy()[kept], 1 / 0.75, rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, 1 / 0.75, 0), rtol=1e-6)
    assert F.dropout(x, 0.5, training=False) is x and F.dropout(x, 0.0) is x
    channels = F.dropout2d(t.ones(2, 16, 3, 3), 0.5).numpy()
    assert (channels == channels[:, :, :1, :1]).all()  # whole channels


def test_composites():
    assert F.one_hot(t.tensor([0, 2])).tolist() == [[1, 0, 0], [0, 0, 1]]
    _close(F.normalize(t.tensor([[3.0, 4.0]])).numpy(), [[0.6, 0.8]])
    _close(F.cosine_similarity(t.tensor([[1.0, 0.0]]), t.tensor([[1.0, 1.0]])).numpy(),
           [0.7071068])
    _close(F.pairwise_distance(t.tensor([[3.0, 0.0]]), t.tensor([[0.0, 4.0]])).numpy(), [5.0])
    _close(F.softsign(t.tensor([-1.0, 3.0])).numpy(), [-0.5, 0.75])


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda x: F.batch_norm(x, None, None), RuntimeError,
     "running_mean must be defined in evaluation mode"),
    (lambda x: F.batch_norm(x, t.zeros(4), t.ones(3), training=True), RuntimeError,
     "running_mean should contain 3 elements not 4"),
    (lambda x: F.batch_norm(x, t.zeros(3), t.ones(3), training=True, momentum=None), TypeError,
     "batch_norm(): argument 'momentum' (position 7) must be float, not NoneType"),
    (lambda x: F.batch_norm(x[:1], None, None, training=True), ValueError,
     "Expected more than 1 value per channel when training, got input size"),
    (lambda x: F.layer_norm(x, (4,)), RuntimeError,
     "Given normalized_shape=[4], expected input with shape [*, 4], but got input of "
     "size[4, 3]"),
    (lambda x: F.group_norm(t.randn(2, 3, 4), 2), RuntimeError,
     "Expected number of channels in input to be divisible by num_groups, but got input of "
     "shape [2, 3, 4] and num_groups=2"),
    (lambda x: F.embedding(t.tensor([5]), x), IndexError, "index out of range in self"),
    (lambda x: F.embedding(t.tensor([1]), x, padding_idx=5), AssertionError,
     "Padding_idx must be within num_embeddings"),
    (lambda x: F.dropout(x, 1.5), ValueError,
     "dropout probability has to be between 0 and 1, but got 1.5"),
    (lambda x: F.one_hot(t.tensor([-1])), RuntimeError, "Class values must be non-negative."),
    (lambda x: F.one_hot(t.tensor([3]), 2), RuntimeError,
     "Class values must be smaller than num_classes."),
    (lambda x: F.hardsigmoid(t.tensor([1])), NotImplementedError,
     "\"hardsigmoid_cpu\" not implemented for 'Long'"),
])
def test_errors_are_pytorchs(call, error, message):
    x = t.tensor(X, requires_grad=True)
    with pytest.raises(error) as info:
        call(x)
    assert str(info.value).startswith(message)


def test_celu_refuses_alpha_zero_with_pytorchs_message():
    for call in (lambda: F.celu(t.ones(2), alpha=0.0), lambda: t.nn.CELU(0)(t.ones(2))):
        with pytest.raises(RuntimeError, match="^ZeroDivisionError: alpha cannot be 0 for CELU$"):
            call()


def test_glu_is_one_node_with_pytorchs_values_gradients_and_errors():
    """torch 2.13's GluBackward0: values and gradients below were read off it."""
    x = t.tensor([[-1.0, 0.25, 0.5, 2.0], [0.3, -0.2, 1.5, -0.5]], dtype=t.float64,
                 requires_grad=True)
    y = F.glu(x, 0)
    assert y.grad_fn.name() == "GluBackward0"
    y.backward(t.ones_like(y) * 2)
    np.testing.assert_allclose(y.detach().numpy(), [[-0.574442516811659, 0.11254150067188054,
                                                      0.4087872380968218, 0.7550813375962908]],
                               rtol=1e-14)
    np.testing.assert_allclose(x.grad.numpy(), [
        [1.148885033623318, 0.9003320053750443, 1.6351489523872873, 0.7550813375962908],
        [-0.4889166233814917, 0.12375828635592998, 0.14914645207033286, 0.940014848806378]],
        rtol=1e-14)
    for call, kind, message in [
            (lambda: F.glu(t.ones(3)), RuntimeError,
             "Halving dimension must be even, but dimension 0 is size 3"),
            (lambda: F.glu(t.ones(2, 4), 2), IndexError,
             "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
            (lambda: F.glu(t.tensor([1, 2])), NotImplementedError,
             "\"glu_cpu\" not implemented for 'Long'")]:
        with pytest.raises(kind) as caught:
            call()
        assert str(caught.value) == message
