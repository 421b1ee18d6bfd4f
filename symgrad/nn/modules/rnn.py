"""The recurrent layers ``RNN``, ``LSTM``, ``GRU`` and their cells, with PyTorch's parameter
names and order, gate order, initialisation, outputs and errors.

Each time step is recorded as ordinary ops (``matmul``, ``sigmoid``, ``tanh`` ...), so the
gradients, ``gradcheck`` and ``symbolic.check`` need no rule of their own. The input's
projection ``x W_ihᵀ + b_ih`` is computed for all time steps at once; only ``h W_hhᵀ`` runs
step by step.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np

from symgrad.autograd.graph import named_node
from symgrad.creation import empty, tensor, zeros
from symgrad.nn import functional as F
from symgrad.nn import init
from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.nn.utils.rnn import PackedSequence
from symgrad.numeric import dtypes
from symgrad.tensor import Tensor
from symgrad.torch_api.arithmetic import where
from symgrad.torch_api.shaping import cat, stack

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _affine(x: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    """``x Wᵀ + b``."""
    return F.linear(x, weight, bias)


def _rnn_step(gi: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None,
              relu: bool) -> Tensor:
    """Elman: ``act(gi + h W_hhᵀ + b_hh)``, ``gi = x W_ihᵀ + b_ih``."""
    pre = gi + _affine(h, w_hh, b_hh)
    return pre.relu() if relu else pre.tanh()


def _lstm_step(gi: Tensor, h: Tensor, c: Tensor, w_hh: Tensor, b_hh: Tensor | None,
               w_hr: Tensor | None) -> tuple[Tensor, Tensor]:
    """LSTM with gates in PyTorch's order i, f, g, o; the projection ``h W_hrᵀ`` if given."""
    i, f, g, o = (gi + _affine(h, w_hh, b_hh)).chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    if w_hr is not None:
        h = _affine(h, w_hr, None)
    return h, c


def _gru_step(gi: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """GRU with gates r, z, n: ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))`` and
    ``h' = (1 - z) * n + z * h``, exactly PyTorch's."""
    x_r, x_z, x_n = gi.chunk(3, -1)
    h_r, h_z, h_n = _affine(h, w_hh, b_hh).chunk(3, -1)
    r = (x_r + h_r).sigmoid()
    z = (x_z + h_z).sigmoid()
    n = (x_n + r * h_n).tanh()
    return (1 - z) * n + z * h


def _check_dropout(dropout: Any, num_layers: int) -> None:
    if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) \
            or not 0 <= dropout <= 1:  # type: ignore[operator]
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:  # type: ignore[operator]
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                      "non-zero dropout expects num_layers greater than 1, but got "
                      f"dropout={dropout} and num_layers={num_layers}", stacklevel=4)


