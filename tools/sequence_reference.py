"""PyTorch's values for the sequence layers' tests (recurrent layers, attention, transformer,
CTC loss): ``python tools/sequence_reference.py`` runs every case of :data:`CASES` on torch and
writes ``tests/data/sequence_reference.npz`` -- each case's inputs and weights (drawn from a
fixed numpy seed), its outputs and the gradients of ``sum(output * cotangent)`` with respect to
every input and parameter, all in float64. ``tests/test_nn_sequence.py`` loads the file and runs
the same cases through :func:`run` on symgrad (no torch needed there).
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / \
    "sequence_reference.npz"

# name -> (what to build, constructor keyword arguments, how to call it)
CASES: dict[str, dict[str, Any]] = {
    "rnn_tanh_2layer_bidir": dict(module="RNN", args=[3, 4],
                                  kwargs=dict(num_layers=2, bidirectional=True),
                                  inputs={"input": (5, 2, 3), "hx": (4, 2, 4)}),
    "rnn_relu_batch_first": dict(module="RNN", args=[3, 4],
                                 kwargs=dict(nonlinearity="relu", batch_first=True),
                                 inputs={"input": (2, 5, 3)}),
    "lstm_2layer_bidir_proj": dict(module="LSTM", args=[3, 4],
                                   kwargs=dict(num_layers=2, bidirectional=True, proj_size=2),
                                   inputs={"input": (5, 2, 3), "h0": (4, 2, 2),
                                           "c0": (4, 2, 4)}),
    "lstm_no_bias_batch_first": dict(module="LSTM", args=[3, 4],
                                     kwargs=dict(bias=False, batch_first=True),
                                     inputs={"input": (2, 5, 3)}),
    "lstm_unbatched": dict(module="LSTM", args=[3, 4], kwargs={},
                           inputs={"input": (5, 3), "h0": (1, 4), "c0": (1, 4)}),
    "gru_2layer_bidir": dict(module="GRU", args=[3, 4],
                             kwargs=dict(num_layers=2, bidirectional=True),
                             inputs={"input": (5, 2, 3), "hx": (4, 2, 4)}),
    "lstm_packed_bidir": dict(module="LSTM", args=[3, 4], kwargs=dict(bidirectional=True),
                              inputs={"input": (5, 3, 3)}, lengths=[3, 5, 2]),
    "gru_packed": dict(module="GRU", args=[3, 4], kwargs=dict(num_layers=2),
                       inputs={"input": (5, 3, 3)}, lengths=[3, 5, 2]),
    "rnn_cell_relu": dict(module="RNNCell", args=[3, 4], kwargs=dict(nonlinearity="relu"),
                          inputs={"input": (2, 3), "hx": (2, 4)}),
    "lstm_cell": dict(module="LSTMCell", args=[3, 4], kwargs={},
                      inputs={"input": (2, 3), "h0": (2, 4), "c0": (2, 4)}),
    "gru_cell_unbatched": dict(module="GRUCell", args=[3, 4], kwargs={},
                               inputs={"input": (3,), "hx": (4,)}),
}

_PAD = [[False, False, True], [False, False, False]]  # (N=2, S=3): True is masked out


def _causal(lib: Any, n: int) -> Any:
    return lib.ones(n, n, dtype=lib.bool).triu(1)


CASES.update({
    "mha_self_key_padding": dict(
        module="MultiheadAttention", args=[4, 2], kwargs={}, inputs={"input": (3, 2, 4)},
        call=lambda lib, m, x: m(x["input"], x["input"], x["input"],
                                 key_padding_mask=lib.tensor(_PAD))),
    "mha_kdim_vdim_bias_kv_zero_attn": dict(
        module="MultiheadAttention", args=[4, 2],
        kwargs=dict(kdim=3, vdim=5, batch_first=True, add_bias_kv=True, add_zero_attn=True),
        inputs={"input": (2, 3, 4), "key": (2, 5, 3), "value": (2, 5, 5),
                "mask": (3, 5)},
        call=lambda lib, m, x: m(x["input"], x["key"], x["value"], attn_mask=x["mask"],
                                 average_attn_weights=False)),
    "mha_causal_no_weights": dict(
        module="MultiheadAttention", args=[4, 2], kwargs=dict(bias=False),
        inputs={"input": (3, 2, 4)},
        call=lambda lib, m, x: m(x["input"], x["input"], x["input"],
                                 attn_mask=_causal(lib, 3), need_weights=False,
                                 is_causal=True)[0]),
    "mha_unbatched_bool_mask": dict(
        module="MultiheadAttention", args=[4, 4], kwargs={},
        inputs={"input": (3, 4), "key": (5, 4), "value": (5, 4)},
        call=lambda lib, m, x: m(x["input"], x["key"], x["value"],
                                 attn_mask=lib.tensor([[False] * 4 + [True]] * 3))),
    "encoder_layer_gelu_padding": dict(
        module="TransformerEncoderLayer", args=[4, 2, 8],
        kwargs=dict(dropout=0.0, activation="gelu"), inputs={"input": (3, 2, 4)},
        call=lambda lib, m, x: m(x["input"], src_key_padding_mask=lib.tensor(_PAD))),
    "encoder_norm_first_causal": dict(
        build=lambda lib: lib.nn.TransformerEncoder(
            lib.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, norm_first=True,
                                           batch_first=True), 2, norm=lib.nn.LayerNorm(4)),
        inputs={"input": (2, 3, 4)},
        call=lambda lib, m, x: m(x["input"], mask=lib.nn.Transformer
                                 .generate_square_subsequent_mask(3, dtype=lib.float64))),
    "decoder_layer_masks": dict(
        module="TransformerDecoderLayer", args=[4, 2, 8], kwargs=dict(dropout=0.0),
        inputs={"input": (3, 2, 4), "memory": (3, 2, 4)},
        call=lambda lib, m, x: m(x["input"], x["memory"], tgt_mask=_causal(lib, 3),
                                 memory_key_padding_mask=lib.tensor(_PAD))),
    "transformer": dict(
        module="Transformer", args=[],
        kwargs=dict(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=2,
                    dim_feedforward=8, dropout=0.0),
        inputs={"input": (5, 2, 4), "tgt": (3, 2, 4)},
        call=lambda lib, m, x: m(x["input"], x["tgt"], tgt_mask=lib.nn.Transformer
                                 .generate_square_subsequent_mask(3, dtype=lib.float64))),
    # CTC: the logits go through log_softmax, so the gradients are PyTorch's exactly
    "ctc_padded_mean": dict(
        module="CTCLoss", args=[], kwargs={}, inputs={"input": (6, 3, 4)},
        call=lambda lib, m, x: m(x["input"].log_softmax(2),
                                 lib.tensor([[1, 2, 2], [3, 1, 0], [2, 0, 0]]),
                                 lib.tensor([6, 5, 3]), lib.tensor([3, 2, 1]))),
    "ctc_concatenated_sum_blank": dict(
        module="CTCLoss", args=[], kwargs=dict(blank=3, reduction="sum"),
        inputs={"input": (5, 2, 4)},
        call=lambda lib, m, x: m(x["input"].log_softmax(2), lib.tensor([0, 1, 1, 2]),
                                 (5, 4), (3, 1))),
    "ctc_zero_infinity_none": dict(
        module="CTCLoss", args=[], kwargs=dict(reduction="none", zero_infinity=True),
        inputs={"input": (4, 3, 3)},
        call=lambda lib, m, x: m(x["input"].log_softmax(2),
                                 lib.tensor([[1, 1, 1], [1, 2, 0], [2, 0, 0]]),
                                 lib.tensor([4, 4, 2]), lib.tensor([3, 2, 0]))),
    "ctc_unbatched_mean": dict(
        module="CTCLoss", args=[], kwargs={}, inputs={"input": (5, 3)},
        call=lambda lib, m, x: m(x["input"].log_softmax(1), lib.tensor([1, 2]),
                                 lib.tensor(5), lib.tensor(2))),
})


def _build(lib: Any, case: dict[str, Any]) -> Any:
    if "build" in case:
        return case["build"](lib)
    return getattr(lib.nn, case["module"])(*case["args"], **case["kwargs"])


def _leaves(outputs: Any) -> list:
    """The tensors of a nested output (tuples, a PackedSequence's data)."""
    if isinstance(outputs, (tuple, list)):
        if hasattr(outputs, "batch_sizes"):
            return [outputs.data]
        return [leaf for item in outputs for leaf in _leaves(item)]
    return [] if outputs is None else [outputs]


def run(lib: Any, name: str, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run case ``name`` on ``lib`` (``torch`` or ``symgrad``) with the inputs and weights in
    ``arrays``: its outputs (``out{i}``) and gradients (``grad.{input or parameter}``)."""
    case = CASES[name]
    lib.manual_seed(0)
    module = _build(lib, case).double()
    params = dict(module.named_parameters())
    with lib.no_grad():
        for key, p in params.items():
            p.copy_(lib.from_numpy(arrays[f"{name}.param.{key}"]))
    inputs = {key: lib.from_numpy(arrays[f"{name}.input.{key}"].copy()).requires_grad_()
              for key in case["inputs"]}
    x = inputs["input"]
    if "lengths" in case:
        from_utils = lib.nn.utils.rnn
        x = from_utils.pack_padded_sequence(x, case["lengths"], enforce_sorted=False)
    if "call" in case:
        out = case["call"](lib, module, inputs)
    elif "h0" in inputs:
        out = module(x, (inputs["h0"], inputs["c0"]))
    elif "hx" in inputs:
        out = module(x, inputs["hx"])
    else:
        out = module(x)
    if "lengths" in case:
        padded, _ = lib.nn.utils.rnn.pad_packed_sequence(out[0])
        out = (padded, out[1])
    leaves = _leaves(out)
    loss = sum((leaf * lib.from_numpy(arrays[f"{name}.cot{i}"])).sum()
               for i, leaf in enumerate(leaves))
    loss.backward()
    result = {f"out{i}": leaf.detach().numpy() for i, leaf in enumerate(leaves)}
    for key, t in [*inputs.items(), *params.items()]:
        result[f"grad.{key}"] = t.grad.numpy().copy()
    return result


def _draw(lib: Any) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(20261202)
    arrays: dict[str, np.ndarray] = {}
    for name, case in CASES.items():
        module = _build(lib, case)
        for key, p in module.named_parameters():
            arrays[f"{name}.param.{key}"] = rng.uniform(-0.6, 0.6, tuple(p.shape))
        for key, shape in case["inputs"].items():
            arrays[f"{name}.input.{key}"] = rng.normal(size=shape)
    return arrays


def main() -> None:
    import warnings

    import torch

    warnings.simplefilter("ignore")  # enable_nested_tensor's note on batch_first

    arrays = _draw(torch)
    for name in CASES:
        rng = np.random.default_rng(len(name))
        # the cotangents: one per output, shaped by a first run
        probe = run(torch, name, {**arrays, **{f"{name}.cot{i}": np.ones(1) for i in range(3)}})
        for i in range(3):
            if f"out{i}" in probe:
                arrays[f"{name}.cot{i}"] = rng.normal(size=probe[f"out{i}"].shape)
        for key, value in run(torch, name, arrays).items():
            arrays[f"{name}.expected.{key}"] = value
    arrays["meta"] = np.array(json.dumps({"torch": torch.__version__}))
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT.name}: {len(CASES)} cases, torch {torch.__version__}")


if __name__ == "__main__":
    main()
