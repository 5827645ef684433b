"""The table of NumPy lowerings: for each aten overload, the NumPy code one graph node becomes.

Used by numpy_codegen.py. A *lowering rule* receives the node's arguments bound by name to the op's
schema (defaults filled in) and returns a ``Lowering``: what to write and what kind of value it makes,
which is what the code generator needs for its alias analysis and buffer reuse:

* ``ufunc``   one NumPy ufunc call ``np.<name>(operands)``: the generator may add ``out=`` (writing into
              a dead temporary) and ``dtype=`` (when NumPy's promotion differs from PyTorch's);
* ``fresh``   an expression producing a new array (``np.where``, a kernel of numpy_kernels.py, ...);
* ``view``    a NumPy view of ``sources[0]`` (``a.reshape``, ``a.transpose``, slicing);
* ``alias``   the very same array (``detach``, ``alias``, a no-op ``expand``);
* ``inplace`` writes into ``sources[0]`` and returns it (``np.add(a, b, out=a)``);
* ``multi_fresh`` / ``multi_view`` a tuple of new arrays / of views of ``sources[0]``, read by getitem nodes.

Rules never see tensors: arguments are graph Nodes (arrays at run time) or constants. ``ctx`` turns
them into source text (``ctx.v``) and gives their metadata (``ctx.meta``). An op without a rule runs
through the dispatcher (the generator's fallback). PyTorch's counterpart is Inductor's lowering table
(torch/_inductor/lowering.py), which targets loops instead of NumPy calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["LOWERINGS", "Lowering", "lowering_for", "view_lowering", "view_text"]

_BIG = 2**62  # slice ends at or beyond this mean "to the end" (PyTorch records INT64_MAX)


class Lowering:
    """How one node is computed; see the module docstring for the kinds."""

    __slots__ = ("kind", "expr", "sources", "post", "elementwise", "dtype_kw", "cast", "view_op", "reads")

    def __init__(self, kind: str, expr: str, sources: tuple = (), post: tuple[str, ...] = (),
                 elementwise: bool = True) -> None:
        self.kind = kind  #: ufunc / fresh / view / alias / inplace / multi_fresh / multi_view / fallback
        self.expr = expr  #: the expression; for ``ufunc``: "np.<name>(<operands>" without the closing paren
        self.sources = sources  #: the Nodes a view / alias / in-place result shares memory with
        self.post = post  #: statements run after the assignment, with ``{out}`` naming the result
        self.elementwise = elementwise  #: ufunc only: may write into an operand that dies at this node
        self.dtype_kw = ""  #: ufunc only, set by the generator: ", dtype=..." where NumPy would promote differently
        self.cast = ""  #: set by the generator: the NumPy dtype the result is cast to (non-ufunc kinds)
        self.view_op: tuple | None = None  #: views: ("reshape", shape) or ("transpose", perm), for folding chains
        self.reads: tuple | None = None  #: set by the generator when the code reads other nodes than the args

    def __repr__(self) -> str:
        return f"Lowering({self.kind}, {self.expr!r})"


Rule = Callable[[Any, dict], "Lowering | None"]
LOWERINGS: dict[str, Rule] = {}


def _reg(*names: str) -> Callable[[Rule], Rule]:
    def deco(fn: Rule) -> Rule:
        for n in names:
            LOWERINGS[n] = fn
        return fn
    return deco


def _uf(name: str, *operands: str, elementwise: bool = True) -> Lowering:
    return Lowering("ufunc", f"np.{name}({', '.join(operands)}", elementwise=elementwise)


def _base(ctx: Any) -> str:
    """The op's name without overload, e.g. ``aten::max``."""
    return ctx.node.target.name().split(".")[0]


def _scaled(ctx: Any, x: Any, alpha: Any) -> str:
    return ctx.v(x) if alpha == 1 else f"np.multiply({ctx.v(x)}, {ctx.v(alpha)})"


# --- pointwise ---------------------------------------------------------------------------------------------------------

_UNARY = {
    "neg": "negative", "exp": "exp", "log": "log", "sin": "sin", "cos": "cos", "tan": "tan", "tanh": "tanh",
    "sqrt": "sqrt", "abs": "absolute", "floor": "floor", "ceil": "ceil", "trunc": "trunc", "round": "rint",
    "sign": "sign", "log1p": "log1p", "expm1": "expm1", "log2": "log2", "log10": "log10", "exp2": "exp2",
    "sinh": "sinh", "cosh": "cosh", "asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
    "acosh": "arccosh", "atanh": "arctanh", "reciprocal": "reciprocal", "logical_not": "logical_not",
    "bitwise_not": "invert", "square": "square",
}
_BINARY = {  # overloads .Tensor and .Scalar
    "mul": "multiply", "div": "true_divide", "remainder": "remainder", "fmod": "fmod", "eq": "equal",
    "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
    "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor",
}


