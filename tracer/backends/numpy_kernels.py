"""NumPy kernels the generated code of the "numpy" backend calls for ops that are more than one ufunc.

The code generator (numpy_codegen.py) turns most aten nodes into one NumPy call written inline
(``np.add(a, b)``, ``np.matmul(a, b)``, ``a.reshape(...)``); the ops below need a few NumPy statements
(softmax, layer norm and their backward ops, gelu, erf, nll_loss, integer division), so the generated
code calls these plain functions instead. They take and return ``np.ndarray`` only: nothing here
touches the dispatcher, so nothing here shows up in a dispatch mode.

Each kernel computes in the dtype of its inputs (float32 stays float32), unlike the eager CPU
kernels, which compute several of these in float64 and round at the end; results agree within float
tolerance. PyTorch's counterparts are the ATen CPU kernels (``aten/src/ATen/native/cpu/``) and the
Python references in torch/_refs and torch/_decomp.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "div_floor",
    "div_trunc",
    "erf",
    "gelu",
    "gelu_backward",
    "layer_norm",
    "layer_norm_backward",
    "log_softmax",
    "log_softmax_backward",
    "max_dim",
    "min_dim",
    "nll_loss_backward",
    "nll_loss_forward",
    "softmax",
    "softmax_backward",
]

_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_KAPPA = 0.044715

# erf in single precision: x * P(x^2) / Q(x^2) on [-4, 4] (erf is +-1 in float32 beyond), the rational
# approximation used by Eigen and XLA for float; measured here against math.erf: relative error <= 4.2e-7.
_ERF_P = (-1.60960333262415e-02, -2.95459980854025e-03, -7.34990630326855e-04, -5.69250639462346e-05,
          -2.10102402082508e-06, 2.77068142495902e-08, -2.72614225801306e-10)
_ERF_Q = (-1.42647390514189e-02, -7.37332916720468e-03, -1.68282697438203e-03, -2.13374055278905e-04,
          -1.45660718464996e-05)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function; float32 by a rational approximation, other float dtypes through the eager kernel's series."""
    if x.dtype != np.float32:
        from dispatcher.ops.transcendental import erf_numpy  # plain NumPy (float64, a few ulps)

        return np.asarray(erf_numpy(x)).astype(x.dtype, copy=False)
    x = np.minimum(np.maximum(x, np.float32(-4.0)), np.float32(4.0))  # np.clip's Python wrapper costs more
    x2 = x * x
    p = np.float32(_ERF_P[6])
    for c in _ERF_P[5::-1]:
        p = p * x2 + np.float32(c)
    q = np.float32(_ERF_Q[4])
    for c in _ERF_Q[3::-1]:
        q = q * x2 + np.float32(c)
    p *= x
    p /= q
    return p


def gelu(x: np.ndarray, approximate: str = "none") -> np.ndarray:
    """``aten.gelu``: ``x * Phi(x)`` with the exact (erf) or the tanh approximation."""
    t = x.dtype.type
    if approximate == "tanh":
        inner = x * x
        inner *= t(_GELU_KAPPA)
        inner += t(1)
        inner *= x
        inner *= t(_SQRT_2_OVER_PI)
        r = np.tanh(inner, out=inner)
    else:
        r = erf(x * t(_INV_SQRT_2))
    r += t(1)
    r *= x
    r *= t(0.5)
    return r


def gelu_backward(grad: np.ndarray, x: np.ndarray, approximate: str = "none") -> np.ndarray:
    """``aten.gelu_backward``: ``grad * d gelu / dx``."""
    t = x.dtype.type
    if approximate == "tanh":
        x_sq = x * x
        th = np.tanh(t(_SQRT_2_OVER_PI) * (x + t(_GELU_KAPPA) * x_sq * x))
        left = t(0.5) * x
        right = t(1) + th
        d = t(0.5) * right + left * (t(1) - th * th) * t(_SQRT_2_OVER_PI) * (t(1) + t(3 * _GELU_KAPPA) * x_sq)
        return grad * d
    cdf = t(0.5) * (t(1) + erf(x * t(_INV_SQRT_2)))
    pdf = np.exp(t(-0.5) * x * x) * t(_INV_SQRT_2PI)
    return grad * (cdf + x * pdf)


