"""CompositeImplicitAutograd view ops: ``reshape`` / ``flatten`` / ``unflatten`` / ``view_as`` / ``reshape_as``,
``expand_as`` / ``broadcast_to`` / ``broadcast_tensors``, ``chunk`` / ``tensor_split``, ``movedim`` / ``moveaxis`` /
``swapaxes`` / ``swapdims``, and the transpose properties ``x.T`` / ``x.mT`` / ``x.mH`` / ``x.H`` / ``x.adjoint()``.

Corresponds to aten/src/ATen/native/TensorShape.cpp (``reshape`` -> ``view`` or ``clone`` + ``_unsafe_view``,
``flatten``, ``chunk`` -> ``split``, ``movedim`` -> ``permute`` (or ``alias`` for a 0-dim tensor), ``tensor_split``
-> ``slice``, ``numpy_T``, ``matrix_H``, ``mT``, ``mH``, ``adjoint``) and ExpandUtils.h (``broadcast_tensors``).
They run above autograd, so autograd, modes and post-dispatch graphs see the ops they call; a pre-dispatch trace
records them whole. The conjugating forms (``mH`` / ``H`` / ``adjoint``) end with ``_conj`` for a complex tensor. Deprecated
uses warn once per process, as TORCH_WARN_ONCE.
"""

from __future__ import annotations

import warnings

from ..tensor import Tensor
from .composite import _CONTIGUOUS_FORMAT, _aten, _op, _prod
from .kernel_registry import impl
from .meta_utils import wrap_dim
from .views import compute_view_strides, infer_size

# --- reshape / flatten / chunk / expand_as / view_as / broadcast_to (TensorShape.cpp) ------------------


def _reshape(self: Tensor, shape: list[int]) -> Tensor:
    if self._contiguous:
        return _op("view")(self, list(shape))
    shape = infer_size(shape, self.numel())
    if compute_view_strides(self._shape, self._stride, shape) is not None:
        return _op("view")(self, shape)
    return _op("_unsafe_view")(_op("clone")(self, memory_format=_CONTIGUOUS_FORMAT), shape)


@impl("reshape", "CompositeImplicitAutograd")
def reshape(self: Tensor, shape: list[int]) -> Tensor:
    return _reshape(self, shape)


@impl("flatten.using_ints", "CompositeImplicitAutograd")
def flatten_using_ints(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    ndim = self.dim()
    start = wrap_dim(start_dim, max(ndim, 1))  # a 0-d tensor wraps dims like a 1-d one
    end = wrap_dim(end_dim, max(ndim, 1))
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if ndim == 0:
        return _reshape(self, [1])
    if start == end:
        return self
    sizes = self._shape
    return _reshape(self, [*sizes[:start], _prod(sizes[start : end + 1]), *sizes[end + 1 :]])


@impl("chunk", "CompositeImplicitAutograd")
def chunk(self: Tensor, chunks: int, dim: int = 0) -> list[Tensor]:
    if self.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim_size = self._shape[wrap_dim(dim, self.dim())]
    split_size = (dim_size + chunks - 1) // chunks
    if split_size == 0 and dim_size == 0:
        sizes = [split_size] * chunks
        sizes[-1] = split_size - (split_size * chunks - dim_size)
        return _op("split_with_sizes")(self, sizes, dim)
    return _op("split.Tensor")(self, split_size, dim)


@impl("expand_as", "CompositeImplicitAutograd")
def expand_as(self: Tensor, other: Tensor) -> Tensor:
    return _op("expand")(self, list(other._shape))


@impl("view_as", "CompositeImplicitAutograd")
def view_as(self: Tensor, other: Tensor) -> Tensor:
    return _op("view")(self, list(other._shape))


@impl("reshape_as", "CompositeImplicitAutograd")
def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    return _aten().reshape.default(self, list(other._shape))


@impl("broadcast_to", "CompositeImplicitAutograd")
def broadcast_to(self: Tensor, size: list[int]) -> Tensor:
    return _aten().expand.default(self, list(size))


@impl("broadcast_tensors", "CompositeImplicitAutograd")
def broadcast_tensors(tensors: list[Tensor]) -> list[Tensor]:
    """``expand_outplace``: each tensor expanded to the common shape, unless it already has it."""
    from .meta_utils import broadcast_shapes

    shape: tuple[int, ...] = ()
    for i, t in enumerate(tensors):
        shape = tuple(t._shape) if i == 0 else tuple(broadcast_shapes(shape, t._shape))
    return [t if tuple(t._shape) == shape else _op("expand")(t, list(shape)) for t in tensors]


# --- moving / swapping dims --------------------------------------------------------------------------------------


def _movedim(self: Tensor, source: list[int], destination: list[int]) -> Tensor:
    if len(source) != len(destination):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(source)} dims) should contain the same "
            f"number of dims as destination ({list(destination)} dims)"
        )
    ndim = len(self._shape)
    src = [wrap_dim(d, ndim) for d in source]
    dst = [wrap_dim(d, ndim) for d in destination]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(source)})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(destination)})")
    if ndim == 0:
        return _op("alias")(self)
    order = [-1] * ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(ndim) if d not in src)
    order = [next(rest) if o == -1 else o for o in order]
    return _op("permute")(self, order)


