"""Views and in-place ops under autograd: creation meta, CopySlices, lazily regenerated view grad_fns.

Corresponds to the view parts of torch/csrc/autograd/variable.{h,cpp}
(DifferentiableViewMeta, ``rebase_history``, ``VariableHooks::grad_fn``,
``handle_view_on_rebase``), VariableTypeUtils.h (``check_inplace``) and
functions/tensor.cpp (``CopySlices``).

Every view shares its base's storage and version counter; ``t._base`` is the
root tensor (a view of a view has the root as base). Per view autograd keeps:

* ``_creation_meta``: how the view was made. ``NO_GRAD_MODE`` when made with grad
  mode off, ``MULTI_OUTPUT_NODE`` for the outputs of unbind/split (set by their
  ADInplaceOrView kernel); a view of such a view inherits it. Modifying such a view
  in place while grad mode is on is an error, because its gradient would be wrong;
* ``_attr_version``: the version counter value when its grad_fn was last set.

An in-place op on a view (``v.mul_(2)``) records its node as usual, but the node
describes the view, not the base: ``rebase_history`` wraps it in a ``CopySlices``
node that becomes the *base's* grad_fn (the base "was" updated through the view).
The view's own grad_fn is then regenerated as ``AsStridedBackward0`` of the base.
The same regeneration happens lazily for every other view of that base the next
time its ``grad_fn`` is read: its version moved past ``_attr_version``.

NB: PyTorch stamps the creation meta in each view op's ADInplaceOrView kernel
(``as_view``); here ``Tensor._view`` (the one place views are made) stamps grad
mode, which it sees the same, and only the multi-output view ops get an
ADInplaceOrView kernel.

Replaying a view on its base (to regenerate its grad_fn, and in CopySlices'
backward to find the view's part of the base's gradient) uses ``as_strided``, as
PyTorch does for strided tensors. Except when the view op's input carries the
Python key (a FakeTensor, a subclass): PyTorch's ``as_view`` then keeps a *view
function*, the chain of view ops from the root base (``ViewInfo::chain``), and
replays those ops (a regenerated grad_fn is then ``SelectBackward0``,
``ViewBackward0`` ...). ``record_view_fn`` keeps that chain in ``t._view_fn``
(called by the autograd kernel, function.py, only for such inputs: plain tensors
never pay for it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..aten_namespace import aten as _aten
from ..keyset import DispatchKeySet
from ..ops.inplace_or_view import redispatch_below_adinplaceorview
from ..tls import per_thread
from .graph import (
    ERR_BACKWARD_TWICE,
    Node,
    _graph_task,
    forward_op_name,
    gradient_edge,
    node_class,
    task_should_compute_output,
)
from .hooks import update_tensor_hooks_on_new_gradfn

# CreationMeta, with PyTorch's values.
DEFAULT, IN_CUSTOM_FUNCTION, MULTI_OUTPUT_NODE, NO_GRAD_MODE, INFERENCE_MODE = range(5)


def propagate_creation_meta(previous: int, new: int) -> int:
    """A view of a view keeps the first non-default meta (inference mode wins over all)."""
    if new == DEFAULT:
        return previous
    return previous if previous == INFERENCE_MODE else new


def handle_view_on_rebase(t: Any, indirect: bool = False) -> None:
    """Raise PyTorch's error when a view that may not be modified in place is (or its base is)."""
    meta = t._creation_meta
    if meta == DEFAULT:
        return
    fn = t._grad_fn
    modified = "its base or another view of its base has been" if indirect else "is being"
    if meta in (INFERENCE_MODE, NO_GRAD_MODE) or fn is None:
        if fn is not None:
            prefix = f"Output {t._output_nr} of {forward_op_name(fn.name())} is a view of a view which was created in"
        else:
            prefix = "A view was created in"
        if meta == INFERENCE_MODE:
            msg = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        msg = f"Output {t._output_nr} of {forward_op_name(fn.name())} is a view and {modified} modified inplace."
    if meta == MULTI_OUTPUT_NODE:
        msg += (" This view is the output of a function that returns multiple views. Such functions do not allow "
                "the output views to be modified inplace. You should replace the inplace operation by an "
                "out-of-place one.")
    elif meta in (NO_GRAD_MODE, INFERENCE_MODE):
        block = "no_grad" if meta == NO_GRAD_MODE else "inference_mode"
        msg += (" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code "
                f"by moving both the view and the inplace either both inside the {block} block (if you don't want "
                "the inplace to be tracked) or both outside (if you want the inplace to be tracked).")
    elif meta == IN_CUSTOM_FUNCTION:
        msg += (" This view was created inside a custom Function (or because an input was returned as-is) and the "
                "autograd logic to handle view+inplace would override the custom backward associated with the "
                "custom Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by "
                "cloning the output of the custom Function.")
    raise RuntimeError(msg)


