"""In-place ops and views under autograd, the tensor autograd API, its errors, and the autograd fallback.

Every case is a snippet run unchanged on torch and on dispatcher (``T`` is the module,
``leaf(*shape)`` makes a seeded float64 leaf that requires grad, ``const(*shape)`` one
that does not). What is compared with torch 2.13:

* the aten ops a logging TorchDispatchMode sees, forward and backward (``detach``
  calls for saved outputs and stolen gradients included), op for op;
* the gradients of every leaf, and the structure of the backward graph (node names
  along ``next_functions``: ``CopySlices``, ``AsStridedBackward0``, ...);
* for the error cases, the exception type and the whole message;
* for hooks, retain_grad and the fallback, the values and warnings each side produces.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pytest

import dispatcher
from tests.test_frontend import _norm, _norm_kwargs


# --- running a snippet on both sides ---------------------------------------------------------------------
def _namespace(T: Any) -> dict[str, Any]:
    rng = np.random.default_rng(0)

    def leaf(*shape: int) -> Any:
        return T.tensor(rng.standard_normal(shape), requires_grad=True)

    def const(*shape: int) -> Any:
        return T.tensor(rng.standard_normal(shape))

    return {"T": T, "np": np, "leaf": leaf, "const": const}


def _logging_mode(base: type, log: list) -> Any:
    class Log(base):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
            kwargs = kwargs or {}
            log.append((str(func), _norm(list(args)), _norm_kwargs(str(func), kwargs)))
            return func(*args, **kwargs)

    return Log()


def run(T: Any, code: str, setup: str = "", log_ops: bool = True) -> tuple[dict[str, Any], list]:
    """Run ``setup`` then ``code`` (logged) in a fresh namespace; the namespace and the op log."""
    env = _namespace(T)
    exec(setup, env)
    log: list = []
    if T is dispatcher:
        mode = _logging_mode(dispatcher.TorchDispatchMode, log)
    else:
        from torch.utils._python_dispatch import TorchDispatchMode

        mode = _logging_mode(TorchDispatchMode, log)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if log_ops:
            with mode:
                exec(code, env)
        else:
            exec(code, env)
    return env, log


def structure(fn: Any, depth: int = 6) -> Any:
    """Node names along next_functions (None for an edge that needs no gradient)."""
    if fn is None:
        return None
    name = type(fn).__name__
    if depth == 0 or name == "AccumulateGrad":
        return name
    return (name, tuple((structure(n, depth - 1), nr) for n, nr in fn.next_functions))


def _np(t: Any) -> np.ndarray:
    return np.asarray(t.detach().numpy())


def compare_envs(env_t: dict[str, Any], env_o: dict[str, Any]) -> None:
    """Every tensor the snippet left behind: values, requires_grad, is_leaf, grad_fn graph, .grad."""
    import torch

    for name, t in env_t.items():
        if not isinstance(t, torch.Tensor):
            continue
        o = env_o[name]
        assert o.shape == tuple(t.shape), name
        np.testing.assert_allclose(_np(o), _np(t), rtol=1e-10, atol=1e-12, err_msg=name)
        assert (o.requires_grad, o.is_leaf) == (t.requires_grad, t.is_leaf), name
        assert structure(o.grad_fn) == structure(t.grad_fn), name
        if t.is_leaf and t.requires_grad:
            if t.grad is None:
                assert o.grad is None, name
            else:
                np.testing.assert_allclose(_np(o.grad), _np(t.grad), rtol=1e-10, atol=1e-12, err_msg=f"{name}.grad")


def both(torch: Any, code: str, setup: str = "") -> tuple[dict[str, Any], dict[str, Any]]:
    env_t, log_t = run(torch, code, setup)
    env_o, log_o = run(dispatcher, code, setup)
    assert log_o == log_t, "\n".join(
        f"{'  ' if a == b else '!!'} {a}  |  {b}" for a, b in zip(log_t + [None] * len(log_o), log_o + [None] * len(log_t))
        if a is not None or b is not None
    )
    compare_envs(env_t, env_o)
    return env_t, env_o


# --- in-place ops: formulas, saved values, history ----------------------------------------------------------
_SETUP = "x = leaf(3); w = leaf(3)"

INPLACE = {
    "add_": "y = x.clone(); y.add_(w, alpha=2); y.sum().backward()",
    "sub_": "y = x.clone(); y.sub_(w); (y * y).sum().backward()",
    "mul_": "y = x.clone(); y.mul_(w); y.sum().backward()",  # saves self.clone() for w's gradient
    "mul_number": "y = x.clone(); y *= 2; y.sum().backward()",  # no clone: the number needs no gradient
    "mul_twice": "y = x.clone(); y.mul_(w); y.mul_(w); (y * 1).sum().backward()",
    "mul_only_self_needs": "c = const(3); y = x.clone(); y.mul_(c); y.sum().backward()",
    "div_": "y = x.clone(); y.div_(w); y.sum().backward()",
    "div_scalar": "y = x.clone(); T.ops.aten.div_.Scalar(y, 2.0); y.sum().backward()",
    "relu_": "y = x.clone(); y.relu_(); y.sum().backward()",  # saves self after the op (a detach)
    "masked_fill_": "y = x.clone(); y.masked_fill_(T.tensor([True, False, True]), 0.5); y.sum().backward()",
    "fill_scalar": "y = x.clone(); y.fill_(2.0); (y * w).sum().backward()",
    "fill_tensor": "y = x.clone(); y.fill_(w.sum()); y.sum().backward()",
    "zero_": "y = x.clone(); y.zero_(); (y + w).sum().backward()",
    "copy_": "y = x.clone(); y.copy_(w); y.sum().backward()",
    "copy_other_dtype": "y = x.clone().float(); y.copy_(w); y.sum().backward()",
    "copy_broadcast": "v = leaf(1); y = x.clone(); y.copy_(v); (y * w).sum().backward()",
    "index_put_": "y = x.clone(); T.ops.aten.index_put_.default(y, [T.tensor([0, 2])], w[:2]); y.sum().backward()",
    "index_put_accumulate": ("y = x.clone(); T.ops.aten.index_put_.default(y, [T.tensor([0, 2])], w[:2], True); "
                             "(y * y).sum().backward()"),
    "_index_put_impl_": ("y = x.clone(); T.ops.aten._index_put_impl_.default(y, [T.tensor([1])], w[0]); "
                         "y.sum().backward()"),
    "bernoulli_": "y = x.clone(); T.ops.aten.bernoulli_.float(y, 1.0); (y + w).sum().backward()",
    "squeeze_": "y = x.clone().unsqueeze(1); T.ops.aten.squeeze_.dim(y, 1); (y * w).sum().backward()",
    "inplace_on_non_requiring": "y = const(3); y.mul_(w); y.add_(x); y.sum().backward()",
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_op_matches_torch(torch: Any, name: str) -> None:
    env_t, env_o = both(torch, INPLACE[name], _SETUP)
    y = env_o["y"]
    assert type(y.grad_fn).__name__ == type(env_t["y"].grad_fn).__name__
    assert y._version == env_t["y"]._version


def test_inplace_returns_self_and_rebases_history(torch: Any) -> None:
    for T in (torch, dispatcher):
        env = _namespace(T)
        x, w = env["leaf"](3), env["leaf"](3)
        y = x.clone()
        clone_fn = y.grad_fn
        assert y.mul_(w) is y
        assert type(y.grad_fn).__name__ == "MulBackward0"
        assert y.grad_fn.next_functions[0][0] is clone_fn  # the old history is the node's first input
        assert y.grad_fn.name() == "MulBackward0" and not y.is_leaf and y._version == 1


# --- views ----------------------------------------------------------------------------------------------
VIEWS = {
    "slice_mul": "X = leaf(4, 3); y = X.clone(); y[:, 1:] *= 2; y.sum().backward()",
    "setitem_select": "y = T.zeros(3, 3); y[0] = w; (y * y).sum().backward()",
    "setitem_on_clone": "y = x.clone(); y[0] = w[1] * 3; (y * y).sum().backward()",
    "setitem_slice": "y = x.clone(); y[1:] = w[:2] * 2; y.sum().backward()",
    "setitem_index": "y = T.zeros(4, dtype=T.float64); y[T.tensor([0, 2])] = w[:2]; (y * y).sum().backward()",
    "view_of_clone": "y = x.clone(); v = y[1]; v.mul_(w[0]); (y * y).sum().backward()",
    "chain_of_views": "X = leaf(3, 4); y = X.clone(); v = y[1:]; u = v[0]; u.add_(w[0]); (y * y).sum().backward()",
    "transposed_view": "X = leaf(3, 4); y = X.clone(); v = y.t(); v[0].mul_(3); (y * y).sum().backward()",
    "relu_on_view": "X = leaf(3, 4); y = X * 1; y[:, :2].relu_(); y.sum().backward()",
    "two_inplace_on_a_view": "y = x.clone(); v = y[:2]; v.mul_(2); v.add_(w[:2]); (y * y).sum().backward()",
    "unsqueezed_view": "X = leaf(2, 3); y = X.clone(); y.unsqueeze(0)[0, 1].mul_(2); (y * y).sum().backward()",
    "base_modified_then_view_used": "y = x.clone(); v = y[0:2]; y.mul_(2); (v * 3).sum().backward()",
    "sibling_view_modified": "y = x.clone(); a = y[:2]; b = y[1:]; a.mul_(w[:2]); (b * b).sum().backward()",
    "view_of_non_requiring_base": "b = T.zeros(3); v = b[:2]; v.copy_(w[:2]); (b * b).sum().backward()",
    "view_then_base_from_non_requiring": "b = T.zeros(3); v = b[:2]; b.copy_(w); (v * v).sum().backward()",
    "inplace_view_grads_through_view": "y = x.clone(); v = y[1:]; v.mul_(w[1:]); (v * v).sum().backward()",
    "setitem_number_on_clone": "y = x.clone(); y[0] = 2.0; (y * w).sum().backward()",
    "setitem_bool_mask": "y = x.clone(); y[y > 0] = 0.0; (y * w).sum().backward()",
    "augmented_slice_chain": "X = leaf(4, 4); y = X * 2; y[1:, 1:][0] += w; (y * y).sum().backward()",
    "view_inplace_then_base_inplace": ("y = x.clone(); v = y[:2]; v.mul_(w[:2]); y.add_(1); u = v * 1; "
                                       "(u * u).sum().backward()"),
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_views_and_inplace_match_torch(torch: Any, name: str) -> None:
    both(torch, VIEWS[name], _SETUP)


def test_view_graph_structure(torch: Any) -> None:
    """In-place on a view: the base gets CopySlices, the view an AsStridedBackward0 of it."""
    for T in (torch, dispatcher):
        env = _namespace(T)
        x = env["leaf"](4, 3)
        y = x.clone()
        v = y[:, 1:]
        assert type(v.grad_fn).__name__ == "SliceBackward0" and v._base is y and v._is_view()
        v.mul_(2)
        assert type(y.grad_fn).__name__ == "CopySlices"
        assert [type(n).__name__ if n else None for n, _ in y.grad_fn.next_functions] == ["CloneBackward0", None]
        assert type(v.grad_fn).__name__ == "AsStridedBackward0"
        assert v.grad_fn.next_functions[0][0] is y.grad_fn
        assert y._version == v._version == 1


def test_base_inplace_regenerates_view_grad_fn_lazily(torch: Any) -> None:
    for T in (torch, dispatcher):
        y = _namespace(T)["leaf"](3, 2).clone()
        v = y[0]
        select_fn = v.grad_fn
        assert type(select_fn).__name__ == "SelectBackward0"
        assert v.grad_fn is select_fn  # unchanged while nothing is modified
        y.mul_(3)
        assert type(v.grad_fn).__name__ == "AsStridedBackward0"
        assert v.grad_fn.next_functions[0][0] is y.grad_fn and type(y.grad_fn).__name__ == "MulBackward0"
        assert v.grad_fn is v.grad_fn  # regenerated once


def test_view_of_requiring_base_made_in_no_grad(torch: Any) -> None:
    for T in (torch, dispatcher):
        x = _namespace(T)["leaf"](3)
        with T.no_grad():
            v = x[:2]
        assert v.requires_grad and v.grad_fn is None and v.is_leaf and v._base is x
        y = v * 2  # v has no gradient edge of its own: nothing reaches x
        assert [n for n, _ in y.grad_fn.next_functions] == [None, None]
        y.sum().backward()
        assert x.grad is None


def test_views_share_version_counter_and_detach(torch: Any) -> None:
    for T in (torch, dispatcher):
        x = _namespace(T)["leaf"](3)
        y = x * 1
        d = y.detach()
        v = y[1:]
        assert d._base is None and not d.requires_grad and d._version == y._version
        d.add_(1)  # shares storage and the version counter
        assert y._version == v._version == d._version == 1
        assert y.detach().is_leaf and not y.is_leaf


# --- errors ---------------------------------------------------------------------------------------------
ERRORS = {
    "leaf_inplace": ("", "x.mul_(2)"),
    "view_of_leaf_inplace": ("", "x[0].mul_(2)"),
    "leaf_setitem": ("", "x[0] = 1.0"),
    "unbind_output_inplace": ("X = leaf(3, 2)", "u = X.clone().unbind(0); u[0].mul_(2)"),
    "split_output_inplace": ("X = leaf(3, 2)", "u = X.clone().split(1); u[1].mul_(2)"),
    "view_of_unbind_output_inplace": ("X = leaf(3, 2)", "u = X.clone().unbind(0); v = u[0][1:]; v.mul_(2)"),
    "chunk_output_inplace": ("X = leaf(4, 2)", "u = X.clone().chunk(2); u[1].add_(1)"),
    "unbind_in_no_grad_then_inplace": ("X = leaf(3, 2)", "y = X.clone()\nwith T.no_grad():\n    u = y.unbind(0)\n"
                                                          "u[0].mul_(2)"),
    "unbind_base_modified": ("X = leaf(3, 2)", "y = X.clone(); u = y.unbind(0); y.mul_(2); u[0].grad_fn"),
    "unbind_of_non_requiring": ("", "u = T.zeros(3, 2).unbind(0); u[0].copy_(w[:2])"),
    "no_grad_view": ("", "y = x.clone()\nwith T.no_grad():\n    v = y[0]\nv.mul_(2)"),
    "no_grad_view_of_view": ("", "y = x.clone()\nwith T.no_grad():\n    v = y[:2]\nu = v[1:]\nu.mul_(2)"),
    "no_grad_view_base_modified": ("", "with T.no_grad():\n    v = x[:2]\n    x.sub_(1)\nv.grad_fn"),
    "saved_input_modified": ("", "a = x.clone(); s = a.sin(); a.mul_(2); s.sum().backward()"),
    "saved_output_modified": ("", "a = x.clone(); s = a.exp(); s.mul_(2); s.sum().backward()"),
    "saved_leaf_modified": ("", "s = x.sin()\nwith T.no_grad():\n    x.mul_(2)\ns.sum().backward()"),
    "saved_view_base_modified": ("", "a = x.clone(); v = a[1:]; s = v.sin(); a.zero_(); s.sum().backward()"),
    "backward_twice": ("", "s = (x * x).sum(); s.backward(); s.backward()"),
    "backward_twice_through_copy_slices": ("", "y = x.clone(); y[0] = w[0] * 2; s = y.sum(); s.backward(); "
                                               "s.backward()"),
    "non_scalar_output": ("", "(x * 2).backward()"),
    "no_grad_fn": ("", "(x.detach() * 2).sum().backward()"),
    "gradient_shape_mismatch": ("", "(x * 2).backward(T.ones(2))"),
    "gradient_count_mismatch": ("", "T.autograd.backward([(x * 2).sum(), (w * 3).sum()], [T.ones(())])"),
    "backward_empty_inputs": ("", "(x * 2).sum().backward(inputs=[])"),
    "requires_grad_false_on_non_leaf": ("", "y = x * 2; y.requires_grad = False"),
    "requires_grad_true_on_non_leaf": ("", "y = x * 2; y.requires_grad = True"),
    "requires_grad__false_on_non_leaf": ("", "y = x * 2; y.requires_grad_(False)"),
    "requires_grad_on_integers": ("", "T.zeros(2, dtype=T.int64).requires_grad_()"),
    "requires_grad_setter_on_integers": ("", "i = T.zeros(2, dtype=T.int64); i.requires_grad = True"),
    "requires_grad_not_bool": ("", "c = const(2); c.requires_grad = 1"),
    "factory_requires_grad_on_integers": ("", "T.zeros(2, dtype=T.int64, requires_grad=True)"),
    "tensor_requires_grad_on_integers": ("", "T.tensor([1, 2], requires_grad=True)"),
    "grad_wrong_size": ("", "x.grad = T.zeros(2, dtype=T.float64)"),
    "grad_wrong_dtype": ("", "x.grad = T.zeros(3)"),
    "grad_wrong_device": ("", "x.grad = T.zeros(3, dtype=T.float64, device='meta')"),
    "grad_not_a_tensor": ("", "x.grad = 3"),
    "detach__on_view": ("", "T.zeros(4)[0:2].detach_()"),
    "retain_grad_without_requires_grad": ("", "x.detach().retain_grad()"),
    "hook_without_requires_grad": ("", "x.detach().register_hook(lambda g: g)"),
    "hook_changes_size": ("", "def myhook(g):\n    return T.zeros(2, dtype=T.float64)\n"
                              "y = x * 1; y.register_hook(myhook); y.sum().backward()"),
    "hook_changes_dtype": ("", "y = x * 1; y.register_hook(lambda g: g.float()); y.sum().backward()"),
    "hook_returns_a_number": ("", "y = x * 1; y.register_hook(lambda g: 3); y.sum().backward()"),
    "backward_inputs_not_requiring_grad": ("", "(x * 2).sum().backward(inputs=[x.detach()])"),
    "data_set_to_integers": ("", "x.data = T.zeros(3, dtype=T.int64)"),
    "data_set_to_a_number": ("", "x.data = 3"),
    "post_accumulate_grad_hook_returns": ("", "x.register_post_accumulate_grad_hook(lambda p: p.grad); "
                                              "(x * 2).sum().backward()"),
    "post_accumulate_grad_hook_returns_a_number": ("", "x.register_post_accumulate_grad_hook(lambda p: 3); "
                                                       "(x * 2).sum().backward()"),
    "post_accumulate_grad_hook_on_non_leaf": ("", "(x * 2).register_post_accumulate_grad_hook(lambda p: None)"),
}


def _error(T: Any, setup: str, code: str) -> tuple[str, str]:
    env = _namespace(T)
    exec("x = leaf(3); w = leaf(3)\n" + setup, env)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(code, env)
        except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
            return type(e).__name__, str(e)
    return "no error", ""


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_matches_torch(torch: Any, name: str) -> None:
    setup, code = ERRORS[name]
    theirs = _error(torch, setup, code)
    ours = _error(dispatcher, setup, code)
    assert theirs[0] != "no error", theirs
    assert ours == theirs


def test_error_names_the_forward_op_and_versions() -> None:
    """2.13 names nodes by their forward op in messages: ``output 0 of Exp`` (ExpBackward0)."""
    x = dispatcher.tensor([1.0, 2.0], requires_grad=True)
    s = x.clone().exp()
    s.add_(1)
    with pytest.raises(RuntimeError, match=r"\[torch.FloatTensor \[2\]\], which is output 0 of Exp, is at version 1; "
                                           r"expected version 0 instead"):
        s.sum().backward()


# --- the tensor API -------------------------------------------------------------------------------------
API = {
    "requires_grad_and_detach": "c = const(3); c.requires_grad_(); d = c.detach(); e = (c * 2).detach_()",
    "requires_grad__on_non_leaf": "y = x * 2; y.requires_grad_(True)",  # allowed, nothing changes
    "detach_cuts_history": "y = x * 2; z = y * 3; y.detach_(); (z + y).sum().backward()",
    "retain_grad": "y = x * 2; y.retain_grad(); z = (y * y).sum(); z.backward(); g = y.grad",
    "retain_grad_twice_accumulates": ("y = x * 2; y.retain_grad(); z = (y * y).sum(); z.backward(retain_graph=True); "
                                      "z.backward(); g = y.grad"),
    "retain_grad_survives_inplace": "y = x.clone(); y.retain_grad(); y.mul_(w); y.sum().backward(); g = y.grad",
    "retain_grad_on_base_of_modified_view": "y = x.clone(); y.retain_grad(); y[0].mul_(2); y.sum().backward(); g = y.grad",
    "retain_grad_on_leaf_is_noop": "x.retain_grad(); (x * 2).sum().backward()",
    "hook_on_non_leaf": "y = x * 2; y.register_hook(lambda g: g * 3); (y * w).sum().backward()",
    "hook_on_leaf": "x.register_hook(lambda g: g + 1); (x * w).sum().backward()",
    "hooks_in_order": ("y = x * 2; y.register_hook(lambda g: g * 3); y.register_hook(lambda g: g + 1); "
                       "y.sum().backward()"),
    "hook_then_retain_grad": "y = x * 2; y.retain_grad(); y.register_hook(lambda g: g * 5); y.sum().backward(); g = y.grad",
    "removed_hook": "h = x.register_hook(lambda g: g * 100); h.remove(); (x * 2).sum().backward()",
    "hook_before_inplace_stays_on_old_node": ("y = x.clone(); y.register_hook(lambda g: g * 10); y.mul_(w); "
                                              "y.sum().backward()"),
    "backward_with_gradient": "(x * w).backward(gradient=T.ones(3, dtype=T.float64) * 0.5)",
    "backward_retain_graph_accumulates": "s = (x * w).sum(); s.backward(retain_graph=True); s.backward()",
    "backward_inputs": "s = (x * w).sum(); s.backward(inputs=[w])",
    "backward_inputs_single_tensor": "s = (x * w * x).sum(); s.backward(inputs=x)",
    "autograd_grad_prunes": "h = (x * w).exp() + x.sin(); g, = T.autograd.grad(h.sum() * 2, x)",
    "backward_inputs_non_leaf": "h = x * w; s = (h * h).sum(); s.backward(inputs=[h, w]); g = h.grad",
    "data_alias": "d = x.data; d.add_(1); v = x._version; (x * 2).sum().backward()",
    "data_setter": "x.data = const(3); (x * x).sum().backward()",
    "double_backward_through_inplace": ("y = x.clone(); y.mul_(x); g, = T.autograd.grad(y.sum(), x, create_graph=True); "
                                        "g.sum().backward()"),
    "double_backward_through_copy_slices": ("y = x.clone(); y[1:] = w[1:] * x[1:]; "
                                            "g, = T.autograd.grad((y * y).sum(), w, create_graph=True); g.sum().backward()"),
    "post_accumulate_grad_hook": ("h = x.register_post_accumulate_grad_hook(lambda p: (p.grad.mul_(2), None)[1]); "
                                  "(x * w).sum().backward()"),
    "node_hooks": ("n = (x * w).grad_fn; h = n.register_hook(lambda gi, go: None); "
                   "p = n.register_prehook(lambda go: None); (x * w).sum().backward()"),
    "retain_grad_on_view_of_modified_base": ("y = x * 1; v = y[1:]; v.retain_grad(); y.mul_(2); (v * v).sum().backward(); "
                                             "g = v.grad"),
    "hook_on_view_of_modified_base": "y = x * 1; v = y[1:]; v.register_hook(lambda g: g * 10); y.mul_(2); (v * v).sum().backward()",
    "grad_setter": "x.grad = T.ones(3, dtype=T.float64); (x * 2).sum().backward()",
    "grad_set_to_none": "(x * 2).sum().backward(); x.grad = None; (x * 3).sum().backward()",
    "leaf_backward_own_gradient": "g = T.ones(3, dtype=T.float64); x.backward(g); g.mul_(5)",  # x.grad is a copy
    "passthrough_gradient_is_copied": "g = T.ones(3, dtype=T.float64); (x + 0).backward(g); g.mul_(5)",
}


@pytest.mark.parametrize("name", list(API))
def test_tensor_api_matches_torch(torch: Any, name: str) -> None:
    both(torch, API[name], _SETUP)


def test_hook_handles_and_values(torch: Any) -> None:
    seen: dict[str, list] = {"torch": [], "ours": []}
    for T, key in ((torch, "torch"), (dispatcher, "ours")):
        x = _namespace(T)["leaf"](3)
        y = x * 2
        h1 = y.register_hook(lambda g, key=key: seen[key].append(("y", g.tolist())))
        h2 = x.register_hook(lambda g, key=key: seen[key].append(("x", g.tolist())))
        assert isinstance(h1.id, int) and h1.id != h2.id
        (y * y).sum().backward(retain_graph=True)
        h1.remove()
        with h2:  # a handle is a context manager that removes its hook
            (y * y).sum().backward(retain_graph=True)
        (y * y).sum().backward()
        assert y.grad_fn.name() == "MulBackward0" and x.is_leaf and not y.is_leaf
    assert seen["ours"] == seen["torch"] and len(seen["ours"]) == 3


def test_non_leaf_grad_warns_unless_retained(torch: Any) -> None:
    for T in (torch, dispatcher):
        x = _namespace(T)["leaf"](3)
        y = x * 2
        with pytest.warns(UserWarning, match=r"The \.grad attribute of a Tensor that is not a leaf Tensor is being "
                                             r"accessed\. Its \.grad attribute won't be populated"):
            assert y.grad is None
        y.retain_grad()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert y.grad is None and y.retains_grad and not x.retains_grad


def test_next_functions_and_names(torch: Any) -> None:
    for T in (torch, dispatcher):
        env = _namespace(T)
        x, c = env["leaf"](2, 3), env["const"](3)
        out = (x * c).sum(1)
        fn = out.grad_fn
        assert fn.name() == "SumBackward1"
        mul = fn.next_functions[0][0]
        assert type(mul).__name__ == "MulBackward0" and mul.next_functions[1] == (None, 0)
        acc = mul.next_functions[0][0]
        assert type(acc).__name__ == "AccumulateGrad" and acc.variable is x
        assert mul.next_functions[0][0] is (x * 1).grad_fn.next_functions[0][0]  # one AccumulateGrad per leaf


def test_stolen_gradient_is_the_computed_one_but_never_the_users() -> None:
    x = dispatcher.tensor([1.0, 2.0], requires_grad=True)
    g = dispatcher.ones(2)
    x.backward(g)
    assert x.grad.data_ptr() != g.data_ptr()
    y = dispatcher.tensor([1.0, 2.0], requires_grad=True)
    (y * 3).backward(g)
    assert y.grad.tolist() == [3.0, 3.0] and y.grad.data_ptr() != g.data_ptr()


def test_requires_grad_of_views_follows_the_base(torch: Any) -> None:
    for T in (torch, dispatcher):
        b = T.zeros(3)
        v = b[:2]
        assert not v.requires_grad
        b.requires_grad_()
        assert v.requires_grad and v.grad_fn is None and v.is_leaf  # inherited, no history of its own


# --- saved outputs go through shallow_copy_and_detach -----------------------------------------------------
def test_saved_output_is_a_detached_copy_attached_again_on_unpack() -> None:
    log: list = []
    x = dispatcher.tensor([1.0, -2.0], requires_grad=True)
    with _logging_mode(dispatcher.TorchDispatchMode, log):
        y = x.relu()
        saved = y.grad_fn.saved["result"]._data
        y.sum().backward()
    names = [op for op, _, _ in log]
    assert names[:2] == ["aten.relu.default", "aten.detach.default"]  # saved right after the op
    assert "aten.detach.default" in names[names.index("aten.expand.default"):]  # and detached again on unpack
    assert saved is not y and saved._version_counter is y._version_counter and saved.grad_fn is None


# --- the autograd fallback (ops without an autograd kernel) -----------------------------------------------
_TRIGGER = re.compile(r" \(Triggered internally at .*\)$", re.S)


def _fallback_case(T: Any, lib_cls: Any, ns: str, code: str) -> dict[str, Any]:
    lib = lib_cls(ns, "DEF")
    lib.define("f(Tensor x, Tensor y) -> Tensor")
    lib.define("g(Tensor x, Tensor y) -> Tensor")
    lib.define("two(Tensor x) -> (Tensor, Tensor)")
    lib.define("h_(Tensor(a!) x) -> Tensor(a!)")
    lib.impl("f", lambda x, y: x * y + 1, "CPU")  # records its own graph: a hook warns

    def g(x: Any, y: Any) -> Any:
        with T.no_grad():
            return x * y + 1  # no history: WarnNotImplemented

    def h_(x: Any) -> Any:
        with T.no_grad():
            x.mul_(2)
        return x

    lib.impl("g", g, "CPU")
    lib.impl("two", lambda x: (x + 1, (x > 0).long()), "CPU")
    lib.impl("h_", h_, "CPU")
    env = _namespace(T)
    env["ops"] = getattr(T.ops, ns)
    exec("x = leaf(3); w = leaf(3)", env)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(code, env)
    env["warnings"] = [(w.category.__name__, _TRIGGER.sub("", str(w.message))) for w in caught]
    del lib
    return env


FALLBACK = {
    "kernel_records_its_graph": "out = ops.f(x, w); (out * 2).sum().backward()",
    "kernel_without_history": "out = ops.g(x, const(3)); (out * w).sum().backward(); (x * 2).sum().backward()",
    "no_gradient_through_it": "out = ops.g(x, w); gx, = T.autograd.grad(out.sum(), [x], allow_unused=True)",
    "integer_output_stays_plain": "a, b = ops.two(x); (a * 3).sum().backward()",
    "inplace_without_history": "c = const(3); ops.h_(c); (c * x).sum().backward()",
    "no_grad_mode_records_nothing": "with T.no_grad():\n    out = ops.g(x, w)",
}


@pytest.mark.parametrize("name", list(FALLBACK))
def test_autograd_fallback_warn_mode_matches_torch(torch: Any, name: str) -> None:
    import torch.library

    code = FALLBACK[name]
    theirs = _fallback_case(torch, torch.library.Library, f"h3t_{name}", code)
    ours = _fallback_case(dispatcher, dispatcher.Library, f"h3t_{name}", code)
    assert ours["warnings"] == theirs["warnings"]
    for key in ("out", "a", "b", "c", "x", "w"):
        if key in theirs:
            t, o = theirs[key], ours[key]
            assert (o.requires_grad, o.is_leaf) == (t.requires_grad, t.is_leaf), key
            if t.grad_fn is not None:
                assert type(o.grad_fn).__name__ == type(t.grad_fn).__name__, key
                assert o.grad_fn.name() == t.grad_fn.name(), key
            if t.is_leaf and t.requires_grad:
                assert (o.grad is None) == (t.grad is None), key
                if t.grad is not None:
                    np.testing.assert_allclose(_np(o.grad), _np(t.grad), rtol=1e-12, err_msg=key)
    if "gx" in theirs:
        assert (ours["gx"] is None) == (theirs["gx"] is None)


def test_autograd_fallback_modes(torch: Any) -> None:
    from dispatcher.autograd_fallback import get_autograd_fallback_mode, set_autograd_fallback_mode

    assert get_autograd_fallback_mode() == torch._C._get_autograd_fallback_mode() == "warn"
    for bad in ("error", "bogus"):
        with pytest.raises(RuntimeError) as theirs:
            torch._C._set_autograd_fallback_mode(bad)
        with pytest.raises(RuntimeError) as ours:
            set_autograd_fallback_mode(bad)
        assert (str(ours.value) in str(theirs.value)) and str(ours.value)
    lib = dispatcher.Library("h3t_nothing", "DEF")
    lib.define("g(Tensor x) -> Tensor")
    lib.impl("g", lambda x: dispatcher.ops.aten.mul.Tensor(x.detach(), 2), "CPU")
    x = dispatcher.tensor([1.0, 2.0], requires_grad=True)
    set_autograd_fallback_mode("nothing")
    try:
        out = dispatcher.ops.h3t_nothing.g(x)
    finally:
        set_autograd_fallback_mode("warn")
    assert not out.requires_grad and out.grad_fn is None
    assert type(dispatcher.ops.h3t_nothing.g(x).grad_fn).__name__ == "CppFunction"