@impl("movedim.intlist", "CompositeImplicitAutograd")
def movedim_intlist(self: Tensor, source: list[int], destination: list[int]) -> Tensor:
    return _movedim(self, list(source), list(destination))


@impl("movedim.int", "CompositeImplicitAutograd")
def movedim_int(self: Tensor, source: int, destination: int) -> Tensor:
    return _movedim(self, [source], [destination])


@impl("moveaxis.intlist", "CompositeImplicitAutograd")
def moveaxis_intlist(self: Tensor, source: list[int], destination: list[int]) -> Tensor:
    return _op("movedim.intlist")(self, source, destination)


@impl("moveaxis.int", "CompositeImplicitAutograd")
def moveaxis_int(self: Tensor, source: int, destination: int) -> Tensor:
    return _op("movedim.int")(self, source, destination)


@impl("swapaxes", "CompositeImplicitAutograd")
def swapaxes(self: Tensor, axis0: int, axis1: int) -> Tensor:
    return _op("transpose.int")(self, axis0, axis1)


@impl("swapdims", "CompositeImplicitAutograd")
def swapdims(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _op("transpose.int")(self, dim0, dim1)


# --- unflatten / tensor_split ----------------------------------------------------------------------------------


@impl("unflatten.int", "CompositeImplicitAutograd")
def unflatten_int(self: Tensor, dim: int, sizes: list[int]) -> Tensor:
    from .views import infer_size

    ndim = len(self._shape)
    dim = wrap_dim(dim, ndim)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if ndim == 0:  # ATen reads self.size(0) inside its try block and reports what it catches
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 but tensor has no dimensions")
    try:
        inferred = infer_size(list(sizes), self._shape[dim])
    except RuntimeError as e:
        if "is invalid for input of size" in str(e):
            raise RuntimeError(
                f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                f"({self._shape[dim]}) in the input tensor"
            ) from None
        raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
    shape = list(self._shape[:dim]) + list(inferred) + list(self._shape[dim + 1:])
    return _op("view")(self, shape)


def _split_dim(self: Tensor, dim: int) -> int:
    ndim = len(self._shape)
    if ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    return wrap_dim(dim, ndim)


@impl("tensor_split.sections", "CompositeImplicitAutograd")
def tensor_split_sections(self: Tensor, sections: int, dim: int = 0) -> list[Tensor]:
    d = _split_dim(self, dim)
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    size = self._shape[d]
    base, extra = divmod(size, sections)
    out, start = [], 0
    for i in range(sections):
        n = base + 1 if i < extra else base
        out.append(_op("slice.Tensor")(self, d, start, start + n))
        start += n
    return out


@impl("tensor_split.indices", "CompositeImplicitAutograd")
def tensor_split_indices(self: Tensor, indices: list[int], dim: int = 0) -> list[Tensor]:
    d = _split_dim(self, dim)
    out, start = [], 0
    for idx in indices:
        out.append(_op("slice.Tensor")(self, d, start, idx))
        start = idx
    out.append(_op("slice.Tensor")(self, d, start, self._shape[d]))
    return out


@impl("tensor_split.tensor_indices_or_sections", "CompositeImplicitAutograd")
def tensor_split_tensor(self: Tensor, tensor_indices_or_sections: Tensor, dim: int = 0) -> list[Tensor]:
    t = tensor_indices_or_sections
    if t._device.type != "cpu":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be on cpu, but it's on {t._device}")
    if t._dtype.name != "int64":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                           f"{_scalar_type_name(t)}")
    ndim = len(t._shape)
    if ndim not in (0, 1):
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                           f"one-dimensional tensor, but got a tensor with {ndim} dims")
    if ndim == 0:
        return _op("tensor_split.sections")(self, int(t.item()), dim)
    return _op("tensor_split.indices")(self, [int(v) for v in t.tolist()], dim)


