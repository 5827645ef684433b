"""Lazy torch-function-level capture for ``tracer.compile``: lazy tensors, graph segments, graph breaks.

Plays the role of torch/_dynamo/symbolic_convert.py + output_graph.py, without a bytecode interpreter. The
user's function runs as ordinary Python under ``_CaptureMode`` (a TorchFunctionMode). Each torch-level call
(``x.sin()``, ``dispatcher.add``, ``x + y``, ``F.relu``) is evaluated on fake tensors only, recorded as a node
of the current graph *segment*, and answered with a ``LazyTensor``: a storage-less tensor carrying its fake
(shape, dtype, strides known) and its node. Metadata queries (``x.shape``, ``x.dim()``) are answered from the
fakes and leave no node. When Python needs data (``bool(t)``, ``.item()``, ``.tolist()``, ``.numpy()``,
``repr``, ``backward()``), or the user asks for it (``graph_break()``, a ``disable``d or disallowed call),
the segment is *flushed*: its outputs are the lazy tensors still alive, the backend compiles it (through the
cache), it runs on the real inputs, and every live LazyTensor turns in place into the real Tensor it stands
for ("becomes" it: same Python object, now of class Tensor), so Python continues with real values and
capture resumes with a fresh segment whose placeholders are the real tensors it reads.

Graph conventions follow Dynamo's FX graphs: a tensor method is ``call_method`` (``x.sin()`` -> ``sin``), a
function is ``call_function`` on the public callable (``dispatcher.sin``, ``F.relu``), a Python operator is
``call_function`` on the ``operator`` function (``x + y`` -> ``operator.add``, ``x[0]`` -> ``getitem``; told
apart from ``x.add(y)`` by the user frame's current bytecode instruction), grad-mode changes are
``_set_grad_enabled`` nodes. Frames are followed with ``sys.setprofile`` for ``disable(recursive=False)``,
``disable_module``, ``allow_in_graph``-ed Python functions and ``dispatcher.autograd.grad``/``backward``.

This module holds the session (``Session``: the capture mode, the state stack, breaks, flushes, the frame
hook, the handling of each torch-level call); the parts it uses live beside it: compile_lazy.py (``LazyTensor``
and how it becomes real), compile_segment.py (the graph being captured and its node building) and
compile_call_sites.py (the user's frame and location, what a call is, break reasons).
"""

from __future__ import annotations

import linecache
import logging
import operator
import sys
from typing import Any

from dispatcher.autograd import grad_mode as _grad_mode
from dispatcher.fake import DataDependentOutputException, DynamicOutputShapeException
from dispatcher.modes import function_mode as _fm
from dispatcher.tensor import Tensor
from dispatcher.tls import per_thread

from . import compile_markers as _markers
from . import pytree
from .compile_call_sites import (
    _OPNAME,
    _PRINT_REASON,
    _REQUIRES_GRAD_REASON,
    _STDLIB_DIR,
    _call_info,
    _CallInfo,
    _is_library_file,
    _location,
    _operator_of,
    _user_frame,
    format_location,
)
from .compile_lazy import LazyTensor, _become
from .compile_segment import Segment, opaque_result
from .graph import Node

__all__ = ["LazyTensor", "Session", "Unsupported"]

log = logging.getLogger("tracer.compile")


class Unsupported(RuntimeError):
    """A graph break where ``fullgraph`` forbids one (``torch._dynamo.exc.Unsupported``)."""


# --- states of a session ---------------------------------------------------------------------------------------------
class _State:
    """One entry of the session's state stack: capturing, running eagerly, or inside an opaque allowed call."""

    __slots__ = ("kind", "frame", "recursive", "want_code", "parent", "own_frame", "fn", "node_args")

    def __init__(self, kind: str, frame: Any = None, recursive: bool = True) -> None:
        self.kind = kind  # "capture" | "eager" | "opaque"
        self.frame = frame  # the frame whose return ends this state (None: ended by a token)
        self.recursive = recursive
        self.want_code: Any = None  # eager, recursive=False: code of the skipped function, frame found on its call
        self.parent: Any = None
        self.fn: Any = None
        self.node_args: Any = None
        self.own_frame: Any = None  # eager, recursive=False: the skipped function's frame (callees are captured)


class _Token:
    """Ends a state pushed by a wrapper / context manager (``disable``)."""

    __slots__ = ("session", "state")

    def __init__(self, session: Session, state: _State) -> None:
        self.session = session
        self.state = state

    def close(self) -> None:
        self.session.pop_state(self.state)


