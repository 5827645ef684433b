"""Test models written as ``nn.Module``s, for the tests of module stacks, drawings and the viewer.

``gpt(L, n_layers)``: a small pre-norm transformer (``L`` is ``dispatcher`` or ``torch``): blocks of
LayerNorm -> attention (three projections, scaled dot-product attention, an output projection) -> residual
-> LayerNorm -> MLP (Linear, GELU, Linear) -> residual, then a final LayerNorm and a head. Twelve blocks give a
post-dispatch graph of about 700 nodes, the "big graph" of the drawing and viewer tests.
"""

from __future__ import annotations

from typing import Any

DIM, HEADS, SEQ = 32, 4, 8


def gpt(L: Any, n_layers: int = 12) -> Any:
    nn = L.nn
    F = nn.functional

    class Attention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.q = nn.Linear(DIM, DIM)
            self.k = nn.Linear(DIM, DIM)
            self.v = nn.Linear(DIM, DIM)
            self.proj = nn.Linear(DIM, DIM)

        def forward(self, x: Any) -> Any:
            b, s, d = x.shape
            q, k, v = (m(x).view(b, s, HEADS, d // HEADS).transpose(1, 2) for m in (self.q, self.k, self.v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.proj(a.transpose(1, 2).reshape(b, s, d))

    class MLP(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(DIM, 4 * DIM)
            self.act = nn.GELU()
            self.out = nn.Linear(4 * DIM, DIM)

        def forward(self, x: Any) -> Any:
            return self.out(self.act(self.fc(x)))

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln1 = nn.LayerNorm(DIM)
            self.attn = Attention()
            self.ln2 = nn.LayerNorm(DIM)
            self.mlp = MLP()

        def forward(self, x: Any) -> Any:
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = nn.ModuleList([Block() for _ in range(n_layers)])
            self.ln_f = nn.LayerNorm(DIM)
            self.head = nn.Linear(DIM, 16)

        def forward(self, x: Any) -> Any:
            for layer in self.layers:
                x = layer(x)
            return self.head(self.ln_f(x))

    return GPT()


def gpt_input(L: Any) -> Any:
    return L.randn(2, SEQ, DIM)
