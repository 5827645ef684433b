"""``default_collate`` and ``default_convert``: how a ``DataLoader`` turns samples into a batch.

Corresponds to torch/utils/data/_utils/collate.py. ``collate(batch, collate_fn_map=...)`` looks the first sample's
type up in the map (exact type, then ``isinstance`` in the map's order) and otherwise recurses into mappings,
namedtuples and sequences (samples of one sequence must have equal lengths; a tuple gives a list). The default
map stacks tensors on a new dimension 0, turns NumPy arrays into tensors first, Python floats into a float64
tensor, ints (and bools) into a ``tensor(batch)``, and leaves strings and bytes as lists. Anything else is refused
with PyTorch's ``default_collate: batch must contain ...`` message.
"""

from __future__ import annotations

import collections.abc
import copy
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ...tensor import Tensor

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert"]

#: NumPy dtype codes of strings and objects, which do not become tensors
np_str_obj_array_pattern = re.compile(r"[SaUO]")
default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                                  "lists; found {}")


def _rebuild(data: Any, items: Any, mutable_abc: type) -> Any:
    """``data``'s container type refilled with ``items`` (a dict / list when the type cannot be rebuilt)."""
    is_map = isinstance(data, collections.abc.Mapping)
    try:
        if isinstance(data, mutable_abc):
            clone = copy.copy(data)
            if is_map:
                clone.update(items)
            else:
                for i, v in enumerate(items):
                    clone[i] = v
            return clone
        return type(data)(items)
    except TypeError:
        return dict(items) if is_map else list(items)


def default_convert(data: Any) -> Any:
    """NumPy arrays and scalars inside ``data`` become tensors; containers keep their types (tuples become lists)."""
    from ...api.from_data import as_tensor

    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, {key: default_convert(data[key]) for key in data}, collections.abc.MutableMapping)
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, [default_convert(d) for d in data], collections.abc.MutableSequence)
    return data


def collate(batch: Any, *, collate_fn_map: dict[Any, Callable] | None = None) -> Any:
    """The general collation: ``collate_fn_map`` for leaves, recursion into containers."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        items = {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
        return _rebuild(elem, items, collections.abc.MutableMapping)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        return _rebuild(elem, columns, collections.abc.MutableSequence)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch: Any, *, collate_fn_map: Any = None) -> Any:
    """Tensors stacked on a new dimension 0 (``torch.stack``, so subclasses dispatch as usual)."""
    from ... import stack

    elem = batch[0]
    if getattr(elem, "is_nested", False):
        raise RuntimeError("Batches of nested tensors are not currently supported by the default collate_fn; "
                           "please provide a custom collate_fn to handle them appropriately.")
    if str(elem.layout) != "torch.strided":
        raise RuntimeError("Batches of sparse tensors are not currently supported by the default collate_fn; "
                           "please provide a custom collate_fn to handle them appropriately.")
    return stack(batch, 0)


def collate_numpy_array_fn(batch: Any, *, collate_fn_map: Any = None) -> Any:
    from ...api.from_data import as_tensor

    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch: Any, *, collate_fn_map: Any = None) -> Any:
    from ...api.from_data import as_tensor

    return as_tensor(batch)


def collate_float_fn(batch: Any, *, collate_fn_map: Any = None) -> Any:
    from ... import dtypes
    from ...api.from_data import tensor

    return tensor(batch, dtype=dtypes.float64)


def collate_int_fn(batch: Any, *, collate_fn_map: Any = None) -> Any:
    from ...api.from_data import tensor

    return tensor(batch)


def collate_str_fn(batch: Any, *, collate_fn_map: Any = None) -> Any:
    return batch


#: the leaf rules of ``default_collate``, in PyTorch's order (the ``isinstance`` scan follows it)
default_collate_fn_map: dict[Any, Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch: Any) -> Any:
    """A list of samples -> one batch (see the module docstring for the rules)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
