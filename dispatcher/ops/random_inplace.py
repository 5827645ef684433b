"""In-place sampling kernels: ``random_`` (``.from`` / ``.to`` / default), ``exponential_``, ``geometric_``,
``cauchy_`` and ``log_normal_``.

Corresponds to aten/src/ATen/native/Distributions.cpp, DistributionTemplates.h and the CPU kernels of
cpu/DistributionTemplates.h, plus the Python meta functions torch registers for four of them (torch/_refs'
``exponential`` / ``geometric`` / ``cauchy`` / ``log_normal`` run on meta tensors). Numbers come from the
dispatcher's generators (dispatcher/random.py), not PyTorch's streams; ranges, checks, their order and their
messages are PyTorch's:

* ``random_()``: integers in ``[0, 2**digits]`` for floating-point dtypes (11 / 24 / 53 mantissa digits), the
  dtype's ``[0, max]`` for integral ones, ``{False, True}`` for bool; complex is not implemented.
* ``random_(from, to)`` / ``random_(to)``: ``[from, to)``, with ``from`` / ``to`` moved to the nearest values the
  floating-point dtype holds (``update_from`` / ``update_to``), then checked against the dtype's limits
  ("from is out of bounds for signed char"); ``random_(from, None)``: ``[from, max]``, ``max`` being
  ``2**digits`` for floating-point dtypes; ``from = -2**63`` draws the full 64-bit range.
* The CPU kernels check their parameters first, then return early for an empty tensor, then refuse an
  overlapping ``self`` (TensorIterator), then check the dtype; the meta kernel of ``random_`` checks nothing, the
  meta functions of the others check the dtype first with the refs' own words.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..tensor import Tensor
from .factories import SCALAR_TYPE_NAMES, _not_implemented
from .kernel_registry import impl
from .meta_utils import check_no_internal_overlap
from .random import _generator

_INT64_MIN, _INT64_MAX = -(2 ** 63), 2 ** 63 - 1

#: mantissa digits of the floating-point dtypes (std::numeric_limits<T>::digits)
_DIGITS = {"float16": 11, "float32": 24, "float64": 53}
_FLOAT_MAX = {"float16": 65504.0, "float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}
_INT_LIMITS = {"bool": (0, 1), "uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767),
               "int32": (-(2 ** 31), 2 ** 31 - 1), "int64": (_INT64_MIN, _INT64_MAX)}
#: caffe2 TypeMeta names, as these messages print a dtype ("long int")
_TYPE_META = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
              "int64": "long int", "float16": "c10::Half", "float32": "float", "float64": "double",
              "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _cpp(x: float) -> str:
    """A double as C++ ``<<`` prints it (-1.0 -> "-1", 0.25 -> "0.25")."""
    return f"{float(x):g}"


def _is_meta(self: Tensor) -> bool:
    return self._device.type == "meta"


def _empty(self: Tensor) -> bool:
    return self._data is None or self._data.size == 0


def _write(self: Tensor, generator: Any, draw: Any) -> Tensor:
    """``self``'s elements set to ``draw(numpy_rng, shape)`` (float64 or int64 values, cast to self's dtype)."""
    shape = self._shape
    values = _generator(generator).draw(lambda rng: draw(rng, shape))
    with np.errstate(all="ignore"):
        self._data[...] = np.asarray(values).astype(self._dtype.np_dtype)
    return self


# --- random_ ---------------------------------------------------------------------------------------------------------


def _round_bits(v: int, bits: int) -> int:
    """``v`` rounded to ``bits`` significant bits, to nearest, ties to even (an int64 -> float conversion)."""
    a = abs(v)
    shift = a.bit_length() - bits
    if shift <= 0:
        return v
    q, r = divmod(a, 1 << shift)
    half = 1 << (shift - 1)
    if r > half or (r == half and q & 1):
        q += 1
    return (q << shift) if v > 0 else -(q << shift)


def _through_dtype(v: int, name: str) -> int:
    """``static_cast<int64_t>(static_cast<scalar_t>(v))``: Half goes through float as c10::Half does; a value that
    overflows to inf reads back as INT64_MIN (what x86's conversion gives)."""
    if name == "float64":
        return _round_bits(v, 53)
    f32 = _round_bits(v, 24)
    if name == "float32":
        return f32
    with np.errstate(over="ignore"):
        h = np.float16(np.float32(f32))
    return _INT64_MIN if not np.isfinite(h) else int(h)


def _log2_floor(v: int) -> int:
    return max(abs(v).bit_length() - 1, 0)


def _update_from(low: int, name: str) -> int:
    """DistributionTemplates.h's ``update_from``: the closest ``from`` whose cast does not go below ``from``."""
    plus_1 = _through_dtype(low + 1, name)
    if plus_1 < low:
        low = plus_1 + (1 << (_log2_floor(low + 1) - _DIGITS[name] + 1))
    return low


def _update_to(high: int, name: str) -> int:
    """``update_to``: the closest ``to`` whose ``to - 1`` does not reach ``to`` once cast."""
    minus_1 = _through_dtype(high - 1, name)
    if minus_1 >= high:
        high = minus_1 - (1 << (_log2_floor(high - 1) - _DIGITS[name] + 1))
    return high


def _check_from_to_in_range(low: int, to_inc: int, self: Tensor) -> None:
    name = self._dtype.name
    type_meta = _TYPE_META[name]
    if name in _DIGITS:
        limit = _FLOAT_MAX[name]
        for var, label in ((low, "from"), (to_inc, "to - 1")):
            if not -limit <= var <= limit:
                raise RuntimeError(f"{label} is out of bounds for {type_meta}")
        digits = _DIGITS[name]
        for var, label in ((low, "from"), (to_inc, "to - 1")):
            if var < -(1 << digits) or var > (1 << digits):
                warnings.warn(f"{label} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                              f"{type_meta} can support discrete uniform distribution only within this range. This "
                              "warning will become an error in version 1.7 release, please fix the code in advance",
                              UserWarning, stacklevel=2)
    elif name in _INT_LIMITS:
        lo, hi = _INT_LIMITS[name]
        for var, label in ((low, "from"), (to_inc, "to - 1")):
            if not lo <= var <= hi:
                raise RuntimeError(f"{label} is out of bounds for {type_meta}")
    else:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")


def _draw_integers(self: Tensor, low: int, high_inclusive: int, generator: Any) -> Tensor:
    return _write(self, generator, lambda rng, shape: rng.integers(low, high_inclusive, size=shape, dtype=np.int64,
                                                                 endpoint=True))


@impl("random_.from", "CPU", "Meta")
def random__from(self: Tensor, *args: Any, generator: Any = None, **kwargs: Any) -> Tensor:
    """``[from, to)``, or ``[from, max]`` when ``to`` is None (random_from_to_impl). (``from`` is a Python keyword:
    the arguments come positionally or as ``**{"from": ...}``.)"""
    low = kwargs.pop("from", args[0] if args else None)
    high = kwargs.pop("to", args[1] if len(args) > 1 else None)
    return _random_from_to(self, int(low), high, generator)


def _random_from_to(self: Tensor, low: int, high: int | None, generator: Any) -> Tensor:
    if _is_meta(self):
        return self  # (PyTorch's meta kernel checks nothing)
    check_no_internal_overlap(self)
    name = self._dtype.name
    if high is not None:
        high = int(high)
        if not low < high:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
        if name in _DIGITS:
            low, high = _update_from(low, name), _update_to(high, name)
            if not low < high:
                raise RuntimeError("random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but "
                                   f"got from={low} >= to={high}")
        _check_from_to_in_range(low, high - 1, self)
        return self if _empty(self) else _draw_integers(self, low, high - 1, generator)
    if low != _INT64_MIN:
        if name in _DIGITS:
            to_inc = min(1 << _DIGITS[name], _INT64_MAX)
            low = _update_from(low, name)
            if not low < to_inc:
                raise RuntimeError("random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted "
                                   f"to dtype, but got from={low} > to_inc={to_inc}")
        elif name in _INT_LIMITS:
            to_inc = _INT_LIMITS[name][1]
        else:
            raise RuntimeError("random_from_to_impl handles only integral, floating-point and boolean types")
        _check_from_to_in_range(low, to_inc, self)
        return self if _empty(self) else _draw_integers(self, low, to_inc, generator)
    if _empty(self):
        return self
    if name in ("float16", "bool") or self._dtype.is_complex:  # (not among the dtypes the kernel dispatches on)
        raise _not_implemented("random_full_64_bits_range_kernel_cpu", self._dtype)
    if name not in ("int64", "float64", "float32"):
        raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16")
    return _draw_integers(self, _INT64_MIN, _INT64_MAX, generator)


@impl("random_.to", "CPU", "Meta")
def random__to(self: Tensor, to: int, *, generator: Any = None) -> Tensor:
    """``[0, to)``."""
    return _random_from_to(self, 0, int(to), generator)


@impl("random_", "CPU", "Meta")
def random_(self: Tensor, *, generator: Any = None) -> Tensor:
    """``[0, 2**digits]`` (floating point), ``[0, max]`` (integral), False / True (bool)."""
    if _is_meta(self) or _empty(self):
        return self
    check_no_internal_overlap(self)
    name = self._dtype.name
    if name in _DIGITS:
        high = 1 << _DIGITS[name]
    elif name in _INT_LIMITS:
        high = _INT_LIMITS[name][1]
    else:
        raise _not_implemented("random_kernel_cpu", self._dtype)
    return _draw_integers(self, 0, high, generator)


# --- exponential_ / geometric_ / cauchy_ / log_normal_ --------------------------------------------------------------

_CONTINUOUS = "{} distribution is a continuous probability distribution. {}dtype must be a floating point but you " \
              "specified {}"


def _meta_check_float(self: Tensor, what: str) -> None:
    """The refs' dtype check (its message keeps the source's line-continuation spaces)."""
    if not self._dtype.is_floating_point:
        raise RuntimeError(_CONTINUOUS.format(what, " " * 8, repr(self._dtype)))


@impl("exponential_", "CPU", "Meta")
def exponential_(self: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    """Exp(lambd) draws."""
    if _is_meta(self):
        _meta_check_float(self, "Exponential")
        if not lambd > 0.0:
            raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={float(lambd)}")
        return self
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_cpp(lambd)}")
    if _empty(self):
        return self
    check_no_internal_overlap(self)
    if not self._dtype.is_floating_point:
        raise RuntimeError(_CONTINUOUS.format("Exponential", "", SCALAR_TYPE_NAMES[self._dtype.name]))
    rate = float(lambd)
    return _write(self, generator, lambda rng, shape: rng.standard_exponential(shape) / rate)


@impl("geometric_", "CPU", "Meta")
def geometric_(self: Tensor, p: float, *, generator: Any = None) -> Tensor:
    """The number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
    bad_dtype = self._dtype.is_complex or self._dtype.name == "bool"
    if _is_meta(self):
        if bad_dtype:
            raise RuntimeError(f"geometric not implemented for {self._dtype!r}")
        if not 0 < p < 1:
            raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={float(p)}")
        return self
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_cpp(p)}")
    if _empty(self):
        return self
    check_no_internal_overlap(self)
    if bad_dtype:
        raise _not_implemented("geometric_cpu", self._dtype)
    prob = float(p)
    return _write(self, generator, lambda rng, shape: rng.geometric(prob, size=shape))


@impl("cauchy_", "CPU", "Meta")
def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Tensor:
    """Cauchy(median, sigma) draws."""
    if _is_meta(self):
        _meta_check_float(self, "Cauchy")
        if not sigma > 0.0:
            raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={float(sigma)}")
        return self
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_cpp(sigma)}")
    if not self._dtype.is_floating_point:
        raise RuntimeError(_CONTINUOUS.format("Cauchy", "", _TYPE_META[self._dtype.name]))
    if _empty(self):
        return self
    check_no_internal_overlap(self)
    m, s = float(median), float(sigma)
    return _write(self, generator, lambda rng, shape: m + s * rng.standard_cauchy(shape))


@impl("log_normal_", "CPU", "Meta")
def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Tensor:
    """``exp(N(mean, std))`` draws."""
    if _is_meta(self):
        if not self._dtype.is_floating_point:
            raise RuntimeError(f"log_normal not implemented for {self._dtype!r}")
        if not 0 < std:
            raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={float(std)}")
        return self
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_cpp(std)}")
    if _empty(self):
        return self
    check_no_internal_overlap(self)
    if not self._dtype.is_floating_point:
        raise _not_implemented("log_normal_cpu", self._dtype)
    m, s = float(mean), float(std)
    return _write(self, generator, lambda rng, shape: np.exp(m + s * rng.standard_normal(shape)))