def _check_sizes(bias: Any, batch_first: Any, input_size: Any, hidden_size: Any,
                 num_layers: int, proj_size: int) -> None:
    for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                              ("input_size", input_size, int)):
        if not isinstance(value, kind):
            raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                            f"{type(value).__name__}")
    if input_size <= 0:
        raise ValueError("input_size must be greater than zero")
    if not isinstance(hidden_size, int):
        raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable "
                         "projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNNBase(Module):
    """The common part of :class:`RNN`, :class:`LSTM` and :class:`GRU`: the parameters, per
    layer and direction ``weight_ih_l{k}``, ``weight_hh_l{k}``, ``bias_ih_l{k}``,
    ``bias_hh_l{k}`` (and ``weight_hr_l{k}`` with ``proj_size``; ``_reverse`` for the second
    direction), all drawn from U(-1/√hidden_size, 1/√hidden_size).

    >>> lstm = symgrad.nn.LSTM(3, 4, bidirectional=True)
    >>> [name for name, _ in lstm.named_parameters()][:5]
    ['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0', 'weight_ih_l0_reverse']
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: dtypes.dtype | None = None) -> None:
        super().__init__()
        _check_dropout(dropout, num_layers)
        _check_sizes(bias, batch_first, input_size, hidden_size, num_layers, proj_size)
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        directions = 2 if bidirectional else 1
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * directions
            for direction in range(directions):
                shapes = [("weight_ih_l{}{}", (gate_size, layer_input)),
                          ("weight_hh_l{}{}", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr_l{}{}", (proj_size, hidden_size))]
                suffix = "_reverse" if direction == 1 else ""
                names = [name.format(layer, suffix) for name, _ in shapes]
                for name, (_, shape) in zip(names, shapes, strict=True):
                    setattr(self, name, Parameter(empty(shape, dtype=dtype, device=device)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Redraw every parameter from U(-1/√hidden_size, 1/√hidden_size).

        >>> rnn = symgrad.nn.RNN(2, 4)
        >>> rnn.reset_parameters()
        >>> bool((rnn.weight_hh_l0.abs() <= 0.5).all())
        True
        """
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """Nothing to do: PyTorch packs the weights for cuDNN here.

        >>> symgrad.nn.GRU(2, 3).flatten_parameters()
        """

    @property
    def _flat_weights(self) -> list[Tensor | None]:
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters, one list per layer and direction, in PyTorch's order.

        >>> [len(ws) for ws in symgrad.nn.LSTM(2, 3, num_layers=2).all_weights]
        [4, 4]
        """
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.LSTM(3, 4, num_layers=2, batch_first=True)
        LSTM(3, 4, num_layers=2, batch_first=True)
        """
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # ---- forward -------------------------------------------------------------------------

    def _check_input(self, input: Tensor, packed: bool) -> None:  # noqa: A002
        weight = self._flat_weights[0]
        if weight is not None and input.dtype != weight.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight.dtype}). Convert input: input.to({weight.dtype}), or "
                             f"convert model: model.to({input.dtype})")
        expected = 2 if packed else 3
        if input.ndim != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.ndim}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")

    def _hidden_shape(self, batch: int, cell: bool = False) -> tuple[int, int, int]:
        size = self.proj_size if self.proj_size > 0 and not cell else self.hidden_size
        return (self.num_layers * (2 if self.bidirectional else 1), batch, size)

    @staticmethod
    def _check_hidden(hx: Tensor, expected: tuple[int, int, int],
                      msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(msg.format(expected, list(hx.shape)))

    def _prepare(self, input: Any, hx: Any, lstm: bool) -> tuple:  # noqa: A002
        """Checks PyTorch's way; returns the time-major input, the initial states (a tuple
        of one or two (layers*dirs, B, H) tensors), the lengths (packed input) and how to
        give the result back."""
        name = "LSTM" if lstm else ("GRU" if self.mode == "GRU" else "RNN")
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            self._check_input(data, packed=True)
            sizes = np.asarray(batch_sizes._value, dtype=np.int64)
            lengths = (sizes[None, :] > np.arange(int(sizes[0]))[:, None]).sum(1)
            steps = _unpack(data, sizes)
            states = self._initial(hx, int(sizes[0]), data, lstm, batched=True,
                                   permutation=sorted_indices)
            return steps, states, lengths, ("packed", input)
        if input.ndim not in (2, 3):
            got = f"{input.ndim}D instead" if lstm else f"{input.ndim}D tensor instead"
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {got}")
        batched = input.ndim == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
        if self.batch_first:
            input = input.transpose(0, 1)
        self._check_input(input, packed=False)
        states = self._initial(hx, input.shape[1], input, lstm, batched)
        return input, states, None, ("batched" if batched else "unbatched", None)

    def _initial(self, hx: Any, batch: int, like: Tensor, lstm: bool, batched: bool,
                 permutation: Tensor | None = None) -> tuple[Tensor, ...]:
        expected_h = self._hidden_shape(batch)
        if hx is None:
            h0 = zeros(expected_h, dtype=like.dtype)
            if not lstm:
                return (h0,)
            return h0, zeros(self._hidden_shape(batch, cell=True), dtype=like.dtype)
        if lstm:
            h, c = hx
            if batched and (h.ndim != 3 or c.ndim != 3):
                raise RuntimeError(f"For batched 3-D input, hx and cx should also be 3-D but got "
                                   f"({h.ndim}-D, {c.ndim}-D) tensors")
            if not batched and (h.ndim != 2 or c.ndim != 2):
                raise RuntimeError(f"For unbatched 2-D input, hx and cx should also be 2-D but "
                                   f"got ({h.ndim}-D, {c.ndim}-D) tensors")
            if not batched:
                h, c = h.unsqueeze(1), c.unsqueeze(1)
            self._check_hidden(h, expected_h, "Expected hidden[0] size {}, got {}")
            self._check_hidden(c, self._hidden_shape(batch, cell=True),
                               "Expected hidden[1] size {}, got {}")
            states: tuple[Tensor, ...] = (h, c)
        else:
            if batched and hx.ndim != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                                   f"{hx.ndim}-D tensor")
            if not batched and hx.ndim != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got "
                                   f"{hx.ndim}-D tensor")
            h = hx if batched else hx.unsqueeze(1)
            self._check_hidden(h, expected_h)
            states = (h,)
        if permutation is not None:
            states = tuple(s.index_select(1, permutation) for s in states)
        return states

    def _run(self, input: Any, hx: Any, lstm: bool) -> tuple[Any, Any]:  # noqa: A002
        x, states, lengths, (kind, packed) = self._prepare(input, hx, lstm)
        directions = 2 if self.bidirectional else 1
        weights = self.all_weights
        finals: list[list[Tensor]] = [[] for _ in states]
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                k = layer * directions + direction
                out, last = self._direction(x, tuple(s[k] for s in states), weights[k],
                                            reverse=direction == 1, lengths=lengths)
                outputs.append(out)
                for store, value in zip(finals, last, strict=True):
                    store.append(value)
            x = outputs[0] if directions == 1 else cat(outputs, -1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        hidden = tuple(stack(store, 0) for store in finals)
        if kind == "packed":
            sizes = np.asarray(packed.batch_sizes._value, dtype=np.int64)
            output: Any = packed._replace(data=cat([x[t, :int(n)] for t, n in enumerate(sizes)]))
            if packed.unsorted_indices is not None:
                hidden = tuple(h.index_select(1, packed.unsorted_indices) for h in hidden)
        else:
            output = x.transpose(0, 1) if self.batch_first else x
            if self.batch_first and not lstm:  # (PyTorch transposes RNN and GRU in place)
                output = named_node(output, "TransposeBackward1")
            if kind == "unbatched":
                output = output.squeeze(0 if self.batch_first else 1)
                hidden = tuple(h.squeeze(1) for h in hidden)
        return output, (hidden if lstm else hidden[0])

    def _direction(self, x: Tensor, state: tuple[Tensor, ...], weights: list[Parameter],
                   reverse: bool, lengths: np.ndarray | None) -> tuple[Tensor, tuple]:
        """One layer in one direction over the time-major ``x`` (T, B, I): the outputs
        (T, B, H) and the final states. With ``lengths`` (a packed batch) each sequence stops
        at its length, and runs backwards from it in the reverse direction."""
        w_ih, w_hh = weights[0], weights[1]
        b_ih, b_hh = (weights[2], weights[3]) if self.bias else (None, None)
        w_hr = weights[-1] if self.proj_size > 0 else None
        steps = x.shape[0]
        order = None
        if reverse and lengths is not None:
            t = np.arange(steps)[:, None]
            order = np.where(t < lengths[None, :], lengths[None, :] - 1 - t, t)
            x = x.gather(0, _index(order, x.shape))
        elif reverse:
            x = x.flip(0)
        gi = _affine(x, w_ih, b_ih)
        outputs = []
        for t in range(steps):
            if self.mode == "LSTM":
                new: tuple = _lstm_step(gi[t], state[0], state[1], w_hh, b_hh, w_hr)
            elif self.mode == "GRU":
                new = (_gru_step(gi[t], state[0], w_hh, b_hh),)
            else:
                new = (_rnn_step(gi[t], state[0], w_hh, b_hh, self.mode == "RNN_RELU"),)
            if lengths is not None and (lengths <= t).any():
                running = tensor((lengths > t)[:, None])
                new = tuple(where(running, n, s) for n, s in zip(new, state, strict=True))
            state = new
            outputs.append(state[0])
        out = stack(outputs, 0)
        if order is not None:
            out = out.gather(0, _index(order, out.shape))
        elif reverse:
            out = out.flip(0)
        return out, state


def _index(order: np.ndarray, shape: Any) -> Tensor:
    """``order`` (T, B) broadcast over the feature dim, for ``gather(0, ...)`` (an involution:
    the same index puts the steps back)."""
    return tensor(np.ascontiguousarray(np.broadcast_to(order[:, :, None], tuple(shape))),
                  dtype=dtypes.int64)


def _unpack(data: Tensor, batch_sizes: np.ndarray) -> Tensor:
    """The packed ``data`` as a padded time-major (T, B, *) tensor, zeros after each end."""
    batch = int(batch_sizes[0])
    rows, start = [], 0
    for n in batch_sizes.tolist():
        row = data[start:start + n]
        start += n
        if n < batch:
            row = cat([row, data.new_zeros((batch - n, *data.shape[1:]))])
        rows.append(row)
    return stack(rows, 0)


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ihᵀ + b_ih + h_{t-1} W_hhᵀ + b_hh)`` (``relu`` with
    ``nonlinearity='relu'``); returns ``(output, h_n)``.

    >>> rnn = symgrad.nn.RNN(3, 5, num_layers=2)
    >>> out, h = rnn(symgrad.zeros(7, 2, 3))
    >>> out.shape, h.shape
    (symgrad.Size([7, 2, 5]), symgrad.Size([2, 2, 5]))
    >>> rnn(symgrad.zeros(7, 2, 4))
    Traceback (most recent call last):
        ...
    RuntimeError: input.size(-1) must be equal to input_size. Expected 3, got 4
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' "
                             f"or 'relu'.")
        super().__init__(mode, *args, **kwargs)
        self.nonlinearity = nonlinearity

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, Tensor]:  # noqa: A002
        """``(output, h_n)``: the last layer's hidden states at every step (both directions
        concatenated) and every layer's last hidden state.

        >>> rnn = symgrad.nn.RNN(1, 1, bias=False)
        >>> with symgrad.no_grad():
        ...     _ = rnn.weight_ih_l0.fill_(1.0), rnn.weight_hh_l0.fill_(0.0)
        >>> rnn(symgrad.tensor([[0.0], [1.0]]))[0]
        tensor([[0.0000],
                [0.7616]], grad_fn=<SqueezeBackward1>)
        """
        return self._run(input, hx, lstm=False)


