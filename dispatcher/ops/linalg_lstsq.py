"""Least squares: the CompositeExplicitAutograd ``linalg_lstsq`` (``torch.linalg.lstsq``) and the pseudo-inverse
``linalg_pinv.atol_rtol_tensor`` its derivative calls.

Corresponds to aten/src/ATen/native/BatchLinearAlgebra.cpp (``linalg_lstsq`` -> ``linalg_lstsq_out`` ->
``linalg_lstsq_out_info``, ``get_default_lstsq_driver``) and LinearAlgebra.cpp (``linalg_pinv``). PyTorch's
checks run in its order: input at least 2-d, other at least 1-d, same dtype, ``input.dim() - other.dim()`` 0 or
1, the rows matching (``other`` is a vector right-hand side when 1-d or shaped ``input.shape[:-1]``), the driver
name (lower-cased; CPU default ``gelsy``), the default ``rcond`` (``eps * max(m, n)``: float / double only), the
dtype case of the CPU kernel, the batch broadcast. What each driver returns, as LAPACK's drivers through torch:

* ``solution``: ``(*, n)`` or ``(*, n, k)`` over the broadcast batch, zero when ``m == 0``; laid out as
  LAPACK's column-major buffer narrowed to n rows (strides ``(.., 1, max(m, n))``), contiguous for a vector rhs;
* ``residuals``: the squared residual norms ``(*, k)`` only when ``m > n``, the driver is not ``gelsy`` and (for
  ``gelsd`` / ``gelss``) every matrix of the batch has full rank ``n``; else empty;
* ``rank``: int64, shaped as input's batch; empty for ``gels`` (which fails on an exactly rank-deficient
  triangular factor with torch.linalg.LinAlgError, "error code" the 1-based zero diagonal);
* ``singular_values``: ``(*, min(m, n))`` for ``gelsd`` / ``gelss`` only.

Here ``gelsd`` / ``gelss`` solve through NumPy's SVD (rank: singular values above ``rcond * s_max``, the
minimum-norm solution); ``gelsy`` through a column-pivoted QR truncated where its leading triangle's condition
passes ``1 / rcond`` (exact singular values where LAPACK estimates them), then the minimum-norm solution of the
truncated system; ``gels`` through QR (m >= n) or the QR of A^H (an LQ, m < n). PyTorch has no Meta kernel for either op's out=
form: on meta tensors both raise its NotImplementedError; fake tensors refuse ``linalg_lstsq`` as a
``dynamic_output_shape`` op.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, contiguous_strides
from .kernel_dtypes import is_meta, not_implemented
from .kernel_registry import impl
from .meta_utils import TensorMeta, broadcast_shapes, materialize, scalar_type_name

_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")
_FLOAT_AND_COMPLEX = ("float32", "float64", "complex64", "complex128")


def _meta_message(op: str) -> str:
    return (f"{op}: attempted to run this operator with Meta tensors, but there was no fake impl or Meta kernel "
            "registered. You may have run into this message while using an operator with PT2 compilation APIs "
            "(torch.compile/torch.export); in order to use this operator with those APIs you'll need to add a fake "
            "impl. Please see the following for next steps:  "
            "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html")


class LinAlgError(RuntimeError):
    """``torch.linalg.LinAlgError`` (``torch._C._LinAlgError``): a LAPACK info != 0, a RuntimeError."""


LinAlgError.__module__ = "torch._C"
LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"


def _get_epsilon(d: _dt.dtype) -> float:
    """LinearAlgebraUtils' ``_get_epsilon``: float and double only."""
    real = d.to_real() if d.is_complex else d
    if real.name not in ("float32", "float64"):
        raise RuntimeError("This function doesn't handle types other than float and double")
    return float(np.finfo(real.np_dtype).eps)


