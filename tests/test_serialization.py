"""symgrad.save / symgrad.load: round trips, and files that would need unpickling refused."""

from __future__ import annotations

import io
import pickle
import zipfile
from collections import Counter, OrderedDict

import numpy as np
import pytest

import symgrad
from symgrad import nn


def _round_trip(obj):
    buffer = io.BytesIO()
    symgrad.save(obj, buffer)
    buffer.seek(0)
    return symgrad.load(buffer)


def test_tensors_keep_values_dtypes_and_flags():
    data = {
        "f32": symgrad.tensor([[1.5, -2.0]]),
        "f64": symgrad.tensor(3.25, dtype=symgrad.float64),
        "i64": symgrad.tensor([1, 2, 3]),
        "bool": symgrad.tensor([True, False]),
        "grad": symgrad.ones(2, requires_grad=True),
        "param": nn.Parameter(symgrad.zeros(1)),
    }
    back = _round_trip(data)
    assert list(back) == list(data)
    for key, value in data.items():
        assert back[key].dtype is value.dtype and back[key].shape == value.shape, key
        assert symgrad.equal(back[key].detach(), value.detach()), key
    assert back["grad"].requires_grad and not back["f32"].requires_grad
    assert isinstance(back["param"], nn.Parameter)


def test_structure_round_trip():
    shared = symgrad.ones(2)
    obj = [1, 2.5, float("inf"), "text", None, True, (1, (2,)), {1: "int key"},
           OrderedDict(a=shared, b=shared), Counter([3, 3, 5])]
    back = _round_trip(obj)
    assert back[:6] == obj[:6] and back[6] == (1, (2,)) and back[7] == {1: "int key"}
    assert isinstance(back[8], OrderedDict) and back[8]["a"] is back[8]["b"]
    assert back[9] == Counter([3, 3, 5]) and isinstance(back[9], Counter)


def test_model_and_optimizer_state_round_trip(tmp_path):
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    opt = symgrad.optim.Adam(net.parameters(), lr=0.01)
    net(symgrad.randn(5, 3)).sum().backward()
    opt.step()
    path = tmp_path / "checkpoint.sg"
    symgrad.save({"model": net.state_dict(), "optim": opt.state_dict()}, path)
    assert path.exists() and not (tmp_path / "checkpoint.sg.npz").exists()
    checkpoint = symgrad.load(str(path))
    twin = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    twin.load_state_dict(checkpoint["model"])
    x = symgrad.randn(2, 3)
    assert symgrad.equal(twin(x), net(x))
    opt2 = symgrad.optim.Adam(twin.parameters())
    opt2.load_state_dict(checkpoint["optim"])
    assert opt2.param_groups[0]["lr"] == 0.01
    assert repr(opt2.state[twin[0].weight]["step"]) == "tensor(1.)"


def test_a_pickle_is_refused_without_being_unpickled():
    class Boom:
        def __reduce__(self):
            return (exec, ("raise SystemExit('unpickled!')",))

    with pytest.raises(pickle.UnpicklingError, match="would need unpickling"):
        symgrad.load(io.BytesIO(pickle.dumps(Boom())))


def test_an_npz_with_object_arrays_or_without_structure_is_refused():
    buffer = io.BytesIO()
    np.savez(buffer, structure=np.array([{"a": 1}], dtype=object))
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="symgrad.load refused the file"):
        symgrad.load(buffer)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:  # the layout of a torch.save file
        archive.writestr("archive/data.pkl", pickle.dumps({"a": 1}))
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="holds no symgrad structure"):
        symgrad.load(buffer)


def test_unsupported_objects_are_refused_at_save():
    with pytest.raises(TypeError, match="symgrad.save cannot store object objects"):
        symgrad.save({"x": object()}, io.BytesIO())
    with pytest.raises(TypeError, match="cannot store Linear objects"):
        symgrad.save(nn.Linear(1, 1), io.BytesIO())


def test_map_location_may_only_name_the_cpu():
    buffer = io.BytesIO()
    symgrad.save([symgrad.ones(1)], buffer)
    buffer.seek(0)
    assert symgrad.load(buffer, map_location="cpu")[0].tolist() == [1.0]
    buffer.seek(0)
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        symgrad.load(buffer, map_location="cuda")
