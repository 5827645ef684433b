"""CompositeImplicitAutograd kernels: ops that decompose into other aten ops (``linear``, ``matmul``, ``reshape``, ...).

Corresponds to the C++ CompositeImplicitAutograd kernels of PyTorch 2.13: Linear.cpp
(``linear``), LinearAlgebra.cpp (``matmul``), TensorShape.cpp (``reshape``,
``flatten``, ``chunk``), TensorConversions.cpp (``to``), SoftMax.cpp, Dropout.cpp,
LossNLL.cpp, Normalization.cpp, TensorCompare.cpp (``where`` with scalars). Each
kernel calls, through the dispatcher, exactly the aten ops PyTorch's kernel calls,
in the same order and with the same arguments, so modes, autograd and tracing see
the graph PyTorch would produce. The sequences were recorded from torch 2.13 with a
TorchDispatchMode (tests/test_decompositions.py compares them op for op).

PyTorch's kernels sometimes branch on ``isTensorSubclassLike``, which is true while
a dispatch mode is active (or for a tensor carrying the Python key): ``matmul``
then squeezes a size-1 batch dim, and ``linear`` adds its bias out of place.
``is_tensor_subclass_like`` reproduces that test.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..keys import DispatchKey
from ..keyset import key_bits
from ..memory_format import strided
from ..tensor import Tensor, as_device
from ..tls import per_thread
from .kernel_registry import impl
from .meta_utils import broadcast_shapes, wrap_dim
from .native_functions import NATIVE_FUNCTIONS
from .views import compute_view_strides, infer_size

_LISTED = frozenset(op.name for op in NATIVE_FUNCTIONS)
_PYTHON_BIT = key_bits(DispatchKey.Python)
_STRIDED = strided  # torch.strided (equal to its c10 Layout code, 0); graphs print it as torch.strided
_CONTIGUOUS_FORMAT = 0  # MemoryFormat codes
_PRESERVE_FORMAT = 1
_CHANNELS_LAST = 2
_MEMORY_FORMATS = {"contiguous_format": 0, "preserve_format": 1, "channels_last": 2, "channels_last_3d": 3}
_REDUCTION_NONE, _REDUCTION_MEAN, _REDUCTION_SUM = 0, 1, 2

_OPS: dict[str, Any] = {}


def _op(name: str) -> Any:
    """The OpOverload ``aten::name`` ("mm", "transpose.int"), cached."""
    op = _OPS.get(name)
    if op is None:
        from ..op_overload import namespace

        base, _, overload = name.partition(".")
        op = _OPS[name] = getattr(getattr(namespace("aten"), base), overload or "default")
    return op


def _missing(name: str, schema: str) -> NotImplementedError:
    return NotImplementedError(f"aten::{name} is not in the op listing yet (PyTorch calls it here: {schema})")


def dispatch_mode_enabled() -> bool:
    """c10::impl::dispatch_mode_enabled: a dispatch mode is on the stack and Python is not excluded. Modes marked
    ``_invisible_to_subclass_checks`` (the tracer's recorder of what runs inside an op kept whole, which has no
    PyTorch counterpart) do not count, so the code below them takes PyTorch's path."""
    s = per_thread.s
    stack = s.dispatch_mode_stack
    if not stack or s.excluded & _PYTHON_BIT:
        return False
    for m in stack:
        if not getattr(m, "_invisible_to_subclass_checks", False):
            return True
    return False


def is_tensor_subclass_like(t: Any) -> bool:
    """at::isTensorSubclassLike: a dispatch mode is active, or ``t`` carries the Python key."""
    return dispatch_mode_enabled() or bool(getattr(t, "_key_set", 0) & _PYTHON_BIT)


def _fmt_double(x: float) -> str:
    """A double as C++ ``<<`` prints it (2.0 -> "2", 0.25 -> "0.25")."""
    return f"{float(x):g}"


def _memory_format_code(mf: Any) -> int | None:
    if mf is None or type(mf) is int:
        return mf
    return _MEMORY_FORMATS[str(mf).rsplit(".", 1)[-1]]


def _prod(xs: Any) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


# --- where with scalars (TensorCompare.cpp) ---------------------------------------------------------


