"""``LazyTensor``: a tensor captured by ``tracer.compile`` and not computed yet, and how it becomes real.

A LazyTensor is storage-less: it carries its FakeTensor (shape, dtype, strides known) and its node in the
current graph segment (compile_segment.py), so metadata queries are answered without running anything. When
the segment is flushed (compile_capture.py), ``_become`` turns each live LazyTensor in place into the real
Tensor the backend computed: same Python object, now of class Tensor, every field copied, so references the
user's Python holds see the value. ``_make_lazy`` makes one from a fake result.

PyTorch counterpart: the ``example_value`` FakeTensors that Dynamo's TensorVariables carry
(torch/_dynamo/variables/tensor.py, builder.py); Dynamo never hands such objects to user code, because it
interprets the bytecode, while here the user's Python runs for real and holds these tensors.
"""

from __future__ import annotations

from typing import Any

import dispatcher
from dispatcher.tensor import Tensor

from . import compile_markers as _markers
from .graph import Node

__all__ = ["LazyTensor"]


class LazyTensor(Tensor):
    """A tensor captured by ``tracer.compile`` and not computed yet: metadata from its fake, value after a flush.

    Attributes (in ``__dict__``): ``_lz_fake`` (the FakeTensor), ``_lz_node`` (its node in the current segment).
    At a flush the object *becomes* the real tensor (its class is set to Tensor and its fields copied), so
    references held by the user's Python see the computed value afterwards.
    """

    __slots__ = ()

    @classmethod
    def __torch_dispatch__(cls, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        session = _markers.current_session()
        if session is None:
            raise RuntimeError(f"{func}: this tensor was captured by tracer.compile() and never computed (the "
                               "compiled call that made it raised or was left); recompute it eagerly")
        return session.on_aten_call(func, args, kwargs or {})

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        session = _markers.current_session()
        if session is None or type(self) is LazyTensor and "_lz_fake" not in self.__dict__:
            raise RuntimeError("this tensor was captured by tracer.compile() and never computed")
        session.data_needed(self, "Data dependent operator")
        return Tensor.__array__(self, dtype) if dtype is not None else Tensor.__array__(self)


_TENSOR_SLOTS = tuple(s for s in Tensor.__slots__ if s not in ("__weakref__", "__dict__"))


def _make_lazy(fake: Any, node: Node | None) -> LazyTensor:
    lz = Tensor._make_wrapper_subclass(LazyTensor, fake.shape, fake.stride(), storage_offset=fake.storage_offset(),
                                       dtype=fake.dtype, device=dispatcher.device("cpu"),
                                       requires_grad=fake.requires_grad)
    d = lz.__dict__
    d["_lz_fake"] = fake
    d["_lz_node"] = node
    return lz


def _become(lazy: LazyTensor, real: Tensor) -> None:
    """Turn ``lazy`` (same object) into a tensor equal in every field to ``real``: storage, autograd, version."""
    if not isinstance(real, Tensor):
        raise TypeError(f"tracer.compile: the backend returned {type(real).__name__} where a tensor was expected")
    for slot in _TENSOR_SLOTS:
        try:
            value = object.__getattribute__(real, slot)
        except AttributeError:
            try:
                object.__delattr__(lazy, slot)
            except AttributeError:
                pass
            continue
        object.__setattr__(lazy, slot, value)
    d = lazy.__dict__
    d.clear()
    d.update(real.__dict__)
    lazy.__class__ = type(real)

