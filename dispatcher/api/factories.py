"""Factories: empty / zeros / ones / full / arange / scalar_tensor / eye / empty_permuted, the ``*_like``
functions and the ``Tensor.new_*`` methods (``new_tensor`` included).

Corresponds to the python_torch_functions.cpp / python_variable_methods.cpp bindings of these ops. As
PyTorch's parser does, factories pass ``device=`` (cpu by default) and ``pin_memory=False``, and ``dtype=``
only when given; ``*_like`` and ``new_*`` pass dtype and device only when given. A size may be given as
``f(2, 3)``, ``f((2, 3))`` or ``f([2, 3])``. ``requires_grad=True`` is set on the result afterwards. The
random factories (``randn``, ``rand_like`` ...) are made by the same makers in ``random.py``.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from ..op_overload import namespace
from ..tensor import Tensor, as_device
from .arguments import _no_out, _size_args
from .autograd_methods import _factory_requires_grad

aten = namespace("aten")

__all__ = ["empty_strided", "empty", "zeros", "ones", "full", "arange", "scalar_tensor", "eye", "empty_like", "zeros_like", "ones_like",
           "full_like", "empty_permuted",
           "_efficientzerotensor", "_is_zerotensor"]


def _factory_kwargs(dtype: Any, device: Any) -> dict[str, Any]:
    kw: dict[str, Any] = {}
    if dtype is not None:
        kw["dtype"] = _dt.from_code(dtype)
    kw["device"] = as_device(device)
    kw["pin_memory"] = False
    return kw


def _like_kwargs(dtype: Any, device: Any) -> dict[str, Any]:
    """Keyword arguments PyTorch's binding passes to ``new_*`` / ``*_like`` ops: dtype and device when given, pin_memory."""
    kw: dict[str, Any] = {}
    if dtype is not None:
        kw["dtype"] = _dt.from_code(dtype)
    if device is not None:
        kw["device"] = as_device(device)
    kw["pin_memory"] = False
    return kw


def _finish(result: Tensor, requires_grad: bool) -> Tensor:
    return _factory_requires_grad(result) if requires_grad else result


def empty(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, out: Any = None,
          layout: Any = None, pin_memory: bool = False, memory_format: Any = None) -> Tensor:
    _no_out(out, "empty")
    kw = _factory_kwargs(dtype, device)
    if memory_format is not None:
        kw["memory_format"] = memory_format
    return _finish(aten.empty.memory_format(_size_args(size, "empty"), **kw), requires_grad)


