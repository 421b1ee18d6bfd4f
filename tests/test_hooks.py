"""Hooks (tensor, node, AccumulateGrad, post-accumulate) and node creation sites, as PyTorch."""

import inspect
import threading

import pytest

import symgrad as t
from symgrad.autograd import graph


def _line() -> int:
    """The caller's line number."""
    return inspect.currentframe().f_back.f_lineno


# ------------------------------------------------------------------ tensor hooks
def test_tensor_hooks_chain_in_registration_order():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()) or g * 10)
    y.register_hook(lambda g: seen.append(g.tolist()))  # None: the gradient is kept
    y.register_hook(lambda g: seen.append(g.tolist()) or g + 1)
    y.sum().backward()
    assert seen == [[1.0, 1.0], [10.0, 10.0], [10.0, 10.0]]
    assert x.grad.tolist() == [22.0, 22.0]  # (1 * 10 + 1) * 2


@pytest.mark.parametrize("retain_first", [True, False])
def test_retain_grad_sees_the_hooked_gradient_whatever_the_order(retain_first):
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    if retain_first:
        y.retain_grad()
    y.register_hook(lambda g: g * 10)
    if not retain_first:
        y.retain_grad()
    y.sum().backward()
    assert y.grad.tolist() == [10.0, 10.0] and x.grad.tolist() == [20.0, 20.0]


def test_a_leaf_hook_sees_the_incoming_gradient_before_accumulation():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    x.grad = t.tensor([100.0, 100.0])
    seen = []
    x.register_hook(lambda g: seen.append((g.tolist(), x.grad.tolist())) or g * 2)
    (x * 3).sum().backward()
    assert seen == [([3.0, 3.0], [100.0, 100.0])]
    assert x.grad.tolist() == [106.0, 106.0]


def test_handles_remove_hooks():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    handle = x.register_hook(lambda g: g * 5)
    handle.remove()
    handle.remove()  # a second remove does nothing
    y = x * 1
    with y.register_hook(lambda g: g * 7):
        pass  # a handle is also a context manager that removes on exit
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_tensor_hooks_under_create_graph_are_differentiable():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = x ** 2
    seen = []
    y.register_hook(lambda g: seen.append(g.requires_grad) or g * x)
    x.register_hook(lambda g: seen.append(g.requires_grad))
    (g,) = t.autograd.grad(y.sum(), x, create_graph=True)
    assert seen == [False, True]  # the seed does not require grad; x's gradient does
    assert g.tolist() == [2.0, 8.0]  # 2x * x
    assert t.autograd.grad(g.sum(), x)[0].tolist() == [4.0, 8.0]  # d(2x^2)/dx


# ------------------------------------------------------------------ node hooks
def test_node_hooks_run_in_pytorch_order_with_pytorch_arguments():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    b = t.tensor([3.0, 4.0])
    y = a * b
    events = []
    y.grad_fn.register_hook(lambda gi, go: events.append(("post", gi[0].tolist(), gi[1],
                                                          go[0].tolist())))
    y.grad_fn.register_prehook(lambda go: events.append(("pre", go[0].tolist())))
    y.register_hook(lambda g: events.append(("tensor", g.tolist())) or g * 2)
    y.sum().backward()
    # grad_inputs: one entry per next_functions edge, None where no gradient is computed
    assert events == [("tensor", [1.0, 1.0]), ("pre", [2.0, 2.0]),
                      ("post", [6.0, 8.0], None, [2.0, 2.0])]
    assert a.grad.tolist() == [6.0, 8.0]


def test_retain_grad_is_taken_before_node_prehooks():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    y = a * 3
    y.grad_fn.register_prehook(lambda go: (go[0] * 5,))
    y.register_hook(lambda g: g * 2)
    y.retain_grad()
    y.sum().backward()
    assert y.grad.tolist() == [2.0, 2.0] and a.grad.tolist() == [30.0, 30.0]


def test_post_hooks_replace_or_drop_input_gradients():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    c = t.tensor([1.0, 2.0], requires_grad=True)
    y = a * c
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0, None))
    y.sum().backward()
    assert a.grad.tolist() == [0.0, 0.0] and c.grad is None  # None: no gradient at all

    x = t.tensor([1.0, 2.0], requires_grad=True)
    s = x * 3 + x * 5
    s.grad_fn.register_hook(lambda gi, go: (None, gi[1]))  # drop the x * 3 path
    s.sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_a_prehook_dropping_the_gradient_stops_the_branch():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.grad_fn.register_prehook(lambda go: (None,))
    (y * 2).sum().backward()
    assert x.grad is None


def test_post_hooks_chain_and_can_be_removed():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, None))
    handle = y.grad_fn.register_hook(lambda gi, go: (gi[0] * 100, None))
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 2, None))
    handle.remove()
    y.sum().backward(retain_graph=True)
    assert x.grad.tolist() == [8.0, 8.0]  # (3 + 1) * 2


