"""Input specifications of the command line: ``f32[4,8]``, ``i64[4]:0..10``, ``f32[3]+grad``, ``0.5``.

A spec names a dtype (PyTorch's short names: ``f16 f32 f64 i8 i16 i32 i64 u8 bool``, or full names
such as ``float32``) and a shape (``[]`` for a zero-dim tensor). Integer tensors are drawn uniformly
from ``[0, 10)`` unless a range ``:LOW..HIGH`` (high exclusive) follows; ``bool`` tensors are fair
coin flips; floating tensors are standard normal. ``+grad`` makes a floating tensor require grad.
A bare Python number or ``True`` / ``False`` / ``None`` is passed as that constant.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

import dispatcher as D

__all__ = ["InputSpec", "InputSpecError", "make_inputs", "parse_input"]

#: short and long dtype names -> (NumPy dtype, dispatcher dtype)
_DTYPES: dict[str, tuple[Any, Any]] = {}
for _short, _long, _np in [("f16", "float16", np.float16), ("f32", "float32", np.float32),
                           ("f64", "float64", np.float64), ("i8", "int8", np.int8), ("i16", "int16", np.int16),
                           ("i32", "int32", np.int32), ("i64", "int64", np.int64), ("u8", "uint8", np.uint8),
                           ("b8", "bool", np.bool_)]:
    _DTYPES[_short] = _DTYPES[_long] = (_np, getattr(D, _long))
_DTYPES["bool"] = _DTYPES["b8"]
_DTYPES["float"], _DTYPES["double"], _DTYPES["long"], _DTYPES["int"] = (  # torch.float etc.
    _DTYPES["f32"], _DTYPES["f64"], _DTYPES["i64"], _DTYPES["i32"])

_TENSOR = re.compile(r"^(?P<dtype>[a-z0-9]+)\[(?P<shape>[0-9,\s]*)\](?::(?P<lo>-?\d+)\.\.(?P<hi>-?\d+))?"
                     r"(?P<grad>\+grad)?$")


class InputSpecError(ValueError):
    """An ``--input`` value that is not a valid specification."""


@dataclass(frozen=True)
class InputSpec:
    """One parsed ``--input``: a random tensor's dtype/shape/range, or a constant."""

    text: str
    dtype: str | None = None
    shape: tuple[int, ...] = ()
    low: int = 0
    high: int = 10
    requires_grad: bool = False
    constant: Any = None

    @property
    def is_tensor(self) -> bool:
        return self.dtype is not None


def parse_input(text: str) -> InputSpec:
    """Parse one spec; raise :class:`InputSpecError` naming the spec and what was expected."""
    s = text.strip()
    m = _TENSOR.match(s)
    if m is None:
        try:
            value = ast.literal_eval(s)
        except (ValueError, SyntaxError):
            value = _Invalid
        if value is None or isinstance(value, (bool, int, float)):
            return InputSpec(text, constant=value)
        raise InputSpecError(
            f"bad --input {text!r}: expected DTYPE[SHAPE] such as f32[4,8], i64[4]:0..10, f32[]+grad, "
            f"or a Python number")
    name = m["dtype"]
    if name not in _DTYPES:
        raise InputSpecError(f"bad --input {text!r}: unknown dtype {name!r}; expected one of "
                             f"{', '.join(sorted(k for k in _DTYPES if len(k) <= 4))}")
    dims = [d.strip() for d in m["shape"].split(",")] if m["shape"].strip() else []
    if any(d == "" for d in dims):
        raise InputSpecError(f"bad --input {text!r}: the shape must be comma-separated sizes, e.g. [4,8]")
    shape = tuple(int(d) for d in dims)
    np_dtype = _DTYPES[name][0]
    floating = np.issubdtype(np_dtype, np.floating)
    lo, hi = (int(m["lo"]), int(m["hi"])) if m["lo"] is not None else (0, 2 if np_dtype is np.bool_ else 10)
    if m["lo"] is not None and (floating or np_dtype is np.bool_):
        raise InputSpecError(f"bad --input {text!r}: a range LOW..HIGH applies to integer tensors only")
    if lo >= hi:
        raise InputSpecError(f"bad --input {text!r}: empty range {lo}..{hi} (HIGH is exclusive)")
    if m["grad"] and not floating:
        raise InputSpecError(f"bad --input {text!r}: only floating point tensors can require gradients")
    if np.prod(shape, dtype=np.int64) > 1 << 28:
        raise InputSpecError(f"bad --input {text!r}: {int(np.prod(shape))} elements is too large")
    return InputSpec(text, dtype=name, shape=shape, low=lo, high=hi, requires_grad=bool(m["grad"]))


class _InvalidType:
    pass


_Invalid = _InvalidType()


def make_inputs(specs: list[InputSpec], seed: int = 0) -> list[Any]:
    """Random inputs (dispatcher tensors or constants) for ``specs``, reproducible for a seed."""
    rng = np.random.default_rng(seed)
    out: list[Any] = []
    for spec in specs:
        if not spec.is_tensor:
            out.append(spec.constant)
            continue
        np_dtype = _DTYPES[spec.dtype][0]
        if np.issubdtype(np_dtype, np.floating):
            a = rng.standard_normal(spec.shape).astype(np_dtype)
        elif np_dtype is np.bool_:
            a = rng.integers(0, 2, spec.shape).astype(np.bool_)
        else:
            a = rng.integers(spec.low, spec.high, spec.shape).astype(np_dtype)
        t = D.from_numpy(np.array(a, order="C"))  # (ascontiguousarray would make 0-d 1-d)
        out.append(t.requires_grad_() if spec.requires_grad else t)
    return out
