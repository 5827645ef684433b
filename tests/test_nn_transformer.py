"""``nn.MultiheadAttention``, the Transformer layers and stacks, and a small encoder-decoder model, against torch 2.13.

Each module is written once as ``make(L)`` and checked with tests/nn_oracle.py: repr, state_dict keys, forward
values, input and parameter gradients, make_fx graphs (real, pre-dispatch, fake, core-ATen) and their replay. The
configurations are the ones that change the ops: masks (bool / float, 2-d / 3-d, key padding), need_weights (baddbmm
+ softmax vs scaled_dot_product_attention), bias_k / bias_v, add_zero_attn, kdim / vdim, batch_first, unbatched
input, is_causal, norm_first, activations. The fast paths (eval, no grad) are compared by value, and the reasons
and warnings by text.

The "fake" configuration is left out for the stacks (TransformerEncoder / Decoder / Transformer): their layers are
``copy.deepcopy`` clones, and torch's deepcopy of parameters made under a FakeTensorMode gives tensors its make_fx
then rejects ("Mixing fake modes"), so torch has no graph to compare with there.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import dispatcher as D
from tests import corpus as C
from tests.nn_oracle import build_both, check_eager, check_graphs, check_module, randn, same_error, trace
from tests.nn_oracle import wrap_module as _wrap

NO_FAKE = ("post", "pre", "core")
STACK = ("post", "pre")  #: the stacks repeat their layers' ops: two configurations keep the file fast


def _bool_mask(L: Any, rows: list) -> Any:
    return L.tensor(rows, dtype=L.bool)


# ---------------------------------------------------------------------------------------------------------------
# MultiheadAttention

KPM = [[False, False, True], [False, True, True]]  # (N=2, S=3)
CAUSAL = [[False, True, True], [False, False, True], [False, False, False]]

MHA_CASES = {
    # name: (constructor kwargs, call kwargs builder, self-attention?)
    "self": ({}, lambda L: {}, True),
    "self_no_weights": ({}, lambda L: {"need_weights": False}, True),
    "per_head_weights": ({}, lambda L: {"average_attn_weights": False}, True),
    "kpm_bool": ({}, lambda L: {"key_padding_mask": _bool_mask(L, KPM)}, True),
    "kpm_bool_no_weights": ({}, lambda L: {"key_padding_mask": _bool_mask(L, KPM), "need_weights": False}, True),
    "kpm_float_attn_float": ({}, lambda L: {"key_padding_mask": _bool_mask(L, KPM).float() * -1e4,
                                            "attn_mask": L.triu(L.full((3, 3), -1e4), 1)}, True),
    "attn_bool_2d": ({}, lambda L: {"attn_mask": _bool_mask(L, CAUSAL)}, True),
    "attn_bool_3d_no_weights": ({}, lambda L: {"attn_mask": _bool_mask(L, [CAUSAL] * 4), "need_weights": False}, True),
    "causal_hint": ({}, lambda L: {"attn_mask": _bool_mask(L, CAUSAL), "is_causal": True, "need_weights": False},
                    True),
    "cross": ({}, lambda L: {}, False),
    "cross_no_weights_kpm": ({}, lambda L: {"need_weights": False, "key_padding_mask": _bool_mask(L, KPM)}, False),
    "bias_kv_zero_attn": ({"add_bias_kv": True, "add_zero_attn": True},
                          lambda L: {"key_padding_mask": _bool_mask(L, KPM), "attn_mask": _bool_mask(L, CAUSAL)}, True),
    "kdim_vdim": ({"kdim": 5, "vdim": 6}, lambda L: {}, False),
    "kdim_vdim_no_bias": ({"kdim": 5, "vdim": 6, "bias": False}, lambda L: {"need_weights": False}, False),
    "batch_first": ({"batch_first": True}, lambda L: {"key_padding_mask": _bool_mask(L, KPM)}, True),
    "batch_first_cross": ({"batch_first": True}, lambda L: {"need_weights": False}, False),
}


def _mha_make(case: str) -> Any:
    ctor, _, _ = MHA_CASES[case]

    def make(L: Any) -> Any:
        mha = L.nn.MultiheadAttention(8, 2, **ctor)
        call_kw = MHA_CASES[case][1]

        def call(m: Any, q: Any, k: Any, v: Any) -> Any:
            if MHA_CASES[case][2]:
                k = v = q
            return m(q, k, v, **call_kw(L))

        return _wrap(L, mha, call)

    return make


def _mha_inputs(case: str) -> Any:
    ctor = MHA_CASES[case][0]
    bf = ctor.get("batch_first", False)

    def make_inputs(L: Any, seed: int) -> list:
        shape_q = (2, 4, 8) if bf else (4, 2, 8)  # L=4 queries
        shape_kv = (2, 3) if bf else (3, 2)       # S=3 keys
        q = randn(L, seed, *shape_q)
        if MHA_CASES[case][2]:
            q = randn(L, seed, *((2, 3, 8) if bf else (3, 2, 8)))
        k = randn(L, seed + 1, *shape_kv, ctor.get("kdim", 8))
        v = randn(L, seed + 2, *shape_kv, ctor.get("vdim", 8))
        return [q, k, v]

    return make_inputs


@pytest.mark.parametrize("case", list(MHA_CASES))
def test_multihead_attention(torch: Any, case: str) -> None:
    configs = ("post", "pre", "fake", "core") if case in ("self", "kpm_bool_no_weights", "kdim_vdim") else NO_FAKE
    check_module(torch, _mha_make(case), _mha_inputs(case), configs=configs)


def test_multihead_attention_unbatched_and_dropout_eval(torch: Any) -> None:
    """Unbatched (L, E) input; dropout > 0 in eval mode is the identity (training=False sets dropout_p to 0)."""
    def make(L: Any) -> Any:
        mha = L.nn.MultiheadAttention(8, 4, dropout=0.5).eval()
        return _wrap(L, mha, lambda m, x: m(x, x, x, key_padding_mask=L.tensor([False, False, True]),
                                            attn_mask=_bool_mask(L, [CAUSAL] * 4)))

    check_module(torch, make, lambda L, s: [randn(L, s, 3, 8)], configs=NO_FAKE)


def test_multihead_attention_parameters_and_init(torch: Any) -> None:
    """Names, shapes and the initialisation: xavier_uniform_ projection weights (bound sqrt(6 / (fan_in + fan_out))
    of the packed (3E, E) or the separate weights), zero in_proj_bias and out_proj.bias, xavier_normal_ bias_k /
    bias_v. (The generators differ between the libraries, so the distributions are checked, not the values.)"""
    import math

    import numpy as np

    for kw in ({}, {"add_bias_kv": True, "kdim": 32, "vdim": 48}, {"bias": False}):
        m_t, m_o = torch.nn.MultiheadAttention(64, 4, **kw), D.nn.MultiheadAttention(64, 4, **kw)
        assert repr(m_o) == repr(m_t)
        shapes = lambda m: [(k, tuple(v.shape)) for k, v in m.state_dict().items()]  # noqa: E731
        assert shapes(m_o) == shapes(m_t)
        assert type(m_o.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
        sd = {k: v.numpy() for k, v in m_o.state_dict().items()}
        for name in ("in_proj_weight", "q_proj_weight", "k_proj_weight", "v_proj_weight"):
            if name in sd:
                fan_out, fan_in = sd[name].shape
                bound = math.sqrt(6.0 / (fan_in + fan_out))
                assert np.abs(sd[name]).max() <= bound
                assert abs(sd[name].std() - bound / math.sqrt(3)) < 0.1 * bound
        for name in ("in_proj_bias", "out_proj.bias"):
            if name in sd:
                assert not sd[name].any()
        if "bias_k" in sd:  # xavier_normal_ on (1, 1, E): fan_in = 1, fan_out = E
            both = np.concatenate([sd["bias_k"].ravel(), sd["bias_v"].ravel()])
            assert abs(both.std() - math.sqrt(2.0 / 65)) < 0.35 * math.sqrt(2.0 / 65)


def _eager_no_grad(torch: Any, make: Any, make_inputs: Any) -> None:
    """Eval-mode forward without grad in both libraries (the fast paths): equal values."""
    m_t, a_t, m_o, a_o = build_both(torch, make, make_inputs)
    with torch.no_grad():
        out_t = m_t(*a_t)
    with D.no_grad():
        out_o = m_o(*a_o)
    C.assert_close(C.to_np(out_t), C.to_np(out_o))


@pytest.mark.parametrize("call_kw", [
    {}, {"need_weights": False}, {"average_attn_weights": False}, {"key_padding_mask": "kpm"},
    {"attn_mask": "causal", "need_weights": False}, {"attn_mask": "causal", "key_padding_mask": "kpm"},
], ids=["weights", "no_weights", "per_head", "kpm", "attn", "attn_kpm"])
def test_multihead_attention_fast_path_values(torch: Any, call_kw: dict) -> None:
    """Eval, batch_first, even heads, self-attention, no grad: torch runs _native_multi_head_attention."""
    def make(L: Any) -> Any:
        def call(m: Any, x: Any) -> Any:
            kw = {k: v for k, v in call_kw.items() if not isinstance(v, str)}
            if call_kw.get("key_padding_mask") == "kpm":
                kw["key_padding_mask"] = _bool_mask(L, KPM)
            if call_kw.get("attn_mask") == "causal":
                kw["attn_mask"] = _bool_mask(L, CAUSAL)
            return m(x, x, x, **kw)

        return _wrap(L, L.nn.MultiheadAttention(8, 2, batch_first=True).eval(), call)

    _eager_no_grad(torch, make, lambda L, s: [randn(L, s, 2, 3, 8)])


def test_multihead_attention_traced_under_no_grad(torch: Any) -> None:
    """make_fx of an eval module under no_grad: neither library takes the fast path (torch's has_torch_function is
    true under make_fx's TorchFunctionMetadataMode): the regular graph, op for op."""
    def make(L: Any) -> Any:
        def call(m: Any, x: Any) -> Any:
            with L.no_grad():
                return m(x, x, x, key_padding_mask=_bool_mask(L, KPM))

        return _wrap(L, L.nn.MultiheadAttention(8, 2, batch_first=True).eval(), call)

    check_graphs(torch, make, lambda L, s: [randn(L, s, 2, 3, 8)], configs=("post", "pre"))


@pytest.mark.parametrize("bad", [
    lambda L: L.nn.MultiheadAttention(8, 3),
    lambda L: L.nn.MultiheadAttention(0, 2),
    lambda L: L.nn.MultiheadAttention(8, 2)(L.zeros(3, 2, 8), L.zeros(3, 2, 8), L.zeros(3, 2, 8), is_causal=True),
    lambda L: L.nn.MultiheadAttention(8, 2)(L.zeros(3, 2, 8), L.zeros(3, 8), L.zeros(3, 8)),
    lambda L: L.nn.MultiheadAttention(8, 2)(L.zeros(3, 2, 8), L.zeros(3, 2, 8), L.zeros(3, 2, 8),
                                            attn_mask=L.zeros(3, 3, dtype=L.int64)),
    lambda L: L.nn.MultiheadAttention(8, 2)(L.zeros(3, 2, 8), L.zeros(3, 2, 8), L.zeros(3, 2, 8),
                                            attn_mask=L.zeros(2, 3, dtype=L.bool)),
    lambda L: L.nn.MultiheadAttention(8, 2)(L.zeros(3, 2, 8), L.zeros(3, 2, 8), L.zeros(3, 2, 8),
                                            key_padding_mask=L.zeros(2, 4, dtype=L.bool)),
    lambda L: L.nn.MultiheadAttention(8, 2)(L.zeros(3, 2, 6), L.zeros(3, 2, 6), L.zeros(3, 2, 6)),
    lambda L: L.nn.MultiheadAttention(8, 2)(L.zeros(3, 2, 2, 8), L.zeros(3, 2, 8), L.zeros(3, 2, 8)),
    lambda L: L.nn.TransformerEncoderLayer(8, 2, activation="tanh"),
    lambda L: L.nn.Transformer(8, 2, 1, 1, 16)(L.zeros(3, 2, 8), L.zeros(4, 3, 8)),
    lambda L: L.nn.Transformer(8, 2, 1, 1, 16)(L.zeros(3, 2, 8), L.zeros(4, 2, 6)),
], ids=["heads", "embed0", "causal_no_mask", "kv_rank", "int_mask", "mask_shape", "kpm_shape", "embed_dim",
        "query_rank", "activation", "batch", "features"])
def test_errors(torch: Any, bad: Any) -> None:
    same_error(torch, bad)


def test_mismatched_mask_types_warn(torch: Any) -> None:
    """A float key padding mask with a bool attention mask: torch's deprecation warning, same text."""
    msgs = []
    for L in (torch, D):
        m = L.nn.MultiheadAttention(8, 2)
        x = L.zeros(3, 2, 8)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m(x, x, x, key_padding_mask=L.zeros(2, 3), attn_mask=L.zeros(3, 3, dtype=L.bool))
        msgs.append([str(i.message) for i in w])
    assert msgs[1] == msgs[0] and msgs[0]


# ---------------------------------------------------------------------------------------------------------------
# Transformer layers and stacks

def _enc_layer(L: Any, **kw: Any) -> Any:
    kw = {"dim_feedforward": 16, "dropout": 0.0, **kw}
    return L.nn.TransformerEncoderLayer(8, 2, **kw)


LAYER_CASES = {
    "post_norm": ({}, {}),
    "pre_norm_gelu": ({"norm_first": True, "activation": "gelu"}, {}),
    "batch_first_masks": ({"batch_first": True}, {"src_mask": "causal", "src_key_padding_mask": "kpm"}),
    "callable_activation_no_bias": ({"activation": "silu", "bias": False}, {"src_mask": "causal"}),
    "causal_hint": ({}, {"src_mask": "causal_float", "is_causal": True}),
}


def _masks(L: Any, kw: dict) -> dict:
    out = {}
    for k, v in kw.items():
        if v == "causal":
            out[k] = _bool_mask(L, CAUSAL)
        elif v == "causal_float":
            out[k] = L.nn.Transformer.generate_square_subsequent_mask(3)
        elif v == "kpm":
            out[k] = _bool_mask(L, KPM)
        else:
            out[k] = v
    return out


def _activation(L: Any, kw: dict) -> dict:
    if kw.get("activation") == "silu":
        return {**kw, "activation": L.nn.functional.silu}
    return kw


@pytest.mark.parametrize("case", list(LAYER_CASES))
def test_transformer_encoder_layer(torch: Any, case: str) -> None:
    ctor, call_kw = LAYER_CASES[case]
    bf = ctor.get("batch_first", False)

    def make(L: Any) -> Any:
        layer = _enc_layer(L, **_activation(L, ctor))
        return _wrap(L, layer, lambda m, x: m(x, **_masks(L, call_kw)))

    configs = ("post", "pre", "fake", "core") if case == "batch_first_masks" else NO_FAKE
    check_module(torch, make, lambda L, s: [randn(L, s, *((2, 3, 8) if bf else (3, 2, 8)))], configs=configs)


@pytest.mark.parametrize("case", ["post_norm", "pre_norm_gelu", "batch_first_masks"])
def test_transformer_decoder_layer(torch: Any, case: str) -> None:
    ctor, _ = LAYER_CASES[case]
    bf = ctor.get("batch_first", False)

    def make(L: Any) -> Any:
        layer = L.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **ctor)
        kw: dict = {}
        if case == "batch_first_masks":
            kw = {"tgt_mask": _bool_mask(L, CAUSAL), "memory_key_padding_mask": _bool_mask(L, [[False] * 4,
                                                                                            [False, False, True, True]]),
                  "tgt_is_causal": True}
        return _wrap(L, layer, lambda m, t, mem: m(t, mem, **kw))

    def inputs(L: Any, s: int) -> list:
        return [randn(L, s, *((2, 3, 8) if bf else (3, 2, 8))), randn(L, s + 1, *((2, 4, 8) if bf else (4, 2, 8)))]

    configs = ("post", "pre", "fake", "core") if case == "post_norm" else STACK
    check_module(torch, make, inputs, configs=configs)


