"""Autograd of the ``_foreach_*`` ops: PyTorch's generated foreach backward nodes, and its in-place checks.

Corresponds to the foreach part of tools/autograd/load_derivatives.py (``create_derivative`` for a ``_foreach_*``
op with no entry of its own takes the per-tensor op's formula, indexed ``[i]``) and the generated VariableType
kernels of the foreach ops:

* out-of-place (``_foreach_mul.List``): ONE node for the call, one output per result tensor, one edge per tensor of
  each differentiable list (``ForeachMulBackward0List``; torch does not bind most of these classes to Python, so
  ``type(grad_fn).__name__`` is ``CppFunction`` and ``grad_fn.name()`` the node name; ``_foreach_norm`` and
  ``_foreach_div.List`` have entries of their own and Python classes of their name). Its backward runs the
  per-tensor formula for each input (in the alphabetical order of the per-tensor names), for each tensor;
* in-place (``_foreach_mul_.List``): every written tensor is checked first (a leaf requiring grad raises PyTorch's
  error); each written tensor that needs one gets the node of the per-tensor out-of-place formula (``MulBackward0``,
  a clone of ``self[i]`` saved first where the formula reads self), the op runs once below autograd, and each
  written tensor is rebased on its node (a mode sees the clones and the one ``_foreach_*_`` call, as in torch).

With grad mode off or nothing requiring grad (optimizers, gradient clipping) the op runs below autograd, so a mode or
make_fx sees the one ``_foreach_*`` call. Version counters: torch bumps each written tensor once, from the per-tensor
ops of its CPU kernel; under a dispatch mode (or a Python-key tensor) those run below ADInplaceOrView, so torch bumps
nothing, and neither do we.
"""

from __future__ import annotations

from typing import Any

from ...dispatch import redispatch_excluding
from ...keys import DispatchKey
from ...keyset import full_after_bits
from ...op_overload import namespace
from ...ops.inplace_or_view import _bump, written_arguments
from ...ops.native_functions import NATIVE_FUNCTIONS
from ...tensor import Tensor
from ...tls import AUTOGRAD_AND_ADINPLACEORVIEW_RAW, PYTHON_RAW, per_thread
from .. import MANUAL_AUTOGRAD_KERNELS
from ..function import DERIVATIVES, BackwardContext, _aten_clone, _task_needs, autograd_kernel, derivative
from ..graph import Node, SavedTensor, gradient_edge, node_class
from ..views import check_inplace, rebase_history
from . import arithmetic, comparison, reductions, transcendental  # noqa: F401 - the per-tensor formulas, registered first

aten = namespace("aten")
_AFTER_AUTOGRAD = full_after_bits(DispatchKey.AutogradOther)

#: foreach op -> (node name, per-tensor formula, {per-tensor name: foreach name}, Python-bound node class)
_FOREACH = {
    "_foreach_neg": ("ForeachNegBackward0", "neg", {}, False),
    "_foreach_sqrt": ("ForeachSqrtBackward0", "sqrt", {}, False),
    "_foreach_add.Scalar": ("ForeachAddBackward1Scalar", "add.Scalar", {"other": "scalar"}, False),
    "_foreach_add.List": ("ForeachAddBackward0List", "add.Tensor", {}, False),
    "_foreach_add.Tensor": ("ForeachAddBackward0Tensor", "add.Tensor", {}, False),
    "_foreach_mul.Scalar": ("ForeachMulBackward1Scalar", "mul.Scalar", {"other": "scalar"}, False),
    "_foreach_mul.List": ("ForeachMulBackward0List", "mul.Tensor", {}, False),
    "_foreach_mul.Tensor": ("ForeachMulBackward0Tensor", "mul.Tensor", {}, False),
    "_foreach_mul.ScalarList": ("ForeachMulBackward1ScalarList", "mul.Scalar", {"other": "scalars"}, False),
    "_foreach_div.List": ("ForeachDivBackward0", "div.Tensor", {}, True),
    "_foreach_div.ScalarList": ("ForeachDivBackward1ScalarList", "div.Scalar", {"other": "scalars"}, False),
    "_foreach_lerp.Scalar": ("ForeachLerpBackward0Scalar", "lerp.Scalar", {"end": "tensors1"}, False),
    "_foreach_addcmul.Scalar": ("ForeachAddcmulBackward0Scalar", "addcmul", {}, False),
    "_foreach_addcdiv.Scalar": ("ForeachAddcdivBackward0Scalar", "addcdiv", {}, False),
    "_foreach_addcdiv.ScalarList": ("ForeachAddcdivBackward0ScalarList", "addcdiv", {"value": "scalars"}, False),
    "_foreach_maximum.List": ("ForeachMaximumBackward0List", "maximum", {}, False),
    "_foreach_norm.Scalar": ("ForeachNormBackward0", "linalg_vector_norm", {}, True),
}

