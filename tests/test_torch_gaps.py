"""Small gaps between ``torch`` / ``torch.Tensor`` and symgrad, closed against PyTorch 2.13: the
``*_copy`` view functions, ``unsafe_split``/``unsafe_chunk``, ``angle``, ``rsub``, ``fill``,
``detach_``, the ``torch.dropout`` family, ``asarray``, ``range``, ``empty_strided``,
``set_default_tensor_type``, ``vmap``, and the ``is_cpu``/``layout`` attributes. Each case's
values, node and dtype (and, where it is differentiable, the gradients of a weighted sum of its
outputs), or its error's type and first sentence, are recorded by ``python
tools/record_torch_cases.py tests/test_torch_gaps.py`` into ``tests/data/torch_gaps.json``;
this module never imports torch.
"""

from __future__ import annotations

import json
import pathlib
import warnings

import numpy as np
import pytest
from torch_cases import assert_same, outcome

import symgrad as t
from symgrad.autograd.gradcheck import gradcheck

DATA = pathlib.Path(__file__).parent / "data" / "torch_gaps.json"

M = [[0.5, -1.0, 2.0], [3.0, -0.25, 1.5]]


def weighted(L, f, *data):
    """``f``'s outputs for float64 leaves made from ``data``, and the gradients of
    ``sum(k * out_k)`` (weights 1, 2, 3 ... over all outputs' elements) to each leaf."""
    xs = [L.tensor(d, dtype=L.float64, requires_grad=True) for d in data]
    out = f(*xs)
    outs = list(out) if isinstance(out, tuple | list) else [out]
    loss, start = 0, 1
    for o in outs:
        n = o.numel()
        w = L.arange(start, start + n, dtype=L.float64).reshape(o.shape)
        loss = loss + (o * w).sum()
        start += n
    grads = L.autograd.grad(loss, xs, allow_unused=True)
    return [outs, [g if g is not None else "none" for g in grads]]