def _encoder(L: Any, batch_first: bool = True, norm_first: bool = False, nested: bool = True) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return L.nn.TransformerEncoder(_enc_layer(L, batch_first=batch_first, norm_first=norm_first), 2,
                                       norm=L.nn.LayerNorm(8), enable_nested_tensor=nested)


@pytest.mark.parametrize("kw", [{"mask": "causal_float", "is_causal": True}, {"src_key_padding_mask": "kpm"},
                                {"is_causal": None}], ids=["causal", "kpm", "no_mask"])
def test_transformer_encoder(torch: Any, kw: dict) -> None:
    check_module(torch, lambda L: _wrap(L, _encoder(L), lambda m, x: m(x, **_masks(L, kw))),
                 lambda L, s: [randn(L, s, 2, 3, 8)], configs=STACK)


def test_transformer_encoder_detected_causal_mask(torch: Any) -> None:
    """is_causal=None with a mask: _detect_is_causal_mask compares the mask with the causal one (a bool() of a
    tensor): eager values agree; make_fx cannot trace it in either library (data-dependent control flow)."""
    def make(L: Any) -> Any:
        return _wrap(L, _encoder(L), lambda m, x: m(x, mask=L.nn.Transformer.generate_square_subsequent_mask(3)))

    check_eager(torch, make, lambda L, s: [randn(L, s, 2, 3, 8)])
    m_t, a_t, m_o, a_o = build_both(torch, make, lambda L, s: [randn(L, s, 2, 3, 8)])
    with pytest.raises(RuntimeError, match="data-dependent"):
        trace(torch, m_t, a_t, "post")
    with pytest.raises(Exception, match="data-dependent|DataDependent|_local_scalar_dense"):
        trace(D, m_o, a_o, "post")