def check_inplace(t: Any) -> None:
    """``check_inplace`` for a tensor written by an op while grad mode is on and some input requires grad."""
    if t._base is not None:
        if t._creation_meta != DEFAULT:
            handle_view_on_rebase(t)
        if t.requires_grad and t._base.is_leaf:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    if t.requires_grad and t.is_leaf:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def set_gradient_edge(t: Any, node: Node, output_nr: int) -> None:
    t._grad_fn = node
    t._output_nr = output_nr
    t._requires_grad = True
    if t._base is not None:
        t._attr_version = t._version_counter.version


def set_history(t: Any, node: Node, output_nr: int) -> None:
    """An op's output gets ``node`` as grad_fn (``set_history``)."""
    set_gradient_edge(t, node, output_nr)


def rebase_history(t: Any, node: Node) -> None:
    """``t`` was modified in place by the op ``node`` records: make ``node`` (or a CopySlices) its history."""
    node.output_meta = [(t._shape, t._dtype, t._device)]
    base = t._base
    if base is not None:
        copy_slices = CopySlices(base, t, node)
        old_fn, old_nr = base._grad_fn, base._output_nr
        set_gradient_edge(base, copy_slices, 0)
        update_tensor_hooks_on_new_gradfn(base, old_fn, old_nr, copy_slices)
        t.grad_fn  # noqa: B018 - regenerate the view's grad_fn now (its version moved)
        return
    old_fn, old_nr = t._grad_fn, t._output_nr
    set_gradient_edge(t, node, 0)
    update_tensor_hooks_on_new_gradfn(t, old_fn, old_nr, node)


def view_grad_fn(t: Any) -> Node | None:
    """``VariableHooks::grad_fn`` for a view: regenerate it when the base or a sibling view was modified."""
    fn = t._grad_fn
    base = t._base
    if fn is None and not base.requires_grad:
        return None
    version = t._version_counter.version
    if t._attr_version == version:
        return fn
    handle_view_on_rebase(t, indirect=True)
    old_nr = t._output_nr
    steps = t._view_fn
    if steps is None:
        node: Node | None = _as_strided_node(t, base)
        output_nr = 0
    else:  # replay the view ops on the base, with grad mode on (this may run inside backward), take their node
        s = per_thread.s
        previous = s.grad_enabled
        s.grad_enabled = True
        try:
            diff_view = replay_view_fn(steps, base)
        finally:
            s.grad_enabled = previous
        node, output_nr = diff_view._grad_fn, diff_view._output_nr
        if node is None:
            t._grad_fn = None
            t._attr_version = version
            return None
    set_gradient_edge(t, node, output_nr)
    update_tensor_hooks_on_new_gradfn(t, fn, old_nr, node)
    return node


def record_view_fn(op: Any, args: tuple, kwargs: dict, out: Any) -> None:
    """``as_view``'s view function for the outputs of the view op ``op`` on a Python-key ``args[0]``.

    A step is (op, the arguments after ``self``, kwargs, output index or None); a view's chain starts
    with its input's chain (or with an ``as_strided`` to the input's geometry when the input is a view
    without one), as ``ViewInfo::chain``. An output that is not a new view (``lift_fresh``'s ``self``,
    ``detach``'s result) gets none.
    """
    self = args[0]
    if self._base is None:
        prefix: tuple = ()
    elif self._view_fn is not None:
        prefix = self._view_fn
    else:
        prefix = ((_aten().as_strided.default, (list(self._shape), list(self._stride), self._storage_offset), {},
                   None),)
    rest = tuple(args[1:])
    kw = dict(kwargs)
    if out.__class__ is list or out.__class__ is tuple:
        for i, o in enumerate(out):
            if o is not self and getattr(o, "_base", None) is not None:
                o._view_fn = (*prefix, (op, rest, kw, i))
    elif out is not self and getattr(out, "_base", None) is not None:
        out._view_fn = (*prefix, (op, rest, kw, None))


def replay_view_fn(steps: tuple, base: Any) -> Any:
    """The view that ``steps`` (a ``_view_fn``) describe, made again from ``base`` with the view ops."""
    x = base
    for op, rest, kw, i in steps:
        x = op(x, *rest, **kw)
        if i is not None:
            x = x[i]
    return x


def _as_strided_node(t: Any, base: Any) -> Node:
    """An AsStridedBackward0 taking ``t``'s gradient back to ``base`` (the view replayed as as_strided)."""
    from .function import DERIVATIVES, TensorGeometry

    edge = gradient_edge(base)
    # What an as_strided(base, size, stride, offset) call would have saved: the formula is as_strided's.
    saved = {"self": TensorGeometry(base), "size": list(t._shape), "stride": list(t._stride),
             "storage_offset": t._storage_offset}

    def backward(node: Node, grads: list[Any]) -> Sequence[Any]:
        needs = (task_should_compute_output(node, 0),)
        return DERIVATIVES["as_strided"].backward(_SavedValues(node.saved), grads, needs)

    node = node_class("AsStridedBackward0")([edge], backward)
    node.output_meta = [(t._shape, base._dtype, base._device)]
    node.saved.update(saved)
    return node


class _SavedValues:
    """A formula's ``ctx`` over plain saved values."""

    __slots__ = ("_values",)

    def __init__(self, values: dict[str, Any]) -> None:
        self._values = values

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None


