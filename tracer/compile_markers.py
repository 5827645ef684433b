"""The fine-grained controls of ``tracer.compile``: ``disable``, ``graph_break``, ``allow_in_graph``, ``disallow_in_graph``.

Corresponds to torch/_dynamo/decorators.py (``disable``, ``skip``, ``allow_in_graph``, ``disallow_in_graph``,
``graph_break``) and the id sets of torch/_dynamo/trace_rules.py. The markers never change the function they
are given: ``disable`` returns a new wrapper, the others record the callable in a registry of *weak*
references (a mark disappears with its function, as Dynamo removes the id of a collected function).

NB: Dynamo reads bytecode, so it sees every call. We capture at the torch-function level (compile_capture.py):
the capture mode sees calls of torch-level functions (``dispatcher.sub``, ``Tensor.sin``, ``x + y``), and a
profile hook sees calls of plain Python functions. So ``disallow_in_graph`` applies to torch-level callables and
op namespaces; an aten ``OpOverload`` only matters when the user calls it directly (``x + y`` never reaches
``aten.add.Tensor`` through this layer) - the call warns about that.

This module also holds the per-thread pointer to the running capture session (``current_session``), so the
markers can talk to compile_capture.py without importing it.
"""

from __future__ import annotations

import functools
import logging
import threading
import warnings
import weakref
from collections.abc import Callable
from typing import Any

from dispatcher.op_overload import OpOverload, OpOverloadPacket
from dispatcher.tls import per_thread

__all__ = [
    "allow_in_graph",
    "current_session",
    "disable",
    "disable_module",
    "disallow_in_graph",
    "graph_break",
    "is_allowed_code",
    "is_disallowed",
    "module_is_disabled",
]

log = logging.getLogger("tracer.compile")


class _SessionTLS(threading.local):
    """Per thread: the running capture session and the depth of disable()d calls outside any capture. Whoever
    changes either also moves ``dispatcher.tls``'s ``capture_depth`` (_enter_disabled_eager / _exit_disabled_eager, compile_capture.Session), which
    compile_hot.py's warm-call functions read instead of these two."""

    def __init__(self) -> None:
        self.session: Any = None  # the running compile_capture.Session of this thread, if any
        self.disabled_depth = 0  # > 0 inside a disable()d call outside any capture: compile() runs eagerly


def _enter_disabled_eager() -> None:
    _tls.disabled_depth += 1
    per_thread.s.capture_depth += 1


def _exit_disabled_eager() -> None:
    _tls.disabled_depth -= 1
    per_thread.s.capture_depth -= 1


_tls = _SessionTLS()


def current_session() -> Any:
    """The capture session running on this thread (compile_capture.Session), or None."""
    return _tls.session


# --- registries (weak) --------------------------------------------------------------------------------------------
class _WeakCallableSet:
    """A set of callables held by weak reference (by identity); entries vanish when the callable is collected."""

    def __init__(self) -> None:
        self._refs: dict[int, Any] = {}

    def add(self, fn: Any) -> None:
        key = id(fn)
        try:
            self._refs[key] = weakref.ref(fn, lambda _r, k=key: self._refs.pop(k, None))
        except TypeError:  # not weak-referenceable (a bound method-wrapper): keep it strongly
            self._refs[key] = lambda fn=fn: fn

    def discard(self, fn: Any) -> None:
        self._refs.pop(id(fn), None)

    def __contains__(self, fn: Any) -> bool:
        ref = self._refs.get(id(fn))
        return ref is not None and ref() is fn

    def __len__(self) -> int:
        return sum(1 for r in self._refs.values() if r() is not None)


_disallowed = _WeakCallableSet()        # torch-level callables that break the graph
_allowed_torch = _WeakCallableSet()      # torch-level callables re-allowed after disallow
_disallowed_namespaces: set[str] = set()  # op namespaces ("myns") whose OpOverloads break the graph
_allowed_codes: dict[Any, Any] = {}      # code object -> weakref to the allow_in_graph()-ed Python function
_disabled_modules: set[str] = set()      # module names whose functions run eagerly (disable_module)


def _is_torch_level(fn: Any) -> bool:
    """Callables the capture puts in graphs as they are: wrapped public functions, Tensor methods, operators."""
    return (hasattr(fn, "__torch_function_impl__") or isinstance(fn, (OpOverload, OpOverloadPacket))
            or _op_namespace_name(fn) is not None)


def _op_namespace_name(obj: Any) -> str | None:
    if type(obj).__name__ == "_OpNamespace" and isinstance(getattr(obj, "name", None), str):
        return obj.name
    return None


