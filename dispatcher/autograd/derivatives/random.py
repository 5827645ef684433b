"""Derivative formulas of the random ops: their results do not depend on their inputs' values differentiably,
so ``bernoulli_`` / ``uniform_`` / ``normal_`` / ``bernoulli`` / ``random_`` / ``exponential_`` / ``geometric_`` /
``cauchy_`` / ``log_normal_`` give zero gradients, and ``bernoulli.p`` has no
formula (its node fails when backward reaches it).

Corresponds to these ops' entries in tools/autograd/derivatives.yaml.
"""

from __future__ import annotations

from ...op_overload import namespace
from ..function import derivative
from .cpp_idioms import _strided_options as _options
from .not_implemented import register_not_implemented

aten = namespace("aten")


@derivative("bernoulli_.float", "BernoulliBackward2", ("self",))
def _bernoulli_(ctx, grads, needs):
    return (aten.zeros_like.default(grads[0]),)


@derivative("bernoulli_.Tensor", "BernoulliBackward1", ("self", "p"), save_meta=("p",))
def _bernoulli_tensor_(ctx, grads, needs):
    """p: ``zeros_like(p)``, which torchgen writes from p's saved sizes and options (``at::zeros``), computed
    first as in the generated node; self: ``zeros_like(grad)``."""
    g_p = aten.zeros.default(list(ctx.p._shape), **_options(ctx.p)) if needs[1] else None
    return (aten.zeros_like.default(grads[0]) if needs[0] else None, g_p)


@derivative("uniform_", "UniformBackward0", ("self",))
def _uniform_(ctx, grads, needs):
    return (aten.zeros_like.default(grads[0]),)


@derivative("normal_", "NormalBackward0", ("self",))
def _normal_(ctx, grads, needs):
    return (aten.zeros_like.default(grads[0]),)


@derivative("bernoulli", "BernoulliBackward0", ("self",))
def _bernoulli(ctx, grads, needs):
    return (aten.zeros_like.default(grads[0]),)


@derivative("bernoulli.p", "NotImplemented", ("self",))
def _bernoulli_p(ctx, grads, needs):
    """PyTorch has no formula for ``bernoulli.p``: its node is ``NotImplemented``, which fails when reached."""
    raise RuntimeError("derivative for aten::bernoulli is not implemented")


# randint_like has no formula and no autograd kernel: torch's autograd fallback records a NotImplemented node for a
# floating-point result (the torch.randint_like binding runs below autograd, so only the aten op records it)
for _op in ("randint_like", "randint_like.low_dtype"):
    register_not_implemented(_op, ("self",), "randint_like")
del _op


# random_ (three overloads) and the other in-place samplers: ``self: zeros_like(grad)`` (derivatives.yaml), the
# nodes named as torchgen numbers them (random_.from, random_.to, random_ -> RandomBackward0 / 1 / 2)
def _zeros_like_grad(ctx, grads, needs):
    return (aten.zeros_like.default(grads[0]),)


for _op, _node in (("random_.from", "RandomBackward0"), ("random_.to", "RandomBackward1"),
                   ("random_", "RandomBackward2"), ("exponential_", "ExponentialBackward0"),
                   ("geometric_", "GeometricBackward0"), ("cauchy_", "CauchyBackward0"),
                   ("log_normal_", "LogNormalBackward0")):
    derivative(_op, _node, ("self",))(_zeros_like_grad)
del _op, _node