@impl("where.ScalarSelf", "CompositeImplicitAutograd")
def where_scalar_self(condition: Tensor, self: Any, other: Tensor) -> Tensor:
    result_type = _dt.result_type(other, self)
    self_t = _op("scalar_tensor")(self, dtype=result_type, layout=_STRIDED, device=other._device)
    other_c = other if other._dtype is result_type else _op("to.dtype")(other, result_type)
    return _op("where.self")(condition, self_t, other_c)


@impl("where.ScalarOther", "CompositeImplicitAutograd")
def where_scalar_other(condition: Tensor, self: Tensor, other: Any) -> Tensor:
    result_type = _dt.result_type(self, other)
    other_t = _op("scalar_tensor")(other, dtype=result_type, layout=_STRIDED, device=self._device)
    self_c = self if self._dtype is result_type else _op("to.dtype")(self, result_type)
    return _op("where.self")(condition, self_c, other_t)


@impl("where.Scalar", "CompositeImplicitAutograd")
def where_scalar(condition: Tensor, self: Any, other: Any) -> Tensor:
    result_type = _dt.result_type(self, other)
    other_t = _op("scalar_tensor")(other, dtype=result_type, layout=_STRIDED, device=condition._device)
    self_t = _op("scalar_tensor")(self, dtype=result_type, layout=_STRIDED, device=condition._device)
    return _op("where.self")(condition, self_t, other_t)


# --- matmul (LinearAlgebra.cpp _matmul_impl) ----------------------------------------------------------


def _mT(t: Tensor) -> Tensor:  # noqa: N802 - PyTorch's name
    return _op("transpose.int")(t, -2, -1)


def _should_fold(tensor1: Tensor, tensor2: Tensor) -> bool:
    """Whether matmul can fold the larger operand into a matrix and use mm/mv instead of bmm."""
    tensor1_larger = tensor1.dim() >= tensor2.dim()
    t1 = tensor1 if tensor1_larger else _mT(tensor2)  # NB: PyTorch really computes this transpose
    dim_t1 = t1.dim()
    dim_t2 = tensor2.dim() if tensor1_larger else tensor1.dim()
    if not (dim_t1 >= 3 and dim_t2 <= 2):
        return False
    t2_requires_grad = tensor2.requires_grad if tensor1_larger else tensor1.requires_grad
    if t2_requires_grad:
        return True
    if tensor1.dim() == 2:
        return False
    if t1.numel() == 0:
        return True
    shape, stride = t1._shape, t1._stride
    for i in range(dim_t1 - 2):
        if stride[i] != stride[i + 1] * shape[i + 1]:
            return False
    return True


def _squeeze_inplace(t: Tensor, dim: int) -> Tensor:
    return _op("squeeze_.dim")(t, dim)


def _matmul_impl(tensor1: Tensor, tensor2: Tensor) -> Tensor:
    dim1, dim2 = tensor1.dim(), tensor2.dim()
    if dim1 == 0 or dim2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {dim1}D and {dim2}D")
    if dim1 == 1 and dim2 == 1:
        return _op("dot")(tensor1, tensor2)
    if dim1 == 2 and dim2 == 1:
        return _op("mv")(tensor1, tensor2)
    if dim1 == 1 and dim2 == 2:
        return _squeeze_inplace(_op("mm")(_op("unsqueeze")(tensor1, 0), tensor2), 0)
    if dim1 == 2 and dim2 == 2:
        return _op("mm")(tensor1, tensor2)
    if _should_fold(tensor1, tensor2):
        return _matmul_folded(tensor1, tensor2)
    return _matmul_batched(tensor1, tensor2)


def _matmul_folded(tensor1: Tensor, tensor2: Tensor) -> Tensor:
    """Fold the batch dims of the larger operand into rows: one mm / mv and an _unsafe_view."""
    dim1, dim2 = tensor1.dim(), tensor2.dim()
    transpose = dim2 > dim1
    t1 = _mT(tensor2) if transpose else tensor1
    t2 = (_op("t")(tensor1) if dim1 == 2 else tensor1) if transpose else tensor2
    sizes1 = t1._shape
    output_shape = list(sizes1[:-1])
    folded_dim1 = _prod(output_shape)
    t2_is_matrix = t2.dim() == 2
    if t2_is_matrix:
        output_shape.append(t2._shape[1])
    t1_folded = _op("reshape")(t1, [folded_dim1, sizes1[-1]])
    if t2_is_matrix:
        output = _op("_unsafe_view")(_op("mm")(t1_folded, t2), output_shape)
        return _op("contiguous")(_mT(output)) if transpose else output
    return _op("_unsafe_view")(_op("mv")(t1_folded, t2), output_shape)


