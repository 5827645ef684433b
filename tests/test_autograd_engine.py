"""The autograd graph and engine, on custom ops (independent of the aten op library).

Custom ops `agt::mul`, `agt::add`, `agt::sum`, `agt::scale` get CPU kernels written with NumPy and
derivative formulas written with the ops themselves; the generic autograd kernel records the graph.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import dispatcher
from dispatcher import Library, ops
from dispatcher.autograd import (
    backward,
    derivative,
    enable_grad,
    grad,
    is_grad_enabled,
    no_grad,
    register_autograd_kernel,
    set_grad_enabled,
)
from dispatcher.tensor import Tensor

_lib = Library("agt", "DEF")
_lib.define("mul(Tensor self, Tensor other) -> Tensor")
_lib.define("add(Tensor self, Tensor other) -> Tensor")
_lib.define("sum(Tensor self) -> Tensor")
_lib.define("scale(Tensor self, float factor) -> Tensor")
_lib.impl("mul", lambda a, b: Tensor._from_numpy(a._data * b._data), "CPU")
_lib.impl("add", lambda a, b: Tensor._from_numpy(a._data + b._data), "CPU")
_lib.impl("sum", lambda a: Tensor._from_numpy(np.asarray(a._data.sum())), "CPU")
_lib.impl("scale", lambda a, factor: Tensor._from_numpy(a._data * np.float32(factor)), "CPU")
agt = ops.agt
ORDER: list[str] = []


@derivative("agt::mul", "MulBackward0", ("self", "other"), save_inputs=("self", "other"))
def _mul_backward(ctx, grads, needs):
    ORDER.append("MulBackward0")
    g = grads[0]
    return (agt.mul(g, ctx.other) if needs[0] else None, agt.mul(g, ctx.self) if needs[1] else None)


@derivative("agt::add", "AddBackward0", ("self", "other"))
def _add_backward(ctx, grads, needs):
    ORDER.append("AddBackward0")
    return (grads[0], grads[0])


@derivative("agt::sum", "SumBackward0", ("self",), save_inputs=("self",))
def _sum_backward(ctx, grads, needs):
    ORDER.append("SumBackward0")
    ones = Tensor._from_numpy(np.ones(ctx.self._shape, np.float32))
    return (agt.scale(ones, float(grads[0]._data)),)


@derivative("agt::scale", "ScaleBackward0", ("self",))
def _scale_backward(ctx, grads, needs):
    ORDER.append("ScaleBackward0")
    return (agt.scale(grads[0], ctx.factor),)


for _name in ("mul", "add", "sum", "scale"):
    register_autograd_kernel(getattr(agt, _name).default)


def leaf(values, requires_grad=True):
    t = Tensor._from_numpy(np.asarray(values, dtype=np.float32))
    t.requires_grad = requires_grad
    return t


def test_graph_structure_and_names():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y = agt.mul(x, w)
    assert type(y.grad_fn).__name__ == "MulBackward0" and y.requires_grad and not y.is_leaf
    (n0, i0), (n1, i1) = y.grad_fn.next_functions
    assert type(n0).__name__ == "AccumulateGrad" and n0.variable is x and i0 == 0
    assert n1.variable is w
    c = leaf([1.0, 1.0], requires_grad=False)
    z = agt.mul(x, c)
    assert z.grad_fn.next_functions[1] == (None, 0)
    assert agt.mul(c, c).grad_fn is None


def test_backward_accumulates_into_leaves_and_matches_torch(torch):
    x, w = leaf([1.0, 2.0, 3.0]), leaf([4.0, 5.0, 6.0])
    loss = agt.sum(agt.add(agt.mul(x, w), x))
    backward(loss, Tensor._from_numpy(np.asarray(1.0, np.float32)))
    tx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    tw = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
    ((tx * tw) + tx).sum().backward()
    np.testing.assert_allclose(x.grad._data, tx.grad.numpy())
    np.testing.assert_allclose(w.grad._data, tw.grad.numpy())


def test_execution_order_is_highest_sequence_number_first():
    ORDER.clear()
    x = leaf([1.0, 2.0])
    a = agt.scale(x, 2.0)  # created first: lowest sequence number
    b = agt.mul(x, x)
    c = agt.add(a, b)
    backward(c, leaf([1.0, 1.0], requires_grad=False))
    assert ORDER == ["AddBackward0", "MulBackward0", "ScaleBackward0"]
    np.testing.assert_allclose(x.grad._data, [2.0 + 2 * 1.0, 2.0 + 2 * 2.0])


def test_second_backward_without_retain_graph_fails():
    x = leaf([1.0, 2.0])
    y = agt.sum(agt.mul(x, x))
    seed = Tensor._from_numpy(np.asarray(1.0, np.float32))
    backward(y, seed, retain_graph=True)
    backward(y, seed)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        backward(y, seed)


def test_saved_tensor_modified_in_place_is_detected():
    x = leaf([1.0, 2.0])
    h = agt.scale(x, 1.0)
    y = agt.mul(h, h)
    h._version_counter.version += 1  # what an in-place op on h would do
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[torch.FloatTensor \[2\]\].*version 1; "
                                           r"expected version 0"):
        backward(y, leaf([1.0, 1.0], requires_grad=False))


def test_autograd_grad_returns_gradients_without_touching_grad():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y = agt.mul(x, w)
    (gx,) = grad(y, [x], leaf([1.0, 1.0], requires_grad=False), retain_graph=True)
    np.testing.assert_allclose(gx._data, [3.0, 4.0])
    assert x.grad is None and w.grad is None
    unused = leaf([0.0])
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        grad(y, [unused], leaf([1.0, 1.0], requires_grad=False), retain_graph=True)
    assert grad(y, [x, unused], leaf([1.0, 1.0], requires_grad=False), allow_unused=True)[1] is None
    with pytest.raises(RuntimeError, match="does not require grad"):
        grad(y, [leaf([1.0], requires_grad=False)], leaf([1.0, 1.0], requires_grad=False))


def test_non_leaf_inputs_of_autograd_grad():
    x = leaf([1.0, 2.0])
    h = agt.scale(x, 3.0)
    y = agt.mul(h, h)
    (gh,) = grad(y, [h], leaf([1.0, 1.0], requires_grad=False))
    np.testing.assert_allclose(gh._data, [6.0, 12.0])


def test_backward_errors():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        backward(leaf([1.0], requires_grad=False))
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        backward(agt.mul(leaf([1.0, 2.0]), leaf([1.0, 2.0])))


def test_no_grad_records_nothing_and_is_thread_local():
    x = leaf([1.0])
    with no_grad():
        assert agt.mul(x, x).grad_fn is None
        with enable_grad():
            assert agt.mul(x, x).grad_fn is not None
    seen = {}

    def worker():
        seen["enabled"] = is_grad_enabled()

    with no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert seen["enabled"] is True

    @no_grad()
    def f(a):
        return agt.mul(a, a)

    assert f(x).grad_fn is None and is_grad_enabled()
    with set_grad_enabled(False):
        assert not is_grad_enabled()
    assert is_grad_enabled()
    with pytest.raises(ValueError):
        with no_grad():
            raise ValueError
    assert is_grad_enabled()


def test_leaf_in_place_error():
    _lib.define("scale_(Tensor(a!) self, float factor) -> Tensor(a!)")

    def scale_(a, factor):
        a._data[...] *= factor
        return a

    _lib.impl("scale_", scale_, "CPU")
    derivative("agt::scale_", "ScaleBackward0", ("self",))(_scale_backward)
    register_autograd_kernel(agt.scale_.default)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
        agt.scale_(leaf([1.0]), 2.0)
    assert dispatcher.DispatchKey.Autograd in agt.scale_.default.kernels


def test_mlp_gradients_through_aten_match_torch(torch):
    """The autograd kernel on aten ops: linear (t + addmm), relu, mul, mean, then Tensor.backward."""
    import dispatcher.nn.functional as F

    rng = np.random.default_rng(0)
    shapes = dict(x=(8, 32), w1=(64, 32), b1=(64,), w2=(10, 64), b2=(10,))
    arrays = {k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}

    def loss(T, Fn, p):
        out = Fn.linear(Fn.relu(Fn.linear(p["x"], p["w1"], p["b1"])), p["w2"], p["b2"])
        return (out * out).mean()

    ours = {k: dispatcher.tensor(v, requires_grad=k != "x") for k, v in arrays.items()}
    theirs = {k: torch.tensor(v, requires_grad=k != "x") for k, v in arrays.items()}
    lo, lt = loss(dispatcher, F, ours), loss(torch, torch.nn.functional, theirs)
    assert type(lo.grad_fn).__name__ == type(lt.grad_fn).__name__ == "MeanBackward0"
    lo.backward()
    lt.backward()
    for k in ("w1", "b1", "w2", "b2"):
        np.testing.assert_allclose(ours[k].grad.numpy(), theirs[k].grad.numpy(), rtol=1e-4, atol=1e-4)
    assert ours["x"].grad is None