def warned(L, f):
    """``f()``'s result and the distinct first sentences of the warnings it gave (PyTorch
    gives some of them once per process, symgrad once per call)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = f()
    return [value, sorted({str(w.message).replace("symgrad.", "torch.").split(". ")[0]
                           .rstrip(".") for w in caught})]


def _index_reduce_case(how: str, keep: bool):
    def case(L):
        return weighted(
            L, lambda x, s: x.index_reduce(0, L.tensor([0, 2, 0]), s, how, include_self=keep),
            [[1.0, 2.0], [3.0, -1.0], [0.5, 2.0]], [[2.0, 3.0], [2.0, 5.0], [-6.0, 2.0]])
    return case


def _index_reduce_function(how: str):
    def function(x):
        return x.index_reduce(1, t.tensor([2, 0, 2]), x.flip(1) * 2, how,
                              include_self=how != "mean")
    return function


CASES = {
    # attributes
    "is_cpu": lambda L: L.ones(2).is_cpu,
    "layout": lambda L: [L.ones(2).layout, L.strided, L.ones(2).layout is L.strided,
                         isinstance(L.strided, L.layout)],
    "is_inference": lambda L: L.ones(2).is_inference(),
    # the *_copy views
    "view_copy": lambda L: weighted(L, lambda x: L.view_copy(x, [3, 2]), M),
    "view_copy -1": lambda L: L.view_copy(L.arange(6.0), (3, -1)),
    "view_copy int": lambda L: L.view_copy(L.arange(6.0), -1),
    "view_copy bad": lambda L: L.view_copy(L.arange(6.0), [4]),
    "view_copy dtype": lambda L: L.view_copy(L.tensor([1.0, -2.0]), L.int32),
    "permute_copy": lambda L: weighted(L, lambda x: L.permute_copy(x, [1, 0]), M),
    "permute_copy bad": lambda L: L.permute_copy(L.ones(2, 3), [0]),
    "transpose_copy": lambda L: weighted(L, lambda x: L.transpose_copy(x, 0, 1), M),
    "t_copy": lambda L: weighted(L, lambda x: L.t_copy(x), M),
    "squeeze_copy": lambda L: weighted(L, lambda x: L.squeeze_copy(x.unsqueeze(0)), M),
    "squeeze_copy dim": lambda L: weighted(L, lambda x: L.squeeze_copy(x.unsqueeze(1), 1), M),
    "squeeze_copy dims": lambda L: weighted(L, lambda x: L.squeeze_copy(x[None], (0, 1)), M),
    "unsqueeze_copy": lambda L: weighted(L, lambda x: L.unsqueeze_copy(x, -1), M),
    "expand_copy": lambda L: weighted(L, lambda x: L.expand_copy(x, [2, 2, 3]), M),
    "expand_copy implicit": lambda L: L.expand_copy(L.ones(3), (2, 3), implicit=True),
    "expand_copy bad": lambda L: L.expand_copy(L.ones(2, 3), (3, 3)),
    "diagonal_copy": lambda L: weighted(L, lambda x: L.diagonal_copy(x, 1), M),
    "select_copy": lambda L: weighted(L, lambda x: L.select_copy(x, 1, -1), M),
    "select_copy bad": lambda L: L.select_copy(L.ones(2, 3), 0, 5),
    "slice_copy": lambda L: weighted(L, lambda x: L.slice_copy(x, 1, 0, 3, 2), M),
    "slice_copy defaults": lambda L: weighted(L, lambda x: L.slice_copy(x), M),
    "slice_copy clamps": lambda L: L.slice_copy(L.arange(6.0), 0, -10, 10, 2),
    "slice_copy empty": lambda L: L.slice_copy(L.arange(6.0), 0, 5, 1),
    "slice_copy step 0": lambda L: L.slice_copy(L.arange(6.0), 0, 0, 5, 0),
    "slice_copy 0-d": lambda L: L.slice_copy(L.tensor(1.0), 0),
    "slice_copy bad dim": lambda L: L.slice_copy(L.ones(2, 3), 2),
    "split_copy": lambda L: weighted(L, lambda x: L.split_copy(x, 2, 1), M),
    "split_copy list": lambda L: L.split_copy(L.ones(2, 3), [1, 2], 1),
    "split_with_sizes_copy": lambda L: weighted(
        L, lambda x: L.split_with_sizes_copy(x, [1, 2], 1), M),
    "unbind_copy": lambda L: weighted(L, lambda x: L.unbind_copy(x, 1), M),
    "unfold_copy": lambda L: weighted(L, lambda x: L.unfold_copy(x, 1, 2, 1), M),
    "unfold_copy bad": lambda L: L.unfold_copy(L.ones(2, 3), 1, 4, 1),
    "alias_copy": lambda L: weighted(L, lambda x: L.alias_copy(x), M),
    "detach_copy": lambda L: (lambda y: [y.detach(), y.requires_grad, type(y.grad_fn).__name__])(
        L.detach_copy(L.tensor(M, requires_grad=True))),
    "detach_copy plain": lambda L: L.detach_copy(L.tensor(M)),
    "detach_copy backward": lambda L: L.detach_copy(L.ones(2, requires_grad=True)).sum()
    .backward(),
    "copy is not a view": lambda L: (lambda x: (lambda y: [y.add_(1), x])(L.t_copy(x)))(
        L.tensor(M)),
    # unsafe splits
    "unsafe_split": lambda L: weighted(L, lambda x: L.unsafe_split(x, 2, 1), M),
    "unsafe_split method": lambda L: weighted(L, lambda x: x.unsafe_split(split_size=1), M),
    "unsafe_split list": lambda L: L.unsafe_split(L.ones(2, 3), [1, 2], 1),
    "unsafe_split 0": lambda L: L.unsafe_split(L.ones(2, 3), 0, 1),
    "unsafe_split 0-d": lambda L: L.unsafe_split(L.tensor(1.0), 1),
    "unsafe_chunk": lambda L: weighted(L, lambda x: x.unsafe_chunk(2, 1), M),
    "unsafe_chunk 0": lambda L: L.unsafe_chunk(L.ones(2, 3), 0),
    "unsafe_split_with_sizes": lambda L: weighted(
        L, lambda x: x.unsafe_split_with_sizes([2, 1], 1), M),
    "unsafe_split_with_sizes bad": lambda L: L.unsafe_split_with_sizes(L.ones(2, 3), [1, 1], 1),
    "unsafe_split in place": lambda L: (lambda a, b: [a.mul_(2), b])(
        *(L.ones(4, requires_grad=True) * 1).unsafe_split(2)),
    # angle
    "angle": lambda L: L.angle(L.tensor([-1.0, 0.0, 2.0, float("nan"), -0.0, float("inf"),
                                         -float("inf")])),
    "angle grad": lambda L: weighted(L, lambda x: x.angle(), [-1.0, 0.0, 2.0]),
    "angle int": lambda L: L.tensor([-1, 0, 2]).angle(),
    "angle bool": lambda L: L.angle(L.tensor([True, False])),
    "angle half": lambda L: L.tensor([-1.0], dtype=L.float16).angle(),
    "angle list": lambda L: L.angle([1.0]),
    # rsub
    "rsub number": lambda L: weighted(L, lambda x: L.rsub(x, 3), [1.0, 2.0]),
    "rsub number alpha": lambda L: weighted(L, lambda x: L.rsub(x, 3, alpha=2), [1.0, 2.0]),
    "rsub tensor": lambda L: weighted(L, lambda x, y: L.rsub(x, y, alpha=2), [1.0, 2.0],
                                      [5.0, 7.0]),
    "rsub int float": lambda L: L.rsub(L.tensor([1, 2]), 1.5),
    "rsub int tensor": lambda L: L.rsub(L.tensor([1, 2]), L.tensor([1.5, 2.0])),
    "rsub int alpha": lambda L: L.rsub(L.tensor([1, 2]), 2, alpha=3),
    "rsub int float alpha": lambda L: L.rsub(L.tensor([1, 2]), 2, alpha=0.5),
    "rsub bool": lambda L: L.rsub(L.tensor([True]), 1),
    "rsub number first": lambda L: L.rsub(2, L.ones(2)),
    "rsub str": lambda L: L.rsub(L.ones(2), "a"),
    # fill
    "fill": lambda L: weighted(L, lambda x: L.fill(x, 2.5), [1.0, 2.0]),
    "fill tensor": lambda L: weighted(L, lambda x, v: L.fill(x, v), [1.0, 2.0], 3.0),
    "fill int": lambda L: L.fill(L.tensor([1, 2]), 3.7),
    "fill int tensor": lambda L: L.fill(L.tensor([1, 2]), L.tensor(2.5)),
    "fill bool": lambda L: L.fill(L.tensor([True, False]), 0),
    "fill 1-d value": lambda L: L.fill(L.ones(2), L.ones(2)),
    "fill str": lambda L: L.fill(L.ones(2), "a"),
    "fill overflow": lambda L: L.fill(L.ones(2, dtype=L.int8), 300),
    # detach_
    "detach_": lambda L: (lambda y: [L.detach_(y) is y, y.requires_grad, y.grad_fn])(
        L.ones(2, requires_grad=True) * 2),
    "detach_ view": lambda L: L.detach_((L.ones(2, 3, requires_grad=True) * 2)[0]),
    # torch.dropout & co (deterministic settings only: the random streams differ)
    "dropout eval": lambda L: weighted(L, lambda x: L.dropout(x, 0.5, False), [1.0, 2.0]),
    "dropout p=1": lambda L: weighted(L, lambda x: L.dropout(x, 1.0, True), [1.0, 2.0]),
    "dropout p=0": lambda L: weighted(L, lambda x: L.dropout(x * 1, 0.0, True), [1.0, 2.0]),
    "dropout bad p": lambda L: L.dropout(L.ones(2), 1.5, True),
    "dropout_": lambda L: L.dropout_(L.ones(3), 1.0, True),
    "dropout_ eval": lambda L: L.dropout_(L.ones(3), 0.5, False),
    "dropout_ leaf": lambda L: L.dropout_(L.ones(2, requires_grad=True), 0.5, True),
    "dropout_ leaf eval": lambda L: L.dropout_(L.ones(2, requires_grad=True), 0.5, False),
    "dropout_ bad p": lambda L: L.dropout_(L.ones(2), -0.5, True),
    "alpha_dropout eval": lambda L: L.alpha_dropout(L.ones(2), 0.5, False),
    "alpha_dropout p=1": lambda L: L.alpha_dropout(L.ones(2), 1.0, True),
    "alpha_dropout_": lambda L: L.alpha_dropout_(L.ones(2), 1.0, True),
    "alpha_dropout bad p": lambda L: L.alpha_dropout(L.ones(2), 2.0, True),
    "feature_alpha_dropout_": lambda L: L.feature_alpha_dropout_(L.ones(2, 3), 1.0, True),
    "feature_alpha_dropout 1-d": lambda L: L.feature_alpha_dropout(L.ones(3), 0.5, True),
    "feature_dropout": lambda L: L.feature_dropout(L.ones(2, 3, 2), 1.0, True),
    "feature_dropout p=0": lambda L: L.feature_dropout(L.ones(2, 3, 2), 0.0, True),
    "feature_dropout 1-d": lambda L: L.feature_dropout(L.ones(4), 0.5, True),
    "feature_dropout_": lambda L: L.feature_dropout_(L.ones(2, 3), 1.0, True),
    "feature_dropout grad": lambda L: weighted(L, lambda x: L.feature_dropout(x, 1.0, True),
                                               [[1.0, 2.0]]),
    # asarray
    "asarray tensor": lambda L: warned(L, lambda: (lambda y: [L.asarray(y) is y, y])(
        L.ones(2, requires_grad=True) * 2)),
    "asarray plain tensor": lambda L: warned(L, lambda: (lambda y: L.asarray(y) is y)(
        L.ones(2))),
    "asarray copy": lambda L: L.asarray(L.ones(2, requires_grad=True) * 2, copy=True),
    "asarray leaf copy": lambda L: L.asarray(L.ones(2, requires_grad=True), copy=True),
    "asarray copy shares nothing": lambda L: (lambda x: [L.asarray(x, copy=True).add_(1), x])(
        L.ones(2)),
    "asarray dtype": lambda L: L.asarray(L.ones(2, requires_grad=True) * 2, dtype=L.float64),
    "asarray dtype copy False": lambda L: L.asarray(L.ones(2), dtype=L.float64, copy=False),
    "asarray same dtype copy False": lambda L: (lambda x: L.asarray(x, dtype=L.float32,
                                                                    copy=False) is x)(L.ones(2)),
    "asarray requires_grad False": lambda L: (lambda y: [L.asarray(y, requires_grad=False),
                                                         y.requires_grad])(
        L.ones(2, requires_grad=True) * 2),
    "asarray leaf requires_grad False": lambda L: (lambda x: [
        L.asarray(x, requires_grad=False) is x, x.requires_grad])(
        L.ones(2, requires_grad=True)),
    "asarray requires_grad True": lambda L: (lambda x: [
        L.asarray(x, requires_grad=True) is x, x.requires_grad])(L.ones(2)),
    "asarray dtype requires_grad True": lambda L: (lambda x: [
        L.asarray(x, dtype=L.float64, requires_grad=True), x.requires_grad])(L.ones(2)),
    "asarray int requires_grad": lambda L: L.asarray(L.tensor([1]), requires_grad=True),
    "asarray numpy": lambda L: L.asarray(np.array([1, 2])),
    "asarray numpy shares": lambda L: (lambda a: [L.asarray(a).add_(1), a.tolist()])(
        np.array([1.0, 2.0])),
    "asarray numpy copy": lambda L: (lambda a: [L.asarray(a, copy=True).add_(1), a.tolist()])(
        np.array([1.0, 2.0])),
    "asarray numpy dtype": lambda L: (lambda a: [L.asarray(a, dtype=L.float32).add_(1),
                                                 a.tolist()])(np.array([1.0, 2.0])),
    "asarray numpy dtype copy False": lambda L: L.asarray(np.array([1.0]), dtype=L.float32,
                                                          copy=False),
    "asarray numpy requires_grad": lambda L: L.asarray(np.array([1.0]), requires_grad=True),
    "asarray numpy scalar": lambda L: L.asarray(np.float64(2.5)),
    "asarray list": lambda L: L.asarray([1, 2.5]),
    "asarray nested ints": lambda L: L.asarray([[1, 2]]),
    "asarray list dtype": lambda L: L.asarray([1, 2], dtype=L.float64),
    "asarray list copy False": lambda L: L.asarray([1, 2], copy=False),
    "asarray scalar": lambda L: L.asarray(3),
    "asarray scalar requires_grad": lambda L: L.asarray(3.0, requires_grad=True),
    "asarray list int requires_grad": lambda L: L.asarray([1], requires_grad=True),
    "asarray bool": lambda L: L.asarray(True),
    "asarray str": lambda L: L.asarray("a"),
    "asarray None": lambda L: L.asarray(None),
    "asarray tensors in a list": lambda L: L.asarray([L.tensor(1.0), L.tensor(2.0)]),
    "asarray dtype str": lambda L: L.asarray([1], dtype="float"),
    # range, empty_strided, set_default_tensor_type, vmap
    "range": lambda L: warned(L, lambda: L.range(0, 3)),
    "range step": lambda L: L.range(0, 1, 0.3),
    "range down": lambda L: L.range(3, 0, -1),
    "range int": lambda L: L.range(0, 3, dtype=L.int64),
    "range requires_grad": lambda L: L.range(0.0, 2.0, requires_grad=True),
    "range int requires_grad": lambda L: L.range(0, 3, dtype=L.int64, requires_grad=True),
    "range step 0": lambda L: L.range(0, 3, 0),
    "range wrong sign": lambda L: L.range(3, 0),
    "range inf": lambda L: L.range(0, float("inf")),
    "range keywords": lambda L: L.range(start=1, end=2),
    "range tensor bound": lambda L: L.range(L.tensor(1), 3),
    "empty_strided": lambda L: (lambda x: [x.shape, x.stride(), x.dtype])(
        L.empty_strided((2, 3), (1, 2))),
    "empty_strided dtype": lambda L: L.empty_strided((2, 3), (3, 1), dtype=L.int64).dtype,
    "empty_strided requires_grad": lambda L: L.empty_strided([2], [1],
                                                             requires_grad=True).requires_grad,
    "empty_strided scalar": lambda L: L.empty_strided([], []).shape,
    "empty_strided mismatch": lambda L: L.empty_strided((2, 3), (1,)),
    "empty_strided negative size": lambda L: L.empty_strided((2, -3), (1, 2)),
    "empty_strided negative stride": lambda L: L.empty_strided((2, 3), (-1, 2)),
    "set_default_tensor_type": lambda L: warned(L, lambda: [
        L.set_default_tensor_type("torch.DoubleTensor"), L.get_default_dtype(),
        L.ones(1).dtype, L.set_default_tensor_type("torch.FloatTensor"),
        L.get_default_dtype()]),
    "set_default_tensor_type half": lambda L: [
        L.set_default_tensor_type("torch.HalfTensor"), L.get_default_dtype(),
        L.set_default_tensor_type("torch.FloatTensor")],
    "set_default_tensor_type int": lambda L: L.set_default_tensor_type("torch.IntTensor"),
    "set_default_tensor_type dtype": lambda L: L.set_default_tensor_type(L.float64),
    "set_default_tensor_type unknown": lambda L: L.set_default_tensor_type("torch.Foo"),
    "vmap": lambda L: L.vmap is L.func.vmap,
    "vmap runs": lambda L: L.vmap(lambda v: (v * v).sum())(L.arange(6.0).reshape(2, 3)),
    # torch.* forms of nn.functional's functions
    "bce_with_logits": lambda L: weighted(
        L, lambda x, y: L.binary_cross_entropy_with_logits(x, y.sigmoid()), M, M),
    "bce_with_logits sum": lambda L: weighted(
        L, lambda x, w: L.binary_cross_entropy_with_logits(x, L.ones(2, 3, dtype=L.float64),
                                                           w, None, 2), M, M),
    "bce_with_logits pos_weight": lambda L: weighted(
        L, lambda x: L.binary_cross_entropy_with_logits(
            x, L.zeros(2, 3, dtype=L.float64), pos_weight=L.tensor([1.0, 2.0, 3.0],
                                                                    dtype=L.float64),
            reduction=1), M),
    "bce_with_logits str": lambda L: L.binary_cross_entropy_with_logits(L.ones(2), L.ones(2),
                                                                        None, None, "mean"),
    "kl_div": lambda L: weighted(L, lambda x, y: L.kl_div(x, y.exp()), M, M),
    "kl_div mean": lambda L: warned(L, lambda: weighted(
        L, lambda x, y: L.kl_div(x, y.exp(), 1), M, M)),
    "kl_div sum log_target": lambda L: weighted(
        L, lambda x, y: L.kl_div(x, y, reduction=2, log_target=True), M, M),
    "kl_div other int": lambda L: L.kl_div(L.zeros(2), L.ones(2), 5),
    "kl_div str": lambda L: L.kl_div(L.zeros(2), L.ones(2), "mean"),
    "kl_div list": lambda L: L.kl_div([0.0], L.ones(1)),
    "cosine_embedding_loss": lambda L: weighted(
        L, lambda a, b: L.cosine_embedding_loss(a, b, L.tensor([1.0, -1.0]), 0.1), M, M[::-1]),
    "cosine_embedding_loss mean": lambda L: weighted(
        L, lambda a, b: L.cosine_embedding_loss(a, b, L.tensor([1.0, -1.0]), 0.0, 1),
        M, M[::-1]),
    "hinge_embedding_loss": lambda L: weighted(
        L, lambda x: L.hinge_embedding_loss(x, L.tensor([[1.0, -1.0, 1.0]] * 2), 1.5), M),
    "hinge_embedding_loss sum": lambda L: weighted(
        L, lambda x: L.hinge_embedding_loss(x, L.tensor([[1.0, -1.0, -1.0]] * 2), 1.0, 2), M),
    "margin_ranking_loss": lambda L: weighted(
        L, lambda a, b: L.margin_ranking_loss(a, b, L.tensor([1.0, -1.0, 1.0]), 0.5), M,
        M[::-1]),
    "margin_ranking_loss mean": lambda L: weighted(
        L, lambda a, b: L.margin_ranking_loss(a, b, L.tensor([1.0, -1.0, 1.0]), 0.5, 1), M,
        M[::-1]),
    "triplet_margin_loss": lambda L: weighted(
        L, lambda a, p, n: L.triplet_margin_loss(a, p, n, 2.0), M, M[::-1], [[0.0] * 3] * 2),
    "triplet_margin_loss swap": lambda L: weighted(
        L, lambda a, p, n: L.triplet_margin_loss(a, p, n, 2.0, 1.0, 1e-6, True, 1), M,
        M[::-1], [[0.0] * 3] * 2),
    "poisson_nll_loss": lambda L: weighted(
        L, lambda x: L.poisson_nll_loss(x, L.tensor([[1.0, 2.0, 0.0]] * 2), True, True, 1e-8,
                                        0), M),
    "poisson_nll_loss not log": lambda L: weighted(
        L, lambda x: L.poisson_nll_loss(x.exp(), L.tensor([[1.0, 2.0, 0.0]] * 2), False,
                                        False, 1e-8, 1), M),
    "ctc_loss": lambda L: weighted(
        L, lambda x: L.ctc_loss(x.reshape(3, 1, 2).log_softmax(2), L.tensor([[1]]), [3], [1]),
        M),
    "ctc_loss mean": lambda L: weighted(
        L, lambda x: L.ctc_loss(x.reshape(3, 1, 2).log_softmax(2), L.tensor([[1, 1]]),
                                L.tensor([3]), L.tensor([2]), 0, 1), M),
    "layer_norm": lambda L: weighted(L, lambda x, w: L.layer_norm(x, [3], w[0], w[1]), M,
                                     M[::-1]),
    "layer_norm eps": lambda L: weighted(L, lambda x: L.layer_norm(x, (2, 3), None, None, 0.1,
                                                                   False), M),
    "layer_norm bad shape": lambda L: L.layer_norm(L.ones(2, 3), [2]),
    "group_norm": lambda L: weighted(
        L, lambda x: L.group_norm(x.reshape(1, 2, 3), 2, L.tensor([1.0, 2.0], dtype=L.float64),
                                  None, 1e-3, True), M),
    "group_norm bad groups": lambda L: L.group_norm(L.ones(1, 3, 2), 2),
    "batch_norm": lambda L: weighted(
        L, lambda x, w: L.batch_norm(x, w[0], w[1], None, None, True, 0.1, 1e-5, False), M,
        M[::-1]),
    "batch_norm running": lambda L: (lambda m, v: [
        weighted(L, lambda x: L.batch_norm(x, None, None, m, v, True, 0.5, 1e-5, True), M),
        m, v])(L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64)),
    "batch_norm eval": lambda L: weighted(
        L, lambda x: L.batch_norm(x, None, None, L.ones(3, dtype=L.float64),
                                  L.full((3,), 4.0, dtype=L.float64), False, 0.1, 1e-5, False),
        M),
    "instance_norm": lambda L: weighted(
        L, lambda x, w: L.instance_norm(x.reshape(1, 3, 2), w[0, :3], w[1, :3], None, None,
                                        True, 0.1, 1e-5, False), M, M[::-1]),
    "instance_norm running": lambda L: (lambda m, v: [
        weighted(L, lambda x: L.instance_norm(x.reshape(1, 3, 2), None, None, m, v, True, 0.5,
                                              1e-5, True), M), m, v])(
        L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64)),
    "embedding": lambda L: weighted(L, lambda w: L.embedding(w, L.tensor([[0, 1], [1, 1]])), M),
    "embedding padding_idx": lambda L: weighted(
        L, lambda w: L.embedding(w, L.tensor([0, 1, 1]), 1), M),
    "embedding scale_grad_by_freq": lambda L: weighted(
        L, lambda w: L.embedding(w, L.tensor([0, 1, 1]), -1, True), M),
    "embedding float indices": lambda L: L.embedding(L.ones(2, 3), L.tensor([0.0])),
    "bilinear": lambda L: weighted(
        L, lambda a, b, w: L.bilinear(a, b, w.reshape(1, 2, 3)[:, :, :2].expand(2, 3, 2)
                                      .transpose(1, 2), w[0, :2]), M, M[::-1], M),
    "bilinear bad": lambda L: L.bilinear(L.ones(1, 2), L.ones(1, 3), L.ones(1, 2, 2)),
    "constant_pad_nd": lambda L: weighted(L, lambda x: L.constant_pad_nd(x, [1, 2], 1.5), M),
    "constant_pad_nd negative": lambda L: weighted(L, lambda x: L.constant_pad_nd(x, [-1, 0, 1,
                                                                                      0]), M),
    "constant_pad_nd odd": lambda L: L.constant_pad_nd(L.ones(2), [1]),
    "max_pool1d_with_indices": lambda L: weighted(
        L, lambda x: L.max_pool1d_with_indices(x, 2)[0], M),
    "max_pool1d_with_indices indices": lambda L: L.max_pool1d_with_indices(
        L.tensor(M), 2, 1, 1, 1, True),
    "max_pool1d_with_indices stride": lambda L: weighted(
        L, lambda x: L.max_pool1d_with_indices(x, [2], [1])[0], M),
    # the deprecated nuclear_norm and frobenius_norm
    "nuclear_norm": lambda L: warned(L, lambda: weighted(L, lambda x: L.nuclear_norm(x), M)),
    "nuclear_norm keepdim": lambda L: weighted(L, lambda x: L.nuclear_norm(x, keepdim=True), M),
    "nuclear_norm dims": lambda L: weighted(L, lambda x: L.nuclear_norm(x, [1, 0], True), M),
    "nuclear_norm batched": lambda L: weighted(
        L, lambda x: L.nuclear_norm(x.reshape(1, 2, 3).expand(2, 2, 3) * L.tensor(
            [[[1.0]], [[2.0]]], dtype=L.float64), (2, 1)), M),
    "nuclear_norm 1-d": lambda L: L.nuclear_norm(L.ones(3)),
    "nuclear_norm int": lambda L: L.nuclear_norm(L.ones(2, 2, dtype=L.int64)),
    "nuclear_norm one dim": lambda L: L.nuclear_norm(L.ones(2, 2), [0]),
    "frobenius_norm": lambda L: warned(L, lambda: weighted(
        L, lambda x: L.frobenius_norm(x, [0, 1]), M)),
    "frobenius_norm keepdim": lambda L: weighted(L, lambda x: L.frobenius_norm(x, [1], True), M),
    "frobenius_norm int dim": lambda L: weighted(L, lambda x: L.frobenius_norm(x, 0), M),
    "frobenius_norm 3 dims": lambda L: L.frobenius_norm(L.ones(2, 2), [0, 1, 1]),
    "frobenius_norm int": lambda L: L.frobenius_norm(L.ones(2, dtype=L.int64), [0]),
    # histogram, histogramdd
    "histogram": lambda L: L.histogram(L.tensor([1.0, 2.0, 1.0, 4.0, 2.5]), 4),
    "histogram method": lambda L: L.tensor([1.0, 2.0, 1.0, 4.0, 2.5]).histogram(3),
    "histogram edges": lambda L: L.histogram(L.tensor([1.0, 2.0, 1.0, 4.0, 2.5]),
                                             L.tensor([0.0, 1.5, 5.0])),
    "histogram range": lambda L: L.histogram(L.tensor([1.0, 2.0, 1.0, 4.0, 9.0]), 2,
                                             range=(0.0, 4.0)),
    "histogram weight": lambda L: L.histogram(L.tensor([1.0, 2.0, 1.0, 4.0, 2.5]), 2,
                                              weight=L.tensor([1.0, 2.0, 3.0, 4.0, 5.0])),
    "histogram density": lambda L: L.histogram(L.tensor([1.0, 2.0, 1.0, 4.0, 2.5]), 3,
                                               density=True),
    "histogram density edges": lambda L: L.histogram(L.tensor([1.0, 2.0, 1.0, 4.0, 2.5]),
                                                     L.tensor([0.0, 1.0, 5.0]), density=True),
    "histogram float64": lambda L: L.histogram(L.tensor([0.1, 0.2, 0.7], dtype=L.float64), 5),
    "histogram 2-d input": lambda L: L.histogram(L.tensor(M), 3),
    "histogram equal values": lambda L: L.histogram(L.tensor([1.0, 1.0]), 2),
    "histogram empty": lambda L: L.histogram(L.tensor([]), 2),
    "histogram decreasing edges": lambda L: L.histogram(L.tensor([1.0, 2.0]),
                                                        L.tensor([3.0, 1.0])),
    "histogram requires grad": lambda L: L.histogram(L.tensor(M, requires_grad=True), 2),
    "histogram backward": lambda L: L.histogram(L.tensor(M, requires_grad=True), 2).hist.sum()
    .backward(),
    "histogram int": lambda L: L.histogram(L.tensor([1, 2]), 2),
    "histogram min > max": lambda L: L.histogram(L.ones(2), 2, range=(3.0, 1.0)),
    "histogram 0 bins": lambda L: L.histogram(L.ones(2), 0),
    "histogram nan": lambda L: L.histogram(L.tensor([float("nan"), 1.0]), 2),
    "histogram inf": lambda L: L.histogram(L.tensor([float("inf"), 1.0]), 2),
    "histogram weight shape": lambda L: L.histogram(L.ones(5), 2, weight=L.ones(2)),
    "histogram list bins": lambda L: L.histogram(L.ones(2), [0.0, 1.0]),
    "histogram float bins": lambda L: L.histogram(L.ones(2), 2.5),
    "histogramdd": lambda L: L.histogramdd(L.tensor([[1.0, 2.0], [3.0, 4.0], [2.0, 2.5]]),
                                           [2, 3]),
    "histogramdd int bins": lambda L: L.histogramdd(L.tensor([[1.0, 2.0], [3.0, 4.0]]), 2),
    "histogramdd range weight": lambda L: L.histogramdd(
        L.tensor([[1.0, 2.0], [3.0, 4.0], [2.0, 2.5]]), [2, 2], range=[0.0, 4.0, 0.0, 4.0],
        weight=L.tensor([1.0, 2.0, 3.0])),
    "histogramdd edges density": lambda L: L.histogramdd(
        L.tensor([[1.0, 2.0], [3.0, 4.0], [2.0, 2.5]]),
        [L.tensor([0.0, 2.0, 4.0]), L.tensor([0.0, 3.0, 5.0])], density=True),
    # index_reduce
    "index_reduce warns": lambda L: warned(L, lambda: L.ones(2).index_reduce(
        0, L.tensor([1]), L.ones(1), "prod")),  # (PyTorch's first: it warns once)
    **{f"index_reduce {how}{'' if keep else ' without self'}": _index_reduce_case(how, keep)
       for how in ("prod", "mean", "amax", "amin") for keep in (True, False)},
    "scatter_reduce prod zeros": lambda L: weighted(
        L, lambda x, s: x.scatter_reduce(1, L.tensor([[1, 1, 0], [1, 1, 0]]), s, "prod"),
        [[1.0, 0.0], [3.0, -1.0]], [[0.0, 3.0, 2.0], [0.0, 0.0, 1.0]]),
    "scatter_reduce prod zeros without self": lambda L: weighted(
        L, lambda x, s: x.scatter_reduce(1, L.tensor([[1, 1, 0], [1, 1, 0]]), s, "prod",
                                         include_self=False),
        [[1.0, 0.0], [3.0, -1.0]], [[0.0, 3.0, 2.0], [0.0, 5.0, 1.0]]),
    "index_reduce prod zeros": lambda L: weighted(
        L, lambda x, s: L.index_reduce(x, 1, L.tensor([1, 1, 0]), s, "prod"),
        [[1.0, 0.0], [3.0, -1.0]], [[0.0, 3.0, 2.0], [0.0, 0.0, 1.0]]),
    "index_reduce amax ties": lambda L: weighted(
        L, lambda x, s: x.index_reduce(0, L.tensor([1, 1]), s, "amax"), [[1.0, 2.0], [3.0, 5.0]],
        [[3.0, 5.0], [3.0, 1.0]]),
    "index_reduce_": lambda L: weighted(
        L, lambda x, s: (x * 1).index_reduce_(0, L.tensor([1, 1]), s, "mean"),
        [[1.0, 2.0], [3.0, 5.0]], [[3.0, 5.0], [3.0, 1.0]]),
    "index_reduce_ leaf": lambda L: L.ones(2, requires_grad=True).index_reduce_(
        0, L.tensor([0]), L.ones(1), "prod"),
    "index_reduce int mean": lambda L: L.ones(3, 2, dtype=L.int64).index_reduce(
        0, L.tensor([0, 2, 0]), L.tensor([[2, 3], [4, 5], [6, 7]]), "mean"),
    "index_reduce int32 index": lambda L: L.ones(3).index_reduce(
        0, L.tensor([0, 2, 0], dtype=L.int32), L.tensor([2.0, 3.0, 4.0]), "prod"),
    "index_reduce 0-d": lambda L: L.tensor(2.0).index_reduce(0, L.tensor([0]), L.tensor(5.0),
                                                             "prod"),
    "index_reduce sum": lambda L: L.ones(3).index_reduce(0, L.tensor([0]), L.ones(1), "sum"),
    "index_reduce_ sum": lambda L: L.ones(3).index_reduce_(0, L.tensor([0]), L.ones(1), "sum"),
    "index_reduce float index": lambda L: L.ones(3).index_reduce(0, L.tensor([0.0]), L.ones(1),
                                                                 "prod"),
    "index_reduce count": lambda L: L.ones(3).index_reduce(0, L.tensor([0, 1]), L.ones(1),
                                                           "prod"),
    "index_reduce out of range": lambda L: L.ones(3).index_reduce(0, L.tensor([3]), L.ones(1),
                                                                  "prod"),
    "index_reduce negative": lambda L: L.ones(3).index_reduce(0, L.tensor([-1]), L.ones(1),
                                                              "prod"),
    "index_reduce dim": lambda L: L.ones(3).index_reduce(1, L.tensor([0]), L.ones(1), "prod"),
    "index_reduce dtypes": lambda L: L.ones(3).index_reduce(0, L.tensor([0]),
                                                            L.ones(1, dtype=L.float64), "prod"),
    "index_reduce shapes": lambda L: L.ones(3, 2).index_reduce(0, L.tensor([0]), L.ones(1, 3),
                                                               "prod"),
    "index_reduce 2-d index": lambda L: L.ones(3).index_reduce(0, L.tensor([[0]]), L.ones(1),
                                                               "prod"),
    # gradient
    "gradient": lambda L: weighted(L, lambda x: L.gradient(x), [[1.0, 2.0, 4.0, 8.0],
                                                                [10.0, 20.0, 40.0, 80.0]]),
    "gradient dim": lambda L: weighted(L, lambda x: L.gradient(x, dim=1, edge_order=2),
                                       [[1.0, 2.0, 4.0, 8.0], [10.0, 20.0, 40.0, 85.0]]),
    "gradient spacing": lambda L: weighted(L, lambda x: L.gradient(x, spacing=[2.0, 3.0]),
                                           [[1.0, 2.0, 4.0], [10.0, 20.0, 45.0]]),
    "gradient 0-d spacing": lambda L: L.gradient(L.tensor([1.0, 2.0, 5.0]),
                                                 spacing=L.tensor(2.0)),
    "gradient coordinates": lambda L: weighted(
        L, lambda x: L.gradient(x, spacing=(L.tensor([0.0, 1.0], dtype=L.float64),
                                            L.tensor([0.0, 1.0, 3.0, 4.5], dtype=L.float64))),
        [[1.0, 2.0, 4.0, 8.0], [10.0, 20.0, 40.0, 80.0]]),
    "gradient coordinates order 2": lambda L: weighted(
        L, lambda x: L.gradient(x, spacing=[L.tensor([0.0, 1.0, 3.0, 4.5], dtype=L.float64)],
                                dim=1, edge_order=2),
        [[1.0, 2.0, 4.0, 8.0], [10.0, -20.0, 40.0, 80.0]]),
    "gradient coordinates float32": lambda L: L.gradient(L.tensor([1.0, 2.0, 4.0]),
                                                         spacing=(L.tensor([0.0, 1.0, 3.0]),)),
    "gradient dims": lambda L: L.gradient(L.tensor([[1.0, 2.0], [4.0, 8.0]]), dim=(1, 0)),
    "gradient int": lambda L: L.gradient(L.tensor([1, 2, 4])),
    "gradient 0-d": lambda L: L.gradient(L.tensor(1.0)),
    "gradient edge_order 3": lambda L: L.gradient(L.ones(4), edge_order=3),
    "gradient too short": lambda L: L.gradient(L.ones(2, 4), edge_order=2),
    "gradient spacing length": lambda L: L.gradient(L.ones(2, 4), spacing=[2.0]),
    "gradient spacing length dim": lambda L: L.gradient(L.ones(2, 4), dim=[0, 1],
                                                        spacing=[2.0]),
    "gradient bad dim": lambda L: L.gradient(L.ones(2, 4), dim=2),
    # as_strided
    "as_strided": lambda L: weighted(L, lambda x: L.as_strided(x, (2, 2), (1, 2)), M),
    "as_strided overlapping": lambda L: weighted(L, lambda x: x.as_strided((3, 2), (1, 1)), M),
    "as_strided offset": lambda L: weighted(L, lambda x: x.as_strided((2, 2), (1, 2), 1), M),
    "as_strided of a slice": lambda L: weighted(L, lambda x: x[1:].as_strided((2,), (1,)), M),
    "as_strided of a slice, offset 0": lambda L: weighted(
        L, lambda x: x.reshape(-1)[2:].as_strided((3,), (1,), 0), M),
    "as_strided of a transpose": lambda L: weighted(
        L, lambda x: x.t().as_strided((2, 2), (1, 3)), M),
    "as_strided 0-d": lambda L: weighted(L, lambda x: x.as_strided([], [], 4), M),
    "as_strided_copy": lambda L: weighted(L, lambda x: L.as_strided_copy(x, (2,), (2,)), M),
    "as_strided out of bounds": lambda L: L.arange(6.0).as_strided((3, 3), (2, 2)),
    "as_strided negative stride": lambda L: L.arange(6.0).as_strided((2,), (-1,)),
    "as_strided lengths": lambda L: L.arange(6.0).as_strided((2, 2), (1,)),
    "as_strided negative offset": lambda L: L.arange(6.0).as_strided((2,), (1,), -1),
    "as_strided int": lambda L: L.arange(6).as_strided((2, 2), (3, 1)),
    # resize_, resize_as_
    "resize_ smaller": lambda L: (lambda x: [x.resize_(2, 2), x.stride(), x._version])(
        L.arange(6.0)),
    "resize_ tuple": lambda L: L.arange(6.0).resize_((3, 2)),
    "resize_ size=": lambda L: L.arange(6.0).resize_(size=[2, 3]),
    "resize_ larger": lambda L: (lambda x: [x.shape, x[:6]])(L.arange(6.0).resize_(8)),
    "resize_ 0-d": lambda L: L.arange(6.0).resize_([]),
    "resize_ requires grad": lambda L: L.ones(2, requires_grad=True).resize_(3),
    "resize_ non-leaf": lambda L: (L.ones(2, requires_grad=True) * 2).resize_(3),
    "resize_ slice": lambda L: (lambda b: [b[2:].resize_(2), b])(L.arange(6.0)),
    "resize_ slice shares": lambda L: (lambda b: [b[1:].resize_(2).fill_(9.0), b])(
        L.arange(6.0)),
    "resize_ slice within storage": lambda L: (lambda b: [b[1:].resize_(5), b])(L.arange(6.0)),
    "resize_ transpose": lambda L: L.arange(6.0).reshape(2, 3).t().resize_(2, 2),
    "resize_ view": lambda L: (lambda b: [b.view(2, 3).resize_(2), b])(L.arange(6.0)),
    "resize_ detached": lambda L: (lambda x: [x.detach().resize_(2), x])(
        L.ones(3, requires_grad=True)),
    "resize_ int": lambda L: L.arange(6).resize_(2, 2),
    "resize_ negative": lambda L: L.arange(6.0).resize_(-1),
    "resize_ float": lambda L: L.arange(6.0).resize_(2.5),
    "resize_ two tuples": lambda L: L.arange(6.0).resize_((2, 3), (3,)),
    "resize_as_": lambda L: (lambda x: [x.resize_as_(L.ones(3, 1)), x._version])(
        L.arange(6.0)),
    "resize_as_ list": lambda L: L.arange(6.0).resize_as_([1]),
    "resize_as_ requires grad": lambda L: L.ones(3).requires_grad_().resize_as_(L.ones(2)),
    # convolution
    "convolution 1d": lambda L: weighted(
        L, lambda x, w, b: L.convolution(x.reshape(1, 2, 3), w.reshape(3, 2, 1), b[0], [1], [1],
                                         [1], False, [0], 1), M, M, M),
    "convolution 2d": lambda L: weighted(
        L, lambda x, w: L.convolution(x.reshape(1, 1, 2, 3), w.reshape(1, 1, 3, 2), None,
                                      (1, 1), (1,), [1, 1], False, [0, 0], 1), M, M),
    "convolution transposed": lambda L: weighted(
        L, lambda x, w: L.convolution(x.reshape(1, 2, 3), w.reshape(2, 3, 1), None, [2], [0],
                                      [1], True, [1], 1), M, M),
    "convolution groups": lambda L: weighted(
        L, lambda x, w: L.convolution(x.reshape(1, 2, 3), w.reshape(2, 1, 3), None, [1], [1],
                                      [2], False, [0], 2), M, M),
    "convolution int stride": lambda L: L.convolution(L.ones(1, 1, 3), L.ones(1, 1, 2), None,
                                                      1, [0], [1], False, [0], 1),
    "convolution unbatched": lambda L: L.convolution(L.ones(1, 3), L.ones(1, 1, 2), None, [1],
                                                     [0], [1], False, [0], 1),
    "convolution stride length": lambda L: L.convolution(L.ones(1, 1, 3), L.ones(1, 1, 2),
                                                         None, [1, 1], [0], [1], False, [0], 1),
    # flags, to_dense, conj_physical, new_empty_strided, nonzero_static
    "not on": lambda L: [getattr(L.ones(2), n) for n in (
        "is_meta", "is_quantized", "is_nested", "is_sparse_csr", "is_mkldnn", "is_mps",
        "is_xpu", "is_xla", "is_ipu", "is_vulkan", "is_maia", "is_mtia")],
    "to_dense": lambda L: (lambda x: [x.to_dense() is x, x.to_dense(masked_grad=True) is x])(
        L.ones(2)),
    "to_dense dtype": lambda L: weighted(L, lambda x: x.float().to_dense(L.float64), M),
    "conj_physical": lambda L: (lambda x: [x.conj_physical() is x, L.conj_physical(x) is x])(
        L.ones(2, requires_grad=True)),
    "conj_physical int": lambda L: L.conj_physical(L.tensor([1, 2])),
    "conj_physical_": lambda L: L.ones(2).conj_physical_(),
    "conj_physical_ leaf": lambda L: L.ones(2, requires_grad=True).conj_physical_(),
    "new_empty_strided": lambda L: (lambda y: [y.shape, y.stride(), y.dtype])(
        L.ones(1, dtype=L.float64).new_empty_strided((2, 3), (1, 2))),
    "new_empty_strided dtype": lambda L: L.ones(1).new_empty_strided(
        [2], [1], dtype=L.int64, requires_grad=False).dtype,
    "nonzero_static": lambda L: L.tensor([0, 1, 0, 2]).nonzero_static(size=4),
    "nonzero_static fewer": lambda L: L.nonzero_static(L.tensor([0, 1, 0, 2]), size=1),
    "nonzero_static fill": lambda L: L.tensor([[0, 1], [2, 0]]).nonzero_static(size=3,
                                                                              fill_value=-5),
    "nonzero_static 0-d": lambda L: L.tensor(3).nonzero_static(size=2),
    "nonzero_static bool": lambda L: L.nonzero_static(L.tensor([True, False]), size=0),
    "nonzero_static negative": lambda L: L.tensor([0, 1]).nonzero_static(size=-1),
    "nonzero_static float fill": lambda L: L.tensor([0.0, 1.5]).nonzero_static(size=2,
                                                                              fill_value=7.5),
    # function forms of methods
    "function forms": lambda L: [L.is_conj(L.ones(2)), L.is_neg(L.ones(2)),
                                 L.is_inference(L.ones(2)), L.get_device(L.ones(2))],
    "resize_as_ function": lambda L: L.resize_as_(L.arange(6.0), L.ones(2)),
    "ldexp_ function": lambda L: L.ldexp_(L.ones(2), L.tensor([1, 2])),
    "is_conj list": lambda L: L.is_conj([1.0]),
    # fill_ with a 0-d tensor
    "fill_ tensor": lambda L: weighted(L, lambda x, v: (x * 1).fill_(v), M, 2.0),
    "fill_ tensor into a plain tensor": lambda L: weighted(
        L, lambda v: L.ones(2, 3, dtype=L.float64).fill_(v), 2.5),
    "fill_ tensor no grad": lambda L: (lambda w: [w.fill_(L.tensor(2.0)), w._version])(
        L.ones(3)),
    "fill_ int tensor": lambda L: L.ones(3).fill_(L.tensor(2)),
    "fill_ 1-d tensor": lambda L: L.ones(3).fill_(L.ones(2)),
    "fill_ tensor leaf": lambda L: L.ones(3, requires_grad=True).fill_(
        L.tensor(2.0, requires_grad=True)),
}


def record_all(L) -> dict:
    return {name: outcome(L, case) for name, case in CASES.items()}


RECORDED = json.loads(DATA.read_text()) if DATA.exists() else {}


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    assert_same(json.loads(json.dumps(outcome(t, CASES[name]))), RECORDED[name])


# ---------------------------------------------------------------- gradients, sympy, wrong rules
def _leaf(data):
    return t.tensor(data, dtype=t.float64, requires_grad=True)


DIFFERENTIABLE = {
    "view_copy": lambda x: t.view_copy(x, [3, 2]) * t.arange(6.0, dtype=t.float64).view(3, 2),
    "permute_copy": lambda x: t.permute_copy(x, [1, 0]).exp(),
    "squeeze_copy": lambda x: t.squeeze_copy(x[None], 0).sin(),
    "expand_copy": lambda x: t.expand_copy(x, [2, 2, 3]).cumsum(0),
    "diagonal_copy": lambda x: t.diagonal_copy(x, 1) ** 2,
    "select_copy": lambda x: t.select_copy(x, 1, 2) ** 3,
    "slice_copy": lambda x: t.slice_copy(x, 1, 0, 3, 2).tanh(),
    "split_copy": lambda x: t.split_copy(x, 2, 1)[0] * t.split_copy(x, 2, 1)[1].sum(),
    "unbind_copy": lambda x: t.unbind_copy(x)[0] * t.unbind_copy(x)[1],
    "unfold_copy": lambda x: t.unfold_copy(x, 1, 2, 1).exp(),
    "alias_copy": lambda x: t.alias_copy(x).sigmoid(),
    "unsafe_split": lambda x: x.unsafe_split(1)[0] * x.unsafe_split(1)[1],
    "unsafe_chunk": lambda x: x.unsafe_chunk(3, 1)[2].exp(),
    "unsafe_split_with_sizes": lambda x: x.unsafe_split_with_sizes([2, 1], 1)[0] ** 2,
    "rsub": lambda x: t.rsub(x, 3.0, alpha=2) * x,
    "rsub tensor": lambda x: t.rsub(x, x.exp(), alpha=0.5),
    "fill": lambda x: t.fill(x, 2.0) * x,
    "fill tensor": lambda x: t.fill(x, x.sum()) * x,
    "fill_ tensor": lambda x: (x * 2).fill_(x[0, 1] ** 2) * x,
    "angle": lambda x: x.angle() * x,
    "nuclear_norm": lambda x: t.nuclear_norm(x, keepdim=True) * x,
    **{f"index_reduce {how}": _index_reduce_function(how)
       for how in ("prod", "mean", "amax", "amin")},
    "frobenius_norm": lambda x: t.frobenius_norm(x, [1]),
    "gradient": lambda x: t.cat(t.gradient(x.repeat(2, 1), edge_order=2, spacing=[1.5, 0.5]),
                                0),
    "as_strided": lambda x: x.as_strided((3, 2), (1, 2)).exp(),
    "as_strided of a slice": lambda x: x[1:].as_strided((2,), (1,), 4) ** 2,
    "gradient coordinates": lambda x: t.gradient(
        x, dim=1, spacing=[t.tensor([0.0, 0.5, 2.0], dtype=t.float64)])[0],
}


NO_CLOSED_FORM = {"nuclear_norm"}  # (singular values: symgrad does not lower them to sympy)


@pytest.mark.filterwarnings("ignore:at::", "ignore:index_reduce")
@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_gradients_match_central_differences(name):
    assert gradcheck(DIFFERENTIABLE[name], (_leaf(M),))


@pytest.mark.filterwarnings("ignore:at::", "ignore:index_reduce")
@pytest.mark.parametrize("name", sorted(set(DIFFERENTIABLE) - NO_CLOSED_FORM))
def test_gradients_match_sympy(name):
    x = _leaf(M)
    t.symbolic.check(DIFFERENTIABLE[name](x).sum(), inputs=[x])  # (raises GradientMismatch)


@pytest.mark.filterwarnings("ignore:at::")
def test_nuclear_norm_is_refused_by_sympy_clearly():
    x = _leaf(M)
    with pytest.raises(NotImplementedError, match="linalg.svdvals has no closed form"):
        t.symbolic.check(t.nuclear_norm(x), inputs=[x])


def test_a_wrong_angle_rule_is_caught(monkeypatch):
    op = t.ops.REGISTRY["angle"]
    monkeypatch.setattr(op, "vjp", (lambda xp, g, ans, a: g,))
    with pytest.raises(Exception, match="(?i)jacobian|mismatch"):
        gradcheck(DIFFERENTIABLE["angle"], (_leaf(M),))
    x = _leaf(M)
    with pytest.raises(t.symbolic.GradientMismatch):
        t.symbolic.check((x.angle() * x).sum(), inputs=[x])


def test_detach_copy_has_no_lowering_to_differentiate():
    x = _leaf(M)
    with pytest.raises(RuntimeError, match="derivative for aten::detach_copy is not implemented"):
        t.autograd.grad(t.detach_copy(x).sum(), x)


def _prod_with_zeros(x, s):
    return x.scatter_reduce(1, t.tensor([[1, 1, 0], [1, 1, 0]]), s, "prod")


ZEROS = ([[1.0, 0.0], [3.0, -1.0]], [[0.0, 3.0, 2.0], [0.0, 0.0, 1.0]])


def test_scatter_reduce_prod_gradient_with_zeros_matches_differences():
    assert gradcheck(_prod_with_zeros, tuple(_leaf(z) for z in ZEROS))
    x, s = (_leaf(z) for z in ZEROS)
    t.symbolic.check(_prod_with_zeros(x, s).sum(), inputs=[x, s])


@pytest.mark.parametrize("which", [0, 1])
def test_a_wrong_prod_rule_is_caught(monkeypatch, which):
    op = t.ops.REGISTRY["scatter_reduce"]
    rules = list(op.vjp)
    rules[which] = _scaled(rules[which], 1.01)
    monkeypatch.setattr(op, "vjp", tuple(rules))
    with pytest.raises(Exception, match="(?i)jacobian|mismatch"):
        gradcheck(_prod_with_zeros, tuple(_leaf(z) for z in ZEROS))
    x, s = (_leaf(z) for z in ZEROS)
    with pytest.raises(t.symbolic.GradientMismatch):
        t.symbolic.check(_prod_with_zeros(x, s).sum(), inputs=[x, s])


def _scaled(rule, factor):
    return lambda *args, **kwargs: rule(*args, **kwargs) * factor