def test_transformer_encoder_eval_traced(torch: Any) -> None:
    """Eval mode with a key padding mask: torch's mask check (logical_not + _nested_tensor_from_mask_left_aligned)
    runs, and is recorded, before the grad check sends it to the regular path."""
    def make(L: Any) -> Any:
        return _wrap(L, _encoder(L).eval(), lambda m, x: m(x, src_key_padding_mask=_bool_mask(L, KPM)))

    check_graphs(torch, make, lambda L, s: [randn(L, s, 2, 3, 8)], configs=("post", "pre"))


@pytest.mark.parametrize("kpm", [KPM, [[False, True, False], [False, False, False]], None],
                         ids=["left_aligned", "not_left_aligned", "none"])
def test_transformer_encoder_fast_path_values(torch: Any, kpm: Any) -> None:
    """Eval + no grad: torch runs the layers on a nested tensor (left-aligned padding: padded positions come out 0
    before the final norm) or the fused layer; ours gives the same values."""
    def make(L: Any) -> Any:
        return _wrap(L, _encoder(L).eval(), lambda m, x: m(x, src_key_padding_mask=None if kpm is None
                                                            else _bool_mask(L, kpm)))

    _eager_no_grad(torch, make, lambda L, s: [randn(L, s, 2, 3, 8)])