class LSTM(RNNBase):
    """Long short-term memory, gates i, f, g, o (PyTorch's order):
    ``c_t = f * c_{t-1} + i * g``, ``h_t = o * tanh(c_t)`` (then ``h_t W_hrᵀ`` with
    ``proj_size``); returns ``(output, (h_n, c_n))``.

    >>> lstm = symgrad.nn.LSTM(3, 5, proj_size=2)
    >>> out, (h, c) = lstm(symgrad.zeros(7, 3))
    >>> out.shape, h.shape, c.shape
    (symgrad.Size([7, 2]), symgrad.Size([1, 2]), symgrad.Size([1, 5]))
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input: Any,  # noqa: A002
                hx: tuple[Tensor, Tensor] | None = None) -> tuple[Any, tuple[Tensor, Tensor]]:
        """``(output, (h_n, c_n))``.

        >>> lstm = symgrad.nn.LSTM(2, 3, batch_first=True)
        >>> out, (h, c) = lstm(symgrad.zeros(4, 6, 2))
        >>> out.shape, h.shape
        (symgrad.Size([4, 6, 3]), symgrad.Size([1, 4, 3]))
        """
        return self._run(input, hx, lstm=True)


class GRU(RNNBase):
    """Gated recurrent unit, gates r, z, n (PyTorch's order and formula:
    ``n = tanh(x W_inᵀ + b_in + r * (h W_hnᵀ + b_hn))``, ``h' = (1 - z) * n + z * h``);
    returns ``(output, h_n)``.

    >>> gru = symgrad.nn.GRU(3, 4, bidirectional=True)
    >>> out, h = gru(symgrad.zeros(5, 2, 3))
    >>> out.shape, h.shape
    (symgrad.Size([5, 2, 8]), symgrad.Size([2, 2, 4]))
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, Tensor]:  # noqa: A002
        """``(output, h_n)``.

        >>> gru = symgrad.nn.GRU(2, 3)
        >>> gru(symgrad.zeros(4, 2), symgrad.zeros(1, 3))[1].shape
        symgrad.Size([1, 3])
        """
        return self._run(input, hx, lstm=False)


