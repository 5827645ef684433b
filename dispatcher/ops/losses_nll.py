"""Negative log likelihood: ``nll_loss_forward`` / ``nll_loss_backward``, ``nll_loss2d_forward`` /
``nll_loss2d_backward``, and the CompositeImplicitAutograd ``nll_loss``, ``nll_loss_nd``, ``cross_entropy_loss``.

Corresponds to aten/src/ATen/native/LossNLL.cpp and LossNLL2d.cpp: the shape checks in PyTorch's order, ignored
targets (``ignore_index``) and class weights, ``reduction`` none / mean / sum (mean divides by the total weight of
the counted targets). ``nll_loss_nd`` picks the 1-d / 2-d op (reshaping other spatial inputs);
``cross_entropy_loss`` is ``log_softmax`` (run inline: graphs show ``_log_softmax``) + ``nll_loss_nd`` for class
indices, and PyTorch's compositions for probability targets and label smoothing.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, contiguous_strides
from .activations_softmax import log_softmax_int
from .composite import _fmt_double, _op
from .kernel_dtypes import _expected_scalar_type, _f64, is_meta, not_implemented
from .kernel_registry import impl
from .losses import REDUCTION_MEAN, REDUCTION_NONE
from .meta_utils import TensorMeta, materialize, preserve_format_strides, scalar_type_name
from .tensor_iterator import _is_float

_REDUCTION_NONE, _REDUCTION_MEAN, _REDUCTION_SUM = 0, 1, 2


# --- nll_loss -----------------------------------------------------------------------------------------


def _nll_shape_checks(self: Tensor, target: Tensor) -> None:
    if not 0 < self.dim() <= 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    no_batch_dim = self.dim() == 1 and target.dim() == 0
    if not (no_batch_dim or self._shape[0] == target._shape[0]):
        raise RuntimeError(f"size mismatch (got input: {list(self._shape)}, target: {list(target._shape)})")


def _nll_targets(self: Tensor, target: Tensor, ignore_index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows of 2-D input, targets, keep mask) with PyTorch's out-of-bounds IndexError."""
    x = self._data.reshape(1, -1) if self.dim() == 1 else self._data
    t = target._data.reshape(-1).astype(np.int64)
    if self.dim() == 1:
        t = t[:1]
    keep = t != ignore_index
    n_classes = self._shape[-1]
    bad = keep & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(t[np.argmax(bad)])} is out of bounds.")
    return x, t, keep


def _nll_weights(weight: Tensor | None, t: np.ndarray, keep: np.ndarray) -> np.ndarray:
    tt = np.where(keep, t, 0)
    w = _f64(weight)[tt] if weight is not None else np.ones(t.shape)
    return np.where(keep, w, 0.0)


