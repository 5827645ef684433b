"""Tensor methods and Python operators, each a call of an aten op through the dispatcher.

Corresponds to the generated python_variable_methods.cpp, torch/_tensor.py and
the Python argument parser: ``x + 1`` calls ``aten.add.Tensor(x, 1)`` (the
number stays a number), ``x == 2`` calls ``aten.eq.Scalar(x, 2)``, ``1.0 - x``
calls ``aten.rsub.Scalar(x, 1.0)``, ``3.0 / x`` calls ``aten.reciprocal`` then
``aten.mul.Tensor``: exactly the overloads PyTorch's own bindings pick (checked
op for op against torch under a logging TorchDispatchMode in
tests/test_frontend.py), so modes and tracers see the same calls.

Overload choice follows PyTorch's parser: a Tensor argument picks the
``.Tensor`` overload, a Python number the ``.Scalar`` one where both exist
(comparisons, ``pow``), except for add/sub/mul/div whose ``.Tensor`` overload
takes the number as a "wrapped number".
"""

from __future__ import annotations

import collections
import numbers
from typing import Any

import numpy as np

from . import dtypes as _dt
from .op_overload import namespace
from .tensor import Size, Tensor, as_device

aten = namespace("aten")

def _return_type(name: str) -> type:
    """``torch.return_types.<name>``: a (values, indices) named tuple with PyTorch's repr."""
    base = collections.namedtuple(name, ["values", "indices"])

    def __repr__(self: Any) -> str:  # noqa: N807
        return f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__, "__module__": "torch.return_types"})


max_return = _return_type("max")
min_return = _return_type("min")


# --- argument helpers ---------------------------------------------------------------------------
def _size_args(args: tuple, what: str = "size") -> list[int]:
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean the list [2, 3] (PyTorch's IntArrayRef parsing)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        args = tuple(args[0])
    out = []
    for a in args:
        if isinstance(a, Tensor):
            a = a.item()
        if not isinstance(a, numbers.Integral) or isinstance(a, bool):
            raise TypeError(f"{what}(): argument '{what}' must be tuple of ints, but found element of type "
                            f"{type(a).__name__}")
        out.append(int(a))
    return out


def _dim_list(dim: Any) -> list[int] | None:
    if dim is None:
        return None
    if isinstance(dim, (tuple, list)):
        return list(dim)
    return [dim]


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, bool, complex, np.generic))


def _not_tensor(op: str, name: str, x: Any) -> TypeError:
    return TypeError(f"{op}(): argument '{name}' (position 1) must be Tensor, not {type(x).__name__}")