def _unary_rule(ufunc: str) -> Rule:
    return lambda ctx, a: _uf(ufunc, ctx.v(a["self"]))


def _binary_rule(ufunc: str) -> Rule:
    return lambda ctx, a: _uf(ufunc, ctx.v(a["self"]), ctx.v(a["other"]))


for _name, _ufunc in _UNARY.items():
    LOWERINGS[f"aten.{_name}.default"] = _unary_rule(_ufunc)
for _name, _ufunc in _BINARY.items():
    LOWERINGS[f"aten.{_name}.Tensor"] = _binary_rule(_ufunc)
    LOWERINGS[f"aten.{_name}.Scalar"] = _binary_rule(_ufunc)
LOWERINGS["aten.maximum.default"] = _binary_rule("maximum")
LOWERINGS["aten.minimum.default"] = _binary_rule("minimum")
LOWERINGS["aten.atan2.default"] = _binary_rule("arctan2")
LOWERINGS["aten.logical_and.default"] = _binary_rule("logical_and")
LOWERINGS["aten.logical_or.default"] = _binary_rule("logical_or")
LOWERINGS["aten.logical_xor.default"] = _binary_rule("logical_xor")


@_reg("aten.add.Tensor", "aten.add.Scalar")
def _add(ctx: Any, a: dict) -> Lowering:
    return _uf("add", ctx.v(a["self"]), _scaled(ctx, a["other"], a.get("alpha", 1)))


@_reg("aten.sub.Tensor", "aten.sub.Scalar")
def _sub(ctx: Any, a: dict) -> Lowering:
    return _uf("subtract", ctx.v(a["self"]), _scaled(ctx, a["other"], a.get("alpha", 1)))


@_reg("aten.rsub.Tensor", "aten.rsub.Scalar")
def _rsub(ctx: Any, a: dict) -> Lowering:
    return _uf("subtract", ctx.v(a["other"]), _scaled(ctx, a["self"], a.get("alpha", 1)))


@_reg("aten.div.Tensor_mode", "aten.div.Scalar_mode")
def _div_mode(ctx: Any, a: dict) -> Lowering:
    x, y, mode = ctx.v(a["self"]), ctx.v(a["other"]), a["rounding_mode"]
    if mode is None:
        return _uf("true_divide", x, y)
    integral = not ctx.meta(ctx.node).dtype.is_floating_point
    if mode == "trunc":
        return Lowering("fresh", f"_k.div_trunc({x}, {y})" if integral else f"np.trunc(np.true_divide({x}, {y}))")
    if mode == "floor":
        return Lowering("fresh", f"_k.div_floor({x}, {y})") if integral else _uf("floor_divide", x, y)
    return None


@_reg("aten.pow.Tensor_Scalar")
def _pow_scalar(ctx: Any, a: dict) -> Lowering:
    x, e = a["self"], a["exponent"]
    if ctx.meta(x).dtype.is_floating_point and not isinstance(e, bool):
        if e == 2:
            return _uf("square", ctx.v(x))
        if e == 1:
            return _uf("positive", ctx.v(x))
        if e == 0.5:
            return _uf("sqrt", ctx.v(x))
    return _uf("power", ctx.v(x), ctx.v(e))


@_reg("aten.pow.Tensor_Tensor")
def _pow_tensor(ctx: Any, a: dict) -> Lowering:
    return _uf("power", ctx.v(a["self"]), ctx.v(a["exponent"]))


@_reg("aten.pow.Scalar")
def _pow_scalar_base(ctx: Any, a: dict) -> Lowering:
    return _uf("power", ctx.v(a["self"]), ctx.v(a["exponent"]))


@_reg("aten.relu.default")
def _relu(ctx: Any, a: dict) -> Lowering:
    return _uf("maximum", ctx.v(a["self"]), "0")


@_reg("aten.sigmoid.default")
def _sigmoid(ctx: Any, a: dict) -> Lowering:
    x = ctx.v(a["self"])
    return Lowering("fresh", f"np.reciprocal(np.add(np.exp(np.negative({x})), 1))")


@_reg("aten.rsqrt.default")
def _rsqrt(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"np.reciprocal(np.sqrt({ctx.v(a['self'])}))")


@_reg("aten.erf.default")
def _erf(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"_k.erf({ctx.v(a['self'])})")


@_reg("aten.gelu.default")
def _gelu(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"_k.gelu({ctx.v(a['self'])}, {a['approximate']!r})")


@_reg("aten.gelu_backward.default")
def _gelu_backward(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"_k.gelu_backward({ctx.v(a['grad_output'])}, {ctx.v(a['self'])}, {a['approximate']!r})")


