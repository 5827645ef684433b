"""``autograd.Function``: user-defined differentiable operations (``forward`` + ``backward``).

Corresponds to torch/autograd/function.py together with the C++ that runs it
(torch/csrc/autograd/python_function.cpp ``THPFunction_apply`` / ``PyNode::apply`` and
custom_function.cpp ``_process_backward_mode_ad``), PyTorch 2.13.

``MyFn.apply(*args)``:

1. The *context* is made first, and it *is* the backward node: an instance of ``MyFnBackward``
   (a ``Node`` subclass made once per Function class), so ``y.grad_fn`` is the ``ctx`` the
   forward saw, with its attributes, ``saved_tensors``, ``needs_input_grad`` and node hooks.
2. The graph is *executable* when grad mode is on and some tensor argument requires grad; then
   the node's ``next_functions`` are the gradient edges of the tensor arguments.
3. ``forward(ctx, *args)`` (or ``forward(*args)`` then ``setup_context(ctx, inputs, output)``)
   runs with grad mode off. The mode is switched on the thread state directly, as PyTorch's C++
   guard does, so a pre-dispatch trace records no ``_set_grad_enabled`` for it.
4. The outputs are wrapped: each differentiable tensor output gets the node as ``grad_fn``; an
   input returned as is becomes ``input.view_as(input)`` (made with grad off); tensors given to
   ``mark_dirty`` are rebased onto the node; ``mark_non_differentiable`` outputs and
   non-floating ones need no gradient; non-tensor outputs are returned untouched. Views among the
   outputs may not be modified in place later (PyTorch's ``IN_CUSTOM_FUNCTION`` /
   ``MULTI_OUTPUT_NODE`` creation metas and errors).
5. ``save_for_backward``'s tensors become saved variables (an output is saved detached, as for
   built-in ops, so a trace shows the same ``detach``); they are freed by backward.

In backward the engine calls the node: missing gradients are materialized as ``zeros`` (unless
``ctx.set_materialize_grads(False)``), the user's ``backward`` runs, and its result is checked
(count, ``None`` for non-tensor inputs, tensors only) with PyTorch's messages. Under make_fx the
Function is not kept whole (as in PyTorch): its forward ops are traced in the forward and its
backward ops in the backward.

Not reproduced: forward-mode AD (``jvp``, ``save_for_forward`` is stored only), ``vmap`` rules,
JIT tracing, the functorch path of ``apply``.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

from ..tensor import Tensor
from ..tls import per_thread
from .graph import Node, SavedTensor, gradient_edge
from .hooks import update_tensor_hooks_on_new_gradfn
from .views import DEFAULT, IN_CUSTOM_FUNCTION, MULTI_OUTPUT_NODE, rebase_history, set_gradient_edge

__all__ = ["BackwardCFunction", "Function", "FunctionCtx", "InplaceFunction", "once_differentiable"]

_ERR_LEAF_INPLACE = "a leaf Variable that requires grad has been used in an in-place operation."


class _GradModeOff:
    """Grad mode off for a block, set on the thread state (PyTorch's C++ ``AutoGradMode(false)``): not recorded
    by a pre-dispatch trace, unlike ``no_grad``."""

    __slots__ = ("_prev",)

    def __enter__(self) -> None:
        s = per_thread.s
        self._prev = s.grad_enabled
        s.grad_enabled = False

    def __exit__(self, *exc: object) -> None:
        per_thread.s.grad_enabled = self._prev


class FunctionCtx:
    """What ``forward`` / ``setup_context`` may call on ``ctx``."""

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keep tensors (inputs, outputs or intermediates, or None) for ``backward``: ``ctx.saved_tensors``."""
        self.to_save = tensors

    def save_for_forward(self, *tensors: Tensor | None) -> None:
        """Kept for forward-mode AD (``jvp``), which dispatchkit does not run."""
        self.saved_for_forward = tensors

    def mark_dirty(self, *args: Tensor) -> None:
        """These inputs were modified in place by ``forward`` (they must be returned as outputs)."""
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs: Any) -> None:
        warnings.warn("mark_shared_storage is deprecated. Tensors with shared storages are automatically tracked. "
                      "Note that calls to `set_()` are not tracked", stacklevel=2)

    def mark_non_differentiable(self, *args: Tensor) -> None:
        """These outputs need no gradient (``backward`` still receives a zero gradient for them)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """False: ``backward`` receives None (not zeros) for outputs that got no gradient."""
        self.materialize_grads = value


class BackwardCFunction(Node, FunctionCtx):
    """The node (and the ``ctx``) of one ``apply``: ``<ClassName>Backward``, made per Function class."""

    _forward_cls: Any = None
    to_save: Any = None
    dirty_tensors: Any = None
    non_differentiable: Any = None
    saved_for_forward: Any = None
    materialize_grads = True
    _materialize_non_diff_grads = True
    needs_input_grad: tuple[bool, ...] = ()

    def __init__(self) -> None:
        super().__init__()
        self._is_variable_input: tuple[bool, ...] = ()
        self._output_info: list[Any] = []  #: (shape, dtype, device) per output, None for non-tensors
        self._has_freed = False
        self.metadata: dict[Any, Any] = {}

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """The tensors ``save_for_backward`` kept, unpacked (a saved output gets this node as grad_fn)."""
        saved = self.saved.get("saved_tensors", ())
        return tuple(None if s is None else s.unpack(self) for s in saved)

    saved_variables = saved_tensors

    def apply(self, *args: Any) -> Any:  # type: ignore[override]
        """The engine's call (one list of incoming gradients); called with gradients as arguments, the user's
        ``backward`` directly (``BackwardCFunction.apply`` in PyTorch)."""
        if len(args) == 1 and args[0].__class__ is list:
            return self._engine_apply(args[0])
        return self._user_fn()(self, *args)

    def _user_fn(self) -> Callable[..., Any]:
        cls = self._forward_cls
        backward_fn, vjp_fn = cls.backward, cls.vjp
        if backward_fn is not Function.backward and vjp_fn is not Function.vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You "
                               "should only implement one of them.")
        return vjp_fn if vjp_fn is not Function.vjp else backward_fn

    def _engine_apply(self, grads: list[Any]) -> list[Any]:
        inputs = []
        for i, g in enumerate(grads):
            info = self._output_info[i] if i < len(self._output_info) else None
            if g is None and self.materialize_grads and info is not None:
                g = _zeros(info)
            inputs.append(g)
        result = self._user_fn()(self, *inputs)
        if not isinstance(result, tuple):
            result = (result,)
        expected = len(self._is_variable_input)
        if len(result) > expected and all(r is None for r in result[expected:]):
            result = result[:expected]  # extra trailing Nones are tolerated
        if len(result) != expected:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients (expected "
                               f"{expected}, got {len(result)})")
        out = []
        for i, (r, is_tensor) in enumerate(zip(result, self._is_variable_input)):
            if not is_tensor:
                if r is not None:
                    raise RuntimeError(f"function {self.name()} returned a gradient different than None at position "
                                       f"{i + 1}, but the corresponding forward input was not a Variable")
                continue
            if r is not None and not isinstance(r, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(r).__name__})")
            out.append(r)
        return out

    def release_saved(self) -> None:
        super().release_saved()
        self._has_freed = True

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__qualname__} object at {hex(id(self))}>"


def _zeros(info: tuple[Any, Any, Any]) -> Tensor:
    """A zero gradient for an output that got none (``VariableInfo::zeros``: ``at::zeros(size, options)``)."""
    from ..op_overload import namespace

    shape, dtype, device = info
    return namespace("aten").zeros.default(list(shape), dtype=dtype, device=device)


def _view_as_self_no_grad(t: Tensor) -> Tensor:
    """``t.view_as(t)`` with grad off: a returned input becomes a new tensor (a view), never the input itself."""
    with _GradModeOff():
        return t.view_as(t)


def _is_differentiable_type(t: Tensor) -> bool:
    return t._dtype.is_floating_point or t._dtype.is_complex


class _OutputWrapper:
    """``_process_backward_mode_ad``: give the outputs of ``forward`` their history (see the module docstring)."""

    def __init__(self, node: BackwardCFunction | None, inputs: list[Tensor], to_save_ids: set[int]) -> None:
        self.node = node
        self.input_ids = {id(t) for t in inputs}
        self.dirty = {id(t) for t in (node.dirty_tensors or ())} if node is not None else set()
        self.non_differentiable = {id(t) for t in (node.non_differentiable or ())} if node is not None else set()
        self.to_save_ids = to_save_ids

    def wrap(self, var: Tensor, i: int, is_modified: bool) -> tuple[Tensor, bool]:
        node = self.node
        is_input = id(var) in self.input_ids
        differentiable = node is not None and id(var) not in self.non_differentiable and _is_differentiable_type(var)
        if not differentiable:
            if not var.requires_grad:
                if is_input and not is_modified:
                    var = _view_as_self_no_grad(var)
                return var, False
            if is_modified:  # a detached alias: the tensor stops requiring grad
                if var._grad_fn is None:  # (the C++ ``is_leaf``: a view's grad_fn is not regenerated here)
                    raise RuntimeError(_ERR_LEAF_INPLACE)
                var._grad_fn = None
                var._requires_grad = False
            elif is_input:
                var = _view_as_self_no_grad(var)
                var._grad_fn, var._output_nr, var._requires_grad = None, 0, False
            elif node is not None:
                var._grad_fn, var._output_nr, var._requires_grad = None, 0, False
            return var, False
        if is_modified:
            if var._grad_fn is None and var.requires_grad:
                raise RuntimeError(_ERR_LEAF_INPLACE)
            if not is_input:
                warnings.warn("Only input Tensors should be given to ctx.mark_dirty(). If a Tensor is not an input, "
                              "there is no need to pass it to mark_dirty().", stacklevel=4)
            if var._base is not None:
                var._creation_meta = DEFAULT
                meta = node.output_meta
                rebase_history(var, node)  # a view's base gets a CopySlices around this node (output 0, as PyTorch)
                node.output_meta = meta
            else:
                old_fn, old_nr = var._grad_fn, var._output_nr
                set_gradient_edge(var, node, i)
                update_tensor_hooks_on_new_gradfn(var, old_fn, old_nr, node)
        elif is_input:
            if id(var) in self.to_save_ids:
                raise RuntimeError(
                    "An input that has been returned as-is as output is being saved for backward. This is not "
                    "supported if you override setup_context. You should return and save a view of the input instead, "
                    "e.g. with x.view_as(x) or setup ctx inside the forward function itself.")
            var = _view_as_self_no_grad(var)
            set_gradient_edge(var, node, i)
        else:
            set_gradient_edge(var, node, i)
        return var, True


def _mark_dirty(node: BackwardCFunction) -> None:
    """The tensors given to ``mark_dirty`` get one more version bump (``_mark_dirty`` in PyTorch)."""
    for i, t in enumerate(node.dirty_tensors or ()):
        if not isinstance(t, Tensor):
            raise TypeError(f"mark_dirty can only accept variables, but argument {i} is of type {type(t).__name__}")
        t._version_counter.version += 1


def _process_outputs(node: BackwardCFunction, executable: bool, inputs: list[Tensor], raw: Any,
                     setup_context: bool) -> Any:
    _mark_dirty(node)
    single = not isinstance(raw, tuple)
    raw_outputs = (raw,) if single else raw
    to_save = node.to_save or ()
    to_save_ids: set[int] = set()
    for i, t in enumerate(to_save):
        if isinstance(t, Tensor):
            if setup_context:
                to_save_ids.add(id(t))
        elif t is not None and executable:
            raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                            f"{type(t).__name__}")
    wrapper = _OutputWrapper(node if executable else None, inputs, to_save_ids)
    outputs: list[Any] = []
    output_meta: list[Any] = []
    info: list[Any] = []
    differentiable_count = 0
    for i, obj in enumerate(raw_outputs):
        if not isinstance(obj, Tensor):
            outputs.append(obj)
            output_meta.append(None)
            info.append(None)
            continue
        is_modified = id(obj) in wrapper.dirty
        var, differentiable = wrapper.wrap(obj, i, is_modified)
        output_meta.append((var._shape, var._dtype, var._device) if differentiable else None)
        info.append((var._shape, var._dtype, var._device))
        if not (id(obj) in wrapper.input_ids and is_modified) and var._base is not None:
            var._creation_meta = IN_CUSTOM_FUNCTION
        differentiable_count += differentiable
        outputs.append(var)
    if differentiable_count > 1:
        for var in outputs:
            if isinstance(var, Tensor) and var._base is not None and var._grad_fn is not None:
                var._creation_meta = MULTI_OUTPUT_NODE
    returned = {id(o) for o in raw_outputs}
    if any(d not in returned for d in wrapper.dirty):
        raise RuntimeError("Some elements marked as dirty during the forward method were not returned as output. The "
                           "inputs that are modified inplace must all be outputs of the Function.")
    if executable:
        node.num_outputs = len(outputs)
        node.output_meta = output_meta
        node._output_info = info
        # saved after the outputs got their history: a saved output is saved as an output (detached)
        node.saved["saved_tensors"] = [None if t is None else SavedTensor(t, is_output=t._grad_fn is node)
                                       for t in to_save]
    node.to_save = None
    node.dirty_tensors = None
    node.non_differentiable = None
    node.saved_for_forward = None
    return outputs[0] if single else tuple(outputs)


def _bind(fn: Callable[..., Any], args: tuple, kwargs: dict, with_ctx: bool, defaults: bool) -> tuple:
    """Positional arguments of ``fn`` from ``args`` / ``kwargs`` (``bind_default_args`` in PyTorch)."""
    signature = inspect.signature(fn)
    bound = signature.bind(None, *args, **kwargs) if with_ctx else signature.bind(*args, **kwargs)
    if defaults:
        bound.apply_defaults()
    return bound.args[1:] if with_ctx else bound.args


class Function(FunctionCtx):
    """Base class of custom differentiable operations: subclass it with static ``forward`` and ``backward``
    (and optionally ``setup_context``) and call ``MyFn.apply(*args)``."""

    _backward_cls: type[BackwardCFunction] = BackwardCFunction
    generate_vmap_rule = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._backward_cls = type(cls.__name__ + "Backward", (BackwardCFunction,),
                                 {"_forward_cls": cls, "__module__": __name__})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, "
                      "so you should invoke them on the class itself. Instantiating an autograd function will raise "
                      "an error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                           "new-style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward  # the two names are aliases; a subclass implements one of them

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` and record the node (see the module docstring)."""
        setup_context = cls.setup_context is not Function.setup_context
        if setup_context:
            args = _bind(cls.forward, args, kwargs, with_ctx=False, defaults=True)
        elif kwargs:
            args = _bind(cls.forward, args, kwargs, with_ctx=True, defaults=False)
        node = cls._backward_cls()
        tensor_inputs = [a for a in args if isinstance(a, Tensor)]
        executable = per_thread.s.grad_enabled and any(t.requires_grad for t in tensor_inputs)
        node._is_variable_input = tuple(isinstance(a, Tensor) for a in args)
        node.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)  # grad mode aside
        if executable:
            node.next_functions = tuple(gradient_edge(t) if t.requires_grad else (None, 0) for t in tensor_inputs)
        with _GradModeOff():
            if setup_context:
                output = cls.forward(*args)
                cls.setup_context(node, args, output)
            else:
                output = cls.forward(node, *args)
        return _process_outputs(node, executable, tensor_inputs, output, setup_context)


