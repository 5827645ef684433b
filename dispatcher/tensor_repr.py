"""``repr(tensor)`` character for character as PyTorch prints it.

Corresponds to torch/_tensor_str.py with the default print options (precision 4,
threshold 1000, edgeitems 3, linewidth 80). The rules reproduced here:

* one formatter per tensor decides the mode from the nonzero finite values:
  *int mode* (every such value is integral: ``1.``), *fixed* (``1.2346``) or
  *scientific* (``1.2346e+05``) when max/min > 1000, max > 1e8 or, outside int
  mode, min < 1e-4; every element is right-aligned to the widest one;
* rows wrap so a line holds ``(80 - indent) // (width + 2)`` elements; nested
  dims are separated by ``,`` and ``dim - 1`` newlines;
* above 1000 elements each dim longer than 6 shows its first and last 3 entries
  around ``...`` and the formatter sees only those entries;
* suffixes: ``device='meta'`` and ``size=`` for meta tensors (no values),
  ``size=`` for empty tensors that are not 1-D, ``dtype=`` unless the dtype is
  the default float dtype, int64 or bool (or, for meta/empty tensors, unless it
  is the default float dtype), ``grad_fn=<...>`` or ``requires_grad=True``; a
  suffix that would pass column 80 goes on a new line.

The values are read straight from NumPy (with the conjugate / negative bits applied): printing runs no aten ops.
Complex values print as torch's ``0.4963+0.7682j``: the real and the imaginary parts each get a formatter.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import dtypes as _dt
from .math_bits import logical_values

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80


class _Formatter:
    """Chooses int / fixed / scientific mode and the common width from (the summarized) values."""

    def __init__(self, values: np.ndarray, floating: bool) -> None:
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(f"{v}"))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        absolute = np.abs(finite.astype(np.float64))
        lo, hi = float(absolute.min()), float(absolute.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        items = finite.tolist()
        if self.int_mode:
            if hi / lo > 1000.0 or hi > 1.0e8:
                self.sci_mode = True
                self.max_width = max([self.max_width] + [len(f"{v:.{PRECISION}e}") for v in items])
            else:
                self.max_width = max([self.max_width] + [len(f"{v:.0f}") + 1 for v in items])
        elif hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4:
            self.sci_mode = True
            self.max_width = max([self.max_width] + [len(f"{v:.{PRECISION}e}") for v in items])
        else:
            self.max_width = max([self.max_width] + [len(f"{v:.{PRECISION}f}") for v in items])

    def format(self, value: Any) -> str:
        if self.floating:
            if self.sci_mode:
                text = f"{value:{self.max_width}.{PRECISION}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{PRECISION}f}"
        else:
            text = f"{value}"
        return " " * (self.max_width - len(text)) + text


class _ComplexFormatter:
    """Complex values: one formatter for the real parts, one for the imaginary parts (``a+bj`` / ``a-bj``), the
    element width being the sum of both plus the ``j``, as torch's ``formatter1`` / ``formatter2`` pair."""

    def __init__(self, values: np.ndarray) -> None:
        self.real = _Formatter(np.ascontiguousarray(values.real), True)
        self.imag = _Formatter(np.ascontiguousarray(values.imag), True)
        self.max_width = self.real.max_width + self.imag.max_width + 1

    def format(self, value: Any) -> str:
        real_str = self.real.format(value.real)
        imag_str = (self.imag.format(value.imag) + "j").lstrip()
        if imag_str[0] in "+-":
            return real_str + imag_str
        return real_str + "+" + imag_str


def _summarized(values: np.ndarray) -> np.ndarray:
    """The entries a summarized print shows: first and last EDGEITEMS of every long dim."""
    if values.ndim == 0:
        return values
    if values.ndim == 1:
        if values.shape[0] > 2 * EDGEITEMS:
            return np.concatenate((values[:EDGEITEMS], values[-EDGEITEMS:]))
        return values
    rows = range(values.shape[0])
    if values.shape[0] > 2 * EDGEITEMS:
        rows = list(range(EDGEITEMS)) + list(range(values.shape[0] - EDGEITEMS, values.shape[0]))
    return np.stack([_summarized(values[i]) for i in rows])


