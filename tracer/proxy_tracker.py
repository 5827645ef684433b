"""The state of one make_fx trace: tensor -> node tracking, constants, stack traces and where each node came from.

Corresponds to the ``_ProxyTensor`` / ``PythonKeyTracer`` bookkeeping of torch/fx/experimental/proxy_tensor.py
(``track_tensor_tree``, ``get_proxy_slot``, the constant tracking of ``_ProxyTensor.constant``) and to
torch/fx/proxy.py's stack-trace recording. ``_Tracer`` is what ``ProxyTorchDispatchMode`` (proxy_tensor.py)
asks: which node a tensor is, what its ``meta["val"]`` is, which user frames issued the current op (computed
once per user line and cached by code object and bytecode offset) and which module call it is in.
"""

from __future__ import annotations

import contextlib
import operator
import os
import sys
import traceback
from typing import Any

from dispatcher.aten_namespace import aten as _aten  # noqa: F401 - proxy_tensor imports it from here
from dispatcher.fake import FakeTensor, FakeTensorMode
from dispatcher.fake.fake_tensor import fake_copy
from dispatcher.modes.weak import WeakIdKeyDictionary
from dispatcher.nn.parameter import Parameter
from dispatcher.script_object import ScriptObject
from dispatcher.storage import TypedStorage, UntypedStorage
from dispatcher.stream import Stream
from dispatcher.tensor import Tensor

from .graph import Graph
from .node import Node

_LIB_DIRS = tuple(
    os.path.dirname(os.path.abspath(m.__file__)) + os.sep
    for m in (sys.modules["dispatcher"], sys.modules[__name__.rsplit(".", 1)[0]])
)
_CONTEXTLIB = contextlib.__file__


_TRACE_TEXTS_LIMIT = 4096  #: entries of the shared stack-trace text cache before it is cleared
#: stack_trace's classification of code objects (by id) into the library's and the user's, shared by all traces;
#: ``_SEEN_CODE`` keeps the classified code objects alive so that their ids stay unique; never cleared (a tracer
#: copies the sets once ``_SEEN_CODE_LIMIT`` code objects are known)
_LIB_CODE_IDS: set[int] = set()
_USER_CODE_IDS: set[int] = set()
_SEEN_CODE: list[Any] = []
_SEEN_CODE_LIMIT = 4096
_TRACE_BY_OFFSET: dict[tuple, str] = {}  #: stack_trace's texts by the user frames' (code id, offset); see _Tracer
#: stack_trace text -> qualified name of its innermost frame inside the traced function (``meta["user_fn"]``)
_USER_FN_BY_TRACE: dict[str, str | None] = {}
#: files inside the library that hold user programs (their frames count as the user's in stack traces)
_USER_FILES_IN_LIB = frozenset({os.path.join(_LIB_DIRS[1], "examples.py")})


def _remember_user_fn(text: str, code: Any) -> None:
    """``meta["user_fn"]`` for the ops whose stack trace is ``text``: the innermost user frame's function."""
    _USER_FN_BY_TRACE[text] = None if code is None else getattr(code, "co_qualname", code.co_name)


class TracingError(RuntimeError):
    """make_fx could not trace the function (e.g. a data-dependent value was needed)."""


def _alias_key(t: Any) -> tuple:
    """Tensors sharing a version counter share memory; with the same geometry and dtype, the same values."""
    return (id(t._version_counter), t._shape, t._stride, t._storage_offset, t._dtype)


#: argument types that are never containers nor tensors: ``to_arg`` returns such values unchanged
_ATOMS = frozenset({int, float, bool, complex, str, type(None)})