def test_transformer_encoder_layer_fast_path_values(torch: Any) -> None:
    def make(L: Any) -> Any:
        layer = _enc_layer(L, batch_first=True, activation="gelu").eval()
        return _wrap(L, layer, lambda m, x: m(x, src_mask=_bool_mask(L, CAUSAL), src_key_padding_mask=_bool_mask(L, KPM)))

    _eager_no_grad(torch, make, lambda L, s: [randn(L, s, 2, 3, 8)])


def test_nested_tensor_warning_and_flags(torch: Any) -> None:
    """enable_nested_tensor with a layer that cannot use it: torch's warning, same text; use_nested_tensor off."""
    for kw in ({"batch_first": False}, {"batch_first": True, "norm_first": True}):
        msgs, flags = [], []
        for L in (torch, D):
            layer = _enc_layer(L, **kw)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                enc = L.nn.TransformerEncoder(layer, 1)
            msgs.append([str(i.message) for i in w])
            flags.append((enc.enable_nested_tensor, enc.use_nested_tensor, enc.mask_check))
        assert msgs[0] and msgs[1] == msgs[0]
        assert flags[1] == flags[0]


def test_transformer_decoder_stack(torch: Any) -> None:
    def make(L: Any) -> Any:
        dec = L.nn.TransformerDecoder(L.nn.TransformerDecoderLayer(8, 2, 16, 0.0, batch_first=True), 2,
                                      norm=L.nn.LayerNorm(8))
        mask = L.nn.Transformer.generate_square_subsequent_mask(3)
        return _wrap(L, dec, lambda m, t, mem: m(t, mem, tgt_mask=mask, tgt_is_causal=True))

    check_module(torch, make, lambda L, s: [randn(L, s, 2, 3, 8), randn(L, s + 1, 2, 4, 8)], configs=("post",))


