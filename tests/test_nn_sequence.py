"""The sequence layers (issue 14): RNN / LSTM / GRU and their cells, ``nn.utils.rnn``,
multi-head attention and the transformer, CTC loss.

Values: ``tests/data/sequence_reference.npz`` holds, per case of ``tools/sequence_reference.py``,
the inputs and weights (a fixed numpy seed), and torch 2.13's outputs and gradients in float64;
the same case runs here on symgrad (no torch). Errors, reprs and names were confirmed with torch
2.13 and are written out below.
"""

from __future__ import annotations

import pathlib
import sys
import warnings

import numpy as np
import pytest

import symgrad
from symgrad import nn
from symgrad.nn.utils.rnn import (
    PackedSequence,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import sequence_reference as reference  # noqa: E402

ARRAYS = dict(np.load(ROOT / "tests" / "data" / "sequence_reference.npz"))


@pytest.mark.parametrize("name", sorted(reference.CASES))
def test_outputs_and_gradients_match_torch(name: str) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "enable_nested_tensor is True")  # checked below
        got = reference.run(symgrad, name, ARRAYS)
    expected = {key.split(".expected.")[1]: value for key, value in ARRAYS.items()
                if key.startswith(f"{name}.expected.")}
    assert set(got) == set(expected)
    for key, value in expected.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-6, atol=1e-9, err_msg=key)


# ---- recurrent layers: construction ----------------------------------------------------------


def test_parameter_names_order_and_shapes_as_pytorch() -> None:
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2, bias=False)
    shapes = [(n, tuple(p.shape)) for n, p in lstm.named_parameters()]
    assert shapes == [
        ("weight_ih_l0", (16, 3)), ("weight_hh_l0", (16, 2)), ("weight_hr_l0", (2, 4)),
        ("weight_ih_l0_reverse", (16, 3)), ("weight_hh_l0_reverse", (16, 2)),
        ("weight_hr_l0_reverse", (2, 4)),
        ("weight_ih_l1", (16, 4)), ("weight_hh_l1", (16, 2)), ("weight_hr_l1", (2, 4)),
        ("weight_ih_l1_reverse", (16, 4)), ("weight_hh_l1_reverse", (16, 2)),
        ("weight_hr_l1_reverse", (2, 4))]
    gru = nn.GRU(2, 5)
    assert [n for n, _ in gru.named_parameters()] == [
        "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]
    assert tuple(gru.weight_ih_l0.shape) == (15, 2)
    assert [[tuple(w.shape) for w in ws] for ws in gru.all_weights] == [
        [(15, 2), (15, 5), (15,), (15,)]]
    assert gru.all_weights[0][0] is gru.weight_ih_l0
    assert [n for n, _ in nn.LSTMCell(2, 3, bias=False).named_parameters()] == [
        "weight_ih", "weight_hh"]
    assert nn.LSTMCell(2, 3).bias_ih.shape == (12,)


def test_batch_first_output_nodes_as_pytorch() -> None:
    """torch 2.13 transposes an RNN's and a GRU's batch-first output in place
    (TransposeBackward1); its float32 LSTM, out of place (TransposeBackward0)."""
    names = [layer(symgrad.ones(2, 5, 3))[0].grad_fn.name() for layer in (
        nn.RNN(3, 4, batch_first=True), nn.GRU(3, 4, batch_first=True),
        nn.LSTM(3, 4, batch_first=True))]
    assert names == ["TransposeBackward1", "TransposeBackward1", "TransposeBackward0"]


def test_default_init_is_uniform_in_one_over_sqrt_hidden() -> None:
    symgrad.manual_seed(0)
    rnn = nn.LSTM(8, 16, num_layers=2)
    values = np.concatenate([p.detach().numpy().ravel() for p in rnn.parameters()])
    assert np.abs(values).max() <= 0.25
    assert np.abs(values).max() > 0.24  # spread over the whole interval
    assert abs(values.mean()) < 0.01 and abs(values.std() - 0.25 / np.sqrt(3)) < 0.01
    cell = nn.GRUCell(3, 100)
    assert np.abs(cell.weight_hh.detach().numpy()).max() <= 0.1


def test_reprs_as_pytorch() -> None:
    assert repr(nn.RNN(3, 4, nonlinearity="relu")) == "RNN(3, 4)"
    assert repr(nn.LSTM(3, 4, 2, proj_size=2, bidirectional=True, dropout=0.5,
                        batch_first=True)) == (
        "LSTM(3, 4, proj_size=2, num_layers=2, batch_first=True, dropout=0.5, "
        "bidirectional=True)")
    assert repr(nn.GRU(3, 4, bias=False)) == "GRU(3, 4, bias=False)"
    assert repr(nn.RNNCell(3, 4, nonlinearity="relu")) == "RNNCell(3, 4, nonlinearity=relu)"
    assert repr(nn.LSTMCell(3, 4, bias=False)) == "LSTMCell(3, 4, bias=False)"
    assert repr(nn.GRUCell(3, 4)) == "GRUCell(3, 4)"


@pytest.mark.parametrize(("make", "error", "message"), [
    (lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), ValueError,
     "Unknown nonlinearity 'sigmoid'. Select from 'tanh' or 'relu'."),
    (lambda: nn.GRU(3, 4, proj_size=2), ValueError,
     "proj_size argument is only supported for LSTM, not RNN or GRU"),
    (lambda: nn.LSTM(3, 4, proj_size=4), ValueError, "proj_size has to be smaller than"),
    (lambda: nn.LSTM(3, 4, proj_size=-1), ValueError, "proj_size should be a positive"),
    (lambda: nn.LSTM(3, 0), ValueError, "hidden_size must be greater than zero"),
    (lambda: nn.LSTM(0, 3), ValueError, "input_size must be greater than zero"),
    (lambda: nn.LSTM(3, 4, num_layers=0), ValueError, "num_layers must be greater than zero"),
    (lambda: nn.LSTM(3, 4, dropout=1.5), ValueError, "dropout should be a number in range"),
    (lambda: nn.LSTM(3, 4, bias=1), TypeError, "bias should be of type bool, got: int"),
    (lambda: nn.LSTM(3.0, 4), TypeError, "input_size should be of type int, got: float"),
])
def test_constructor_errors_as_pytorch(make, error, message) -> None:
    with pytest.raises(error, match="^" + message.replace("(", r"\(").replace(".", r"\.")):
        make()