def _scalar_type_name(t: Tensor) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int32": "Int", "int16": "Short",
            "int8": "Char", "uint8": "Byte", "bool": "Bool", "uint16": "UInt16", "uint32": "UInt32",
            "uint64": "UInt64"}.get(t._dtype.name, t._dtype.name)


# --- the transpose properties: x.T, x.mT, x.mH, x.H, x.adjoint() ---------------------------------------


_WARNED: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, UserWarning, stacklevel=4)


@impl("numpy_T", "CompositeImplicitAutograd")
def numpy_T(self: Tensor) -> Tensor:  # noqa: N802 - PyTorch's name
    n = len(self._shape)
    if n not in (0, 2):
        _warn_once("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and "
                   "it will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
                   "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.")
    if n == 0:
        _warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.")
    return _op("permute")(self, list(range(n - 1, -1, -1)))


def _adjoint(self: Tensor, name: str) -> Tensor:
    n = len(self._shape)
    if n == 1:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. Got 1-D tensor.")
    out = self if n == 0 else _op("transpose.int")(self, -2, -1)
    return _conj_if_complex(out) if name != "mT" else out


def _conj_if_complex(t: Tensor) -> Tensor:
    """``Tensor::conj`` (inlined in torch: ``_conj`` for a complex tensor, the tensor itself otherwise)."""
    return _op("_conj")(t) if t._dtype.is_complex else t


@impl("mT", "CompositeImplicitAutograd")
def mT(self: Tensor) -> Tensor:  # noqa: N802
    if not self._shape:
        _warn_once("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.")
    return _adjoint(self, "mT")


@impl("mH", "CompositeImplicitAutograd")
def mH(self: Tensor) -> Tensor:  # noqa: N802
    if not self._shape:
        _warn_once("Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().")
    return _adjoint(self, "mH")


@impl("adjoint", "CompositeImplicitAutograd")
def adjoint(self: Tensor) -> Tensor:
    if not self._shape:
        _warn_once("adjoint() is deprecated on 0-D tensors. Consider using x.conj().")
    return _adjoint(self, "adjoint()")


@impl("matrix_H", "CompositeImplicitAutograd")
def matrix_H(self: Tensor) -> Tensor:  # noqa: N802
    n = len(self._shape)
    if n == 0:
        _warn_once("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
    if n not in (0, 2):
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor."
                           + (" For batches of matrices, consider using tensor.mH" if n > 2 else ""))
    return _conj_if_complex(self if n == 0 else _op("transpose.int")(self, -2, -1))


@impl("unsafe_chunk", "CompositeImplicitAutograd")
def unsafe_chunk(self: Tensor, chunks: int, dim: int = 0) -> list[Tensor]:
    """``chunk`` with ``unsafe_split`` (what RNN.cpp's cells use on their gates). NB: an empty dimension (PyTorch's
    ``unsafe_split_with_sizes`` branch, an op not listed here) gives one piece instead of ``chunks``."""
    if self.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim_size = self._shape[wrap_dim(dim, self.dim())]
    return _op("unsafe_split.Tensor")(self, (dim_size + chunks - 1) // chunks, dim)