# ---- cells ---------------------------------------------------------------------------------


class RNNCellBase(Module):
    """The common part of the cells: ``weight_ih`` (chunks*hidden, input), ``weight_hh``
    (chunks*hidden, hidden), ``bias_ih`` and ``bias_hh``, from U(±1/√hidden_size).

    >>> [name for name, _ in symgrad.nn.GRUCell(2, 3).named_parameters()]
    ['weight_ih', 'weight_hh', 'bias_ih', 'bias_hh']
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device: Any = None, dtype: dtypes.dtype | None = None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        rows = num_chunks * hidden_size
        self.weight_ih = Parameter(empty((rows, input_size), dtype=dtype, device=device))
        self.weight_hh = Parameter(empty((rows, hidden_size), dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(empty(rows, dtype=dtype, device=device))
            self.bias_hh = Parameter(empty(rows, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        """PyTorch's text between the parentheses of the repr.

        >>> symgrad.nn.RNNCell(3, 4, nonlinearity="relu")
        RNNCell(3, 4, nonlinearity=relu)
        """
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        """Redraw every parameter from U(-1/√hidden_size, 1/√hidden_size).

        >>> cell = symgrad.nn.LSTMCell(2, 4)
        >>> cell.reset_parameters()
        >>> bool((cell.weight_ih.abs() <= 0.5).all())
        True
        """
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, name: str, input: Tensor,  # noqa: A002
                 hidden: tuple[Tensor | None, ...], what: tuple[str, ...]) -> tuple:
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        for label, h in zip(what, hidden, strict=True):
            if h is not None and h.ndim not in (1, 2):
                raise ValueError(f"{name}: Expected {label} to be 1D or 2D, got {h.ndim}D "
                                 f"instead")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
            hidden = tuple(None if h is None else h.unsqueeze(0) for h in hidden)
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} "
                               f"expected {self.input_size}")
        states = []
        for k, h in enumerate(hidden):
            if h is None:
                h = zeros((input.shape[0], self.hidden_size), dtype=input.dtype)
            elif h.shape[0] != input.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{k} "
                                   f"batch size {h.shape[0]}")
            elif h.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {h.shape[1]}, "
                                   f"expected {self.hidden_size}")
            states.append(h)
        return batched, _affine(input, self.weight_ih, self.bias_ih), states


class RNNCell(RNNCellBase):
    """One Elman step ``h' = tanh(x W_ihᵀ + b_ih + h W_hhᵀ + b_hh)`` (or ``relu``).

    >>> cell = symgrad.nn.RNNCell(3, 2)
    >>> cell(symgrad.zeros(4, 3)).shape
    symgrad.Size([4, 2])
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Any = None,
                 dtype: dtypes.dtype | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        """The next hidden state.

        >>> symgrad.nn.RNNCell(2, 3)(symgrad.zeros(2)).shape
        symgrad.Size([3])
        """
        batched, gi, (h,) = self._batched("RNNCell", input, (hx,), ("hidden",))
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        h = _rnn_step(gi, h, self.weight_hh, self.bias_hh, self.nonlinearity == "relu")
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step (gates i, f, g, o); returns ``(h', c')``.

    >>> h, c = symgrad.nn.LSTMCell(3, 2)(symgrad.zeros(4, 3))
    >>> h.shape, c.shape
    (symgrad.Size([4, 2]), symgrad.Size([4, 2]))
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: dtypes.dtype | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input: Tensor,  # noqa: A002
                hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        """The next ``(h, c)``.

        >>> cell = symgrad.nn.LSTMCell(1, 1)
        >>> cell(symgrad.zeros(1, 1), (symgrad.zeros(2, 1), symgrad.zeros(2, 1)))
        Traceback (most recent call last):
            ...
        RuntimeError: Input batch size 1 doesn't match hidden0 batch size 2
        """
        hidden = (None, None) if hx is None else tuple(hx)
        batched, gi, (h, c) = self._batched("LSTMCell", input, hidden, ("hx[0]", "hx[1]"))
        h, c = _lstm_step(gi, h, c, self.weight_hh, self.bias_hh, None)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step (gates r, z, n, PyTorch's formula).

    >>> symgrad.nn.GRUCell(3, 2)(symgrad.zeros(4, 3)).shape
    symgrad.Size([4, 2])
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: dtypes.dtype | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        """The next hidden state.

        >>> symgrad.nn.GRUCell(2, 3)(symgrad.zeros(2), symgrad.zeros(3)).shape
        symgrad.Size([3])
        """
        batched, gi, (h,) = self._batched("GRUCell", input, (hx,), ("hidden",))
        h = _gru_step(gi, h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