def _matmul_batched(tensor1: Tensor, tensor2: Tensor) -> Tensor:
    """Broadcast the batch dims, flatten them into one, and use bmm."""
    dim1, dim2 = tensor1.dim(), tensor2.dim()
    sizes1, sizes2 = tensor1._shape, tensor2._shape
    n = sizes1[-2] if dim1 > 1 else 1
    m1 = sizes1[-1]
    batch1 = sizes1[: max(dim1 - 2, 0)]
    m2 = sizes2[-2] if dim2 > 1 else sizes2[0]
    p = sizes2[-1] if dim2 > 1 else 1
    batch2 = sizes2[: max(dim2 - 2, 0)]
    if dim1 == 3 and dim2 == 3 and batch1[0] != batch2[0]:
        if batch1[0] == 1 and (tensor1.requires_grad or is_tensor_subclass_like(tensor1)):
            return _matmul_impl(_op("squeeze.dim")(tensor1, 0), tensor2)
        if batch2[0] == 1 and (tensor2.requires_grad or is_tensor_subclass_like(tensor2)):
            return _matmul_impl(tensor1, _op("squeeze.dim")(tensor2, 0))
    output_shape = list(broadcast_shapes(batch1, batch2))
    expand_batch_product = _prod(output_shape)
    reshape, expand = _op("reshape"), _op("expand")
    tensor1_expanded = reshape(expand(tensor1, output_shape + [n, m1]), [expand_batch_product, n, m1])
    vector_rhs = dim2 == 1
    tensor2_expanded = expand(tensor2, output_shape + ([m2] if vector_rhs else [m2, p]))
    if vector_rhs:
        tensor2_expanded = _op("unsqueeze")(reshape(tensor2_expanded, [expand_batch_product, m2]), 2)
    else:
        tensor2_expanded = reshape(tensor2_expanded, [expand_batch_product, m2, p])
    if dim1 > 1:
        output_shape.append(n)
    if dim2 > 1:
        output_shape.append(p)
    out = _op("bmm")(tensor1_expanded, tensor2_expanded)
    if vector_rhs:
        out = _op("squeeze.dim")(out, -1)
    return _op("_unsafe_view")(out, output_shape)


@impl("matmul", "CompositeImplicitAutograd")
def matmul(self: Tensor, other: Tensor) -> Tensor:
    return _matmul_impl(self, other)


# --- linear (Linear.cpp) -----------------------------------------------------------------------------


def _flatten_nd_linear(input: Tensor, weight: Tensor, bias: Tensor) -> Tensor:  # noqa: A002
    sizes = input._shape
    inp = _op("reshape")(input, [_prod(sizes[:-1]), sizes[-1]])
    result = _op("addmm")(bias, inp, _op("t")(weight))
    return _op("view")(result, [*sizes[:-1], result._shape[1]])


@impl("linear", "CompositeImplicitAutograd")
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    input_dim, weight_dim = input.dim(), weight.dim()
    if input_dim == 0 or weight_dim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {input_dim}D and {weight_dim}D"
        )
    if input_dim == 2 and bias is not None:
        return _op("addmm")(bias, input, _op("t")(weight))
    fusable = (
        bias is not None
        and (bias.dim() == 1 or _op("squeeze")(bias).dim() == 1)
        and bias._contiguous
    )
    if fusable and input._contiguous:
        return _flatten_nd_linear(input, weight, bias)
    output = _op("matmul")(input, _op("t")(weight))
    if bias is not None:
        if is_tensor_subclass_like(bias):
            output = _op("add.Tensor")(output, bias)
        else:
            output = _op("add_.Tensor")(output, bias)
    return output


# --- shape ops (TensorShape.cpp) -----------------------------------------------------------------------


def _reshape(self: Tensor, shape: list[int]) -> Tensor:
    if self._contiguous:
        return _op("view")(self, list(shape))
    shape = infer_size(shape, self.numel())
    if compute_view_strides(self._shape, self._stride, shape) is not None:
        return _op("view")(self, shape)
    return _op("_unsafe_view")(_op("clone")(self, memory_format=_CONTIGUOUS_FORMAT), shape)


