"""Derivative formulas, written with aten ops (never NumPy), one module per op family.

Corresponds to tools/autograd/derivatives.yaml and torch/csrc/autograd/FunctionsManual.cpp. Each
``@derivative`` entry names the backward node as PyTorch does (``MulBackward0``), the differentiable inputs,
what to save, and a function ``(ctx, grads, needs)`` returning one gradient per differentiable input (None
where not needed). What a formula reads of an input is saved as PyTorch saves it: the tensor itself
(``save_inputs``, version-checked) only where the C++ formula reads its values, its geometry (``save_meta``:
sizes, strides, offset, dtype, device) where it reads only ``self.sym_sizes()`` / ``self.options()`` /
``TensorGeometry(self)``. Broadcast gradients are reduced to the input's shape by the engine
(``engine.sum_to``), as PyTorch's ``validate_outputs`` does.

The ops these formulas call are the ones PyTorch's formulas call, in the same order and with the same
arguments, so a dispatch mode (or make_fx) sees PyTorch's backward graph op for op. Two C++ facts decide that
order:

* PyTorch's generated backward functions compute the input gradients in the alphabetical order of the input
  names (tools/autograd/load_derivatives.py sorts the formula keys: "exponent" < "self", "mat1" < "mat2" <
  "self", "other" < "self");
* GCC evaluates the operands of a C++ operator or function call right to left, so in
  ``grad * (exponent * self.pow(exponent - 1))`` the ``sub`` and ``pow`` run first (the object of a method
  call, ``a`` in ``a.f(b)``, still comes before ``b``).

C++ ``tensor * scalar`` is ``mul.Scalar``, ``scalar * tensor`` is ``tensor.mul(scalar)``, ``scalar - tensor``
is ``empty_like(t).fill_(scalar).sub_(t)`` (ATen's TensorOperators.h). Where PyTorch branches on
``areAnyTensorSubclassLike`` (true while a dispatch mode is active), the formulas branch the same way.

Modules: one per op family (``arithmetic``, ``transcendental``, ``comparison``, ``reductions``, ``views``,
``shape``, ``indexing`` + ``indexing_masked``, ``conversions``, ``random``, ``linalg``, ``activations``,
``normalization``, ``losses``, ``convolution``, ``pooling``, ``attention``, ``embedding``, ``dropout``; the
bitwise ops and the factories have no formulas), and the machinery they share: ``inplace_formulas``
(``inplace_of``: an in-place op takes its out-of-place entry's formula), ``cpp_idioms`` (``t.options()``,
``maybe_multiply``, ``scalar - tensor``, ``areAnyTensorSubclassLike``, ... written as aten ops) and
``not_implemented`` (the ``NotImplemented`` nodes).

Registration order: ``inplace_of`` copies the out-of-place entry, which must be registered first. Every
in-place entry sits below its out-of-place entry in the module of their family, so each module is complete on
its own and the family modules below may be imported in any order; each op is registered exactly once.
"""

from __future__ import annotations

from . import (  # noqa: F401 - each module registers its formulas when imported
    activations,
    arithmetic,
    attention,
    comparison,
    complex,
    conversions,
    convolution,
    dropout,
    embedding,
    fft,
    foreach,
    indexing,
    indexing_masked,
    linalg,
    losses,
    normalization,
    pooling,
    random,
    recurrent,
    reductions,
    resizing,
    shape,
    shape_padding,
    storage,
    testing_ops,
    transcendental,
    views,
)