class InplaceFunction(Function):
    """A Function with an ``inplace`` flag (``torch.autograd.function.InplaceFunction``)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class _DelayedError(Node):
    """The node of once-differentiable backward results: differentiating them again raises ``msg``."""

    def __init__(self, msg: str, next_functions: Any) -> None:
        super().__init__(next_functions)
        self._msg = msg

    def name(self) -> str:
        return "torch::autograd::Error"

    def apply(self, grad_outputs: list[Any]) -> Any:  # type: ignore[override]
        raise RuntimeError(self._msg)


def once_differentiable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a ``backward`` that is not itself differentiable: it runs with grad off, and differentiating its
    result (``create_graph=True`` then a second backward) raises an error instead of a wrong gradient."""
    from .graph import grad_accumulator

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        grad_was_enabled = per_thread.s.grad_enabled
        with _GradModeOff():
            outputs = fn(ctx, *args)
        if not grad_was_enabled:
            return outputs
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        if not isinstance(outputs, tuple):
            outputs = (outputs,)
        leaves = []
        for v in outputs:
            if v is not None:
                v = v.detach()
                v.requires_grad = True
            leaves.append(v)
        edges = [(grad_accumulator(v), 0) if v is not None else (None, 0) for v in leaves]
        err = _DelayedError("trying to differentiate twice a function that was marked with @once_differentiable",
                            edges)
        from ..python_key import shallow_copy_and_detach

        wrapped = []
        for i, v in enumerate(leaves):
            if v is None:
                wrapped.append(None)
                continue
            out = shallow_copy_and_detach(v)  # ``tensor_data()``: the same storage, a new history
            set_gradient_edge(out, err, i)
            wrapped.append(out)
        err.num_outputs = len(wrapped)
        err.output_meta = [(w._shape, w._dtype, w._device) if w is not None else None for w in wrapped]
        return tuple(wrapped)

    return wrapper
