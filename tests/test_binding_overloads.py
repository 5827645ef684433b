"""The overloads torch's Python bindings pick (issue 17 item 2, continued): every call below is traced by both
libraries with make_fx, post- and pre-dispatch, and must give torch's graph code (targets and arguments) and, run
on fresh inputs, torch's values.

Covered: the rounded in-place divisions (``div_`` / ``divide_`` with ``rounding_mode``: ``.Tensor_mode``),
``subtract(_)`` with alpha positional after a number (``.Scalar``), ``rsub`` (``torch.rsub`` and ``__rsub__`` with a
Tensor: ``rsub.Tensor``), torch's deprecated ``add(Number alpha, Tensor other)`` signatures of add / sub / add_ /
sub_, ``where(condition)`` (``where.default``, CompositeImplicitAutograd, kept whole before dispatch),
``x.to(other)`` (torch's binding calls ``to.device`` with other's device and dtype), ``squeeze`` with several dims
(``squeeze.dims``; the method takes them as separate arguments), ``copy_`` with a number, ``rounding_mode=None``
given explicitly (torch's parser then picks ``div.Tensor_mode``), ``Tensor.sum_to_size``, and the torch-level
functions of CompositeImplicitAutograd ops (``torch.layer_norm``, ``rms_norm``, ``dropout``, ``kl_div`` and the
other losses, ``selu``, ``cosine_similarity``, ``adjoint``) and the Tensor methods of listed ops we lacked
(``pow_``, ``clamp_min_``, ``masked_scatter(_)``, ``index_put(_)``, ``split_with_sizes``, ``as_strided``,
``new_empty_strided``; ``bernoulli_`` below, its values being random).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import dispatcher as D


def _calls(L: Any) -> list[tuple[str, Any]]:
    return [
        ("div__mode", lambda x, y: x.clone().div_(y, rounding_mode="floor")),
        ("div__number_mode", lambda x, y: x.clone().div_(2.0, rounding_mode="trunc")),
        ("divide__mode", lambda x, y: x.clone().divide_(y, rounding_mode="trunc")),
        ("divide__number_mode", lambda x, y: x.clone().divide_(3, rounding_mode="floor")),
        ("divide_number_mode", lambda x, y: x.divide(2.0, rounding_mode="floor")),
        ("div_number_mode", lambda x, y: L.div(x, 2, rounding_mode="trunc")),
        ("subtract_number_alpha", lambda x, y: x.subtract(3, 2)),
        ("torch_subtract_number_alpha", lambda x, y: L.subtract(x, 3, 2)),
        ("subtract__number_alpha", lambda x, y: x.clone().subtract_(3, 2)),
        ("subtract__number_alpha_kw", lambda x, y: x.clone().subtract_(3, alpha=2)),
        ("sub__number", lambda x, y: x.clone().sub_(3)),
        ("rsub_operator_tensor", lambda x, y: y.__rsub__(x)),
        ("torch_rsub", lambda x, y: L.rsub(x, y)),
        ("torch_rsub_alpha", lambda x, y: L.rsub(x, y, alpha=2)),
        ("torch_rsub_number", lambda x, y: L.rsub(x, 2)),
        ("torch_rsub_number_alpha", lambda x, y: L.rsub(x, 2, 3)),
        ("number_minus", lambda x, y: 2.0 - x),
        ("add_deprecated", lambda x, y: L.add(x, 2, y)),
        ("add_deprecated_numbers", lambda x, y: L.add(x, 3, 2)),
        ("sub_deprecated", lambda x, y: L.sub(x, 2, y)),
        ("add_method_deprecated", lambda x, y: x.add(3, 2)),
        ("sub_method_deprecated", lambda x, y: x.sub(2, y)),
        ("add__deprecated", lambda x, y: x.clone().add_(2, y)),
        ("sub__deprecated", lambda x, y: x.clone().sub_(3, 2)),
        ("where_condition", lambda x, y: L.where(x > 0)),
        ("where_condition_0dim", lambda x, y: L.where(x.sum() > 0)),
        ("to_other", lambda x, y: x.to(y.double())),
        ("to_other_same", lambda x, y: x.to(y)),
        ("to_other_copy", lambda x, y: x.to(y, copy=True)),
        ("to_other_positional_flags", lambda x, y: x.to(y, False, True)),
        ("to_other_memory_format", lambda x, y: x.to(y, non_blocking=True, memory_format=L.contiguous_format)),
        ("aten_to_other", lambda x, y: L.ops.aten.to.other(x, y.double())),
        ("squeeze_dims", lambda x, y: x.reshape(1, 3, 1, 4).squeeze((0, 2))),
        ("squeeze_separate_dims", lambda x, y: x.reshape(1, 3, 1, 4).squeeze(0, 2)),
        ("squeeze__separate_dims", lambda x, y: x.clone().reshape(1, 3, 1, 4).squeeze_(0, 2)),
        ("torch_squeeze_dims", lambda x, y: L.squeeze(x.reshape(1, 3, 1, 4), [0, 2])),
        ("copy_number", lambda x, y: x.clone().copy_(2.0)),
        ("copy_int", lambda x, y: x.clone().copy_(2)),
        ("copy_tensor_non_blocking", lambda x, y: x.clone().copy_(y, True)),
        ("div_mode_none", lambda x, y: x.div(y, rounding_mode=None)),
        ("torch_div_mode_none", lambda x, y: L.div(x, 2, rounding_mode=None)),
        ("div__mode_none", lambda x, y: x.clone().div_(y, rounding_mode=None)),
        ("divide_mode_none", lambda x, y: L.divide(x, y, rounding_mode=None)),
        ("divide__number_mode_none", lambda x, y: x.clone().divide_(2, rounding_mode=None)),
        ("sum_to_size", lambda x, y: x.reshape(3, 1, 4).expand(3, 2, 4).sum_to_size(1, 2, 4)),
        ("sum_to_size_list", lambda x, y: x.sum_to_size((1, 4))),
        # torch-level functions of CompositeImplicitAutograd ops (their bindings' defaults: reduction is 0)
        ("torch_adjoint", lambda x, y: L.adjoint(x)),
        ("torch_layer_norm", lambda x, y: L.layer_norm(x, [4])),
        ("torch_layer_norm_eps", lambda x, y: L.layer_norm(x, (4,), None, None, 1e-3)),
        ("torch_rms_norm", lambda x, y: L.rms_norm(x, [4], y[0])),
        ("torch_dropout_eval", lambda x, y: L.dropout(x, 0.5, False)),
        ("torch_kl_div", lambda x, y: L.kl_div(x, y)),
        ("torch_kl_div_log_target", lambda x, y: L.kl_div(x, y, 1, log_target=True)),
        ("torch_margin_ranking_loss", lambda x, y: L.margin_ranking_loss(x, y, y.sign())),
        ("torch_hinge_embedding_loss", lambda x, y: L.hinge_embedding_loss(x, y.sign(), 0.5)),
        ("torch_cosine_embedding_loss", lambda x, y: L.cosine_embedding_loss(x, y, y[:, 0].sign())),
        ("torch_poisson_nll_loss", lambda x, y: L.poisson_nll_loss(x, y.abs(), True, False, 1e-8, 1)),
        ("torch_selu", lambda x, y: L.selu(x)),
        ("torch_selu_", lambda x, y: L.selu_(x.clone())),
        ("torch_cosine_similarity", lambda x, y: L.cosine_similarity(x, y)),
        ("torch_cosine_similarity_dim", lambda x, y: L.cosine_similarity(x, y, 0, 1e-6)),
        # Tensor methods of listed ops
        ("pow_", lambda x, y: x.clone().pow_(2)),
        ("clamp_min_", lambda x, y: x.clone().clamp_min_(0)),
        ("clamp_min__tensor", lambda x, y: x.clone().clamp_min_(y)),
        ("masked_scatter", lambda x, y: x.masked_scatter(x > 0, y)),
        ("masked_scatter_", lambda x, y: x.clone().masked_scatter_(x > 0, y)),
        ("index_put", lambda x, y: x.index_put((y[0].abs().long().clamp_max(2),), y[1, 0])),
        ("index_put__accumulate", lambda x, y: x.clone().index_put_([y[0].abs().long().clamp_max(2)], y[1, 0], True)),
        ("split_with_sizes", lambda x, y: x.split_with_sizes([1, 3], 1)),
        ("split_with_sizes_dim0", lambda x, y: x.split_with_sizes([1, 2])),
        ("as_strided", lambda x, y: x.as_strided((2, 2), (1, 2))),
        ("as_strided_offset", lambda x, y: x.as_strided((2, 2), (1, 2), 1)),
        ("new_empty_strided", lambda x, y: x.new_empty_strided((2, 3), (3, 1)).fill_(1.0)),
        # torch-level functions of listed ops
        ("torch_relu_", lambda x, y: L.relu_(x.clone())),
        ("torch_celu", lambda x, y: L.celu(x)),
        ("torch_celu_alpha", lambda x, y: L.celu_(x.clone(), 0.5)),
        ("torch_threshold", lambda x, y: L.threshold(x, 0.1, 2.0)),
        ("torch_threshold_", lambda x, y: L.threshold_(x.clone(), 0.1, 2.0)),
        ("torch_zero_", lambda x, y: L.zero_(x.clone())),
        ("torch_fill_", lambda x, y: L.fill_(x.clone(), 2.0)),
        ("torch_fill__tensor", lambda x, y: L.fill_(x.clone(), y[0, 0])),
        ("torch_detach_", lambda x, y: L.detach_(x.clone())),
        ("torch_split_with_sizes", lambda x, y: L.split_with_sizes(x, [1, 3], 1)),
        ("torch_as_strided", lambda x, y: L.as_strided(x, (2, 2), (1, 2), 1)),
        ("torch_constant_pad_nd", lambda x, y: L.constant_pad_nd(x, [1, 1])),
        ("torch_constant_pad_nd_value", lambda x, y: L.constant_pad_nd(x, [1, 1], 2.0)),
        ("torch_xlogy_", lambda x, y: L.xlogy_(y.abs(), 2)),
        ("torch_xlogy__tensor", lambda x, y: L.xlogy_(y.abs(), x.abs())),
        ("torch_masked_scatter", lambda x, y: L.masked_scatter(x, x > 0, y)),
        ("torch_index_put", lambda x, y: L.index_put(x, (y[0].abs().long().clamp_max(2),), y[1, 0])),
        ("torch_index_put_", lambda x, y: L.index_put_(x.clone(), [y[0].abs().long().clamp_max(2)], y[1, 0], True)),
        ("torch_clamp_min_", lambda x, y: L.clamp_min_(x.clone(), 0)),
        ("torch_bce_with_logits", lambda x, y: L.binary_cross_entropy_with_logits(x, y.sigmoid())),
        ("torch_native_layer_norm", lambda x, y: L.native_layer_norm(x, [4], None, None, 1e-5)),
        ("torch_native_batch_norm", lambda x, y: L.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)),
        ("torch_native_group_norm", lambda x, y: L.native_group_norm(x.reshape(3, 4, 1), None, None, 3, 4, 1, 2, 1e-5)),
        ("torch_native_dropout_eval", lambda x, y: L.native_dropout(x, 0.5, False)),
        ("torch_embedding", lambda x, y: L.embedding(x, y[0].abs().long().clamp_max(2))),
        ("torch_embedding_padding_idx", lambda x, y: L.embedding(x, y[0].abs().long().clamp_max(2), 1)),
        ("torch_empty_strided", lambda x, y: L.empty_strided((2, 3), (3, 1)).fill_(1.0) + x[:2, :3]),
    ]


_N = len(_calls(D))


def _inputs(lib: Any, seed: int) -> tuple[Any, Any]:
    a, b = (np.random.default_rng(seed + s).standard_normal((3, 4)).astype(np.float32) for s in (0, 1))
    return lib.tensor(a), lib.tensor(b)


@pytest.mark.parametrize("i", range(_N))
@pytest.mark.parametrize("pre_dispatch", [False, True], ids=["post", "pre"])
def test_binding_graphs_match_torch(torch: Any, i: int, pre_dispatch: bool) -> None:
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    from tracer import make_fx

    name, f = _calls(D)[i]
    _, tf = _calls(torch)[i]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the deprecated signatures)
        gm = make_fx(f, pre_dispatch=pre_dispatch)(*_inputs(D, 0))
        gt = torch_make_fx(tf, pre_dispatch=pre_dispatch)(*_inputs(torch, 0))
        assert gm.code.strip() == gt.code.strip(), name
        out, ref = gm(*_inputs(D, 7)), tf(*_inputs(torch, 7))
    outs, refs = (list(out), list(ref)) if isinstance(ref, tuple) else ([out], [ref])
    assert len(outs) == len(refs)
    for o, r in zip(outs, refs):
        assert repr(o.dtype) == repr(r.dtype) and tuple(o.shape) == tuple(r.shape), name
        np.testing.assert_allclose(o.numpy(), r.numpy(), rtol=1e-6, err_msg=name)


def test_deprecated_alpha_signature_warns_once_as_torch(torch: Any) -> None:
    import dispatcher.api.arithmetic as A

    A._DEPRECATION_WARNED.clear()
    x = D.tensor([10.0, 20.0])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        np.testing.assert_array_equal(x.add(3, 2).numpy(), [16.0, 26.0])
        np.testing.assert_array_equal(x.sub(3, 2).numpy(), [4.0, 14.0])
    assert len(w) == 1 and w[0].category is UserWarning and w[0].filename == __file__
    assert str(w[0].message) == ("This overload of add is deprecated:\n\tadd(Number alpha, Tensor other)\n"
                                 "Consider using one of the following signatures instead:\n"
                                 "\tadd(Tensor other, *, Number alpha = 1)")


@pytest.mark.parametrize("call", [
    "L.add(x, y, 2)", "x.add(y, 2)", "x.clone().add_(y, 2)", "L.rsub(x, y, 2)", "L.subtract(x, 2, y)",
    "x.subtract(2, y)", "L.squeeze(x, 0, 0)", "x.clone().copy_(None)", "x.clone().copy_('a')", "x.to(y, L.float64)",
    "x.reshape(1, 3, 4).squeeze(0, 0)",
])
def test_binding_errors_are_torchs(torch: Any, call: str) -> None:
    msgs = []
    for L in (torch, D):
        x, y = _inputs(L, 0)
        with pytest.raises((TypeError, RuntimeError)) as info:
            eval(call)
        msgs.append((type(info.value), str(info.value).split("\n")[0]))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("call", [
    "L.ops.aten.div.Scalar_mode(x, 2.5, rounding_mode='floor')", "L.ops.aten.div_.Scalar_mode(x.clone(), -2, rounding_mode=None)",
    "L.ops.aten.rsub.Tensor(x, y, alpha=2)", "L.ops.aten.sub_.Scalar(x.clone(), 3, 2)",
    "L.ops.aten.divide_.Tensor_mode(x.clone(), y, rounding_mode='trunc')",
])
def test_new_overloads_backward_as_torch(torch: Any, call: str) -> None:
    """Gradients and node names of the added overloads (DivBackward3, RsubBackward0, SubBackward1, DivBackward2)."""
    res = []
    for L in (torch, D):
        x, y = (t.requires_grad_() for t in _inputs(L, 3))
        out = eval(call)
        gx, gy = L.autograd.grad((out * out).sum(), (x, y), allow_unused=True)
        res.append((out.grad_fn.name(), [None if g is None else g.detach().numpy() for g in (gx, gy)]))
    assert res[0][0] == res[1][0]
    for a, b in zip(res[0][1], res[1][1]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(b, a, rtol=1e-5)


@pytest.mark.parametrize("pre_dispatch", [False, True], ids=["post", "pre"])
def test_bernoulli__graph_matches_torch(torch: Any, pre_dispatch: bool) -> None:
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    from tracer import make_fx

    def f(L: Any) -> Any:
        return lambda x: (x.clone().bernoulli_(), x.clone().bernoulli_(0.25))

    gm = make_fx(f(D), pre_dispatch=pre_dispatch)(D.ones(3, 4))
    gt = torch_make_fx(f(torch), pre_dispatch=pre_dispatch)(torch.ones(3, 4))
    assert gm.code.strip() == gt.code.strip()
    a, b = gm(D.ones(3, 4))
    assert set(np.unique(a.numpy())) <= {0.0, 1.0} and set(np.unique(b.numpy())) <= {0.0, 1.0}
