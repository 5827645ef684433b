"""Torch-level functions (``dispatcher.add``, ``dispatcher.zeros``, ``dispatcher.cat`` ...).

Corresponds to the generated torch/_C/_VariableFunctions (python_torch_functions.cpp)
and torch/functional.py. Each function calls the aten overload PyTorch's
binding calls, with the same arguments: factories pass ``device=`` (cpu by
default) and ``pin_memory=False`` and ``dtype=`` only when given, as PyTorch's
parser does; ``torch.where(c, x, 0.)`` calls ``where.ScalarOther``, whose
decomposition makes the ``scalar_tensor``.
"""

from __future__ import annotations

from typing import Any

from . import dtypes as _dt
from . import tensor_methods as _m
from .creation import as_tensor, from_numpy, tensor
from .op_overload import namespace
from .tensor import Tensor, as_device

aten = namespace("aten")

__all__ = [
    "tensor", "as_tensor", "from_numpy",
    "empty", "zeros", "ones", "full", "arange", "scalar_tensor", "randn", "rand", "eye",
    "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like",
    "add", "sub", "mul", "div", "neg", "exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt", "rsqrt",
    "pow", "abs", "maximum", "minimum", "where", "clamp", "matmul", "mm", "bmm", "addmm", "cat", "stack",
    "sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "softmax", "log_softmax",
    "transpose", "permute", "reshape", "flatten", "unsqueeze", "squeeze", "eq", "ne", "lt", "le", "gt", "ge",
    "manual_seed", "masked_fill", "clone", "detach", "t", "split", "chunk", "unbind", "index_select", "nonzero",
    "subtract", "multiply", "divide", "clip", "concat", "concatenate", "numel", "is_tensor", "erf", "reciprocal",
    "logical_not", "bitwise_not", "dot", "mv", "silu", "gelu", "sign", "sgn", "bitwise_and", "slice_scatter",
    "empty_permuted",
]


# --- factories ----------------------------------------------------------------------------------
def _factory_kwargs(dtype: Any, device: Any) -> dict[str, Any]:
    kw: dict[str, Any] = {}
    if dtype is not None:
        kw["dtype"] = _dt.from_code(dtype)
    kw["device"] = as_device(device)
    kw["pin_memory"] = False
    return kw


def _finish(result: Tensor, requires_grad: bool) -> Tensor:
    return _m._factory_requires_grad(result) if requires_grad else result


def _no_out(out: Any, name: str) -> None:
    if out is not None:
        raise NotImplementedError(f"{name}(out=...) is not supported by dispatchkit")


def empty(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, out: Any = None,
          layout: Any = None, pin_memory: bool = False, memory_format: Any = None) -> Tensor:
    _no_out(out, "empty")
    kw = _factory_kwargs(dtype, device)
    if memory_format is not None:
        kw["memory_format"] = memory_format
    return _finish(aten.empty.memory_format(_m._size_args(size, "empty"), **kw), requires_grad)


def _sized_factory(name: str) -> Any:
    def factory(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, out: Any = None,
                layout: Any = None, pin_memory: bool = False) -> Tensor:
        _no_out(out, name)
        op = getattr(aten, name).default
        return _finish(op(_m._size_args(size, name), **_factory_kwargs(dtype, device)), requires_grad)

    factory.__name__ = name
    factory.__doc__ = f"``aten.{name}.default(size, ...)``: a new tensor of the given size."
    return factory


zeros = _sized_factory("zeros")
ones = _sized_factory("ones")
randn = _sized_factory("randn")
rand = _sized_factory("rand")


def full(size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
         out: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:
    _no_out(out, "full")
    return _finish(aten.full.default(_m._size_args((size,), "full"), fill_value, **_factory_kwargs(dtype, device)),
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


def _like_factory(name: str) -> Any:
    def factory(input: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,  # noqa: A002
                layout: Any = None, pin_memory: bool = False, memory_format: Any = None) -> Tensor:
        op = getattr(aten, name).default
        kw = _m._factory_kwargs(dtype, device)
        if memory_format is not None:
            kw["memory_format"] = memory_format
        return _finish(op(input, **kw), requires_grad)

    factory.__name__ = name
    return factory


empty_like = _like_factory("empty_like")
zeros_like = _like_factory("zeros_like")
ones_like = _like_factory("ones_like")
rand_like = _like_factory("rand_like")
randn_like = _like_factory("randn_like")


def full_like(input: Tensor, fill_value: Any, *, dtype: Any = None, device: Any = None,  # noqa: A002
              requires_grad: bool = False, layout: Any = None, pin_memory: bool = False,
              memory_format: Any = None) -> Tensor:
    return _finish(aten.full_like.default(input, fill_value, **_m._factory_kwargs(dtype, device)), requires_grad)


def manual_seed(seed: int) -> Any:
    """Seed the default generator (``dispatcher.random``)."""
    from . import random as _random

    return _random.manual_seed(seed)


# --- pointwise ----------------------------------------------------------------------------------
def _check_tensor(name: str, x: Any, arg: str = "input", pos: int = 0) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos + 1}) must be Tensor, not {type(x).__name__}")


