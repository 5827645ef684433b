"""nn.RNN / LSTM / GRU, the cells and nn.utils.rnn's packed sequences against torch 2.13 (issue 19).

Each module is written once against ``L`` (torch or dispatcher) and checked by tests/nn_oracle.py: repr, state_dict
keys and shapes, forward values, input and parameter gradients, make_fx graphs op for op in the four configurations
(post, pre, fake, core) and the replay of ours on fresh inputs. The configurations cover what changes the graph:
oneDNN's ``mkldnn_rnn_layer`` path (float32 LSTM without projections) against the decomposed cells (float64,
projections, GRU / RNN), layers, directions, ``batch_first``, missing biases, unbatched input, given or zero initial
states, dropout between layers. Then packed sequences, the errors users meet (same class and message), and two
small models people write: an LSTM language model (with a traced training step) and a bidirectional GRU classifier.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C
from tests.nn_oracle import (
    build_both,
    check_eager,
    check_graphs,
    check_module,
    copy_weights,
    fake_mode,
    own_targets,
    randn,
    trace,
)


def _seq(*shape: int) -> Callable[[Any, int], list]:
    return lambda L, seed: [randn(L, seed, *shape)]


def _seq64(*shape: int) -> Callable[[Any, int], list]:
    return lambda L, seed: [randn(L, seed, *shape).double()]


def _with_state(shape: tuple, *states: tuple) -> Callable[[Any, int], list]:
    """An input and initial states (a tuple of two for LSTM)."""
    def make_inputs(L: Any, seed: int) -> list:
        x = randn(L, seed, *shape)
        hs = [randn(L, seed + 10 + i, *s) for i, s in enumerate(states)]
        return [x, tuple(hs) if len(hs) == 2 else hs[0]]
    return make_inputs


MODULES = {
    # oneDNN path (float32 LSTM, no projections): mkldnn_rnn_layer per layer and direction
    "lstm": (lambda L: L.nn.LSTM(3, 4), _seq(3, 2, 3)),
    "lstm_2layers_bidir_batch_first_h0": (
        lambda L: L.nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True),
        _with_state((2, 3, 3), (4, 2, 4), (4, 2, 4))),
    "lstm_no_bias_unbatched": (lambda L: L.nn.LSTM(3, 4, bias=False), _seq(3, 3)),
    # the decomposed cells: projections, float64
    "lstm_proj": (lambda L: L.nn.LSTM(3, 5, proj_size=2, num_layers=2), _seq(3, 2, 3)),
    "lstm_float64_bidir": (lambda L: L.nn.LSTM(3, 4, bidirectional=True, dtype=L.float64), _seq64(3, 2, 3)),
    "gru_2layers_bidir_h0": (lambda L: L.nn.GRU(3, 4, num_layers=2, bidirectional=True),
                             _with_state((3, 2, 3), (4, 2, 4))),
    "gru_batch_first_no_bias": (lambda L: L.nn.GRU(3, 4, batch_first=True, bias=False), _seq(2, 3, 3)),
    "rnn_tanh_2layers": (lambda L: L.nn.RNN(3, 4, num_layers=2), _seq(3, 2, 3)),
    "rnn_relu_unbatched_h0": (lambda L: L.nn.RNN(3, 4, nonlinearity="relu"), _with_state((3, 3), (1, 4))),
    "lstm_cell_hx": (lambda L: L.nn.LSTMCell(3, 4), _with_state((2, 3), (2, 4), (2, 4))),
    "gru_cell_unbatched": (lambda L: L.nn.GRUCell(3, 4), _seq(3)),
    "rnn_cell_relu_no_bias": (lambda L: L.nn.RNNCell(3, 4, bias=False, nonlinearity="relu"), _seq(2, 3)),
}


#: the decomposed LSTM / GRU cells split their gates with unsafe_split and squash them in place; the core-ATen table
#: turns unsafe_split into split_with_sizes (views), so the core graph cannot be replayed under autograd: torch's
#: raises "Output 0 of SplitWithSizes is a view and is being modified inplace" too. Those are replayed without grad.
CORE_REPLAY_NO_GRAD = {"lstm_proj", "lstm_float64_bidir", "gru_2layers_bidir_h0", "gru_batch_first_no_bias",
                       "lstm_cell_hx", "gru_cell_unbatched"}


def _check_core_replay_no_grad(torch: Any, make: Callable[[Any], Any], make_inputs: Callable[[Any, int], list]) -> None:
    """The core-ATen graphs: the same ops as torch's; replayed with grad, both raise the same error; without grad,
    ours gives eager's values."""
    m_t, a_t, m_o, a_o = build_both(torch, make, make_inputs, "core")
    gm_t, gm_o = trace(torch, m_t, a_t, "core"), trace(D, m_o, a_o, "core")
    assert own_targets(gm_o) == own_targets(gm_t)
    fresh_t, fresh_o = make_inputs(torch, 7), make_inputs(D, 7)
    with pytest.raises(RuntimeError) as theirs:
        gm_t(*fresh_t)
    with pytest.raises(RuntimeError) as ours:
        gm_o(*fresh_o)
    assert str(ours.value) == str(theirs.value)
    with D.no_grad():
        C.assert_close(C.to_np(m_o(*fresh_o)), C.to_np(gm_o(*fresh_o)))


