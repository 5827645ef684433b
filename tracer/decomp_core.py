"""Decompositions of tensor-manipulation, creation, pointwise and linear-algebra ops into core aten ops.

Corresponds to the matching entries of torch/_decomp/decompositions.py and the torch/_refs functions
that PyTorch 2.13's ``core_aten_decompositions()`` uses for them. Each function calls the same aten
ops, in the same order, as PyTorch's for the same inputs (that is what the tests compare), but is
written here against the dispatcher: ``t`` -> ``permute`` (or ``alias`` below 2-d), ``ones`` -> ``full``,
``dot`` -> ``mul`` + ``sum``, ``baddbmm`` -> ``bmm`` + scaling + ``add``, ... Decompositions run under
the tracing mode, so an op they call that is itself in the table (``sum.default`` inside ``dot``) is
decomposed again, exactly as in PyTorch.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from dispatcher import dtypes
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor
from dispatcher.tensor import device as Device

from .decomp_registry import register_decomposition

aten = namespace("aten")

_LOW_PRECISION = ("float16", "bfloat16")


def computation_dtype(d: dtypes.dtype) -> dtypes.dtype:
    """The dtype pointwise math runs in ("opmath"): float32 for half-precision floats, else ``d`` itself."""
    return dtypes.float32 if d.name in _LOW_PRECISION else d


def _flat_tensors(args: tuple, kwargs: dict) -> list[Tensor]:
    out: list[Tensor] = []
    for a in (*args, *kwargs.values()):
        for e in a if isinstance(a, (list, tuple)) else (a,):
            if isinstance(e, Tensor):
                out.append(e)
    return out


def _cast(x: Any, d: dtypes.dtype) -> Any:
    if isinstance(x, Tensor):
        return x.to(d)
    if isinstance(x, (list, tuple)):
        return type(x)(_cast(e, d) for e in x)
    return x


def pw_cast_for_opmath(fn: Callable[..., Any] | None = None, *, compute_dtype_only: bool = False) -> Any:
    """Run ``fn`` with every tensor argument in the computation dtype, then cast results to the result dtype.

    The result dtype is the type promotion of the tensor arguments (PyTorch's DEFAULT kind); half-precision
    floats compute in float32. ``compute_dtype_only`` leaves the results in the computation dtype.
    """
    if fn is None:
        return functools.partial(pw_cast_for_opmath, compute_dtype_only=compute_dtype_only)

    @functools.wraps(fn)
    def inner(*args: Any, **kwargs: Any) -> Any:
        result = dtypes.result_type(*_flat_tensors(args, kwargs))
        compute = computation_dtype(result)
        out = fn(*_cast(args, compute), **{k: _cast(v, compute) for k, v in kwargs.items()})
        return out if compute_dtype_only else _cast(out, result)

    return inner


def _python_type_of(d: dtypes.dtype) -> type:
    if d.name == "bool":
        return bool
    if d.is_complex:
        return complex
    return float if d.is_floating_point else int


# --- views and shape ops ---------------------------------------------------------------------------------------------


@register_decomposition(aten.t)
def t(self: Tensor) -> Tensor:
    if self.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    return transpose(self, 0, 1)


@register_decomposition(aten.transpose.int)
def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    ndim = self.dim()
    if ndim <= 1 or _wrap(dim0, ndim) == _wrap(dim1, ndim):
        return aten.alias.default(self)
    perm = list(range(ndim))
    d0, d1 = _wrap(dim0, ndim), _wrap(dim1, ndim)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return aten.permute.default(self, perm)


def _wrap(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


@register_decomposition(aten.detach.default)
def detach(self: Tensor) -> Tensor:
    return aten.alias.default(self)


@register_decomposition(aten._unsafe_view.default)
def _unsafe_view(self: Tensor, size: list[int]) -> Tensor:
    return aten.view.default(self, size)


@register_decomposition([aten.squeeze.default, aten.squeeze.dim])
def squeeze(self: Tensor, dim: int | None = None) -> Tensor:
    dims = list(range(self.dim())) if dim is None else [dim]
    return aten.squeeze.dims(self, dims)


@register_decomposition(aten.split.Tensor)
def split(self: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    dim_size = self.shape[dim]
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if dim_size == 0:
        return (self.detach(),)
    if split_size == 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {dim_size}")
    chunks = (dim_size + split_size - 1) // split_size
    sizes = [split_size] * chunks
    sizes[-1] = dim_size - split_size * (chunks - 1)
    return aten.split_with_sizes.default(self, sizes, dim)


@register_decomposition(aten.unbind.int)
def unbind(self: Tensor, dim: int = 0) -> list[Tensor]:
    if self.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = _wrap(dim, self.dim())
    n = self.shape[dim]
    if n == 0:
        return []
    pieces = [aten.slice.Tensor(self, dim, i, i + 1) for i in range(n)]
    return [aten.squeeze.dims(p, [dim]) for p in pieces]


@register_decomposition(aten.stack.default)
def stack(tensors: list[Tensor], dim: int = 0) -> Tensor:
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    ndim = tensors[0].dim()
    wrapped = _wrap(dim, ndim + 1)
    if wrapped < ndim:
        for i, x in enumerate(tensors):
            if x.shape != tensors[0].shape:
                raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at "
                                   f"entry 0 and {list(x.shape)} at entry {i}")
        sizes = list(tensors[0].shape)
        sizes.insert(wrapped, len(tensors))
        return aten.view.default(aten.cat.default(list(tensors), wrapped), sizes)
    return aten.cat.default([aten.unsqueeze.default(x, wrapped) for x in tensors], dim)


# --- reductions and linear algebra ------------------------------------------------------------------------------------


@register_decomposition(aten.sum.default)
def sum_default(self: Tensor, *, dtype: Any = None) -> Tensor:
    return aten.sum.dim_IntList(self, [], dtype=dtype)


@register_decomposition(aten.dot.default)
def dot(self: Tensor, other: Tensor) -> Tensor:
    if self.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {other.dim()}D tensors")
    if self.dtype != other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {self.dtype} and {other.dtype}")
    return (self * other).sum()


@register_decomposition(aten.mv.default)
@pw_cast_for_opmath
def mv(self: Tensor, vec: Tensor) -> Tensor:
    if self.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"matrix @ vector expected, got {self.dim()}, {vec.dim()}")
    if self.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({self.shape[0]}x{self.shape[1]}), vec ({vec.shape[0]})")
    return (self * vec).sum(dim=1)


@register_decomposition(aten.baddbmm.default)
def baddbmm(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    if not self.dtype.is_floating_point and not self.dtype.is_complex:
        beta, alpha = int(beta), int(alpha)
    result = aten.bmm.default(batch1, batch2)
    if alpha != 1:
        result = result * alpha
    if beta == 0:
        return result
    if beta != 1:
        self = self * beta
    return self + result


# --- pointwise -------------------------------------------------------------------------------------------------------


@register_decomposition(aten.rsub.Scalar)
def rsub(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    return aten.sub.Tensor(other, self, alpha=alpha)


@register_decomposition(aten.clamp_min.default)
def clamp_min(self: Tensor, min: Any) -> Tensor:  # noqa: A002 - the schema's name
    return aten.clamp.default(self, min)


@register_decomposition(aten.clamp_max.default)
def clamp_max(self: Tensor, max: Any) -> Tensor:  # noqa: A002 - the schema's name
    return aten.clamp.default(self, None, max)


@register_decomposition(aten.silu.default)
@pw_cast_for_opmath
def silu(self: Tensor) -> Tensor:
    return self * aten.sigmoid.default(self)


def _masked_value(self: Tensor, value: Any) -> Any:
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"only supports a 0-dimensional value tensor, but got tensor with {value.dim()} "
                               "dimension")
        return value.to(self.dtype)
    return _python_type_of(self.dtype)(value)


@register_decomposition([aten.masked_fill.Scalar, aten.masked_fill.Tensor])
def masked_fill(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    r = aten.where(mask, _masked_value(self, value), self)
    return r.contiguous()


@register_decomposition([aten.masked_fill_.Scalar, aten.masked_fill_.Tensor])
def masked_fill_(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    return self.copy_(masked_fill(self, mask, value))


@register_decomposition(aten.sgn.default)
@pw_cast_for_opmath
def sgn(self: Tensor) -> Tensor:
    """Real inputs: ``sign``; complex ones: ``x / |x|``, 0 where ``|x|`` is 0 (half precision computes in float32)."""
    if not self.dtype.is_complex:
        return aten.sign.default(self)
    magnitude = aten.abs.default(self)
    return aten.where(aten.eq.Scalar(magnitude, 0), 0, aten.div.Tensor(self, magnitude))


@register_decomposition(aten.fill_.Tensor)
def fill_tensor_(self: Tensor, value: Tensor) -> Tensor:
    """The functional ``fill.Tensor`` is ``copy(self, value)``; the in-place form copies that back into self."""
    if value.dim() != 0:
        raise RuntimeError(
            f"fill only supports 0-dimension value tensor but got tensor with {value.dim()} dimensions")
    return self.copy_(aten.copy.default(self, value))


@register_decomposition(aten.zero_.default)
def zero_(self: Tensor) -> Tensor:
    return self.copy_(aten.zeros_like.default(self))


@register_decomposition(aten.fill_.Scalar)
def fill_(self: Tensor, value: Any) -> Tensor:
    return self.copy_(aten.full_like.default(self, value, pin_memory=False))


# --- factories -------------------------------------------------------------------------------------------------------


def _factory_kwargs(dtype: Any, layout: Any, device: Any, pin_memory: Any) -> dict[str, Any]:
    """The keyword arguments PyTorch's references pass on: layout defaults to strided, devices are objects."""
    from dispatcher.memory_format import strided

    if isinstance(device, str):
        device = Device(device)
    return {"dtype": dtype, "layout": strided if layout is None else layout, "device": device,
            "pin_memory": bool(pin_memory)}


@register_decomposition(aten.ones.default)
def ones(size: list[int], *, dtype: Any = None, layout: Any = None, device: Any = None,
         pin_memory: Any = None) -> Tensor:
    dtype = dtypes.get_default_dtype() if dtype is None else dtype
    return aten.full.default(size, True if dtype is dtypes.bool else 1,
                             **_factory_kwargs(dtype, layout, device, bool(pin_memory)))


@register_decomposition(aten.zeros.default)
def zeros(size: list[int], *, dtype: Any = None, layout: Any = None, device: Any = None,
          pin_memory: Any = None) -> Tensor:
    dtype = dtypes.get_default_dtype() if dtype is None else dtype
    return aten.full.default(size, False if dtype is dtypes.bool else 0,
                             **_factory_kwargs(dtype, layout, device, bool(pin_memory)))


def _like(fill: int) -> Callable[..., Tensor]:
    def like(self: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None,
             memory_format: Any = None) -> Tensor:
        from dispatcher.memory_format import preserve_format

        value = bool(fill) if (self.dtype if dtype is None else dtype) is dtypes.bool else fill
        return aten.full_like.default(self, value, dtype=dtype, layout=layout, device=device,
                                      pin_memory=bool(pin_memory),
                                      memory_format=preserve_format if memory_format is None else memory_format)
    return like


register_decomposition(aten.ones_like.default)(_like(1))
register_decomposition(aten.zeros_like.default)(_like(0))


def logical_to_physical_perm(t: Tensor) -> list[int]:
    """The order of ``t``'s dims in memory, outermost first (``compute_elementwise_output_logical_to_physical_perm``
    of torch/_prims_common for one tensor): identity when contiguous, NHWC order when channels-last, else the
    dims sorted by decreasing stride (ties: the longer dim outside; stride-0 dims keep their place)."""
    from dispatcher.ops.meta_utils import is_channels_last_contiguous

    ndim = t.dim()
    if ndim <= 1:
        return list(range(ndim))
    shape, stride = tuple(t.shape), tuple(t.stride())
    contiguous = t.is_contiguous()
    channels_last = is_channels_last_contiguous(shape, stride)
    if contiguous and not channels_last:
        return list(range(ndim))
    if channels_last and not contiguous:
        return [0, *range(2, ndim), 1]

    def ge(a: int, b: int) -> bool:
        return b == 0 or (a != 0 and (a >= b or a % b == 0))

    def should_swap(a: int, b: int) -> int:
        sa, sb = stride[a], stride[b]
        if sa == 0 or sb == 0:
            return 0
        if sa == sb:
            return 0 if ge(shape[b], shape[a]) else 1
        if ge(sb, sa):
            return -1
        return 1 if ge(sa, sb) else 0

    perm = list(reversed(range(ndim)))  # sorted innermost first, reversed at the end
    for i in range(1, ndim):
        d1 = i
        for d0 in reversed(range(i)):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return list(reversed(perm))


@register_decomposition(aten.empty_like.default)
def empty_like(self: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None,
               memory_format: Any = None) -> Tensor:
    """``empty_permuted`` in self's memory order (preserve format), else ``empty`` in the asked memory format."""
    from dispatcher.memory_format import as_memory_format, preserve_format

    kw = _new_kwargs(self, dtype, layout, device, pin_memory)
    fmt = as_memory_format(memory_format)
    if fmt != preserve_format:
        return aten.empty.memory_format(list(self.shape), **kw, memory_format=fmt)
    return aten.empty_permuted.default(list(self.shape), logical_to_physical_perm(self), **kw)


def _new_kwargs(self: Tensor, dtype: Any, layout: Any, device: Any, pin_memory: Any) -> dict[str, Any]:
    return _factory_kwargs(self.dtype if dtype is None else dtype, layout, self.device if device is None else device,
                           bool(pin_memory))


@register_decomposition(aten.new_empty.default)
def new_empty(self: Tensor, size: list[int], *, dtype: Any = None, layout: Any = None, device: Any = None,
              pin_memory: Any = None) -> Tensor:
    return aten.empty.memory_format(size, **_new_kwargs(self, dtype, layout, device, pin_memory))


@register_decomposition(aten.new_full.default)
def new_full(self: Tensor, size: list[int], fill_value: Any, *, dtype: Any = None, layout: Any = None,
             device: Any = None, pin_memory: Any = None) -> Tensor:
    return aten.full.default(size, fill_value, **_new_kwargs(self, dtype, layout, device, pin_memory))


@register_decomposition(aten.new_zeros.default)
def new_zeros(self: Tensor, size: list[int], *, dtype: Any = None, layout: Any = None, device: Any = None,
              pin_memory: Any = None) -> Tensor:
    kw = _new_kwargs(self, dtype, layout, device, pin_memory)
    return aten.full.default(size, False if kw["dtype"] is dtypes.bool else 0, **kw)


@register_decomposition(aten.new_ones.default)
def new_ones(self: Tensor, size: list[int], *, dtype: Any = None, layout: Any = None, device: Any = None,
             pin_memory: Any = None) -> Tensor:
    kw = _new_kwargs(self, dtype, layout, device, pin_memory)
    return aten.full.default(size, True if kw["dtype"] is dtypes.bool else 1, **kw)


@register_decomposition(aten.slice_backward.default)
def slice_backward(grad_output: Tensor, input_sizes: list[int], dim: int, start: int, end: int, step: int) -> Tensor:
    """Zeros of the input's size with the gradient scattered into the slice."""
    grad_input = aten.new_zeros.default(grad_output, list(input_sizes))
    return aten.slice_scatter.default(grad_input, grad_output, dim, start, end, step)


@register_decomposition(aten.arange.default)
def arange(end: Any, *, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Tensor:
    return aten.arange.start_step(0, end, 1, **_factory_kwargs(dtype, layout, device, bool(pin_memory)))


@register_decomposition(aten.arange.start)
def arange_start(start: Any, end: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                 pin_memory: Any = None) -> Tensor:
    return aten.arange.start_step(start, end, 1, **_factory_kwargs(dtype, layout, device, bool(pin_memory)))


@register_decomposition([aten.eye.default, aten.eye.m])
def eye(n: int, m: int | None = None, *, dtype: Any = None, layout: Any = None, device: Any = None,
        pin_memory: Any = None) -> Tensor:
    if m is None:
        m = n
    if n < 0 or m < 0:
        raise RuntimeError(f"n and m must be non-negative, got n={n}, m={m}")
    index_dtype = _strength_reduce_integer(max(n, m))
    rows = aten.arange.default(n, dtype=index_dtype, device=device)
    cols = aten.arange.default(m, dtype=index_dtype, device=device)
    cond = aten.eq.Tensor(aten.unsqueeze.default(rows, -1), cols)
    if layout is not None and layout is not _strided() or pin_memory:
        raise NotImplementedError("eye: only the strided layout without pinned memory is supported")
    result = dtypes.get_default_dtype() if dtype is None else dtype
    return cond.to(result)


def _strided() -> Any:
    from dispatcher.memory_format import strided

    return strided


def _strength_reduce_integer(n: int) -> dtypes.dtype:
    """The smallest of uint8 / uint16 / int32 / int64 that holds ``n`` (the range dtype of PyTorch's ``eye``)."""
    for name, top in (("uint8", 2**8 - 1), ("uint16", 2**16 - 1), ("int32", 2**31 - 1)):
        if n <= top and hasattr(dtypes, name):
            return getattr(dtypes, name)
    return dtypes.int64
