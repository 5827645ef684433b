"""``FakeTensor``: a tensor with metadata and no data, which reports the device it stands in for.

Corresponds to the ``FakeTensor`` class of torch/_subclasses/fake_tensor.py. A FakeTensor *is* a meta
tensor (shape, strides, storage offset, dtype, version counter, no storage: ``_data is None``) whose
class is ``FakeTensor`` and whose key set is its *fake device's* (``CPU, ADInplaceOrView, AutogradCPU,
AutocastCPU``) plus ``Python`` and ``PythonTLSSnapshot``, as in torch (SEMANTICS.md §7.2). So autograd
runs on it as on a CPU tensor, and every op reaches the Python key, where its ``FakeTensorMode`` computes
the result with Meta kernels (fake_mode.py).

``t.device`` (and the ``_device`` field kernels read) is the fake device (``cpu``), except while its
mode runs a kernel (``fake_mode.in_kernel_invocation``): kernels then see ``meta`` and allocate meta
outputs, which the mode turns into FakeTensors. ``t.fake_mode`` is the mode it belongs to; ``t.constant``
is a real copy of its value for the small tensors made by ``dispatcher.tensor(3.0)`` under the mode
(constant propagation: ``.item()`` of such a tensor works).

NB: torch builds a FakeTensor with ``_make_subclass(cls, meta_tensor, dispatch_device=True)`` and its C++
``device()`` calls back into Python (a ``prim.device`` op that dispatch modes see). Here the FakeTensor takes
over the meta output's fields (``make_fake``): views keep their ``_base`` and version counter, which autograd's
view handling needs, and ``device`` is a plain Python property, so no ``prim.device`` calls appear.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..math_bits import VIEW_BITS
from ..modes.function_mode import _disabled_torch_function_impl
from ..tensor import _KEY_SETS, Tensor, _VersionCounter, as_device, device
from ..tensor_repr import _tensor_str, tensor_repr
from ..tls import PYTHON_MODE_KEYS_RAW

_CPU = device("cpu")
_META = device("meta")
#: the key set of a FakeTensor, by fake device type
FAKE_KEY_SETS = {name: ks | PYTHON_MODE_KEYS_RAW for name, ks in _KEY_SETS.items()}
_FAKE_CPU_KEYS = FAKE_KEY_SETS["cpu"]
#: ``Tensor._device``'s slot, which holds ``meta`` for a FakeTensor (the property below answers the fake device)
_DEVICE_SLOT = Tensor.__dict__["_device"]


def _get_device(self: FakeTensor) -> device:
    if self.fake_mode.in_kernel_invocation:
        return _META
    return self._fake_device


def _set_device(self: FakeTensor, value: device) -> None:
    _DEVICE_SLOT.__set__(self, value)


class FakeTensor(Tensor):
    """A tensor of a ``FakeTensorMode``: metadata only, reporting ``fake_device`` (see the module docstring).

    ``FakeTensor(fake_mode, elem, device, constant=None)`` makes one from a meta tensor ``elem`` (a new
    tensor with ``elem``'s metadata); the usual ways are ``mode.from_tensor(real)`` and running ops under
    the mode.
    """

    #: the device this tensor stands in for (an instance overrides it when it is not cpu)
    _fake_device: device = _CPU
    #: a real tensor holding the value, for small tensors whose value is known (constant propagation)
    constant: Tensor | None = None
    fake_mode: Any
    __torch_function__ = _disabled_torch_function_impl  # as torch's FakeTensor: no __torch_function__

    _device = property(_get_device, _set_device)

    def __new__(cls, fake_mode: Any, elem: Tensor, device: Any, constant: Tensor | None = None) -> FakeTensor:
        if elem._data is not None or _DEVICE_SLOT.__get__(elem) != _META:
            raise AssertionError(f"elem.device.type must be 'meta', got {elem.device.type}")
        meta = Tensor._from_storage(None, elem._shape, elem._stride, elem._storage_offset, elem._dtype, _META)
        out = make_fake(meta, fake_mode, as_device(device))
        if constant is not None:
            out.constant = constant
        return out

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    @property
    def fake_device(self) -> device:
        return self._fake_device

    @staticmethod
    def from_tensor(t: Tensor, fake_mode: Any) -> FakeTensor:
        return fake_mode.from_tensor(t)

    @classmethod
    def __torch_dispatch__(cls, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        """Reached without an active FakeTensorMode: enter the mode of the first FakeTensor argument, call again."""
        from ..modes.dispatch_mode import TorchDispatchModeKey, _get_dispatch_mode

        if any(not issubclass(t, FakeTensor) and t is not Tensor for t in types):
            return NotImplemented
        fake_mode = next((a.fake_mode for a in _tensor_leaves(args, kwargs) if isinstance(a, FakeTensor)), None)
        if fake_mode is None:
            raise AssertionError("Could not find a FakeTensor in the arguments")
        if _get_dispatch_mode(TorchDispatchModeKey.FAKE) is not None:
            return NotImplemented  # a fake mode is active already: let the next handler have the op
        if fake_mode.in_kernel_invocation:
            raise AssertionError("fake_mode.in_kernel_invocation must be False")
        with fake_mode:
            return func(*args, **(kwargs or {}))

    def tolist(self) -> Any:
        """Element by element through ``item()`` (so a fake raises DataDependentOutputException), as torch."""
        if self.dim() == 0:
            return self.item()
        if self.dim() == 1:
            return [e.item() for e in self]
        return [e.tolist() for e in self]

    def __repr__(self) -> str:
        return tensor_repr(self)

    def __deepcopy__(self, memo: dict) -> FakeTensor:
        """A fake clone with the same ``requires_grad`` (and Parameter mark): torch's Tensor.__deepcopy__ clones,
        which under the fake mode gives a fake (copy.deepcopy of a module built under FakeTensorMode)."""
        if id(self) in memo:
            return memo[id(self)]
        new = self.detach().clone()
        new.requires_grad_(self.requires_grad)
        if getattr(self, "_is_param", False):
            new._is_param = True
        memo[id(self)] = new
        return new


_new = object.__new__


def make_fake(t: Tensor, fake_mode: Any, fake_device: device = _CPU) -> FakeTensor:
    """A FakeTensor of ``fake_mode`` on ``fake_device`` taking over the meta tensor ``t``'s fields.

    The new object shares ``t``'s version counter and view fields (``_base`` ...); ``t`` itself should not be
    used afterwards. (Copying ten fields is cheaper than re-typing ``t`` with a ``__class__`` assignment.)
    """
    f = _new(FakeTensor)
    f._data = None
    f._flat = None
    f._shape = t._shape
    f._stride = t._stride
    f._storage_offset = t._storage_offset
    f._dtype = t._dtype
    _DEVICE_SLOT.__set__(f, _META)
    f._contiguous = t._contiguous
    f._version_counter = t._version_counter
    f.__dict__ = t.__dict__
    f.fake_mode = fake_mode
    if fake_device is _CPU or fake_device.type == "cpu" and fake_device.index is None:
        f._key_set = _FAKE_CPU_KEYS
    else:
        f._fake_device = fake_device
        f._key_set = FAKE_KEY_SETS[fake_device.type]
    bits = t._key_set & VIEW_BITS
    if bits:  # the conjugate / negative bits and the ZeroTensor key (math_bits.py)
        f._key_set |= bits
    return f


def fake_copy(t: Tensor, fake_mode: Any, fake_device: device = _CPU) -> FakeTensor:
    """A new FakeTensor with ``t``'s shape, strides, storage offset and dtype, a version counter of its own and
    no view fields: ``make_fake`` of a fresh meta tensor with that geometry, without making the meta tensor
    (make_fx's ``meta["val"]`` of every node)."""
    f = _new(FakeTensor)
    f._data = None
    f._flat = None
    f._shape = t._shape
    f._stride = t._stride
    f._storage_offset = t._storage_offset
    f._dtype = t._dtype
    _DEVICE_SLOT.__set__(f, _META)
    f._contiguous = t._contiguous
    f._version_counter = _VersionCounter()
    f.fake_mode = fake_mode
    if fake_device is _CPU or fake_device.type == "cpu" and fake_device.index is None:
        f._key_set = _FAKE_CPU_KEYS
    else:
        f._fake_device = fake_device
        f._key_set = FAKE_KEY_SETS[fake_device.type]
    bits = t._key_set & VIEW_BITS
    if bits:  # the conjugate / negative bits and the ZeroTensor key (math_bits.py)
        f._key_set |= bits
    return f


def _tensor_leaves(args: tuple, kwargs: dict | None) -> list[Any]:
    out: list[Any] = []
    for a in list(args) + list((kwargs or {}).values()):
        if isinstance(a, (list, tuple)):
            out.extend(a)
        else:
            out.append(a)
    return out


# --- printing a call in error messages (torch._utils.render_call) --------------------------------------------------
def summary_repr(t: Any) -> str:
    """``repr`` with torch's ``printoptions(threshold=0, edgeitems=0)``: ``tensor([...], size=(2, 3))``."""
    if not isinstance(t, Tensor):
        return repr(t)
    if isinstance(t, FakeTensor) or t._data is None or t.numel() == 0:
        return repr(t)
    from .. import dtypes as _dt

    default = _dt.get_default_dtype()
    body = "[...]" if t._shape else _tensor_str(np.asarray(t._data), t._dtype, len("tensor("))
    suffixes = [f"size={tuple(t._shape)}"]
    if t._dtype not in (default, _dt.int64, _dt.bool):
        suffixes.append(f"dtype={t._dtype!r}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    from ..nn.parameter import Parameter

    head = "Parameter containing:\n" if isinstance(t, Parameter) else ""  # (Parameter.__repr__'s first line)
    return f"{head}tensor({body}, {', '.join(suffixes)})"


def render_call(func: Any, args: tuple, kwargs: dict) -> str:
    """``aten.add.Tensor(FakeTensor(..., size=(2, 3)), tensor([...], size=(2, 3)))``."""
    parts = [summary_repr(a) if not isinstance(a, (list, tuple)) else
             (("[" if isinstance(a, list) else "(") + ", ".join(summary_repr(e) for e in a)
              + ("]" if isinstance(a, list) else ",)" if len(a) == 1 else ")"))
             for a in args]
    parts += [f"{k}={summary_repr(v)}" for k, v in kwargs.items()]
    return f"{func}({', '.join(parts)})"


def is_fake(t: Any) -> bool:
    return isinstance(t, FakeTensor)


__all__ = ["FAKE_KEY_SETS", "FakeTensor", "is_fake", "make_fake", "render_call", "summary_repr"]