def _vector_str(values: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    element_length = fmt.max_width + 2
    per_line = max(1, int(math.floor((LINEWIDTH - indent) / element_length)))
    if summarize and values.shape[0] > 2 * EDGEITEMS:
        data = ([fmt.format(v) for v in values[:EDGEITEMS].tolist()] + [" ..."]
                + [fmt.format(v) for v in values[-EDGEITEMS:].tolist()])
    else:
        data = [fmt.format(v) for v in values.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(values: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    ndim = values.ndim
    if ndim == 0:
        return fmt.format(values.item())
    if ndim == 1:
        return _vector_str(values, indent, summarize, fmt)
    n = values.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        slices = ([_tensor_str_with_formatter(values[i], indent + 1, summarize, fmt) for i in range(EDGEITEMS)]
                  + ["..."]
                  + [_tensor_str_with_formatter(values[i], indent + 1, summarize, fmt)
                     for i in range(n - EDGEITEMS, n)])
    else:
        slices = [_tensor_str_with_formatter(values[i], indent + 1, summarize, fmt) for i in range(n)]
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _tensor_str(values: np.ndarray, dtype: _dt.dtype, indent: int) -> str:
    if values.size == 0:
        return "[]"
    summarize = values.size > THRESHOLD
    if dtype is _dt.float16:
        values = values.astype(np.float32)
    shown = _summarized(values) if summarize else values
    fmt: Any = _ComplexFormatter(shown) if dtype.is_complex else _Formatter(shown, dtype.is_floating_point)
    return _tensor_str_with_formatter(values, indent, summarize, fmt)


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _size_str(shape: tuple[int, ...]) -> str:
    return "size=" + str(tuple(shape))


def _prefix(t: Any) -> str:
    """``tensor(`` for a Tensor or a Parameter, else the subclass's name (``LoggingTensor(``), as torch prints."""
    cls = type(t)
    if cls.__name__ == "Tensor" or (cls.__name__ == "Parameter" and cls.__module__.startswith("dispatcher.")):
        return "tensor("
    return f"{cls.__name__}("


def _values_through_dispatch(t: Any) -> np.ndarray:
    """The values of a tensor without storage (a wrapper subclass), read with ops its ``__torch_dispatch__`` answers:
    ``view(-1)``, then ``select`` and ``_local_scalar_dense`` of each element (torch's printer also reads a
    wrapper through ops, so a subclass refusing them fails the same way)."""
    from .op_overload import namespace

    aten = namespace("aten")
    flat = aten.view.default(t, [-1])
    n = 1
    for s in t._shape:
        n *= s
    items = [aten._local_scalar_dense.default(aten.select.int(flat, 0, i)) for i in range(n)]
    return np.array(items, dtype=t._dtype.np_dtype).reshape(t._shape)


def tensor_repr(t: Any, tensor_contents: str | None = None) -> str:
    """``repr(t)`` as PyTorch prints it; ``tensor_contents`` replaces the values (``Tensor.__repr__``'s argument)."""
    prefix = _prefix(t)
    indent = len(prefix)
    suffixes: list[str] = []
    dtype = t._dtype
    default = _dt.get_default_dtype()
    if t._device.type != "cpu":
        suffixes.append(f"device='{t._device}'")
    is_fake = type(t).__name__ == "FakeTensor"
    if t._device.type == "meta" or is_fake:
        suffixes.append(_size_str(t._shape))
        if dtype is not default:
            suffixes.append(f"dtype={dtype!r}")
        body = "..." if tensor_contents is None else tensor_contents
    elif t.numel() == 0:
        if len(t._shape) != 1:
            suffixes.append(_size_str(t._shape))
        if dtype is not default:
            suffixes.append(f"dtype={dtype!r}")
        body = "[]" if tensor_contents is None else tensor_contents
    else:
        if dtype not in (default, _dt.int64, _dt.bool, _default_complex(default)):
            suffixes.append(f"dtype={dtype!r}")
        if tensor_contents is not None:
            body = tensor_contents
        else:
            values = np.asarray(logical_values(t)) if t._data is not None else _values_through_dispatch(t)
            body = _tensor_str(values, dtype, indent)
    grad_fn = getattr(t, "grad_fn", None)
    if grad_fn is not None:
        name = type(grad_fn).__name__
        if hasattr(grad_fn, "name") and callable(grad_fn.name) and name in ("CppFunction", "Node"):
            name = grad_fn.name().rsplit("::", 1)[-1]
        suffixes.append(f"grad_fn=<{name}>")
    elif getattr(t, "requires_grad", False):
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)


def _default_complex(default: _dt.dtype) -> Any:
    return getattr(_dt, "complex128", None) if default is _dt.float64 else getattr(_dt, "complex64", None)
