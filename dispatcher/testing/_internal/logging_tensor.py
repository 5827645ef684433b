"""``LoggingTensor``, ``LoggingTensorMode``, ``capture_logs``, ``log_input``: every aten call as one line, in torch's
format.

Corresponds to torch/testing/_internal/logging_tensor.py; what a test compares with PyTorch's expected logs. Each
call a ``LoggingTensor`` (a wrapper subclass) or a ``LoggingTensorMode`` sees is logged to the ``"LoggingTensor"``
logger with the op's name and its args, kwargs and results; ``capture_logs()`` collects the lines::

    $0: f32[1] = input('x')
    $1: f32[1] = torch._ops.aten.mul.Tensor($0, $0)
    $2: f32[] = torch._ops.aten.empty.memory_format([], device=device(type='cpu'), pin_memory=False)

Tensors get short ids in order of first appearance (only ``LoggingTensor`` instances, unless
``capture_logs(is_mode=True)``); results carry ``dtype[shape]``; other values print with ``repr``, and lists and
tuples through ``str`` of their formatted elements (``['None', '$0']``), exactly as torch's handler does. The op is
named ``torch._ops.<namespace>.<name>.<overload>``, torch's ``f"{func.__module__}.{func.__name__}"``, so lines
compare equal to PyTorch's. (``dispatcher.modes.logging_tensor`` is the library's own logging mode, with a
shorter line format.)
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import logging
import traceback
from collections.abc import Iterator
from typing import Any

from ...modes.dispatch_mode import TorchDispatchMode, enable_reentrant_dispatch
from ...modes.logging_tensor import _named_args, _run_unwrapped, describe, tree_map
from ...modes.weak import WeakIdKeyDictionary
from ...tensor import Tensor

logger = logging.getLogger("LoggingTensor")


def _op_name(func: Any) -> str:
    """torch's ``f"{func.__module__}.{func.__name__}"``: ``torch._ops.aten.mul.Tensor``."""
    return f"torch._ops.{func.namespace}.{func.__name__}"


def _log(func: Any, args: tuple, kwargs: dict, rs: Any) -> None:
    args, kwargs = _named_args(func, args, kwargs or {})
    logger.info(_op_name(func), args, kwargs, rs)  # noqa: PLE1205 - torch's handler reads record.args


