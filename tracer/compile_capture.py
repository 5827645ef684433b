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
"""

from __future__ import annotations

import dis
import linecache
import logging
import operator
import os
import sys
import weakref
from typing import Any

import dispatcher
from dispatcher.autograd import grad_mode as _grad_mode
from dispatcher.fake import DataDependentOutputException, DynamicOutputShapeException, FakeTensorMode
from dispatcher.modes import function_mode as _fm
from dispatcher.tensor import Tensor
from dispatcher.tls import per_thread

from . import compile_markers as _markers
from . import pytree
from .graph import Graph, Node

__all__ = ["LazyTensor", "Session", "Unsupported"]

log = logging.getLogger("tracer.compile")


class Unsupported(RuntimeError):
    """A graph break where ``fullgraph`` forbids one (``torch._dynamo.exc.Unsupported``)."""


# --- where user code is ----------------------------------------------------------------------------------------------
_LIB_DIRS = (os.path.dirname(dispatcher.__file__) + os.sep, os.path.dirname(__file__) + os.sep)
_STDLIB_DIR = os.path.dirname(os.__file__) + os.sep


def _is_library_file(filename: str) -> bool:
    return filename.startswith(_LIB_DIRS)


def _user_frame(start: Any) -> Any:
    """The innermost frame outside dispatcher/, tracer/ and contextlib, starting at ``start``."""
    f = start
    while f is not None and (f.f_code.co_filename.startswith(_LIB_DIRS)
                             or f.f_code.co_filename.endswith("contextlib.py")):
        f = f.f_back
    return f


def _location(frame: Any) -> tuple[str, int, str] | None:
    if frame is None:
        return None
    return (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)


def format_location(loc: tuple[str, int, str] | None) -> str:
    """``File "f.py", line 3, in fn`` (the user's line), as tracebacks print it."""
    if loc is None:
        return "<unknown location>"
    return f'File "{loc[0]}", line {loc[1]}, in {loc[2]}'


# --- what a torch-level call is ----------------------------------------------------------------------------------------
_BINARY_SYMBOLS = {sym: i for i, (_, sym) in enumerate(dis._nb_ops)} if hasattr(dis, "_nb_ops") else {}
_SYMBOL_FNS = {
    "+": operator.add, "&": operator.and_, "//": operator.floordiv, "<<": operator.lshift, "@": operator.matmul,
    "*": operator.mul, "%": operator.mod, "|": operator.or_, "**": operator.pow, ">>": operator.rshift,
    "-": operator.sub, "/": operator.truediv, "^": operator.xor,
    "+=": operator.iadd, "&=": operator.iand, "//=": operator.ifloordiv, "<<=": operator.ilshift,
    "@=": operator.imatmul, "*=": operator.imul, "%=": operator.imod, "|=": operator.ior, "**=": operator.ipow,
    ">>=": operator.irshift, "-=": operator.isub, "/=": operator.itruediv, "^=": operator.ixor,
    "<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">": operator.gt, ">=": operator.ge,
}
_CMP_OF_METHOD = {"lt": "<", "le": "<=", "eq": "==", "ne": "!=", "gt": ">", "ge": ">=",
                  "__lt__": "<", "__le__": "<=", "__eq__": "==", "__ne__": "!=", "__gt__": ">", "__ge__": ">="}
#: the reflected operator methods (``__rshift__`` starts with ``__r`` but is not one)
_REFLECTED = frozenset(f"__r{n}__" for n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
                                            "and", "or", "xor", "lshift", "rshift", "divmod"))
_UNARY_FNS = {"UNARY_NEGATIVE": operator.neg, "UNARY_INVERT": operator.invert, "UNARY_POSITIVE": operator.pos}
_OPNAME = dis.opname