@pytest.mark.parametrize("name", list(MODULES))
def test_module(torch: Any, name: str) -> None:
    make, make_inputs = MODULES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "LSTM with projections is not supported with oneDNN" (both libraries)
        if name in CORE_REPLAY_NO_GRAD:
            check_eager(torch, make, make_inputs)
            check_graphs(torch, make, make_inputs, ("post", "pre", "fake"))
            _check_core_replay_no_grad(torch, make, make_inputs)
        else:
            check_module(torch, make, make_inputs)


def _eval(make: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda L: make(L).eval()


def test_dropout_between_layers(torch: Any) -> None:
    """Eval: no dropout (values, grads, graphs); training: ``dropout`` between the layers (graphs only: the masks
    come from each library's own generator)."""
    make = lambda L: L.nn.LSTM(3, 4, num_layers=3, dropout=0.5)  # noqa: E731
    check_module(torch, _eval(make), _seq(3, 2, 3))
    check_graphs(torch, make, _seq(3, 2, 3), ("post", "pre"), replay=False)
    check_graphs(torch, lambda L: L.nn.GRU(3, 4, num_layers=2, dropout=0.25), _seq(3, 2, 3), ("post",),
                 replay=False)


def test_parameters_init_repr(torch: Any) -> None:
    """torch's names and order (``_flat_weights``), U(-1/sqrt(hidden), 1/sqrt(hidden)), repr, flatten_parameters."""
    for make in (lambda L: L.nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2, bias=False),
                 lambda L: L.nn.GRU(3, 5, 2, batch_first=True, dropout=0.5),
                 lambda L: L.nn.RNN(2, 3, 1, "relu", False), lambda L: L.nn.RNNCell(2, 3, nonlinearity="relu")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m_t, m_o = make(torch), make(D)
        assert repr(m_o) == repr(m_t)
        assert list(m_o.state_dict()) == list(m_t.state_dict())
        if hasattr(m_t, "_flat_weights_names"):
            assert m_o._flat_weights_names == m_t._flat_weights_names
            assert [p is getattr(m_o, n) for p, n in zip(m_o._flat_weights, m_o._flat_weights_names)] == \
                [True] * len(m_o._flat_weights)
            m_o.flatten_parameters()
        bound = 1 / np.sqrt(m_o.hidden_size)
        values = np.concatenate([C.to_np(p).ravel() for p in m_o.parameters()])
        assert np.abs(values).max() <= bound and np.abs(values).max() > 0.8 * bound and values.std() > bound / 3
    lstm = D.nn.LSTM(3, 4)
    new = D.nn.Parameter(D.zeros(16, 3))
    lstm.weight_ih_l0 = new
    assert lstm._flat_weights[0] is new  # __setattr__ keeps the flat list in step


# --- packed sequences -------------------------------------------------------------------------------------------------


def test_pack_pad_functions(torch: Any) -> None:
    seqs = [np.random.default_rng(i).standard_normal((n, 2)).astype(np.float32) for i, n in enumerate((2, 4, 1))]
    for L in (torch, D):
        rnn_utils = L.nn.utils.rnn
        ts = [L.tensor(s) for s in seqs]
        padded = rnn_utils.pad_sequence(ts, batch_first=True, padding_value=-1.0)
        left = rnn_utils.pad_sequence(ts, padding_side="left")
        packed = rnn_utils.pack_padded_sequence(padded, [2, 4, 1], batch_first=True, enforce_sorted=False)
        back, lengths = rnn_utils.pad_packed_sequence(packed, batch_first=True, padding_value=7.0, total_length=5)
        packed2 = rnn_utils.pack_sequence(sorted(ts, key=len, reverse=True))
        unpacked = rnn_utils.unpack_sequence(packed)
        if L is torch:
            want = (padded, left, *packed, back, lengths, *packed2[:2], *unpacked)
        else:
            got = (padded, left, *packed, back, lengths, *packed2[:2], *unpacked)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        C.assert_close(C.to_np(w), C.to_np(g))
    assert type(packed).__name__ == "PackedSequence" and packed._fields == ("data", "batch_sizes", "sorted_indices",
                                                                             "unsorted_indices")


def _packed_model(kind: str) -> Callable[[Any], Any]:
    """A recurrent module on a packed batch (unsorted lengths), padded back: the usual variable-length pattern."""
    def make(L: Any) -> Any:
        rnn_utils = L.nn.utils.rnn

        class Packed(L.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.rnn = getattr(L.nn, kind)(3, 4, num_layers=2, bidirectional=True)

            def forward(self, x: Any) -> Any:
                packed = rnn_utils.pack_padded_sequence(x, [3, 5, 2], enforce_sorted=False)
                out, hidden = self.rnn(packed)
                padded, lengths = rnn_utils.pad_packed_sequence(out)
                return padded, hidden
        return Packed()
    return make


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_packed_sequence_module(torch: Any, kind: str) -> None:
    """lstm.data / gru.data / rnn_tanh.data through the modules: values and grads. Tracing the module refuses, as
    torch's make_fx does: the module reads ``batch_sizes[0]`` (a data-dependent value)."""
    check_eager(torch, _packed_model(kind), _seq(5, 3, 3))
    errors = []
    for L in (torch, D):
        L.manual_seed(0)
        with pytest.raises(RuntimeError) as e:
            trace(L, _packed_model(kind)(L), _seq(5, 3, 3)(L, 0), "post")
        errors.append(str(e.value).split(" - ")[0].split("\n")[0])
    assert errors[1] == errors[0]


def _packed_call(op: Any, two_states: bool, params: list, batch_sizes: Any) -> Callable[..., Any]:
    def f(data: Any, h: Any, c: Any) -> Any:
        return op(data, batch_sizes, [h, c] if two_states else h, params, True, 1, 0.0, False, True)
    return f


@pytest.mark.parametrize("name", ["lstm", "gru", "rnn_tanh"])
def test_packed_op_graphs(torch: Any, name: str) -> None:
    """The ``.data`` overloads traced with ``batch_sizes`` a constant (post / pre / core): torch's ops in torch's order;
    our graph replays to eager's values."""
    rng = np.random.default_rng(0)
    gates = {"lstm": 4, "gru": 3, "rnn_tanh": 1}[name]
    arrays = [rng.standard_normal(s).astype(np.float32) for s in
              ((gates * 4, 3), (gates * 4, 4), (gates * 4,), (gates * 4,)) * 2]
    for config in ("post", "pre", "core"):
        targets = []
        for L in (torch, D):
            params = [L.tensor(a).requires_grad_() for a in arrays]
            batch_sizes = L.tensor([3, 2, 2, 1])
            f = _packed_call(getattr(L.ops.aten, name).data, name == "lstm", params, batch_sizes)
            args = [randn(L, 1, 8, 3), randn(L, 2, 2, 3, 4), randn(L, 3, 2, 3, 4)]
            gm = trace(L, f, args, config)
            targets.append(own_targets(gm))
            if L is D:
                fresh = [randn(L, 5, 8, 3), randn(L, 6, 2, 3, 4), randn(L, 7, 2, 3, 4)]
                with D.no_grad():  # (core: split_with_sizes views written in place, see CORE_REPLAY_NO_GRAD)
                    C.assert_close(C.to_np(f(*fresh)), C.to_np(gm(*fresh)))
        assert targets[1] == targets[0], config


# --- errors: same class, same message ---------------------------------------------------------------------------------


def _error(torch: Any, make: Callable[[Any], Any], call: Callable[[Any, Any], Any]) -> None:
    got = []
    for L in (torch, D):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                call(L, make(L))
            except Exception as e:  # noqa: BLE001 - compared with torch's below
                got.append((type(e), str(e).split("\n")[0]))
            else:
                got.append(None)
    assert got[0] is not None, "torch accepted the call"
    assert got[1] is not None, f"ours accepted the call torch refuses with {got[0]}"
    assert issubclass(got[1][0], got[0][0]) or got[1][0] is got[0][0], got
    assert got[1][1] == got[0][1]


ERRORS = {
    "input_size": (lambda L: L.nn.LSTM(3, 4), lambda L, m: m(L.zeros(5, 2, 6))),
    "h0_shape": (lambda L: L.nn.GRU(3, 4), lambda L, m: m(L.zeros(5, 2, 3), L.zeros(1, 3, 4))),
    "c0_shape": (lambda L: L.nn.LSTM(3, 4), lambda L, m: m(L.zeros(5, 2, 3), (L.zeros(1, 2, 4), L.zeros(1, 2, 5)))),
    "h0_dims": (lambda L: L.nn.RNN(3, 4), lambda L, m: m(L.zeros(5, 2, 3), L.zeros(2, 4))),
    "unbatched_hx_dims": (lambda L: L.nn.LSTM(3, 4), lambda L, m: m(L.zeros(5, 3), (L.zeros(1, 1, 4),) * 2)),
    "input_dims": (lambda L: L.nn.GRU(3, 4), lambda L, m: m(L.zeros(5, 2, 3, 1))),
    "input_dtype": (lambda L: L.nn.LSTM(3, 4), lambda L, m: m(L.zeros(5, 2, 3, dtype=L.float64))),
    "cell_hidden": (lambda L: L.nn.GRUCell(3, 4), lambda L, m: m(L.zeros(2, 3), L.zeros(2, 5))),
    "cell_batch": (lambda L: L.nn.LSTMCell(3, 4), lambda L, m: m(L.zeros(2, 3), (L.zeros(3, 4), L.zeros(3, 4)))),
    "cell_input_size": (lambda L: L.nn.RNNCell(3, 4), lambda L, m: m(L.zeros(2, 5))),
    "cell_input_dims": (lambda L: L.nn.LSTMCell(3, 4), lambda L, m: m(L.zeros(2, 2, 3))),
    "dropout_range": (lambda L: None, lambda L, m: L.nn.LSTM(3, 4, dropout=1.5)),
    "proj_size": (lambda L: None, lambda L, m: L.nn.LSTM(3, 4, proj_size=4)),
    "proj_size_gru": (lambda L: None, lambda L, m: L.nn.GRU(3, 4, proj_size=2)),
    "nonlinearity": (lambda L: None, lambda L, m: L.nn.RNN(3, 4, nonlinearity="gelu")),
    "unsorted_lengths": (lambda L: None,
                         lambda L, m: L.nn.utils.rnn.pack_padded_sequence(L.zeros(4, 3, 2), [2, 4, 1])),
    "zero_length": (lambda L: None,
                    lambda L, m: L.nn.utils.rnn.pack_padded_sequence(L.zeros(4, 3, 2), [4, 2, 0])),
    "total_length": (lambda L: None, lambda L, m: L.nn.utils.rnn.pad_packed_sequence(
        L.nn.utils.rnn.pack_sequence([L.zeros(3), L.zeros(2)]), total_length=2)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors(torch: Any, name: str) -> None:
    _error(torch, *ERRORS[name])


# --- models people write --------------------------------------------------------------------------------------------


def lstm_language_model(L: Any) -> Any:
    """Embedding -> 2-layer LSTM -> Linear, next-token cross-entropy."""
    nn = L.nn

    class LanguageModel(nn.Module):
        def __init__(self, vocab: int = 11, dim: int = 6, hidden: int = 8) -> None:
            super().__init__()
            self.embed = nn.Embedding(vocab, dim)
            self.lstm = nn.LSTM(dim, hidden, num_layers=2, batch_first=True)
            self.head = nn.Linear(hidden, vocab)

        def forward(self, tokens: Any, targets: Any) -> Any:
            out, _ = self.lstm(self.embed(tokens))
            logits = self.head(out)
            return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))

    return LanguageModel()


def _tokens(L: Any, seed: int) -> list:
    rng = np.random.default_rng(seed)
    return [L.tensor(rng.integers(0, 11, (2, 5))), L.tensor(rng.integers(0, 11, (2, 5)))]


def gru_classifier(L: Any) -> Any:
    """Embedding -> bidirectional GRU -> both directions' last states -> Linear."""
    nn = L.nn

    class Classifier(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(11, 6)
            self.gru = nn.GRU(6, 5, batch_first=True, bidirectional=True)
            self.out = nn.Linear(10, 3)

        def forward(self, tokens: Any) -> Any:
            _, h = self.gru(self.embed(tokens))
            return self.out(L.cat([h[0], h[1]], dim=-1))

    return Classifier()


def test_lstm_language_model(torch: Any) -> None:
    check_module(torch, lstm_language_model, _tokens)


def test_gru_classifier(torch: Any) -> None:
    make_inputs = lambda L, seed: _tokens(L, seed)[:1]  # noqa: E731
    check_eager(torch, gru_classifier, make_inputs)
    check_graphs(torch, gru_classifier, make_inputs, ("post", "pre", "fake"))
    _check_core_replay_no_grad(torch, gru_classifier, make_inputs)


def _training_step(model: Any) -> Callable[[Any, Any], Any]:
    params = list(model.parameters())

    def step(tokens: Any, targets: Any) -> Any:
        loss = model(tokens, targets)
        loss.backward()
        return [loss] + [p.grad for p in params]

    return step


@pytest.mark.parametrize("config", ["post", "pre", "fake"])
def test_lstm_language_model_training_step_graph(torch: Any, config: str) -> None:
    """make_fx of forward + backward, op for op: post (like core) and fake record ``mkldnn_rnn_layer_backward`` (in
    fake mode its meta function returns one tensor for both bias gradients, which AccumulateGrad then clones for one
    of them, ``new_empty_strided`` + ``copy_``); pre-dispatch keeps ``lstm.input`` whole and differentiates
    torch/_decomp's Python LSTM run below it (the Python dispatcher's kernel, tracer/decompositions/recurrent.py).
    The gradients the traced step computed equal torch's."""
    grads = []
    torch.manual_seed(0)
    models, inputs = {}, {}
    for L in (torch, D):
        if config == "fake":
            fm = fake_mode(L)
            with fm:
                models[L] = lstm_language_model(L)
            inputs[L] = [fm.from_tensor(a) for a in _tokens(L, 0)]
        else:
            models[L], inputs[L] = lstm_language_model(L), _tokens(L, 0)
    if config != "fake":
        copy_weights(models[torch], models[D])
    for L, model in models.items():
        gm = trace(L, _training_step(model), inputs[L], config)
        params = list(model.parameters())
        grads.append((own_targets(gm), [C.to_np(p.grad) for p in params] if config != "fake" else []))
    (t_targets, t_grads), (o_targets, o_grads) = grads
    assert ("aten.mkldnn_rnn_layer_backward.default" in t_targets) == (config != "pre")
    assert o_targets == t_targets
    for g_t, g_o in zip(t_grads, o_grads):
        C.assert_close(g_t, g_o)


def _grad_of_grad_step(L: Any, model: Any) -> Callable[[Any], Any]:
    params = list(model.parameters())

    def step(x: Any) -> Any:
        out, (h, _) = model(x)
        grads = L.autograd.grad((out * out).sum() + h.sum(), params, create_graph=True)
        return [g.sum() for g in grads]

    return step


def test_lstm_create_graph(torch: Any) -> None:
    """``create_graph=True`` through oneDNN's layer: mkldnn/RNN.cpp's differentiable backward, op for op in a trace;
    first-order values and the double backward equal torch's."""
    torch.manual_seed(0)
    models = {L: L.nn.LSTM(3, 4, bias=False) for L in (torch, D)}
    copy_weights(models[torch], models[D])
    got = {}
    for L, model in models.items():
        x = randn(L, 0, 2, 2, 3)
        first = _grad_of_grad_step(L, model)(x)
        second = L.autograd.grad(sum(first), list(model.parameters()))
        got[L] = (C.to_np(first), C.to_np(second), own_targets(trace(L, _grad_of_grad_step(L, model), [x], "post")))
    C.assert_close(got[torch][0], got[D][0])
    C.assert_close(got[torch][1], got[D][1])
    assert "aten.mkldnn_rnn_layer_backward.default" not in got[torch][2]
    assert got[D][2] == got[torch][2]


def _packed_backward_step(op: Any, params: list, batch_sizes: Any) -> Callable[..., Any]:
    def step(data: Any, h: Any, c: Any) -> Any:
        out = op(data, batch_sizes, [h, c], params, True, 1, 0.0, False, True)
        out[0].sum().backward()
        return [p.grad for p in params]
    return step


def test_packed_lstm_pre_dispatch_backward(torch: Any) -> None:
    """Pre-dispatch ``lstm.data`` + backward: the op kept whole, its gradients from torch/_decomp's Python LSTM on
    the packed steps (``split`` by ``batch_sizes``, ``narrow`` / ``cat`` of the states), op for op; equal gradients."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((16, 3), (16, 4), (16,), (16,))] * 2
    got = []
    for L in (torch, D):
        params = [L.tensor(a).requires_grad_() for a in arrays]
        step = _packed_backward_step(L.ops.aten.lstm.data, params, L.tensor([3, 2, 2, 1]))
        gm = trace(L, step, [randn(L, 1, 8, 3), randn(L, 2, 2, 3, 4), randn(L, 3, 2, 3, 4)], "pre")
        got.append((own_targets(gm), C.to_np([p.grad for p in params])))
    assert got[1][0] == got[0][0]
    C.assert_close(got[0][1], got[1][1])