def add(input: Tensor, other: Any, *, alpha: Any = 1, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "add")
    if not isinstance(input, Tensor) and isinstance(other, Tensor):
        _check_tensor("add", input)
    _check_tensor("add", input)
    return _m.add(input, other, alpha=alpha)


def sub(input: Tensor, other: Any, *, alpha: Any = 1, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "sub")
    _check_tensor("sub", input)
    return _m.sub(input, other, alpha=alpha)


def mul(input: Tensor, other: Any, *, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "mul")
    _check_tensor("mul", input)
    return aten.mul.Tensor(input, other)


def div(input: Tensor, other: Any, *, rounding_mode: str | None = None, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "div")
    _check_tensor("div", input)
    return _m.div(input, other, rounding_mode=rounding_mode)


subtract, multiply, divide = sub, mul, div


def _unary(name: str) -> Any:
    def fn(input: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
        _no_out(out, name)
        _check_tensor(name, input)
        return getattr(aten, name).default(input)

    fn.__name__ = name
    fn.__doc__ = f"``aten.{name}.default(input)``"
    return fn


neg = _unary("neg")
exp = _unary("exp")
log = _unary("log")
sin = _unary("sin")
cos = _unary("cos")
tanh = _unary("tanh")
sigmoid = _unary("sigmoid")
relu = _unary("relu")
sqrt = _unary("sqrt")
rsqrt = _unary("rsqrt")
abs = _unary("abs")  # noqa: A001
erf = _unary("erf")
reciprocal = _unary("reciprocal")
logical_not = _unary("logical_not")
bitwise_not = _unary("bitwise_not")
silu = _unary("silu")
sign = _unary("sign")
sgn = _unary("sgn")


def bitwise_and(input: Tensor, other: Any, *, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "bitwise_and")
    _check_tensor("bitwise_and", input)
    return _m.bitwise_and(input, other)


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None,  # noqa: A002
                  end: int | None = None, step: int = 1) -> Tensor:
    _check_tensor("slice_scatter", input)
    _check_tensor("slice_scatter", src, "src", 1)
    return _m.slice_scatter(input, src, dim, start, end, step)