@_reg("aten.tanh_backward.default")
def _tanh_backward(ctx: Any, a: dict) -> Lowering:
    g, y = ctx.v(a["grad_output"]), ctx.v(a["output"])
    return Lowering("fresh", f"np.multiply({g}, np.subtract(1, np.square({y})))")


@_reg("aten.sigmoid_backward.default")
def _sigmoid_backward(ctx: Any, a: dict) -> Lowering:
    g, y = ctx.v(a["grad_output"]), ctx.v(a["output"])
    return Lowering("fresh", f"np.multiply(np.multiply({g}, np.subtract(1, {y})), {y})")


@_reg("aten.threshold_backward.default")
def _threshold_backward(ctx: Any, a: dict) -> Lowering:
    g, x = ctx.v(a["grad_output"]), ctx.v(a["self"])
    return Lowering("fresh", f"np.where(np.less_equal({x}, {ctx.v(a['threshold'])}), 0, {g})")


@_reg("aten.threshold.default")
def _threshold(ctx: Any, a: dict) -> Lowering:
    x = ctx.v(a["self"])
    return Lowering("fresh", f"np.where(np.less_equal({x}, {ctx.v(a['threshold'])}), {ctx.v(a['value'])}, {x})")


@_reg("aten.where.self")
def _where(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"np.where({ctx.v(a['condition'])}, {ctx.v(a['self'])}, {ctx.v(a['other'])})")