#: per-tensor values the foreach op does not have (``linalg_vector_norm``'s ``dim`` / ``keepdim``)
_FIXED = {"dim": None, "keepdim": False}


class _Item:
    """The per-tensor formula's ``ctx`` for tensor ``i``: list arguments (and ``result``) indexed, the others as is."""

    __slots__ = ("_i", "_values", "_names")

    def __init__(self, values: dict[str, Any], i: int, names: dict[str, str]) -> None:
        self._values, self._i, self._names = values, i, names

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        key = self._names.get(name, name)
        if key not in self._values:
            if name in _FIXED:
                return _FIXED[name]
            raise AttributeError(name)
        v = self._values[key]
        return v[self._i] if isinstance(v, (list, tuple)) else v


def _register(op_name: str, node_name: str, per_tensor: str, names: dict[str, str], bound: bool) -> None:
    d = DERIVATIVES[per_tensor]
    text = next(f for f in NATIVE_FUNCTIONS if f.name == op_name).schema
    schema = {}  # argument name -> type
    for arg in text[text.index("(") + 1:text.rindex(") ->")].split(", "):
        if arg != "*":
            kind, name = arg.split("=")[0].rsplit(" ", 1)
            schema[name] = kind
    # differentiable: the per-tensor inputs that are tensors here (a .Tensor overload's single ``other`` too: it
    # gets an edge, but the generated code has no gradient for it and refuses to compute one, see below)
    inputs = [n for n in d.inputs if schema.get(names.get(n, n)) in ("Tensor[]", "Tensor")]
    single = {k for k, n in enumerate(inputs) if schema[names.get(n, n)] == "Tensor"}
    order = sorted(range(len(inputs)), key=lambda k: inputs[k])
    plain = tuple(a for a in schema if a not in ("self",))
    saves = ("self", *plain)
    wants_result = bool(d.save_outputs)
    mapped = {n: names.get(n, n) for n in (*d.inputs, *d.save_inputs, *names)}

    def backward(ctx: Any, grads: list[Any], needs: tuple[bool, ...]) -> list[Any]:
        values = {}
        if wants_result:
            values["result"] = ctx.result  # unpacked first, as the generated code's unpack_list
        for n in saves:
            values[n] = getattr(ctx, n)
        count = len(grads)
        out: list[Any] = [[None] * count if needs[k] else None for k in range(len(inputs))]
        for k in order:
            if not needs[k]:
                continue
            if k in single:  # the n gradients of the per-tensor formula do not fit the one edge
                raise RuntimeError("inconsistent range for TensorList output")
            pos = d.inputs.index(inputs[k])
            sub = tuple(j == pos for j in range(len(d.inputs)))
            for i in range(count):
                if grads[i] is None:
                    continue
                item = _Item(values, i, mapped)
                out[k][i] = d.backward(item, [grads[i]], sub)[pos]
                if per_tensor == "addcdiv" and inputs[k] == "tensor2":
                    # the generated code reads ``tensor2[i][i].scalar_type()`` (handle_r_to_c): a select it discards
                    aten.select.int(item.tensor2, 0, i)
        return out

    backward.__name__ = f"_{op_name.replace('.', '_')}_backward"
    derivative(op_name, node_name, tuple(names.get(n, n) for n in inputs), save_inputs=saves,
               save_outputs=(-1,) if wants_result else (), python_class=node_name if bound else "CppFunction")(backward)


for _name, (_node, _per_tensor, _names, _bound) in _FOREACH.items():
    _register(_name, _node, _per_tensor, _names, _bound)


#: in-place foreach op -> (per-tensor out-of-place formula, {per-tensor name: foreach name}): torch's in-place foreach
#: kernels give each written tensor the node of the per-tensor formula (``MulBackward0`` for ``_foreach_mul_.List``)
_INPLACE = {f"{k.partition('.')[0]}_{'.' if '.' in k else ''}{k.partition('.')[2]}": (v[1], v[2])
            for k, v in _FOREACH.items() if k != "_foreach_norm.Scalar"}