def test_generate_square_subsequent_mask_and_causal_detection(torch: Any) -> None:
    from torch.nn.modules.transformer import _detect_is_causal_mask as torch_detect

    from dispatcher.nn.modules.transformer import _detect_is_causal_mask

    for sz in (1, 4):
        C.assert_close(torch.nn.Transformer.generate_square_subsequent_mask(sz).numpy(),
                       D.nn.Transformer.generate_square_subsequent_mask(sz).numpy())
    assert D.nn.Transformer.generate_square_subsequent_mask(3, dtype=D.float64).dtype == D.float64
    for L, detect in ((torch, torch_detect), (D, _detect_is_causal_mask)):
        causal = L.nn.Transformer.generate_square_subsequent_mask(3)
        assert detect(causal) is True
        assert detect(causal, is_causal=False) is False
        assert detect(L.zeros(3, 3)) is False
        assert detect(causal, size=4) is False
        assert detect(None, is_causal=True) is True


# ---------------------------------------------------------------------------------------------------------------
# nn.Transformer and an encoder-decoder model built on it

def test_transformer_full(torch: Any) -> None:
    def make(L: Any) -> Any:
        t = L.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16,
                             dropout=0.0, norm_first=True)
        return _wrap(L, t, lambda m, s, tg: m(s, tg, tgt_mask=m.generate_square_subsequent_mask(3), src_is_causal=False,
                                                tgt_is_causal=True))

    check_module(torch, make, lambda L, s: [randn(L, s, 4, 2, 8), randn(L, s + 1, 3, 2, 8)], configs=("post",))