def is_disallowed(fn: Any) -> bool:
    """True when a call of ``fn`` (a torch-level callable or OpOverload) must break the graph."""
    if fn in _disallowed:
        return True
    if _disallowed_namespaces and isinstance(fn, OpOverload):
        return fn.namespace in _disallowed_namespaces
    return False


def is_allowed_code(code: Any, frame: Any = None) -> Any:
    """The live allow_in_graph()-ed function running in ``frame`` (whose code object is ``code``), or None.

    NB: a frame does not name its function object (Dynamo sees the callable on the bytecode stack), so the
    function is recognised by its code object, and, given ``frame``, by the same globals and closure values.
    Functions made by one ``def`` that share globals and closure values share the mark.
    """
    ref = _allowed_codes.get(code)
    fn = ref() if ref is not None else None
    if fn is None or frame is None:
        return fn
    if fn.__globals__ is not frame.f_globals:
        return None
    if fn.__closure__:
        local = frame.f_locals
        for name, cell in zip(code.co_freevars, fn.__closure__, strict=False):
            try:
                if local.get(name) is not cell.cell_contents:
                    return None
            except ValueError:  # an empty cell
                return None
    return fn


def module_is_disabled(module_name: str | None) -> bool:
    """True when ``module_name`` is, or is inside, a module given to ``disable_module``."""
    if not _disabled_modules or not module_name:
        return False
    return any(module_name == m or module_name.startswith(m + ".") for m in _disabled_modules)


# --- graph_break ----------------------------------------------------------------------------------------------------
def graph_break(msg: str = "") -> None:
    """Break the graph here (``torch._dynamo.graph_break``): the captured graph so far runs, Python resumes."""
    session = _tls.session
    if session is not None:
        session.declared_break(f"Call to `tracer.graph_break()`{': ' + msg if msg else ''}")


# --- disable --------------------------------------------------------------------------------------------------------
class _DisableContext:
    """``with tracer.disable():`` - the body runs eagerly (the graph so far is ended first)."""

    def __init__(self, recursive: bool = True, reason: str | None = None) -> None:
        self.recursive = recursive
        self.reason = reason
        self._stack: list[Any] = []

    def __enter__(self) -> _DisableContext:
        session = _tls.session
        if session is not None:
            self._stack.append(session.enter_disabled("Skip calling `tracer.disable()`d function", None,
                                                      recursive=True))
        else:
            _enter_disabled_eager()
            self._stack.append(None)
        return self

    def __exit__(self, *exc: object) -> None:
        token = self._stack.pop()
        if token is None:
            _exit_disabled_eager()
        else:
            token.close()

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        return disable(fn, recursive=self.recursive, reason=self.reason)


def disable(fn: Callable[..., Any] | None = None, recursive: bool = True, *, reason: str | None = None) -> Any:
    """Run ``fn`` eagerly when a compiled function calls it (``torch.compiler.disable``).

    ``recursive=True`` (default): ``fn`` and everything it calls run eagerly. ``recursive=False``: only ``fn``'s
    own frame runs eagerly; Python functions it calls are captured again, each as its own graph. Without
    ``fn`` it returns a decorator that is also a context manager (``with tracer.disable(): ...``). Returns a new
    wrapper; ``fn`` itself is not changed. Each skipped call logs a line on the ``tracer.compile`` logger.
    """
    if fn is None:
        return _DisableContext(recursive, reason)
    if not callable(fn):
        raise TypeError(f"disable: expected a callable, got {type(fn).__name__}")
    inner = getattr(fn, "_tracer_disabled_fn", None)
    if inner is not None and getattr(fn, "_tracer_disabled_recursive", None) == recursive:
        return fn  # already disabled the same way
    target = fn
    why = ("Skip calling `tracer.disable()`d function" if recursive
           else "Skip inlining `tracer.disable()`d function")

    @functools.wraps(fn)
    def _disabled(*args: Any, **kwargs: Any) -> Any:
        session = _tls.session
        if session is None:
            _enter_disabled_eager()
            try:
                return target(*args, **kwargs)
            finally:
                _exit_disabled_eager()
        token = session.enter_disabled(why, target, recursive=recursive, reason=reason)
        try:
            return target(*args, **kwargs)
        finally:
            token.close()

    _disabled._tracer_disabled_fn = target  # type: ignore[attr-defined]
    _disabled._tracer_disabled_recursive = recursive  # type: ignore[attr-defined]
    return _disabled


