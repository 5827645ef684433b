"""``make_fx``: trace a function into a GraphModule by recording the aten ops it runs.

Corresponds to torch/fx/experimental/proxy_tensor.py (``make_fx``, ``ProxyTorchDispatchMode``,
``proxy_call``, ``track_tensor_tree``, ``wrap_key``). A ``_Tracer`` owns the Graph being built
and a weak map from every tensor it has seen to the node that produced it. The
``ProxyTorchDispatchMode`` (infra slot PROXY) receives each op:

* post-dispatch (default) on the Python key, i.e. after autograd and after
  CompositeImplicitAutograd decomposition (``linear`` -> ``t`` + ``addmm``);
* pre-dispatch (``pre_dispatch=True``) on the pre-dispatch stack, reached through the
  PreDispatch key with the Python dispatcher on, above autograd (``linear`` stays whole).

For each op (``proxy_call``): an argument of a tensor subclass the mode neither handles nor tracks
makes it decline (``NotImplemented``: the subclass's ``__torch_dispatch__`` runs next); a
``decomposition_table`` entry runs instead (traced, with the mode re-entered; an entry returning
``NotImplemented`` declines, and the op goes on); post-dispatch, an op that still has a CIA kernel
(autograd was skipped, e.g. inference_mode) is decomposed; otherwise a ``call_function`` node is emitted with tracked
tensors replaced by their nodes (untracked ones become ``_tensor_constantN`` get_attr nodes,
``_param_constantN`` for Parameters; ``lift_fresh`` is recorded as ``lift_fresh_copy``), the op
runs for real on the underlying tensors and its outputs are tracked (a tuple / list output gets a
``getitem`` node per element; an opaque ``ScriptObject`` output is tracked too). Every node gets
``meta["val"]`` (a FakeTensor with the value's metadata) and ``meta["stack_trace"]`` (the user
frames that issued the op); with ``record_module_stack`` (default on, unlike torch), also
``meta["nn_module_stack"]`` (the modules being called, torch.export's format: tracer/module_stack.py)
and ``meta["user_fn"]`` (the qualified name of the innermost user function that issued the op).
"""

from __future__ import annotations

import contextlib
import gc
import inspect
import os
import sys
import threading
import traceback
import types
from collections.abc import Callable
from typing import Any

from dispatcher.fake import FakeTensor, FakeTensorMode
from dispatcher.fake.exceptions import DataDependentOutputException, DynamicOutputShapeException
from dispatcher.keys import DispatchKey
from dispatcher.modes.dispatch_mode import (
    TorchDispatchMode,
    TorchDispatchModeKey,
    _get_dispatch_mode_pre_dispatch,
    _pop_mode,
    _push_mode,
    _unset_dispatch_mode,
    no_dispatch,
    unset_mode_pre_dispatch,
)
from dispatcher.nn.parameter import Parameter
from dispatcher.tensor import Tensor
from dispatcher.tls import AutoDispatchBelowAutograd, EnablePreDispatch, EnablePythonDispatcher

from . import pytree
from .graph import PyTreeInfo
from .graph_module import GraphModule
from .module_stack import ModuleStackRecorder
from .proxy_tracker import (  # noqa: F401 - TracingError is public here
    _ATOMS,
    _CONTEXTLIB,
    _LIB_DIRS,
    TracingError,
    _aten,
    _Tracer,
)
from .saved_inside import recording, should_record

__all__ = ["ProxyTorchDispatchMode", "TracingError", "get_innermost_proxy_mode", "get_proxy_mode", "make_fx",
           "unset_fake_temporarily"]

_HOT_OPS: tuple | None = None


def _hot_ops() -> tuple:
    """(is_nonzero, lift_fresh, lift_fresh_copy) overloads, which proxy_call compares every op with."""
    global _HOT_OPS
    if _HOT_OPS is None:
        aten = _aten()
        _HOT_OPS = (aten.is_nonzero.default, aten.lift_fresh.default, aten.lift_fresh_copy.default)
    return _HOT_OPS