def test_dropout_on_one_layer_warns_as_pytorch() -> None:
    with pytest.warns(UserWarning, match="dropout option adds dropout after all but last "
                                         "recurrent layer"):
        nn.GRU(2, 3, dropout=0.2)


# ---- recurrent layers: forward --------------------------------------------------------------


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: nn.RNN(3, 5)(symgrad.zeros(2, 3, 4)), RuntimeError,
     "input.size(-1) must be equal to input_size. Expected 3, got 4"),
    (lambda: nn.RNN(3, 5)(symgrad.zeros(2, 2, 3), symgrad.zeros(1, 3, 5)), RuntimeError,
     "Expected hidden size (1, 2, 5), got [1, 3, 5]"),
    (lambda: nn.LSTM(3, 5)(symgrad.zeros(2, 2, 3), (symgrad.zeros(1, 3, 5),
                                                   symgrad.zeros(1, 2, 5))), RuntimeError,
     "Expected hidden[0] size (1, 2, 5), got [1, 3, 5]"),
    (lambda: nn.LSTM(3, 5)(symgrad.zeros(2, 2, 3), (symgrad.zeros(1, 2, 5),
                                                   symgrad.zeros(1, 2, 4))), RuntimeError,
     "Expected hidden[1] size (1, 2, 5), got [1, 2, 4]"),
    (lambda: nn.LSTM(3, 5)(symgrad.zeros(2, 2, 3), (symgrad.zeros(2, 5),
                                                   symgrad.zeros(2, 5))), RuntimeError,
     "For batched 3-D input, hx and cx should also be 3-D but got (2-D, 2-D) tensors"),
    (lambda: nn.GRU(3, 5)(symgrad.zeros(2, 3), symgrad.zeros(1, 1, 5)), RuntimeError,
     "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"),
    (lambda: nn.RNN(3, 5)(symgrad.zeros(1, 2, 2, 3)), ValueError,
     "RNN: Expected input to be 2D or 3D, got 4D tensor instead"),
    (lambda: nn.LSTM(3, 5)(symgrad.zeros(3)), ValueError,
     "LSTM: Expected input to be 2D or 3D, got 1D instead"),
    (lambda: nn.RNN(3, 5)(symgrad.zeros(2, 2, 3, dtype=symgrad.float64)), ValueError,
     "RNN input dtype (symgrad.float64) does not match weight dtype (symgrad.float32)"),
    (lambda: nn.LSTMCell(3, 5)(symgrad.zeros(2, 4)), RuntimeError,
     "input has inconsistent input_size: got 4 expected 3"),
    (lambda: nn.LSTMCell(3, 5)(symgrad.zeros(2, 3), (symgrad.zeros(3, 5),
                                                    symgrad.zeros(3, 5))), RuntimeError,
     "Input batch size 2 doesn't match hidden0 batch size 3"),
    (lambda: nn.GRUCell(3, 5)(symgrad.zeros(2, 3), symgrad.zeros(2, 4)), RuntimeError,
     "hidden0 has inconsistent hidden_size: got 4, expected 5"),
    (lambda: nn.RNNCell(3, 5)(symgrad.zeros(1, 2, 3)), ValueError,
     "RNNCell: Expected input to be 1D or 2D, got 3D instead"),
])
def test_forward_errors_as_pytorch(call, error, message) -> None:
    with pytest.raises(error) as info:
        call()
    assert str(info.value).startswith(message)


