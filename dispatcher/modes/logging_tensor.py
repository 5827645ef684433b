"""``LoggingTensorMode``, the ``LoggingTensor`` wrapper subclass and ``capture_logs``: see every aten call.

Corresponds to torch/testing/_internal/logging_tensor.py. Each call a mode (or subclass) sees is kept as
an ``OpCall(func, args, kwargs, outputs)`` and printed one line per call, tensors named by short ids in
order of first appearance (arguments before outputs) and outputs annotated with dtype and shape::

    $0: f32[4, 4] = aten.ones.default([4, 4], device=device(type='cpu'), pin_memory=False)
    $2: f32[4, 4] = aten.add.Tensor($0, $1)
    ($3: f32[4], $4: i64[4]) = aten.max.dim($2, 1)

* ``LoggingTensorMode(logger=None, level=logging.INFO, record=True)``: a TorchDispatchMode; ``mode.calls``
  holds the ``OpCall`` records (they keep their tensors alive; ``record=False`` keeps nothing),
  ``mode.lines`` the printed lines; with ``logger`` (a ``logging.Logger`` or a logger name) every line is
  also logged, the ``OpCall`` attached to the ``LogRecord`` as ``record.op_call``.
* ``LoggingTensor(elem)``: a wrapper subclass around a tensor; every op on it is run on the unwrapped
  tensors, its results wrapped again, and the call logged to the ``"dispatcher.LoggingTensor"`` logger.
* ``capture_logs(is_mode=False)`` collects those log lines in a list (only ``LoggingTensor`` instances
  get ids unless ``is_mode``); ``capture_logs_with_logging_tensor_mode()`` is the two together.

NB: torch's lines name the op ``torch._ops.aten.add.Tensor`` and print list arguments and tuple outputs
through ``str`` of a list of strings (``['3', '2']``, ``('$6: f64[2]', '$7: i64[2]')``); ours print
``aten.add.Tensor``, ``[3, 2]`` and ``($6: f64[2], $7: i64[2])``. Otherwise the lines are the same.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import dtypes as _dt
from ..memory_format import as_layout, as_memory_format
from ..tensor import Tensor
from .dispatch_mode import TorchDispatchMode, enable_reentrant_dispatch
from .function_mode import _disabled_torch_function_impl
from .weak import WeakIdKeyDictionary

#: the logger ``LoggingTensor`` writes to (torch's is called "LoggingTensor")
LOGGER_NAME = "dispatcher.LoggingTensor"
logger = logging.getLogger(LOGGER_NAME)

#: torch.utils._dtype_abbrs, by dtype name
DTYPE_ABBRS = {
    "uint8": "u8", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "float16": "f16",
    "bfloat16": "bf16", "float32": "f32", "float64": "f64", "complex32": "c32", "complex64": "c64",
    "complex128": "c128", "bool": "b8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
}


def tree_map(fn: Any, x: Any) -> Any:
    """``fn`` applied to every leaf of nested lists / tuples / dicts (the containers are rebuilt)."""
    if x.__class__ is list:
        return [tree_map(fn, e) for e in x]
    if x.__class__ is tuple:
        return tuple(tree_map(fn, e) for e in x)
    if x.__class__ is dict:
        return {k: tree_map(fn, v) for k, v in x.items()}
    return fn(x)


def describe(t: Tensor) -> str:
    """``f32[4, 4]``: dtype abbreviation and shape (``f64[]`` for a 0-dim tensor)."""
    return f"{DTYPE_ABBRS.get(t.dtype.name, t.dtype.name)}[{', '.join(str(s) for s in t.shape)}]"


class _Text(str):
    """A string that prints itself without quotes inside a container's ``str``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


