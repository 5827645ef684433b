"""The Tensor: NumPy storage, PyTorch metadata, and every operation through the dispatcher.

Corresponds to c10/core/TensorImpl.h (sizes, strides, storage offset, key set,
version counter) plus the Python-visible surface of ``torch.Tensor``.

Storage model: a CPU tensor owns (or shares) a flat NumPy array, its *storage*,
and sees it through ``shape`` / ``stride`` / ``storage_offset`` in elements,
exactly like PyTorch. ``_data`` is the NumPy strided view of the storage that
those three describe; a view op builds a new Tensor on the same storage with
new geometry, so writes through a view show in its base and vice versa. A meta
tensor has the same metadata and no storage.

Nothing here computes: every method calls an aten operator (``ops.aten...``)
through the dispatcher, so modes, autograd and tracing see every operation.
The methods themselves live in ``api/`` (one module per op family; ``api/tensor_methods.py`` attaches them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dt
from .keys import DispatchKey
from .keyset import DispatchKeySet
from .math_bits import VIEW_BITS as _VIEW_BITS
from .memory_format import is_contiguous_in as _is_contiguous_in
from .memory_format import memory_format as _memory_format
from .memory_format import strided as _strided
from .python_key import disabled_torch_dispatch_impl
from .tls import per_thread

CPU_KEY_SET = DispatchKeySet(
    [DispatchKey.CPU, DispatchKey.ADInplaceOrView, DispatchKey.AutogradCPU, DispatchKey.AutocastCPU]
).raw_repr()
META_KEY_SET = DispatchKeySet([DispatchKey.Meta, DispatchKey.ADInplaceOrView, DispatchKey.AutogradMeta]).raw_repr()
_KEY_SETS = {"cpu": CPU_KEY_SET, "meta": META_KEY_SET}


class device:  # noqa: N801 - PyTorch's name
    """``device(type='cpu')``. Only "cpu" and "meta" exist here."""

    __slots__ = ("type", "index")

    def __init__(self, type: str | device = "cpu", index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index  # noqa: A001
        if ":" in type:
            type, _, idx = type.partition(":")  # noqa: A001
            index = int(idx)
        if type not in ("cpu", "meta"):
            raise RuntimeError(
                f"Expected one of cpu, meta device type at start of device string: {type} "
                "(dispatchkit has only the cpu and meta devices)"
            )
        self.type = type
        self.index = index

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and other.type == self.type and other.index == self.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __repr__(self) -> str:
        return f"device(type='{self.type}')" if self.index is None else f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"


_CPU = device("cpu")
_META = device("meta")


def as_device(d: Any) -> device:
    if d is None:
        return _CPU
    if isinstance(d, device):
        return d
    return _CPU if d == "cpu" else _META if d == "meta" else device(d)


class Size(tuple):
    """``torch.Size``: a tuple of ints with PyTorch's repr."""

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n