def test_hidden_state_continues_a_sequence() -> None:
    """Running a sequence in two halves, the second starting from the first's (h, c), gives
    the whole run's output: the state carries everything."""
    symgrad.manual_seed(1)
    lstm = nn.LSTM(2, 3, num_layers=2).double()
    x = symgrad.randn(6, 1, 2, dtype=symgrad.float64)
    whole, (h, c) = lstm(x)
    first, state = lstm(x[:3])
    second, (h2, c2) = lstm(x[3:], state)
    np.testing.assert_allclose(symgrad.cat([first, second]).detach().numpy(),
                               whole.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(h2.detach().numpy(), h.detach().numpy(), rtol=1e-12)


def test_lstm_step_against_finite_differences_and_sympy() -> None:
    symgrad.manual_seed(2)
    cell = nn.LSTMCell(2, 2).double()
    x = symgrad.randn(1, 2, dtype=symgrad.float64, requires_grad=True)
    h = symgrad.randn(1, 2, dtype=symgrad.float64, requires_grad=True)
    c = symgrad.randn(1, 2, dtype=symgrad.float64, requires_grad=True)
    assert symgrad.autograd.gradcheck(lambda *a: cell(a[0], (a[1], a[2])), (x, h, c))
    h2, c2 = cell(x, (h, c))
    report = symgrad.symbolic.check((h2 * h2).sum() + (c2 * c2).sum())
    assert str(report).startswith("gradient check passed")
    assert len(report.inputs) == 7  # x, h, c and the cell's four parameters


def test_gru_gradcheck_through_time() -> None:
    symgrad.manual_seed(3)
    gru = nn.GRU(2, 2, bidirectional=True).double()
    x = symgrad.randn(3, 1, 2, dtype=symgrad.float64, requires_grad=True)
    assert symgrad.autograd.gradcheck(lambda x: gru(x)[0], (x,))


def test_dropout_between_layers_only_in_training() -> None:
    symgrad.manual_seed(4)
    rnn = nn.RNN(2, 50, num_layers=2, dropout=0.5)
    x = symgrad.randn(3, 1, 2)
    rnn.eval()
    a, b = rnn(x)[0], rnn(x)[0]
    assert bool((a == b).all())
    rnn.train()
    assert not bool((rnn(x)[0] == a).all())


def test_float32_and_double_conversion() -> None:
    lstm = nn.LSTM(2, 3)
    out, (h, c) = lstm(symgrad.zeros(4, 2))
    assert out.dtype == symgrad.float32 and h.shape == (1, 3)
    lstm.double()
    assert lstm(symgrad.zeros(4, 2, dtype=symgrad.float64))[0].dtype == symgrad.float64
    assert lstm.all_weights[0][0].dtype == symgrad.float64
    assert lstm.flatten_parameters() is None


# ---- nn.utils.rnn ----------------------------------------------------------------------------


def test_pad_sequence_values_sides_and_gradient() -> None:
    a = symgrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    b = symgrad.tensor([[7.0, 8.0]])
    right = pad_sequence([a, b], padding_value=-1)
    assert right.shape == (3, 2, 2)
    assert right[:, 1].tolist() == [[7.0, 8.0], [-1.0, -1.0], [-1.0, -1.0]]
    left = pad_sequence([a, b], batch_first=True, padding_side="left")
    assert left[1].tolist() == [[0.0, 0.0], [0.0, 0.0], [7.0, 8.0]]
    (left * symgrad.arange(12.0).reshape(2, 3, 2)).sum().backward()
    assert a.grad.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    with pytest.raises(RuntimeError, match="^Expected padding_side to be one of left or right, "
                                           "but got x.$"):
        pad_sequence([a], padding_side="x")
    with pytest.raises(RuntimeError, match="^received an empty list of sequences$"):
        pad_sequence([])
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(2\) must match the size "
                                           r"of tensor b \(3\) at non-singleton dimension 1"):
        pad_sequence([a, symgrad.ones(2, 3)])


