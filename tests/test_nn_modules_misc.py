"""Other layers real models use, against torch 2.13: ``Bilinear``, ``ChannelShuffle``, ``Softmax2d``, the channel-wise
and alpha dropouts, ``ParameterList`` / ``ParameterDict``, ``Embedding.from_pretrained``, ``EmbeddingBag`` (modes, offsets, per-sample
weights, padding_idx, include_last_offset, from_pretrained).

Deterministic layers go through tests/nn_oracle.py's check_module (repr, state_dict, values, gradients, make_fx in
the four configurations, replay). The dropouts draw from different generators in the two libraries, so their
graphs are compared (without replay) and their values checked for structure: whole channels zeroed, the kept ones
scaled by 1 / (1 - p); alpha dropout's affine map.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C
from tests.nn_oracle import check_graphs, check_module, randn, same_error
from tests.nn_oracle import wrap_module as _wrap


def _errors(torch: Any, fn: Any) -> None:
    same_error(torch, fn, first_line=True)


# --- Bilinear ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bias,shape", [(True, (4,)), (False, (2, 3))], ids=["bias", "no_bias_batched"])
def test_bilinear(torch: Any, bias: bool, shape: tuple) -> None:
    check_module(torch, lambda L: L.nn.Bilinear(3, 4, 5, bias=bias),
                 lambda L, s: [randn(L, s, *shape, 3), randn(L, s + 1, *shape, 4)])


def test_bilinear_init(torch: Any) -> None:
    """weight and bias U(-1/sqrt(in1), 1/sqrt(in1))."""
    m = D.nn.Bilinear(16, 8, 32)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    bound = 1 / math.sqrt(16)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound


@pytest.mark.parametrize("bad", [
    lambda L: L.nn.Bilinear(0, 2, 3),
    lambda L: L.nn.Bilinear(3, 4, 5)(L.zeros(2, 3), L.zeros(2, 5)),
    lambda L: L.nn.Bilinear(3, 4, 5)(L.zeros(2, 3), L.zeros(3, 4)),
    lambda L: L.nn.functional.bilinear(L.zeros(2, 3), L.zeros(2, 4), L.zeros(5, 3, 4), L.zeros(5, dtype=L.float64)),
], ids=["in1_zero", "in2_size", "batch", "dtype"])
def test_bilinear_errors(torch: Any, bad: Any) -> None:
    _errors(torch, bad)


# --- ChannelShuffle, Softmax2d -------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,groups", [((2, 6, 3), 3), ((2, 4, 2, 2), 2)])
def test_channel_shuffle(torch: Any, shape: tuple, groups: int) -> None:
    check_module(torch, lambda L: L.nn.ChannelShuffle(groups), lambda L, s: [randn(L, s, *shape)])


def test_channel_shuffle_channels_last_and_errors(torch: Any) -> None:
    x = np.random.default_rng(0).standard_normal((2, 4, 3, 3)).astype(np.float32)
    outs = []
    for L in (torch, D):
        t = L.tensor(x).contiguous(memory_format=L.channels_last)
        y = L.nn.functional.channel_shuffle(t, 2)
        outs.append((y.detach().numpy(), tuple(y.stride())))
    C.assert_close(outs[0][0], outs[1][0])
    assert outs[0][1] == outs[1][1]
    for bad in (lambda L: L.nn.ChannelShuffle(4)(L.zeros(2, 6, 3)), lambda L: L.nn.ChannelShuffle(2)(L.zeros(2, 6)),
                lambda L: L.nn.ChannelShuffle(0)(L.zeros(2, 6, 3))):
        _errors(torch, bad)


def test_native_channel_shuffle(torch: Any) -> None:
    """torch.native_channel_shuffle: one node in the post / pre / fake graphs, the math decomposition in core-ATen;
    no derivative (a NotImplemented node, backward fails as torch's)."""
    def make(L: Any) -> Any:
        return _wrap(L, L.nn.Identity(), lambda m, x: L.nn.functional.native_channel_shuffle(m(x), 2))

    check_graphs(torch, make, lambda L, s: [randn(L, s, 2, 4, 3, 3)])
    _errors(torch, lambda L: L.native_channel_shuffle(L.zeros(2, 4, 3, requires_grad=True), 2).sum().backward())


def test_softmax2d(torch: Any) -> None:
    check_module(torch, lambda L: L.nn.Softmax2d(), lambda L, s: [randn(L, s, 2, 3, 2, 2)])
    check_module(torch, lambda L: L.nn.Softmax2d(), lambda L, s: [randn(L, s, 3, 2, 2)], configs=("post",))
    _errors(torch, lambda L: L.nn.Softmax2d()(L.zeros(2, 3)))


# --- dropouts ------------------------------------------------------------------------------------------------------

DROPOUTS = [("Dropout1d", (2, 3, 5)), ("Dropout1d", (3, 5)), ("Dropout2d", (2, 3, 2, 2)), ("Dropout3d", (2, 3, 1, 2, 2)),
            ("Dropout3d", (3, 1, 2, 2)), ("AlphaDropout", (4, 5)), ("FeatureAlphaDropout", (2, 3, 4))]


@pytest.mark.parametrize("name,shape", DROPOUTS, ids=[f"{n}-{len(s)}d" for n, s in DROPOUTS])
def test_dropout_layers(torch: Any, name: str, shape: tuple) -> None:
    """repr; eval is the identity; the training graph has torch's ops (feature noise from new_empty, alpha's affine
    map) in the post-dispatch, pre-dispatch and core-ATen configurations."""
    make = lambda L: getattr(L.nn, name)(0.4)  # noqa: E731
    assert repr(make(D)) == repr(make(torch))
    x = randn(D, 0, *shape)
    m = make(D).eval()
    assert m(x) is x or np.array_equal(m(x).numpy(), x.numpy())
    check_graphs(torch, make, lambda L, s: [randn(L, s, *shape)], configs=("post", "pre", "core"), replay=False)


def test_feature_dropout_values() -> None:
    """Whole channels zeroed, the others scaled by 1 / (1 - p); one noise value per (batch, channel)."""
    D.manual_seed(0)
    x = D.ones(8, 16, 5)
    y = D.nn.Dropout1d(0.25)(x).numpy()
    per_channel = y.reshape(8, 16, 5)
    assert np.all(per_channel == per_channel[..., :1])  # constant along the spatial dim
    vals = set(np.unique(per_channel).tolist())
    assert vals <= {0.0, np.float32(1 / 0.75)}
    assert 0.1 < (per_channel[..., 0] == 0).mean() < 0.45


def test_alpha_dropout_values() -> None:
    """Kept: a * x + b; dropped: the constant -alpha' * a + b (SELU's saturation value, scaled)."""
    p, alpha = 0.5, 1.7580993408473766
    a = 1.0 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    b_keep, b_drop = alpha * a * p, -alpha * a + alpha * a * p
    D.manual_seed(1)
    x = randn(D, 3, 200)
    y = D.nn.AlphaDropout(p)(x).numpy()
    xn = x.numpy()
    kept = np.isclose(y, a * xn + b_keep, atol=1e-6)
    dropped = np.isclose(y, b_drop, atol=1e-6)
    assert np.all(kept | dropped) and 0.3 < dropped.mean() < 0.7


def test_dropout_layer_errors_and_warnings(torch: Any) -> None:
    _errors(torch, lambda L: L.nn.Dropout1d(0.5)(L.zeros(2, 3, 4, 5)))
    _errors(torch, lambda L: L.nn.Dropout2d(1.5))
    _errors(torch, lambda L: L.nn.functional.alpha_dropout(L.zeros(3), 2.0))
    msgs = []
    for L in (torch, D):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            L.nn.Dropout2d(0.5)(L.zeros(2, 3, 4))
            L.nn.Dropout3d(0.5)(L.zeros(2, 3))
        msgs.append([str(i.message) for i in w])
    assert len(msgs[0]) == 2 and msgs[1] == msgs[0]


# --- ParameterList / ParameterDict ---------------------------------------------------------------------------------

def _with_param_containers(L: Any) -> Any:
    class Mixer(L.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.scales = L.nn.ParameterList([L.nn.Parameter(L.ones(4) * (i + 1)) for i in range(2)])
            self.scales.append(L.zeros(4))
            self.extra = L.nn.ParameterDict({"shift": L.nn.Parameter(L.full((4,), 0.5)), "gain": L.ones(1)})

        def forward(self, x: Any) -> Any:
            for s in self.scales:
                x = x * s + 1
            return x * self.extra["gain"] + self.extra["shift"]

    return Mixer()


def test_parameter_containers_in_a_model(torch: Any) -> None:
    check_module(torch, _with_param_containers, lambda L, s: [randn(L, s, 3, 4)])


def test_parameter_list_and_dict_api(torch: Any) -> None:
    def use(L: Any) -> list:
        pl = L.nn.ParameterList([L.zeros(2, 3), L.nn.Parameter(L.zeros(1), requires_grad=False), "x"])
        pl += [L.ones(2)]
        pl[0] = L.ones(3)
        sliced = pl[1:3]
        pd = L.nn.ParameterDict({"b": L.zeros(2), "a": L.ones(1, 2, dtype=L.float64)})
        pd.update([("c", 3), ("d", L.zeros(5))])
        popped = pd.pop("b")
        pd2 = pd | L.nn.ParameterDict({"z": L.zeros(1)})
        k, _ = pd2.popitem()
        return [repr(pl), repr(sliced), len(pl), [type(p).__name__ for p in pl], [n for n, _ in pl.named_parameters()],
                repr(pd), list(pd.keys()), "a" in pd, pd.get("q", 7), type(popped).__name__, repr(pd2), k,
                list(pd2), pd.setdefault("e", None) is None, list(reversed(pd)), repr(pd.fromkeys(["u", "v"]))]

    assert use(D) == use(torch)
    for bad in (lambda L: L.nn.ParameterList()[0], lambda L: L.nn.ParameterList([L.zeros(1)])(1),
                lambda L: L.nn.ParameterList().extend(L.zeros(2)), lambda L: L.nn.ParameterDict()[1],
                lambda L: L.nn.ParameterDict([("a", 1, 2)]), lambda L: L.nn.ParameterDict()(1)):
        _errors(torch, bad)


# --- Embedding.from_pretrained ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("freeze", [True, False])
def test_embedding_from_pretrained(torch: Any, freeze: bool) -> None:
    table = np.random.default_rng(0).standard_normal((6, 3)).astype(np.float32)

    def make(L: Any) -> Any:
        return L.nn.Embedding.from_pretrained(L.tensor(table), freeze=freeze, padding_idx=1)

    check_module(torch, make, lambda L, s: [L.tensor([[0, 1, 5], [2, 1, 3]])], configs=("post", "pre"))
    assert D.nn.Embedding.from_pretrained(D.tensor(table), freeze=freeze).weight.requires_grad is (not freeze)
    _errors(torch, lambda L: L.nn.Embedding.from_pretrained(L.zeros(3)))


# --- EmbeddingBag --------------------------------------------------------------------------------------------------

IDX = [1, 2, 4, 5, 4, 3, 2, 9]
EBAG = {
    "mean_empty_bag": ({}, lambda L, s: [L.tensor(IDX), L.tensor([0, 4, 4])]),
    "sum_per_sample_weights": ({"mode": "sum"}, lambda L, s: [L.tensor(IDX), L.tensor([0, 4]), randn(L, s, 8)]),
    "max_2d": ({"mode": "max"}, lambda L, s: [L.tensor([[1, 2, 4], [5, 4, 3]])]),
    "mean_padding": ({"padding_idx": 4}, lambda L, s: [L.tensor(IDX), L.tensor([0, 3, 8])]),
    "sum_last_offset_freq": ({"mode": "sum", "include_last_offset": True, "scale_grad_by_freq": True},
                             lambda L, s: [L.tensor(IDX), L.tensor([0, 3, 8])]),
    "max_padding_last_offset": ({"mode": "max", "padding_idx": -1, "include_last_offset": True},
                                lambda L, s: [L.tensor(IDX), L.tensor([0, 5, 8])]),
}


@pytest.mark.parametrize("case", list(EBAG))
def test_embedding_bag(torch: Any, case: str) -> None:
    """Values, the weight's (and per-sample weights') gradients, and graphs: _embedding_bag forward,
    _embedding_bag_backward / _embedding_bag_per_sample_weights_backward (pre-dispatch: embedding_bag.padding_idx)."""
    kw, inputs = EBAG[case]
    configs = ("post", "pre", "fake", "core") if case in ("mean_empty_bag", "sum_per_sample_weights") else ("post",
                                                                                                             "pre")
    check_module(torch, lambda L: L.nn.EmbeddingBag(10, 3, **kw), inputs, configs=configs)


def test_embedding_bag_forward_only_and_from_pretrained(torch: Any) -> None:
    """A frozen weight: embedding_bag takes _embedding_bag_forward_only (graphs and values as torch's)."""
    table = np.random.default_rng(1).standard_normal((10, 3)).astype(np.float32)

    def make(L: Any) -> Any:
        return L.nn.EmbeddingBag.from_pretrained(L.tensor(table), mode="sum", padding_idx=2)

    check_module(torch, make, lambda L, s: [L.tensor(IDX), L.tensor([0, 2, 6])], configs=("post", "pre"))
    m = D.nn.EmbeddingBag.from_pretrained(D.tensor(table), freeze=False)
    assert m.weight.requires_grad and repr(m) == repr(torch.nn.EmbeddingBag.from_pretrained(torch.tensor(table),
                                                                                               freeze=False))


@pytest.mark.parametrize("bad", [
    lambda L: L.nn.EmbeddingBag(10, 3)(L.tensor([1, 2])),
    lambda L: L.nn.EmbeddingBag(10, 3, mode="median")(L.tensor([1, 2]), L.tensor([0])),
    lambda L: L.nn.EmbeddingBag(10, 3)(L.tensor([1, 2]), L.tensor([0]), L.ones(2)),
    lambda L: L.nn.EmbeddingBag(10, 3, mode="sum")(L.tensor([1, 2]), L.tensor([0]), L.ones(3)),
    lambda L: L.nn.EmbeddingBag(10, 3)(L.tensor([1, 12]), L.tensor([0])),
    lambda L: L.nn.EmbeddingBag(10, 3)(L.tensor([1, 2]), L.tensor([1])),
    lambda L: L.nn.EmbeddingBag(10, 3)(L.tensor([1.0, 2.0]), L.tensor([0])),
    lambda L: L.nn.EmbeddingBag(10, 3, padding_idx=10),
    lambda L: L.nn.EmbeddingBag(10, 3, mode="max", scale_grad_by_freq=True)(L.tensor([1, 2]), L.tensor([0])),
], ids=["no_offsets", "mode", "psw_mean", "psw_shape", "index_range", "first_offset",
        "float_indices", "padding_idx", "max_freq"])
def test_embedding_bag_errors(torch: Any, bad: Any) -> None:
    _errors(torch, bad)


def test_embedding_bag_2d_input_with_offsets() -> None:
    """torch's message names the offsets' class (ours: dispatcher.tensor.Tensor, torch's: torch.Tensor)."""
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None, as input is treated is a "
                                         "mini-batch of fixed length sequences. However, found offsets of type <class "
                                         "'dispatcher.tensor.Tensor'>"):
        D.nn.EmbeddingBag(10, 3)(D.tensor([[1, 2]]), D.tensor([0]))