#: results with at most this many elements computed from constants are kept as constants (PyTorch's limit)
CONSTANT_NUMEL_LIMIT = 1

#: metadata queries never decomposed by the proxy mode
_NO_DECOMPOSE = frozenset({"aten::size", "aten::stride", "aten::storage_offset"})


class ProxyTorchDispatchMode(TorchDispatchMode):
    """Records every op that reaches it into its tracer's graph (see the module docstring)."""

    _mode_key = TorchDispatchModeKey.PROXY
    #: make_fx's ``_error_on_data_dependent_ops`` / ``_allow_fake_constant`` (see make_fx)
    _error_on_data_dependent_ops = True
    _allow_fake_constant = False

    def __init__(self, tracer: _Tracer, decomposition_table: dict | None = None, pre_dispatch: bool = False,
                 preserve: frozenset = frozenset()) -> None:
        super().__init__(DispatchKey.PreDispatch if pre_dispatch else None)
        self.tracer = tracer
        self.decomposition_table = decomposition_table or {}
        self.pre_dispatch = pre_dispatch
        #: CIA ops kept whole (``make_fx(preserve=...)``): neither the table nor the CIA step decomposes them
        self.preserve = preserve
        #: the proxy modes stashed by ``__enter__`` (one entry per enter still open)
        self._enter_stack: list[Any] = []

    @classmethod
    def is_infra_mode(cls) -> bool:
        return True

    def __enter__(self) -> ProxyTorchDispatchMode:
        # a proxy mode already active (an outer make_fx: a trace inside a traced function), pre-dispatch or not, is
        # stashed while this one is on, and comes back on exit (torch's ``enter_stack``): the inner trace records
        # into its own graph only, and what it runs is not recorded by the outer one
        self._enter_stack.append(_unset_proxy_mode())
        _push_mode(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _pop_mode(DispatchKey.PreDispatch if self.pre_dispatch else TorchDispatchModeKey.PROXY)
        prev = self._enter_stack.pop()
        if prev is not None:
            _push_mode(prev)

    def __torch_dispatch__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        if _has_unrecognized_subclass(self.tracer.tensor_tracker, args, kwargs):
            # a tensor subclass the tracer did not make and does not track: its own __torch_dispatch__ runs
            # next (after the modes below), typically unwrapping it and calling the op again on what it holds,
            # which comes back here (proxy_call's ``can_handle_tensor``)
            return NotImplemented
        preserved = func in self.preserve
        decomp = None if preserved else self.decomposition_table.get(func)
        if decomp is not None:
            with self:
                r = decomp(*args, **kwargs)
            if r is not NotImplemented:
                return r
            # the decomposition declined this call (maybe_handle_decomp): the op goes on as if it had none
        aten = _aten()
        is_nonzero, lift_fresh, lift_fresh_copy = _HOT_OPS or _hot_ops()
        if func is is_nonzero:  # traced as (x != 0).item(): a data-dependent value (proxy_call)
            n = args[0].numel()
            if n != 1:
                raise RuntimeError(f"Boolean value of Tensor with {'no values' if n == 0 else 'more than one value'} "
                                   "is ambiguous")
            with self:
                return bool(aten.item.default(aten.ne.Scalar(args[0], 0)))
        if not self.pre_dispatch and not preserved and _has_cia(func) and func.name() not in _NO_DECOMPOSE:
            with self:
                r = func.decompose(*args, **kwargs)
            if r is not NotImplemented:
                return r
        tracer = self.tracer
        data_dependent = "data_dependent_output" in func.tags
        if data_dependent or tracer.constant_values:
            tracked = [t for t in _tensors(args, kwargs) if t in tracer.tensor_tracker]
            all_constant = all(t in tracer.constant_values for t in tracked)
        else:  # no constants yet: constant propagation cannot apply (it needs tracked inputs, all constants)
            tracked, all_constant = [], False
        if data_dependent:
            if all_constant:
                with _no_fake_mode():
                    return func(*_constant_args(tracer, args), **_constant_args(tracer, kwargs))
            if self._error_on_data_dependent_ops and not any(_is_fake(t) for t in tracked):
                raise TracingError(
                    f"It appears that you're trying to get value out of a tracing tensor with {func} - erroring "
                    "out! It's likely that this is caused by data-dependent control flow or similar.  It may be "
                    "possible to trace this with dynamic shapes; try setting tracing_mode='symbolic' in your "
                    f"make_fx call.\n{_user_line()}")
            # fake tensors: the fake mode below raises DataDependentOutputException, turned into a TracingError
        target = lift_fresh_copy if func is lift_fresh else func
        node = tracer.graph.create_node("call_function", target, *tracer.to_args(args, kwargs))
        trace = tracer.stack_trace()
        tracer.record_where(node, trace)
        try:
            if preserved and not self.pre_dispatch:  # its CIA decomposition runs unrecorded, below autograd
                with AutoDispatchBelowAutograd():
                    out = target(*args, **kwargs)
            elif self.pre_dispatch and _has_cia(func) and should_record(args, kwargs):
                # it decomposes below: record what runs in there, which autograd may save (saved_inside.py)
                with recording(tracer, func, trace):
                    out = target(*args, **kwargs)
            else:
                out = target(*args, **kwargs)
        except (DataDependentOutputException, DynamicOutputShapeException) as e:
            tracer.graph.erase_node(node)
            raise _data_dependent_error(func, e) from e
        tracer.track(out, node)
        # constant propagation (track_tensor_tree's ``constant``): small results computed from constants keep their
        # real value, every element of a tuple / list result too; any other result has none, also when it is an
        # input written in place (a constant overwritten by a random op or with traced values is no longer one)
        constants = tracer.constant_values
        if func is lift_fresh:
            if isinstance(out, Tensor) and out.numel() <= CONSTANT_NUMEL_LIMIT and not _is_fake(args[0]):
                with no_dispatch():
                    constants[out] = aten.clone.default(args[0])
        elif constants and out is None and args and isinstance(args[0], list):
            # an in-place op over a list (``_foreach_add_``, schema ``-> ()``): run it on the constants of the written
            # tensors (as torch runs it on the ``.constant``s), or forget them when an input is not a constant
            written = [t for t in args[0] if isinstance(t, Tensor)]
            if (tracked and all_constant and "nondeterministic_seeded" not in func.tags and _all_small(written)):
                with no_dispatch():
                    func(*_constant_args(tracer, args), **_constant_args(tracer, kwargs))
            else:
                for t in written:
                    constants.pop(t, None)
        elif constants:  # (before the first constant there is nothing to propagate nor to forget)
            value = None
            if (tracked and all_constant and "nondeterministic_seeded" not in func.tags
                    and _all_small(out)):
                with no_dispatch():
                    value = func(*_constant_args(tracer, args), **_constant_args(tracer, kwargs))
            _set_constants(constants, out, value)
        return out


def _unset_proxy_mode() -> Any:
    """Take the active proxy mode off its stack (the pre-dispatch one or the regular one) and return it, or None
    (torch's ``_unset_infra_mode(PROXY)``)."""
    if _get_dispatch_mode_pre_dispatch(TorchDispatchModeKey.PROXY) is not None:
        return unset_mode_pre_dispatch(TorchDispatchModeKey.PROXY)
    return _unset_dispatch_mode(TorchDispatchModeKey.PROXY)


#: tensor types the proxy mode handles untracked (an untracked one becomes a ``_tensor_constantN``): torch's
#: ``HANDLED_TYPES``; any other Tensor subclass must be tracked, or the mode declines the op
_HANDLED_TYPES = frozenset({Tensor, Parameter, FakeTensor})


def _has_unrecognized_subclass(tracker: Any, args: tuple, kwargs: dict) -> bool:
    """Is some tensor argument of a type the mode does not handle, and untracked? (one pass, hot)"""
    for a in (*args, *kwargs.values()) if kwargs else args:
        cls = a.__class__
        if cls in _HANDLED_TYPES or cls in _ATOMS:
            continue
        if cls is list or cls is tuple:
            for e in a:
                if e.__class__ not in _HANDLED_TYPES and isinstance(e, Tensor) and e not in tracker:
                    return True
        elif isinstance(a, Tensor) and a not in tracker:
            return True
    return False


def _all_small(out: Any) -> bool:
    """Every tensor of ``out`` (a tensor, or a tuple / list of them) has at most CONSTANT_NUMEL_LIMIT elements."""
    if isinstance(out, Tensor):
        return out.numel() <= CONSTANT_NUMEL_LIMIT
    if isinstance(out, (tuple, list)):
        return all(e.numel() <= CONSTANT_NUMEL_LIMIT for e in out if isinstance(e, Tensor))
    return False


def _set_constants(constants: Any, out: Any, value: Any) -> None:
    """Record ``value`` as the constant of ``out`` element by element; forget the constants where it is None."""
    if isinstance(out, Tensor):
        if value is None:
            constants.pop(out, None)
        else:
            constants[out] = value
    elif isinstance(out, (tuple, list)):
        for i, e in enumerate(out):
            if isinstance(e, Tensor):
                _set_constants(constants, e, None if value is None else value[i])


def _user_line() -> str:
    """The innermost frame outside the library (the user's line that issued the op), as a traceback entry."""
    f = sys._getframe(1)
    while f is not None and (f.f_code.co_filename.startswith(_LIB_DIRS) or f.f_code.co_filename == _CONTEXTLIB):
        f = f.f_back
    if f is None:
        return "(no frame outside dispatcher / tracer issued the op)"
    entry = (f.f_code.co_filename, f.f_lineno, f.f_code.co_name, None)
    return "".join(traceback.StackSummary.from_list([entry]).format()).rstrip("\n")


class DataDependentTracingError(TracingError, DataDependentOutputException):
    """make_fx(tracing_mode='fake') met an op whose value depends on data: a TracingError explaining it, and still
    the DataDependentOutputException torch's make_fx lets through (``except DataDependentOutputException`` holds)."""

    def __init__(self, message: str, func: Any) -> None:
        RuntimeError.__init__(self, message)
        self.func = func

    __repr__ = RuntimeError.__repr__


class DynamicShapeTracingError(TracingError, DynamicOutputShapeException):
    """The same for an op whose output shape depends on data (torch: DynamicOutputShapeException)."""

    def __init__(self, message: str, func: Any) -> None:
        RuntimeError.__init__(self, message)
        self.func = func

    __repr__ = RuntimeError.__repr__


def _data_dependent_error(func: Any, e: Exception) -> TracingError:
    """Fake tracing met an op whose value / output shape depends on data fake tensors do not have."""
    dynamic_shape = isinstance(e, DynamicOutputShapeException)
    what = "output shape" if dynamic_shape else "value"
    inner = getattr(e, "func", func)
    where = "" if inner is func else f" (through {inner})"
    cls = DynamicShapeTracingError if dynamic_shape else DataDependentTracingError
    return cls(
        f"make_fx(tracing_mode='fake') cannot trace {func}{where}: its {what} depends on tensor data, which fake "
        "tensors do not have (symbolic shapes are not supported). Trace with tracing_mode='real', or keep "
        f"data-dependent code (.item(), bool(t), .tolist(), nonzero, boolean masks) out of the traced "
        f"function. The user code that asked for it:\n{_user_line()}", inner)


def _tensors(args: tuple, kwargs: dict) -> list[Any]:
    """The tensors among ``args`` / ``kwargs`` (lists and tuples included)."""
    out = []
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(e for e in a if isinstance(e, Tensor))
    return out


def _constant_args(tracer: _Tracer, tree: Any) -> Any:
    """``tree`` with each tracked constant tensor replaced by its real value."""
    if isinstance(tree, Tensor):
        return tracer.constant_values.get(tree, tree)
    if isinstance(tree, (list, tuple)):
        return type(tree)(_constant_args(tracer, e) for e in tree)
    if isinstance(tree, dict):
        return {k: _constant_args(tracer, v) for k, v in tree.items()}
    return tree


@contextlib.contextmanager
def _no_fake_mode() -> Any:
    """Take the active FakeTensorMode off the stack for the body (``unset_fake_temporarily``)."""
    fake = _unset_dispatch_mode(TorchDispatchModeKey.FAKE)
    try:
        yield
    finally:
        if fake is not None:
            _push_mode(fake)


def _is_tensor_leaf(tree: Any) -> bool:
    """A tensor that is a pytree leaf (every tensor, unless its type was registered as a pytree node)."""
    return isinstance(tree, Tensor) and pytree._node_def(tree) is None


def _leaves(tree: Any) -> list[Any]:
    """``pytree.tree_leaves(tree)``; a tensor (the usual argument) is its own leaf, found without the walk."""
    return [tree] if _is_tensor_leaf(tree) else pytree.tree_leaves(tree)


def _has_cia(func: Any) -> bool:
    """Has ``func`` a CompositeImplicitAutograd kernel, i.e. can ``func.decompose`` do anything (cheap check)?"""
    return _CIA in func.py_kernels or bool(func.kernels.get(_CIA))


_CIA = DispatchKey.CompositeImplicitAutograd


def _is_fake(t: Any) -> bool:
    return isinstance(t, FakeTensor)


def _placeholder_names(f: Callable[..., Any], nargs: int) -> list[str]:
    """``<param>`` for each positional argument; ``arg{i}`` when the signature does not name it."""
    if type(f) is types.FunctionType and "__wrapped__" not in f.__dict__ and "__signature__" not in f.__dict__:
        # a plain function (no decorator metadata): inspect.signature's positional parameters are these
        code = f.__code__
        params = code.co_varnames[:code.co_argcount]
        return [params[i] if i < len(params) else f"arg{i}" for i in range(nargs)]
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        return [f"arg{i}" for i in range(nargs)]
    names = []
    for i in range(nargs):
        if i < len(params) and params[i].kind in (inspect.Parameter.POSITIONAL_ONLY,
                                                  inspect.Parameter.POSITIONAL_OR_KEYWORD):
            names.append(params[i].name)
        else:
            names.append(f"arg{i}")
    return names


def make_fx(f: Callable[..., Any], decomposition_table: dict | None = None, tracing_mode: str = "real",
            _allow_non_fake_inputs: bool = False, *, pre_dispatch: bool = False, record_stack_traces: bool = True,
            preserve: Any = None, record_module_stack: bool = True, _allow_fake_constant: bool = False,
            _error_on_data_dependent_ops: bool = True) -> Callable[..., GraphModule]:
    """Return a function that traces ``f`` on example inputs into a GraphModule (module docstring).

    torch's private knobs, with its meanings: ``_allow_non_fake_inputs`` (fake mode: real tensors the function
    captures are turned into fake ones instead of raising "Please convert all Tensors to FakeTensors first");
    ``_error_on_data_dependent_ops=False`` (an op with a data-dependent output, ``.item()``, ``allclose``, on real
    tensors is recorded and returns its real value instead of raising "It appears that you're trying to get value
    out of a tracing tensor"); ``_allow_fake_constant`` (fake tensors that are not traced may be used as constants:
    already so here, as in torch 2.13, where FakeTensor is one of the proxy mode's handled types).

    ``record_module_stack``: record ``meta["nn_module_stack"]`` (tracer/module_stack.py); torch's make_fx has the
    same flag, off by default, and honours it only on export's path.

    ``preserve``: CompositeImplicitAutograd ops (OpOverloads or packets) kept whole, as one node, in a
    post-dispatch trace (tracer/decompositions/preserve.py).
    """
    from .decompositions.preserve import resolve_preserved

    preserved = resolve_preserved(preserve)
    if tracing_mode not in ("real", "fake"):
        if tracing_mode == "symbolic":
            raise NotImplementedError("make_fx(tracing_mode='symbolic'): symbolic shapes are not supported")
        raise AssertionError(f"Unexpected tracing type: {tracing_mode}")

    def wrapped(*args: Any) -> GraphModule:
        with _gc_paused():
            return _trace(f, args, decomposition_table, tracing_mode, pre_dispatch, record_stack_traces, preserved,
                          record_module_stack, _allow_non_fake_inputs, _error_on_data_dependent_ops,
                          _allow_fake_constant)

    return wrapped


#: Pause the cyclic GC while make_fx traces (a documented knob, docs/make_fx.md). A trace allocates many small
#: objects in reference cycles (nodes and their users, autograd graphs) that the collector would scan over and over
#: while the graph grows; pausing it makes traces faster and their cost steadier (docs/benchmarks.md).
PAUSE_GC = True

_gc_lock = threading.Lock()
_gc_pauses = 0  #: traces running with the pause (in any thread)
_gc_disabled_by_us = False  #: whether the first of them turned the collector off (it was on)


@contextlib.contextmanager
def _gc_paused() -> Any:
    """The GC pause, process-wide and thread-safe: the first trace to start turns the collector off if it is on,
    the last to end turns it back on only if a trace turned it off and it is still off (``gc.enable()`` from
    other code meanwhile stands; a collector that was off stays off). One count for every thread: a trace ending
    in one thread never turns the collector on under a trace still running in another."""
    global _gc_pauses, _gc_disabled_by_us
    if not PAUSE_GC:
        yield
        return
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_disabled_by_us = gc.isenabled()
            if _gc_disabled_by_us:
                gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_disabled_by_us:
                _gc_disabled_by_us = False
                if not gc.isenabled():
                    gc.enable()


def _trace(f: Callable[..., Any], args: tuple, decomposition_table: dict | None, tracing_mode: str,
           pre_dispatch: bool, record_stack_traces: bool, preserve: frozenset = frozenset(),
           record_module_stack: bool = False, allow_non_fake_inputs: bool = False,
           error_on_data_dependent_ops: bool = True, allow_fake_constant: bool = False) -> GraphModule:
    tracer = _Tracer(record_stack_traces)
    if pre_dispatch:
        tracer.alias_index = {}
    graph = tracer.graph
    fake_mode = None
    if tracing_mode == "fake":
        flat = all(_is_tensor_leaf(a) for a in args)  # (the usual case: no walk over args' structure)
        existing = next((a.fake_mode for a in (args if flat else pytree.tree_leaves(args)) if isinstance(a, FakeTensor)),
                        None)
        fake_mode = existing or FakeTensorMode(allow_fallback_kernels=True, static_shapes=True,
                                               allow_non_fake_inputs=allow_non_fake_inputs)
        to_fake = lambda a: fake_mode.from_tensor(a) if isinstance(a, Tensor) and not isinstance(a, FakeTensor) else a  # noqa: E731
        args = tuple([to_fake(a) for a in args]) if flat else pytree.tree_map(to_fake, args)
    # placeholders: one per flattened leaf of each argument
    names = _placeholder_names(f, len(args))
    nested = False
    for name, a in zip(names, args, strict=True):
        leaves = _leaves(a)
        if len(leaves) != 1 or leaves[0] is not a:
            nested = True
        for leaf in leaves:
            ph = graph.placeholder(f"{name}_1")
            ph.target = ph.name  # (a_1, a_2, ... for the leaves of a nested input, target and name alike, as torch)
            if isinstance(leaf, Tensor):
                tracer.track(leaf, ph)
            else:
                ph.meta["val"] = leaf
    mode = ProxyTorchDispatchMode(tracer, decomposition_table, pre_dispatch, preserve)
    mode._error_on_data_dependent_ops = error_on_data_dependent_ops
    mode._allow_fake_constant = allow_fake_constant
    with contextlib.ExitStack() as stack:
        if preserve:
            from .decompositions.preserve import preserving

            stack.enter_context(preserving(preserve, pre_dispatch))
        if fake_mode is not None:
            stack.enter_context(fake_mode)
        if pre_dispatch:
            stack.enter_context(EnablePythonDispatcher())
            stack.enter_context(EnablePreDispatch())
            stack.enter_context(mode)  # (onto the pre-dispatch stack: its _dispatch_key)
            stack.enter_context(_GradModeRecorder(tracer))
        else:
            stack.enter_context(mode)
        if record_stack_traces:  # (dropped afterwards: the frames must not outlive the trace)
            tracer.set_root_frame(sys._getframe())
            stack.callback(tracer.set_root_frame, None)
        if record_module_stack:
            stack.enter_context(ModuleStackRecorder(tracer, f))
        result = f(*args)
    to_node = lambda r: tracer.to_arg(r) if isinstance(r, Tensor) else r  # noqa: E731
    if nested:  # the generated forward flattens its inputs and unflattens its outputs with specs
        leaves, out_spec = pytree.tree_flatten(result)
        graph.output([to_node(r) for r in leaves])
        graph.pytree_info = PyTreeInfo(list(names), pytree.tree_structure(list(args)), out_spec)
    else:
        graph.output(to_node(result) if _is_tensor_leaf(result) else pytree.tree_map(to_node, result))
    name = getattr(f, "__name__", None) or type(f).__name__
    return GraphModule(tracer.constants, graph, class_name=name)


_GRAD_MODE_FILE = os.path.join(_LIB_DIRS[0], "autograd", "grad_mode.py")
_ENGINE_FILE = os.path.join(_LIB_DIRS[0], "autograd", "engine.py")


def _set_by_engine() -> bool:
    """Is the grad-mode change being made by the autograd engine (a C++ GradMode change in PyTorch)?"""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename == _GRAD_MODE_FILE:
        f = f.f_back
    return f is not None and f.f_code.co_filename == _ENGINE_FILE


class _GradModeRecorder:
    """Pre-dispatch: record every grad-mode setting made by the traced function as a ``_set_grad_enabled`` node.

    PyTorch sees them with a TorchFunctionMode on ``torch._C._set_grad_enabled``, so a setting that changes
    nothing (``enable_grad()`` where grad is on, a nested ``no_grad()``) is recorded too; here every grad-mode
    setting goes through ``grad_mode._state.enabled``, so its setter is wrapped for the trace (settings made by
    other threads, or by the autograd engine, which PyTorch makes in C++, are not recorded).
    """

    def __init__(self, tracer: _Tracer) -> None:
        self.tracer = tracer

    def __enter__(self) -> _GradModeRecorder:
        from dispatcher.autograd import grad_mode

        self._view_cls = type(grad_mode._state)
        self._prop = self._view_cls.enabled
        tracer = self.tracer
        prop = self._prop
        thread = threading.get_ident()

        def setter(view: Any, value: bool) -> None:
            value = bool(value)
            if threading.get_ident() == thread and not _set_by_engine():
                node = tracer.graph.create_node("call_function", grad_mode._set_grad_enabled, (value,))
                node.meta["val"] = None
                tracer.record_where(node, tracer.stack_trace())
            prop.fset(view, value)

        self._view_cls.enabled = property(prop.fget, setter)
        return self

    def __exit__(self, *exc: object) -> None:
        self._view_cls.enabled = self._prop


def get_proxy_mode() -> ProxyTorchDispatchMode | None:
    """The proxy mode tracing now (make_fx's, pre-dispatch's included), or None outside a trace (torch's
    ``get_proxy_mode``; ``get_innermost_proxy_mode`` is its legacy name)."""
    from dispatcher.modes.dispatch_mode import _get_dispatch_mode, _get_dispatch_mode_pre_dispatch

    pre = _get_dispatch_mode_pre_dispatch(TorchDispatchModeKey.PROXY)
    mode = _get_dispatch_mode(TorchDispatchModeKey.PROXY)
    if pre is not None and mode is not None:
        raise AssertionError(f"pre_dispatch_mode={pre}, mode={mode}")
    return pre or mode


get_innermost_proxy_mode = get_proxy_mode


@contextlib.contextmanager
def unset_fake_temporarily() -> Any:
    """Take the active FakeTensorMode off for the body, yielding it (or None); torch's context manager of that name
    (torch._subclasses.fake_tensor): tensors made inside are real."""
    old = _unset_dispatch_mode(TorchDispatchModeKey.FAKE)
    try:
        yield old
    finally:
        if old is not None:
            _push_mode(old)