_INPLACE["_foreach_clamp_min_.Scalar"] = ("clamp_min", {"min": "scalar"})
_INPLACE["_foreach_clamp_max_.Scalar"] = ("clamp_max", {"max": "scalar"})


def _inplace_record(op: Any, ks: int, args: tuple, kwargs: dict, per_tensor: str, names: dict[str, str]) -> None:
    """An in-place foreach op with something requiring grad: check every written tensor, make tensor ``i``'s node
    (saving a clone of ``self[i]`` first where the formula reads self), run the op once below autograd, rebase."""
    d = DERIVATIVES[per_tensor]
    values = _bind(op, args, kwargs)
    selfs = values["self"]
    for t in selfs:
        check_inplace(t)

    def at(name: str, i: int) -> Any:
        v = values.get(names.get(name, name), _FIXED.get(name))
        return v[i] if isinstance(v, (list, tuple)) else v

    plans = []
    for i, t in enumerate(selfs):
        ins = [at(n, i) for n in d.inputs]
        needs = tuple(isinstance(v, Tensor) and v.requires_grad for v in ins)
        if not any(needs):
            plans.append(None)
            continue
        node = node_class(d.node_name)([gradient_edge(v) if need else (None, 0) for v, need in zip(ins, needs)])
        plain = {}
        for n in d.save_inputs:
            v = t if n == "self" else at(n, i)
            if n == "self":
                node.saved["self"] = SavedTensor(_aten_clone(t))  # the generated code's original_self
            elif isinstance(v, Tensor):
                node.saved[n] = SavedTensor(v)
            else:
                plain[n] = v
        plans.append((node, needs, plain))
    redispatch_excluding(op, ks, _AFTER_AUTOGRAD, AUTOGRAD_AND_ADINPLACEORVIEW_RAW, args, kwargs)
    if not ks & PYTHON_RAW:
        _bump(selfs)
    for t, plan in zip(selfs, plans):
        if plan is None:
            continue
        node, needs, plain = plan

        def backward(node: Node, grads: list[Any], needs: tuple = needs, plain: dict = plain) -> Any:
            return d.backward(BackwardContext(node, plain), grads, _task_needs(node, needs, d.inputs, {}))

        node._backward = backward
        rebase_history(t, node)
        if d.save_outputs:  # sqrt_: the result is self after the op
            node.saved["result"] = SavedTensor(t, True, t._base is not None)


def _bind(op: Any, args: tuple, kwargs: dict) -> dict[str, Any]:
    """Every schema argument by name (defaults filled in)."""
    out = {}
    for k, a in enumerate(op._schema.arguments):
        if not a.kwarg_only and k < len(args):
            out[a.name] = args[k]
        else:
            out[a.name] = kwargs.get(a.name, a.default)
    return out


def _needs_grad(args: tuple, kwargs: dict) -> bool:
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            if a.requires_grad:
                return True
        elif isinstance(a, (list, tuple)):
            if any(isinstance(t, Tensor) and t.requires_grad for t in a):
                return True
    return False


def _foreach_autograd_kernel(name: str) -> Any:
    from ...ops.kernel_registry import KERNELS

    composite = KERNELS[(name, "CompositeExplicitAutograd")]
    positions: list[int] | None = None
    has_formula = name in DERIVATIVES

    def kernel(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
        nonlocal positions
        if positions is None:
            positions = written_arguments(op._schema)[0]
        if per_thread.s.grad_enabled and _needs_grad(args, kwargs):
            if has_formula:
                return autograd_kernel(op, ks, args, kwargs)  # one Foreach...Backward node
            if name in _INPLACE:
                return _inplace_record(op, ks, args, kwargs, *_INPLACE[name])
            return composite(*args, **kwargs)  # (none left: every foreach op has a formula)
        result = redispatch_excluding(op, ks, _AFTER_AUTOGRAD, AUTOGRAD_AND_ADINPLACEORVIEW_RAW, args, kwargs)
        if ks & PYTHON_RAW:  # a mode or Python-key tensor: the per-tensor ops that bump run below it, unbumping
            return result
        for i in positions:
            if i < len(args):
                _bump(args[i])
        return result

    kernel.__name__ = kernel.__qualname__ = f"{name}_Autograd"
    return kernel


for _op in NATIVE_FUNCTIONS:
    if _op.name.startswith("_foreach_"):
        MANUAL_AUTOGRAD_KERNELS[_op.name] = _foreach_autograd_kernel(_op.name)
del _op