class Session:
    """One call of a compiled function: the capture mode, the state stack, the current segment, the flushes."""

    def __init__(self, compiled: Any, fullgraph: bool | str, input_names: dict[int, str]) -> None:
        self.compiled = compiled  # compile.CompiledFunction: backend, cache, stats, explain hooks
        self.fullgraph = fullgraph
        self.input_names = input_names
        self.states: list[_State] = [_State("capture")]
        self.segment = Segment(input_names)
        self.in_handler = 0
        self.mode = _CaptureMode(self)
        self.flushes: list[dict[str, Any]] = []  # one per graph run: key, reason, location, gm
        self.breaks = 0
        self.used_frames = False  # a frame-based state was used (whole-call fast path is off then)
        self._old_profile: Any = None
        self._prev_session: Any = None

    # --- entering / leaving ----------------------------------------------------------------------------------------
    def __enter__(self) -> Session:
        self._prev_session = _markers._tls.session
        _markers._tls.session = self
        per_thread.s.capture_depth += 1
        try:
            self.mode.__enter__()
        except BaseException:  # __exit__ will not run: restore the thread's state here
            _markers._tls.session = self._prev_session
            per_thread.s.capture_depth -= 1
            raise
        self._old_profile = sys.getprofile()
        sys.setprofile(self._profile)
        return self

    def __exit__(self, exc_type: Any, *exc: object) -> None:
        sys.setprofile(self._old_profile)
        try:
            self._remove_mode()
        finally:
            _markers._tls.session = self._prev_session
            per_thread.s.capture_depth -= 1

    def _remove_mode(self) -> None:
        stack = _fm._tls.stack
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] is self.mode:
                del stack[i]
                _fm._ARMED.n -= 1
                return

    def finish(self, result: Any) -> Any:
        """The end of the compiled frame: flush what is left (no break); return ``result`` with real tensors."""
        self.flush(None, None)
        return result

    # --- the state stack -----------------------------------------------------------------------------------------------
    @property
    def state(self) -> _State:
        return self.states[-1]

    def push_state(self, state: _State) -> None:
        self.states.append(state)

    def pop_state(self, state: _State) -> None:
        if state.kind == "capture":
            self.flush(None, None)
        if not any(s is state for s in self.states):
            return
        while self.states[-1] is not state:
            self.states.pop()  # states a non-local exit (an exception) skipped
        self.states.pop()
        if self.state.kind == "capture" and state.kind != "capture":
            self.segment = Segment(self.input_names)

    def enter_disabled(self, why: str, fn: Any, recursive: bool = True, reason: str | None = None) -> _Token:
        """A ``disable``d call (or ``with disable():``) starts: end the graph, run eagerly until the token closes."""
        caller = sys._getframe(1)  # the disable wrapper's frame (or __enter__'s)
        loc = _location(_user_frame(caller.f_back))
        if self.state.kind == "capture":
            self.break_graph(why, loc, declared=True)
            log.info("tracer.compile: skipping %s (%s), it runs eagerly%s",
                     getattr(fn, "__qualname__", "a `with tracer.disable()` block") if fn is not None else
                     "a `with tracer.disable()` block", format_location(loc), f" ({reason})" if reason else "")
        state = _State("eager", None, recursive)
        code = getattr(fn, "__code__", None)
        if not recursive and code is not None:
            state.want_code = code
            state.parent = caller
            self.used_frames = True
        self.push_state(state)
        return _Token(self, state)

    def declared_break(self, reason: str) -> None:
        """``graph_break()``."""
        if self.state.kind == "opaque":
            raise Unsupported(f"{reason} inside an allow_in_graph function: it must be traceable without breaks")
        if self.state.kind != "capture":
            return
        self.break_graph(reason, _location(_user_frame(sys._getframe(2))), declared=True)

    # --- breaks and flushes ------------------------------------------------------------------------------------------
    def break_graph(self, reason: str, loc: Any, declared: bool) -> None:
        """End the current graph because of ``reason`` (at the user's ``loc``); fullgraph may forbid it."""
        if self.fullgraph is True or (self.fullgraph == "allow_declared" and not declared):
            line = linecache.getline(loc[0], loc[1]).strip() if loc is not None else ""
            raise Unsupported(f"{reason}\n\nfrom user code:\n   {format_location(loc)}\n    {line}\n\n(tracer.compile("
                              f"fullgraph={self.fullgraph!r}) forbids graph breaks"
                              + ("; fullgraph='allow_declared' allows only graph_break() and disable()"
                                 if self.fullgraph == "allow_declared" else "") + ")")
        self.breaks += 1
        self.flush(reason, loc)

    def flush(self, reason: str | None, loc: Any) -> None:
        """Compile and run the current segment; turn its live lazy tensors into real ones; start a new segment."""
        seg = self.segment
        self.segment = Segment(self.input_names)
        if seg.n_calls == 0:
            return
        live: list[tuple[Node, LazyTensor]] = []
        for node, ref in seg.lazies:
            lz = ref()
            if lz is not None and type(lz) is LazyTensor and lz.__dict__.get("_lz_node") is node:
                live.append((node, lz))
        graph = seg.graph
        live_nodes = {n for n, _ in live}
        for node in reversed(list(graph.nodes)):  # getitems of results nobody used (Dynamo makes them on access)
            if node.op == "call_function" and node.target is operator.getitem and not node.users \
                    and node not in live_nodes:
                graph.erase_node(node)
        if seg.grad_now != seg.grad0:
            graph.create_node("call_function", _grad_mode._set_grad_enabled, (seg.grad0,)).meta["val"] = None
        graph.output(tuple(n for n, _ in live))
        self.in_handler += 1
        try:
            with _suspended(self), _grad_mode.set_grad_enabled(bool(seg.grad0)):
                outs = self.compiled._run_segment(self, seg, reason, loc)
        finally:
            self.in_handler -= 1
        outs = list(outs)
        if len(outs) != len(live):
            raise RuntimeError(f"tracer.compile: the backend returned {len(outs)} outputs, the graph has {len(live)}")
        for (_, lz), real in zip(live, outs, strict=True):
            _become(lz, real)

    def data_needed(self, lazy: Any, reason: str) -> None:
        """A lazy tensor's value is needed outside a torch-level call (``np.asarray``): break."""
        if type(lazy) is LazyTensor and self.state.kind == "capture":
            self.break_graph(reason, _location(_user_frame(sys._getframe(1))), declared=False)

    # --- the profile hook: frames ------------------------------------------------------------------------------------
    def _profile(self, frame: Any, event: str, arg: Any) -> None:
        old = self._old_profile
        if old is not None:
            old(frame, event, arg)
        if self.in_handler or (event != "call" and event != "return"):
            if event == "c_call" and arg is print and not self.in_handler and self.states[-1].kind == "capture" \
                    and not _is_library_file(frame.f_code.co_filename):
                # Dynamo cannot trace print (output must happen in order): the graph ends before the call
                self.break_graph(_PRINT_REASON, _location(frame), declared=False)
            return
        state = self.states[-1]
        if event == "return":
            if state.frame is frame:
                self._frame_returns(state, arg)
            return
        code = frame.f_code
        kind = state.kind
        if kind == "capture":
            if code in _EAGER_CODES:
                self._enter_eager_frame(frame, _EAGER_CODES[code])
            elif _markers._allowed_codes and code in _markers._allowed_codes \
                    and _markers.is_allowed_code(code, frame) is not None:
                self._enter_opaque(frame, _markers.is_allowed_code(code, frame))
            elif _markers._disabled_modules and _markers.module_is_disabled(frame.f_globals.get("__name__")):
                loc = _location(_user_frame(frame.f_back))
                log.info("tracer.compile: skipping %s (module %s is disabled), it runs eagerly (%s)",
                         code.co_name, frame.f_globals.get("__name__"), format_location(loc))
                self._enter_eager_frame(frame, "Skip calling `tracer.disable()`d function", declared=True)
        elif kind == "eager" and not state.recursive:
            if state.own_frame is None:
                if code is state.want_code and frame.f_back is state.parent:
                    state.own_frame = frame  # the skipped function's own frame: its return is handled by the token
                    state.want_code = None
                return
            if frame.f_back is state.own_frame and not _is_library_file(code.co_filename) \
                    and not code.co_filename.startswith(_STDLIB_DIR):
                self.used_frames = True
                new = _State("capture", frame)
                self.segment = Segment(self.input_names)
                self.push_state(new)

    def _enter_eager_frame(self, frame: Any, reason: str, declared: bool = False) -> None:
        self.used_frames = True
        self.in_handler += 1
        try:
            self.break_graph(reason, _location(_user_frame(frame.f_back)), declared=declared)
        finally:
            self.in_handler -= 1
        self.push_state(_State("eager", frame, True))

    def _frame_returns(self, state: _State, retval: Any) -> None:
        self.in_handler += 1
        try:
            if state.kind == "opaque":
                self._finish_opaque(state, retval)
                self.states.pop()
            elif state.kind == "capture":
                self.flush(None, None)  # a frame compiled on its own ends (no break)
                self.states.pop()
            else:
                self.states.pop()
                if self.state.kind == "capture":
                    self.segment = Segment(self.input_names)
        finally:
            self.in_handler -= 1

    # --- allow_in_graph Python functions: one opaque node --------------------------------------------------------------
    def _enter_opaque(self, frame: Any, fn: Any) -> None:
        self.used_frames = True
        self.in_handler += 1
        try:
            code = frame.f_code
            local = frame.f_locals
            n_pos = code.co_argcount  # positional-only parameters included
            names = code.co_varnames
            args = [local[names[i]] for i in range(n_pos) if names[i] in local]
            idx = n_pos
            kwargs = {names[idx + j]: local[names[idx + j]] for j in range(code.co_kwonlyargcount)
                      if names[idx + j] in local}
            idx += code.co_kwonlyargcount
            if code.co_flags & 0x04:  # *args
                args.extend(local.get(names[idx], ()))
                idx += 1
            if code.co_flags & 0x08:  # **kwargs
                kwargs.update(local.get(names[idx], {}))
            state = _State("opaque", frame)
            state.fn = fn
            state.node_args = self.segment.node_args((tuple(args), kwargs))
            self.push_state(state)
        finally:
            self.in_handler -= 1

    def _finish_opaque(self, state: _State, retval: Any) -> None:
        seg = self.segment
        args, kwargs = state.node_args
        fake_out = pytree.tree_map(lambda v: v.__dict__["_lz_fake"] if type(v) is LazyTensor else v, retval)
        node = self.segment.record("call_function", state.fn, args, kwargs, fake_out, state.frame.f_back)
        seg.attach_outputs(node, retval, fake_out)

    # --- torch-level calls -----------------------------------------------------------------------------------------------
    def on_torch_function(self, func: Any, args: tuple, kwargs: dict) -> Any:
        state = self.states[-1]
        if state.kind == "eager":
            return func(*args, **kwargs)
        info = _call_info(func)
        frame = _user_frame(sys._getframe(3))
        if state.kind == "capture" and _markers.is_disallowed(func):
            self.break_graph("Attempted to call function marked as skipped", _location(frame), declared=True)
            return func(*args, **kwargs)
        if info.name == "requires_grad_" and state.kind == "capture" and args and type(args[0]) is LazyTensor \
                and (args[1] if len(args) > 1 else kwargs.get("requires_grad", True)):
            # a leaf made inside the graph: Dynamo breaks before the call when the tensor (or one computed from it)
            # outlives the graph, as it does whenever backward() or autograd.grad (graph breaks) uses it; here
            # the graph always ends there, so the leaf is a real tensor that autograd accumulates into
            self.break_graph(_REQUIRES_GRAD_REASON, _location(frame), declared=False)
            return func(*args, **kwargs)
        if info.data_reason is not None:
            if self.segment.needs_data(args, kwargs):
                if state.kind == "opaque":
                    raise Unsupported(f"{info.data_reason} inside an allow_in_graph function "
                                      f"({getattr(state.fn, '__qualname__', state.fn)}): it must run on fake tensors")
                reason = info.data_reason
                if info.name == "__bool__" and frame is not None and "JUMP" in _OPNAME[frame.f_code.co_code[
                        frame.f_lasti]]:
                    reason = "generic_jump TensorVariable()"
                self.break_graph(reason, _location(frame), declared=False)
            return func(*args, **kwargs)
        return self._trace_call(func, info, args, kwargs, frame)

    def on_aten_call(self, func: Any, args: tuple, kwargs: dict) -> Any:
        """An OpOverload called directly on lazy tensors: a ``call_function`` node on the overload."""
        state = self.states[-1]
        if state.kind == "eager" or self.in_handler:
            raise RuntimeError(f"{func}: a tensor captured by tracer.compile() reached the dispatcher outside the "
                               "capture (internal error: it should have been computed at the graph break)")
        frame = _user_frame(sys._getframe(1))
        if state.kind == "capture" and _markers.is_disallowed(func):
            self.break_graph("Attempted to call function marked as skipped", _location(frame), declared=True)
            self.in_handler += 1
            try:
                with _suspended(self):  # the kernel's own torch-level calls run eagerly, not captured
                    return func(*args, **kwargs)
            finally:
                self.in_handler -= 1
        self.in_handler += 1
        try:
            return self._trace_call(func, _CallInfo("function", str(func), None), args, kwargs, frame)
        finally:
            self.in_handler -= 1

    def _trace_call(self, func: Any, info: _CallInfo, args: tuple, kwargs: dict, frame: Any) -> Any:
        flat, spec = pytree.tree_flatten((args, kwargs))
        seg = self.segment
        try:
            fflat = [seg.to_fake(a) for a in flat]
            versions = [(f, f._version_counter.version) for f in fflat if isinstance(f, Tensor)]
            fargs, fkwargs = pytree.tree_unflatten(fflat, spec)
            with _fm.DisableTorchFunction(), seg.fake_mode:
                out = func(*fargs, **fkwargs)
        except DataDependentOutputException:
            return self._fallback("Data dependent operator", frame, func, args, kwargs)
        except DynamicOutputShapeException:
            return self._fallback("Dynamic shape operator", frame, func, args, kwargs)
        except Exception as e:  # noqa: BLE001 - eager decides: it raises the genuine error, or succeeds
            return self._fallback(f"Failed to trace {info.name} on fake tensors ({type(e).__name__}: "
                                  f"{str(e).splitlines()[0] if str(e) else ''})", frame, func, args, kwargs)
        out_leaves = pytree.tree_leaves(out)
        has_tensor = any(isinstance(o, Tensor) for o in out_leaves)
        mutated = any(f._version_counter.version != v for f, v in versions)
        if not has_tensor and not mutated and info.name != "__setitem__":
            return out  # metadata (x.shape, x.dim()): answered from the fakes, no node
        if self.states[-1].kind == "opaque":
            return opaque_result(fflat, flat, out)
        op_fn = _operator_of(frame, info)
        node_args = self.segment.node_args((args, kwargs))
        if op_fn is not None and not node_args[1]:
            target, swap = op_fn
            nargs = tuple(node_args[0])
            if swap and len(nargs) == 2:
                nargs = (nargs[1], nargs[0])
            node = self.segment.record("call_function", target, nargs, {}, out, frame)
        elif info.kind == "method":
            node = self.segment.record("call_method", info.name, tuple(node_args[0]), node_args[1], out, frame)
        elif info.kind == "getter":
            node = self.segment.record("call_function", getattr, (node_args[0][0], info.name), {}, out, frame)
        else:
            node = self.segment.record("call_function", func, tuple(node_args[0]), node_args[1], out, frame)
        # results: the same object for an input returned as is (in-place ops, no-op conversions)
        fake_to_arg = {id(f): a for f, a in zip(fflat, flat, strict=True) if isinstance(f, Tensor)}
        return seg.attach_outputs(node, None, out, fake_to_arg)

    def _fallback(self, reason: str, frame: Any, func: Any, args: tuple, kwargs: dict) -> Any:
        if self.states[-1].kind == "opaque":
            raise Unsupported(f"{reason} inside an allow_in_graph function: it must run on fake tensors")
        self.break_graph(reason, _location(frame), declared=False)
        return func(*args, **kwargs)


