"""Random ops: randn / rand / randn_like / rand_like, bernoulli, ``Tensor.uniform_`` / ``normal_``, and
``manual_seed``: torch-level functions and Tensor methods.

Corresponds to the python_torch_functions.cpp / python_variable_methods.cpp bindings of these ops and to
torch/random.py's ``manual_seed`` (the generator itself is ``dispatcher/random.py``). The factories are made
by ``factories.py``'s makers; ``generator=`` is passed only when given, and trailing arguments equal to their
defaults are left out.
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import _check_tensor, _no_out
from .factories import _like_factory, _sized_factory

aten = namespace("aten")

__all__ = ["randn", "rand", "rand_like", "randn_like", "bernoulli", "manual_seed"]

randn = _sized_factory("randn")
rand = _sized_factory("rand")
rand_like = _like_factory("rand_like")
randn_like = _like_factory("randn_like")


def manual_seed(seed: int) -> Any:
    """Seed the default generator (``dispatcher.random``)."""
    from .. import random as _random

    return _random.manual_seed(seed)


def bernoulli(input: Tensor, p: Any = None, *, generator: Any = None, out: Any = None) -> Tensor:  # noqa: A002
    """``torch.bernoulli`` / ``Tensor.bernoulli``: 0 / 1 draws with probabilities ``input`` (or the number ``p``)."""
    _no_out(out, "bernoulli")
    _check_tensor("bernoulli", input)
    kw = {} if generator is None else {"generator": generator}
    if p is None:
        return aten.bernoulli.default(input, **kw)
    return aten.bernoulli.p(input, float(p), **kw)


def uniform_(self: Tensor, *args: Any, generator: Any = None, **kwargs: Any) -> Tensor:
    """``Tensor.uniform_(from=0, to=1)``: fill ``self`` with draws from [from, to)."""
    low = kwargs.pop("from", args[0] if args else 0.0)
    high = kwargs.pop("to", args[1] if len(args) > 1 else 1.0)
    if kwargs or len(args) > 2:
        raise TypeError("uniform_() received an invalid combination of arguments")
    low, high = float(low), float(high)  # (the schema's floats, as the binding converts them)
    trailing = [low, high] if high != 1 else ([low] if low != 0 else [])
    kw = {} if generator is None else {"generator": generator}
    return aten.uniform_.default(self, *trailing, **kw)


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    """``Tensor.normal_(mean=0, std=1)``: fill ``self`` with normal draws."""
    mean, std = float(mean), float(std)
    trailing = [mean, std] if std != 1 else ([mean] if mean != 0 else [])
    kw = {} if generator is None else {"generator": generator}
    return aten.normal_.default(self, *trailing, **kw)


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """``Tensor.bernoulli_``: ``bernoulli_.float`` (p left out at its default 0.5, as torch's binding does;
    ``bernoulli_.Tensor``, for a Tensor p, is not in the op listing: a 0-dim one is read as its number)."""
    if isinstance(p, Tensor) and p.dim() == 0:
        p = p.item()
    if isinstance(p, Tensor):
        raise NotImplementedError("Tensor.bernoulli_ with a Tensor p (aten.bernoulli_.Tensor) is not in "
                                  "dispatchkit's op listing")
    kw = {} if generator is None else {"generator": generator}
    return aten.bernoulli_.float(self, **kw) if p == 0.5 else aten.bernoulli_.float(self, p, **kw)


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach ``Tensor.bernoulli`` / ``bernoulli_`` / ``uniform_`` / ``normal_`` (called by
    ``tensor_methods.install``)."""
    T.bernoulli = bernoulli
    T.bernoulli_ = bernoulli_
    T.uniform_ = uniform_
    T.normal_ = normal_
