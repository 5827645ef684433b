"""``explain_dispatch(op, *args, **kwargs)``: the path one call takes through the dispatcher.

No PyTorch equivalent; the closest are ``torch._C._dispatch_dump_table`` (the
static table) and stepping through c10 in a debugger. This runs the call once
with a recorder in TLS and reports every hop: the key set and where it came
from (tensor arguments, TLS included, TLS excluded, fallthrough keys skipped),
the key chosen, the kernel that served it and why (a direct registration, an
alias such as CompositeImplicitAutograd, a backend fallback, a Python kernel
via the Python dispatcher), and the redispatches and nested calls that kernel
made. The call really runs (in-place ops do mutate their inputs).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from .dispatch import call_op, redispatch_bound
from .keys import DispatchKey, is_alias_key
from .keyset import BACKEND_MASK, DispatchKeySet
from .registry import REGISTRY
from .tls import per_thread

_DISPATCH_CODES = {call_op.__code__, redispatch_bound.__code__}

_REASONS = {
    "kernel": "a kernel registered directly on this key",
    "default backend kernel": "CompositeExplicitAutograd kernel (alias covering this key)",
    "nested kernel": "CompositeImplicitAutogradNestedTensor kernel",
    "math kernel": "CompositeImplicitAutograd kernel (a decomposition into other ops)",
    "ambiguous autogradother": "ambiguous: CompositeImplicitAutograd and an AutogradOther backend kernel",
    "autograd kernel": "Autograd alias kernel",
    "batched kernel": "FuncTorchBatchedDecomposition kernel",
    "backend fallback": "the backend fallback of this key (no op-specific kernel)",
    "missing": "nothing: no kernel and no fallback",
}


def _keys(raw: int) -> list[str]:
    return [k.name for k in DispatchKeySet.from_raw_repr(raw)]


def _functionality_names(raw: int) -> list[str]:
    """Names of the functionality bits in raw, per-backend ones without backend (e.g. 'Autograd*')."""
    names = []
    for k in DispatchKeySet.from_raw_repr(raw | BACKEND_MASK):
        names.append(k.name)
    return sorted(set(names), key=names.index)


def _registered_on(op: Any, kernel: Any) -> str:
    for key, kernels in op.kernels.items():
        if any(k is kernel for k in kernels):
            return key.name + (" (alias)" if is_alias_key(key) else "")
    for i, fb in enumerate(REGISTRY.fallbacks):
        if fb is kernel:
            return f"{DispatchKey(i).name} fallback"
    return "?"


@dataclass
class DispatchStep:
    """One hop: a fresh call, a redispatch, or a call for a key the Python dispatcher picked."""

    how: str  #: "call", "redispatch" or "call_boxed_for_dispatch_key"
    op: str  #: "aten::add.Tensor"
    depth: int  #: nesting of fresh calls (ops called from inside kernels are deeper)
    key_set: DispatchKeySet  #: the key set the kernel receives
    key: str  #: the key dispatched to
    reason: str  #: why this kernel ("kernel", "math kernel", "backend fallback", ...)
    kernel: str  #: the kernel's name
    registered_on: str  #: the key (or alias, or fallback) the kernel was registered on
    debug: str  #: where it was registered
    tensor_keys: list[str] = field(default_factory=list)  #: from the arguments (fresh calls)
    tls_included: list[str] = field(default_factory=list)  #: added by TLS (fresh calls)
    tls_excluded: list[str] = field(default_factory=list)  #: removed by TLS (fresh calls)
    fallthrough_skipped: list[str] = field(default_factory=list)  #: keys whose entry is a fallthrough
    python_kernel: str | None = None  #: set when the Python dispatcher sent this hop to a py_impl kernel

    def describe(self) -> str:
        pad = "  " * self.depth
        lines = [f"{pad}{self.how} {self.op}"]
        if self.how != "redispatch" and self.tensor_keys is not None:
            lines.append(f"{pad}  tensor keys      : {', '.join(self.tensor_keys) or '(none)'}")
            if self.tls_included:
                lines.append(f"{pad}  + TLS included   : {', '.join(self.tls_included)}")
            if self.tls_excluded:
                lines.append(f"{pad}  - TLS excluded   : {', '.join(self.tls_excluded)}")
        if self.fallthrough_skipped:
            lines.append(f"{pad}  - fallthrough    : {', '.join(self.fallthrough_skipped)}")
        lines.append(f"{pad}  = key set        : {self.key_set}")
        lines.append(f"{pad}  -> {self.key}: {self.kernel} [{self.reason}]")
        lines.append(f"{pad}     registered on {self.registered_on}, {self.debug}")
        return "\n".join(lines)


@dataclass
class PythonDispatcherStep:
    """The Python dispatcher resolved a key to a handler."""

    op: str
    depth: int
    key: str  #: the key the call would have reached
    handler: str  #: a DispatchKey name (table kernel) or a Python callable's name

    def describe(self) -> str:
        pad = "  " * self.depth
        return f"{pad}  python dispatcher: {self.key} is handled by {self.handler}"


class _Recorder:
    def __init__(self) -> None:
        self.steps: list[Any] = []
        self._base_depth = _depth()

    def on_call(self, how: str, op: Any, given: int, ks: int, key: int, kernel: Any) -> None:
        depth = max(_depth() - self._base_depth - 1, 0)
        tag = op._table_tags[key] if how != "call_boxed_for_dispatch_key" else (
            "kernel" if kernel is not None and op.kernels.get(key) else "backend fallback"
        )
        step = DispatchStep(
            how=how,
            op=op.name(),
            depth=depth,
            key_set=DispatchKeySet.from_raw_repr(ks),
            key=DispatchKey(key).name,
            reason=_REASONS.get(tag, tag),
            kernel="fallthrough" if kernel is not None and kernel.is_fallthrough else _kernel_name(kernel),
            registered_on=_registered_on(op, kernel) if kernel is not None else "-",
            debug=kernel.debug if kernel is not None else "-",
        )
        if how == "redispatch":
            step.tensor_keys = None  # type: ignore[assignment]
            step.fallthrough_skipped = _keys(given & ~ks)
        else:
            with_tls = (given | per_thread.s.included) & per_thread.s.exclude_mask
            step.tensor_keys = _keys(given)
            step.tls_included = _keys(per_thread.s.included & ~given)
            step.tls_excluded = _keys((given | per_thread.s.included) & ~with_tls)
            step.fallthrough_skipped = _keys(with_tls & ~ks) if how == "call" else []
        self.steps.append(step)

    def on_python_dispatcher(self, op: Any, key: DispatchKey, handler: Any) -> None:
        depth = max(_depth() - self._base_depth - 1, 0)
        name = handler.name if isinstance(handler, DispatchKey) else f"Python kernel {_kernel_name(handler)}"
        self.steps.append(PythonDispatcherStep(op.name(), depth, key.name, name))


def _kernel_name(kernel: Any) -> str:
    fn = getattr(kernel, "fn", kernel)
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


def _depth() -> int:
    depth = 0
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code is call_op.__code__:
            depth += 1
        frame = frame.f_back
    return depth


@dataclass
class DispatchExplanation:
    """What ``explain_dispatch`` returns: the hops, and the call's result or exception."""

    op: str
    steps: list[Any]
    result: Any = None
    error: BaseException | None = None

    def __str__(self) -> str:
        lines = [f"dispatch path of {self.op}:"]
        lines += [s.describe() for s in self.steps]
        if self.error is not None:
            lines.append(f"raised {type(self.error).__name__}: {str(self.error).splitlines()[0]}")
        else:
            lines.append(f"returned {self.result!r}")
        return "\n".join(lines)

    __repr__ = __str__


def explain_dispatch(op: Any, *args: Any, **kwargs: Any) -> DispatchExplanation:
    """Run ``op(*args, **kwargs)`` once, recording every dispatcher hop; errors are recorded, not raised."""
    recorder = _Recorder()
    previous = per_thread.s.tracer
    per_thread.s.tracer = recorder
    explanation = DispatchExplanation(op.name(), recorder.steps)
    try:
        explanation.result = op(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the explanation reports it
        explanation.error = e
    finally:
        per_thread.s.tracer = previous
    return explanation