class TensorNames:
    """Short ids (``$0``, ``$1``, ...) for tensors, in order of first appearance; does not keep them alive.

    With ``name_all_tensors=False`` only ``LoggingTensor`` instances get ids; other values print with ``repr``.
    """

    def __init__(self, name_all_tensors: bool = True, with_type: bool = True) -> None:
        self.name_all_tensors = name_all_tensors
        self.with_type = with_type
        self._ids = WeakIdKeyDictionary()
        self._next = 0

    def id_of(self, t: Tensor) -> int:
        n = self._ids.get(t)
        if n is None:
            n = self._ids[t] = self._next
            self._next += 1
        return n

    def _named(self, a: Any) -> bool:
        return isinstance(a, LoggingTensor) or (self.name_all_tensors and isinstance(a, Tensor))

    def fmt(self, a: Any, with_type: bool = False) -> _Text:
        if self._named(a):
            text = f"${self.id_of(a)}"
            if with_type and self.with_type:
                text += f": {describe(a)}"
            return _Text(text)
        return _Text(repr(a))

    def value(self, a: Any, with_type: bool = False) -> str:
        """One argument or result: containers printed through ``str`` of their formatted elements."""
        mapped = tree_map(lambda e: self.fmt(e, with_type), a)
        return str(mapped)


def _named_enum(arg: Any, value: Any) -> Any:
    """``value`` as the dtype / layout / memory format object when the schema says so and it is a code."""
    if arg is None or value.__class__ is not int:
        return value
    base = str(arg.type).rstrip("?")
    try:
        if base == "ScalarType":
            return _dt.from_code(value)
        if base == "Layout":
            return as_layout(value)
        if base == "MemoryFormat":
            return as_memory_format(value)
    except (KeyError, ValueError):
        pass
    return value


def _named_args(func: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """Enum arguments the library passes as codes (a ``MemoryFormat`` of 0) as the objects torch hands over."""
    schema = getattr(func, "_schema", None)
    if schema is None:
        return args, kwargs
    positional = [a for a in schema.arguments if not a.kwarg_only]
    by_name = {a.name: a for a in schema.arguments}
    args = tuple(_named_enum(positional[i] if i < len(positional) else None, a) for i, a in enumerate(args))
    kwargs = {k: _named_enum(by_name.get(k), v) for k, v in kwargs.items()}
    return args, kwargs


def _run_unwrapped(cls: type, func: Any, args: tuple, kwargs: dict) -> Any:
    """A logging wrapper subclass's inner call: ``func`` on the ``elem`` of each ``cls`` instance, inside
    ``cls.context()``, its tensor results wrapped in ``cls`` again (the shared body of both ``LoggingTensor``s)."""

    def unwrap(e: Any) -> Any:
        return e.elem if isinstance(e, cls) else e

    def wrap(e: Any) -> Any:
        return cls(e) if isinstance(e, Tensor) else e

    with cls.context():  # type: ignore[attr-defined]
        return tree_map(wrap, func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs)))


@dataclass
class OpCall:
    """One call a mode saw: the op, its arguments (schema form) and what it returned."""

    func: Any
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    outputs: Any = None

    def format(self, names: TensorNames) -> str:
        """``$2: f32[4, 4] = aten.add.Tensor($0, $1)``; ids come from (and are added to) ``names``.

        Enum arguments the library passes as codes (a ``MemoryFormat`` default of 0) print by name
        (``torch.contiguous_format``), as torch shows them.
        """
        args, kwargs = _named_args(self.func, self.args, self.kwargs)
        parts = [names.value(a) for a in args]
        parts += [f"{k}={names.value(v)}" for k, v in kwargs.items()]
        return f"{names.value(self.outputs, with_type=True)} = {self.func}({', '.join(parts)})"

    def __str__(self) -> str:
        return self.format(TensorNames())


class LoggingTensorMode(TorchDispatchMode):
    """A pass-through mode that records every aten call (see the module docstring)."""

    def __init__(self, logger: logging.Logger | str | None = None, level: int = logging.INFO, *,
                 record: bool = True, with_type: bool = True) -> None:
        super().__init__()
        self.logger = logging.getLogger(logger) if isinstance(logger, str) else logger
        self.level = level
        self.record = record
        #: the calls seen, oldest first (only with ``record=True``)
        self.calls: list[OpCall] = []
        #: one formatted line per call
        self.lines: list[str] = []
        self.names = TensorNames(name_all_tensors=True, with_type=with_type)

    def __torch_dispatch__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        call = OpCall(func, args, kwargs, out)
        self.lines.append(call.format(self.names))
        if self.record:
            self.calls.append(call)
        if self.logger is not None:
            self.logger.log(self.level, "%s", self.lines[-1], extra={"op_call": call})
        return out

    def format(self) -> str:
        """Every line so far, one per call."""
        return "\n".join(self.lines)

    def clear(self) -> None:
        self.calls.clear()
        self.lines.clear()


