"""Built-in example programs: what ``dispatchkit demo``, the notebooks and the benchmarks trace.

Each example is a plain function written against ``dispatcher`` (used like ``torch``) plus the
shapes of its inputs, so that any tool can build inputs for it with :func:`example_inputs`:

* ``transformer_block``: a pre-norm transformer block (B=1, S=16, D=64, 4 heads): layer_norm,
  three projections, scaled dot-product attention with softmax, an output projection, a GELU MLP,
  two residual connections;
* ``mlp``: two linear layers with a ReLU between them;
* ``train_step``: one SGD step of a two-layer network: forward, ``backward()``, an update under
  ``no_grad``, so a trace of it is a joint forward + backward graph.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import dispatcher as D
import dispatcher.nn.functional as F

__all__ = ["EXAMPLES", "Example", "example_inputs", "mlp", "train_step", "transformer_block"]


def transformer_block(x: Any, wq: Any, wk: Any, wv: Any, wo: Any, w1: Any, w2: Any, g: Any, b: Any) -> Any:
    """One pre-norm transformer block with 4 attention heads."""
    batch, seq, dim = x.shape
    heads = 4
    h = F.layer_norm(x, (dim,), g, b)
    q = F.linear(h, wq).view(batch, seq, heads, dim // heads).transpose(1, 2)
    k = F.linear(h, wk).view(batch, seq, heads, dim // heads).transpose(1, 2)
    v = F.linear(h, wv).view(batch, seq, heads, dim // heads).transpose(1, 2)
    attn = F.softmax(q @ k.transpose(-2, -1) * (dim // heads) ** -0.5, dim=-1) @ v
    x = x + F.linear(attn.transpose(1, 2).reshape(batch, seq, dim), wo)
    return x + F.linear(F.gelu(F.linear(F.layer_norm(x, (dim,)), w1)), w2)


def mlp(x: Any, w1: Any, b1: Any, w2: Any, b2: Any) -> Any:
    """linear -> relu -> linear."""
    return F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)


def train_step(x: Any, y: Any, w1: Any, w2: Any) -> Any:
    """Mean squared error of a two-layer network, backward, and an SGD update of both weights."""
    loss = ((F.relu(x @ w1) @ w2 - y) ** 2).mean()
    loss.backward()
    with D.no_grad():
        w1.sub_(w1.grad * 0.1)
        w2.sub_(w2.grad * 0.1)
    return loss


@dataclass(frozen=True)
class Example:
    """A built-in program and how to call it."""

    fn: Callable[..., Any]
    #: one shape per positional input (all float32)
    shapes: tuple[tuple[int, ...], ...]
    #: positions of the inputs that are parameters (require grad where the example trains)
    params: tuple[int, ...] = field(default=())
    #: whether the parameters must require grad for the program to run (it calls backward())
    needs_grad: bool = False


EXAMPLES: dict[str, Example] = {
    "transformer_block": Example(transformer_block,
                                 ((1, 16, 64),) + ((64, 64),) * 4 + ((128, 64), (64, 128), (64,), (64,)),
                                 params=tuple(range(1, 9))),
    "mlp": Example(mlp, ((8, 32), (64, 32), (64,), (10, 64), (10,)), params=(1, 2, 3, 4)),
    "train_step": Example(train_step, ((16, 8), (16, 4), (8, 32), (32, 4)), params=(2, 3), needs_grad=True),
}


def example_inputs(name: str, seed: int = 0, requires_grad: bool | None = None) -> list[Any]:
    """Fresh random float32 inputs for the example ``name`` (parameters scaled by 1/sqrt(fan_in)).

    ``requires_grad=None`` makes the parameters require grad only when the example needs it.
    """
    if name not in EXAMPLES:
        raise KeyError(f"unknown example {name!r}; the examples are {', '.join(sorted(EXAMPLES))}")
    ex = EXAMPLES[name]
    rng = np.random.default_rng(seed)
    grad = ex.needs_grad if requires_grad is None else requires_grad
    out = []
    for i, shape in enumerate(ex.shapes):
        a = rng.standard_normal(shape).astype(np.float32)
        if i in ex.params and len(shape) == 2:
            a /= np.float32(np.sqrt(shape[-1]))
        t = D.from_numpy(a)
        out.append(t.requires_grad_() if grad and i in ex.params else t)
    return out