def empty_permuted(size: Any, physical_layout: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                   requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Uninitialized, shaped ``size``, with dims laid out in memory in ``physical_layout`` order."""
    return _finish(aten.empty_permuted.default(list(size), list(physical_layout), **_factory_kwargs(dtype, device)),
                   requires_grad)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    if approximate == "none":
        return aten.gelu.default(input)
    return aten.gelu.default(input, approximate=approximate)


def pow(input: Any, exponent: Any, *, out: Any = None) -> Tensor:  # noqa: A001, A002
    _no_out(out, "pow")
    if isinstance(input, Tensor):
        return _m.pow(input, exponent)
    _check_tensor("pow", exponent, "exponent", 1)
    return aten.pow.Scalar(input, exponent)


def maximum(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "maximum")
    _check_tensor("maximum", input)
    _check_tensor("maximum", other, "other", 1)
    return aten.maximum.default(input, other)


def minimum(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "minimum")
    _check_tensor("minimum", input)
    _check_tensor("minimum", other, "other", 1)
    return aten.minimum.default(input, other)


def where(condition: Tensor, input: Any = None, other: Any = None) -> Any:  # noqa: A002
    """``where(c, x, y)``: where.self / ScalarSelf / ScalarOther / Scalar; ``where(c)``: ``nonzero`` + ``unbind``."""
    if input is None and other is None:
        return tuple(aten.unbind.int(aten.nonzero.default(condition), 1))
    a, b = isinstance(input, Tensor), isinstance(other, Tensor)
    if a and b:
        return aten.where.self(condition, input, other)
    if a:
        return aten.where.ScalarOther(condition, input, other)
    if b:
        return aten.where.ScalarSelf(condition, input, other)
    return aten.where.Scalar(condition, input, other)


def clamp(input: Tensor, min: Any = None, max: Any = None, *, out: Any = None) -> Tensor:  # noqa: A001, A002
    _no_out(out, "clamp")
    return _m.clamp(input, min, max)


clip = clamp


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:  # noqa: A002
    return _m.masked_fill(input, mask, value)


def _comparison(name: str) -> Any:
    method = _m._comparison(name)

    def fn(input: Tensor, other: Any, *, out: Any = None) -> Tensor:  # noqa: A002
        _no_out(out, name)
        _check_tensor(name, input)
        return method(input, other)

    fn.__name__ = name
    return fn


eq = _comparison("eq")
ne = _comparison("ne")
lt = _comparison("lt")
le = _comparison("le")
gt = _comparison("gt")
ge = _comparison("ge")


# --- linear algebra -----------------------------------------------------------------------------
def matmul(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "matmul")
    return aten.matmul.default(input, other)


def mm(input: Tensor, mat2: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "mm")
    return aten.mm.default(input, mat2)


def bmm(input: Tensor, mat2: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    _no_out(out, "bmm")
    return aten.bmm.default(input, mat2)


def dot(input: Tensor, tensor: Tensor) -> Tensor:  # noqa: A002
    return aten.dot.default(input, tensor)


def mv(input: Tensor, vec: Tensor) -> Tensor:  # noqa: A002
    return aten.mv.default(input, vec)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1,  # noqa: A002
          out: Any = None) -> Tensor:
    _no_out(out, "addmm")
    return _m.addmm(input, mat1, mat2, beta=beta, alpha=alpha)


# --- joining ------------------------------------------------------------------------------------
def _tensor_list(name: str, tensors: Any) -> list[Tensor]:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return list(tensors)


def cat(tensors: Any, dim: int = 0, *, out: Any = None) -> Tensor:
    _no_out(out, "cat")
    ts = _tensor_list("cat", tensors)
    return aten.cat.default(ts, dim) if dim else aten.cat.default(ts)


concat = concatenate = cat


def stack(tensors: Any, dim: int = 0, *, out: Any = None) -> Tensor:
    _no_out(out, "stack")
    ts = _tensor_list("stack", tensors)
    return aten.stack.default(ts, dim) if dim else aten.stack.default(ts)


# --- reductions ---------------------------------------------------------------------------------
def sum(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A001, A002
    return _m.sum(input, *args, **kwargs)


def mean(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    return _m.mean(input, *args, **kwargs)


def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:  # noqa: A002
    return _m.amax(input, dim, keepdim)


def amin(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:  # noqa: A002
    return _m.amin(input, dim, keepdim)


_max = _m._max_min("max", _m.max_return, "maximum")
_min = _m._max_min("min", _m.min_return, "minimum")


def max(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001, A002
    return _max(input, dim, keepdim)


def min(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001, A002
    return _min(input, dim, keepdim)


_argmax = _m._arg_reduction("argmax")
_argmin = _m._arg_reduction("argmin")


def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:  # noqa: A002
    return _argmax(input, dim, keepdim)


def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:  # noqa: A002
    return _argmin(input, dim, keepdim)


def softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:  # noqa: A002
    return _m._softmax_like("softmax")(input, dim, dtype)


def log_softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:  # noqa: A002
    return _m._softmax_like("log_softmax")(input, dim, dtype)


# --- shape --------------------------------------------------------------------------------------
def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:  # noqa: A002
    return aten.transpose.int(input, dim0, dim1)


def t(input: Tensor) -> Tensor:  # noqa: A002
    return aten.t.default(input)


def permute(input: Tensor, dims: Any) -> Tensor:  # noqa: A002
    return aten.permute.default(input, _m._size_args((dims,), "permute"))


def reshape(input: Tensor, shape: Any) -> Tensor:  # noqa: A002
    return aten.reshape.default(input, _m._size_args((shape,), "reshape"))


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:  # noqa: A002
    return _m.flatten(input, start_dim, end_dim)


def unsqueeze(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    return aten.unsqueeze.default(input, dim)


def squeeze(input: Tensor, dim: Any = None) -> Tensor:  # noqa: A002
    return _m.squeeze(input, dim)


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:  # noqa: A002
    return _m.clone(input, memory_format=memory_format)


def detach(input: Tensor) -> Tensor:  # noqa: A002
    return aten.detach.default(input)


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    return _m.split(tensor, split_size_or_sections, dim)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    return _m.chunk(input, chunks, dim)


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    return _m.unbind(input, dim)


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:  # noqa: A002
    return aten.index_select.default(input, dim, index)


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:  # noqa: A002
    return _m.nonzero(input, as_tuple=as_tuple)


def numel(input: Tensor) -> int:  # noqa: A002
    return input.numel()


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


# --- the functions of the later op batches (functional_more_*.py), re-exported here ---
from . import functional_more_a, functional_more_b, functional_more_c, functional_pw  # noqa: E402

# (functional_pw: the pw batch, bitwise ops, floor_divide, more math; its bitwise_and takes numbers too)

for _more in (functional_more_a, functional_more_b, functional_more_c, functional_pw,):
    for _name in _more.__all__:
        globals()[_name] = getattr(_more, _name)
    __all__ += [_n for _n in _more.__all__ if _n not in __all__]
del _more, _name

from . import functional_attn  # noqa: E402  (attn batch: einsum, lerp)

for _name in functional_attn.__all__:
    globals()[_name] = getattr(functional_attn, _name)
__all__ += functional_attn.__all__
# --- conv batch (functional_conv.py): conv1d / conv2d, pooling, batch / instance / group norm ---
from . import functional_conv  # noqa: E402

for _name in functional_conv.__all__:
    globals()[_name] = getattr(functional_conv, _name)
__all__ += functional_conv.__all__
del _name