def test_pack_and_pad_round_trip() -> None:
    x = symgrad.arange(6.0).reshape(3, 2, 1)
    packed = pack_padded_sequence(x, [2, 3], enforce_sorted=False)
    assert isinstance(packed, PackedSequence)
    assert packed.data.flatten().tolist() == [1.0, 0.0, 3.0, 2.0, 5.0]
    assert packed.batch_sizes.tolist() == [2, 2, 1]
    assert packed.sorted_indices.tolist() == [1, 0]
    assert packed.unsorted_indices.tolist() == [1, 0]
    padded, lengths = pad_packed_sequence(packed, total_length=4)
    assert lengths.tolist() == [2, 3]
    assert padded[:, :, 0].tolist() == [[0.0, 1.0], [2.0, 3.0], [0.0, 5.0], [0.0, 0.0]]
    sequences = unpack_sequence(pack_sequence([symgrad.ones(1), symgrad.ones(3)],
                                              enforce_sorted=False))
    assert [s.shape[0] for s in sequences] == [1, 3]
    assert [s.shape[0] for s in unpad_sequence(padded, lengths)] == [2, 3]
    with pytest.raises(RuntimeError, match="^`lengths` array must be sorted in decreasing"):
        pack_padded_sequence(x, [2, 3])
    with pytest.raises(RuntimeError, match="^Length of all samples has to be greater than 0"):
        pack_padded_sequence(x, [2, 0])
    with pytest.raises(ValueError, match="^Expected total_length to be at least the length of "
                                         "the longest sequence in input"):
        pad_packed_sequence(packed, total_length=2)


