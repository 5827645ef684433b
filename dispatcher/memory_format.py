"""``memory_format`` and ``layout`` values with PyTorch's names and codes.

Corresponds to c10/core/MemoryFormat.h and c10/core/Layout.h. Schema defaults
arrive in kernels as integer codes (``contiguous_format`` is 0); user code
passes these objects. ``as_memory_format`` / ``as_layout`` accept either.
"""

from __future__ import annotations

from typing import Any


class _NamedCode:
    """An enum value that prints as ``torch.<name>`` and compares equal to its c10 code."""

    __slots__ = ("name", "code")

    def __init__(self, name: str, code: int) -> None:
        self.name = name
        self.code = code

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, type(self)):
            return other.code == self.code
        return isinstance(other, int) and not isinstance(other, bool) and other == self.code

    def __hash__(self) -> int:
        return hash(self.code)


class memory_format(_NamedCode):  # noqa: N801 - PyTorch's name
    __slots__ = ()


class layout(_NamedCode):  # noqa: N801 - PyTorch's name
    __slots__ = ()


contiguous_format = memory_format("contiguous_format", 0)
preserve_format = memory_format("preserve_format", 1)
channels_last = memory_format("channels_last", 2)
channels_last_3d = memory_format("channels_last_3d", 3)
_FORMATS = {f.code: f for f in (contiguous_format, preserve_format, channels_last, channels_last_3d)}

strided = layout("strided", 0)
sparse_coo = layout("sparse_coo", 1)
# (no tensor of these layouts exists here; a subclass with ``dispatch_layout=True`` may still report one)
sparse_csr = layout("sparse_csr", 2)
_mkldnn = layout("_mkldnn", 3)
sparse_csc = layout("sparse_csc", 4)
sparse_bsr = layout("sparse_bsr", 5)
sparse_bsc = layout("sparse_bsc", 6)
jagged = layout("jagged", 7)
_LAYOUTS = {lay.code: lay for lay in (strided, sparse_coo, sparse_csr, _mkldnn, sparse_csc, sparse_bsr, sparse_bsc,
                                      jagged)}


def as_memory_format(value: Any, default: memory_format = preserve_format) -> memory_format:
    """A memory_format from an object, a code or None (``default``)."""
    if value is None:
        return default
    if isinstance(value, memory_format):
        return value
    return _FORMATS[int(value)]


def as_layout(value: Any) -> layout:
    """A layout from an object, a code or None (strided)."""
    if value is None:
        return strided
    if isinstance(value, layout):
        return value
    return _LAYOUTS[int(value)]


# --- memory formats of a geometry (c10/core/TensorImpl.h ``refresh_contiguous``, MemoryFormat.h) -------------------
# One implementation of c10's predicates, used by ``Tensor.is_contiguous(memory_format=...)``, ``contiguous``, ``to``,
# ``cat``'s output layout and the factories. NB: "channels-last contiguous" (exactly the NHWC / NDHWC strides, size-1
# dims ignored) is not "strides like channels last" (the looser test ``suggest_memory_format`` uses).

_CL_ORDER_2D = (1, 3, 2, 0)  #: dims of an (N, C, H, W) tensor, fastest first in channels-last memory
_CL_ORDER_3D = (1, 4, 3, 2, 0)  #: the same for (N, C, D, H, W)


def _dense_in_order(shape: Any, stride: Any, order: tuple[int, ...]) -> bool:
    expected = 1
    for d in order:
        size = shape[d]
        if size != 1:
            if stride[d] != expected:
                return False
            expected *= size
    return True


def is_channels_last_contiguous_2d(shape: Any, stride: Any) -> bool:
    """c10's ``compute_channels_last_contiguous_2d``: a 4-d tensor laid out exactly as NHWC (size-1 dims skipped)."""
    return len(shape) == 4 and _dense_in_order(shape, stride, _CL_ORDER_2D)


def is_channels_last_contiguous_3d(shape: Any, stride: Any) -> bool:
    """c10's ``compute_channels_last_contiguous_3d``: a 5-d tensor laid out exactly as NDHWC."""
    return len(shape) == 5 and _dense_in_order(shape, stride, _CL_ORDER_3D)


def _strides_like(shape: Any, stride: Any, order: tuple[int, ...]) -> bool:
    if stride[1] == 0:  # a trivial C dim: NCHW by default
        return False
    minimum = 0
    for d in order:
        if shape[d] == 0 or stride[d] < minimum:
            return False
        # N111-like ambiguous layouts fall back to the contiguous format
        if d == 0 and minimum == stride[1]:
            return False
        minimum = stride[d]
        if shape[d] > 1:
            minimum *= shape[d]
    return True


def is_channels_last_strides_2d(shape: Any, stride: Any) -> bool:
    """c10's ``is_channels_last_strides_2d``: the strides of a 4-d tensor *order* its dims as NHWC does."""
    return len(shape) == 4 and _strides_like(shape, stride, _CL_ORDER_2D)


def is_channels_last_strides_3d(shape: Any, stride: Any) -> bool:
    """c10's ``is_channels_last_strides_3d``: the strides of a 5-d tensor order its dims as NDHWC does."""
    return len(shape) == 5 and _strides_like(shape, stride, _CL_ORDER_3D)


def is_contiguous_in(shape: Any, stride: Any, contiguous: bool, code: int) -> bool:
    """``TensorImpl::is_contiguous(memory_format)`` for the format ``code``; ``contiguous`` is the row-major flag
    (what contiguous_format and preserve_format ask)."""
    if code == 2:
        return is_channels_last_contiguous_2d(shape, stride)
    if code == 3:
        return is_channels_last_contiguous_3d(shape, stride)
    return contiguous


def suggest_memory_format_code(shape: Any, stride: Any) -> int:
    """``TensorBase::suggest_memory_format()`` (strided layout, no exact match asked): 2 (channels_last) when the
    strides are like NHWC, 3 (channels_last_3d) when like NDHWC, else 0 (contiguous_format)."""
    if is_channels_last_strides_2d(shape, stride):
        return 2
    if is_channels_last_strides_3d(shape, stride):
        return 3
    return 0


def channels_last_strides(shape: Any, code: int = 2) -> tuple[int, ...]:
    """``get_channels_last_strides_2d`` / ``_3d``: the strides of a new channels-last (3d) tensor of ``shape``,
    with c10's rank errors."""
    ndim = len(shape)
    if code == 2 and ndim != 4:
        raise RuntimeError("required rank 4 tensor to use channels_last format")
    if code == 3 and ndim != 5:
        raise RuntimeError("required rank 5 tensor to use channels_last_3d format")
    out = [0] * ndim
    acc = 1
    for d in (_CL_ORDER_2D if ndim == 4 else _CL_ORDER_3D):
        out[d] = acc
        acc *= shape[d]  # (no clamp of empty dims: c10 gives an empty NHWC tensor strides (0, 1, 0, 0))
    return tuple(out)