# --- arithmetic ---------------------------------------------------------------------------------
def add(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    if type(alpha) is int and alpha == 1:
        return aten.add.Tensor(self, other)
    return aten.add.Tensor(self, other, alpha=alpha)


def sub(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    if type(alpha) is int and alpha == 1:
        return aten.sub.Tensor(self, other)
    return aten.sub.Tensor(self, other, alpha=alpha)


def mul(self: Tensor, other: Any) -> Tensor:
    return aten.mul.Tensor(self, other)


def div(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode is not None:
        return aten.div.Tensor_mode(self, other, rounding_mode=rounding_mode)
    return aten.div.Tensor(self, other)


def add_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    if type(alpha) is int and alpha == 1:
        return aten.add_.Tensor(self, other)
    return aten.add_.Tensor(self, other, alpha=alpha)


def sub_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    if type(alpha) is int and alpha == 1:
        return aten.sub_.Tensor(self, other)
    return aten.sub_.Tensor(self, other, alpha=alpha)


def mul_(self: Tensor, other: Any) -> Tensor:
    return aten.mul_.Tensor(self, other)


def div_(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode is not None:
        return aten.div_.Tensor_mode(self, other, rounding_mode=rounding_mode)
    return aten.div_.Tensor(self, other)


def pow(self: Tensor, exponent: Any) -> Tensor:  # noqa: A001 - PyTorch's name
    if isinstance(exponent, Tensor):
        return aten.pow.Tensor_Tensor(self, exponent)
    return aten.pow.Tensor_Scalar(self, exponent)


# The operators skip the keyword handling of the methods (they are the hot path). Like torch/_tensor.py's
# wrappers they return NotImplemented for an operand that is neither a Tensor nor a number, so Python raises
# "unsupported operand type(s) for +: 'Tensor' and 'str'".
_OPERAND_TYPES = (Tensor, int, float, bool, complex, np.generic)


def _binary_operator(op_name: str, overload: str) -> Any:
    resolved: list[Any] = []  # the OpOverload, looked up on first use (aten ops live as long as the process)

    def operator(self: Tensor, other: Any) -> Any:
        t = type(other)
        if t is not Tensor and t is not int and t is not float:
            if isinstance(other, np.generic):
                other = other.item()  # a NumPy scalar is a Python number to PyTorch's parser
            elif not isinstance(other, _OPERAND_TYPES):
                return NotImplemented
        if not resolved:
            resolved.append(getattr(getattr(aten, op_name), overload))
        try:
            return resolved[0](self, other)
        except TypeError:  # TypeError_to_NotImplemented_ (e.g. every __torch_dispatch__ refused): Python's error
            return NotImplemented

    operator.__name__ = f"__{op_name}__"
    return operator


def _reflected(fn: Any) -> Any:
    def operator(self: Tensor, other: Any) -> Any:
        if not isinstance(other, _OPERAND_TYPES):
            return NotImplemented
        try:
            return fn(self, other)
        except TypeError:
            return NotImplemented

    operator.__name__ = fn.__name__
    return operator


def _rsub(self: Tensor, other: Any) -> Tensor:
    """``other - self`` for a number ``other``: PyTorch's ``_C._VariableFunctions.rsub``."""
    if isinstance(other, Tensor):
        return aten.sub.Tensor(other, self)
    return aten.rsub.Scalar(self, other)


def _rdiv(self: Tensor, other: Any) -> Tensor:
    """``other / self``: torch/_tensor.py's ``__rdiv__`` is ``self.reciprocal() * other``."""
    return aten.mul.Tensor(aten.reciprocal.default(self), other)


def _rpow(self: Tensor, other: Any) -> Tensor:
    """``other ** self``: ``pow.Scalar(other, self)`` (the number keeps its Python type)."""
    if isinstance(other, Tensor):
        return aten.pow.Tensor_Tensor(other, self)
    return aten.pow.Scalar(other, self)


def _rmatmul(self: Tensor, other: Any) -> Tensor:
    return aten.matmul.default(other, self)


def _matmul_operator(self: Tensor, other: Any) -> Any:
    if not isinstance(other, Tensor):
        return NotImplemented
    return aten.matmul.default(self, other)


def _reflected_matmul(self: Tensor, other: Any) -> Any:
    if not isinstance(other, Tensor):
        return NotImplemented
    return aten.matmul.default(other, self)


def _invert(self: Tensor) -> Tensor:
    return aten.bitwise_not.default(self)


def _unary(op_name: str) -> Any:
    def method(self: Tensor) -> Tensor:
        return getattr(aten, op_name).default(self)

    method.__name__ = op_name
    method.__doc__ = f"``aten.{op_name}.default(self)``"
    return method


def _binary_tensor(op_name: str, arg: str = "other") -> Any:
    def method(self: Tensor, other: Tensor) -> Tensor:
        if not isinstance(other, Tensor):
            raise TypeError(f"{op_name}(): argument '{arg}' (position 1) must be Tensor, not {type(other).__name__}")
        return getattr(aten, op_name).default(self, other)

    method.__name__ = op_name
    return method


def _comparison(op_name: str) -> Any:
    def method(self: Tensor, other: Any) -> Tensor:
        packet = getattr(aten, op_name)
        if isinstance(other, Tensor):
            return packet.Tensor(self, other)
        if isinstance(other, np.generic):
            other = other.item()
        return packet.Scalar(self, other)

    method.__name__ = op_name
    return method


def _comparison_operator(op_name: str) -> Any:
    def method(self: Tensor, other: Any) -> Any:
        packet = getattr(aten, op_name)
        if isinstance(other, Tensor):
            return packet.Tensor(self, other)
        if _is_number(other):
            return packet.Scalar(self, other.item() if isinstance(other, np.generic) else other)
        return NotImplemented

    method.__name__ = f"__{op_name}__"
    return method


def where(self: Tensor, condition: Tensor, other: Any) -> Tensor:
    from .functional import where as _where

    return _where(condition, self, other)


def clamp(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    # the parser tries clamp(Tensor? min, Tensor? max) first, then the Scalar? one (0-dim tensors read as numbers)
    if (isinstance(min, Tensor) or isinstance(max, Tensor)) and not isinstance(min, (int, float, complex)) \
            and not isinstance(max, (int, float, complex)):
        return aten.clamp.Tensor(self, min, max)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return aten.clamp.default(self, min, max)


def masked_fill(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return aten.masked_fill.Tensor(self, mask, value)
    return aten.masked_fill.Scalar(self, mask, value)


def masked_fill_(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return aten.masked_fill_.Tensor(self, mask, value)
    return aten.masked_fill_.Scalar(self, mask, value)


def fill_(self: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        from .indexing import fill_tensor

        return fill_tensor(self, value)
    return aten.fill_.Scalar(self, value)


def zero_(self: Tensor) -> Tensor:
    return aten.zero_.default(self)


def copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    if non_blocking:
        return aten.copy_.default(self, src, non_blocking)
    return aten.copy_.default(self, src)


def bitwise_and(self: Tensor, other: Any) -> Tensor:
    """``aten.bitwise_and.Tensor``; a Python number would need ``bitwise_and.Scalar``, which is not listed."""
    if isinstance(other, Tensor):
        return aten.bitwise_and.Tensor(self, other)
    if isinstance(other, (bool, int)):
        raise NotImplementedError(
            "bitwise_and with a Python number calls aten::bitwise_and.Scalar, which dispatchkit does not list; "
            "use a tensor: bitwise_and(other_tensor)")
    raise TypeError(f"bitwise_and(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")


def _and_operator(self: Tensor, other: Any) -> Any:
    if not isinstance(other, (Tensor, bool, int)):
        return NotImplemented
    return bitwise_and(self, other)


def _iand_operator(self: Tensor, other: Any) -> Any:
    raise NotImplementedError("in-place &= calls aten::bitwise_and_, which dispatchkit does not list; use a & b")


def slice_scatter(self: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """``aten.slice_scatter.default``, trailing default arguments left out as PyTorch's binding does."""
    args: list[Any] = [self, src, dim, start, end, step]
    defaults = [0, None, None, 1]
    while len(args) > 2 and args[-1] == defaults[len(args) - 3] and type(args[-1]) is type(defaults[len(args) - 3]):
        args.pop()
    return aten.slice_scatter.default(*args)


# --- linear algebra -----------------------------------------------------------------------------
def matmul(self: Tensor, other: Tensor) -> Tensor:
    return aten.matmul.default(self, other)


def addmm(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    kwargs = {}
    if not (type(beta) is int and beta == 1):
        kwargs["beta"] = beta
    if not (type(alpha) is int and alpha == 1):
        kwargs["alpha"] = alpha
    return aten.addmm.default(self, mat1, mat2, **kwargs)


# --- reductions ---------------------------------------------------------------------------------
_NO_DIM = object()


def sum(self: Tensor, dim: Any = _NO_DIM, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A001
    kw = {} if dtype is None else {"dtype": _dt.from_code(dtype)}
    if dim is _NO_DIM and not keepdim:
        return aten.sum.default(self, **kw)
    dims = None if dim is _NO_DIM else _dim_list(dim)
    if keepdim:
        return aten.sum.dim_IntList(self, dims, keepdim, **kw)
    return aten.sum.dim_IntList(self, dims, **kw)


def mean(self: Tensor, dim: Any = _NO_DIM, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    kw = {} if dtype is None else {"dtype": _dt.from_code(dtype)}
    if dim is _NO_DIM and not keepdim:
        return aten.mean.default(self, **kw)
    dims = None if dim is _NO_DIM else _dim_list(dim)
    if keepdim:
        return aten.mean.dim(self, dims, keepdim, **kw)
    return aten.mean.dim(self, dims, **kw)


def amax(self: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    dims = _dim_list(dim)
    if keepdim:
        return aten.amax.default(self, dims, keepdim)
    return aten.amax.default(self, dims) if dims else aten.amax.default(self)


def amin(self: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    dims = _dim_list(dim)
    if keepdim:
        return aten.amin.default(self, dims, keepdim)
    return aten.amin.default(self, dims) if dims else aten.amin.default(self)


def _max_min(name: str, ret: Any, binary: str) -> Any:
    def method(self: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
        packet = getattr(aten, name)
        if dim is None:
            if keepdim:
                raise TypeError(f"{name}() received an invalid combination of arguments - got (keepdim=bool)")
            return packet.default(self)
        if isinstance(dim, Tensor):
            return getattr(aten, binary).default(self, dim)
        values, indices = packet.dim(self, dim, keepdim) if keepdim else packet.dim(self, dim)
        return ret(values, indices)

    method.__name__ = name
    return method


def _arg_reduction(name: str) -> Any:
    def method(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
        packet = getattr(aten, name).default
        if keepdim:
            return packet(self, dim, keepdim)
        return packet(self) if dim is None else packet(self, dim)

    method.__name__ = name
    return method


def _softmax_like(name: str) -> Any:
    def method(self: Tensor, dim: int, dtype: Any = None) -> Tensor:
        op = getattr(aten, name).int
        if dtype is None:
            return op(self, dim)
        return op(self, dim, _dt.from_code(dtype))

    method.__name__ = name
    return method


# --- shape and views ----------------------------------------------------------------------------
def view(self: Tensor, *shape: Any) -> Tensor:
    if len(shape) == 1 and isinstance(shape[0], _dt.dtype):
        raise NotImplementedError("view(dtype) is not supported by dispatchkit")
    return aten.view.default(self, _size_args(shape, "view"))


def reshape(self: Tensor, *shape: Any) -> Tensor:
    return aten.reshape.default(self, _size_args(shape, "reshape"))


def expand(self: Tensor, *sizes: Any) -> Tensor:
    return aten.expand.default(self, _size_args(sizes, "expand"))


def permute(self: Tensor, *dims: Any) -> Tensor:
    return aten.permute.default(self, _size_args(dims, "permute"))


def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return aten.transpose.int(self, dim0, dim1)


def t(self: Tensor) -> Tensor:
    return aten.t.default(self)


def _T(self: Tensor) -> Tensor:  # noqa: N802
    return aten.numpy_T.default(self)


def _mT(self: Tensor) -> Tensor:  # noqa: N802
    return aten.mT.default(self)


def _mH(self: Tensor) -> Tensor:  # noqa: N802
    return aten.mH.default(self)


def _H(self: Tensor) -> Tensor:  # noqa: N802
    return aten.matrix_H.default(self)


def adjoint(self: Tensor) -> Tensor:
    return aten.adjoint.default(self)


def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    if end_dim == -1:
        return aten.flatten.using_ints(self, start_dim) if start_dim else aten.flatten.using_ints(self)
    return aten.flatten.using_ints(self, start_dim, end_dim)


def unsqueeze(self: Tensor, dim: int) -> Tensor:
    return aten.unsqueeze.default(self, dim)


def squeeze(self: Tensor, dim: Any = None) -> Tensor:
    if dim is None:
        return aten.squeeze.default(self)
    if isinstance(dim, (tuple, list)):
        return aten.squeeze.dims(self, list(dim))
    return aten.squeeze.dim(self, dim)


def expand_as(self: Tensor, other: Tensor) -> Tensor:
    return aten.expand_as.default(self, other)


def view_as(self: Tensor, other: Tensor) -> Tensor:
    return aten.view_as.default(self, other)


def contiguous(self: Tensor, memory_format: Any = None) -> Tensor:
    # PyTorch's binding (THPVariable_contiguous) returns self, without dispatching, when it already is laid out so:
    # a trace records aten.contiguous only where a copy is needed (also before dispatch, where it is kept whole)
    if self.is_contiguous(memory_format=memory_format):
        return self
    if memory_format is None:
        return aten.contiguous.default(self)
    return aten.contiguous.default(self, memory_format=memory_format)


def clone(self: Tensor, *, memory_format: Any = None) -> Tensor:
    if memory_format is not None:
        return aten.clone.default(self, memory_format=memory_format)
    return aten.clone.default(self)


def detach(self: Tensor) -> Tensor:
    return aten.detach.default(self)


def unbind(self: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    return tuple(aten.unbind.int(self, dim) if dim else aten.unbind.int(self))


def split(self: Tensor, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
    if isinstance(split_size, (list, tuple)):
        try:
            op = aten.split_with_sizes.default
        except AttributeError:
            raise NotImplementedError("split with a list of sizes needs aten::split_with_sizes, which is not in the "
                                      "op listing yet") from None
        return tuple(op(self, list(split_size), dim) if dim else op(self, list(split_size)))
    return tuple(aten.split.Tensor(self, split_size, dim) if dim else aten.split.Tensor(self, split_size))


def chunk(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    return tuple(aten.chunk.default(self, chunks, dim) if dim else aten.chunk.default(self, chunks))


def index_select(self: Tensor, dim: int, index: Tensor) -> Tensor:
    return aten.index_select.default(self, dim, index)


def nonzero(self: Tensor, *, as_tuple: bool = False) -> Any:
    result = aten.nonzero.default(self)
    if as_tuple:
        return tuple(aten.unbind.int(result, 1))
    return result


# --- conversions --------------------------------------------------------------------------------
def to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``to(dtype)``, ``to(device[, dtype])``, ``to(other)``, ``to(dtype=..., device=...)`` (PyTorch's forms)."""
    non_blocking = kwargs.pop("non_blocking", False)
    copy = kwargs.pop("copy", False)
    dtype = kwargs.pop("dtype", None)
    dev = kwargs.pop("device", None)
    mf = kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        other = rest.pop(0)
        extra = _flags(non_blocking, copy, mf)
        # PyTorch's binding takes other's dtype and device (it does not call aten::to.other).
        return aten.to.dtype_layout(self, dtype=other.dtype, device=other.device, **extra)
    if rest and isinstance(rest[0], (str, type(self.device))):
        dev = rest.pop(0)
    if rest and isinstance(rest[0], (_dt.dtype, int)) and not isinstance(rest[0], bool):
        dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        copy = rest.pop(0)
    if rest:
        got = tuple(type(a).__name__ for a in args)
        raise TypeError(f"to() received an invalid combination of arguments - got {got}")
    pos_flags = [non_blocking, copy] if copy or mf is not None else [non_blocking] if non_blocking else []
    mf_kw = {} if mf is None else {"memory_format": mf}
    if dev is not None and dtype is not None:
        return aten.to.device(self, as_device(dev), _dt.from_code(dtype), *pos_flags, **mf_kw)
    if dev is not None or (mf is not None and dtype is None):
        # a device alone (or only a memory format): PyTorch's binding passes self's TensorOptions (dtype, layout,
        # device) with the new device / memory format
        extra = _flags(non_blocking, copy, mf)
        return aten.to.dtype_layout(self, dtype=self.dtype, layout=_STRIDED,
                                    device=self.device if dev is None else as_device(dev), **extra)
    if dtype is not None:
        return aten.to.dtype(self, _dt.from_code(dtype), *pos_flags, **mf_kw)
    if copy:  # (a copy with nothing else: the binding passes self's options, as for a memory format)
        return aten.to.dtype_layout(self, dtype=self.dtype, layout=_STRIDED, device=self.device,
                                    **_flags(non_blocking, copy))
    return self


def _flags(non_blocking: bool, copy: bool, memory_format: Any = None) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if non_blocking:
        extra["non_blocking"] = True
    if copy:
        extra["copy"] = True
    if memory_format is not None:
        extra["memory_format"] = memory_format
    return extra


def _to_dtype(dtype: _dt.dtype) -> Any:
    def method(self: Tensor, memory_format: Any = None) -> Tensor:
        if memory_format is not None:  # (the binding's dispatch_to: to(dtype, non_blocking, copy, memory_format))
            return aten.to.dtype(self, dtype, False, False, memory_format=memory_format)
        return aten.to.dtype(self, dtype)

    method.__name__ = dtype.name if hasattr(dtype, "name") else str(dtype)
    return method


def type_as(self: Tensor, other: Tensor) -> Tensor:
    return aten.to.dtype_layout(self, dtype=other.dtype, layout=_STRIDED, device=other.device)


#: ``torch.strided`` (equal to its c10::Layout code, 0; graphs print it as torch.strided)
from .memory_format import strided as _STRIDED  # noqa: E402


def type_(self: Tensor, dtype: Any = None, non_blocking: bool = False) -> Any:
    if dtype is None:
        return _TYPE_NAMES.get(self.dtype.name if hasattr(self.dtype, "name") else "", "torch.Tensor")
    if isinstance(dtype, str):
        rev = {v: k for k, v in _TYPE_NAMES.items()}
        dtype = getattr(_dt, rev[dtype])
    return aten.to.dtype(self, _dt.from_code(dtype))


_TYPE_NAMES = {
    "float32": "torch.FloatTensor", "float64": "torch.DoubleTensor", "float16": "torch.HalfTensor",
    "int64": "torch.LongTensor", "int32": "torch.IntTensor", "int16": "torch.ShortTensor", "int8": "torch.CharTensor",
    "uint8": "torch.ByteTensor", "bool": "torch.BoolTensor",
}


def item(self: Tensor) -> Any:
    # aten.item checks the size and calls _local_scalar_dense (float(), int() and __index__ go through it too)
    return aten.item.default(self)


def _float(self: Tensor) -> float:
    if self.numel() != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return float(aten.item.default(self))


def _int(self: Tensor) -> int:
    if self.numel() != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return int(aten.item.default(self))


def _index(self: Tensor) -> int:
    if self.numel() != 1 or self.dtype.is_floating_point or self.dtype.is_complex:
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return int(aten.item.default(self))


def _bool(self: Tensor) -> bool:
    return bool(aten.is_nonzero.default(self))


def tolist(self: Tensor) -> Any:
    if self._data is None:
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
    return self._data.tolist()


# --- autograd (the logic lives in dispatcher/autograd/tensor_api.py and hooks.py) ----------------
def requires_grad_(self: Tensor, requires_grad: bool = True) -> Tensor:
    from .autograd.tensor_api import requires_grad_ as impl

    return impl(self, requires_grad)


def _factory_requires_grad(result: Tensor) -> Tensor:
    """``requires_grad=True`` of a factory function (its error says "floating point and complex")."""
    from .autograd.tensor_api import factory_requires_grad

    return factory_requires_grad(result)


def detach_(self: Tensor) -> Tensor:
    return aten.detach_.default(self)


def retain_grad(self: Tensor) -> None:
    from .autograd.hooks import retain_grad as impl

    impl(self)


def _retains_grad(self: Tensor) -> bool:
    return self._retains_grad


def register_hook(self: Tensor, hook: Any) -> Any:
    from .autograd.hooks import register_hook as impl

    return impl(self, hook)


def register_post_accumulate_grad_hook(self: Tensor, hook: Any) -> Any:
    from .autograd.hooks import register_post_accumulate_grad_hook as impl

    return impl(self, hook)


# --- factories on a tensor (new_*) --------------------------------------------------------------
def _factory_kwargs(dtype: Any, device: Any) -> dict[str, Any]:
    """Keyword arguments PyTorch's binding passes to ``new_*`` / ``*_like`` ops: dtype and device when given, pin_memory."""
    kw: dict[str, Any] = {}
    if dtype is not None:
        kw["dtype"] = _dt.from_code(dtype)
    if device is not None:
        kw["device"] = as_device(device)
    kw["pin_memory"] = False
    return kw


def _new(name: str) -> Any:
    def method(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
        result = getattr(aten, name).default(self, _size_args(size, name), **_factory_kwargs(dtype, device))
        return _factory_requires_grad(result) if requires_grad else result

    method.__name__ = name
    return method


def new_full(self: Tensor, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    result = aten.new_full.default(self, _size_args((size,), "new_full"), fill_value, **_factory_kwargs(dtype, device))
    return _factory_requires_grad(result) if requires_grad else result


def numpy(self: Tensor, *, force: bool = False) -> Any:
    if self._data is None:
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
    if self.requires_grad and not force:
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    return self._data


def _array(self: Tensor, dtype: Any = None, copy: Any = None) -> np.ndarray:
    """``np.asarray(t)``: the values (a copy when a dtype conversion is asked for)."""
    arr = numpy(self)
    return arr if dtype is None else arr.astype(dtype)


def _iter(self: Tensor) -> Any:
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(self.unbind(0))  # the method: a TorchFunctionMode sees dim, unbind as in torch


def _format(self: Tensor, spec: str) -> str:
    if self.dim() == 0:
        return self.item().__format__(spec)
    return object.__format__(self, spec)


def _cpu(self: Tensor) -> Tensor:
    return to(self, "cpu")


_UNARY = ("neg", "exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt", "rsqrt", "abs", "reciprocal",
          "erf", "logical_not", "bitwise_not", "silu", "sign", "sgn")
_COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")


def install() -> None:
    """Attach the methods and operators to Tensor (called once at import)."""
    from . import indexing

    T = Tensor  # noqa: N806
    for name in _UNARY:
        setattr(T, name, _unary(name))
    T.relu_ = lambda self: aten.relu_.default(self)
    for name in _COMPARISONS:
        setattr(T, name, _comparison(name))
        setattr(T, f"__{name}__", _comparison_operator(name))
    T.__hash__ = lambda self: id(self)
    for name, arg in (("maximum", "other"), ("minimum", "other"), ("mm", "mat2"), ("bmm", "mat2"), ("dot", "tensor"),
                      ("mv", "vec")):
        setattr(T, name, _binary_tensor(name, arg))
    methods = {
        "add": add, "sub": sub, "mul": mul, "div": div, "add_": add_, "sub_": sub_, "mul_": mul_, "div_": div_,
        "subtract": sub, "multiply": mul, "divide": div, "true_divide": div,
        "pow": pow, "where": where, "clamp": clamp, "clip": clamp, "masked_fill": masked_fill,
        "masked_fill_": masked_fill_, "fill_": fill_, "zero_": zero_, "copy_": copy_,
        "matmul": matmul, "addmm": addmm,
        "sum": sum, "mean": mean, "amax": amax, "amin": amin,
        "max": _max_min("max", max_return, "maximum"), "min": _max_min("min", min_return, "minimum"),
        "argmax": _arg_reduction("argmax"), "argmin": _arg_reduction("argmin"),
        "softmax": _softmax_like("softmax"), "log_softmax": _softmax_like("log_softmax"),
        "view": view, "reshape": reshape, "expand": expand, "permute": permute, "transpose": transpose, "t": t,
        "adjoint": adjoint,
        "flatten": flatten, "unsqueeze": unsqueeze, "squeeze": squeeze, "expand_as": expand_as, "view_as": view_as,
        "contiguous": contiguous, "clone": clone, "detach": detach, "unbind": unbind, "split": split, "chunk": chunk,
        "index_select": index_select, "nonzero": nonzero,
        "to": to, "type_as": type_as, "type": type_, "cpu": _cpu,
        "float": _to_dtype(_dt.float32), "double": _to_dtype(_dt.float64), "half": _to_dtype(_dt.float16),
        "long": _to_dtype(_dt.int64), "int": _to_dtype(_dt.int32), "short": _to_dtype(_dt.int16),
        "char": _to_dtype(_dt.int8), "byte": _to_dtype(_dt.uint8), "bool": _to_dtype(_dt.bool),
        "item": item, "tolist": tolist, "numpy": numpy, "requires_grad_": requires_grad_,
        "detach_": detach_, "retain_grad": retain_grad, "register_hook": register_hook,
        "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook,
        "new_zeros": _new("new_zeros"), "new_ones": _new("new_ones"), "new_empty": _new("new_empty"),
        "new_full": new_full, "bitwise_and": bitwise_and, "slice_scatter": slice_scatter,
        # operators
        "__add__": _binary_operator("add", "Tensor"), "__radd__": _binary_operator("add", "Tensor"),
        "__iadd__": _binary_operator("add_", "Tensor"),
        "__sub__": _binary_operator("sub", "Tensor"), "__rsub__": _reflected(_rsub),
        "__isub__": _binary_operator("sub_", "Tensor"),
        "__mul__": _binary_operator("mul", "Tensor"), "__rmul__": _binary_operator("mul", "Tensor"),
        "__imul__": _binary_operator("mul_", "Tensor"),
        "__truediv__": _binary_operator("div", "Tensor"), "__rtruediv__": _reflected(_rdiv),
        "__itruediv__": _binary_operator("div_", "Tensor"),
        "__pow__": _reflected(pow), "__rpow__": _reflected(_rpow),
        "__matmul__": _matmul_operator, "__rmatmul__": _reflected_matmul,
        "__neg__": _unary("neg"), "__abs__": _unary("abs"), "__invert__": _invert,
        "__and__": _and_operator, "__rand__": _and_operator, "__iand__": _iand_operator,
        "__float__": _float, "__int__": _int, "__index__": _index, "__bool__": _bool,
        "__iter__": _iter, "__format__": _format, "__array__": _array,
        "__getitem__": indexing.getitem, "__setitem__": indexing.setitem,
    }
    for name, fn in methods.items():
        setattr(T, name, fn)
    from . import functional_more_a  # ops_a batch: in-place unary methods, ...

    functional_more_a.install(T)
    from . import functional_more_b  # ops_b batch: tril, var, std, logsumexp, ...

    functional_more_b.install(T)
    from . import functional_more_c  # ops_c batch: diagonal, movedim, unflatten, tensor_split, ...

    functional_more_c.install(T)
    from . import functional_attn  # attn batch: lerp, lerp_

    functional_attn.install(T)
    from . import functional_pw  # pw batch: bitwise operators and methods, //, floor_divide, more math

    functional_pw.install(T)
    T.retains_grad = property(_retains_grad)
    T.T = property(_T)
    T.mT = property(_mT)
    T.mH = property(_mH)
    T.H = property(_H)
