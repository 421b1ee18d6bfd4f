"""``symgrad.Generator`` and the ``generator=`` argument of every random function, method,
initialiser and sampler: PyTorch's facts about generators (seeds, identities, node names,
dtypes) and its refusals (type and first sentence), recorded from PyTorch 2.13 by
``python tools/record_torch_cases.py tests/test_generators.py`` into
``tests/data/torch_generators.json``; this module never imports torch. The numbers themselves
are numpy's (another stream than PyTorch's), so they are checked for what a stream must give:
the same numbers for the same seed, streams that do not move each other, the distributions.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from torch_cases import first_sentence

import symgrad as t

DATA = pathlib.Path(__file__).parent / "data" / "torch_generators.json"


def _init(name, shape=(3, 4)):
    return lambda L: getattr(L.nn.init, name)(L.empty(*shape), generator=5)


def _method(name, *args):
    return lambda L: getattr(L.empty(3), name)(*args, generator=5)


# name -> f(L): each refused by PyTorch
ERRORS = {
    "randn a wrong generator": lambda L: L.randn(2, generator=5),
    "rand a str generator": lambda L: L.rand(2, generator="x"),
    "randint(high, size)": lambda L: L.randint(3, (2,), generator=5),
    "randint(low, high, size)": lambda L: L.randint(0, 3, (2,), generator=5),
    "randperm": lambda L: L.randperm(3, generator=5),
    "rand_like": lambda L: L.rand_like(L.ones(2), generator=5),
    "randn_like": lambda L: L.randn_like(L.ones(2), generator=5),
    "randint_like": lambda L: L.randint_like(L.ones(2), 3, generator=5),
    "normal of tensors": lambda L: L.normal(L.ones(3), 1.0, generator=5),
    "normal of numbers": lambda L: L.normal(0.0, 1.0, (2,), generator=5),
    "bernoulli": lambda L: L.bernoulli(L.ones(3) / 2, generator=5),
    "bernoulli with p": lambda L: L.bernoulli(L.ones(3), 0.5, generator=5),
    "poisson": lambda L: L.poisson(L.ones(3), generator=5),
    "multinomial": lambda L: L.multinomial(L.ones(3), 2, generator=5),
    "Tensor.multinomial": lambda L: L.ones(3).multinomial(2, generator=5),
    "uniform_": _method("uniform_"),
    "normal_": _method("normal_"),
    "bernoulli_": _method("bernoulli_"),
    "exponential_": _method("exponential_"),
    "random_": _method("random_", 0, 5),
    "random_(to)": _method("random_", 5),
    "random_()": _method("random_"),
    "bernoulli_(p)": _method("bernoulli_", 0.3),
    "cauchy_": _method("cauchy_"),
    "log_normal_": _method("log_normal_"),
    "geometric_": _method("geometric_", 0.5),
    "init.uniform_": _init("uniform_"),
    "init.normal_": _init("normal_"),
    "init.trunc_normal_": _init("trunc_normal_"),
    "init.kaiming_uniform_": _init("kaiming_uniform_"),
    "init.kaiming_normal_": _init("kaiming_normal_"),
    "init.xavier_uniform_": _init("xavier_uniform_"),
    "init.xavier_normal_": _init("xavier_normal_"),
    "init.orthogonal_": _init("orthogonal_"),
    "init.sparse_": lambda L: L.nn.init.sparse_(L.empty(3, 4), 0.5, generator=5),
    "random_split": lambda L: L.utils.data.random_split(range(4), [2, 2], generator=5),
    "RandomSampler": lambda L: list(L.utils.data.RandomSampler(range(4), generator=5)),
    "SubsetRandomSampler": lambda L: list(L.utils.data.SubsetRandomSampler([1, 2],
                                                                            generator=5)),
    "WeightedRandomSampler": lambda L: list(L.utils.data.WeightedRandomSampler(
        [1.0, 1.0], 2, generator=5)),
    "DataLoader shuffled": lambda L: list(L.utils.data.DataLoader(range(4), shuffle=True,
                                                                  generator=5)),
    "Generator on cuda": lambda L: L.Generator("cuda"),
    "Generator on meta": lambda L: L.Generator("meta"),
    "Generator on mps": lambda L: L.Generator("mps"),
    "Generator of an index": lambda L: L.Generator(5),
    "Generator.manual_seed a float": lambda L: L.Generator().manual_seed(1.5),
    "Generator.manual_seed a str": lambda L: L.Generator().manual_seed("3"),
    "Generator.manual_seed a bool": lambda L: L.Generator().manual_seed(True),
    "Generator.manual_seed 2**64": lambda L: L.Generator().manual_seed(2 ** 64),
    "Generator.manual_seed below int64": lambda L: L.Generator().manual_seed(-2 ** 63 - 1),
    "manual_seed 2**64": lambda L: L.manual_seed(2 ** 64),
    "manual_seed below int64": lambda L: L.manual_seed(-2 ** 63 - 1),
    "get_offset": lambda L: L.Generator().get_offset(),
    "set_offset": lambda L: L.Generator().set_offset(0),
    "fork_rng of a device": lambda L: L.random.fork_rng(devices=[0]).__enter__(),
    "cauchy_ of int64": lambda L: L.ones(3, dtype=L.long).cauchy_(),
    "cauchy_ of bool": lambda L: L.ones(3, dtype=L.bool).cauchy_(),
    "cauchy_ sigma 0": lambda L: L.ones(3).cauchy_(sigma=0.0),
    "cauchy_ sigma -1": lambda L: L.ones(3).cauchy_(sigma=-1),
    "cauchy_ sigma nan": lambda L: L.ones(3).cauchy_(sigma=float("nan")),
    "cauchy_ a str": lambda L: L.ones(3).cauchy_("a"),
    "log_normal_ of int64": lambda L: L.ones(3, dtype=L.long).log_normal_(),
    "log_normal_ of bool": lambda L: L.ones(3, dtype=L.bool).log_normal_(),
    "log_normal_ std 0": lambda L: L.ones(3).log_normal_(std=0.0),
    "log_normal_ std nan": lambda L: L.ones(3).log_normal_(std=float("nan")),
    "log_normal_ a str": lambda L: L.ones(3).log_normal_("a"),
    "geometric_ of bool": lambda L: L.ones(3, dtype=L.bool).geometric_(0.5),
    "geometric_ p 0": lambda L: L.ones(3).geometric_(0.0),
    "geometric_ p 1": lambda L: L.ones(3).geometric_(1),
    "geometric_ p 1.5": lambda L: L.ones(3).geometric_(1.5),
    "geometric_ p nan": lambda L: L.ones(3).geometric_(float("nan")),
    "geometric_ a str": lambda L: L.ones(3).geometric_("a"),
    "uniform_ a str": lambda L: L.ones(3).uniform_("a"),
    "uniform_ from > to": lambda L: L.ones(3).uniform_(2.0, 1.0),
    "normal_ a str": lambda L: L.ones(3).normal_("a"),
    "normal_ std -1.0": lambda L: L.ones(3).normal_(0, -1.0),
    "exponential_ a str": lambda L: L.ones(3).exponential_("a"),
    "exponential_ lambda 0.0": lambda L: L.ones(3).exponential_(0.0),
}


def _same_draws(L, draw):
    g = L.Generator().manual_seed(4)
    first = draw(L, g)
    g.manual_seed(4)
    return bool(L.equal(first, draw(L, g)))


def _global_unmoved(L):
    L.manual_seed(2)
    expected = L.rand(3)
    L.manual_seed(2)
    L.randn(5, generator=L.Generator())
    return bool(L.equal(expected, L.rand(3)))


def _node(L, fill, *args):
    x = L.ones(3, requires_grad=True).clone()
    return getattr(x, fill)(*args).grad_fn.name()


def _state_round_trip(L, g):
    state = g.get_state()
    first = L.rand(3, generator=g)
    return bool(L.equal(first, L.rand(3, generator=g.set_state(state))))


def _clone_state(L):
    g = L.Generator().manual_seed(9)
    L.rand(2, generator=g)
    twin = g.clone_state()
    return [twin is g, twin.initial_seed(), bool(L.equal(L.rand(3, generator=g),
                                                         L.rand(3, generator=twin)))]


def _forked(L):
    L.manual_seed(1)
    with L.random.fork_rng():
        L.rand(4)
    after = L.rand(2)
    L.manual_seed(1)
    return bool(L.equal(after, L.rand(2)))


# name -> f(L): a fact PyTorch gives (a Python value)
FACTS = {
    "a new Generator's seed": lambda L: L.Generator().initial_seed(),
    "its device": lambda L: str(L.Generator().device),
    "a device object": lambda L: str(L.Generator(L.device("cpu")).device),
    "manual_seed returns the generator": lambda L: (lambda g: g.manual_seed(3) is g)(
        L.Generator()),
    "manual_seed returns default_generator": lambda L: L.manual_seed(3) is L.default_generator,
    "a negative seed": lambda L: L.Generator().manual_seed(-5).initial_seed(),
    "the largest seed": lambda L: L.Generator().manual_seed(2 ** 64 - 1).initial_seed(),
    "a negative global seed": lambda L: L.manual_seed(-5).initial_seed(),
    "a float global seed": lambda L: L.manual_seed(1.5).initial_seed(),
    "a str global seed": lambda L: L.manual_seed("3").initial_seed(),
    "initial_seed after manual_seed": lambda L: (L.manual_seed(11), L.initial_seed())[1],
    "default_generator's seed": lambda L: (L.manual_seed(12),
                                           L.default_generator.initial_seed())[1],
    "default_generator.manual_seed": lambda L: (L.default_generator.manual_seed(13),
                                                L.initial_seed())[1],
    "seed() is the new initial seed": lambda L: (lambda g: g.seed() == g.initial_seed())(
        L.Generator()),
    "set_state returns the generator": lambda L: (lambda g: g.set_state(g.get_state()) is g)(
        L.Generator()),
    "get_state and set_state": lambda L: _state_round_trip(L, L.Generator().manual_seed(1)),
    "the global state through default_generator": lambda L: _state_round_trip(
        L, L.default_generator),
    "clone_state": _clone_state,
    "draws with a generator leave the global stream": _global_unmoved,
    "fork_rng puts the stream back": _forked,
    "randn repeats": lambda L: _same_draws(L, lambda L, g: L.randn(2, 3, generator=g)),
    "rand repeats": lambda L: _same_draws(L, lambda L, g: L.rand(4, generator=g,
                                                                 dtype=L.float64)),
    "randint repeats": lambda L: _same_draws(L, lambda L, g: L.randint(0, 100, (5,),
                                                                       generator=g)),
    "randperm repeats": lambda L: _same_draws(L, lambda L, g: L.randperm(9, generator=g)),
    "rand_like repeats": lambda L: _same_draws(L, lambda L, g: L.rand_like(L.ones(3),
                                                                           generator=g)),
    "normal repeats": lambda L: _same_draws(L, lambda L, g: L.normal(0.0, 2.0, (3,),
                                                                     generator=g)),
    "multinomial repeats": lambda L: _same_draws(L, lambda L, g: L.multinomial(
        L.tensor([1.0, 2.0, 3.0, 4.0]), 3, generator=g)),
    "uniform_ repeats": lambda L: _same_draws(L, lambda L, g: L.empty(5).uniform_(
        generator=g)),
    "cauchy_ repeats": lambda L: _same_draws(L, lambda L, g: L.empty(5).cauchy_(generator=g)),
    "init.kaiming_uniform_ repeats": lambda L: _same_draws(
        L, lambda L, g: L.nn.init.kaiming_uniform_(L.empty(3, 4), generator=g)),
    "cauchy_'s node": lambda L: _node(L, "cauchy_"),
    "log_normal_'s node": lambda L: _node(L, "log_normal_"),
    "geometric_'s node": lambda L: _node(L, "geometric_", 0.5),
    "geometric_ keeps int64": lambda L: repr(L.zeros(3, dtype=L.long).geometric_(0.5).dtype)[
        len(L.__name__):],
    "geometric_ counts trials": lambda L: bool((L.zeros(100).geometric_(0.5) >= 1).all()),
    "cauchy_ with a tiny sigma": lambda L: L.ones(3).cauchy_(sigma=1e-320).abs().max().item(),
}

KNOWN_GAPS: dict[str, str] = {}


def _outcome(f, L):
    try:
        value = f(L)
    except Exception as e:  # noqa: BLE001 - the outcome is what is recorded
        kind, text = first_sentence(e)
        return ["error", kind, text.split(" (symgrad computes on the CPU only")[0]]
    if hasattr(value, "name") and callable(value.name):
        value = value.name()
    return ["value", value if isinstance(value, bool | int | float | str | list) else
            type(value).__name__]


def record_all(L) -> dict:
    return {name: _outcome(f, L) for name, f in {**ERRORS, **FACTS}.items()}


RECORDED = json.loads(DATA.read_text()) if DATA.exists() else {}


def test_every_case_is_recorded():
    assert set(RECORDED) == set(ERRORS) | set(FACTS)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_refused_as_pytorch_refuses(name):
    expected = RECORDED[name]
    assert expected[0] == "error", f"PyTorch accepted {name}"
    assert _outcome(ERRORS[name], t) == expected


@pytest.mark.parametrize("name", sorted(FACTS))
def test_the_facts_pytorch_gives(name):
    assert _outcome(FACTS[name], t) == RECORDED[name]


# ------------------------------------------------------------- what only symgrad can tell


def _draws(g):
    """One draw from every function and method that takes a generator."""
    data = t.utils.data
    return [
        t.rand(3, generator=g), t.randn(3, generator=g), t.randint(0, 9, (3,), generator=g),
        t.randperm(5, generator=g), t.rand_like(t.ones(2), generator=g),
        t.randn_like(t.ones(2), generator=g), t.randint_like(t.ones(2), 5, generator=g),
        t.normal(t.zeros(3), 1.0, generator=g), t.normal(0.0, 1.0, (3,), generator=g),
        t.bernoulli(t.full((4,), 0.5), generator=g), t.poisson(t.full((3,), 4.0), generator=g),
        t.multinomial(t.ones(5), 3, generator=g), t.empty(3).uniform_(generator=g),
        t.empty(3).normal_(generator=g), t.empty(3).bernoulli_(generator=g),
        t.empty(3).exponential_(generator=g), t.empty(3).random_(0, 50, generator=g),
        t.empty(3).cauchy_(generator=g), t.empty(3).log_normal_(generator=g),
        t.empty(3).geometric_(0.3, generator=g),
        *(getattr(t.nn.init, name)(t.empty(3, 4), generator=g) for name in (
            "uniform_", "normal_", "trunc_normal_", "kaiming_uniform_", "kaiming_normal_",
            "xavier_uniform_", "xavier_normal_", "orthogonal_")),
        t.tensor([list(s) for s in data.random_split(range(6), [3, 3], generator=g)]),
        t.tensor(list(data.RandomSampler(range(6), generator=g))),
        t.tensor(list(data.RandomSampler(range(6), replacement=True, generator=g))),
        t.tensor(list(data.SubsetRandomSampler([4, 5, 6], generator=g))),
        t.tensor(list(data.WeightedRandomSampler([1.0, 2.0, 3.0], 4, generator=g))),
        t.cat(list(data.DataLoader(t.arange(6), batch_size=2, shuffle=True, generator=g))),
    ]


def test_every_random_function_draws_from_the_generator_given():
    """The same seed gives the same draws everywhere; the global stream is not read (its
    draws in between change nothing) and not moved; a numpy Generator is taken too."""
    first = _draws(t.Generator().manual_seed(21))
    t.manual_seed(0)
    before = t.get_rng_state()
    t.rand(7)
    state = t.get_rng_state()
    second = _draws(t.Generator().manual_seed(21))
    assert t.get_rng_state() == state != before
    for a, b in zip(first, second, strict=True):
        assert t.equal(a, b)
    third = _draws(t.Generator().manual_seed(22))
    assert sum(not t.equal(a, b) for a, b in zip(first, third, strict=True)) > len(first) - 3
    numpy_draws = _draws(np.random.default_rng(21))
    assert len(numpy_draws) == len(first)


def test_two_generators_do_not_move_each_other():
    a, b = t.Generator().manual_seed(5), t.Generator().manual_seed(5)
    first = t.randn(4, generator=a)
    t.randn(100, generator=b)  # b moves on; a does not
    a.manual_seed(5)
    assert t.equal(first, t.randn(4, generator=a))
    assert not t.equal(t.randn(4, generator=a), t.randn(4, generator=b))


def test_the_default_generator_is_the_global_stream():
    t.manual_seed(3)
    expected = t.rand(4)
    t.manual_seed(3)
    assert t.equal(expected, t.rand(4, generator=t.default_generator))
    t.default_generator.manual_seed(3)
    assert t.equal(expected, t.rand(4))


def test_the_new_fills_have_their_distributions():
    g = t.Generator().manual_seed(0)
    cauchy = t.empty(20001, dtype=t.float64).cauchy_(2.0, 0.5, generator=g)
    quartiles = np.quantile(cauchy.numpy(), [0.25, 0.5, 0.75])
    np.testing.assert_allclose(quartiles, [1.5, 2.0, 2.5], atol=0.03)  # median ± sigma
    logs = t.empty(20000, dtype=t.float64).log_normal_(0.5, 0.25, generator=g).log()
    assert abs(logs.mean().item() - 0.5) < 0.01 and abs(logs.std().item() - 0.25) < 0.01
    trials = t.zeros(20000, dtype=t.int64).geometric_(0.25, generator=g)
    assert trials.min().item() == 1 and abs(trials.double().mean().item() - 4) < 0.1


def test_the_new_fills_record_a_zero_gradient():
    x = t.ones(3, requires_grad=True)
    for fill, args in (("cauchy_", ()), ("log_normal_", ()), ("geometric_", (0.5,))):
        y = x * 2
        getattr(y, fill)(*args)
        (y * 3).sum().backward()
        assert x.grad.tolist() == [0.0, 0.0, 0.0]
        x.grad = None