@impl("reshape", "CompositeImplicitAutograd")
def reshape(self: Tensor, shape: list[int]) -> Tensor:
    return _reshape(self, shape)


@impl("flatten.using_ints", "CompositeImplicitAutograd")
def flatten_using_ints(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    ndim = self.dim()
    start = wrap_dim(start_dim, max(ndim, 1))  # a 0-d tensor wraps dims like a 1-d one
    end = wrap_dim(end_dim, max(ndim, 1))
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if ndim == 0:
        return _reshape(self, [1])
    if start == end:
        return self
    sizes = self._shape
    return _reshape(self, [*sizes[:start], _prod(sizes[start : end + 1]), *sizes[end + 1 :]])


@impl("chunk", "CompositeImplicitAutograd")
def chunk(self: Tensor, chunks: int, dim: int = 0) -> list[Tensor]:
    if self.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim_size = self._shape[wrap_dim(dim, self.dim())]
    split_size = (dim_size + chunks - 1) // chunks
    if split_size == 0 and dim_size == 0:
        sizes = [split_size] * chunks
        sizes[-1] = split_size - (split_size * chunks - dim_size)
        return _op("split_with_sizes")(self, sizes, dim)
    return _op("split.Tensor")(self, split_size, dim)


@impl("contiguous", "CompositeImplicitAutograd")
def contiguous(self: Tensor, *, memory_format: Any = 0) -> Tensor:
    mf = _memory_format_code(memory_format)
    if self.is_contiguous(memory_format=_CONTIGUOUS_FORMAT if mf is None else mf):
        return self
    if mf == _PRESERVE_FORMAT:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return _op("clone")(self, memory_format=memory_format)


@impl("expand_as", "CompositeImplicitAutograd")
def expand_as(self: Tensor, other: Tensor) -> Tensor:
    return _op("expand")(self, list(other._shape))


@impl("view_as", "CompositeImplicitAutograd")
def view_as(self: Tensor, other: Tensor) -> Tensor:
    return _op("view")(self, list(other._shape))


@impl("sum_to_size", "CompositeImplicitAutograd")
def sum_to_size(self: Tensor, size: list[int]) -> Tensor:
    shape = list(size)
    sizes = self._shape
    expandable = len(shape) <= len(sizes) and all(
        s == t or s == 1 for s, t in zip(reversed(shape), reversed(sizes))
    )
    if not expandable:
        raise RuntimeError(f"size {{{shape}}} is not expandable to size {{{list(sizes)}}}.")
    if not shape:
        return _op("sum")(self)
    leading = len(sizes) - len(shape)
    reduce_dims = list(range(leading)) + [
        i for i in range(leading, len(sizes)) if shape[i - leading] == 1 and sizes[i] != 1
    ]
    t = self
    if reduce_dims:
        t = _op("sum.dim_IntList")(t, reduce_dims, True)
    return _op("view")(t, shape) if leading > 0 else t


# --- to (TensorConversions.cpp) --------------------------------------------------------------------------


def _suggest_memory_format(t: Tensor) -> int:
    from ..memory_format import suggest_memory_format_code

    return suggest_memory_format_code(t._shape, t._stride)


def _to_impl(self: Tensor, dtype: Any, layout: Any, device: Any, pin_memory: Any, non_blocking: bool, copy: bool,
             memory_format: Any) -> Tensor:
    dt = None if dtype is None else _dt.from_code(dtype)
    dev = None if device is None else as_device(device)
    mf = _memory_format_code(memory_format)
    will_alias = (
        (dt is None or dt is self._dtype)
        and (layout is None or layout == _STRIDED or str(layout).endswith("strided"))
        and (dev is None or dev == self._device)
        and not copy
        and (mf is None or mf == _PRESERVE_FORMAT or _suggest_memory_format(self) == mf)
    )
    if will_alias:
        return self
    kwargs: dict[str, Any] = {}
    if dtype is not None:
        kwargs["dtype"] = dtype
    if layout is not None:
        kwargs["layout"] = layout
    if device is not None:
        kwargs["device"] = device
    if pin_memory is not None:
        kwargs["pin_memory"] = pin_memory
    if non_blocking:
        kwargs["non_blocking"] = non_blocking
    if memory_format is not None:
        kwargs["memory_format"] = memory_format
    return _op("_to_copy")(self, **kwargs)


@impl("to.dtype", "CompositeImplicitAutograd")
def to_dtype(self: Tensor, dtype: Any, non_blocking: bool = False, copy: bool = False,
             memory_format: Any = None) -> Tensor:
    return _to_impl(self, dtype, None, None, None, non_blocking, copy, memory_format)


@impl("to.device", "CompositeImplicitAutograd")
def to_device(self: Tensor, device: Any, dtype: Any, non_blocking: bool = False, copy: bool = False,
              memory_format: Any = None) -> Tensor:
    return _to_impl(self, dtype, None, device, None, non_blocking, copy, memory_format)


@impl("to.other", "CompositeImplicitAutograd")
def to_other(self: Tensor, other: Tensor, non_blocking: bool = False, copy: bool = False,
             memory_format: Any = None) -> Tensor:
    """``to(other)``: other's dtype, layout and device (and pin_memory=False), as PyTorch's TensorOptions give them."""
    return _to_impl(self, other._dtype, strided, other._device, False, non_blocking, copy, memory_format)


@impl("to.dtype_layout", "CompositeImplicitAutograd")
def to_dtype_layout(self: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None,
                    pin_memory: Any = None, non_blocking: bool = False, copy: bool = False,
                    memory_format: Any = None) -> Tensor:
    return _to_impl(self, dtype, layout, device, pin_memory, non_blocking, copy, memory_format)


def _to_type(self: Tensor, dtype: _dt.dtype) -> Tensor:
    """Tensor::toType(dtype): ``to`` with the full TensorOptions (dtype, strided, self's device)."""
    if self._dtype is dtype:
        return self
    return _op("_to_copy")(self, dtype=dtype, layout=_STRIDED, device=self._device)


# --- softmax / log_softmax (SoftMax.cpp) ----------------------------------------------------------------


@impl("softmax.int", "CompositeImplicitAutograd")
def softmax_int(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    converted = self if dtype is None else _to_type(self, _dt.from_code(dtype))
    return _op("_softmax")(converted, dim, False)


@impl("log_softmax.int", "CompositeImplicitAutograd")
def log_softmax_int(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
    converted = self if dtype is None else _to_type(self, _dt.from_code(dtype))
    return _op("_log_softmax")(converted, dim, False)


# --- layer_norm (Normalization.cpp) / dropout (Dropout.cpp) ---------------------------------------------


@impl("layer_norm", "CompositeImplicitAutograd")
def layer_norm(input: Tensor, normalized_shape: list[int], weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-05, cudnn_enable: bool = True) -> Tensor:
    return _op("native_layer_norm")(input, normalized_shape, weight, bias, eps)[0]


@impl("dropout", "CompositeImplicitAutograd")
def dropout(input: Tensor, p: float, train: bool) -> Tensor:  # noqa: A002
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {_fmt_double(p)}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = _op("zeros")([], dtype=input._dtype, layout=_STRIDED, device=input._device)
        return _op("mul.Tensor")(input, zero)
    noise = _op("empty_like")(input)
    _op("bernoulli_.float")(noise, 1 - p)
    _op("div_.Scalar")(noise, 1 - p)
    return _op("mul.Tensor")(input, noise)


# --- losses (LossNLL.cpp, Loss.cpp) -------------------------------------------------------------------------


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
    if ndim != 1 and self._shape[0] != target._shape[0]:
        raise ValueError(
            f"Expected input batch_size ({self._shape[0]}) to match target batch_size ({target._shape[0]})."
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


@impl("embedding_backward", "CompositeImplicitAutograd")
def embedding_backward(grad: Tensor, indices: Tensor, num_weights: int, padding_idx: int,
                       scale_grad_by_freq: bool, sparse: bool) -> Tensor:
    if sparse:
        raise NotImplementedError("embedding_backward with sparse=True (sparse gradients) is not supported")
    return _op("embedding_dense_backward")(grad, indices, num_weights, padding_idx, scale_grad_by_freq)


@impl("gather_backward", "CompositeImplicitAutograd")
def gather_backward(grad: Tensor, self: Tensor, dim: int, index: Tensor, sparse_grad: bool) -> Tensor:
    """gather's gradient: ``grad`` scattered (added) into zeros shaped like ``self`` at the gathered positions;
    out of place when ``index`` or ``grad`` is subclass-like (TensorAdvancedIndexing.cpp)."""
    if sparse_grad:
        raise NotImplementedError("gather_backward with sparse_grad=True (sparse gradients) is not supported")
    result = _op("new_zeros")(grad, list(self.shape))
    if is_tensor_subclass_like(index) or is_tensor_subclass_like(grad):
        return _op("scatter_add")(result, dim, index, grad)
    _op("scatter_add_")(result, dim, index, grad)
    return result


@impl("index_select_backward", "CompositeImplicitAutograd")
def index_select_backward(grad: Tensor, self_sizes: Any, dim: int, index: Tensor) -> Tensor:
    """index_select's gradient: ``grad`` added into zeros of ``self_sizes`` along ``dim`` at ``index``; out of
    place when ``index`` is subclass-like."""
    zeros = _op("new_zeros")(grad, list(self_sizes), dtype=grad.dtype, layout=grad.layout, device=grad.device)
    if is_tensor_subclass_like(index):
        return _op("index_add")(zeros, dim, index, grad)
    return _op("index_add_")(zeros, dim, index, grad)


@impl("is_nonzero", "CompositeImplicitAutograd")
def is_nonzero(self: Tensor) -> bool:
    n = self.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(_op("item")(self))


@impl("item", "CompositeImplicitAutograd")
def item(self: Tensor) -> Any:
    n = self.numel()
    if n != 1:
        raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
    return _op("_local_scalar_dense")(self)


@impl("broadcast_tensors", "CompositeImplicitAutograd")
def broadcast_tensors(tensors: list[Tensor]) -> list[Tensor]:
    """``expand_outplace``: each tensor expanded to the common shape, unless it already has it."""
    from .meta_utils import broadcast_shapes

    shape: tuple[int, ...] = ()
    for i, t in enumerate(tensors):
        shape = tuple(t._shape) if i == 0 else tuple(broadcast_shapes(shape, t._shape))
    return [t if tuple(t._shape) == shape else _op("expand")(t, list(shape)) for t in tensors]


# --- kernels for ops PyTorch's decompositions call that the listing lacks ----------------------------------
# Registered only once the op is listed (registration refuses kernels of unlisted ops).


def squeeze__dim(self: Tensor, dim: int) -> Tensor:
    """aten::squeeze_.dim (CompositeExplicitAutograd in PyTorch): drop a size-1 dim of ``self`` in place."""
    from ..tensor import _is_contiguous

    d = wrap_dim(dim, max(self.dim(), 1))
    if self.dim() == 0 or self._shape[d] != 1:
        return self
    self._shape = self._shape[:d] + self._shape[d + 1 :]
    self._stride = self._stride[:d] + self._stride[d + 1 :]
    self._contiguous = _is_contiguous(self._shape, self._stride)
    if self._data is not None:
        self._data = self._data.reshape(self._shape) if self._data.ndim == 1 else np.squeeze(self._data, axis=d)
    return self


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


impl("squeeze_.dim", "CompositeExplicitAutograd")(squeeze__dim)
impl("nll_loss2d_forward", "CPU", "Meta")(nll_loss2d_forward)


# --- value_selecting_reduction_backward (ReduceOps.cpp) -----------------------------------------------


@impl("value_selecting_reduction_backward", "CompositeImplicitAutograd")
def value_selecting_reduction_backward(grad: Tensor, dim: int, indices: Tensor, sizes: Any, keepdim: bool) -> Tensor:
    """The backward of max.dim / min.dim / sort ...: put each gradient at its index along ``dim``, zeros elsewhere.

    With a dispatch mode (or a tensor subclass) the scatter is out of place, else in place into the zeros.
    """
    if not keepdim and len(sizes) > 0:
        grad = _op("unsqueeze")(grad, dim)
        indices = _op("unsqueeze")(indices, dim)
    grad_in = _op("new_zeros")(grad, list(sizes))
    if is_tensor_subclass_like(grad) or is_tensor_subclass_like(indices):
        return _op("scatter.src")(grad_in, dim, indices, grad)
    return _op("scatter_.src")(grad_in, dim, indices, grad)