@impl("nll_loss_forward", "CPU", "Meta")
def nll_loss_forward(
    self: Tensor, target: Tensor, weight: Tensor | None, reduction: int, ignore_index: int
) -> tuple[Tensor, Tensor]:
    if target.dim() == 0 and self.dim() >= 2:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if self.dim() == 1 and target.dim() == 1:
        if target._shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target._shape[0]}")
    else:
        _nll_shape_checks(self, target)
    n_classes = self._shape[-1]
    if weight is not None and not (weight.dim() == 1 and weight.numel() == n_classes):
        raise RuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes or no classes but got weight "
            f"tensor of shape: {list(weight._shape)}"
        )
    d = self._dtype
    out_shape = (self._shape[0],) if reduction == REDUCTION_NONE and self.dim() == 2 else ()
    out_meta = TensorMeta(out_shape, contiguous_strides(out_shape), d)
    tw_meta = TensorMeta((), (), d)
    if is_meta(self):
        return materialize(out_meta, None, self), materialize(tw_meta, None, self)
    if target._dtype not in (_dt.int64, _dt.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {scalar_type_name(target._dtype)}")
    if weight is not None and weight._dtype is not d:
        raise _expected_scalar_type(d, weight._dtype)
    if not _is_float(d):
        raise not_implemented("nll_loss_out_frame", d)
    x, t, keep = _nll_targets(self, target, ignore_index)
    w = _nll_weights(weight, t, keep)
    picked = np.where(keep, x.astype(np.float64)[np.arange(len(t)), np.where(keep, t, 0)], 0.0)
    losses = -w * picked
    if reduction == REDUCTION_NONE:
        if self.dim() == 2:
            return materialize(out_meta, losses, self), materialize(tw_meta, np.zeros(()), self)
        return materialize(out_meta, losses.reshape(()), self), materialize(tw_meta, w.reshape(()), self)
    total_weight = w.sum()
    total = losses.sum()
    if reduction == REDUCTION_MEAN:
        with np.errstate(invalid="ignore", divide="ignore"):
            total = total / total_weight
    return materialize(out_meta, np.float64(total), self), materialize(tw_meta, np.float64(total_weight), self)


@impl("nll_loss_backward", "CPU", "Meta")
def nll_loss_backward(
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None,
    reduction: int,
    ignore_index: int,
    total_weight: Tensor,
) -> Tensor:
    _nll_shape_checks(self, target)
    if total_weight.numel() != 1:
        raise RuntimeError(
            f"expected total_weight to be a  single element tensor, got: {list(total_weight._shape)} "
            f"({total_weight.numel()} elements)"
        )
    n_classes = self._shape[-1]
    if weight is not None and weight.numel() != n_classes:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if reduction == REDUCTION_NONE and self.dim() == 2:
        batch = self._shape[0]
        if grad_output.dim() != 1 or grad_output._shape[0] != batch:
            size0 = _dim0_size(grad_output)
            raise RuntimeError(
                f"Expected a tensor of dimension 1 and tensor.size[0] == {batch} but got: dimension "
                f"{grad_output.dim()} and tensor.size[0] = {size0}"
            )
    elif not (grad_output.dim() <= 1 and grad_output.numel() == 1):
        raise RuntimeError(f"Expected a single element grad_output tensor, but got: {list(grad_output._shape)}")
    d = self._dtype
    meta = TensorMeta(self._shape, contiguous_strides(self._shape), d)
    if is_meta(self):
        return materialize(meta, None, self)
    if target._dtype not in (_dt.int64, _dt.uint8):
        raise _expected_scalar_type(_dt.int64, target._dtype)
    if not _is_float(d):
        raise not_implemented("nll_loss_backward_out_frame", d)
    for t in (grad_output, weight, total_weight):
        if t is not None and t._dtype is not d:
            raise _expected_scalar_type(d, t._dtype)
    x, t, keep = _nll_targets(self, target, ignore_index)
    cd = d.np_dtype
    g = grad_output._data.reshape(-1).astype(cd)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if reduction == REDUCTION_MEAN:
            g = g / total_weight._data.reshape(()).astype(cd)
        g = -g
        w = weight._data.astype(cd)[np.where(keep, t, 0)] if weight is not None else np.ones(t.shape, cd)
        vals = np.where(keep, w * g, cd.type(0))
    grad = np.zeros(x.shape, cd)
    rows = np.nonzero(keep)[0]
    grad[rows, t[rows]] = vals[rows]
    return materialize(meta, grad.reshape(self._shape), self)


def _dim0_size(t: Tensor) -> int:
    if t.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return t._shape[0]


# nll_loss2d_backward: LossNLL2d.cpp's checks in its order on CPU; on Meta, PyTorch runs the Python
# decomposition (torch/_decomp), whose checks raise AssertionError.
def _nll2d_meta_checks(self: Tensor, target: Tensor, total_weight: Tensor) -> None:
    if self.dim() != 4:
        raise AssertionError(
            f"only batches of spatial inputs supported (4D tensors), but got input of dimension: {self.dim()}"
        )
    if target.dim() != 3:
        raise AssertionError(
            f"only batches of spatial targets supported (3D tensors) but got targets of dimension: {target.dim()}"
        )
    s, t = self._shape, target._shape
    if not (s[0] == t[0] and s[2] == t[1] and s[3] == t[2]):
        raise AssertionError(f"size mismatch (got input: torch.Size({list(s)}), target: torch.Size({list(t)})")
    if total_weight.numel() != 1:
        raise AssertionError(
            f"expected total_weight to be a single element tensor, got: torch.Size({list(total_weight._shape)}) "
            f"( {total_weight.numel()}, elements)"
        )


@impl("nll_loss2d_backward", "CPU", "Meta")
def nll_loss2d_backward(
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None,
    reduction: int,
    ignore_index: int,
    total_weight: Tensor,
) -> Tensor:
    d = self._dtype
    if is_meta(self):
        _nll2d_meta_checks(self, target, total_weight)
        return materialize(TensorMeta(self._shape, contiguous_strides(self._shape), d), None, self)
    if target._dtype not in (_dt.int64, _dt.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {scalar_type_name(target._dtype)}")
    if target.dim() != 3:
        raise RuntimeError(
            f"only batches of spatial targets supported (3D tensors) but got targets of dimension: {target.dim()}"
        )
    if self.dim() != 4:
        raise RuntimeError(
            f"only batches of spatial inputs supported (4D tensors), but got input of dimension: {self.dim()}"
        )
    n, c, h, w = self._shape
    if weight is not None and weight.numel() != c:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if (n, h, w) != tuple(target._shape):
        raise RuntimeError(f"size mismatch (got input: {list(self._shape)} , target: {list(target._shape)}")
    from ..tensor import _is_contiguous

    if not _is_contiguous(self._shape, preserve_format_strides(self)):  # grad_input is empty_like(input)
        raise RuntimeError("grad_input must be contiguous")
    if total_weight.numel() != 1:
        raise RuntimeError(
            f"expected total_weight to be a single element tensor, got: {list(total_weight._shape)} "
            f"({total_weight.numel()} elements)"
        )
    if not _is_float(d):
        raise not_implemented("nll_loss2d_backward_out_frame", d)
    for t in (grad_output, weight, total_weight):
        if t is not None and t._dtype is not d:
            raise _expected_scalar_type(d, t._dtype)
    if reduction == REDUCTION_NONE:
        if tuple(grad_output._shape) != (n, h, w):
            raise RuntimeError(
                f"size mismatch (got grad_output: {list(grad_output._shape)} target: {list(target._shape)}"
            )
    elif not (grad_output.dim() <= 1 and grad_output.numel() == 1):
        raise RuntimeError(f"Expected a single element grad_output tensor, but got: {list(grad_output._shape)}")
    meta = TensorMeta(self._shape, contiguous_strides(self._shape), d)

    def compute() -> np.ndarray:
        cd = d.np_dtype
        t = target._data.astype(np.int64)
        keep = t != ignore_index
        bad = keep & ((t < 0) | (t >= c))
        if bad.any():
            raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")
        tt = np.where(keep, t, 0)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if reduction == REDUCTION_NONE:
                g = grad_output._data.astype(cd)
            else:
                g = np.full((n, h, w), grad_output._data.reshape(()).astype(cd))
                if reduction == REDUCTION_MEAN:
                    g = g / total_weight._data.reshape(()).astype(cd)
            wv = weight._data.astype(cd)[tt] if weight is not None else np.ones((n, h, w), cd)
            vals = np.where(keep, -(wv * g), cd.type(0))
        grad = np.zeros((n, c, h, w), cd)
        nn_, hh, ww = np.nonzero(keep)
        grad[nn_, tt[nn_, hh, ww], hh, ww] = vals[nn_, hh, ww]
        return grad

    return materialize(meta, compute, self)


def nll_loss2d_forward(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                       ignore_index: int) -> tuple[Tensor, Tensor]:
    """aten::nll_loss2d_forward (a backend op in PyTorch): input (N, C, H, W), target (N, H, W)."""
    from .meta_utils import TensorMeta, materialize

    if self.dim() != 4:
        raise RuntimeError(f"only batches of spatial inputs supported (4D tensors), but got input of dimension: "
                           f"{self.dim()}")
    if target.dim() != 3:
        raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of dimension: "
                           f"{target.dim()}")
    n, _, h, w = self._shape
    if tuple(target._shape) != (n, h, w):
        raise RuntimeError(f"size mismatch (got input: {list(self._shape)} , target: {list(target._shape)}")
    if self._data is not None and target._dtype not in (_dt.int64, _dt.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {scalar_type_name(target._dtype)}")
    if self._data is not None and not self._dtype.is_floating_point:
        raise NotImplementedError(f'"nll_loss2d_forward_out_frame" not implemented for '
                                  f"'{scalar_type_name(self._dtype)}'")
    dt = self._dtype
    out_shape = (n, h, w) if reduction == _REDUCTION_NONE else ()
    from ..tensor import contiguous_strides

    def compute() -> tuple[np.ndarray, np.ndarray]:
        x = np.asarray(self._data)
        t = np.asarray(target._data).astype(np.int64)
        keep = t != ignore_index
        tt = np.where(keep, t, 0)
        wv = np.ones(x.shape[1], dtype=x.dtype) if weight is None else np.asarray(weight._data)
        picked = np.take_along_axis(x, tt[:, None], axis=1)[:, 0]
        wt = wv[tt] * keep
        loss = -picked * wt
        total = wt.sum(dtype=np.float64)
        if reduction == _REDUCTION_NONE:
            return loss, np.array(0.0)
        s = loss.sum(dtype=np.float64)
        return (np.array(s / total if reduction == _REDUCTION_MEAN else s), np.array(total))

    if self._device.type == "meta":
        out = materialize(TensorMeta(out_shape, contiguous_strides(out_shape), dt), None, self)
        return out, materialize(TensorMeta((), (), dt), None, self)
    loss, total = compute()
    out = materialize(TensorMeta(out_shape, contiguous_strides(out_shape), dt), loss, self)
    return out, materialize(TensorMeta((), (), dt), total, self)


impl("nll_loss2d_forward", "CPU", "Meta")(nll_loss2d_forward)


# --- nll_loss / cross_entropy (CompositeImplicitAutograd) --------------------------------------------------


@impl("nll_loss", "CompositeImplicitAutograd")
def nll_loss(self: Tensor, target: Tensor, weight: Tensor | None = None, reduction: int = 1,
             ignore_index: int = -100) -> Tensor:
    return _op("nll_loss_forward")(self, target, weight, reduction, ignore_index)[0]


def _nll_loss2d(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int, ignore_index: int) -> Tensor:
    """aten::nll_loss2d (CIA in PyTorch): the first output of nll_loss2d_forward."""
    return _op("nll_loss2d_forward")(self, target, weight, reduction, ignore_index)[0]


@impl("nll_loss_nd", "CompositeImplicitAutograd")
def nll_loss_nd(self: Tensor, target: Tensor, weight: Tensor | None = None, reduction: int = 1,
                ignore_index: int = -100) -> Tensor:
    ndim = self.dim()
    if ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {ndim})")
    if ndim != 1 and self._shape[0] != (target._shape[0] if target._shape else 0):
        raise ValueError(
            f"Expected input batch_size ({self._shape[0]}) to match target batch_size "
            f"({target._shape[0] if target._shape else 0})."
        )
    if ndim in (1, 2):
        return _op("nll_loss")(self, target, weight, reduction, ignore_index)
    if ndim == 4:
        return _nll_loss2d(self, target, weight, reduction, ignore_index)
    n, c = self._shape[0], self._shape[1]
    out_size = [n, *self._shape[2:]]
    if list(target._shape[1:]) != list(self._shape[2:]):
        raise RuntimeError(f"Expected target size {out_size}, got {list(target._shape)}")
    input_ = _op("contiguous")(self)
    target_ = _op("contiguous")(target)
    view = _op("view")
    input_ = view(input_, [n, c, 1, -1] if input_.numel() > 0 else [n, c, 0, 0])
    target_ = view(target_, [n, 1, -1] if target_.numel() > 0 else [n, 0, 0])
    out = _nll_loss2d(input_, target_, weight, reduction, ignore_index)
    return out if reduction != _REDUCTION_NONE else view(out, out_size)


def _cross_entropy_prob_target(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int) -> Tensor:
    class_dim = 0 if self.dim() == 1 else 1
    n_classes = self._shape[class_dim]
    if weight is not None:
        raise NotImplementedError("cross_entropy with class-probability targets and weight= is not supported yet")
    inp = log_softmax_int(self, class_dim, self._dtype)
    prod = _op("mul.Tensor")(inp, target)
    if reduction == _REDUCTION_MEAN:
        if inp.numel() == 0:
            return _op("neg")(_op("fill_.Scalar")(_op("sum")(prod), float("nan")))
        return _op("div.Scalar")(_op("neg")(_op("sum")(prod)), inp.numel() // n_classes)
    if reduction == _REDUCTION_SUM:
        return _op("neg")(_op("sum")(prod))
    return _op("neg")(_op("sum.dim_IntList")(prod, [class_dim]))


def _cross_entropy_label_smoothing(self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                                   ignore_index: int, label_smoothing: float) -> Tensor:
    """Class-index targets with label smoothing (no ``weight=`` yet), in PyTorch's op order."""
    if weight is not None:
        raise NotImplementedError("cross_entropy with label_smoothing > 0 and weight= is not supported yet")
    class_dim = 0 if self.dim() == 1 else 1
    inp = log_softmax_int(self, class_dim, self._dtype)
    nllloss = _op("nll_loss_nd")(inp, target, weight, reduction, ignore_index)
    n_classes = inp._shape[class_dim]
    smooth_loss = _op("neg")(_op("sum.dim_IntList")(inp, [class_dim]))
    ignore_mask = _op("eq.Scalar")(target, ignore_index)
    _op("masked_fill_.Scalar")(smooth_loss, ignore_mask, 0.0)
    if reduction == _REDUCTION_MEAN:
        true_count = _op("sum")(_op("bitwise_not")(ignore_mask))  # C++ evaluates the divisor first
        ret = _op("div.Tensor")(_op("sum")(smooth_loss), true_count)
    elif reduction == _REDUCTION_SUM:
        ret = _op("sum")(smooth_loss)
    else:
        ret = smooth_loss
    smoothed = _op("mul.Scalar")(ret, label_smoothing / n_classes)  # right operand of + first, as in C++
    return _op("add.Tensor")(_op("mul.Scalar")(nllloss, 1 - label_smoothing), smoothed)


@impl("cross_entropy_loss", "CompositeImplicitAutograd")
def cross_entropy_loss(self: Tensor, target: Tensor, weight: Tensor | None = None, reduction: int = 1,
                       ignore_index: int = -100, label_smoothing: float = 0.0) -> Tensor:
    if self._shape == target._shape:
        if not target._dtype.is_floating_point:
            from .factories import SCALAR_TYPE_NAMES

            raise RuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{SCALAR_TYPE_NAMES[target._dtype.name]}"
            )
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if label_smoothing > 0.0:
            raise NotImplementedError("cross_entropy with label_smoothing > 0 is not supported yet")
        return _cross_entropy_prob_target(self, target, weight, reduction)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {_fmt_double(label_smoothing)}")
        return _cross_entropy_label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing)
    class_dim = 0 if self.dim() == 1 else 1
    return _op("nll_loss_nd")(log_softmax_int(self, class_dim, self._dtype), target, weight, reduction, ignore_index)
