"""End-to-end training scripts, here and in torch 2.13 from the same initial weights: a GPT-style character model
(embeddings, causal self-attention with ``scaled_dot_product_attention``, GELU MLP, LayerNorm) trained with AdamW, a
warmup + cosine ``LambdaLR`` and ``clip_grad_norm_``; a small CNN (conv2d, max_pool2d, log_softmax + nll_loss) with
Adadelta and ``StepLR``. Same losses at every step; a traced train step (forward, backward, clipping, optimizer step in
one make_fx graph) records torch's op sequence in the four configurations and replays as eager runs."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C
from tests.nn_oracle import copy_weights, fake_mode, own_targets, trace

TEXT = "to be or not to be that is the question whether tis nobler in the mind to suffer "
VOCAB = sorted(set(TEXT))
DIM, HEADS, SEQ, LAYERS = 16, 2, 8, 1


@pytest.fixture(autouse=True)
def _torch_one_thread() -> Any:
    """torch on one thread: its intra-op threads only contend on the shared test machine."""
    try:
        import torch
    except ImportError:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def char_gpt(L: Any) -> Any:
    nn = L.nn
    F = nn.functional

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln1 = nn.LayerNorm(DIM)
            self.qkv = nn.Linear(DIM, 3 * DIM)
            self.proj = nn.Linear(DIM, DIM)
            self.ln2 = nn.LayerNorm(DIM)
            self.fc = nn.Linear(DIM, 4 * DIM)
            self.out = nn.Linear(4 * DIM, DIM)

        def forward(self, x: Any) -> Any:
            b, s, d = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(DIM, dim=2)
            q, k, v = (t.view(b, s, HEADS, d // HEADS).transpose(1, 2) for t in (q, k, v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).contiguous().view(b, s, d))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class CharGPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tok = nn.Embedding(len(VOCAB), DIM)
            self.pos = nn.Embedding(SEQ, DIM)
            self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
            self.ln_f = nn.LayerNorm(DIM)
            self.head = nn.Linear(DIM, len(VOCAB), bias=False)

        def forward(self, idx: Any, targets: Any) -> Any:
            x = self.tok(idx) + self.pos(L.arange(idx.shape[1]))
            for block in self.blocks:
                x = block(x)
            logits = self.head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))

    return CharGPT()


def char_batch(L: Any, seed: int, batch: int = 4) -> list:
    rng = np.random.default_rng(seed)
    data = np.array([VOCAB.index(c) for c in TEXT], dtype=np.int64)
    starts = rng.integers(0, len(data) - SEQ - 1, size=batch)
    x = np.stack([data[s:s + SEQ] for s in starts])
    y = np.stack([data[s + 1:s + SEQ + 1] for s in starts])
    return [L.tensor(x), L.tensor(y)]


def warmup_cosine(warmup: int, total: int) -> Any:
    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))

    return factor


def gpt_training(L: Any, foreach: bool | None = None) -> tuple[Any, Any, Any, Any]:
    L.manual_seed(0)
    model = char_gpt(L)
    opt = L.optim.AdamW(model.parameters(), lr=3e-3, betas=(0.9, 0.95), weight_decay=0.1, foreach=foreach)
    sched = L.optim.lr_scheduler.LambdaLR(opt, warmup_cosine(2, 8))

    def step(x: Any, y: Any) -> Any:
        loss = model(x, y)
        loss.backward()
        L.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    return model, opt, sched, step


def cnn(L: Any) -> Any:
    nn = L.nn
    F = nn.functional

    class Conv(nn.Module):
        """A Conv2d written with ``F.conv2d`` (weights copied from torch's model)."""

        def __init__(self, cin: int, cout: int, k: int) -> None:
            super().__init__()
            self.weight = nn.Parameter(L.randn(cout, cin, k, k) * 0.3)
            self.bias = nn.Parameter(L.zeros(cout))

        def forward(self, x: Any) -> Any:
            return F.conv2d(x, self.weight, self.bias)

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = Conv(1, 4, 3)
            self.conv2 = Conv(4, 8, 3)
            self.fc = nn.Linear(8 * 2 * 2, 10)

        def forward(self, x: Any, target: Any) -> Any:
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            return F.nll_loss(F.log_softmax(self.fc(x.flatten(1)), dim=1), target)

    return Net()


def cnn_batch(L: Any, seed: int) -> list:
    rng = np.random.default_rng(seed)
    return [L.tensor(rng.standard_normal((6, 1, 14, 14)).astype(np.float32)),
            L.tensor(rng.integers(0, 10, size=6))]


@pytest.mark.parametrize("foreach", [None, True])
def test_char_gpt_trains_as_torch(torch: Any, foreach: Any) -> None:
    runs = [gpt_training(torch, foreach), gpt_training(D, foreach)]
    copy_weights(runs[0][0], runs[1][0])
    losses: list[list[float]] = [[], []]
    for i in range(8):
        for k, (L, (_, _opt, sched, step)) in enumerate(zip((torch, D), runs, strict=True)):
            losses[k].append(step(*char_batch(L, i)).item())
            sched.step()
        assert runs[1][2].get_last_lr() == runs[0][2].get_last_lr()
    np.testing.assert_allclose(losses[1], losses[0], rtol=2e-4)
    assert losses[1][-1] < losses[1][0] - 0.2  # it learns
    for p_o, p_t in zip(runs[1][0].parameters(), runs[0][0].parameters(), strict=True):
        # (Adam's update is nearly sign(grad) where the moments are small: float32 rounding shows at 1e-4)
        np.testing.assert_allclose(p_o.detach().numpy(), p_t.detach().numpy(), atol=1e-3)


def test_cnn_trains_as_torch(torch: Any) -> None:
    runs = []
    for L in (torch, D):
        L.manual_seed(0)
        model = cnn(L)
        opt = L.optim.Adadelta(model.parameters(), lr=1.0)
        runs.append((model, opt, L.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.7)))
    copy_weights(runs[0][0], runs[1][0])
    losses: list[list[float]] = [[], []]
    for i in range(6):
        for k, (L, (model, opt, sched)) in enumerate(zip((torch, D), runs, strict=True)):
            opt.zero_grad()
            loss = model(*cnn_batch(L, i % 2))
            loss.backward()
            opt.step()
            sched.step()
            losses[k].append(loss.item())
        assert runs[1][2].get_last_lr() == runs[0][2].get_last_lr()
    np.testing.assert_allclose(losses[1], losses[0], rtol=2e-4)
    assert losses[1][-1] < losses[1][0]