def softmax(x: np.ndarray, dim: int) -> np.ndarray:
    """``aten._softmax``: ``exp(x - max) / sum``, in x's dtype."""
    if x.ndim == 0:
        return softmax(x.reshape(1), 0).reshape(())
    with np.errstate(invalid="ignore", over="ignore"):  # rows of -inf give NaN, as in PyTorch
        e = np.subtract(x, np.maximum.reduce(x, axis=dim, keepdims=True))
        np.exp(e, out=e)
        e /= np.add.reduce(e, axis=dim, keepdims=True)
    return e


def log_softmax(x: np.ndarray, dim: int) -> np.ndarray:
    """``aten._log_softmax``: ``(x - max) - log(sum(exp(x - max)))``."""
    if x.ndim == 0:
        return log_softmax(x.reshape(1), 0).reshape(())
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        s = x - x.max(axis=dim, keepdims=True)
        s -= np.log(np.exp(s).sum(axis=dim, keepdims=True))
    return s


def softmax_backward(grad: np.ndarray, y: np.ndarray, dim: int) -> np.ndarray:
    """``aten._softmax_backward_data``: ``y * (grad - sum(grad * y))``."""
    if grad.ndim == 0:
        return softmax_backward(grad.reshape(1), y.reshape(1), 0).reshape(())
    gy = grad * y
    r = gy - y * gy.sum(axis=dim, keepdims=True)
    return r


def log_softmax_backward(grad: np.ndarray, y: np.ndarray, dim: int) -> np.ndarray:
    """``aten._log_softmax_backward_data``: ``grad - exp(y) * sum(grad)``."""
    if grad.ndim == 0:
        return log_softmax_backward(grad.reshape(1), y.reshape(1), 0).reshape(())
    return grad - np.exp(y) * grad.sum(axis=dim, keepdims=True)


