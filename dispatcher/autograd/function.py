"""The generic autograd kernel: record a graph node for any op with a derivative formula.

Corresponds to the generated VariableType kernels (torch/csrc/autograd/generated/VariableType*.cpp)
driven by tools/autograd/derivatives.yaml. One boxed kernel serves every op:

1. if grad mode is on and a differentiable input requires grad, make a node whose
   ``next_functions`` point at the inputs' gradient edges, and save what the
   formula needs (inputs before the op runs, outputs after);
2. run the op *below autograd*: redispatch with the key set masked to the keys
   after autograd, with autograd and ADInplaceOrView excluded from TLS for the
   nested calls (``AutoDispatchBelowADInplaceOrView``);
3. attach the node to the outputs (``grad_fn``, ``requires_grad``).

A formula is registered with ``derivative(...)`` (see the ``derivatives`` package): the
inputs it differentiates, what to save, and a backward function written with
aten ops (never NumPy), so that backward passes go through the dispatcher too.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..dispatch import redispatch_excluding, resolve_key_set
from ..keys import DispatchKey
from ..keyset import BACKEND_MASK as _BACKEND_MASK
from ..keyset import full_after_bits
from ..tensor import Tensor
from ..tls import AUTOGRAD_AND_ADINPLACEORVIEW_RAW, PYTHON_RAW, per_thread
from .graph import Node, SavedTensor, _graph_task, gradient_edge, node_class
from .views import check_inplace, rebase_history, record_view_fn, set_history

_AFTER_AUTOGRAD = full_after_bits(DispatchKey.AutogradOther)


@dataclass
class Derivative:
    """How to differentiate one op (one entry of derivatives.yaml)."""

    op_name: str  #: "mul.Tensor"
    node_name: str  #: "MulBackward0"
    inputs: tuple[str, ...]  #: differentiable inputs, by schema argument name ("self", "other")
    backward: Callable[..., Sequence[Any]]  #: (ctx, grads, needs) -> one gradient per entry of ``inputs``
    save_inputs: tuple[str, ...] = ()  #: argument names whose values the formula reads (tensors are saved)
    save_outputs: tuple[int, ...] = ()  #: output indices the formula reads
    non_differentiable_outputs: tuple[int, ...] = ()  #: outputs that never require grad (e.g. indices)
    positions: dict[str, int] = field(default_factory=dict)  #: argument name -> position (filled at bind time)
    #: argument names of which only the geometry is saved (a ``TensorGeometry``, or a list of them for a
    #: Tensor[]), as PyTorch saves ``self_sym_sizes`` / ``TensorGeometry(self)`` / ``self.options()``: no
    #: reference to the tensor and no version check.
    save_meta: tuple[str, ...] = ()
    #: in-place ops whose formula reads the value ``self`` had before the op: the indices of the inputs
    #: whose gradient needs it. When one of them is needed, ``self.clone()`` is saved as ``self`` before
    #: the op runs (the generated VariableType code's ``original_self``).
    clone_self_for: tuple[int, ...] = ()
    #: tensor arguments that must not require grad while grad mode is on (PyTorch's check_no_requires_grad,
    #: e.g. nll_loss_forward's ``weight``): the op refuses them in the forward
    no_requires_grad: tuple[str, ...] = ()
    #: the Python name of the node's class when it is not ``node_name``: ``"CppFunction"`` for the nodes torch does
    #: not bind to Python (most ``Foreach...Backward`` ones; ``name()`` still returns ``node_name``)
    python_class: str | None = None


class TensorGeometry:
    """Sizes, strides, storage offset, dtype and device of a tensor, without the tensor.

    Corresponds to ATen's ``TensorGeometry`` plus the ``options()`` formulas save. It answers the
    attributes formulas read (``_shape``, ``_stride``, ``_storage_offset``, ``_dtype``, ``_device``,
    ``dim()``, ``numel()``), so a formula reads a saved geometry as it would read the tensor.
    """

    __slots__ = ("_shape", "_stride", "_storage_offset", "_dtype", "_device")

    def __init__(self, t: Any) -> None:
        self._shape = tuple(t._shape)
        self._stride = tuple(t._stride)
        self._storage_offset = t._storage_offset
        self._dtype = t._dtype
        self._device = t._device

    def dim(self) -> int:
        return len(self._shape)

    def numel(self) -> int:
        n = 1
        for s in self._shape:
            n *= s
        return n


def _geometry(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_geometry(v) for v in value]
    return TensorGeometry(value) if getattr(value, "_key_set", None) is not None else value


DERIVATIVES: dict[str, Derivative] = {}
#: op name -> (module, line) of the module-level code that registered its formula (an ``inplace_of`` line
#: names the in-place op's family file, where the formula's ``def`` is its out-of-place op's): for ``where``
DERIVATIVE_SITES: dict[str, tuple[str, int]] = {}


class BackwardContext:
    """What a backward formula sees: saved values by name, and the op's non-tensor arguments."""

    # Underscored, so no argument name (``values`` of index_put, ``node``) is shadowed.
    __slots__ = ("_node", "_values")

    def __init__(self, node: Node, values: dict[str, Any]) -> None:
        self._node = node
        self._values = values

    @property
    def node(self) -> Node:
        return self._node

    def __getattr__(self, name: str) -> Any:
        if name in ("_node", "_values"):
            raise AttributeError(name)
        node = self._node
        if name in node.saved:
            return node.unpack(name)
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None