def test_packed_lstm_equals_running_each_sequence_alone() -> None:
    symgrad.manual_seed(5)
    lstm = nn.LSTM(2, 3, bidirectional=True).double()
    seqs = [symgrad.randn(n, 2, dtype=symgrad.float64) for n in (2, 4, 3)]
    out, (h, c) = lstm(pack_sequence(seqs, enforce_sorted=False))
    padded, lengths = pad_packed_sequence(out, batch_first=True)
    for b, s in enumerate(seqs):
        alone, (h1, _) = lstm(s)
        np.testing.assert_allclose(padded[b, :s.shape[0]].detach().numpy(),
                                   alone.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(h[:, b].detach().numpy(), h1.detach().numpy(), rtol=1e-12)
        assert not bool(padded[b, s.shape[0]:].any())


def test_rnn_modules_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.GRU(2, 3, num_layers=2, dropout=0.1)(symgrad.zeros(2, 1, 2))


# ---- attention and the transformer -----------------------------------------------------------


def test_attention_parameters_names_and_init_as_pytorch() -> None:
    mha = nn.MultiheadAttention(4, 2, kdim=3, vdim=5, add_bias_kv=True, bias=False)
    assert [(n, tuple(p.shape)) for n, p in mha.named_parameters()] == [
        ("q_proj_weight", (4, 4)), ("k_proj_weight", (4, 3)), ("v_proj_weight", (4, 5)),
        ("bias_k", (1, 1, 4)), ("bias_v", (1, 1, 4)), ("out_proj.weight", (4, 4))]
    assert mha.in_proj_weight is None and mha.in_proj_bias is None
    mha = nn.MultiheadAttention(8, 2)
    assert not bool(mha.in_proj_bias.any()) and not bool(mha.out_proj.bias.any())
    bound = np.sqrt(6 / (8 + 24))  # xavier_uniform_ on (24, 8)
    weights = mha.in_proj_weight.detach().numpy()
    assert np.abs(weights).max() <= bound and np.abs(weights).max() > 0.9 * bound
    assert repr(mha) == ("MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear("
                         "in_features=8, out_features=8, bias=True)\n)")


def test_encoder_layer_repr_as_pytorch() -> None:
    assert repr(nn.TransformerEncoderLayer(4, 2, 8)) == """TransformerEncoderLayer(
  (self_attn): MultiheadAttention(
    (out_proj): NonDynamicallyQuantizableLinear(in_features=4, out_features=4, bias=True)
  )
  (linear1): Linear(in_features=4, out_features=8, bias=True)
  (dropout): Dropout(p=0.1, inplace=False)
  (linear2): Linear(in_features=8, out_features=4, bias=True)
  (norm1): LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)
  (norm2): LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)
  (dropout1): Dropout(p=0.1, inplace=False)
  (dropout2): Dropout(p=0.1, inplace=False)
)"""


_X = symgrad.zeros(3, 2, 4)


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: nn.MultiheadAttention(4, 3), AssertionError,
     "embed_dim must be divisible by num_heads"),
    (lambda: nn.MultiheadAttention(0, 3), ValueError,
     "embed_dim and num_heads must be greater than 0, got embed_dim=0 and num_heads=3 instead"),
    (lambda: nn.MultiheadAttention(4, 2)(_X, _X, _X, attn_mask=symgrad.zeros(3, 4)),
     RuntimeError, "The shape of the 2D attn_mask is symgrad.Size([3, 4]), but should be "
                   "(3, 3)."),
    (lambda: nn.MultiheadAttention(4, 2)(
        _X, _X, _X, key_padding_mask=symgrad.zeros(2, 4, dtype=symgrad.bool)),
     AssertionError, "Expected key_padded_mask.shape[1] to be 3, but got 4"),
    (lambda: nn.MultiheadAttention(4, 2)(_X, _X, _X, is_causal=True), RuntimeError,
     "Need attn_mask if specifying the is_causal hint."),
    (lambda: nn.MultiheadAttention(4, 2)(_X, _X, symgrad.zeros(3, 4)), AssertionError,
     "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found 3-D and 2-D "
     "tensors respectively"),
    (lambda: nn.MultiheadAttention(4, 2)(*[symgrad.zeros(3, 2, 5)] * 3), AssertionError,
     "was expecting embedding dimension of 4, but got 5"),
    (lambda: nn.MultiheadAttention(4, 2)(
        _X, _X, _X, attn_mask=symgrad.zeros(3, 3, dtype=symgrad.int64)), AssertionError,
     "only bool and floating types of attn_mask are supported"),
    (lambda: nn.TransformerEncoderLayer(4, 2, activation="tanh"), RuntimeError,
     "activation should be relu/gelu, not tanh"),
    (lambda: nn.Transformer(4, 2, 1, 1, 8)(_X, symgrad.zeros(3, 2, 5)), RuntimeError,
     "the feature number of src and tgt must be equal to d_model"),
])
def test_attention_errors_as_pytorch(call, error, message) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # enable_nested_tensor's note
        with pytest.raises(error) as info:
            call()
    assert str(info.value).startswith(message)