# Tensor methods / attributes whose answer needs data: (reason, torch wording where Dynamo has one)
_ITEM_REASON = "Unsupported Tensor.item() call with capture_scalar_outputs=False"
_DATA_DEPENDENT = {
    "item": _ITEM_REASON, "__bool__": _ITEM_REASON, "__int__": _ITEM_REASON, "__float__": _ITEM_REASON,
    "__index__": _ITEM_REASON, "__complex__": _ITEM_REASON,
    "tolist": "Tensor.tolist() with non-integer tensor",
    "numpy": "Unsupported Tensor.numpy() call (it needs data)",
    "__repr__": "repr() on tensor", "__str__": "repr() on tensor", "__format__": "repr() on tensor",
    "__array__": "Data dependent operator",
    "backward": "Unsupported Tensor.backward() call",
    "data_ptr": "Data dependent operator",
}
# autograd state lives on the real tensors: answered eagerly (for lazy tensors after a break)
_AUTOGRAD_STATE = {"grad", "_grad", "grad_fn", "_grad_fn", "is_leaf", "_base", "_version", "data", "retain_grad",
                   "retains_grad", "register_hook", "register_post_accumulate_grad_hook", "output_nr"}
_AUTOGRAD_REASON = "Accessing autograd state of a captured tensor"
_PRINT_REASON = "Failed to trace builtin operator `print`"
_REQUIRES_GRAD_REASON = "requires_grad_() intermediate leaked as output"


class _CallInfo:
    """How a public callable appears in graphs: ``kind`` is "method", "getter" or "function"; ``name``."""

    __slots__ = ("kind", "name", "data_reason")

    def __init__(self, kind: str, name: str, data_reason: str | None) -> None:
        self.kind = kind
        self.name = name
        self.data_reason = data_reason


_INFO_CACHE: dict[int, tuple[Any, _CallInfo]] = {}


def _call_info(func: Any) -> _CallInfo:
    owner = getattr(func, "__self__", None)
    if isinstance(owner, property):  # a getter: func is a fresh method-wrapper each time, key on the property
        key_obj: Any = owner
        hit = _INFO_CACHE.get(id(owner))
        if hit is not None and hit[0] is owner:
            return hit[1]
        name = owner.fget.__name__ if owner.fget is not None else "?"
        info = _CallInfo("getter", name, _AUTOGRAD_REASON if name in _AUTOGRAD_STATE else None)
    else:
        key_obj = func
        hit = _INFO_CACHE.get(id(func))
        if hit is not None and hit[0] is func:
            return hit[1]
        qual = getattr(func, "__qualname__", "") or ""
        name = getattr(func, "__name__", None) or type(func).__name__
        if qual.startswith("Tensor."):
            reason = _DATA_DEPENDENT.get(name) or (_AUTOGRAD_REASON if name in _AUTOGRAD_STATE else None)
            info = _CallInfo("method", name, reason)
        else:
            info = _CallInfo("function", name, None)
    _INFO_CACHE[id(key_obj)] = (key_obj, info)
    return info


def _operator_of(frame: Any, info: _CallInfo) -> tuple[Any, bool] | None:
    """(operator function, swap args) when the user frame is executing a Python operator, else None."""
    if frame is None or info.kind != "method":
        return None
    code = frame.f_code.co_code
    i = frame.f_lasti
    if i < 0 or i + 1 >= len(code):
        return None
    opname = _OPNAME[code[i]]
    arg = code[i + 1]
    if opname == "BINARY_OP" and hasattr(dis, "_nb_ops") and arg < len(dis._nb_ops):
        sym = dis._nb_ops[arg][1]
        fn = _SYMBOL_FNS.get(sym)
        if fn is None:
            return None
        return fn, info.name in _REFLECTED and not sym.endswith("=")
    if opname == "COMPARE_OP" and arg < len(dis.cmp_op):
        sym = dis.cmp_op[arg]
        own = _CMP_OF_METHOD.get(info.name)
        return _SYMBOL_FNS[sym], own is not None and own != sym
    if opname == "BINARY_SUBSCR" and info.name == "__getitem__":
        return operator.getitem, False
    if opname == "STORE_SUBSCR" and info.name == "__setitem__":
        return operator.setitem, False
    if opname in _UNARY_FNS:
        return _UNARY_FNS[opname], False
    return None


