"""Padding by reflection, replication and wrapping: ``reflection_pad{1,2,3}d``, ``replication_pad{1,2,3}d``, their
backward ops, ``_pad_circular`` and ``_pad_enum`` (what ``pad`` calls for a mode other than "constant").

Corresponds to aten/src/ATen/native/ReflectionPad.cpp, ReplicationPadding.cpp (their meta functions' checks,
padding::check_valid_input of Padding.h) and PadNd.cpp (``_pad_circular``, ``_pad_enum``). The reflection and
replication ops are backend kernels (one function serves CPU and Meta; torch also registers most of them as
CompositeExplicitAutogradNonFunctional, and so does this file where it does); ``_pad_circular`` and ``_pad_enum``
are CompositeImplicitAutograd: ``_pad_circular`` allocates the output (``new_empty``), copies the input into its
middle and then each padded dim's wrapped borders from the output itself (``slice`` + ``copy_``), as PadNd.cpp does.

``pad`` (shape.py) calls ``pad_enum`` here directly, not through the dispatcher, as torch's ``pad`` calls
``at::native::_pad_enum``: a trace records ``pad`` (pre-dispatch) or the op it chose, never ``_pad_enum``.

NumPy: each padded dim gathers from an index vector (reflect: ``(n-1) - |(n-1) - |i||``, replicate:
``clip(i, 0, n-1)`` for ``i`` in ``[-left, n + right)``, the same indices torch's decompositions use); the backward
sums the gradient back through the same indices (a one-hot matrix product per dim, last dim first).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import dtypes as _dt
from ..memory_format import strided
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from .kernel_dtypes import _expected_scalar_type, compute_dtype, is_meta, not_implemented
from .kernel_registry import impl
from .meta_utils import TensorMeta, materialize, wrap_dim

aten = namespace("aten")

#: at::padding_mode, the int ``_pad_enum`` takes
PADDING_MODES = {"reflect": 0, "replicate": 1, "circular": 2, "constant": 3}
_MODE_NAMES = {v: k for k, v in PADDING_MODES.items()}
_DIM_LETTERS = ("W", "H", "D")


def _sizes(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def pad_indices(mode: str, left: int, size: int, right: int) -> np.ndarray:
    """The input index each output position of one padded dim reads."""
    i = np.arange(-left, size + right)
    if mode == "reflect":
        return (size - 1) - np.abs((size - 1) - np.abs(i))
    return np.clip(i, 0, size - 1)


def _check_input(name: str, dim: int, self: Tensor, padding: Sequence[int], reflect: bool) -> None:
    """Padding.h's ``check_valid_input`` (reflection) / the replication meta functions' checks."""
    if len(padding) != 2 * dim:
        raise RuntimeError(f"padding size is expected to be {2 * dim}" +
                           (f", but got: {len(padding)}" if reflect else ""))
    shape, ndim = self._shape, self.dim()
    batched = ndim == dim + 2 and all(s != 0 for s in shape[1:])
    unbatched = ndim == dim + 1 and all(s != 0 for s in shape)
    if not (batched or unbatched):
        raise RuntimeError(f"Expected {dim + 1}D or {dim + 2}D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {_sizes(shape)}")
    if self._dtype is _dt.bool:
        raise not_implemented(name, self._dtype)


def _out_shape(name: str, dim: int, self: Tensor, padding: Sequence[int], reflect: bool) -> tuple[int, ...]:
    shape = list(self._shape)
    ndim = len(shape)
    for i in range(dim):  # width first
        d = ndim - 1 - i
        left, right = int(padding[2 * i]), int(padding[2 * i + 1])
        if reflect and not (left < shape[d] and right < shape[d]):
            raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({left}, {right}) at dimension {d} of input "
                               f"{_sizes(self._shape)}")
        shape[d] += left + right
    if dim == 1 and shape[-1] < 1:
        raise RuntimeError(f"input (W: {self._shape[-1]}) is too small. Calculated output W: {shape[-1]}")
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {_sizes(shape)}")
    return tuple(shape)


def _pad_forward(name: str, mode: str, dim: int, self: Tensor, padding: Sequence[int]) -> Tensor:
    reflect = mode == "reflect"
    _check_input(name, dim, self, padding, reflect)
    shape = _out_shape(name, dim, self, padding, reflect)
    meta = TensorMeta(shape, contiguous_strides(shape), self._dtype)
    if is_meta(self):
        return materialize(meta, None, self)

    def compute() -> np.ndarray:
        out = self._data
        for i in range(dim):
            d = self.dim() - 1 - i
            out = np.take(out, pad_indices(mode, int(padding[2 * i]), self._shape[d], int(padding[2 * i + 1])), axis=d)
        return out

    return materialize(meta, compute, self)


def _pad_backward(name: str, mode: str, dim: int, grad_output: Tensor, self: Tensor,
                  padding: Sequence[int]) -> Tensor:
    reflect = mode == "reflect"
    _check_input(name, dim, self, padding, reflect)
    want = _out_shape(name, dim, self, padding, reflect)
    if dim == 3 and reflect and grad_output.dim() != self.dim():
        raise RuntimeError("Expected grad_output.dim() == input.dim() to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement request to PyTorch.)")
    if dim == 3 and not reflect:  # (replication_pad3d's shape check looks at the channels first)
        plane = self.dim() - 4
        got = grad_output._shape[wrap_dim(plane, grad_output.dim())]
        if got != self._shape[plane]:
            raise RuntimeError(f"gradOutput channel unexpected. Expected: {self._shape[plane]}, Got: {got}")
    for i, what in enumerate(("width", "height", "depth")[:dim]):  # the meta functions' checks, width first
        d = self.dim() - 1 - i
        # (grad_output.size(d) at the input's dim index: an IndexError when grad_output has fewer dims)
        got = grad_output._shape[wrap_dim(d, grad_output.dim())]
        if got != want[d]:
            raise RuntimeError(f"grad_output {what} unexpected. Expected: {want[d]}, Got: {got}" if reflect else
                               f"gradOutput {what} unexpected. Expected: {want[d]} Got: {got}")
    if tuple(grad_output._shape) != want:
        # (torch's kernels stop at the checks above and read past a gradient of a smaller batch / channel count)
        raise RuntimeError(f"Expected grad_output of size {_sizes(want)}, but got {_sizes(grad_output._shape)}")
    # (grad_input is empty_like(self): the meta result has self's dtype; the CPU kernel dispatches on grad_output's
    # dtype and then reads self's data as that type)
    meta = TensorMeta(tuple(self._shape), contiguous_strides(self._shape), self._dtype)
    if is_meta(grad_output) or is_meta(self):
        return materialize(meta, None, grad_output)
    if not (grad_output._dtype.is_floating_point or grad_output._dtype.is_complex):
        raise not_implemented(name, grad_output._dtype)
    if self._dtype is not grad_output._dtype:
        raise _expected_scalar_type(grad_output._dtype, self._dtype)

    def compute() -> np.ndarray:
        g = grad_output._data.astype(compute_dtype(grad_output._dtype), copy=False)
        for i in range(dim):
            d = self.dim() - 1 - i
            size = self._shape[d]
            idx = pad_indices(mode, int(padding[2 * i]), size, int(padding[2 * i + 1]))
            # (sums only, as torch's kernels: a one-hot product would turn an inf gradient into inf * 0 = nan)
            moved = np.moveaxis(g, d, 0)
            acc = np.zeros((size,) + moved.shape[1:], dtype=g.dtype)
            np.add.at(acc, idx, moved)
            g = np.moveaxis(acc, 0, d)
        return np.ascontiguousarray(g).astype(grad_output._dtype.np_dtype, copy=False)

    return materialize(meta, compute, grad_output)


def _register(mode: str, prefix: str, dim: int, nonfunctional: bool, bw_nonfunctional: bool) -> None:
    name = f"{prefix}_pad{dim}d"
    fw_keys = ("CPU", "Meta") + (("CompositeExplicitAutogradNonFunctional",) if nonfunctional else ())
    bw_keys = ("CPU", "Meta") + (("CompositeExplicitAutogradNonFunctional",) if bw_nonfunctional else ())

    def forward(self: Tensor, padding: Sequence[int]) -> Tensor:
        return _pad_forward(name, mode, dim, self, padding)

    def backward(grad_output: Tensor, self: Tensor, padding: Sequence[int]) -> Tensor:
        return _pad_backward(f"{name}_backward", mode, dim, grad_output, self, padding)

    forward.__name__ = forward.__qualname__ = name
    backward.__name__ = backward.__qualname__ = f"{name}_backward"
    impl(name, *fw_keys)(forward)
    impl(f"{name}_backward", *bw_keys)(backward)


# (mode, op prefix, dims, torch registers the op / its backward as CompositeExplicitAutogradNonFunctional too)
for _mode, _prefix, _dim, _nf, _bw_nf in (
        ("reflect", "reflection", 1, True, True), ("reflect", "reflection", 2, False, False),
        ("reflect", "reflection", 3, True, True), ("replicate", "replication", 1, True, True),
        ("replicate", "replication", 2, True, False), ("replicate", "replication", 3, True, False)):
    _register(_mode, _prefix, _dim, _nf, _bw_nf)


# --- _pad_circular / _pad_enum (CompositeImplicitAutograd) ---------------------------------------------------------


@impl("_pad_circular", "CompositeImplicitAutograd")
def _pad_circular(self: Tensor, pad: Sequence[int]) -> Tensor:
    """PadNd.cpp's ``_pad_circular``: the last ``len(pad) // 2`` dims wrap around; one or two leading dims are left
    alone (unbatched / batched)."""
    in_shape = list(self._shape)
    ndim = len(in_shape)
    npad = len(pad) // 2
    lead = ndim - npad
    if len(pad) % 2 or lead not in (1, 2):
        raise RuntimeError(f"Invalid padding size, expected 1 or 2 non-padded dimensions, which would be equivalent "
                           f"to padding of length {2 * (ndim - 1)} or {2 * (ndim - 2)} respectively but got {len(pad)}")
    out_shape = list(in_shape)
    for i in range(npad):
        left, right = int(pad[2 * (npad - i - 1)]), int(pad[2 * (npad - i - 1) + 1])
        size = in_shape[lead + i]
        out_shape[lead + i] = size + left + right
        if not (left <= size and right <= size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[lead + i] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = aten.new_empty.default(self, out_shape, dtype=self._dtype, layout=strided, device=self._device)
    # the input into the middle
    out_slice, in_slice = out, self
    for i in range(npad):
        d = ndim - 1 - i
        left, right = int(pad[2 * i]), int(pad[2 * i + 1])
        out_slice = aten.slice.Tensor(out_slice, d, max(left, 0), out_shape[d] - max(right, 0))
        in_slice = aten.slice.Tensor(in_slice, d, max(-left, 0), in_shape[d] - max(-right, 0))
    aten.copy_.default(out_slice, in_slice)
    # then the wrapped borders, left before right, last dim first (corners are written more than once)
    for i in range(npad):
        d = ndim - 1 - i
        left, right = int(pad[2 * i]), int(pad[2 * i + 1])
        if left > 0:
            aten.copy_.default(aten.slice.Tensor(out, d, 0, left),
                               aten.slice.Tensor(out, d, out_shape[d] - left - max(right, 0),
                                                 out_shape[d] - max(right, 0)))
        if right > 0:
            aten.copy_.default(aten.slice.Tensor(out, d, out_shape[d] - right, out_shape[d]),
                               aten.slice.Tensor(out, d, max(left, 0), max(left, 0) + right))
    return out


_UNSUPPORTED = ("Padding size {n} is not supported for {d}D input tensor.\nSupported combinations for non-constant "
                "padding:\n  - 2D or 3D input: padding size = 2 (pads last dimension)\n  - 3D or 4D input: padding size "
                "= 4 (pads last 2 dimensions)\n  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def pad_enum(self: Tensor, pad: Sequence[int], mode: int, value: float | None = None) -> Tensor:
    """PadNd.cpp's ``_pad_enum``: ``constant_pad_nd``, or the reflection / replication / circular op of the
    padded dims' count."""
    pad = list(pad)
    ndim = self.dim()
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {ndim}")
    name = _MODE_NAMES.get(mode)
    if name == "constant":
        return aten.constant_pad_nd.default(self, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{name}\" doesn't take in value argument")
    n = len(pad) // 2
    if n in (1, 2, 3) and ndim in (n + 1, n + 2) and name in ("reflect", "replicate", "circular"):
        if name == "circular":
            return aten._pad_circular.default(self, pad)
        prefix = "reflection" if name == "reflect" else "replication"
        return getattr(aten, f"{prefix}_pad{n}d").default(self, pad)
    raise NotImplementedError(_UNSUPPORTED.format(n=len(pad), d=ndim))


@impl("_pad_enum", "CompositeImplicitAutograd")
def _pad_enum(self: Tensor, pad: Sequence[int], mode: int, value: float | None = None) -> Tensor:
    return pad_enum(self, pad, mode, value)
