"""Core-aten decompositions of the factory ops: ``ones`` / ``zeros``, ``ones_like`` / ``zeros_like``,
``empty_like``, ``new_empty`` / ``new_full`` / ``new_zeros`` / ``new_ones``, ``arange``, ``eye``.

Corresponds to the torch/_refs/__init__.py functions (and torch/_decomp/decompositions.py entries) PyTorch 2.13's
``core_aten_decompositions()`` uses: everything becomes ``full`` / ``full_like`` / ``empty`` /
``empty_permuted`` / ``arange.start_step`` with the keyword arguments the references pass on (layout defaulting to
strided, devices as objects); ``empty_like`` keeps self's memory order through ``empty_permuted`` and
``logical_to_physical_perm``; ``eye`` compares two ``arange`` rows in the smallest index dtype that holds them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dispatcher import dtypes
from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor
from dispatcher.tensor import device as Device

from .registry import register_decomposition

aten = namespace("aten")


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


# --- arange, eye ------------------------------------------------------------------------------------------------------


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