def disable_module(module_name: str) -> None:
    """Run every Python function defined in ``module_name`` (or its submodules) eagerly under compile."""
    if not isinstance(module_name, str) or not module_name or not all(p.isidentifier() for p in module_name.split(".")):
        raise ValueError(f"disable_module: expected a dotted module name such as 'pkg.mod', got {module_name!r}")
    _disabled_modules.add(module_name)


def enable_module(module_name: str) -> None:
    """Undo ``disable_module(module_name)``."""
    _disabled_modules.discard(module_name)


# --- allow / disallow -----------------------------------------------------------------------------------------------
def _unwrap(fn: Any) -> Any:
    """The function under a ``disable`` wrapper (so markers work in any decorator order)."""
    return getattr(fn, "_tracer_disabled_fn", fn)


def disallow_in_graph(fn: Any) -> Any:
    """Make every call of ``fn`` a graph break: it runs eagerly between two graphs. Returns ``fn`` unchanged.

    ``fn`` must be a torch-level callable the capture puts in graphs (``dispatcher.sub``, ``Tensor.add``,
    ``F.relu``), an operator (``dispatcher.ops.myns.op.default`` / a packet) or a whole op namespace
    (``dispatcher.ops.myns``, or the string ``"myns"``). Anything else raises RuntimeError, as in PyTorch.
    An aten OpOverload warns: ``x + y`` reaches the capture as ``Tensor.add``, never as ``aten.add.Tensor``.
    """
    if isinstance(fn, str):
        if not fn.isidentifier():
            raise ValueError(f"disallow_in_graph: {fn!r} is not an op namespace name")
        _disallowed_namespaces.add(fn)
        return fn
    name = _op_namespace_name(fn)
    if name is not None:
        _disallowed_namespaces.add(name)
        return fn
    if not _is_torch_level(fn):
        raise RuntimeError(
            "disallow_in_graph is expected to be used on an already allowed callable (like torch.* ops). "
            "Allowed callables means callables that TorchDynamo puts as-is in the extracted graph. "
            f"(tracer.compile: {getattr(fn, '__qualname__', fn)!r} is not a torch-level function, operator or "
            "op namespace; use tracer.disable() for Python functions)")
    if isinstance(fn, OpOverloadPacket):
        for overload in fn.overloads():
            _disallowed.add(getattr(fn, overload))
    if isinstance(fn, (OpOverload, OpOverloadPacket)) and str(fn).startswith("aten."):
        warnings.warn(
            f"disallow_in_graph({fn}): tracer.compile captures at the torch-function level, so this only affects "
            f"direct calls of {fn}; `x + y`, `dispatcher.add` and tensor methods reach the capture as torch-level "
            "functions (Tensor.add), never as aten overloads, and stay in the graph. Disallow the torch-level "
            "function instead (e.g. disallow_in_graph(dispatcher.add)).", UserWarning, stacklevel=2)
    _allowed_torch.discard(fn)
    _disallowed.add(fn)
    return fn


def allow_in_graph(fn: Any) -> Any:
    """Put calls of ``fn`` in the graph as one opaque node, not traced into (``torch._dynamo.allow_in_graph``).

    For a torch-level callable this undoes ``disallow_in_graph``. For a Python function, its calls become a
    single ``call_function`` node whose output metadata comes from running ``fn`` on fake tensors; the backend
    runs ``fn`` itself. Returns ``fn`` unchanged; the mark is a weak reference.
    """
    if isinstance(fn, (list, tuple)):
        for f in fn:
            allow_in_graph(f)
        return fn
    if not callable(fn):
        raise TypeError(f"allow_in_graph expects a callable, got {type(fn).__name__}")
    if _is_torch_level(fn):
        _disallowed.discard(fn)
        if isinstance(fn, OpOverloadPacket):
            for overload in fn.overloads():
                _disallowed.discard(getattr(fn, overload))
        _allowed_torch.add(fn)
        return fn
    target = _unwrap(fn)
    code = getattr(target, "__code__", None)
    if code is None:
        raise TypeError(f"allow_in_graph: {fn!r} is neither a torch-level callable nor a Python function")
    _allowed_codes[code] = weakref.ref(target, lambda _r, c=code: _allowed_codes.pop(c, None))
    return fn


def _reset_markers() -> None:
    """Forget every mark (used by tests; ``tracer.reset()`` leaves marks alone, as ``torch._dynamo.reset``)."""
    _disallowed._refs.clear()
    _allowed_torch._refs.clear()
    _disallowed_namespaces.clear()
    _allowed_codes.clear()
    _disabled_modules.clear()