# --- the lazy tensor -------------------------------------------------------------------------------------------------
class LazyTensor(Tensor):
    """A tensor captured by ``tracer.compile`` and not computed yet: metadata from its fake, value after a flush.

    Attributes (in ``__dict__``): ``_lz_fake`` (the FakeTensor), ``_lz_node`` (its node in the current segment).
    At a flush the object *becomes* the real tensor (its class is set to Tensor and its fields copied), so
    references held by the user's Python see the computed value afterwards.
    """

    __slots__ = ()

    @classmethod
    def __torch_dispatch__(cls, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        session = _markers.current_session()
        if session is None:
            raise RuntimeError(f"{func}: this tensor was captured by tracer.compile() and never computed (the "
                               "compiled call that made it raised or was left); recompute it eagerly")
        return session.on_aten_call(func, args, kwargs or {})

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        session = _markers.current_session()
        if session is None or type(self) is LazyTensor and "_lz_fake" not in self.__dict__:
            raise RuntimeError("this tensor was captured by tracer.compile() and never computed")
        session.data_needed(self, "Data dependent operator")
        return Tensor.__array__(self, dtype) if dtype is not None else Tensor.__array__(self)


_TENSOR_SLOTS = tuple(s for s in Tensor.__slots__ if s not in ("__weakref__", "__dict__"))


def _make_lazy(fake: Any, node: Node | None) -> LazyTensor:
    lz = Tensor._make_wrapper_subclass(LazyTensor, fake.shape, fake.stride(), storage_offset=fake.storage_offset(),
                                       dtype=fake.dtype, device=dispatcher.device("cpu"),
                                       requires_grad=fake.requires_grad)
    d = lz.__dict__
    d["_lz_fake"] = fake
    d["_lz_node"] = node
    return lz


def _become(lazy: LazyTensor, real: Tensor) -> None:
    """Turn ``lazy`` (same object) into a tensor equal in every field to ``real``: storage, autograd, version."""
    if not isinstance(real, Tensor):
        raise TypeError(f"tracer.compile: the backend returned {type(real).__name__} where a tensor was expected")
    for slot in _TENSOR_SLOTS:
        try:
            value = object.__getattribute__(real, slot)
        except AttributeError:
            try:
                object.__delattr__(lazy, slot)
            except AttributeError:
                pass
            continue
        object.__setattr__(lazy, slot, value)
    d = lazy.__dict__
    d.clear()
    d.update(real.__dict__)
    lazy.__class__ = type(real)


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


# --- a segment: the graph being captured -------------------------------------------------------------------------------
class _Segment:
    __slots__ = ("graph", "fake_mode", "inputs", "input_nodes", "fakes", "lazies", "n_calls", "grad0", "grad_now",
                 "first_body", "input_names")

    def __init__(self, input_names: dict[int, str]) -> None:
        self.graph = Graph()
        self.fake_mode = FakeTensorMode(allow_non_fake_inputs=False)
        self.inputs: list[Tensor] = []  # real tensors, in placeholder order
        self.input_nodes: dict[int, Node] = {}  # id(real) -> placeholder
        self.fakes: dict[int, tuple[Tensor, Any, int]] = {}  # id(real) -> (real, fake, version when made)
        self.lazies: list[tuple[Node, Any]] = []  # (node, weakref to its LazyTensor), creation order
        self.n_calls = 0
        self.grad0: bool = _grad_mode.is_grad_enabled()  # grad mode where the segment starts (Python resumes)
        self.grad_now: bool = self.grad0  # grad mode after the nodes recorded so far
        self.first_body: Node | None = None
        self.input_names = input_names


class Session:
    """One call of a compiled function: the capture mode, the state stack, the current segment, the flushes."""

    def __init__(self, compiled: Any, fullgraph: bool | str, input_names: dict[int, str]) -> None:
        self.compiled = compiled  # compile.CompiledFunction: backend, cache, stats, explain hooks
        self.fullgraph = fullgraph
        self.input_names = input_names
        self.states: list[_State] = [_State("capture")]
        self.segment = _Segment(input_names)
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
            self.segment = _Segment(self.input_names)

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
        self.segment = _Segment(self.input_names)
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
                self.segment = _Segment(self.input_names)
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
                    self.segment = _Segment(self.input_names)
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
            state.node_args = self._node_args((tuple(args), kwargs))
            self.push_state(state)
        finally:
            self.in_handler -= 1

    def _finish_opaque(self, state: _State, retval: Any) -> None:
        seg = self.segment
        args, kwargs = state.node_args
        fake_out = pytree.tree_map(lambda v: v.__dict__["_lz_fake"] if type(v) is LazyTensor else v, retval)
        node = self._record("call_function", state.fn, args, kwargs, fake_out, state.frame.f_back)
        self._attach_outputs(node, retval, fake_out, seg)

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
            if self._needs_data(args, kwargs):
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

    def _needs_data(self, args: tuple, kwargs: dict) -> bool:
        seg = self.segment
        for a in pytree.arg_tree_leaves(*args, **kwargs):
            if type(a) is LazyTensor:
                return True
            if isinstance(a, Tensor):
                hit = seg.fakes.get(id(a))
                if hit is not None and hit[0] is a and hit[1]._version_counter.version != hit[2]:
                    return True  # a real tensor the pending graph writes to
        return False

    def _to_fake(self, a: Any) -> Any:
        if type(a) is LazyTensor:
            return a.__dict__["_lz_fake"]
        if isinstance(a, Tensor):
            seg = self.segment
            hit = seg.fakes.get(id(a))
            if hit is None or hit[0] is not a:
                fake = seg.fake_mode.from_tensor(a)
                hit = seg.fakes[id(a)] = (a, fake, fake._version_counter.version)
            return hit[1]
        return a

    def _trace_call(self, func: Any, info: _CallInfo, args: tuple, kwargs: dict, frame: Any) -> Any:
        flat, spec = pytree.tree_flatten((args, kwargs))
        seg = self.segment
        try:
            fflat = [self._to_fake(a) for a in flat]
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
            return self._opaque_result(fflat, flat, out)
        op_fn = _operator_of(frame, info)
        node_args = self._node_args((args, kwargs))
        if op_fn is not None and not node_args[1]:
            target, swap = op_fn
            nargs = tuple(node_args[0])
            if swap and len(nargs) == 2:
                nargs = (nargs[1], nargs[0])
            node = self._record("call_function", target, nargs, {}, out, frame)
        elif info.kind == "method":
            node = self._record("call_method", info.name, tuple(node_args[0]), node_args[1], out, frame)
        elif info.kind == "getter":
            node = self._record("call_function", getattr, (node_args[0][0], info.name), {}, out, frame)
        else:
            node = self._record("call_function", func, tuple(node_args[0]), node_args[1], out, frame)
        # results: the same object for an input returned as is (in-place ops, no-op conversions)
        fake_to_arg = {id(f): a for f, a in zip(fflat, flat, strict=True) if isinstance(f, Tensor)}
        return self._attach_outputs(node, None, out, seg, fake_to_arg)

    def _fallback(self, reason: str, frame: Any, func: Any, args: tuple, kwargs: dict) -> Any:
        if self.states[-1].kind == "opaque":
            raise Unsupported(f"{reason} inside an allow_in_graph function: it must run on fake tensors")
        self.break_graph(reason, _location(frame), declared=False)
        return func(*args, **kwargs)

    def _opaque_result(self, fflat: list, flat: list, out: Any) -> Any:
        fake_to_arg = {id(f): a for f, a in zip(fflat, flat, strict=True) if isinstance(f, Tensor)}

        def wrap(v: Any) -> Any:
            if isinstance(v, Tensor):
                same = fake_to_arg.get(id(v))
                return same if same is not None else _make_lazy(v, None)
            return v

        return pytree.tree_map(wrap, out)

    def _attach_outputs(self, node: Node, retval: Any, fake_out: Any, seg: _Segment,
                        fake_to_arg: dict | None = None) -> Any:
        """Give ``node``'s tensor results their lazy tensors (getitem nodes for results inside containers)."""
        return self._attach(retval, fake_out, node, seg, fake_to_arg)

    def _attach(self, value: Any, fake: Any, src: Node, seg: _Segment, fake_to_arg: dict | None) -> Any:
        # NB: a method, not a recursive closure: a closure referring to itself is a reference cycle that would
        # keep the arguments (lazy tensors) alive until the next gc, and alive lazy tensors become graph outputs.
        if isinstance(fake, Tensor):
            if fake_to_arg is not None:
                same = fake_to_arg.get(id(fake))
                if same is not None:
                    return same
            if type(value) is LazyTensor and value.__dict__.get("_lz_node") is not None:
                return value  # an input returned by an opaque function
            lz = value if type(value) is LazyTensor else _make_lazy(fake, src)
            lz.__dict__["_lz_node"] = src
            seg.lazies.append((src, weakref.ref(lz)))
            return lz
        if isinstance(fake, (tuple, list)) and any(isinstance(x, Tensor) for x in pytree.tree_leaves(fake)):
            items = []
            for i, f in enumerate(fake):
                v = value[i] if value is not None else None
                if any(isinstance(x, Tensor) for x in pytree.tree_leaves(f)):
                    g = seg.graph.create_node("call_function", operator.getitem, (src, i))
                    g.meta["val"] = f
                    items.append(self._attach(v, f, g, seg, fake_to_arg))
                else:
                    items.append(f)
            if hasattr(fake, "_fields"):
                return type(fake)(*items)
            return type(fake)(items)
        return value if value is not None else fake

    # --- nodes -----------------------------------------------------------------------------------------------------------
    def _node_args(self, tree: Any) -> Any:
        def to_node(a: Any) -> Any:
            if type(a) is LazyTensor:
                node = a.__dict__.get("_lz_node")
                if node is None:
                    raise RuntimeError("tracer.compile: a tensor made inside an allow_in_graph function was used "
                                       "outside it without being returned by it")
                return node
            if isinstance(a, Tensor):
                return self._placeholder(a)
            if isinstance(a, slice):
                return a
            return a

        return pytree.tree_map(to_node, tree)

    def _placeholder(self, real: Tensor) -> Node:
        seg = self.segment
        node = seg.input_nodes.get(id(real))
        if node is not None and seg.inputs[node.meta["_index"]] is real:
            return node
        name = seg.input_names.get(id(real), "input")
        graph = seg.graph
        if seg.first_body is None:
            node = graph.placeholder(name)
        else:
            with graph.inserting_before(seg.first_body):
                node = graph.placeholder(name)
        node.meta["val"] = self._to_fake(real)
        node.meta["_index"] = len(seg.inputs)
        seg.inputs.append(real)
        seg.input_nodes[id(real)] = node
        return node

    def _record(self, op: str, target: Any, args: tuple, kwargs: dict, out: Any, frame: Any) -> Node:
        seg = self.segment
        graph = seg.graph
        grad = _grad_mode.is_grad_enabled()
        if grad != seg.grad_now:  # Dynamo's graphs switch grad mode with `_set_grad_enabled` nodes too
            graph.create_node("call_function", _grad_mode._set_grad_enabled, (grad,)).meta["val"] = None
            seg.grad_now = grad
        node = graph.create_node(op, target, args, kwargs)
        if seg.first_body is None:
            seg.first_body = node
        node.meta["val"] = out
        loc = _location(frame)
        if loc is not None:
            node.meta["stack_trace"] = f'  {format_location(loc)}\n'
        seg.n_calls += 1
        return node


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