class CopySlices(Node):
    """The base's grad_fn after an in-place op on one of its views.

    Backward: the base's gradient is the incoming one, except on the view's
    elements, which get what the in-place op's node (``fn``) gives for its ``self``;
    ``fn``'s other inputs get their gradients from ``fn`` as usual.
    """

    def __init__(self, base: Any, view: Any, fn: Node) -> None:
        super().__init__([gradient_edge(base), *fn.next_functions[1:]])
        self.base_geometry = (tuple(base._shape), tuple(base._stride), base._storage_offset)
        self.view_geometry = (tuple(view._shape), tuple(view._stride), view._storage_offset)
        self.view_fn = view._view_fn  #: None: the view part of the gradient is found with as_strided
        self.fn: Node | None = fn
        self.output_meta = [(base._shape, base._dtype, base._device)]

    def apply(self, grad_outputs: list[Any]) -> list[Any]:
        from ..memory_format import contiguous_format

        grad = grad_outputs[0]
        n = len(self.next_functions)
        if grad is None:
            return [None] * n
        if self.fn is None:
            raise RuntimeError(ERR_BACKWARD_TWICE)
        aten = _aten()
        base_shape, base_stride, base_offset = self.base_geometry
        view_shape, view_stride, view_offset = self.view_geometry
        result = aten.new_empty_strided.default(grad, list(base_shape), list(base_stride))
        aten.copy_.default(result, grad)
        if self.view_fn is not None:
            grad_slice = replay_view_fn(self.view_fn, result)
        else:
            grad_slice = aten.as_strided.default(result, list(view_shape), list(view_stride),
                                                 view_offset - base_offset)
        res = self._apply_fn(aten.clone.default(grad_slice, memory_format=contiguous_format))
        grad_inputs: list[Any] = [None] * n
        for i, r in enumerate(res):
            if i >= n or r is None or not task_should_compute_output(self, i):
                continue
            if i == 0:
                aten.copy_.default(grad_slice, r)
                grad_inputs[0] = result
            else:
                grad_inputs[i] = r
        return grad_inputs

    def _apply_fn(self, grad_slice: Any) -> Any:
        """Run ``fn``; its ``self`` gradient is needed when this node's base edge is (``fn``'s own edge 0 points at
        the view's old grad_fn, which an ``autograd.grad(inputs=...)`` pass may have pruned)."""
        needed = _graph_task.needed
        old = self.fn.next_functions[0][0] if self.fn.next_functions else None
        if needed is None or old is None or old in needed or not task_should_compute_output(self, 0):
            return self.fn.apply([grad_slice])
        needed.add(old)
        try:
            return self.fn.apply([grad_slice])
        finally:
            needed.discard(old)

    def release_saved(self) -> None:
        if self.fn is not None:
            self.fn.release_saved()
            self.fn = None




def as_view(base: Any, out: Any, differentiable: bool = True) -> None:
    """ADInplaceOrView's ``as_view`` for a view op's output that was not made as a view of ``base`` here: one a
    tensor subclass's ``__torch_dispatch__`` (or a dispatch mode) returned from below the Python key, e.g. a
    wrapper around the view of its inner tensor. It shares ``base``'s version counter (an in-place op through it
    bumps ``base._version``) and, unless the op is ``detach`` (not a differentiable view), becomes an autograd
    view of ``base``'s root, as ``Tensor._view`` makes every other view."""
    if out is base or out._version_counter is base._version_counter:
        return  # already a view of base (made by Tensor._view), or base itself
    out._version_counter = base._version_counter
    if not differentiable or out.__dict__.get("_base") is not None:
        return
    root = base._base if base._base is not None else base
    out._base = root
    version = root._version_counter.version
    if version:
        out._attr_version = version
    meta = base._creation_meta
    if not per_thread.s.grad_enabled and meta != INFERENCE_MODE:
        meta = NO_GRAD_MODE
    if meta:
        out._creation_meta = meta


def is_multi_output_view(schema: Any) -> bool:
    """``unbind`` / ``split``: a Tensor[] result aliasing an input (``Tensor(a)[]``)."""
    returns = schema.returns
    return (len(returns) == 1 and str(returns[0].type) == "Tensor[]" and returns[0].alias_info is not None
            and not returns[0].alias_info.is_write)


def make_multi_output_view_kernel(op: Any) -> Any:
    """The ADInplaceOrView kernel of a multi-output view op: its outputs may not be modified in place."""

    def kernel(ks: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        outputs = redispatch_below_adinplaceorview(op, ks, args, kwargs)
        t = per_thread.s
        meta = MULTI_OUTPUT_NODE if t.grad_enabled else NO_GRAD_MODE
        previous = getattr(args[0], "_creation_meta", DEFAULT) if args else DEFAULT
        meta = propagate_creation_meta(previous, meta)
        for o in outputs:
            o._creation_meta = meta
        return outputs

    kernel.__name__ = kernel.__qualname__ = f"{op._opname}_ADInplaceOrView"
    return kernel