def layer_norm(x: np.ndarray, n_dims: int, weight: np.ndarray | None, bias: np.ndarray | None,
               eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``aten.native_layer_norm`` over the last ``n_dims`` dims: (output, mean, rstd); stats keep those dims as 1."""
    t = x.dtype.type
    if n_dims == 1:
        axes: Any = -1
        count = x.shape[-1]
    else:
        axes = tuple(range(x.ndim - n_dims, x.ndim))
        count = 1
        for d in axes:
            count *= x.shape[d]
    inv_n = t(1.0 / count) if count else t(np.nan)
    # np.add.reduce and a multiply: ndarray.mean's Python wrapper costs more than the arithmetic at these sizes
    mean = np.add.reduce(x, axis=axes, keepdims=True)
    mean *= inv_n
    y = x - mean
    var = np.add.reduce(np.square(y), axis=axes, keepdims=True)
    var *= inv_n
    var += t(eps)
    rstd = np.sqrt(var, out=var)
    np.divide(t(1), rstd, out=rstd)
    y *= rstd
    if weight is not None:
        y *= weight
    if bias is not None:
        y += bias
    return y, mean, rstd


def layer_norm_backward(grad: np.ndarray, x: np.ndarray, n_dims: int, mean: np.ndarray, rstd: np.ndarray,
                        weight: np.ndarray | None, mask: tuple[bool, bool, bool]) -> tuple[Any, Any, Any]:
    """``aten.native_layer_norm_backward``: (grad_input, grad_weight, grad_bias), None where ``mask`` says so."""
    axes = tuple(range(x.ndim - n_dims, x.ndim))
    lead = tuple(range(x.ndim - n_dims))
    xhat = (x - mean) * rstd
    gi = gw = gb = None
    if mask[0]:
        g = grad * weight if weight is not None else grad
        gi = rstd * (g - g.mean(axis=axes, keepdims=True) - xhat * (g * xhat).mean(axis=axes, keepdims=True))
    if mask[1]:
        gw = (grad * xhat).sum(axis=lead)
    if mask[2]:
        gb = grad.sum(axis=lead)
    return gi, gw, gb


def max_dim(x: np.ndarray, dim: int, keepdim: bool) -> tuple[np.ndarray, np.ndarray]:
    """``aten.max.dim``: (values, int64 indices of the first maximum)."""
    idx = np.argmax(x, axis=dim, keepdims=True)
    vals = np.take_along_axis(x, idx, axis=dim)
    if not keepdim:
        idx, vals = idx.squeeze(dim), vals.squeeze(dim)
    return vals, idx.astype(np.int64, copy=False)


def min_dim(x: np.ndarray, dim: int, keepdim: bool) -> tuple[np.ndarray, np.ndarray]:
    """``aten.min.dim``: (values, int64 indices of the first minimum)."""
    idx = np.argmin(x, axis=dim, keepdims=True)
    vals = np.take_along_axis(x, idx, axis=dim)
    if not keepdim:
        idx, vals = idx.squeeze(dim), vals.squeeze(dim)
    return vals, idx.astype(np.int64, copy=False)


def div_trunc(a: Any, b: Any) -> Any:
    """Integer division rounding toward zero (C semantics), as ``div(rounding_mode='trunc')`` on integers."""
    if np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")
    q = np.floor_divide(a, b)
    fix = (np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
    return q + fix.astype(q.dtype)


def div_floor(a: Any, b: Any) -> Any:
    """Integer division rounding toward minus infinity, as ``div(rounding_mode='floor')`` on integers."""
    if np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")
    return np.floor_divide(a, b)


def nll_loss_forward(x: np.ndarray, target: np.ndarray, weight: np.ndarray | None, reduction: int,
                     ignore_index: int) -> tuple[np.ndarray, np.ndarray]:
    """``aten.nll_loss_forward`` for (N, C) or (C,) input: (loss, total_weight); reduction 0 none, 1 mean, 2 sum."""
    x2 = x if x.ndim == 2 else x.reshape(1, -1)
    t = target.reshape(-1)
    keep = t != ignore_index
    safe = np.where(keep, t, 0)
    w = (weight[safe] if weight is not None else np.ones(t.shape, x.dtype)) * keep.astype(x.dtype)
    picked = -x2[np.arange(x2.shape[0]), safe] * w
    total = w.sum(dtype=x.dtype)
    if reduction == 0:
        out = picked if x.ndim == 2 else picked.reshape(())
        return out.astype(x.dtype, copy=False), np.zeros((), x.dtype)
    s = picked.sum(dtype=x.dtype)
    if reduction == 1:
        with np.errstate(invalid="ignore", divide="ignore"):
            s = s / total
    return np.asarray(s, dtype=x.dtype), np.asarray(total, dtype=x.dtype)


def nll_loss_backward(grad: np.ndarray, x: np.ndarray, target: np.ndarray, weight: np.ndarray | None,
                      reduction: int, ignore_index: int, total_weight: np.ndarray) -> np.ndarray:
    """``aten.nll_loss_backward``: minus the (weighted, reduced) upstream gradient at each target class."""
    x2 = x if x.ndim == 2 else x.reshape(1, -1)
    t = target.reshape(-1)
    keep = t != ignore_index
    safe = np.where(keep, t, 0)
    w = (weight[safe] if weight is not None else np.ones(t.shape, x.dtype)) * keep.astype(x.dtype)
    g = grad.reshape(-1) if reduction == 0 else grad.reshape(())
    if reduction == 1:
        g = g / total_weight
    out = np.zeros_like(x2)
    out[np.arange(x2.shape[0]), safe] = -(w * g)
    return out.reshape(x.shape)