_STRIDE_CACHE: dict[tuple[int, ...], tuple[int, ...]] = {}


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major strides in elements (sizes of 0 or 1 count as 1, as PyTorch does). Cached by shape."""
    cached = _STRIDE_CACHE.get(shape)
    if cached is not None:
        return cached
    strides = _compute_contiguous_strides(shape)
    if len(_STRIDE_CACHE) < 4096 and type(shape) is tuple:
        _STRIDE_CACHE[shape] = strides
    return strides


def _compute_contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides = []
    acc = 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


class _VersionCounter:
    """Shared by a tensor and all its views; bumped by every in-place op."""

    __slots__ = ("version",)

    def __init__(self) -> None:
        self.version = 0


class Tensor:
    """A PyTorch-like tensor. Build them with ``dispatcher.tensor(...)`` and the factory functions."""

    # Geometry and identity: set by every constructor, read by every kernel.
    __slots__ = (
        "_key_set", "_data", "_flat", "_shape", "_stride", "_storage_offset", "_dtype", "_device", "_contiguous",
        "_version_counter", "__weakref__", "__dict__",
    )
    # Autograd and view fields: most tensors keep these defaults, so they are class attributes that an
    # instance overrides (in its __dict__) only when it sets them. Constructors stay cheap.
    _base: Tensor | None = None  #: the root tensor whose storage this view shares (None: not a view)
    _requires_grad: bool = False  #: own flag: requires_grad_(), or set when autograd attaches a grad_fn
    _grad: Tensor | None = None
    _grad_fn: Any = None  #: the autograd Node that produced this tensor (None for leaves); see ``grad_fn``
    _output_nr: int = 0  #: which output of ``_grad_fn`` this tensor is
    _retains_grad: bool = False
    _backward_hooks: Any = None  #: the ``register_hook`` hooks (an OrderedDict), see autograd/hooks.py
    _autograd_meta: Any = None  #: weak reference to a leaf's AccumulateGrad node
    _attr_version: int = 0  #: views: the version counter value when the grad_fn was last set
    _creation_meta: int = 0  #: views: autograd's CreationMeta (0 DEFAULT, 2 MULTI_OUTPUT_NODE, 3 NO_GRAD_MODE)
    _view_fn: Any = None  #: views of Python-key tensors: the view ops replaying it from ``_base`` (autograd/views.py)
    _python_policy: int = 0  #: metadata answered by ``__torch_dispatch__`` (bits of modes/subclass_metadata.py)

    #: Tensor's own ``__torch_dispatch__`` is the "disabled" one: a subclass gets the Python key only if it
    #: overrides it (see modes/subclass.py)
    __torch_dispatch__ = staticmethod(disabled_torch_dispatch_impl)

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        """The legacy constructor: ``Tensor()``, ``Tensor(other)``, ``Tensor(2, 3)``, ``Tensor([1., 2.])``, and the
        same through a subclass, ``SubTensor(data)`` (modes/legacy_ctor.py). Kernels build tensors with
        ``_from_storage`` / ``_wrap_contiguous``, never through here."""
        from .modes.legacy_ctor import legacy_new

        return legacy_new(cls, args, kwargs)

    # --- subclasses (modes/subclass.py) ------------------------------------------------------------
    @staticmethod
    def _make_wrapper_subclass(cls: type, size: Any, strides: Any = None, storage_offset: Any = None,
                               memory_format: Any = None, dtype: Any = None, layout: Any = None, device: Any = None,
                               pin_memory: bool = False, requires_grad: bool = False,
                               dispatch_sizes_strides_policy: str | None = None, dispatch_device: bool = False,
                               dispatch_layout: bool = False, _extra_dispatch_keys: Any = None,
                               storage_size: Any = None) -> Any:
        """A ``cls`` instance with this metadata, no storage and the Python key (the base of a wrapper subclass).

        torch's full argument list, positionally too; ``dispatch_sizes_strides_policy`` ("strides" / "sizes"),
        ``dispatch_device`` and ``dispatch_layout`` make those metadata queries go to ``cls.__torch_dispatch__``
        (modes/subclass_metadata.py)."""
        from .modes.subclass import make_wrapper_subclass

        return make_wrapper_subclass(cls, size, strides, storage_offset, memory_format, dtype, layout, device,
                                     pin_memory, requires_grad, dispatch_sizes_strides_policy, dispatch_device,
                                     dispatch_layout, _extra_dispatch_keys, storage_size)

    @staticmethod
    def _make_subclass(cls: type, data: Tensor, require_grad: bool = False, **kwargs: Any) -> Any:
        """``data.detach()`` (same storage) re-typed as ``cls``, a leaf with ``requires_grad=require_grad``."""
        from .modes.subclass import make_subclass

        return make_subclass(cls, data, require_grad, **kwargs)

    def __deepcopy__(self, memo: dict) -> Any:
        """``copy.deepcopy``: PyTorch's rules for leaves, wrapper subclasses and other subclasses (subclass_copy.py)."""
        from .modes.subclass_copy import deepcopy_tensor

        return deepcopy_tensor(self, memo)

    def __reduce_ex__(self, proto: Any) -> Any:
        """Pickling: a wrapper subclass is rebuilt from its metadata and state, as torch does (subclass_copy.py)."""
        from .modes.subclass_copy import reduce_ex

        return reduce_ex(self, proto)

    def as_subclass(self, cls: type) -> Any:
        """A ``cls`` instance aliasing this tensor's data, still attached to the autograd graph."""
        from .modes.subclass import as_subclass

        return as_subclass(self, cls)

    # --- construction (used by kernels; users call factory functions) ------------------------
    @classmethod
    def _from_storage(
        cls,
        storage: np.ndarray | None,
        shape: tuple[int, ...],
        stride: tuple[int, ...],
        offset: int,
        dtype: _dt.dtype,
        device_: device,
        base: Tensor | None = None,
        contiguous: bool | None = None,
    ) -> Tensor:
        """A tensor over ``storage`` (flat, or None for meta) with the given geometry in elements.

        ``contiguous``: whether the geometry is contiguous, when the caller knows (computed otherwise)."""
        t = object.__new__(cls)
        t._key_set = _KEY_SETS[device_.type]
        t._flat = storage
        t._shape = shape
        t._stride = stride
        t._storage_offset = offset
        t._dtype = dtype
        t._device = device_
        t._contiguous = _is_contiguous(shape, stride) if contiguous is None else contiguous
        if storage is not None:
            item = storage.itemsize
            byte_strides = tuple([s * item for s in stride])
            try:
                t._data = np.ndarray(shape, storage.dtype, storage, offset * item, byte_strides)
            except ValueError:  # NumPy's bounds check refuses some legal views (e.g. empty ones at the end)
                t._data = np.lib.stride_tricks.as_strided(storage[offset:], shape, byte_strides)
        else:
            t._data = None
        if base is not None:
            t._base = base
            t._version_counter = base._version_counter
        else:
            t._version_counter = _VersionCounter()
        return t

    @classmethod
    def _from_numpy(cls, array: np.ndarray, dtype: _dt.dtype | None = None) -> Tensor:
        """A new CPU tensor owning ``array``'s values (row-major; the array is copied only if needed)."""
        dt = dtype or _dt.from_numpy_dtype(array.dtype)
        if array.dtype != dt.np_dtype or not array.flags.c_contiguous:
            array = np.ascontiguousarray(array, dtype=dt.np_dtype)
        return cls._wrap_contiguous(array, dt)

    @classmethod
    def _wrap_contiguous(cls, arr: np.ndarray, dt: _dt.dtype) -> Tensor:
        """A new CPU tensor over a C-contiguous array of the right dtype (no checks: the hot path)."""
        t = object.__new__(cls)
        t._key_set = CPU_KEY_SET
        shape = arr.shape
        t._shape = shape
        t._stride = contiguous_strides(shape)
        t._flat = None  # the flat storage is made on first use (see _storage)
        t._storage_offset = 0
        t._dtype = dt
        t._device = _CPU
        t._contiguous = True
        t._data = arr
        t._version_counter = _VersionCounter()
        return t

    @classmethod
    def _contiguous_wrapper(cls, shape: tuple[int, ...], dt: _dt.dtype) -> Any:
        """A function ``wrap(arr) -> Tensor`` doing ``_wrap_contiguous(arr, dt)`` for arrays of exactly ``shape``.

        The shape, the row-major strides and the other constant fields are computed once and bound here, so each
        call only allocates the tensor and its version counter: for generated code whose outputs' shapes are
        known when it is generated (the numpy backend). No checks: ``arr`` must be C-contiguous, of this shape
        and of ``dt``'s NumPy dtype.
        """
        shape = tuple(int(s) for s in shape)
        stride = contiguous_strides(shape)
        new, key_set, cpu, counter = object.__new__, CPU_KEY_SET, _CPU, _VersionCounter

        def wrap(arr: np.ndarray) -> Tensor:
            t = new(cls)
            t._key_set = key_set
            t._shape = shape
            t._stride = stride
            t._flat = None
            t._storage_offset = 0
            t._dtype = dt
            t._device = cpu
            t._contiguous = True
            t._data = arr
            v = t._version_counter = new(counter)
            v.version = 0
            return t

        return wrap

    @classmethod
    def _empty(cls, shape: tuple[int, ...], dtype: _dt.dtype, device_: device, stride: tuple[int, ...] | None = None) -> Tensor:
        """A new tensor with uninitialised (zeroed, on CPU) storage and the given layout."""
        shape = tuple(shape)
        dense = contiguous_strides(shape)
        if stride is None:
            stride = dense
        else:
            stride = tuple(stride)
            if stride == dense:
                stride = dense
        contiguous = True if stride is dense else None  # (row-major strides are contiguous)
        if device_.type == "meta":
            return cls._from_storage(None, shape, stride, 0, dtype, device_, contiguous=contiguous)
        size = 1 + sum((s - 1) * st for s, st in zip(shape, stride)) if all(shape) else 0
        storage = np.zeros(size, dtype=dtype.np_dtype)
        return cls._from_storage(storage, shape, stride, 0, dtype, device_, contiguous=contiguous)

    @property
    def _storage(self) -> np.ndarray | None:
        """The flat storage array (None on meta); made lazily for tensors wrapped from a contiguous array."""
        flat = self._flat
        if flat is None and self._data is not None:
            flat = self._flat = self._data.reshape(-1)
        return flat

    @_storage.setter
    def _storage(self, value: np.ndarray | None) -> None:
        self._flat = value

    def _view(self, shape: tuple[int, ...], stride: tuple[int, ...], offset: int) -> Tensor:
        """A view of this tensor's storage with new geometry (what every view op returns).

        Also the autograd view metadata PyTorch's ``as_view`` records: the root base, the version
        the view starts at, and, for a view made with grad mode off, ``NO_GRAD_MODE`` (see
        autograd/views.py); a view of a view inherits a non-default creation meta.
        """
        base = self._base if self._base is not None else self
        t = Tensor._from_storage(self._storage, tuple(shape), tuple(stride), offset, self._dtype, self._device, base)
        bits = self._key_set & _VIEW_BITS
        if bits:  # the conjugate / negative bits and the ZeroTensor key pass on to views (math_bits.py)
            t._key_set |= bits
        version = base._version_counter.version
        if version:  # (0 is the class default: most views need no instance dict)
            t._attr_version = version
        meta = self._creation_meta
        if not per_thread.s.grad_enabled and meta != 4:  # 3 NO_GRAD_MODE; 4 INFERENCE_MODE is kept
            meta = 3
        if meta:
            t._creation_meta = meta
        return t

    # --- metadata -----------------------------------------------------------------------------
    # A tensor made with ``dispatch_sizes_strides_policy`` / ``dispatch_device`` / ``dispatch_layout`` has bits in
    # ``_python_policy``: those queries are answered by its ``__torch_dispatch__`` (modes/subclass_metadata.py).
    @property
    def shape(self) -> Size:
        if self._python_policy & 2:
            return Size(_md().sizes(self))
        return Size(self._shape)

    def size(self, dim: int | None = None) -> Size | int:
        if self._python_policy & 2:
            md = _md()
            if dim is None:
                return Size(md.sizes(self))
            d = _wrap_dim(dim, md.dim(self), "size")
            return md.sizes(self)[d]
        if dim is None:
            return Size(self._shape)
        return self._shape[_wrap_dim(dim, len(self._shape), "size")]

    def stride(self, dim: int | None = None) -> tuple[int, ...] | int:
        if self._python_policy & 1:
            strides = _md().strides(self)
            return strides if dim is None else strides[_wrap_dim(dim, len(strides), "stride")]
        if dim is None:
            return self._stride
        return self._stride[_wrap_dim(dim, len(self._shape), "stride")]

    def storage_offset(self) -> int:
        if self._python_policy & 2:
            return _md().storage_offset(self)
        return self._storage_offset

    def dim(self) -> int:
        if self._python_policy & 2:
            return _md().dim(self)
        return len(self._shape)

    ndim = property(dim)

    def ndimension(self) -> int:
        return self.dim()

    def numel(self) -> int:
        if self._python_policy & 2:
            return _md().numel(self)
        n = 1
        for s in self._shape:
            n *= s
        return n

    nelement = numel

    @property
    def dtype(self) -> _dt.dtype:
        return self._dtype

    @property
    def device(self) -> device:
        if self._python_policy & 4:
            return _md().device(self)
        return self._device

    @property
    def layout(self) -> Any:
        """``torch.strided``: every tensor of this library is a strided (dense) tensor (unless its subclass says)."""
        if self._python_policy & 8:
            return _md().layout(self)
        return _strided

    @property
    def is_meta(self) -> bool:
        return self.device.type == "meta" if self._python_policy & 4 else self._device.type == "meta"

    @property
    def is_cpu(self) -> bool:
        return self.device.type == "cpu" if self._python_policy & 4 else self._device.type == "cpu"

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        return self._dtype.is_complex

    def element_size(self) -> int:
        return self._dtype.itemsize

    def is_contiguous(self, memory_format: Any = None) -> bool:
        """``is_contiguous(memory_format=torch.contiguous_format)``: laid out exactly as that format asks (row-major;
        NHWC for ``channels_last``, NDHWC for ``channels_last_3d``; ``preserve_format`` asks row-major too)."""
        if self._python_policy & 1:
            return _md().is_contiguous(self, memory_format)
        return self._stored_is_contiguous(memory_format)

    def _stored_is_contiguous(self, memory_format: Any = None) -> bool:
        if memory_format is None:
            return self._contiguous
        code = memory_format.code if isinstance(memory_format, _memory_format) else memory_format
        if code.__class__ is not int:
            raise TypeError("is_contiguous(): argument 'memory_format' must be torch.memory_format, not "
                            f"{type(memory_format).__name__}")
        return _is_contiguous_in(self._shape, self._stride, self._contiguous, code)

    @property
    def _version(self) -> int:
        return self._version_counter.version

    def _bump_version(self) -> None:
        self._version_counter.version += 1

    # --- autograd fields (the logic lives in dispatcher/autograd/) ------------------------------
    @property
    def requires_grad(self) -> bool:
        """PyTorch's ``requires_grad_ || grad_fn_ || (view && base.requires_grad())``."""
        if self._requires_grad:
            return True
        base = self._base
        return base is not None and base._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        from .autograd.tensor_api import set_requires_grad

        set_requires_grad(self, value)

    @property
    def grad_fn(self) -> Any:
        """The node that produced this tensor (None for a leaf); a view's is regenerated after in-place ops."""
        if self._base is None:
            return self._grad_fn
        from .autograd.views import view_grad_fn

        return view_grad_fn(self)

    @grad_fn.setter
    def grad_fn(self, node: Any) -> None:
        # NB: read-only in PyTorch; kept settable for tools and tests that fake a history.
        self._grad_fn = node

    @property
    def grad(self) -> Tensor | None:
        g = self._grad
        if g is None and not self._retains_grad and (self._grad_fn is not None or self._base is not None):
            from .autograd.tensor_api import warn_non_leaf_grad

            warn_non_leaf_grad(self)
        return g

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        from .autograd.tensor_api import set_grad

        set_grad(self, value)

    @property
    def data(self) -> Tensor:
        """The same storage and geometry without autograd history, with a version counter of its own."""
        from .autograd.tensor_api import variable_data

        return variable_data(self)

    @data.setter
    def data(self, new_data: Tensor) -> None:
        from .autograd.tensor_api import set_data

        set_data(self, new_data)

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def output_nr(self) -> int:
        return self._output_nr

    def _is_view(self) -> bool:
        return self._base is not None

    def data_ptr(self) -> int:
        if self._python_policy & 2:
            _md().data_ptr_numel(self)
        if self._storage is None:
            return 0
        return self._storage.__array_interface__["data"][0] + self._storage_offset * self._dtype.itemsize

    def untyped_storage_ptr(self) -> int:
        return 0 if self._storage is None else self._storage.__array_interface__["data"][0]

    def __len__(self) -> int:
        if self._python_policy & 2:
            if self.dim() == 0:
                raise TypeError("len() of a 0-d tensor")
            return _md().sizes(self)[0]
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self, *, tensor_contents: str | None = None) -> str:
        from .tensor_repr import tensor_repr

        return tensor_repr(self, tensor_contents)

    def numpy(self) -> np.ndarray:
        """The values as a NumPy array sharing memory (like ``Tensor.numpy()``)."""
        if self._data is None:
            raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._data


def _md() -> Any:
    """modes/subclass_metadata.py (imported on first use: it imports the dispatcher)."""
    from .modes import subclass_metadata

    return subclass_metadata


def _is_contiguous(shape: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    """PyTorch's rule: row-major dense, ignoring dims of size 1; empty tensors are contiguous."""
    if stride == _STRIDE_CACHE.get(shape) or 0 in shape:  # (the usual case: exactly the row-major strides)
        return True
    expected = 1
    for size, st in zip(reversed(shape), reversed(stride)):
        if size != 1 and st != expected:
            return False
        expected *= size
    return True


def _wrap_dim(dim: int, ndim: int, what: str = "dim") -> int:
    """Normalize a possibly negative dim, with PyTorch's IndexError message (a 0-dim tensor takes -1 and 0)."""
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{what}(): argument 'dim' must be int, not {type(dim).__name__}")
    if dim < lo or dim > hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim + max(ndim, 1) if dim < 0 else dim


def wrap_dim(dim: int, ndim: int) -> int:
    return _wrap_dim(dim, ndim)