@_reg("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def _masked_fill(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"np.where({ctx.v(a['mask'])}, {ctx.v(a['value'])}, {ctx.v(a['self'])})")


@_reg("aten.clamp.default")
def _clamp(ctx: Any, a: dict) -> Lowering | None:
    lo, hi = a["min"], a["max"]
    if lo is None and hi is None:
        return None
    if hi is None:
        return _uf("maximum", ctx.v(a["self"]), ctx.v(lo))
    if lo is None:
        return _uf("minimum", ctx.v(a["self"]), ctx.v(hi))
    return _uf("clip", ctx.v(a["self"]), ctx.v(lo), ctx.v(hi))


@_reg("aten.clamp_min.default")
def _clamp_min(ctx: Any, a: dict) -> Lowering:
    return _uf("maximum", ctx.v(a["self"]), ctx.v(a["min"]))


@_reg("aten.clamp_max.default")
def _clamp_max(ctx: Any, a: dict) -> Lowering:
    return _uf("minimum", ctx.v(a["self"]), ctx.v(a["max"]))


# --- copies, conversions, aliases ----------------------------------------------------------------------------------------


@_reg("aten.clone.default")
def _clone(ctx: Any, a: dict) -> Lowering:
    fmt = a.get("memory_format")
    order = "C" if fmt is not None and fmt == 0 else "K"
    return Lowering("fresh", f"np.array({ctx.v(a['self'])}, order={order!r})")


@_reg("aten.lift_fresh_copy.default")
def _lift_fresh_copy(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"np.array({ctx.v(a['self'])}, order='K')")


@_reg("aten._to_copy.default")
def _to_copy(ctx: Any, a: dict) -> Lowering | None:
    dev = a.get("device")
    if dev is not None and str(dev) != "cpu":
        return None
    out = ctx.meta(ctx.node)
    return Lowering("fresh", f"{ctx.v(a['self'])}.astype({ctx.np_dtype(out.dtype)})")


@_reg("aten.detach.default", "aten.alias.default", "aten.lift_fresh.default")
def _alias(ctx: Any, a: dict) -> Lowering:
    return Lowering("alias", ctx.v(a["self"]), (a["self"],))


@_reg("aten.copy_.default")
def _copy_(ctx: Any, a: dict) -> Lowering:
    dst = ctx.v(a["self"])
    return Lowering("inplace", f"np.copyto({dst}, {ctx.v(a['src'])}, casting='unsafe')", (a["self"],),
                    post=(f"{{out}} = {dst}",))


@_reg("aten.fill_.Scalar", "aten.fill_.Tensor")
def _fill_(ctx: Any, a: dict) -> Lowering:
    dst = ctx.v(a["self"])
    return Lowering("inplace", f"np.copyto({dst}, {ctx.v(a['value'])}, casting='unsafe')", (a["self"],),
                    post=(f"{{out}} = {dst}",))


@_reg("aten.zero_.default")
def _zero_(ctx: Any, a: dict) -> Lowering:
    dst = ctx.v(a["self"])
    return Lowering("inplace", f"np.copyto({dst}, 0, casting='unsafe')", (a["self"],), post=(f"{{out}} = {dst}",))


# --- views ------------------------------------------------------------------------------------------------------------


@_reg("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default", "aten.unsqueeze.default",
      "aten.squeeze.default", "aten.squeeze.dim", "aten.squeeze.dims", "aten.flatten.using_ints",
      "aten.view_as.default", "aten._reshape_alias.default")
def _reshape(ctx: Any, a: dict) -> Lowering:
    return view_lowering(ctx, a["self"], ("reshape", tuple(int(s) for s in ctx.meta(ctx.node).shape)))


def view_text(var: str, view_op: tuple) -> str:
    """``var.reshape(shape)`` / ``var.transpose(perm)``; ``var.T`` for the 2-d transpose (the cheapest spelling)."""
    kind, arg = view_op
    if kind == "transpose" and arg == (1, 0):
        return f"{var}.T"
    return f"{var}.{kind}({arg!r})"


def view_lowering(ctx: Any, x: Any, view_op: tuple) -> Lowering:
    """``x.reshape(shape)`` / ``x.transpose(perm)`` as a view Lowering that remembers the op (chains fold)."""
    low = Lowering("view", view_text(ctx.v(x), view_op), (x,))
    low.view_op = view_op
    return low


@_reg("aten.t.default")
def _t(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    if len(ctx.meta(x).shape) < 2:
        return Lowering("alias", ctx.v(x), (x,))
    return view_lowering(ctx, x, ("transpose", (1, 0)))


@_reg("aten.transpose.int")
def _transpose(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    nd = max(len(ctx.meta(x).shape), 1)
    d0, d1 = a["dim0"] % nd, a["dim1"] % nd
    if d0 == d1 or len(ctx.meta(x).shape) == 0:
        return Lowering("alias", ctx.v(x), (x,))
    perm = list(range(len(ctx.meta(x).shape)))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return view_lowering(ctx, x, ("transpose", tuple(perm)))


@_reg("aten.permute.default")
def _permute(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    nd = max(len(ctx.meta(x).shape), 1)
    perm = tuple(d % nd for d in a["dims"])
    if perm == tuple(range(len(perm))):
        return Lowering("alias", ctx.v(x), (x,))
    return view_lowering(ctx, x, ("transpose", perm))


@_reg("aten.expand.default")
def _expand(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    if tuple(ctx.meta(x).shape) == tuple(ctx.meta(ctx.node).shape):
        return Lowering("alias", ctx.v(x), (x,))
    return Lowering("view", f"np.broadcast_to({ctx.v(x)}, {ctx.shape(ctx.node)})", (x,))


def _index_prefix(dim: int) -> str:
    return ":, " * dim


@_reg("aten.select.int")
def _select(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    d = a["dim"] % len(ctx.meta(x).shape)
    return Lowering("view", f"{ctx.v(x)}[{_index_prefix(d)}{ctx.v(a['index'])}, ...]", (x,))


def _slice_text(start: Any, end: Any, step: int) -> str:
    s = "" if start in (None, 0) else str(start)
    e = "" if end is None or end >= _BIG else str(end)
    return f"{s}:{e}" + ("" if step == 1 else f":{step}")


@_reg("aten.slice.Tensor")
def _slice(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    d = a["dim"] % len(ctx.meta(x).shape)
    return Lowering("view", f"{ctx.v(x)}[{_index_prefix(d)}{_slice_text(a['start'], a['end'], a['step'])}]", (x,))


def _split_views(ctx: Any, x: Any, dim: int, sizes: list[int]) -> Lowering:
    d = dim % len(ctx.meta(x).shape)
    parts, start = [], 0
    for s in sizes:
        parts.append(f"{ctx.v(x)}[{_index_prefix(d)}{start}:{start + s}]")
        start += s
    return Lowering("multi_view", "(" + "".join(p + ", " for p in parts) + ")", (x,))


@_reg("aten.split.Tensor", "aten.split_with_sizes.default")
def _split(ctx: Any, a: dict) -> Lowering:
    sizes = [m.shape[a["dim"]] for m in ctx.meta(ctx.node)]
    return _split_views(ctx, a["self"], a["dim"], sizes)


@_reg("aten.unbind.int")
def _unbind(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    n = ctx.meta(x).shape[a["dim"]]
    d = a["dim"] % len(ctx.meta(x).shape)
    parts = [f"{ctx.v(x)}[{_index_prefix(d)}{i}, ...]" for i in range(n)]
    return Lowering("multi_view", "(" + "".join(p + ", " for p in parts) + ")", (x,))


# --- matrix products ----------------------------------------------------------------------------------------------------


@_reg("aten.mm.default", "aten.bmm.default", "aten.matmul.default", "aten.mv.default", "aten.dot.default")
def _mm(ctx: Any, a: dict) -> Lowering:
    other = a.get("mat2", a.get("other", a.get("vec", a.get("tensor"))))
    return _uf("matmul", ctx.v(a["self"]), ctx.v(other), elementwise=False)


@_reg("aten.addmm.default", "aten.baddbmm.default", "aten.addmv.default")
def _addmm(ctx: Any, a: dict) -> Lowering:
    m1 = a.get("mat1", a.get("batch1", a.get("mat")))
    m2 = a.get("mat2", a.get("batch2", a.get("vec")))
    beta, alpha = a["beta"], a["alpha"]
    post = []
    if alpha != 1:
        post.append(f"np.multiply({{out}}, {ctx.v(alpha)}, out={{out}})")
    if beta != 0:
        post.append(f"np.add({{out}}, {_scaled(ctx, a['self'], beta)}, out={{out}})")
    low = _uf("matmul", ctx.v(m1), ctx.v(m2), elementwise=False)
    low.post = tuple(post)
    return low


# --- reductions ---------------------------------------------------------------------------------------------------------


def _axes(dims: Any, ndim: int) -> tuple[int, ...] | None:
    """The reduced dims, wrapped; None for all of them (no dims, an empty list, or a 0-dim input)."""
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0) or not ndim:
        return None
    if isinstance(dims, int):
        dims = [dims]
    return tuple(d % ndim for d in dims)


def _axis(dims: Any, ndim: int) -> str:
    return repr(_axes(dims, ndim))


def _dtype_kw(ctx: Any, dtype: Any) -> str:
    return "" if dtype is None else f", dtype={ctx.np_dtype(dtype)}"


# Reductions call the ufuncs' ``reduce`` directly: np.sum / np.mean / ndarray.max go through Python wrappers
# that cost more than the arithmetic on small arrays.


@_reg("aten.sum.default")
def _sum(ctx: Any, a: dict) -> Lowering:
    out = ctx.meta(ctx.node)
    return Lowering("fresh", f"np.add.reduce({ctx.v(a['self'])}, axis=None, dtype={ctx.np_dtype(out.dtype)})")


@_reg("aten.sum.dim_IntList")
def _sum_dim(ctx: Any, a: dict) -> Lowering:
    x, out = a["self"], ctx.meta(ctx.node)
    axis = _axis(a["dim"], len(ctx.meta(x).shape))
    dtype = "" if out.dtype is ctx.meta(x).dtype and out.dtype.is_floating_point else \
        f", dtype={ctx.np_dtype(out.dtype)}"
    return Lowering("fresh", f"np.add.reduce({ctx.v(x)}, axis={axis}, keepdims={bool(a['keepdim'])}{dtype})")


def _mean_lowering(ctx: Any, x: Any, dims: Any, keepdim: bool, dtype: Any) -> Lowering:
    shape = tuple(int(s) for s in ctx.meta(x).shape)
    axes = _axes(dims, len(shape))
    axis = repr(axes)
    out = ctx.meta(ctx.node)
    if dtype is not None or not out.dtype.is_floating_point:
        return Lowering("fresh", f"np.mean({ctx.v(x)}, axis={axis}, keepdims={keepdim}{_dtype_kw(ctx, dtype)})")
    count = 1
    for d in range(len(shape)) if axes is None else axes:
        count *= shape[d]
    scale = repr(1.0 / count) if count else "_nan"
    return Lowering("fresh", f"np.multiply(np.add.reduce({ctx.v(x)}, axis={axis}, keepdims={keepdim}), {scale}, "
                             f"dtype={ctx.np_dtype(out.dtype)})")


@_reg("aten.mean.default")
def _mean(ctx: Any, a: dict) -> Lowering:
    return _mean_lowering(ctx, a["self"], None, False, a.get("dtype"))


@_reg("aten.mean.dim")
def _mean_dim(ctx: Any, a: dict) -> Lowering:
    return _mean_lowering(ctx, a["self"], a["dim"], bool(a["keepdim"]), a.get("dtype"))


@_reg("aten.amax.default", "aten.amin.default")
def _amax(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    fn = "maximum" if _base(ctx).endswith("amax") else "minimum"
    axis = _axis(a["dim"], len(ctx.meta(x).shape))
    return Lowering("fresh", f"np.{fn}.reduce({ctx.v(x)}, axis={axis}, keepdims={bool(a['keepdim'])})")


@_reg("aten.max.default", "aten.min.default")
def _max_all(ctx: Any, a: dict) -> Lowering:
    fn = "amax" if _base(ctx) == "aten::max" else "amin"
    return Lowering("fresh", f"np.{fn}({ctx.v(a['self'])})")


@_reg("aten.max.dim", "aten.min.dim")
def _max_dim(ctx: Any, a: dict) -> Lowering:
    fn = "max_dim" if _base(ctx) == "aten::max" else "min_dim"
    x = a["self"]
    d = a["dim"] % max(len(ctx.meta(x).shape), 1)
    if not ctx.meta(x).shape:
        return None
    return Lowering("multi_fresh", f"_k.{fn}({ctx.v(x)}, {d}, {bool(a['keepdim'])})")


@_reg("aten.argmax.default", "aten.argmin.default")
def _argmax(ctx: Any, a: dict) -> Lowering:
    fn = "argmax" if _base(ctx) == "aten::argmax" else "argmin"
    x, dim = a["self"], a["dim"]
    if dim is None:
        expr = f"np.{fn}({ctx.v(x)})"
        if a["keepdim"]:
            expr = f"np.reshape({expr}, {ctx.shape(ctx.node)})"
        return Lowering("fresh", expr)
    return Lowering("fresh", f"np.{fn}({ctx.v(x)}, axis={dim % max(len(ctx.meta(x).shape), 1)}, "
                             f"keepdims={bool(a['keepdim'])})")


@_reg("aten.var.correction", "aten.std.correction")
def _var(ctx: Any, a: dict) -> Lowering:
    fn = "var" if _base(ctx) == "aten::var" else "std"
    x = a["self"]
    corr = 1 if a["correction"] is None else a["correction"]
    axis = _axis(a["dim"], len(ctx.meta(x).shape))
    return Lowering("fresh", f"np.{fn}({ctx.v(x)}, axis={axis}, ddof={corr!r}, keepdims={bool(a['keepdim'])})")


@_reg("aten.prod.default")
def _prod(ctx: Any, a: dict) -> Lowering:
    out = ctx.meta(ctx.node)
    return Lowering("fresh", f"np.prod({ctx.v(a['self'])}, dtype={ctx.np_dtype(out.dtype)})")


@_reg("aten.any.default", "aten.all.default")
def _any(ctx: Any, a: dict) -> Lowering:
    fn = "any" if _base(ctx) == "aten::any" else "all"
    return Lowering("fresh", f"np.{fn}({ctx.v(a['self'])})")


@_reg("aten.any.dim", "aten.all.dim")
def _any_dim(ctx: Any, a: dict) -> Lowering:
    fn = "any" if _base(ctx) == "aten::any" else "all"
    x = a["self"]
    return Lowering("fresh", f"np.{fn}({ctx.v(x)}, axis={a['dim'] % max(len(ctx.meta(x).shape), 1)}, "
                             f"keepdims={bool(a['keepdim'])})")


@_reg("aten.cumsum.default")
def _cumsum(ctx: Any, a: dict) -> Lowering:
    x, out = a["self"], ctx.meta(ctx.node)
    if not ctx.meta(x).shape:
        return Lowering("fresh", f"np.array({ctx.v(x)}, dtype={ctx.np_dtype(out.dtype)})")
    return Lowering("fresh", f"np.cumsum({ctx.v(x)}, axis={a['dim'] % len(ctx.meta(x).shape)}, "
                             f"dtype={ctx.np_dtype(out.dtype)})")


# --- nn ---------------------------------------------------------------------------------------------------------------


@_reg("aten._softmax.default", "aten._log_softmax.default")
def _softmax(ctx: Any, a: dict) -> Lowering | None:
    if a["half_to_float"]:
        return None
    fn = "softmax" if _base(ctx) == "aten::_softmax" else "log_softmax"
    x = a["self"]
    return Lowering("fresh", f"_k.{fn}({ctx.v(x)}, {a['dim'] % max(len(ctx.meta(x).shape), 1)})")


@_reg("aten._softmax_backward_data.default", "aten._log_softmax_backward_data.default")
def _softmax_backward(ctx: Any, a: dict) -> Lowering:
    fn = "softmax_backward" if _base(ctx) == "aten::_softmax_backward_data" else "log_softmax_backward"
    g = a["grad_output"]
    return Lowering("fresh", f"_k.{fn}({ctx.v(g)}, {ctx.v(a['output'])}, "
                             f"{a['dim'] % max(len(ctx.meta(g).shape), 1)})")


@_reg("aten.native_layer_norm.default")
def _layer_norm(ctx: Any, a: dict) -> Lowering:
    return Lowering("multi_fresh", f"_k.layer_norm({ctx.v(a['input'])}, {len(a['normalized_shape'])}, "
                                   f"{ctx.v(a['weight'])}, {ctx.v(a['bias'])}, {ctx.v(a['eps'])})")


@_reg("aten.native_layer_norm_backward.default")
def _layer_norm_backward(ctx: Any, a: dict) -> Lowering:
    return Lowering("multi_fresh", f"_k.layer_norm_backward({ctx.v(a['grad_out'])}, {ctx.v(a['input'])}, "
                                   f"{len(a['normalized_shape'])}, {ctx.v(a['mean'])}, {ctx.v(a['rstd'])}, "
                                   f"{ctx.v(a['weight'])}, {tuple(bool(m) for m in a['output_mask'])})")


@_reg("aten.nll_loss_forward.default")
def _nll_loss_forward(ctx: Any, a: dict) -> Lowering | None:
    if len(ctx.meta(a["self"]).shape) > 2:
        return None
    return Lowering("multi_fresh", f"_k.nll_loss_forward({ctx.v(a['self'])}, {ctx.v(a['target'])}, "
                                   f"{ctx.v(a['weight'])}, {a['reduction']}, {a['ignore_index']})")


@_reg("aten.nll_loss_backward.default")
def _nll_loss_backward(ctx: Any, a: dict) -> Lowering | None:
    if len(ctx.meta(a["self"]).shape) > 2:
        return None
    return Lowering("fresh", f"_k.nll_loss_backward({ctx.v(a['grad_output'])}, {ctx.v(a['self'])}, "
                             f"{ctx.v(a['target'])}, {ctx.v(a['weight'])}, {a['reduction']}, {a['ignore_index']}, "
                             f"{ctx.v(a['total_weight'])})")


@_reg("aten.embedding.default")
def _embedding(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"np.take({ctx.v(a['weight'])}, {ctx.v(a['indices'])}, axis=0)")


@_reg("aten.index_select.default")
def _index_select(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    return Lowering("fresh", f"np.take({ctx.v(x)}, {ctx.v(a['index'])}, "
                             f"axis={a['dim'] % max(len(ctx.meta(x).shape), 1)})")


@_reg("aten.index.Tensor")
def _index(ctx: Any, a: dict) -> Lowering:
    parts = ["slice(None)" if i is None else ctx.v(i) for i in a["indices"]]
    return Lowering("fresh", f"{ctx.v(a['self'])}[({''.join(p + ', ' for p in parts)})]")


@_reg("aten.gather.default")
def _gather(ctx: Any, a: dict) -> Lowering:
    x = a["self"]
    d = a["dim"] % max(len(ctx.meta(x).shape), 1)
    return Lowering("fresh", f"np.take_along_axis({ctx.v(x)}, {ctx.v(a['index'])}, axis={d})")


@_reg("aten.scatter.value", "aten.scatter.src")
def _scatter(ctx: Any, a: dict) -> Lowering | None:
    x, index = a["self"], a["index"]
    d = a["dim"] % max(len(ctx.meta(x).shape), 1)
    if "src" in a:
        if tuple(ctx.meta(a["src"]).shape) != tuple(ctx.meta(index).shape):
            return None
        values = ctx.v(a["src"])
    else:
        values = ctx.v(a["value"])
    return Lowering("fresh", f"np.array({ctx.v(x)}, order='K')",
                    post=(f"np.put_along_axis({{out}}, {ctx.v(index)}, {values}, axis={d})",))


@_reg("aten.embedding_dense_backward.default")
def _embedding_dense_backward(ctx: Any, a: dict) -> Lowering | None:
    if a["scale_grad_by_freq"]:
        return None
    g, out = a["grad_output"], ctx.meta(ctx.node)
    width = out.shape[-1]
    post = [f"np.add.at({{out}}, {ctx.v(a['indices'])}.reshape(-1), {ctx.v(g)}.reshape(-1, {width}))"]
    if a["padding_idx"] >= 0:
        post.append(f"{{out}}[{a['padding_idx']}] = 0")
    return Lowering("fresh", f"np.zeros({ctx.shape(ctx.node)}, dtype={ctx.np_dtype(out.dtype)})", post=tuple(post))


def _index_tuple(ctx: Any, indices: list) -> str:
    return "(" + "".join(("slice(None)" if i is None else ctx.v(i)) + ", " for i in indices) + ")"


@_reg("aten.index_put_.default", "aten._index_put_impl_.default")
def _index_put_(ctx: Any, a: dict) -> Lowering:
    x = ctx.v(a["self"])
    idx = _index_tuple(ctx, a["indices"])
    if a["accumulate"]:
        stmt = f"np.add.at({x}, {idx}, {ctx.v(a['values'])})"
    else:
        stmt = f"{x}[{idx}] = {ctx.v(a['values'])}"
    return Lowering("inplace", stmt, (a["self"],), post=(f"{{out}} = {x}",))


@_reg("aten.index_put.default")
def _index_put(ctx: Any, a: dict) -> Lowering:
    idx = _index_tuple(ctx, a["indices"])
    op = (f"np.add.at({{out}}, {idx}, {ctx.v(a['values'])})" if a["accumulate"]
          else f"{{out}}[{idx}] = {ctx.v(a['values'])}")
    return Lowering("fresh", f"np.array({ctx.v(a['self'])}, order='K')", post=(op,))


@_reg("aten.select_backward.default")
def _select_backward(ctx: Any, a: dict) -> Lowering:
    out = ctx.meta(ctx.node)
    d = a["dim"] % len(out.shape)
    return Lowering("fresh", f"np.zeros({ctx.shape(ctx.node)}, dtype={ctx.np_dtype(out.dtype)})",
                    post=(f"{{out}}[{_index_prefix(d)}{a['index']}, ...] = {ctx.v(a['grad_output'])}",))


@_reg("aten.slice_backward.default")
def _slice_backward(ctx: Any, a: dict) -> Lowering:
    out = ctx.meta(ctx.node)
    d = a["dim"] % len(out.shape)
    return Lowering("fresh", f"np.zeros({ctx.shape(ctx.node)}, dtype={ctx.np_dtype(out.dtype)})",
                    post=(f"{{out}}[{_index_prefix(d)}{_slice_text(a['start'], a['end'], a['step'])}] = "
                          f"{ctx.v(a['grad_output'])}",))


# --- joining ---------------------------------------------------------------------------------------------------------


@_reg("aten.cat.default")
def _cat(ctx: Any, a: dict) -> Lowering:
    ts = [t for t in a["tensors"] if not (len(ctx.meta(t).shape) == 1 and ctx.meta(t).shape[0] == 0)]
    if not ts:
        return None
    d = a["dim"] % len(ctx.meta(ts[0]).shape)
    out = ctx.meta(ctx.node)
    return Lowering("fresh", f"np.concatenate([{', '.join(ctx.v(t) for t in ts)}], axis={d}, "
                             f"dtype={ctx.np_dtype(out.dtype)}, casting='unsafe')")


@_reg("aten.stack.default")
def _stack(ctx: Any, a: dict) -> Lowering:
    out = ctx.meta(ctx.node)
    d = a["dim"] % len(out.shape)
    return Lowering("fresh", f"np.stack([{', '.join(ctx.v(t) for t in a['tensors'])}], axis={d}, "
                             f"dtype={ctx.np_dtype(out.dtype)}, casting='unsafe')")


# --- factories -------------------------------------------------------------------------------------------------------


def _factory(fill: str | None) -> Rule:
    def rule(ctx: Any, a: dict) -> Lowering | None:
        dev = a.get("device")
        if dev is not None and str(dev) != "cpu":
            return None
        out = ctx.meta(ctx.node)
        value = ctx.v(a["fill_value"]) if fill is None else fill
        shape, dt = ctx.shape(ctx.node), ctx.np_dtype(out.dtype)
        if value == "0":
            return Lowering("fresh", f"np.zeros({shape}, dtype={dt})")
        return Lowering("fresh", f"np.full({shape}, {value}, dtype={dt})")
    return rule


for _name in ("zeros.default", "zeros_like.default", "new_zeros.default", "empty.memory_format", "empty_like.default",
              "new_empty.default", "empty_strided.default", "new_empty_strided.default"):
    LOWERINGS[f"aten.{_name}"] = _factory("0")
for _name in ("ones.default", "ones_like.default", "new_ones.default"):
    LOWERINGS[f"aten.{_name}"] = _factory("1")
for _name in ("full.default", "full_like.default", "new_full.default"):
    LOWERINGS[f"aten.{_name}"] = _factory(None)


@_reg("aten.scalar_tensor.default")
def _scalar_tensor(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"np.array({ctx.v(a['s'])}, dtype={ctx.np_dtype(ctx.meta(ctx.node).dtype)})")


@_reg("aten.arange.default", "aten.arange.start", "aten.arange.start_step")
def _arange(ctx: Any, a: dict) -> Lowering:
    start, end, step = a.get("start", 0), a["end"], a.get("step", 1)
    out = ctx.meta(ctx.node)
    return Lowering("fresh", f"np.arange({ctx.v(start)}, {ctx.v(end)}, {ctx.v(step)}, "
                             f"dtype={ctx.np_dtype(out.dtype)})")


# --- in-place variants -------------------------------------------------------------------------------------------------


def lowering_for(name: str) -> tuple[Rule | None, bool]:
    """The rule for an op name such as ``aten.add_.Tensor`` and whether it is the in-place form of a functional rule."""
    rule = LOWERINGS.get(name)
    if rule is not None:
        return rule, False
    ns, op, overload = name.split(".")
    if op.endswith("_") and not op.endswith("__"):
        functional = LOWERINGS.get(f"{ns}.{op[:-1]}.{overload}")
        if functional is not None:
            return functional, True
    return None, False
