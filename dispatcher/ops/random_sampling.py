"""Random sampling kernels: ``randint`` (four overloads) / ``randint_like``, ``randperm``, the ``generator=`` overloads
of ``rand`` / ``randn``, ``multinomial`` and ``bernoulli_.Tensor``.

Corresponds to aten/src/ATen/native/TensorFactories.cpp (randint, randperm, rand / randn with a generator),
Distributions.cpp (multinomial, bernoulli_) and the CPU sampling kernels. The factories are CompositeExplicitAutograd
with BackendSelect kernels, as in PyTorch; ``multinomial`` and ``bernoulli_.Tensor`` have CPU and Meta kernels.
Numbers come from the dispatcher's generators (dispatcher/random.py), not PyTorch's mt19937 streams; the algorithms
follow PyTorch's: ``multinomial`` without replacement takes the top ``num_samples`` of ``p / q`` with ``q ~ Exp(1)``
(the exponential form of the Gumbel trick), with replacement it inverts the cumulative distribution of uniform
draws. Checks and messages are PyTorch's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor, contiguous_strides
from .backend_select import register_backend_select
from .factories import SCALAR_TYPE_NAMES, _empty, _like, _not_implemented, check_size_nonnegative, factory_dtype
from .kernel_registry import impl
from .random import _check_random_dtype, _generator, _random_fill

aten = namespace("aten")

# --- randint / randint_like ---------------------------------------------------------------------------------------


def _fill_integers(out: Tensor, low: int, high: int, generator: Any) -> Tensor:
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if out._data is None or out._data.size == 0:
        return out
    shape = out._shape
    draws = _generator(generator).draw(lambda rng: rng.integers(low, high, size=shape, dtype=np.int64))
    out._data[...] = draws.astype(out._dtype.np_dtype)
    return out


def _randint(low: int, high: int, size: Any, generator: Any, dtype: Any, device: Any) -> Tensor:
    out = _empty(check_size_nonnegative(size), factory_dtype(dtype, _dt.int64), device)
    return _fill_integers(out, int(low), int(high), generator)


@impl("randint", "CompositeExplicitAutograd")
def randint(high, size, *, dtype=4, layout=None, device=None, pin_memory=None) -> Tensor:
    return _randint(0, high, size, None, dtype, device)


@impl("randint.generator", "CompositeExplicitAutograd")
def randint_generator(high, size, *, generator, dtype=4, layout=None, device=None, pin_memory=None) -> Tensor:
    return _randint(0, high, size, generator, dtype, device)


@impl("randint.low", "CompositeExplicitAutograd")
def randint_low(low, high, size, *, dtype=4, layout=None, device=None, pin_memory=None) -> Tensor:
    return _randint(low, high, size, None, dtype, device)


@impl("randint.low_generator", "CompositeExplicitAutograd")
def randint_low_generator(low, high, size, *, generator, dtype=4, layout=None, device=None,
                          pin_memory=None) -> Tensor:
    return _randint(low, high, size, generator, dtype, device)


@impl("randint_like", "CompositeExplicitAutograd")
def randint_like(self, high, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None) -> Tensor:
    return _fill_integers(_like(self, dtype, device, memory_format), 0, int(high), None)


@impl("randint_like.low_dtype", "CompositeExplicitAutograd")
def randint_like_low_dtype(self, low, high, *, dtype=None, layout=None, device=None, pin_memory=None,
                           memory_format=None) -> Tensor:
    return _fill_integers(_like(self, dtype, device, memory_format), int(low), int(high), None)


# --- randperm -------------------------------------------------------------------------------------------------------


def _randperm(n: int, generator: Any, dtype: Any, device: Any) -> Tensor:
    out = _empty(check_size_nonnegative([n]), factory_dtype(dtype, _dt.int64), device)
    if out._dtype is _dt.bool or out._dtype.is_complex:
        raise _not_implemented("randperm", out._dtype)
    if out._data is not None and n:
        out._data[...] = _generator(generator).draw(lambda rng: rng.permutation(n)).astype(out._dtype.np_dtype)
    return out


@impl("randperm", "CompositeExplicitAutograd")
def randperm(n, *, dtype=4, layout=None, device=None, pin_memory=None) -> Tensor:
    return _randperm(int(n), None, dtype, device)


@impl("randperm.generator", "CompositeExplicitAutograd")
def randperm_generator(n, *, generator, dtype=4, layout=None, device=None, pin_memory=None) -> Tensor:
    return _randperm(int(n), generator, dtype, device)


# --- rand / randn with a generator ------------------------------------------------------------------------------


@impl("randn.generator", "CompositeExplicitAutograd")
def randn_generator(size, *, generator, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    out = _empty(check_size_nonnegative(size), factory_dtype(dtype), device)
    _check_random_dtype("normal", out)
    return _random_fill(out, "normal", generator)


@impl("rand.generator", "CompositeExplicitAutograd")
def rand_generator(size, *, generator, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    out = _empty(check_size_nonnegative(size), factory_dtype(dtype), device)
    _check_random_dtype("uniform", out)
    return _random_fill(out, "uniform", generator)


register_backend_select("randint", "randint.generator", "randint.low", "randint.low_generator", "randperm",
                        "randperm.generator", "randn.generator", "rand.generator")

# --- multinomial ------------------------------------------------------------------------------------------------------

_FLOAT32_MAX_CONSECUTIVE_INT = 2 ** 24


@impl("multinomial", "CPU", "Meta")
def multinomial(self: Tensor, num_samples: int, replacement: bool = False, *, generator: Any = None) -> Tensor:
    """``num_samples`` category indices per row of the (unnormalized) probabilities ``self``."""
    if self._dtype.is_complex or not self._dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{SCALAR_TYPE_NAMES[self._dtype.name]}")
    if not 0 < len(self._shape) <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    n = int(num_samples)
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_categories = self._shape[-1]
    if not replacement and n > n_categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if n_categories > _FLOAT32_MAX_CONSECUTIVE_INT:
        raise RuntimeError("number of categories cannot exceed 2^24")
    shape = (n,) if len(self._shape) == 1 else (self._shape[0], n)
    out = Tensor._empty(shape, _dt.int64, self._device, contiguous_strides(shape))
    if self._device.type == "meta" or out.numel() == 0 or self.numel() == 0:
        return out
    p = np.asarray(self._data, dtype=np.float64).reshape(-1, n_categories)
    if not replacement or n == 1:
        if not (np.all(p < np.inf) and np.all(p >= 0)):  # NaN fails both (as PyTorch's max() / min() test)
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if np.any(p.sum(axis=1) == 0):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")

        def draw(rng: np.random.Generator) -> np.ndarray:
            q = rng.exponential(1.0, size=p.shape)
            return np.argsort(-(p / q), axis=1, kind="stable")[:, :n]
    else:
        if np.any(p < 0):
            raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
        if not np.all(np.isfinite(p)):
            raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
        sums = p.sum(axis=1)
        if np.any(sums <= 0):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        cdf = np.cumsum(p / sums[:, None], axis=1)

        def draw(rng: np.random.Generator) -> np.ndarray:
            u = rng.random((p.shape[0], n))
            idx = np.stack([np.searchsorted(cdf[r], u[r], side="right") for r in range(p.shape[0])])
            return np.minimum(idx, n_categories - 1)

    out._data[...] = _generator(generator).draw(draw).reshape(shape)
    return out


# --- bernoulli_ with a tensor of probabilities -------------------------------------------------------------------


@impl("bernoulli_.Tensor", "CPU", "Meta")
def bernoulli__tensor(self: Tensor, p: Tensor, *, generator: Any = None) -> Tensor:
    """Fill ``self`` with 0 / 1 draws, element ``i`` one with probability ``p[i]`` (``p`` broadcast to ``self``)."""
    if self._device.type == "meta" or self._data is None or self._data.size == 0:
        return self
    # bernoulli_impl_: p expanded in place to self's shape (expand's errors), then the dtype switch over p
    p = aten.expand.default(p, list(self._shape))
    if p._dtype.name not in ("float32", "float64", "float16", "bfloat16"):
        raise _not_implemented("bernoulli_tensor_cpu_p_", p._dtype)
    probs = np.asarray(p._data, dtype=np.float64)
    if probs.size and not ((probs >= 0) & (probs <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    shape = self._shape
    draws = _generator(generator).draw(lambda rng: rng.random(shape))
    self._data[...] = (draws < probs).astype(self._dtype.np_dtype)
    return self
