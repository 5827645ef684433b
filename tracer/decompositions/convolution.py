"""Core-aten decompositions of ``im2col`` / ``col2im`` (``nn.functional.unfold`` / ``fold``).

Corresponds to torch/_decomp/decompositions.py's ``im2col`` / ``col2im``: the block start indices along each of the
two dims (``arange`` over the blocks by stride, plus ``arange`` over the kernel by dilation, broadcast), then
``im2col`` pads (``constant_pad_nd``), gathers (``index.Tensor``), permutes and reshapes to (N, C * kh * kw, L);
``col2im`` views its input as (N, C, kh, kw, bh, bw), permutes, and accumulates it into zeros of the padded size
(``index_put`` with ``accumulate=True``, what ``_unsafe_index_put`` lowers to), then crops the padding
(``constant_pad_nd`` with negative amounts). Unbatched inputs are unsqueezed first and squeezed after. ``convolution``
and ``convolution_backward`` are core ops: torch's table keeps them.
"""

from __future__ import annotations

from collections.abc import Sequence

from dispatcher.op_overload import namespace
from dispatcher.tensor import Tensor

from .registry import register_decomposition

aten = namespace("aten")


def _indices_along_dim(size: int, kernel: int, dilation: int, padding: int, stride: int, device: object) -> Tensor:
    """``_im2col_col2im_indices_along_dim``: (kernel, blocks) indices of the padded input each block reads."""
    blocks = size + padding * 2 - dilation * (kernel - 1)
    starts = aten.unsqueeze.default(
        aten.arange.start_step(0, blocks, stride, dtype=_int64(), device=device, pin_memory=False), 0)
    grid = aten.unsqueeze.default(
        aten.arange.start_step(0, kernel * dilation, dilation, dtype=_int64(), device=device, pin_memory=False), -1)
    return aten.add.Tensor(starts, grid)


def _int64() -> object:
    from dispatcher import dtypes

    return dtypes.int64


def _check_positive(values: Sequence[int], name: str, strict: bool = True) -> None:
    ok = all(v > 0 for v in values) if strict else all(v >= 0 for v in values)
    if not ok:
        raise RuntimeError(f"{name} should be greater than zero, but got {list(values)}")


@register_decomposition(aten.im2col.default)
def im2col(input: Tensor, kernel_size: Sequence[int], dilation: Sequence[int], padding: Sequence[int],  # noqa: A002
           stride: Sequence[int]) -> Tensor:
    _check_positive(kernel_size, "kernel_size")
    _check_positive(dilation, "dilation")
    _check_positive(dilation, "padding", strict=False)  # (torch's reference checks dilation here)
    _check_positive(stride, "stride")
    shape = list(input.shape)
    batched = len(shape) == 4
    if not batched:
        input = aten.unsqueeze.default(input, 0)  # noqa: A001
    n, c, h, w = input.shape
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    rows = _indices_along_dim(h, kh, dh, ph, sh, input.device)
    cols = _indices_along_dim(w, kw, dw, pw, sw, input.device)
    padded = aten.constant_pad_nd.default(input, [pw, pw, ph, ph], 0.0)
    rows = aten.unsqueeze.default(aten.unsqueeze.default(rows, -1), -1)
    out = aten.index.Tensor(padded, [None, None, rows, cols])
    out = aten.permute.default(out, [0, 1, 2, 4, 3, 5])
    out = out.reshape(n, c * kh * kw, rows.shape[1] * cols.shape[1])  # clone + view unless it is viewable
    return out if batched else aten.squeeze.dims(out, [0])


@register_decomposition(aten.col2im.default)
def col2im(input: Tensor, output_size: Sequence[int], kernel_size: Sequence[int], dilation: Sequence[int],  # noqa: A002
           padding: Sequence[int], stride: Sequence[int]) -> Tensor:
    _check_positive(kernel_size, "kernel_size")
    _check_positive(dilation, "dilation")
    _check_positive(padding, "padding", strict=False)
    _check_positive(stride, "stride")
    _check_positive(output_size, "output_size")
    batched = input.dim() == 3
    if not batched:
        input = aten.unsqueeze.default(input, 0)  # noqa: A001
    n, ckk, _ = input.shape
    (oh, ow), (kh, kw), (dh, dw), (ph, pw), (sh, sw) = output_size, kernel_size, dilation, padding, stride
    blocks = [1 + (o + 2 * p - d * (k - 1) - 1) // s
              for o, p, d, k, s in zip(output_size, padding, dilation, kernel_size, stride)]
    x = aten.view.default(input, [n, ckk // (kh * kw), kh, kw, *blocks])
    x = aten.permute.default(x, [0, 1, 2, 4, 3, 5])
    rows = _indices_along_dim(oh, kh, dh, ph, sh, input.device)
    rows = aten.unsqueeze.default(aten.unsqueeze.default(rows, -1), -1)
    cols = _indices_along_dim(ow, kw, dw, pw, sw, input.device)
    zeros = aten.new_zeros.default(input, [n, ckk // (kh * kw), oh + 2 * ph, ow + 2 * pw])
    out = aten.index_put.default(zeros, [None, None, rows, cols], x, True)
    out = aten.constant_pad_nd.default(out, [-pw, -pw, -ph, -ph], 0.0)
    return out if batched else aten.squeeze.dims(out, [0])