def _traced_gpt(L: Any, config: str, foreach: Any) -> Any:
    if config == "fake":
        fm = fake_mode(L)
        with fm:
            _, _, _, step = gpt_training(L, foreach)
        args = [fm.from_tensor(a) for a in char_batch(L, 0)]
    else:
        _, _, _, step = gpt_training(L, foreach)
        args = char_batch(L, 0)
    return trace(L, step, args, config)


@pytest.mark.parametrize(("config", "foreach"), [("post", None), ("pre", None), ("fake", None), ("core", None),
                                                 ("post", True)])
def test_traced_gpt_train_step_matches_torch(torch: Any, config: str, foreach: Any) -> None:
    gm_t, gm_o = _traced_gpt(torch, config, foreach), _traced_gpt(D, config, foreach)
    theirs = C.targets(gm_t)
    assert "aten._scaled_dot_product_flash_attention_for_cpu.default" in theirs or config == "core" or \
        "aten.scaled_dot_product_attention.default" in theirs
    assert ("aten._foreach_addcdiv_.ScalarList" in theirs) == bool(foreach)
    assert (own_targets(gm_o) if config == "pre" else C.targets(gm_o)) == theirs
    gm_o.graph.lint()


def test_replayed_gpt_train_step_equals_eager() -> None:
    model, opt, _, step = gpt_training(D)
    start = {k: v.detach().clone() for k, v in model.state_dict().items()}
    gm = trace(D, step, char_batch(D, 0), "post")

    def reset() -> None:
        model.load_state_dict(start)
        opt.state.clear()

    reset()
    fresh = char_batch(D, 5)
    with D.set_grad_enabled(False):
        loss_replay = float(gm(*fresh))
    replayed = [p.detach().numpy().copy() for p in model.parameters()]
    reset()
    loss_eager = float(step(*fresh))
    assert loss_replay == pytest.approx(loss_eager, rel=1e-6)
    C.assert_close([p.detach().numpy() for p in model.parameters()], replayed)
    assert not np.allclose(start["head.weight"].numpy(), replayed[-1])