def test_square_subsequent_mask_and_causal_detection() -> None:
    from symgrad.nn.modules.transformer import _detect_is_causal_mask

    mask = nn.Transformer.generate_square_subsequent_mask(3)
    assert mask.tolist() == [[0.0, -np.inf, -np.inf], [0.0, 0.0, -np.inf], [0.0, 0.0, 0.0]]
    assert _detect_is_causal_mask(mask) is True
    assert _detect_is_causal_mask(mask.flip(0)) is False
    assert _detect_is_causal_mask(None, True) is True


def test_encoder_warns_about_nested_tensors_as_pytorch() -> None:
    layer = nn.TransformerEncoderLayer(4, 2, 8)
    with pytest.warns(UserWarning, match=r"^enable_nested_tensor is True, but "
                                         r"self.use_nested_tensor is False because "
                                         r"encoder_layer.self_attn.batch_first was not True"):
        nn.TransformerEncoder(layer, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 8, batch_first=True), 2)
    assert encoder.layers[0] is not encoder.layers[1]  # copies
    assert encoder.layers[0].linear1.weight is not encoder.layers[1].linear1.weight


def test_attention_masks_what_pytorch_masks() -> None:
    """A key masked by key_padding_mask gets weight 0 and changing it changes nothing."""
    symgrad.manual_seed(6)
    mha = nn.MultiheadAttention(4, 2, batch_first=True).double()
    q = symgrad.randn(1, 3, 4, dtype=symgrad.float64)
    kv = symgrad.randn(1, 4, 4, dtype=symgrad.float64)
    pad = symgrad.tensor([[False, False, False, True]])
    out, w = mha(q, kv, kv, key_padding_mask=pad)
    assert w.shape == (1, 3, 4) and not bool(w[..., 3].any())
    np.testing.assert_allclose(w.sum(-1).detach().numpy(), 1.0)
    kv2 = kv.clone()
    kv2[0, 3] = 100.0
    out2, _ = mha(q, kv2, kv2, key_padding_mask=pad)
    np.testing.assert_allclose(out2.detach().numpy(), out.detach().numpy(), rtol=1e-12)
    heads = mha(q, kv, kv, average_attn_weights=False)[1]
    assert heads.shape == (1, 2, 3, 4)


def test_attention_gradcheck_and_symbolic() -> None:
    symgrad.manual_seed(7)
    mha = nn.MultiheadAttention(2, 1).double()
    x = symgrad.randn(2, 1, 2, dtype=symgrad.float64, requires_grad=True)
    assert symgrad.autograd.gradcheck(lambda x: mha(x, x, x)[0], (x,))
    out, _ = mha(x, x, x, need_weights=False)
    report = symgrad.symbolic.check((out * out).sum(), inputs=[x])
    assert str(report).startswith("gradient check passed")


# ---- CTC loss --------------------------------------------------------------------------------

F = nn.functional


def _log_probs(*shape: int, seed: int = 8) -> symgrad.Tensor:
    symgrad.manual_seed(seed)
    return symgrad.randn(*shape, dtype=symgrad.float64).log_softmax(-1).detach() \
        .requires_grad_()


def test_ctc_graph_as_pytorch_records_it() -> None:
    lp = _log_probs(5, 2, 4)
    targets, il, tl = symgrad.tensor([[1, 2], [3, 3]]), symgrad.tensor([5, 4]), [2, 2]
    mean = F.ctc_loss(lp, targets, il, tl)
    assert type(mean.grad_fn).__name__ == "MeanBackward0"
    assert type(mean.grad_fn.next_functions[0][0]).__name__ == "DivBackward0"
    assert type(F.ctc_loss(lp, targets, il, tl, reduction="none").grad_fn).__name__ == \
        "CtcLossBackward0"
    assert type(F.ctc_loss(lp, targets, il, tl, reduction="none",
                           zero_infinity=True).grad_fn).__name__ == "WhereBackward0"
    assert type(F.ctc_loss(lp[:, 0], targets[0], 5, 2, reduction="none").grad_fn).__name__ \
        == "SqueezeBackward1"