def is_vector_rhs(a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> bool:
    """``linalg_solve_is_vector_rhs``: ``b`` is 1-d, or shaped ``a.shape[:-1]``."""
    return len(b_shape) == 1 or (len(a_shape) - 1 == len(b_shape) and tuple(b_shape) == tuple(a_shape[:-1]))


def _driver_name(driver: str | None) -> str:
    if driver is None:
        return "gelsy"
    name = driver.lower()
    if name not in _DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    return name


def _svd_solve(a: np.ndarray, b: np.ndarray, rcond: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Minimum-norm solutions of a batch (a: (B, m, n) broadcast, b: (B, m, k)), their ranks and singular values."""
    m, n = a.shape[-2:]
    kmin = min(m, n)
    if kmin == 0:
        return (np.zeros(a.shape[:-2] + (n, b.shape[-1]), a.dtype), np.zeros(a.shape[:-2], np.int64),
                np.zeros(a.shape[:-2] + (0,), np.finfo(a.dtype).dtype))
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    tol = (rcond if rcond >= 0 else float(np.finfo(s.dtype).eps)) * s[..., :1]
    keep = s > tol
    inv = np.where(keep, 1.0 / np.where(keep, s, 1), 0).astype(s.dtype)
    ub = np.swapaxes(u.conj(), -1, -2) @ b
    x = np.swapaxes(vh.conj(), -1, -2) @ (inv[..., :, None] * ub)
    return x.astype(a.dtype), keep.sum(-1).astype(np.int64), s


def _pivoted_qr(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """QR with column pivoting (xGEQP3's order: the largest remaining column norm first), by modified Gram-Schmidt
    in double precision: Q (m, k), R (k, n), the permutation."""
    m, n = a.shape
    w = a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)
    kmin = min(m, n)
    q = np.zeros((m, kmin), w.dtype)
    r = np.zeros((kmin, n), w.dtype)
    perm = np.arange(n)
    for k in range(kmin):
        j = k + int(np.argmax((np.abs(w[:, k:]) ** 2).sum(0)))
        w[:, [k, j]], r[:, [k, j]], perm[[k, j]] = w[:, [j, k]], r[:, [j, k]], perm[[j, k]]
        norm = float(np.linalg.norm(w[:, k]))
        r[k, k] = norm
        if norm == 0:
            break
        q[:, k] = w[:, k] / norm
        r[k, k + 1:] = q[:, k].conj() @ w[:, k + 1:]
        w[:, k + 1:] -= np.outer(q[:, k], r[k, k + 1:])
    return q, r, perm


def _gelsy_rank(r: np.ndarray, rcond: float) -> int:
    """xGELSY's rank: the leading triangles of R grown while their condition stays below 1 / rcond (here with their
    exact extreme singular values, where LAPACK estimates them incrementally)."""
    kmin = min(r.shape)
    if kmin == 0 or r[0, 0] == 0:
        return 0
    rank = 1
    while rank < kmin:
        s = np.linalg.svd(r[:rank + 1, :rank + 1], compute_uv=False)
        if s[0] * rcond > s[-1]:
            break
        rank += 1
    return rank


def _gelsy(a: np.ndarray, b: np.ndarray, rcond: float) -> tuple[np.ndarray, np.ndarray]:
    """xGELSY on a batch: the minimum-norm solution of the rank-truncated pivoted QR (what its complete orthogonal
    factorisation computes) and the ranks."""
    m, n = a.shape[-2:]
    x = np.zeros(a.shape[:-2] + (n, b.shape[-1]), a.dtype)
    ranks = np.zeros(a.shape[:-2], np.int64)
    if min(m, n) == 0:
        return x, ranks
    for idx in np.ndindex(*a.shape[:-2]):
        q, r, perm = _pivoted_qr(a[idx])
        rank = ranks[idx] = _gelsy_rank(r, rcond)
        if rank:
            x[idx][perm] = np.linalg.pinv(r[:rank]) @ (q[:, :rank].conj().T @ b[idx])
    return x, ranks


def _gels(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
    """xGELS on a batch: QR (m >= n) or LQ (m < n). Also which matrices took xGELS's quick return (an empty or
    all-zero matrix: B, raw residuals included, set to zero) and, for an exactly singular triangular factor, the
    batch element and 1-based diagonal as ``info`` ((0, 0): none)."""
    m, n = a.shape[-2:]
    x = np.zeros(a.shape[:-2] + (n, b.shape[-1]), a.dtype)
    zeroed = np.ones(a.shape[:-2], bool)
    if min(m, n) == 0:
        return x, zeroed, (0, 0)
    for idx in np.ndindex(*a.shape[:-2]):
        mat, rhs = a[idx], b[idx]
        if not mat.any():
            continue
        zeroed[idx] = False
        tall = m >= n
        q, r = np.linalg.qr(mat if tall else mat.conj().T)
        zero = np.flatnonzero(np.diagonal(r) == 0)
        if zero.size:
            flat = int(np.ravel_multi_index(idx, a.shape[:-2])) if idx else 0
            return x, zeroed, (flat, int(zero[0]) + 1)
        if tall:
            x[idx] = np.linalg.solve(r, q.conj().T @ rhs)
        else:
            x[idx] = q @ np.linalg.solve(r.conj().T, rhs)
    return x, zeroed, (0, 0)


@impl("linalg_lstsq", "CompositeExplicitAutograd")
def linalg_lstsq(self: Tensor, b: Tensor, rcond: float | None = None, *,
                 driver: str | None = None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    if is_meta(self) or is_meta(b):
        raise NotImplementedError(_meta_message("aten::linalg_lstsq.out"))
    a_shape, b_shape = self._shape, b._shape
    if len(a_shape) < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if len(b_shape) < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if self._dtype is not b._dtype:
        raise RuntimeError("torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
                           f"dtype {scalar_type_name(self._dtype)} and other's dtype {scalar_type_name(b._dtype)}")
    dim_diff = len(a_shape) - len(b_shape)
    if not 0 <= dim_diff <= 1:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    vector = is_vector_rhs(a_shape, b_shape)
    b2_shape = tuple(b_shape) + (1,) if vector else tuple(b_shape)
    if a_shape[-2] != b2_shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-1)" if vector else
                           "torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    name = _driver_name(driver)
    m, n = a_shape[-2:]
    rcond_value = float(rcond) if rcond is not None else _get_epsilon(self._dtype) * max(m, n)
    if self._dtype.name not in _FLOAT_AND_COMPLEX:
        raise not_implemented("linalg_lstsq_cpu", self._dtype)
    nb = len(a_shape) - 2  # broadcast_batch_size: the first input.dim() - 2 sizes of each
    batch = broadcast_shapes(a_shape[:-2], b2_shape[:nb])
    a_np = np.asarray(self._data)
    b_np = np.asarray(b._data).reshape(b2_shape)
    for arg, arr in ((4, a_np), (6, b_np)):
        if np.isnan(arr).any():  # MKL's parameter check refuses NaNs: torch's LAPACK info < 0 assert
            number = arg + 1 if name == "gels" else arg
            raise RuntimeError(
                'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp"'
                f":1613, please report a bug to PyTorch. torch.linalg.lstsq: Argument {number} has illegal value. "
                "Most certainly there is a bug in the implementation calling the backend library.")
    with np.errstate(all="ignore"):
        return _solve(self, b, name, rcond_value, vector, batch, b2_shape, a_np, b_np)


def _solve(self: Tensor, b: Tensor, name: str, rcond_value: float, vector: bool, batch: tuple[int, ...],
           b2_shape: tuple[int, ...], a_np: np.ndarray, b_np: np.ndarray) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The driver's outputs (the checks done); infinite entries give NaNs where LAPACK's drivers return them."""
    m, n = self._shape[-2:]
    k = b2_shape[-1]
    in_batch = tuple(self._shape[:-2])
    real = self._dtype.to_real() if self._dtype.is_complex else self._dtype
    a_full = np.broadcast_to(a_np, batch + (m, n))
    b_full = np.broadcast_to(b_np, batch + (m, k))
    rank_np = sv_np = None
    zeroed = np.zeros(batch, bool)
    finite = bool(np.isfinite(a_np).all())
    if not finite:
        a_np = np.where(np.isfinite(a_np), a_np, np.nan)
        a_full = np.broadcast_to(a_np, batch + (m, n))
    if name == "gels":
        x, zeroed, (elem, info) = _gels(a_full, b_full) if finite else (
            np.full(batch + (n, k), np.nan, a_np.dtype), zeroed, (0, 0))
        if info:
            prefix = "" if len(batch) == 0 or int(np.prod(in_batch, dtype=np.int64)) <= 1 else \
                f"(Batch element {elem}): "
            raise LinAlgError(f"torch.linalg.lstsq: {prefix}The least squares solution could not be computed "
                              f"because the input matrix does not have full rank (error code: {info}).")
        full_rank = True
    elif finite and name == "gelsy":
        _, rank_np = _gelsy(a_np, np.zeros(a_np.shape[:-1] + (0,), a_np.dtype), rcond_value)
        x, _ = _gelsy(a_full, b_full, rcond_value)
        full_rank = bool(np.all(rank_np == n))
    elif finite:
        _, rank_np, sv_np = _svd_solve(a_np, np.zeros(a_np.shape[:-1] + (0,), a_np.dtype), rcond_value)
        x, _, _ = _svd_solve(a_full, b_full, rcond_value)
        full_rank = bool(np.all(rank_np == n))
    else:
        x = np.full(batch + (n, k), np.nan, a_np.dtype)
        rank_np = np.zeros(in_batch, np.int64)
        sv_np = np.full(in_batch + (min(m, n),), np.nan, real.np_dtype)
        full_rank = n == 0
    if m == 0:
        x = np.zeros_like(x)

    # the solution: LAPACK's column-major (k, max(m, n)) buffer per matrix, narrowed to its first n rows
    lead = max(m, n)
    if vector:
        sol_shape = batch + (n,)
        buf = np.zeros(batch + (lead,), self._dtype.np_dtype)
        buf[..., :n] = x[..., 0]
        strides = contiguous_strides(batch + (lead,))
    else:
        sol_shape = batch + (n, k)
        buf = np.zeros(batch + (k, lead), self._dtype.np_dtype)
        buf[..., :n] = np.swapaxes(x, -1, -2)
        cs = contiguous_strides(batch + (k, lead))
        strides = cs[:-2] + (1, lead)
    solution = Tensor._from_storage(buf.reshape(-1), sol_shape, tuple(strides[:len(batch)]) + tuple(
        strides[len(batch):] if not vector else (1,)), 0, self._dtype, self._device)

    if m > n and name != "gelsy" and full_rank:
        diff = np.abs(np.einsum("...mn,...nk->...mk", a_full.astype(x.dtype), x) - b_full) ** 2
        res = diff.sum(-2).astype(real.np_dtype)
        if name == "gels":  # xGELS's quick return zeroed B, its raw residual rows included
            res[zeroed] = 0
        res_meta = TensorMeta(res.shape, contiguous_strides(res.shape), real)
        residuals = materialize(res_meta, res, self)
    else:
        residuals = materialize(TensorMeta((0,), (1,), real), np.zeros((0,), real.np_dtype), self)
    if name == "gels":
        rank = materialize(TensorMeta((0,), (1,), _dt.int64), np.zeros((0,), np.int64), self)
    else:
        rank = materialize(TensorMeta(in_batch, contiguous_strides(in_batch), _dt.int64),
                           np.ascontiguousarray(rank_np).reshape(in_batch), self)
    if name in ("gelsd", "gelss"):
        sv_shape = in_batch + (min(m, n),)
        sv = materialize(TensorMeta(sv_shape, contiguous_strides(sv_shape), real),
                         np.ascontiguousarray(sv_np, dtype=real.np_dtype).reshape(sv_shape), self)
    else:
        sv = materialize(TensorMeta((0,), (1,), real), np.zeros((0,), real.np_dtype), self)
    return solution, residuals, rank, sv


# --- linalg_pinv.atol_rtol_tensor -----------------------------------------------------------------------------------

def _shape_text(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


@impl("linalg_pinv.atol_rtol_tensor", "CPU", "Meta")
def linalg_pinv(self: Tensor, *, atol: Tensor | None = None, rtol: Tensor | None = None,
                hermitian: bool = False) -> Tensor:
    """``pinv(A) = V diag(1/s) U^H`` over the singular values above ``max(atol, rtol * s_max)`` (``rtol`` defaults to
    ``eps * max(m, n)``, or 0 when a positive ``atol`` is given); with ``hermitian`` from ``eigh``."""
    shape = self._shape
    if len(shape) < 2 or self._dtype.name not in _FLOAT_AND_COMPLEX:
        raise RuntimeError(f"linalg.pinv({scalar_type_name(self._dtype)}{{{_shape_text(shape)}}}): expected a tensor "
                           "with 2 or more dimensions of float, double, cfloat or cdouble types")
    m, n = shape[-2:]
    batch = tuple(shape[:-2])
    if 0 in shape:
        out_shape = batch + (n, m)
        return materialize(TensorMeta(out_shape, contiguous_strides(out_shape), self._dtype),
                           lambda: np.zeros(out_shape, self._dtype.np_dtype), self)
    if hermitian and m != n:
        raise RuntimeError(f"linalg.eigh: A must be batches of square matrices, but they are {m} by {n} matrices")
    tol_shape = broadcast_shapes(batch, atol._shape if atol is not None else (), rtol._shape if rtol is not None else ())
    out_shape = tol_shape + (n, m)
    meta = TensorMeta(out_shape, contiguous_strides(out_shape), self._dtype)

    def values() -> np.ndarray:
        a = np.asarray(self._data)
        if not hermitian and not np.isfinite(a).all():  # LAPACK's gesdd fails (linalg_svd's info check)
            bad = ~np.isfinite(a).reshape(batch + (-1,)).all(-1) if batch else None
            prefix = f"(Batch element {int(np.flatnonzero(bad.reshape(-1))[0])}): " if batch else ""
            why = ("contained non-finite values." if np.isnan(a).any() else
                   f"is ill-conditioned or has too many repeated singular values (error code: {min(m, n) - 1}).")
            raise LinAlgError(f"linalg.svd: {prefix}The algorithm failed to converge because the input matrix {why}")
        eps_rtol = _get_epsilon(self._dtype) * max(m, n)
        at = np.asarray(atol._data, np.float64) if atol is not None else np.zeros((), np.float64)
        if rtol is not None:
            rt = np.asarray(rtol._data, np.float64)
        else:
            rt = np.where(at > 0, 0.0, eps_rtol) if atol is not None else np.asarray(eps_rtol)
        if hermitian:
            s, u = np.linalg.eigh(a)
            vh = np.swapaxes(u.conj(), -1, -2)
            size = np.abs(s)
            top = size.max(-1, keepdims=True)
        else:
            u, s, vh = np.linalg.svd(a, full_matrices=False)
            size = s
            top = s[..., :1]
        tol = np.maximum(at[..., None], rt[..., None] * top)
        with np.errstate(divide="ignore"):
            inv = np.where(size > tol, 1.0 / s, 0).astype(self._dtype.np_dtype)
        v = np.swapaxes(vh.conj(), -1, -2)
        return (v * inv[..., None, :]) @ np.swapaxes(u.conj(), -1, -2)

    return materialize(meta, values, self)
