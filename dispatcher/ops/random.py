"""Random kernels: ``rand`` / ``randn`` (and ``*_like``), ``uniform_``, ``normal_``, ``bernoulli`` / ``bernoulli.p`` /
``bernoulli_.float``.

Corresponds to aten/src/ATen/native/Distributions.cpp and TensorFactories.cpp. Numbers come from the dispatcher's
generators (dispatcher/random.py): a ``manual_seed`` makes them reproducible here, but they are not PyTorch's
streams. The checks and their messages are PyTorch's: ``from <= to`` and finite bounds for ``uniform_``,
``std >= 0`` for ``normal_``, probabilities in ``[0, 1]``, floating-point dtypes on CPU (meta tensors skip the
dtype checks ``uniform_`` / ``bernoulli`` leave to their CPU kernels). ``bernoulli`` fills a new contiguous tensor
of ``self``'s dtype with draws whose probabilities are ``self``'s values.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import random as _random
from ..tensor import Tensor, contiguous_strides
from .backend_select import register_backend_select
from .factories import _empty, _like, _not_implemented, check_size_nonnegative, factory_dtype
from .kernel_registry import impl

# --- random ---------------------------------------------------------------------------------------


def _generator(generator: Any) -> _random.Generator:
    return _random.default_generator() if generator is None else generator


def _random_fill(out: Tensor, kind: str, generator: Any = None) -> Tensor:
    if out._data is None or out._data.size == 0:
        return out
    shape = out._shape
    if out._dtype.is_complex:  # both parts drawn, as torch draws into view_as_real(out); randn: variance 1/2 each
        shape = tuple(shape) + (2,)

    def draw(rng: np.random.Generator) -> np.ndarray:
        return rng.standard_normal(shape) if kind == "normal" else rng.random(shape)

    values = _generator(generator).draw(draw)
    if out._dtype.is_complex:
        values = _pairs_to_complex(values, 1 / math.sqrt(2) if kind == "normal" else 1.0)
    out._data[...] = values.astype(out._dtype.np_dtype)
    return out


def _pairs_to_complex(pairs: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """(..., 2) real draws as complex numbers (torch fills a complex tensor through its real view)."""
    if scale != 1.0:
        pairs = pairs * scale
    return pairs[..., 0] + 1j * pairs[..., 1]


def _check_random_dtype(kind: str, out: Tensor) -> None:
    """PyTorch's dtype checks for normal_ / uniform_ (they differ between the CPU kernels and the meta ones)."""
    dt = out._dtype
    if dt.is_floating_point or dt.is_complex:
        return
    if out._device.type == "meta":
        if kind == "normal":
            raise RuntimeError(f"expected a floating-point or complex dtype, but got dtype={dt!r}")
        return
    if kind == "uniform":
        raise _not_implemented("check_uniform_bounds", dt)
    if out.numel():
        raise _not_implemented("normal_kernel_cpu", dt)


def _fmt_p(p: float) -> str:
    return str(int(p)) if float(p).is_integer() else repr(float(p))


@impl("randn", "CompositeExplicitAutograd")
def randn(size, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    out = _empty(check_size_nonnegative(size), factory_dtype(dtype), device)
    _check_random_dtype("normal", out)
    return _random_fill(out, "normal")


@impl("rand", "CompositeExplicitAutograd")
def rand(size, *, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    out = _empty(check_size_nonnegative(size), factory_dtype(dtype), device)
    _check_random_dtype("uniform", out)
    return _random_fill(out, "uniform")


register_backend_select("randn", "rand")


@impl("rand_like", "CompositeExplicitAutograd")
def rand_like(self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None) -> Tensor:
    out = _like(self, dtype, device, memory_format)
    _check_random_dtype("uniform", out)
    return _random_fill(out, "uniform")


@impl("randn_like", "CompositeExplicitAutograd")
def randn_like(self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None) -> Tensor:
    out = _like(self, dtype, device, memory_format)
    _check_random_dtype("normal", out)
    return _random_fill(out, "normal")


@impl("bernoulli_.float", "CPU", "Meta")
def bernoulli__float(self: Tensor, p: float = 0.5, *, generator: Any = None) -> Tensor:
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt_p(p)}")
    data = self._data
    if data is None or data.size == 0:
        return self
    shape = self._shape
    draws = _generator(generator).draw(lambda rng: rng.random(shape))
    data[...] = (draws < p).astype(self._dtype.np_dtype)
    return self


# --- uniform_ / normal_ / bernoulli --------------------------------------------------------------------


_FLOAT_LIMITS = {"float16": 65504.0, "float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}
_FLOAT_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double"}


def _fill(self: Tensor, generator: Any, draw: Any) -> Tensor:
    """``self``'s elements set to ``draw(numpy_rng, shape)`` (nothing to do on meta or when empty)."""
    data = self._data
    if data is None or data.size == 0:
        return self
    shape = self._shape
    if self._dtype.is_complex:  # drawn through the real view (torch: uniform_ / normal_ of view_as_real(self))
        pairs = np.asarray(_generator(generator).draw(lambda rng: draw(rng, tuple(shape) + (2,))))
        data[...] = _pairs_to_complex(pairs).astype(self._dtype.np_dtype)
        return self
    data[...] = np.asarray(_generator(generator).draw(lambda rng: draw(rng, shape))).astype(self._dtype.np_dtype)
    return self


@impl("uniform_", "CPU", "Meta")
def uniform_(self: Tensor, *args: Any, generator: Any = None, **kwargs: Any) -> Tensor:
    low = kwargs.pop("from", args[0] if args else 0.0)
    high = kwargs.pop("to", args[1] if len(args) > 1 else 1.0)
    _check_random_dtype("uniform", self)
    if self._dtype.is_floating_point:
        name = self._dtype.name
        limit = _FLOAT_LIMITS.get(name, math.inf)
        for label, v in (("from", low), ("to", high)):
            if not -limit <= v <= limit:
                raise RuntimeError(f"{label} is out of bounds for {_FLOAT_NAMES.get(name, name)}")
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_num(low)} > "
                           f"to={_num(high)}")
    return _fill(self, generator, lambda rng, shape: rng.uniform(low, high, shape))


@impl("normal_", "CPU", "Meta")
def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    _check_random_dtype("normal", self)
    if self._dtype.is_complex:  # torch: normal_(view_as_real(self), mean, std / sqrt(2))
        std = std / math.sqrt(2)
    return _fill(self, generator, lambda rng, shape: rng.normal(mean, std, shape))


def _num(v: float) -> str:
    return _fmt_p(v)


def _bernoulli_out(self: Tensor) -> Tensor:
    """``empty_like(self)`` as PyTorch's bernoulli makes it: contiguous, self's dtype and device."""
    return Tensor._empty(self._shape, self._dtype, self._device, contiguous_strides(self._shape))


@impl("bernoulli", "CompositeExplicitAutograd", "Meta")
def bernoulli(self: Tensor, *, generator: Any = None) -> Tensor:
    out = _bernoulli_out(self)
    if self._device.type == "meta":
        return out
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise _not_implemented("bernoulli_tensor_cpu_p_", self._dtype)
    p = np.asarray(self._data, dtype=np.float64)
    if p.size and not ((p >= 0) & (p <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    return _fill(out, generator, lambda rng, shape: rng.random(shape) < p)


@impl("bernoulli.p", "CPU", "Meta", "CompositeExplicitAutogradNonFunctional")
def bernoulli_p(self: Tensor, p: float, *, generator: Any = None) -> Tensor:
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt_p(p)}")
    out = _bernoulli_out(self)
    return _fill(out, generator, lambda rng, shape: rng.random(shape) < p)
