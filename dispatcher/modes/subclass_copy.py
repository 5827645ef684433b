"""``copy.deepcopy`` and pickling of tensors, with PyTorch's rules for subclasses.

Corresponds to ``Tensor.__deepcopy__`` / ``Tensor.__reduce_ex__`` of torch/_tensor.py and
``torch._utils._rebuild_wrapper_subclass`` / ``torch._tensor._rebuild_from_type_v2``:

* a *wrapper* subclass (``__torch_dispatch__`` and no storage) is deep-copied with ``clone()`` (which its
  ``__torch_dispatch__`` answers; a clone of another type is PyTorch's RuntimeError), then its ``__dict__`` and
  slots are deep-copied onto the clone; it pickles as ``_rebuild_from_type_v2(_rebuild_wrapper_subclass,
  cls, (dtype, size, stride, storage_offset, layout, device, requires_grad), state)``: a new wrapper with the
  same metadata, then its state;
* a subclass with storage checks that ``new_empty([])`` gives its own type (PyTorch's RuntimeError otherwise),
  then is copied with its storage;
* only leaves can be deep-copied;
* a plain ``Tensor`` pickles and copies field by field, as before (an uninitialised object, then its slots).
"""

from __future__ import annotations

import copy
import copyreg
from typing import Any

from ..tensor import Tensor
from .subclass import has_torch_dispatch

_NOT_LEAF = ("Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  "
             "If you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, "
             "see https://github.com/pytorch/pytorch/pull/103001")
_WRAPPER_CLONE = ("The default implementation of __deepcopy__() for wrapper subclasses only works for subclass types "
                  "that implement clone() and for which cloning returns another instance of the same subclass. You "
                  "should either properly implement clone() for your subclass or override __deepcopy__() if it is "
                  "intended behavior for clone() to return an instance of a different type.")
_NEW_EMPTY = ("The default implementation of __deepcopy__() for non-wrapper subclasses only works for subclass types "
              "that implement new_empty() and for which that function returns another instance of the same subclass. "
              "You should either properly implement new_empty() for your subclass or override __deepcopy__() if it "
              "is intended behavior for new_empty() to return an instance of a different type.")


def is_wrapper_subclass(t: Tensor) -> bool:
    """A Tensor subclass with ``__torch_dispatch__`` and no storage (``data_ptr() == 0``), not a fake tensor."""
    cls = type(t)
    return (cls is not Tensor and has_torch_dispatch(cls) and t._data is None and t._device.type != "meta"
            and cls.__name__ != "FakeTensor")


def _new_uninitialized(cls: type) -> Tensor:
    """An instance without any field set (what unpickling a plain tensor fills slot by slot)."""
    return object.__new__(cls)


def _subclass_slots(cls: type) -> list[str]:
    """The slots declared by the classes between ``cls`` and Tensor (Tensor's own are its storage and geometry)."""
    names: list[str] = []
    for klass in cls.__mro__:
        if klass is Tensor:
            break
        for name in klass.__dict__.get("__slots__", ()):
            if name not in ("__dict__", "__weakref__") and name not in names:
                names.append(name)
    return names


def _obj_state(t: Tensor) -> Any:
    """``torch._utils._get_obj_state``: the instance dict, with the subclass's slots when it has any."""
    slots = {n: getattr(t, n) for n in _subclass_slots(type(t)) if hasattr(t, n)}
    return (t.__dict__, slots) if slots else t.__dict__


def _set_obj_state(obj: Tensor, state: Any) -> Tensor:
    if isinstance(state, tuple):
        dict_state, slots_state = state
    else:
        dict_state, slots_state = state, None
    for k, v in (dict_state or {}).items():
        setattr(obj, k, v)
    for k, v in (slots_state or {}).items():
        setattr(obj, k, v)
    return obj


def _rebuild_wrapper_subclass(cls: type, dtype: Any, size: Any, stride: Any, storage_offset: int, layout: Any,
                              device: Any, requires_grad: bool) -> Tensor:
    return Tensor._make_wrapper_subclass(cls, size, strides=stride, dtype=dtype, storage_offset=storage_offset,
                                         layout=layout, device=device, requires_grad=requires_grad)


def _rebuild_from_type_v2(func: Any, new_type: type, args: tuple, state: Any) -> Tensor:
    ret = func(*args)
    if type(ret) is not new_type:
        ret = ret.as_subclass(new_type)
    if getattr(ret.__class__, "__setstate__", None) is not None and "__setstate__" in ret.__class__.__dict__:
        ret.__setstate__(state)
        return ret
    return _set_obj_state(ret, state)


def reduce_ex(t: Tensor, proto: int) -> tuple:
    """``Tensor.__reduce_ex__``."""
    if is_wrapper_subclass(t):
        args = (type(t), t.dtype, tuple(t.size()), t.stride(), t.storage_offset(), t.layout, t.device,
                t.requires_grad)
        return (_rebuild_from_type_v2, (_rebuild_wrapper_subclass, type(t), args, _obj_state(t)))
    r = object.__reduce_ex__(t, max(int(proto), 2))
    if r[0] is copyreg.__newobj__:
        r = (_new_uninitialized, r[1][:1]) + tuple(r[2:])
    return r


def deepcopy_tensor(t: Tensor, memo: dict) -> Tensor:
    """``Tensor.__deepcopy__``."""
    if not t.is_leaf:
        raise RuntimeError(_NOT_LEAF)
    if id(t) in memo:
        return memo[id(t)]
    from ..autograd.grad_mode import no_grad
    from .function_mode import DisableTorchFunctionSubclass

    # (torch runs __deepcopy__ through __torch_function__, whose default disables the subclass handling inside:
    # ``new_empty`` there is a plain tensor unless the subclass overrides the method)
    with no_grad(), DisableTorchFunctionSubclass():
        if is_wrapper_subclass(t):
            new = t.clone()
            if type(new) is not type(t):
                raise RuntimeError(_WRAPPER_CLONE)
        else:
            if type(t) is not Tensor and type(t.new_empty([])) is not type(t):
                raise RuntimeError(_NEW_EMPTY)
            new = copy._reconstruct(t, memo, *reduce_ex(t, 4))  # type: ignore[attr-defined]
            memo[id(t)] = new
            return new
        if t.requires_grad:
            new.requires_grad_()
        if t.grad is not None:
            new.grad = copy.deepcopy(t.grad, memo)
        for slot in _subclass_slots(type(t)):
            if hasattr(t, slot):
                setattr(new, slot, copy.deepcopy(getattr(t, slot), memo))
        new.__dict__ = copy.deepcopy(t.__dict__, memo)
    memo[id(t)] = new
    return new


__all__ = ["deepcopy_tensor", "is_wrapper_subclass", "reduce_ex"]