def _seq2seq(L: Any) -> Any:
    """A small translation model: token + position embeddings, nn.Transformer (batch first), output projection;
    causal target mask and padding masks on source and target."""
    class Seq2Seq(L.nn.Module):
        def __init__(self, vocab: int = 11, d: int = 8, max_len: int = 6) -> None:
            super().__init__()
            self.src_tok = L.nn.Embedding(vocab, d, padding_idx=0)
            self.tgt_tok = L.nn.Embedding(vocab, d, padding_idx=0)
            self.pos = L.nn.Embedding(max_len, d)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.transformer = L.nn.Transformer(d, 2, 1, 1, 16, dropout=0.0, batch_first=True,
                                                    activation="gelu")
            self.out = L.nn.Linear(d, vocab)

        def embed(self, emb: Any, ids: Any) -> Any:
            positions = L.arange(ids.shape[1])
            return emb(ids) * (8 ** 0.5) + self.pos(positions)

        def forward(self, src: Any, tgt: Any) -> Any:
            causal = self.transformer.generate_square_subsequent_mask(tgt.shape[1])
            h = self.transformer(self.embed(self.src_tok, src), self.embed(self.tgt_tok, tgt), tgt_mask=causal,
                                 src_key_padding_mask=src == 0, tgt_key_padding_mask=tgt == 0,
                                 memory_key_padding_mask=src == 0, src_is_causal=False, tgt_is_causal=True)
            return L.nn.functional.log_softmax(self.out(h), dim=-1)

    return Seq2Seq()


def _seq2seq_inputs(L: Any, seed: int) -> list:
    import numpy as np

    rng = np.random.default_rng(seed)
    src = rng.integers(1, 11, (2, 5))
    src[1, 3:] = 0
    tgt = rng.integers(1, 11, (2, 4))
    tgt[0, 3:] = 0
    return [L.tensor(src), L.tensor(tgt)]


def test_seq2seq_model(torch: Any) -> None:
    check_module(torch, _seq2seq, _seq2seq_inputs, configs=STACK)


def test_seq2seq_model_eval_no_grad(torch: Any) -> None:
    """Inference: eval + no grad, where torch's encoder takes its nested-tensor path (ours: the same values)."""
    m_t, a_t, m_o, a_o = build_both(torch, _seq2seq, _seq2seq_inputs)
    m_t.eval()
    m_o.eval()
    with torch.no_grad():
        out_t = m_t(*a_t)
    with D.no_grad():
        out_o = m_o(*a_o)
    C.assert_close(C.to_np(out_t), C.to_np(out_o))


def test_seq2seq_model_training_step_graph(torch: Any) -> None:
    """make_fx of one training step (loss + backward): the same ops as torch's, forward and backward."""
    def make(L: Any) -> Any:
        model = _seq2seq(L)

        class Step(L.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(self, src: Any, tgt: Any) -> Any:
                logp = self.model(src, tgt)
                loss = L.nn.functional.nll_loss(logp.reshape(-1, 11), tgt.reshape(-1), ignore_index=0)
                grads = L.autograd.grad(loss, [self.model.out.weight, self.model.src_tok.weight])
                return loss, grads[0], grads[1]

        return Step()

    for config in ("post",):
        m_t, a_t, m_o, a_o = build_both(torch, make, _seq2seq_inputs, config)
        from tests.nn_oracle import own_targets

        assert own_targets(trace(D, m_o, a_o, config)) == own_targets(trace(torch, m_t, a_t, config))
