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

A formula is registered with ``derivative(...)`` (see ``derivatives.py``): the
inputs it differentiates, what to save, and a backward function written with
aten ops (never NumPy), so that backward passes go through the dispatcher too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..dispatch import redispatch_excluding, resolve_key_set
from ..keys import DispatchKey
from ..keyset import BACKEND_MASK as _BACKEND_MASK
from ..keyset import full_after_bits
from ..tls import AUTOGRAD_AND_ADINPLACEORVIEW_RAW, per_thread
from .graph import Node, gradient_edge, node_class

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


DERIVATIVES: dict[str, Derivative] = {}


class BackwardContext:
    """What a backward formula sees: saved values by name, and the op's non-tensor arguments."""

    __slots__ = ("node", "values")

    def __init__(self, node: Node, values: dict[str, Any]) -> None:
        self.node = node
        self.values = values

    def __getattr__(self, name: str) -> Any:
        if name in ("node", "values"):
            raise AttributeError(name)
        if name in self.node.saved:
            return self.node.unpack(name)
        try:
            return self.values[name]
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


_LOCATIONS: dict[Any, tuple[Derivative | None, tuple[Any, ...]]] = {}

#: ops whose outputs never carry gradients (derivatives.yaml: non_differentiable / output_differentiability False)
NON_DIFFERENTIABLE = frozenset({
    "detach", "lift_fresh", "lift_fresh_copy", "_local_scalar_dense", "argmax", "argmin", "nonzero",
    "eq.Tensor", "eq.Scalar", "ne.Tensor", "ne.Scalar", "lt.Tensor", "lt.Scalar", "le.Tensor", "le.Scalar",
    "gt.Tensor", "gt.Scalar", "ge.Tensor", "ge.Scalar", "logical_not", "bitwise_not", "bernoulli_.float",
    "empty.memory_format", "empty_strided", "zeros", "ones", "full", "arange", "arange.start",
    "arange.start_step", "scalar_tensor", "randn", "rand", "eye", "eye.m", "empty_like", "zeros_like",
    "ones_like", "full_like", "rand_like", "randn_like", "new_zeros", "new_ones", "new_empty", "new_full",
})


def _locate(op: Any) -> tuple[Derivative | None, tuple[Any, ...]]:
    """The op's derivative (None: none) and, per differentiable input, its position (int) or keyword (str)."""
    found = _LOCATIONS.get(op)
    if found is None:
        d = DERIVATIVES.get(op.name().split("::", 1)[1])
        positional = [a.name for a in op._schema.arguments if not a.kwarg_only]
        if d is not None:
            names = d.inputs
        else:  # no formula: every tensor argument counts, to detect a needed-but-missing derivative
            names = tuple(a.name for a in op._schema.arguments if a.kind != "other")
        where = tuple(positional.index(n) if n in positional else n for n in names)
        found = _LOCATIONS[op] = (d, where)
    return found


def _input(args: tuple, kwargs: dict, where: Any) -> Any:
    if type(where) is int:
        return args[where] if where < len(args) else None
    return kwargs.get(where)


def autograd_kernel(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    """The Autograd kernel of every op that has a derivative (registered as a boxed kernel).

    Fast path (grad mode off, or no differentiable input requires grad): run the op below
    autograd, nothing else. Otherwise record a node (``_record``).
    """
    t = per_thread.s
    if t.grad_enabled:
        found = _LOCATIONS.get(op)
        if found is None:
            found = _locate(op)
        n = len(args)
        for w in found[1]:
            v = (args[w] if w < n else None) if w.__class__ is int else kwargs.get(w)
            if v is not None and (
                _requires_grad(v) if v.__class__ in (list, tuple) else getattr(v, "requires_grad", False)
            ):
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


def _record(op: Any, ks: int, args: tuple, kwargs: dict, found: tuple[Derivative | None, tuple[Any, ...]]) -> Any:
    """The slow path: some differentiable input requires grad."""
    d, where = found
    needs = tuple(_requires_grad(_input(args, kwargs, w)) for w in where)
    if d is None:
        out = _redispatch_below_autograd(op, ks, args, kwargs)
        name = op.name().split("::", 1)[1]
        if name not in NON_DIFFERENTIABLE and any(
            getattr(o, "_dtype", None) is not None and (o._dtype.is_floating_point or o._dtype.is_complex)
            for o in (out if isinstance(out, tuple) else (out,))
        ):
            raise NotImplementedError(f"the derivative for '{op.name()}' is not implemented.")
        return out
    values = _argument_values(op, args, kwargs)
    is_inplace = op._schema.is_mutable
    if is_inplace:
        self_value = values.get("self")
        if self_value is not None and self_value.requires_grad and self_value.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    edges = []
    for name, need in zip(d.inputs, needs):
        edges.append(gradient_edge(values[name]) if need else (None, 0))
    node = node_class(d.node_name)(edges, None)
    for name in d.save_inputs:
        value = values.get(name)
        if getattr(value, "_key_set", None) is not None:
            node.save(name, value)
        else:
            node.saved[name] = value
    out = _redispatch_below_autograd(op, ks, args, kwargs)
    outputs = out if isinstance(out, tuple) else (out,)
    node.num_outputs = len(outputs)
    node.output_meta = [(o._shape, o._dtype, o._device) if hasattr(o, "_shape") else None for o in outputs]
    for i in d.save_outputs:
        node.save(f"result{i}" if len(outputs) > 1 else "result", outputs[i], is_output=True, output_nr=i)

    def backward(n: Node, grads: list[Any]) -> Sequence[Any]:
        ctx = BackwardContext(n, values_no_tensors)
        return d.backward(ctx, grads, needs)

    values_no_tensors = {k: v for k, v in values.items() if getattr(v, "_key_set", None) is None}
    node._backward = backward
    for i, o in enumerate(outputs):
        if i in d.non_differentiable_outputs or not hasattr(o, "_shape"):
            continue
        if o._dtype.is_floating_point or o._dtype.is_complex:
            o.grad_fn = node
            o.requires_grad = True
            o._output_nr = i
    return out


def derivative(
    op_name: str,
    node_name: str,
    inputs: Sequence[str],
    save_inputs: Sequence[str] = (),
    save_outputs: Sequence[int] = (),
    non_differentiable_outputs: Sequence[int] = (),
) -> Callable[[Callable[..., Sequence[Any]]], Callable[..., Sequence[Any]]]:
    """Decorator registering ``fn(ctx, grads, needs)`` as the derivative of ``op_name``."""

    def register(fn: Callable[..., Sequence[Any]]) -> Callable[..., Sequence[Any]]:
        DERIVATIVES[op_name] = Derivative(
            op_name, node_name, tuple(inputs), fn, tuple(save_inputs), tuple(save_outputs),
            tuple(non_differentiable_outputs),
        )
        return fn

    return register