class _Tracer:
    """The graph under construction and what each tensor maps to."""

    def __init__(self, record_stack_traces: bool) -> None:
        self.graph = Graph()
        self.graph.traced = True
        #: tensor -> the node whose value it is (weak on the tensor)
        self.tensor_tracker = WeakIdKeyDictionary()
        #: attribute name -> tensor, for the GraphModule (constants read by get_attr)
        self.constants: dict[str, Any] = {}
        #: id(tensor) -> (tensor, attribute name): a constant used twice keeps its attribute
        self._constant_names: dict[int, tuple[Any, str]] = {}
        #: attribute prefix -> the last number given to it
        self._constant_counts: dict[str, int] = {}
        self.record_stack_traces = record_stack_traces
        self._fake_mode: Any = None
        #: ids of the code objects met by stack_trace, library's and user's (``_seen_code`` keeps them alive):
        #: the module's shared sets, or this tracer's own copies once those are full
        full = len(_SEEN_CODE) >= _SEEN_CODE_LIMIT
        self._lib_code_ids: set[int] = set(_LIB_CODE_IDS) if full else _LIB_CODE_IDS
        self._user_code_ids: set[int] = set(_USER_CODE_IDS) if full else _USER_CODE_IDS
        self._seen_code: list[Any] = [] if full else _SEEN_CODE
        #: formatted stack traces by the user frames' (code id, instruction offset) (valid while the ids are)
        #: (shared by traces: the same code objects at the same offsets are the same source lines, even if a file
        #: was edited or reloaded since), and this trace's texts by (file, line, function)
        self._trace_texts: dict[tuple, str] = {} if full else _TRACE_BY_OFFSET
        self._trace_by_line: dict[tuple, str] = {}
        #: while the traced function runs: the ``_trace`` frame and the user frames (and their key) above it,
        #: which stay the same (suspended at the same instruction) for the whole trace (see ``set_root_frame``)
        self._root_frame: Any = None
        self._outer_frames: list[Any] = []
        self._outer_key: list[int] = []
        #: pre-dispatch only: (version counter id, geometry) -> (counter, its version, node) of tracked tensors, so
        #: that a detached alias made below the mode (a tensor autograd saved and unpacked) maps to its node
        self.alias_index: dict[tuple, tuple[Any, int, Node]] | None = None
        #: pre-dispatch only: what ran inside ops kept whole, to recompute the tensors autograd saved in there
        #: (tracer/saved_inside.py; made by the first op recorded)
        self.saved_inside: Any = None
        #: tracked tensor -> its real value, for small tensors computed only from constants (``torch.tensor(2.)``)
        self.constant_values = WeakIdKeyDictionary()
        #: the nn_module_stack of the module call running now (None outside modules; tracer/module_stack.py)
        self.module_stack: dict[str, tuple[str, str]] | None = None

    def record_where(self, node: Node, trace: str | None) -> None:
        """Where ``node`` came from: ``stack_trace``, ``user_fn`` and ``nn_module_stack`` (when known)."""
        if trace is not None:
            node.meta["stack_trace"] = trace
            fn = _USER_FN_BY_TRACE.get(trace)
            if fn is not None:
                node.meta["user_fn"] = fn
        if self.module_stack is not None:
            node.meta["nn_module_stack"] = self.module_stack

    # --- values --------------------------------------------------------------------------------
    def meta_val(self, value: Any) -> Any:
        """A FakeTensor with ``value``'s metadata (fake values are kept as they are)."""
        if isinstance(value, Tensor):
            # a new FakeTensor even for a fake value: the graph must not keep the traced value alive
            if isinstance(value, FakeTensor):
                fake_mode, dev = value.fake_mode, value._fake_device
            else:
                if self._fake_mode is None:
                    self._fake_mode = FakeTensorMode(allow_fallback_kernels=True)
                # (a plain tensor's device is its field; a subclass may override the property)
                fake_mode, dev = self._fake_mode, value._device if type(value) is Tensor else value.device
            return fake_copy(value, fake_mode, dev)
        if isinstance(value, (tuple, list)):
            return type(value)(self.meta_val(v) for v in value)
        return value

    def stack_trace(self) -> str | None:
        """The user's frames that issued the current op, formatted as ``traceback`` does (shared strings)."""
        if not self.record_stack_traces:
            return None
        # hot path: one set lookup per frame to skip the library's frames, and the user's frames keyed by
        # (code, instruction offset), which is cheap to read; line numbers are decoded only on a cache miss
        # the frames above the ``_trace`` call do not change during the trace: the walk stops there and
        # appends what set_root_frame collected once (a call from elsewhere walks to the bottom of its stack)
        frames: list[Any] = []
        key: list[int] = []
        lib_ids, user_ids = self._lib_code_ids, self._user_code_ids
        root = self._root_frame
        f = sys._getframe(2)
        while f is not None:
            cid = id(f.f_code)
            if cid in lib_ids:  # most frames: the dispatcher's, between the op and the user's call
                if f is root:
                    break
            else:
                if f is root:
                    break
                if cid not in user_ids:
                    self._classify(f.f_code)
                if cid in user_ids:
                    frames.append(f)
                    key.append(cid)
                    key.append(f.f_lasti)
            f = f.f_back
        if f is not None:  # (stopped at the root)
            frames += self._outer_frames
            key += self._outer_key
        by_offset = self._trace_texts
        text = by_offset.get(tuple(key))
        if text is None:  # ops issued from the same user lines share one string
            inner = len(frames) - (len(self._outer_frames) if f is not None else 0)  # frames inside the traced call
            lines = tuple((f.f_code.co_filename, f.f_lineno, f.f_code.co_name) for f in reversed(frames))
            text = self._trace_by_line.get(lines)
            if text is None:
                summary = traceback.StackSummary.from_list([(fn, ln, name, None) for fn, ln, name in lines])
                text = self._trace_by_line[lines] = "".join(summary.format())
            _remember_user_fn(text, frames[0].f_code if inner > 0 else None)
            if len(by_offset) >= _TRACE_TEXTS_LIMIT:
                by_offset.clear()
                _USER_FN_BY_TRACE.clear()
                _remember_user_fn(text, frames[0].f_code if inner > 0 else None)
            by_offset[tuple(key)] = text
        return text

    def set_root_frame(self, root: Any) -> None:
        """While the traced function runs under ``root`` (the ``_trace`` frame), or None after: stack_trace
        walks only the frames below ``root`` and reuses the user frames above it, collected here once."""
        self._root_frame = root
        frames: list[Any] = []
        key: list[int] = []
        f = root
        while f is not None:
            code = f.f_code
            cid = id(code)
            if cid not in self._lib_code_ids:
                if cid not in self._user_code_ids:
                    self._classify(code)
                if cid in self._user_code_ids:
                    frames.append(f)
                    key += (cid, f.f_lasti)
            f = f.f_back
        self._outer_frames, self._outer_key = frames, key

    def _classify(self, code: Any) -> None:
        """File ``code`` under the library's or the user's code (kept alive, so that its id stays unique)."""
        self._seen_code.append(code)
        fn = code.co_filename
        lib = (fn.startswith(_LIB_DIRS) and fn not in _USER_FILES_IN_LIB) or fn == _CONTEXTLIB
        (self._lib_code_ids if lib else self._user_code_ids).add(id(code))

    # --- arguments -----------------------------------------------------------------------------
    def constant_node(self, t: Any) -> Node:
        """A get_attr node reading ``t`` as a module attribute ``_tensor_constantN`` (``_param_constantN`` for an
        ``nn.Parameter``: PyTorch numbers the two kinds separately)."""
        entry = self._constant_names.get(id(t))
        if entry is None or entry[0] is not t:
            prefix = "_param_constant" if isinstance(t, Parameter) else "_tensor_constant"
            count = self._constant_counts[prefix] = self._constant_counts.get(prefix, -1) + 1
            name = f"{prefix}{count}"
            self._constant_names[id(t)] = (t, name)
            self.constants[name] = t
        else:
            name = entry[1]
        node = self.graph.get_attr(name)
        node.meta["val"] = self.meta_val(t)
        if self.module_stack is not None:
            node.meta["nn_module_stack"] = self.module_stack
        return node

    def to_args(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """``to_arg`` of an op's args and kwargs (hot: scalars, the common non-tensor arguments, pass as they are)."""
        to_arg = self.to_arg
        out = tuple([a if a.__class__ in _ATOMS else to_arg(a) for a in args])
        return out, {k: v if v.__class__ in _ATOMS else to_arg(v) for k, v in kwargs.items()} if kwargs else {}

    def to_arg(self, a: Any) -> Any:
        """Replace tensors (inside lists / tuples / dicts too) by their nodes."""
        if isinstance(a, Tensor):
            node = self.tensor_tracker.get(a)
            # (a Parameter is module state, read by get_attr: never an alias autograd unpacked from a saved tensor)
            if node is None and self.alias_index is not None and not isinstance(a, Parameter):
                node = self._alias_of(a)
                if node is None and self.saved_inside is not None:
                    node = self.saved_inside.node_for(a)
            return node if node is not None else self.constant_node(a)
        if isinstance(a, (list, tuple)):  # (sizes, dims: their ints pass as they are)
            return type(a)([e if e.__class__ in _ATOMS else self.to_arg(e) for e in a])
        if isinstance(a, dict):
            return {k: self.to_arg(v) for k, v in a.items()}
        if isinstance(a, ScriptObject):  # an opaque object an earlier op returned (torch's fetch_object_proxy)
            return self.tensor_tracker.get(a, a)
        # torch.fx's create_arg has no node kind for a storage, nor for a torch.Stream (record_stream's argument)
        if isinstance(a, (UntypedStorage, TypedStorage, Stream)):
            raise NotImplementedError(f"argument of type: {type(a)}")
        return a

    def _alias_of(self, t: Any) -> Node | None:
        """The node of a tracked tensor viewing the same memory as ``t`` the same way, unmodified since."""
        entry = self.alias_index.get(_alias_key(t))
        if entry is None:
            return None
        counter, version, node = entry
        if counter is not t._version_counter or counter.version != version:
            return None
        return node

    def track(self, out: Any, node: Node) -> None:
        """Bind ``out``'s tensors to ``node`` (and getitem nodes of it for tuple / list outputs)."""
        node.meta["val"] = self.meta_val(out)
        if isinstance(out, Tensor):
            self.tensor_tracker[out] = node
            if self.alias_index is not None:
                counter = out._version_counter  # held, so that its id is not reused while the entry lives
                self.alias_index[_alias_key(out)] = (counter, counter.version, node)
        elif isinstance(out, ScriptObject):
            self.tensor_tracker[out] = node
        elif isinstance(out, (tuple, list)):
            trace = node.meta.get("stack_trace")
            for i, e in enumerate(out):
                item = self.graph.create_node("call_function", operator.getitem, (node, i))
                self.record_where(item, trace)
                self.track(e, item)