def _argument_values(op: Any, args: tuple, kwargs: dict) -> dict[str, Any]:
    """Every schema argument by name (defaults filled in), from bound args/kwargs."""
    values = {}
    positional = [a for a in op._schema.arguments if not a.kwarg_only]
    for i, arg in enumerate(positional):
        values[arg.name] = args[i] if i < len(args) else arg.default
    for arg in op._schema.arguments:
        if arg.kwarg_only:
            values[arg.name] = kwargs.get(arg.name, arg.default)
    return values


def _redispatch_below_autograd(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    return redispatch_excluding(op, ks, _AFTER_AUTOGRAD, AUTOGRAD_AND_ADINPLACEORVIEW_RAW, args, kwargs)


def _requires_grad(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_requires_grad(v) for v in value)
    return bool(getattr(value, "requires_grad", False))


_LOCATIONS: dict[Any, tuple[Derivative | None, tuple[Any, ...], tuple[tuple[Any, str], ...]]] = {}

#: ops whose outputs never carry gradients (derivatives.yaml: non_differentiable / output_differentiability False)
NON_DIFFERENTIABLE = frozenset({
    "detach", "_local_scalar_dense", "argmax", "argmin", "nonzero",
    "eq.Tensor", "eq.Scalar", "ne.Tensor", "ne.Scalar", "lt.Tensor", "lt.Scalar", "le.Tensor", "le.Scalar",
    "gt.Tensor", "gt.Scalar", "ge.Tensor", "ge.Scalar", "logical_not", "bitwise_not", "bernoulli_.float",
    "empty.memory_format", "empty_strided", "zeros", "ones", "full", "arange", "arange.start",
    "arange.start_step", "scalar_tensor", "randn", "rand", "eye", "eye.m", "empty_like", "zeros_like",
    "ones_like", "full_like", "rand_like", "randn_like", "new_zeros", "new_ones", "new_empty", "new_full",
    "new_empty_strided", "isnan", "logical_and", "logical_and_", "logical_or", "logical_or_", "_efficientzerotensor",
    "bitwise_and.Tensor", "empty_permuted",
    "isinf", "bitwise_or.Tensor",
    "logical_not_",
    "logical_xor", "logical_xor_", "signbit",
})


def formula_key(op: Any) -> str:
    """The DERIVATIVES key of an op: "mul.Tensor" for aten ops, the qualified "ns::name.overload" otherwise."""
    name = op.name()
    return name[6:] if name.startswith("aten::") else name


def _locate(op: Any) -> tuple[Derivative | None, tuple[Any, ...]]:
    """The op's derivative (None: none) and, per differentiable input, its position (int) or keyword (str)."""
    found = _LOCATIONS.get(op)
    if found is None:
        d = DERIVATIVES.get(formula_key(op))
        positional = [a.name for a in op._schema.arguments if not a.kwarg_only]
        if d is not None:
            names = d.inputs
        else:  # no formula: every tensor argument counts, to detect a needed-but-missing derivative
            names = tuple(a.name for a in op._schema.arguments if a.kind != "other")
        where = tuple(positional.index(n) if n in positional else n for n in names)
        refused = tuple(
            (positional.index(n) if n in positional else n, n) for n in (d.no_requires_grad if d else ())
        )
        found = _LOCATIONS[op] = (d, where, refused)
    return found


def _check_no_requires_grad(op: Any, args: tuple, kwargs: dict, refused: tuple[tuple[Any, str], ...]) -> None:
    for w, name in refused:
        v = _input(args, kwargs, w)
        if v is not None and getattr(v, "requires_grad", False):
            raise RuntimeError(
                f"The function '{op.name().split('::')[-1].split('.')[0]}' is not differentiable with respect to argument "
                f"'{name}'. This input cannot have requires_grad True."
            )


def _input(args: tuple, kwargs: dict, where: Any) -> Any:
    if type(where) is int:
        return args[where] if where < len(args) else None
    return kwargs.get(where)


def autograd_kernel(op: Any, ks: int, args: tuple, kwargs: dict, _written_checked: bool = False) -> Any:
    """The Autograd kernel of every op that has a derivative (registered as a boxed kernel).

    Fast path (grad mode off, or no differentiable input requires grad): run the op below
    autograd, nothing else. Otherwise record a node (``_record``).
    """
    t = per_thread.s
    if ks & PYTHON_RAW and not _written_checked:
        # an in-place / out= op (``Tensor(a!)`` return) gives back its written argument whatever a mode or a subclass
        # below returned: torch's autograd kernel is unboxed C++ returning ``self`` (calls made inside a mode skip
        # it, being below autograd, and get what was pushed)
        written = _WRITTEN_ARG.get(op)
        if written is None:
            written = _WRITTEN_ARG[op] = _written_arg_position(op)
        if written:
            ret = autograd_kernel(op, ks, args, kwargs, True)
            i, name = written
            arg = args[i] if 0 <= i < len(args) else kwargs.get(name)
            return arg if isinstance(arg, Tensor) and isinstance(ret, Tensor) else ret
        # a view of a Python-key tensor keeps its view ops
        view = _IS_VIEW_OP.get(op)
        if view is None:
            view = _IS_VIEW_OP[op] = _is_view_op(op)
        if view and args and getattr(args[0], "_key_set", 0) & PYTHON_RAW:
            return _python_key_view(op, ks, args, kwargs)
    if t.grad_enabled:
        found = _LOCATIONS.get(op)
        if found is None:
            found = _locate(op)
        if found[2]:
            _check_no_requires_grad(op, args, kwargs, found[2])
        n = len(args)
        for w in found[1]:
            v = (args[w] if w < n else None) if w.__class__ is int else kwargs.get(w)
            if v is None:
                continue
            c = v.__class__
            if c is Tensor or isinstance(v, Tensor):
                # Tensor.requires_grad, read without the property call (this loop runs for every op)
                if v._requires_grad or (v._base is not None and v._base._requires_grad):
                    return _record(op, ks, args, kwargs, found)
            elif (c is list or c is tuple) and _requires_grad(v):
                return _record(op, ks, args, kwargs, found)
    # Below autograd: redispatch_excluding(op, ks, _AFTER_AUTOGRAD, AUTOGRAD_AND_ADINPLACEORVIEW_RAW, ...)
    # written out, because every op call without recording comes through here.
    ks &= _AFTER_AUTOGRAD
    given = ks
    hit = op._ks_cache.get(ks)
    if hit is None:
        hit = resolve_key_set(op, ks)
    ks, _, kernel = hit
    if kernel is None or t.tracer is not None:
        return redispatch_excluding(op, given, _AFTER_AUTOGRAD, AUTOGRAD_AND_ADINPLACEORVIEW_RAW, args, kwargs)
    added = AUTOGRAD_AND_ADINPLACEORVIEW_RAW & ~t.excluded
    if added:
        t.excluded |= added
        t.exclude_mask = ~(t.excluded & ~_BACKEND_MASK)
    try:
        c = kernel.convention
        if c == 0:
            return kernel.fn(*args, **kwargs)
        if c == 4:
            return kernel.fn(op, ks, args, kwargs)
        return kernel.call(op, ks, args, kwargs)
    finally:
        if added:
            t.excluded &= ~added
            t.exclude_mask = ~(t.excluded & ~_BACKEND_MASK)


#: op -> (position or -1 for keyword-only, name) of the argument its ``Tensor(a!)`` return aliases, or False
_WRITTEN_ARG: dict[Any, Any] = {}


def _written_arg_position(op: Any) -> Any:
    returns = op._schema.returns
    if len(returns) != 1 or returns[0].kind != "tensor":
        return False
    alias = returns[0].alias_info
    if alias is None or not alias.is_write:
        return False
    for i, a in enumerate(op._schema.arguments):
        if a.alias_info is not None and a.alias_info.is_write and a.alias_info.before_set == alias.before_set:
            return (-1 if a.kwarg_only else i, a.name)
    return False


#: what makes a tensor an autograd view of its ``_base`` (instance fields over the class defaults)
_VIEW_FIELDS = ("_base", "_attr_version", "_creation_meta", "_view_fn", "_requires_grad", "_grad_fn", "_output_nr")


def _non_differentiable_view(out: Any) -> None:
    """``detach``'s output is never an autograd view (PyTorch: ``as_view(..., is_bw_differentiable=false)``), also
    when what ran below autograd returned one (a dispatch mode decomposing ``detach`` into ``alias``)."""
    if isinstance(out, Tensor) and "_base" in out.__dict__:
        d = out.__dict__
        for field in _VIEW_FIELDS:
            d.pop(field, None)


_IS_VIEW_OP: dict[Any, bool] = {}


def _is_view_op(op: Any) -> bool:
    """The op returns views of its first argument (``Tensor(a) self -> Tensor(a)``, ``-> Tensor(a)[]``)."""
    schema = op._schema
    if not schema.returns or not schema.arguments:
        return False
    ret, first = schema.returns[0].alias_info, schema.arguments[0].alias_info
    return (ret is not None and not ret.is_write and first is not None and not first.is_write
            and bool(set(ret.before_set) & set(first.before_set)))


def _python_key_view(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    """A view op on a Python-key tensor: as usual, then its outputs keep the view ops that made them
    (``as_view`` records a view function when ``self`` has the Python key, see autograd/views.py)."""
    found = None
    if per_thread.s.grad_enabled:
        found = _LOCATIONS.get(op) or _locate(op)
        if found[2]:
            _check_no_requires_grad(op, args, kwargs, found[2])
        if not any(_requires_grad(_input(args, kwargs, w)) for w in found[1]):
            found = None
    out = _record(op, ks, args, kwargs, found) if found is not None else _redispatch_below_autograd(
        op, ks, args, kwargs)
    record_view_fn(op, args, kwargs, out)
    return out


def _record(op: Any, ks: int, args: tuple, kwargs: dict, found: tuple) -> Any:
    """The slow path: some differentiable input requires grad (and grad mode is on)."""
    d = found[0]
    if d is None:
        if "out" in op.tags:  # the out= variants' generated autograd kernels refuse (VariableType's check_no_requires_grad)
            raise RuntimeError(f"{op._schema.name.split('::', 1)[1]}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires grad.")
        out = _redispatch_below_autograd(op, ks, args, kwargs)
        name = op.name().split("::", 1)[1]
        if name not in NON_DIFFERENTIABLE and any(
            getattr(o, "_dtype", None) is not None and (o._dtype.is_floating_point or o._dtype.is_complex)
            for o in (out if isinstance(out, tuple) else (out,))
        ):
            raise NotImplementedError(f"the derivative for '{op.name()}' is not implemented.")
        if name == "detach":
            _non_differentiable_view(out)
        return out
    plan = _PLANS.get(op)
    if plan is None or plan.d is not d:
        plan = _PLANS[op] = _Plan(op, d)
    n = len(args)
    written = None  # the tensor an in-place op modifies
    if plan.written is not None:
        name, pos, default = plan.written
        written = (args[pos] if pos < n else default) if pos >= 0 else kwargs.get(name, default)
        check_inplace(written)
    needs_list = []
    edges: list[tuple[Node | None, int]] = []
    list_lengths: dict[str, int] = {}  # Tensor[] inputs: one edge per tensor, as collect_next_edges
    for name, pos, default in plan.inputs:
        v = (args[pos] if pos < n else default) if pos >= 0 else kwargs.get(name, default)
        if v.__class__ is list or v.__class__ is tuple:
            need = _requires_grad(v)
            list_lengths[name] = len(v)
            edges.extend(gradient_edge(t) if need and _requires_grad(t) else (None, 0) for t in v)
        else:
            need = getattr(v, "requires_grad", False)
            edges.append(gradient_edge(v) if need else (None, 0))
        needs_list.append(need)
    needs = tuple(needs_list)
    node = plan.node_cls(edges)
    saved = node.saved
    for name, pos, default in plan.saves:
        v = (args[pos] if pos < n else default) if pos >= 0 else kwargs.get(name, default)
        saved[name] = SavedTensor(v) if getattr(v, "_key_set", None) is not None else v
    for name, pos, default in plan.metas:
        saved[name] = _geometry((args[pos] if pos < n else default) if pos >= 0 else kwargs.get(name, default))
    if d.clone_self_for and any(needs[i] for i in d.clone_self_for):
        saved["self"] = SavedTensor(_aten_clone(written))  # a full call: autograd records it too, as in PyTorch
    values_no_tensors = {}  # what formulas read through ctx besides saved values: the non-tensor arguments
    for name, pos, default in plan.plain:
        v = (args[pos] if pos < n else default) if pos >= 0 else kwargs.get(name, default)
        if getattr(v, "_key_set", None) is None:
            values_no_tensors[name] = v
    out = _redispatch_below_autograd(op, ks, args, kwargs)
    outputs = out if out.__class__ is tuple or out.__class__ is list else (out,)  # Tensor[]: one output per tensor
    node.num_outputs = len(outputs)
    node.output_meta = [(o._shape, o._dtype, o._device) if hasattr(o, "_shape") else None for o in outputs]

    def backward(node: Node, grads: list[Any]) -> Sequence[Any]:
        ctx = BackwardContext(node, values_no_tensors)
        result = d.backward(ctx, grads, _task_needs(node, needs, d.inputs, list_lengths))
        if not list_lengths:
            return result
        flat: list[Any] = []  # a Tensor[] input's gradients (a list, or None) spread over its edges
        for name, g in zip(d.inputs, result):
            k = list_lengths.get(name)
            if k is None:
                flat.append(g)
            else:
                flat.extend(g if g is not None else [None] * k)
        return flat

    node._backward = backward
    if written is not None:
        if plan.inplace_view:  # squeeze_: self is re-shaped, its history is simply the new node
            node.output_meta = [(written._shape, written._dtype, written._device)]
            set_history(written, node, 0)
        else:
            rebase_history(written, node)  # a view's base gets a CopySlices (autograd/views.py)
    else:
        non_differentiable = d.non_differentiable_outputs
        for i, o in enumerate(outputs):
            if i in non_differentiable or not hasattr(o, "_shape"):
                continue
            if o._dtype.is_floating_point or o._dtype.is_complex:
                set_history(o, node, i)
    # Outputs are saved after they got their history (SavedVariable sees a non-leaf and keeps a detached copy).
    for i in d.save_outputs:
        if i == -1:  # every output of a Tensor[] result (the foreach nodes' ``result``), as one list
            saved["result"] = [SavedTensor(o, True) for o in outputs]
            continue
        o = outputs[i]
        saved[f"result{i}" if len(outputs) > 1 else "result"] = SavedTensor(
            o, True, written is not None and o._base is not None)
    return out


class _Plan:
    """What ``_record`` needs to know about one op, worked out on its first recorded call.

    Arguments are located as (name, position or -1 for keyword-only, schema default).
    """

    __slots__ = ("d", "inputs", "saves", "metas", "plain", "written", "inplace_view", "node_cls")

    def __init__(self, op: Any, d: Derivative) -> None:
        self.d = d
        locs: dict[str, tuple[str, int, Any]] = {}
        pos = 0
        for arg in op._schema.arguments:
            if arg.kwarg_only:
                locs[arg.name] = (arg.name, -1, arg.default)
            else:
                locs[arg.name] = (arg.name, pos, arg.default)
                pos += 1

        def where(names: Sequence[str]) -> tuple[tuple[str, int, Any], ...]:
            return tuple(locs.get(name, (name, -1, None)) for name in names)

        self.inputs = where(d.inputs)  #: the differentiable inputs
        self.saves = where(d.save_inputs)  #: saved as they are (tensors as SavedTensor)
        self.metas = where(d.save_meta)  #: saved as geometry only
        #: every argument: those whose value is not a tensor (a number for ``other``, ``alpha``, ``dim``) are
        #: kept for the formula's ``ctx``
        self.plain = where([a.name for a in op._schema.arguments])
        #: the argument an in-place op writes (``self``), or None
        written = next((a.name for a in op._schema.arguments
                        if a.alias_info is not None and a.alias_info.is_write and not a.kwarg_only), None)
        self.written = None if written is None else locs[written]
        #: in-place *view* ops (``squeeze_``) change self's geometry, not its values
        self.inplace_view = "inplace_view" in (getattr(op, "tags", None) or ())
        self.node_cls = node_class(d.node_name, d.python_class)


_PLANS: dict[Any, _Plan] = {}


def _task_needs(node: Node, needs: tuple[bool, ...], inputs: tuple[str, ...], list_lengths: dict[str, int]
                ) -> tuple[bool, ...]:
    """``needs`` narrowed to what the running backward pass uses (``task_should_compute_output``).

    With ``inputs=`` (``autograd.grad``, ``backward(inputs=...)``) only the edges leading to
    them are computed, as in PyTorch, so a formula skips the gradients nobody asked for.
    """
    needed = _graph_task.needed
    if needed is None:
        return needs
    out = []
    edge = 0
    for name, need in zip(inputs, needs):
        k = list_lengths.get(name, 1)
        out.append(need and any(node.next_functions[j][0] in needed for j in range(edge, edge + k)))
        edge += k
    return tuple(out)


def _aten_clone(t: Any) -> Any:
    from ..op_overload import namespace

    return namespace("aten").clone.default(t)


def module_site() -> tuple[str, int]:
    """(module, line) of the module-level code running now: the line that asked for a registration, also when a
    helper (``inplace_of``, a loop body) made the call."""
    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_name != "<module>":
        frame = frame.f_back
    return frame.f_globals.get("__name__", "?"), frame.f_lineno


def derivative(
    op_name: str,
    node_name: str,
    inputs: Sequence[str],
    save_inputs: Sequence[str] = (),
    save_outputs: Sequence[int] = (),
    non_differentiable_outputs: Sequence[int] = (),
    save_meta: Sequence[str] = (),
    clone_self_for: Sequence[int] = (),
    no_requires_grad: Sequence[str] = (),
    python_class: str | None = None,
) -> Callable[[Callable[..., Sequence[Any]]], Callable[..., Sequence[Any]]]:
    """Decorator registering ``fn(ctx, grads, needs)`` as the derivative of ``op_name``
    ("mul.Tensor" for an aten op, "mylib::scale" for an op of another namespace).

    A Tensor[] input (``cat``'s ``tensors``) gets one edge per tensor; its formula returns a list of
    gradients for it (or None). A Tensor[] output (``unbind``) gives the node one output per tensor.
    """

    site = module_site()

    def register(fn: Callable[..., Sequence[Any]]) -> Callable[..., Sequence[Any]]:
        DERIVATIVE_SITES[op_name] = site
        DERIVATIVES[op_name] = Derivative(
            op_name, node_name, tuple(inputs), fn, tuple(save_inputs), tuple(save_outputs),
            tuple(non_differentiable_outputs), save_meta=tuple(save_meta), clone_self_for=tuple(clone_self_for),
            no_requires_grad=tuple(no_requires_grad), python_class=python_class,
        )
        return fn

    return register