class LoggingTensor(Tensor):
    """A wrapper subclass: holds ``elem`` and logs each op run on it (to the ``dispatcher.LoggingTensor`` logger).

    ``LoggingTensor(elem, requires_grad=False)``. The wrapper has ``elem``'s metadata and no storage; an op
    on it runs on the unwrapped tensors (inside ``cls.context()``) and tensor results are wrapped again.
    """

    elem: Tensor
    #: entered around the inner call (``LoggingTensorReentrant`` re-enables the keys above Python there)
    context: Any = contextlib.nullcontext
    __torch_function__ = _disabled_torch_function_impl  # as torch's LoggingTensor

    def __new__(cls, elem: Tensor, *args: Any, requires_grad: bool = False, **kwargs: Any) -> LoggingTensor:
        r = Tensor._make_wrapper_subclass(cls, elem.shape, strides=elem.stride(), storage_offset=elem.storage_offset(),
                                          dtype=elem.dtype, device=elem.device, requires_grad=requires_grad)
        r.elem = elem.detach() if r.requires_grad else elem
        return r

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __repr__(self) -> str:
        suffix = ", requires_grad=True" if self.requires_grad and self.grad_fn is None else ""
        if self.grad_fn is not None:
            suffix = f", grad_fn=<{type(self.grad_fn).__name__}>"
        return f"{type(self).__name__}({self.elem!r}{suffix})"

    @classmethod
    def __torch_dispatch__(cls, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        out = _run_unwrapped(cls, func, args, kwargs)
        call = OpCall(func, args, kwargs, out)
        logger.info("%s", call, extra={"op_call": call})
        return out


class LoggingTensorReentrant(LoggingTensor):
    """A ``LoggingTensor`` whose inner calls run with the TLS of the outer call (autograd etc. run again)."""

    context = enable_reentrant_dispatch


class LoggingTensorHandler(logging.Handler):
    """Formats the ``op_call`` of each record into ``log_list`` (ids from one ``TensorNames``)."""

    def __init__(self, log_list: list[str], use_shortid_for_all_tensors: bool, with_type: bool = True) -> None:
        super().__init__()
        self.log_list = log_list
        self.names = TensorNames(name_all_tensors=use_shortid_for_all_tensors, with_type=with_type)

    def emit(self, record: logging.LogRecord) -> None:
        call = getattr(record, "op_call", None)
        self.log_list.append(call.format(self.names) if call is not None else record.getMessage())


@contextlib.contextmanager
def capture_logs(is_mode: bool = False, *, with_type: bool = True, log: logging.Logger | None = None
                 ) -> Iterator[list[str]]:
    """Collect the lines logged to ``log`` (default: ``LoggingTensor``'s logger) in a list, for the body."""
    target = logger if log is None else log
    lines: list[str] = []
    handler = LoggingTensorHandler(lines, use_shortid_for_all_tensors=is_mode, with_type=with_type)
    saved = (target.level, target.propagate)
    target.addHandler(handler)
    target.setLevel(logging.INFO)
    target.propagate = False
    try:
        yield lines
    finally:
        target.removeHandler(handler)
        target.setLevel(saved[0])
        target.propagate = saved[1]


@contextlib.contextmanager
def capture_logs_with_logging_tensor_mode() -> Iterator[list[str]]:
    """Every aten call of the body, as lines (a ``LoggingTensorMode`` writing to ``capture_logs``)."""
    with LoggingTensorMode(logger=logger, record=False), capture_logs(True) as lines:
        yield lines


__all__ = [
    "DTYPE_ABBRS",
    "LOGGER_NAME",
    "LoggingTensor",
    "LoggingTensorHandler",
    "LoggingTensorMode",
    "LoggingTensorReentrant",
    "OpCall",
    "TensorNames",
    "capture_logs",
    "capture_logs_with_logging_tensor_mode",
    "describe",
    "logger",
    "tree_map",
]
