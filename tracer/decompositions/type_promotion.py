"""Type promotion for decompositions: the computation ("opmath") dtype and the wrappers that convert to it.

Corresponds to torch/_prims_common/__init__.py (``computation_dtype``, ``elementwise_dtypes``),
torch/_prims_common/wrappers.py (``elementwise_type_promotion_wrapper``, its DEFAULT and INT_TO_FLOAT kinds), the
``pw_cast_for_opmath`` decorator of torch/_decomp/decompositions.py and, from torch/_refs/__init__.py, the
references' ``_maybe_broadcast`` and ``torch.where``'s wrapping of numbers. The decompositions of several families
use them:

* ``pw_cast_for_opmath``: every tensor argument converted (``.to``) to the computation dtype (float32 for half
  precision), the results back to the promoted dtype (``compute_dtype_only`` leaves them in the computation dtype);
* ``_default_promotion`` / ``_int_to_float_promotion``: the references' DEFAULT and INT_TO_FLOAT kinds (integral
  results become the default float dtype), with ``_check_value``, the references' check that a Python number fits
  the tensor's dtype (bool <= int <= float <= complex);
* ``_promoted`` / ``_finish``: the same conversions as the pointwise references trace them, explicit ``_to_copy``
  calls in and out; ``_broadcast`` (``_maybe_broadcast``) expands tensors of another shape than the common one;
  ``_scalar`` makes a number a ``scalar_tensor`` of the promoted dtype, as ``torch.where`` does.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from dispatcher import dtypes
from dispatcher.memory_format import strided
from dispatcher.op_overload import namespace
from dispatcher.ops.meta_utils import broadcast_shapes
from dispatcher.tensor import Tensor

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


# --- the references' DEFAULT and INT_TO_FLOAT kinds (torch/_prims_common/wrappers.py) ---------------------------------


def _int_to_float_promotion(fn: Callable[..., Any]) -> Callable[..., Any]:
    """torch/_refs' INT_TO_FLOAT type promotion: integral results become the default float dtype; the tensors are
    converted to the computation dtype (float32 for half precision) first, the result back afterwards."""

    @functools.wraps(fn)
    def inner(*args: Any, **kwargs: Any) -> Any:
        result = dtypes.result_type(*_flat_tensors(args, kwargs))
        if not (result.is_floating_point or result.is_complex):
            result = dtypes.get_default_dtype()
        compute = computation_dtype(result)
        return _cast(fn(*_cast(args, compute), **{k: _cast(v, compute) for k, v in kwargs.items()}), result)

    return inner


def _default_promotion(fn: Callable[..., Any]) -> Callable[..., Any]:
    """torch/_refs' DEFAULT type promotion (see ``_int_to_float_promotion``)."""

    @functools.wraps(fn)
    def inner(*args: Any, **kwargs: Any) -> Any:
        result = dtypes.result_type(*_flat_tensors(args, kwargs))
        compute = computation_dtype(result)
        return _cast(fn(*_cast(args, compute), **{k: _cast(v, compute) for k, v in kwargs.items()}), result)

    return inner


_WEAK_ORDER = (bool, int, float, complex)


def _check_value(value: Any, self: Tensor, name: str = "value") -> None:
    """The refs' check that ``value`` fits self's (computation) dtype: bool <= int <= float <= complex."""
    python_type = _python_type_of(self._dtype)
    kind = complex if isinstance(value, complex) else float if isinstance(value, float) else (
        bool if isinstance(value, bool) else int)
    if _WEAK_ORDER.index(kind) > _WEAK_ORDER.index(python_type):
        raise ValueError(f"{name} argument of type {kind} cannot be safely cast to type {python_type}!")


# --- explicit conversions, broadcasting and number wrapping of the pointwise references (torch/_refs) -----------------


def _promoted(args: tuple[Any, ...], int_to_float: bool) -> tuple[list[Any], Any, Any]:
    """(arguments converted to the computation dtype, computation dtype, result dtype)."""
    result = dtypes.result_type(*args)
    if int_to_float and not (result.is_floating_point or result.is_complex):
        result = dtypes.get_default_dtype()
    compute = dtypes.float32 if result is dtypes.float16 else result
    converted = [aten._to_copy.default(a, dtype=compute) if isinstance(a, Tensor) and a.dtype is not compute else a
                 for a in args]
    return converted, compute, result


def _broadcast(*tensors: Tensor) -> list[Tensor]:
    """``_maybe_broadcast`` of the binary references: each tensor with dimensions but not of the common shape is
    expanded to it (0-dim tensors broadcast as numbers do)."""
    shape = list(broadcast_shapes(*(tuple(t.shape) for t in tensors)))
    return [t if t.dim() == 0 or list(t.shape) == shape else aten.expand.default(t, shape) for t in tensors]


def _finish(out: Tensor, result_dtype: Any) -> Tensor:
    return out if out.dtype is result_dtype else aten._to_copy.default(out, dtype=result_dtype)


def _scalar(value: Any, like: Tensor, dtype: Any = None) -> Tensor:
    """``torch.where``'s wrapping of a number: ``scalar_tensor(value, dtype=..., layout, device)``."""
    return aten.scalar_tensor.default(value, dtype=dtype or like.dtype, layout=strided, device=like.device)