def _hooked_mul(kind, result):
    a = t.tensor([1.0, 2.0], requires_grad=True)
    c = t.tensor([1.0, 2.0], requires_grad=True)
    y = a * c if kind == "post2" else a * 3

    def myhook(*args):
        return result

    if kind == "pre":
        y.grad_fn.register_prehook(myhook)
    else:
        y.grad_fn.register_hook(myhook)
    return a, y


@pytest.mark.parametrize("kind, result, error, message", [
    ("post2", (t.ones(2),), RuntimeError,
     "hook 'myhook' has returned an incorrect number of values (got 1, but expected 2)"),
    ("post2", (t.ones(2),) * 3, RuntimeError,
     "hook 'myhook' has returned an incorrect number of values (got 3, but expected 2)"),
    ("post2", t.ones(2), TypeError, "expected tuple, but hook returned 'Tensor'"),
    ("post2", [t.ones(2), t.ones(2)], TypeError, "expected tuple, but hook returned 'list'"),
    ("post2", (1, 2), TypeError, "expected Variable, but hook returned 'int'"),
    ("post", (t.ones(3), None), RuntimeError, "hook 'myhook' has changed the size of value"),
    ("post", (t.ones(2, dtype=t.float64), None), RuntimeError,
     "hook 'myhook' has changed the type of value (was symgrad.FloatTensor got "
     "symgrad.DoubleTensor)"),
    ("post", (t.ones(2), t.ones(2)), RuntimeError,
     "can't replace a None gradient with a non-None value"),
    ("pre", (t.ones(2),) * 2, RuntimeError,
     "hook 'myhook' has returned an incorrect number of values (got 2, but expected 1)"),
    ("pre", t.ones(2), TypeError, "expected tuple, but hook returned 'Tensor'"),
    ("pre", (1,), TypeError, "expected Variable, but hook returned 'int'"),
    ("pre", (t.ones(3),), RuntimeError, "hook 'myhook' has changed the size of value"),
])
def test_node_hook_results_are_checked_as_pytorch_does(kind, result, error, message):
    a, y = _hooked_mul(kind, result)
    a.grad = t.tensor([7.0, 7.0])
    with pytest.raises(error, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        y.sum().backward()
    assert a.grad.tolist() == [7.0, 7.0]  # a failed backward changes no .grad


def test_a_raising_node_hook_changes_no_grad():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    x.grad = t.tensor([5.0, 5.0])
    y = x * 2

    def boom(gi, go):
        raise ValueError("boom")

    y.grad_fn.register_hook(boom)
    with pytest.raises(ValueError, match="boom"):
        y.sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_node_hooks_under_create_graph():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = x ** 2
    seen = []
    y.grad_fn.register_hook(
        lambda gi, go: seen.append((gi[0].requires_grad, go[0].requires_grad)) or (gi[0] * x,))
    (g,) = t.autograd.grad(y.sum(), x, create_graph=True)
    assert seen == [(True, False)]
    assert g.tolist() == [2.0, 8.0]
    assert t.autograd.grad(g.sum(), x)[0].tolist() == [4.0, 8.0]


def test_node_hooks_run_under_autograd_grad_but_not_on_a_captured_node():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    y = a * 2
    events = []
    y.grad_fn.register_prehook(lambda go: events.append("pre"))
    y.grad_fn.register_hook(lambda gi, go: events.append("post"))
    assert t.autograd.grad(y.sum(), a, retain_graph=True)[0].tolist() == [2.0, 2.0]
    assert events == ["pre", "post"]
    # y's node is only where the gradient is taken: it does not run (nor need its saved values)
    assert t.autograd.grad(y.sum(), y)[0].tolist() == [1.0, 1.0]
    assert events == ["pre", "post"]


def test_node_hooks_on_a_joint_vjp_op():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    b = t.tensor([3.0], requires_grad=True)
    c = t.cat([a, b])
    seen = []
    c.grad_fn.register_hook(
        lambda gi, go: seen.append([g.tolist() for g in gi]) or (gi[0] * 2, gi[1] * 3))
    (c * t.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert seen == [[[1.0, 2.0], [3.0]]]
    assert a.grad.tolist() == [2.0, 4.0] and b.grad.tolist() == [9.0]


def test_nodes_without_hooks_stay_on_the_fast_path():
    x = t.ones(2, requires_grad=True)
    y = x * 2
    assert not y.grad_fn.special
    y.grad_fn.register_prehook(lambda go: None)
    assert y.grad_fn.special


# ------------------------------------------------------------------ leaves
def test_accumulate_grad_and_post_accumulate_hooks_in_pytorch_order():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    y = a * 3
    acc = y.grad_fn.next_functions[0][0]
    assert isinstance(acc, t.autograd.AccumulateGrad) and acc.variable is a
    events = []
    h1 = acc.register_prehook(lambda go: events.append(("acc pre", go[0].tolist()))
                              or (go[0] * 10,))
    h2 = acc.register_hook(lambda gi, go: events.append(("acc post", gi, go[0].tolist(),
                                                         a.grad.tolist())))
    a.register_hook(lambda g: events.append(("tensor", g.tolist())))
    a.register_post_accumulate_grad_hook(lambda p: events.append(("post acc", p is a,
                                                                  p.grad.tolist())))
    y.sum().backward(retain_graph=True)
    assert events == [("tensor", [3.0, 3.0]), ("acc pre", [3.0, 3.0]),
                      ("post acc", True, [30.0, 30.0]),
                      ("acc post", (), [30.0, 30.0], [30.0, 30.0])]
    assert y.grad_fn.next_functions[0][0] is acc  # the same object while it is referenced
    h1.remove()
    h2.remove()
    events.clear()
    y.sum().backward()
    assert [e[0] for e in events] == ["tensor", "post acc"]
    assert a.grad.tolist() == [33.0, 33.0]


def test_accumulation_hooks_do_not_run_for_autograd_grad():
    a = t.tensor([1.0, 2.0], requires_grad=True)
    events = []
    a.register_post_accumulate_grad_hook(lambda p: events.append("post acc"))
    (a * 1).grad_fn.next_functions[0][0].register_prehook(lambda go: events.append("pre"))
    assert t.autograd.grad((a * 2).sum(), a)[0].tolist() == [2.0, 2.0]
    assert events == [] and a.grad is None


def test_post_accumulate_grad_hook_errors():
    with pytest.raises(RuntimeError, match="^cannot register a hook on a tensor that doesn't "
                                           "require gradient"):
        t.ones(2).register_post_accumulate_grad_hook(lambda p: None)
    x = t.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="^post accumulate grad hooks cannot be registered on "
                                           "non-leaf tensors"):
        (x * 2).register_post_accumulate_grad_hook(lambda p: None)
    x.register_post_accumulate_grad_hook(lambda p: t.zeros(2))
    with pytest.raises(RuntimeError, match="^Tensor post accumulate grad hooks should return "
                                           "None."):
        (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]  # as in PyTorch: it runs after the accumulation


def test_accumulate_grad_post_hooks_must_return_nothing():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    (x * 1).grad_fn.next_functions[0][0].register_hook(lambda gi, go: (t.ones(2),))
    with pytest.raises(RuntimeError, match=r"^hook '<lambda>' has returned an incorrect number "
                                           r"of values \(got 1, but expected 0\)"):
        (x * 2).sum().backward()


# ------------------------------------------------------------------ creation sites
def _scaled(x):
    return x * 3  # a helper in user code: the node's site is this line


def test_every_node_records_where_its_forward_op_was_called():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    sites = {}
    y = x * 2; sites[y.grad_fn] = _line()  # noqa: E702 - the same line
    z = y.exp(); sites[z.grad_fn] = _line()  # noqa: E702
    w = t.nn.functional.softmax(z, dim=0); sites[w.grad_fn] = _line()  # noqa: E702
    v = _scaled(w)
    u = v.clone()
    u.mul_(2); sites[u.grad_fn] = _line()  # noqa: E702 - an in-place op
    u[0].add_(1); sites[u.grad_fn] = _line()  # noqa: E702 - CopySlices, through a view
    for node, line in sites.items():
        assert node.creation_site == (__file__, line), node.name()
        assert node.created_at == f"{__file__}:{line}"
    assert v.grad_fn.creation_site == (__file__, inspect.getsourcelines(_scaled)[1] + 1)
    acc = y.grad_fn.next_functions[0][0]
    assert acc.creation_site is None and acc.created_at is None


def test_nodes_made_by_a_create_graph_pass_point_at_the_backward_call():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = x.sin()
    (g,) = t.autograd.grad(y.sum(), x, create_graph=True); line = _line()  # noqa: E702
    assert g.grad_fn.creation_site == (__file__, line)


def test_a_creation_site_spanning_several_lines_is_the_call_line():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = (x
         .exp())
    line = _line() - 1
    assert y.grad_fn.creation_site == (__file__, line)


def test_creation_sites_from_another_thread():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    found = []

    def work():
        found.append((x * 2).grad_fn.creation_site)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert found == [(__file__, inspect.getsourcelines(work)[1] + 1)]


def test_internal_frames_are_recognised_by_file():
    assert graph._INTERNAL[graph.__file__]
    assert not graph._INTERNAL[__file__]