def test_ctc_impossible_alignment_is_inf_or_zero() -> None:
    lp = _log_probs(5, 2, 4)
    targets, il, tl = symgrad.tensor([[1, 1, 1], [1, 2, 3]]), [5, 2], [3, 3]
    loss = F.ctc_loss(lp, targets, il, tl, reduction="none")
    assert np.isfinite(loss[0].item()) and loss[1].item() == np.inf
    loss.sum().backward()
    grad = lp.grad.numpy()
    assert np.isnan(grad[:2, 1]).all() and not grad[2:, 1].any()  # as PyTorch
    assert np.isfinite(grad[:, 0]).all()
    lp.grad = None
    loss = F.ctc_loss(lp, targets, il, tl, reduction="none", zero_infinity=True)
    assert loss[1].item() == 0.0
    loss.sum().backward()
    assert not lp.grad[:, 1].any() and np.isfinite(lp.grad.numpy()).all()


def test_ctc_gradient_is_the_derivative_and_sympy_agrees() -> None:
    lp = _log_probs(4, 2, 3)
    targets = symgrad.tensor([[1, 2], [2, 2]])
    f = lambda x: F.ctc_loss(x, targets, [4, 3], [2, 1], reduction="none")  # noqa: E731
    assert symgrad.autograd.gradcheck(f, (lp,))
    assert symgrad.autograd.gradgradcheck(f, (lp,))
    small = _log_probs(3, 1, 3)
    report = symgrad.symbolic.check(F.ctc_loss(small, symgrad.tensor([[1, 2]]), [3], [2]))
    assert str(report).startswith("gradient check passed")
    assert len(report.inputs[0].checked) == 9


def test_ctc_mean_divides_by_target_lengths() -> None:
    lp = _log_probs(6, 3, 4)
    targets, il, tl = symgrad.tensor([[1, 2, 2], [3, 1, 0], [2, 0, 0]]), [6, 5, 3], [3, 2, 1]
    each = F.ctc_loss(lp, targets, il, tl, reduction="none").detach().numpy()
    mean = F.ctc_loss(lp, targets, il, tl).item()
    assert mean == pytest.approx(float(np.mean(each / np.array([3, 2, 1]))), rel=1e-14)
    assert F.ctc_loss(lp, targets, il, tl, reduction="sum").item() == \
        pytest.approx(float(each.sum()), rel=1e-14)
    concatenated = F.ctc_loss(lp, symgrad.tensor([1, 2, 2, 3, 1, 2]), il, tl, reduction="none")
    np.testing.assert_allclose(concatenated.detach().numpy(), each, rtol=1e-14)


_LP = symgrad.zeros(5, 2, 4).log_softmax(2)
_TG = symgrad.tensor([[1, 2], [3, 3]])


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: F.ctc_loss(_LP, _TG, [5, 4], [2, 2], blank=4), RuntimeError,
     "blank must be in label range"),
    (lambda: F.ctc_loss(_LP, _TG, [6, 4], [2, 2]), RuntimeError,
     "Expected input_lengths to have value at most 5, but got value 6 (while checking "
     "arguments for ctc_loss_allocate_outputs)"),
    (lambda: F.ctc_loss(_LP, _TG, [5, 4], [3, 1]), RuntimeError,
     "Expected tensor to have size at least 3 at dimension 1, but got size 2 for argument #2 "
     "'targets'"),
    (lambda: F.ctc_loss(_LP, symgrad.tensor([1, 2, 3]), [5, 4], [2, 2]), RuntimeError,
     "Expected tensor to have size 4 at dimension 0, but got size 3 for argument #2 'targets'"),
    (lambda: F.ctc_loss(_LP, _TG, [5], [2, 2]), RuntimeError,
     "input_lengths must be of size batch_size"),
    (lambda: F.ctc_loss(_LP, _TG, [5, 4], [2, 2], reduction="x"), ValueError,
     "x is not a valid value for reduction"),
])
def test_ctc_errors_as_pytorch(call, error, message) -> None:
    with pytest.raises(error) as info:
        call()
    assert str(info.value).startswith(message)