# frames that always run eagerly (their arguments must be real): autograd's entry points
_EAGER_CODES: dict[Any, str] = {}


def _register_eager_codes() -> None:
    from dispatcher import autograd

    for fn, reason in ((autograd.grad, "Unsupported autograd.grad() call"),
                       (autograd.backward, "Unsupported Tensor.backward() call")):
        code = getattr(fn, "__code__", None)
        if code is not None:
            _EAGER_CODES[code] = reason


_register_eager_codes()


class _CaptureMode(_fm.TorchFunctionMode):
    """The TorchFunctionMode that routes every torch-level call of the compiled function to its Session."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session

    def __torch_function__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        session = self.session
        if session.in_handler:
            return func(*args, **(kwargs or {}))
        session.in_handler += 1
        # the frame hook is off while the handler runs: fake evaluation makes hundreds of calls per op, and
        # paying a Python-level profile event for each of them would double the capture time
        sys.setprofile(session._old_profile)
        try:
            return session.on_torch_function(func, args, kwargs or {})
        finally:
            session.in_handler -= 1
            sys.setprofile(session._profile)

    def __enter__(self) -> _CaptureMode:
        _fm._push_mode(self)
        return self


class _suspended:  # noqa: N801 - a guard
    """Run the body with the session's capture mode off the mode stack (backends run real code)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.index: int | None = None

    def __enter__(self) -> _suspended:
        stack = _fm._tls.stack
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] is self.session.mode:
                del stack[i]
                _fm._ARMED.n -= 1
                self.index = i
                break
        return self

    def __exit__(self, *exc: object) -> None:
        if self.index is not None:
            _fm._tls.stack.insert(self.index, self.session.mode)
            _fm._ARMED.n += 1
