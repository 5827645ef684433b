"""Checkpoints: ``save`` / ``load`` in PyTorch's own file format, and ``.safetensors`` files.

Corresponds to torch/serialization.py (PyTorch 2.13) and, for safetensors, the ``safetensors.torch``
module (here on the safetensors package's NumPy API). A file written by ``save`` is a zip archive
PyTorch reads with ``torch.load``, and a file written by ``torch.save`` loads here: see archive.py
(the container), pickler.py (what is written), weights_only.py (the loader, which never runs code
from the file) and rebuild.py (the names both sides use).

``load`` always reads as PyTorch's ``weights_only=True`` does: tensors, parameters, containers
(dict, list, tuple, set, OrderedDict), numbers, strings, bytes, None, ``torch.Size``, dtypes and
devices; any other global in the file is refused with an ``UnpicklingError`` naming it (allow more
with ``add_safe_globals`` / ``safe_globals``). ``weights_only=False`` is accepted and loads the same
way: dispatchkit has no loader that runs code from a checkpoint.
"""

from __future__ import annotations

import io
import os
import pickle
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from .archive import ArchiveReader, CheckpointError, archive_name, write_archive
from .pickler import CheckpointPickler
from .rebuild import LoadedStorage, StorageType, allowed_globals
from .weights_only import (
    Unpickler,
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    safe_globals,
    wo_message,
)

__all__ = ["CheckpointError", "add_safe_globals", "clear_safe_globals", "get_safe_globals", "load",
           "load_safetensors", "safe_globals", "save", "save_safetensors", "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = 2
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def save(obj: Any, f: Any, pickle_module: Any = None, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Write ``obj`` (tensors, state dicts, nested containers) to ``f`` (a path or a binary file object)."""
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("torch.save: dispatchkit writes only the zip format "
                                  "(_use_new_zipfile_serialization=True)")
    if pickle_module is not None and pickle_module is not pickle:
        raise NotImplementedError("torch.save: only the standard pickle module is supported")
    if pickle_protocol != 2:
        raise NotImplementedError("torch.save: dispatchkit writes pickle protocol 2 (PyTorch's default)")
    buffer = io.BytesIO()
    pickler = CheckpointPickler(buffer, pickle_protocol)
    pickler.dump(obj)
    records = [("data.pkl", buffer.getvalue()), (".format_version", b"1"), (".storage_alignment", b"64")]
    if not _disable_byteorder_record:
        records.append(("byteorder", b"little"))
    records += [(f"data/{key}", data) for key, data in pickler.storages]
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            write_archive(fh, archive_name(f), records)
    else:
        write_archive(f, archive_name(f), records)


def _check_map_location(map_location: Any) -> None:
    if map_location is None:
        return
    target = map_location
    if isinstance(map_location, dict):
        target = map_location.get("cpu", "cpu")
    if callable(target) and not isinstance(target, (str, os.PathLike)):
        return  # a function (storage, location) -> storage: every storage is a CPU one here
    if str(target) != "cpu":
        raise NotImplementedError(f"torch.load: map_location={map_location!r}: dispatchkit loads onto the CPU only")


def load(f: Any, map_location: Any = None, pickle_module: Any = None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **pickle_load_args: Any) -> Any:
    """Read a checkpoint written by ``save`` or by PyTorch's ``torch.save`` (weights-only, see the module doc)."""
    _check_map_location(map_location)
    reader = ArchiveReader(f)
    big_endian = reader.has("byteorder") and reader.read("byteorder").strip() == b"big"
    storages: dict[str, LoadedStorage] = {}

    def persistent_load(pid: tuple) -> LoadedStorage:
        if len(pid) != 5:
            raise pickle.UnpicklingError(f"torch.load: a storage persistent id has 5 fields, got {pid!r:.80}")
        _, storage_type, key, location, numel = pid
        if not isinstance(storage_type, StorageType):
            raise pickle.UnpicklingError(f"torch.load: unknown storage type {storage_type!r:.60}")
        if not isinstance(key, str) or not key or not set(key) <= _KEY_CHARS:
            raise pickle.UnpicklingError(f"torch.load: refusing the storage key {key!r:.60} (not a plain record name)")
        if type(numel) is not int or numel < 0:
            raise pickle.UnpicklingError(f"torch.load: invalid storage size {numel!r:.40}")
        found = storages.get(key)
        if found is not None:
            return found
        dtype = storage_type.dtype
        np_dtype = np.dtype(dtype.np_dtype).newbyteorder(">" if big_endian else "<")
        raw = reader.read(f"data/{key}", expected=numel * np_dtype.itemsize)
        array = np.frombuffer(raw, dtype=np_dtype).astype(dtype.np_dtype, copy=True)  # writable, native order
        storage = storages[key] = LoadedStorage(array, dtype)
        return storage

    from ..nn.parameter import Parameter

    try:
        return Unpickler(reader.read("data.pkl"), allowed_globals(), persistent_load,
                         constructible=(Parameter,)).load()
    except pickle.UnpicklingError as e:
        raise pickle.UnpicklingError(wo_message(str(e))) from None


# --- safetensors ---------------------------------------------------------------------------------


def _safetensors_numpy() -> Any:
    try:
        import safetensors.numpy as st
    except ImportError:
        raise ImportError("reading and writing .safetensors files needs the `safetensors` package "
                          "(pip install safetensors)") from None
    return st


def save_safetensors(tensors: dict[str, Tensor], filename: Any, metadata: dict[str, str] | None = None) -> None:
    """``safetensors.torch.save_file``: a flat dict of CPU tensors (no two sharing memory) to ``filename``."""
    arrays = {}
    seen: dict[int, str] = {}
    for name, t in tensors.items():
        if not isinstance(t, Tensor):
            raise ValueError(f"Key `{name}` is invalid, expected torch.Tensor but received {type(t)}")
        flat = t._storage
        if flat is not None and id(flat) in seen:
            raise RuntimeError(f"Some tensors share memory, this will lead to duplicate memory on disk and "
                               f"potential differences when loading them again: [{{{seen[id(flat)]!r}, {name!r}}}].")
        if flat is not None:
            seen[id(flat)] = name
        arrays[name] = np.ascontiguousarray(t.detach().numpy())
    _safetensors_numpy().save_file(arrays, os.fspath(filename), metadata=metadata)


def load_safetensors(filename: Any, device: Any = "cpu") -> dict[str, Tensor]:
    """``safetensors.torch.load_file``: the tensors of a ``.safetensors`` file (CPU)."""
    if str(device) != "cpu":
        raise NotImplementedError("load_safetensors: dispatchkit loads onto the CPU only")
    arrays = _safetensors_numpy().load_file(os.fspath(filename))
    return {name: Tensor._from_numpy(np.array(a, copy=True), _dt.from_numpy_dtype(a.dtype))
            for name, a in arrays.items()}