def empty_strided(size: Any, stride: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                  pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """``torch.empty_strided``: ``aten.empty_strided`` (device and pin_memory passed, as for ``empty``)."""
    return _finish(aten.empty_strided.default(list(size), list(stride), **_factory_kwargs(dtype, device)),
                   requires_grad)


def _sized_factory(name: str) -> Any:
    def factory(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, out: Any = None,
                layout: Any = None, pin_memory: bool = False) -> Tensor:
        _no_out(out, name)
        op = getattr(aten, name).default
        return _finish(op(_size_args(size, name), **_factory_kwargs(dtype, device)), requires_grad)

    factory.__name__ = name
    factory.__doc__ = f"``aten.{name}.default(size, ...)``: a new tensor of the given size."
    return factory


zeros = _sized_factory("zeros")
_efficientzerotensor = _sized_factory("_efficientzerotensor")  # a zero tensor (dispatcher/zero_tensor.py)


def _is_zerotensor(input: Tensor) -> bool:  # noqa: A002
    """``torch._is_zerotensor`` / ``Tensor._is_zerotensor``: ``aten._is_zerotensor``."""
    return aten._is_zerotensor.default(input)
ones = _sized_factory("ones")


def full(size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
         out: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:
    _no_out(out, "full")
    return _finish(aten.full.default(_size_args((size,), "full"), fill_value, **_factory_kwargs(dtype, device)),
                   requires_grad)


def arange(start: Any, end: Any = None, step: Any = None, *, dtype: Any = None, device: Any = None,
           requires_grad: bool = False, out: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:
    _no_out(out, "arange")
    kw = _factory_kwargs(dtype, device)
    if end is None and step is None:
        result = aten.arange.default(start, **kw)
    elif step is None:
        result = aten.arange.start(start, end, **kw)
    else:
        result = aten.arange.start_step(start, end, step, **kw)
    return _finish(result, requires_grad)


def scalar_tensor(s: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
                  layout: Any = None, pin_memory: bool = False) -> Tensor:
    return _finish(aten.scalar_tensor.default(s, **_factory_kwargs(dtype, device)), requires_grad)


def eye(n: int, m: int | None = None, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
        out: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:
    _no_out(out, "eye")
    kw = _factory_kwargs(dtype, device)
    result = aten.eye.default(n, **kw) if m is None else aten.eye.m(n, m, **kw)
    return _finish(result, requires_grad)


def empty_permuted(size: Any, physical_layout: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                   requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Uninitialized, shaped ``size``, with dims laid out in memory in ``physical_layout`` order."""
    return _finish(aten.empty_permuted.default(list(size), list(physical_layout), **_factory_kwargs(dtype, device)),
                   requires_grad)


def _like_factory(name: str) -> Any:
    def factory(input: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,  # noqa: A002
                layout: Any = None, pin_memory: bool = False, memory_format: Any = None) -> Tensor:
        op = getattr(aten, name).default
        kw = _like_kwargs(dtype, device)
        if memory_format is not None:
            kw["memory_format"] = memory_format
        return _finish(op(input, **kw), requires_grad)

    factory.__name__ = name
    return factory


empty_like = _like_factory("empty_like")
zeros_like = _like_factory("zeros_like")
ones_like = _like_factory("ones_like")


def full_like(input: Tensor, fill_value: Any, *, dtype: Any = None, device: Any = None,  # noqa: A002
              requires_grad: bool = False, layout: Any = None, pin_memory: bool = False,
              memory_format: Any = None) -> Tensor:
    return _finish(aten.full_like.default(input, fill_value, **_like_kwargs(dtype, device)), requires_grad)


# --- factories on a tensor (new_*) ------------------------------------------------------------------------------------
def _new(name: str) -> Any:
    def method(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
        result = getattr(aten, name).default(self, _size_args(size, name), **_like_kwargs(dtype, device))
        return _factory_requires_grad(result) if requires_grad else result

    method.__name__ = name
    return method


def new_full(self: Tensor, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    result = aten.new_full.default(self, _size_args((size,), "new_full"), fill_value, **_like_kwargs(dtype, device))
    return _factory_requires_grad(result) if requires_grad else result


def new_empty_strided(self: Tensor, size: Any, stride: Any, *, dtype: Any = None, device: Any = None,
                      requires_grad: bool = False) -> Tensor:
    """``Tensor.new_empty_strided``: ``aten.new_empty_strided`` (self's dtype and device unless given)."""
    result = aten.new_empty_strided.default(self, list(size), list(stride), **_like_kwargs(dtype, device))
    return _factory_requires_grad(result) if requires_grad else result


def new_tensor(self: Tensor, data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """``Tensor.new_tensor``: ``torch.tensor(data)`` with self's dtype and device unless given."""
    import warnings

    from .from_data import internal_new_from_data

    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
            stacklevel=2,
        )
    t = internal_new_from_data(data, self._dtype if dtype is None else dtype,
                               self._device if device is None else device)
    t = aten.detach_.default(t)
    if requires_grad:
        _factory_requires_grad(t)
    return t


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach the ``Tensor.new_*`` methods (called by ``tensor_methods.install``)."""
    T.new_zeros = _new("new_zeros")
    T.new_ones = _new("new_ones")
    T.new_empty = _new("new_empty")
    T.new_full = new_full
    T.new_empty_strided = new_empty_strided
    T.new_tensor = new_tensor
    T._is_zerotensor = _is_zerotensor