class LoggingTensor(Tensor):
    """A wrapper subclass around ``elem``: each op on it runs on the unwrapped tensors, its tensor results are
    wrapped again, and the call is logged. ``LoggingTensor(elem, requires_grad=False)``."""

    elem: Tensor
    context: Any = contextlib.nullcontext

    @staticmethod
    def __new__(cls, elem: Tensor, *args: Any, **kwargs: Any) -> LoggingTensor:
        r = Tensor._make_wrapper_subclass(cls, elem.size(), strides=elem.stride(),
                                          storage_offset=elem.storage_offset(), dtype=elem.dtype,
                                          layout=elem.layout, device=elem.device,
                                          requires_grad=kwargs.get("requires_grad", False))
        r.elem = elem.detach() if r.requires_grad else elem
        return r

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __repr__(self) -> str:
        return super().__repr__(tensor_contents=f"{self.elem}")

    @classmethod
    def __torch_dispatch__(cls, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        rs = _run_unwrapped(cls, func, args, kwargs)
        _log(func, args, kwargs, rs)
        return rs


class LoggingTensorMode(TorchDispatchMode):
    """A pass-through mode logging every call it sees."""

    def __torch_dispatch__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        rs = func(*args, **kwargs)
        _log(func, args, kwargs, rs)
        return rs


class LoggingTensorReentrant(LoggingTensor):
    """A ``LoggingTensor`` whose inner calls run with the TLS of the outer call (autograd runs again inside)."""

    context = enable_reentrant_dispatch


class LoggingTensorHandler(logging.Handler):
    """Turns each record into torch's line; ids from one memo per ``capture_logs``."""

    def __init__(self, log_list: list[str], use_shortid_for_all_tensors: bool, with_type: bool,
                 tracebacks_list: list | None) -> None:
        super().__init__()
        self.log_list = log_list
        self.use_shortid_for_all_tensors = use_shortid_for_all_tensors
        self.tracebacks_list = tracebacks_list
        self.memo = WeakIdKeyDictionary()
        self.next_id = 0
        self.with_type = with_type

    def _shortid(self, t: Tensor) -> int:
        n = self.memo.get(t)
        if n is None:
            n = self.memo[t] = self.next_id
            self.next_id += 1
        return n

    def _fmt(self, a: object, with_type: bool = False) -> str:
        cond_cls = Tensor if self.use_shortid_for_all_tensors else LoggingTensor
        if isinstance(a, cond_cls):
            maybe_type = ""
            if with_type and self.with_type:
                maybe_type = f": {describe(a)}"
            return f"${self._shortid(a)}{maybe_type}"
        return repr(a)

    def emit(self, record: logging.LogRecord) -> None:
        args, kwargs, rets = record.args  # type: ignore[misc]
        fmt_args = ", ".join(itertools.chain(
            (str(tree_map(self._fmt, a)) for a in args),
            (f"{k}={tree_map(self._fmt, v)!s}" for k, v in kwargs.items()),
        ))
        fmt_rets = tree_map(functools.partial(self._fmt, with_type=True), rets)
        self.log_list.append(f"{fmt_rets} = {record.msg}({fmt_args})")
        if self.tracebacks_list is not None:
            self.tracebacks_list.append(getattr(record, "traceback", None))


def log_input(name: str, var: object) -> None:
    """Log ``var`` as the input ``name``: ``$0: f32[1] = input('x')``."""
    logger.info("input", (name,), {}, var)  # noqa: PLE1205


class GatherTraceback(logging.Filter):
    """Attach the Python stack of each logged call to its record (torch also offers TorchScript / C++ stacks)."""

    def __init__(self, python: bool = True, script: bool = True, cpp: bool = False) -> None:
        super().__init__()
        self.python = python

    def filter(self, record: logging.LogRecord) -> bool:
        record.traceback = traceback.format_stack()[:-1] if self.python else []
        return True


@contextlib.contextmanager
def capture_logs(is_mode: bool = False, python_tb: bool = False, script_tb: bool = False,
                 cpp_tb: bool = False) -> Iterator[Any]:
    """Collect the lines logged in the body; with a traceback flag, yield ``(lines, tracebacks)``."""
    collect_traceback = python_tb or script_tb or cpp_tb
    log_list: list[str] = []
    tracebacks_list: list = []
    handler = LoggingTensorHandler(log_list, with_type=True, use_shortid_for_all_tensors=is_mode,
                                   tracebacks_list=tracebacks_list if collect_traceback else None)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    filt = GatherTraceback(python=python_tb, script=script_tb, cpp=cpp_tb) if collect_traceback else None
    if filt is not None:
        logger.addFilter(filt)
    try:
        yield (log_list, tracebacks_list) if collect_traceback else log_list
    finally:
        logger.removeHandler(handler)
        if filt is not None:
            logger.removeFilter(filt)


@contextlib.contextmanager
def capture_logs_with_logging_tensor_mode(python_tb: bool = False, script_tb: bool = False,
                                          cpp_tb: bool = False) -> Iterator[Any]:
    """Every aten call of the body as lines: a ``LoggingTensorMode`` inside ``capture_logs(True)``."""
    with LoggingTensorMode(), capture_logs(True, python_tb, script_tb, cpp_tb) as logs:
        yield logs


__all__ = [
    "GatherTraceback",
    "LoggingTensor",
    "LoggingTensorHandler",
    "LoggingTensorMode",
    "LoggingTensorReentrant",
    "capture_logs",
    "capture_logs_with_logging_tensor_mode",
    "log_input",
    "logger",
]
