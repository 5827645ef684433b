"""Derivative formulas of the FFT primitives: ``_fft_r2c`` (FftR2CBackward0), ``_fft_c2c`` (FftC2CBackward0) and
``_fft_c2r`` (FftC2RBackward0).

Corresponds to these ops' entries in tools/autograd/derivatives.yaml and ``fft_r2c_backward`` /
``fft_c2r_backward`` of torch/csrc/autograd/FunctionsManual.cpp: the c2c transform's adjoint is the transform the
other way with the same normalization; r2c's is a c2c inverse of the gradient zero-filled to the full length (for a
one-sided transform), keeping the real part; c2r's is a one-sided r2c of the gradient whose entries with a mirrored
partner outside the one-sided half are doubled in place.
"""

from __future__ import annotations

from ...op_overload import namespace
from ..function import derivative

aten = namespace("aten")


@derivative("_fft_c2c", "FftC2CBackward0", ("self",), save_inputs=("dim", "normalization", "forward"))
def _fft_c2c(ctx, grads, needs):
    return (aten._fft_c2c.default(grads[0], list(ctx.dim), ctx.normalization, not ctx.forward),)


@derivative("_fft_r2c", "FftR2CBackward0", ("self",), save_inputs=("dim", "normalization", "onesided"),
            save_meta=("self",))
def _fft_r2c(ctx, grads, needs):
    grad, dim = grads[0], list(ctx.dim)
    if not ctx.onesided:
        return (aten.real.default(aten._fft_c2c.default(grad, dim, ctx.normalization, False)),)
    last = dim[-1] + grad.dim() if dim[-1] < 0 else dim[-1]
    last_dim_size = ctx.self._shape[last]
    half = grad._shape[last]
    full = grad
    if last_dim_size - half > 0:
        shape = list(grad._shape)
        shape[last] = last_dim_size
        full = aten.new_zeros.default(grad, shape)
        aten.copy_.default(aten.slice.Tensor(full, last, 0, half), grad)
    return (aten.real.default(aten._fft_c2c.default(full, dim, ctx.normalization, False)),)


@derivative("_fft_c2r", "FftC2RBackward0", ("self",), save_inputs=("dim", "normalization"))
def _fft_c2r(ctx, grads, needs):
    grad, dim = grads[0], list(ctx.dim)
    g_in = aten._fft_r2c.default(grad, dim, ctx.normalization, True)
    double_length = grad._shape[dim[-1]] - g_in._shape[dim[-1]]
    if double_length > 0:
        aten.mul_.Scalar(aten.slice.Tensor(g_in, dim[-1], 1, 1 + double_length), 2)
    return (g_in,)
