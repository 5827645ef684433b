"""Random ops: randn / rand / randn_like / rand_like, bernoulli, ``Tensor.uniform_`` / ``normal_``, and
``manual_seed``: torch-level functions and Tensor methods (``randint`` and ``Tensor.random_`` / ``exponential_`` /
``geometric_`` / ``cauchy_`` / ``log_normal_``: random_inplace.py).

Corresponds to the python_torch_functions.cpp / python_variable_methods.cpp bindings of these ops and to
torch/random.py's ``manual_seed`` (the generator itself is ``dispatcher/random.py``). The factories are made
by ``factories.py``'s makers; ``generator=`` is passed only when given, and trailing arguments equal to their
defaults are left out.
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import _check_tensor, _no_out, _size_args
from .autograd_methods import _factory_requires_grad
from .factories import _factory_kwargs, _like_factory, _like_kwargs, _sized_factory
from .random_inplace import install as _install_inplace_samplers
from .random_inplace import randint

aten = namespace("aten")

__all__ = ["randn", "rand", "rand_like", "randn_like", "bernoulli", "manual_seed", "randint", "randint_like",
           "randperm", "multinomial"]

_randn_plain = _sized_factory("randn")
_rand_plain = _sized_factory("rand")


def _with_generator(name: str, plain: Any) -> Any:
    def factory(*size: Any, generator: Any = None, dtype: Any = None, device: Any = None, requires_grad: bool = False,
                out: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:
        if generator is None:
            return plain(*size, dtype=dtype, device=device, requires_grad=requires_grad, out=out)
        _no_out(out, name)
        result = getattr(aten, name).generator(_size_args(size, name), generator=generator,
                                               **_factory_kwargs(dtype, device))
        return _factory_requires_grad(result) if requires_grad else result

    factory.__name__ = name
    factory.__doc__ = f"``torch.{name}(*size, generator=None, ...)``: ``aten.{name}.default``, or ``.generator``."
    return factory


randn = _with_generator("randn", _randn_plain)
rand = _with_generator("rand", _rand_plain)
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


def randint_like(input: Tensor, low: Any, high: Any = None, *, dtype: Any = None, device: Any = None,  # noqa: A002
                 requires_grad: bool = False, layout: Any = None, pin_memory: bool = False,
                 memory_format: Any = None) -> Tensor:
    """``torch.randint_like(input, high)`` / ``(input, low, high)``."""
    kw = _like_kwargs(dtype, device)
    if memory_format is not None:
        kw["memory_format"] = memory_format
    if high is None:
        result = aten.randint_like.default(input, int(low), **kw)
    else:
        result = aten.randint_like.low_dtype(input, int(low), int(high), **kw)
    return _factory_requires_grad(result) if requires_grad else result


def randperm(n: Any, *, generator: Any = None, dtype: Any = None, device: Any = None, requires_grad: bool = False,
             out: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """``torch.randperm(n)``: a random permutation of ``0 .. n-1`` (int64 unless ``dtype=``)."""
    _no_out(out, "randperm")
    kw = _factory_kwargs(dtype, device)
    if generator is None:
        result = aten.randperm.default(int(n), **kw)
    else:
        result = aten.randperm.generator(int(n), generator=generator, **kw)
    return _factory_requires_grad(result) if requires_grad else result


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator: Any = None,  # noqa: A002
                out: Any = None) -> Tensor:
    """``torch.multinomial`` / ``Tensor.multinomial``: category indices drawn with the weights of each row."""
    _no_out(out, "multinomial")
    _check_tensor("multinomial", input)
    args: list[Any] = [input, int(num_samples)]
    if replacement or generator is not None:
        args.append(bool(replacement))
    kw = {} if generator is None else {"generator": generator}
    return aten.multinomial.default(*args, **kw)


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """``Tensor.bernoulli_(p)``: ``p`` a number (``bernoulli_.float``) or a tensor of probabilities (``.Tensor``)."""
    kw = {} if generator is None else {"generator": generator}
    if isinstance(p, Tensor):
        return aten.bernoulli_.Tensor(self, p, **kw)
    p = float(p)
    return aten.bernoulli_.float(self, *([p] if p != 0.5 else []), **kw)


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach ``Tensor.bernoulli`` / ``bernoulli_`` / ``multinomial`` / ``uniform_`` / ``normal_`` (called by
    ``tensor_methods.install``)."""
    T.bernoulli = bernoulli
    T.bernoulli_ = bernoulli_
    T.multinomial = multinomial
    T.uniform_ = uniform_
    T.normal_ = normal_
    _install_inplace_samplers(T)  # random_ / exponential_ / geometric_ / cauchy_ / log_normal_ (random_inplace.py)
