"""Kernels of the ops_c batch of random ops: ``uniform_``, ``normal_``, ``bernoulli`` / ``bernoulli.p``.

Corresponds to Distributions.cpp of PyTorch 2.13. Numbers come from the dispatcher's generators
(dispatcher/random.py): a ``manual_seed`` makes them reproducible here, but they are not PyTorch's
streams. The checks and their messages are PyTorch's: ``from <= to`` and finite bounds for ``uniform_``,
``std >= 0`` for ``normal_``, probabilities in ``[0, 1]``, floating-point dtypes on CPU (meta tensors
skip the dtype checks ``uniform_`` / ``bernoulli`` leave to their CPU kernels). ``bernoulli`` fills a new
contiguous tensor of ``self``'s dtype with draws whose probabilities are ``self``'s values.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..tensor import Tensor, contiguous_strides
from .factories import _check_random_dtype, _fmt_p, _generator, _not_implemented
from .kernel_registry import impl

_FLOAT_LIMITS = {"float16": 65504.0, "float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}
_FLOAT_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double"}


def _fill(self: Tensor, generator: Any, draw: Any) -> Tensor:
    """``self``'s elements set to ``draw(numpy_rng, shape)`` (nothing to do on meta or when empty)."""
    data = self._data
    if data is None or data.size == 0:
        return self
    shape = self._shape
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
