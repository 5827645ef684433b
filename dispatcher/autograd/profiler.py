"""``record_function``: a labelled region, marked by the ``profiler::`` ops that make_fx records.

Corresponds to torch/autograd/profiler.py (``record_function``) and
torch/csrc/autograd/record_function_ops.cpp. Entering calls
``profiler::_record_function_enter_new(name, args)``, which returns a ``_RecordFunction`` handle
(a ScriptObject); leaving calls ``profiler::_record_function_exit._RecordFunction(handle)``.
Both ops have CompositeExplicitAutograd kernels and no tensor arguments, so they run anywhere
and a tracing mode sees (and records) them: that is why ``Optimizer.step`` graphs start with
``_record_function_enter_new('Optimizer.step#SGD.step')``. No profiler collects anything here.
"""

from __future__ import annotations

from typing import Any

from ..library import Library
from ..script_object import ScriptObject

__all__ = ["record_function"]


class _RecordFunction(ScriptObject):
    """The handle of one open region (``torch.classes.profiler._RecordFunction``)."""

    __slots__ = ("name", "args")
    qualified_name = "__torch__.torch.classes.profiler._RecordFunction"

    def __init__(self, name: str, args: str | None) -> None:
        self.name = name
        self.args = args


def _enter_new(name: str, args: str | None = None) -> _RecordFunction:
    return _RecordFunction(name, args)


def _exit(record: Any) -> None:
    return None


_LIB = Library("profiler", "DEF")
_RF = "__torch__.torch.classes.profiler._RecordFunction"
_LIB.define(f"_record_function_enter_new(str name, str? args=None) -> {_RF}")
_LIB.define(f"_record_function_exit._RecordFunction({_RF} record) -> ()")
_LIB.impl("_record_function_enter_new", _enter_new, "CompositeExplicitAutograd",
          debug="registered at dispatcher/autograd/profiler.py")
_LIB.impl("_record_function_exit._RecordFunction", _exit, "CompositeExplicitAutograd",
          debug="registered at dispatcher/autograd/profiler.py")


class record_function:  # noqa: N801 - PyTorch's name
    """``with record_function("label"):`` marks a region (as two profiler ops; usable as a decorator too)."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self.record: Any = None

    def __enter__(self) -> record_function:
        from ..op_overload import namespace

        self.record = namespace("profiler")._record_function_enter_new.default(self.name, self.args)
        return self

    def __exit__(self, *exc: object) -> None:
        from ..op_overload import namespace

        if self.record is None:
            raise AssertionError("Expected record to be set")
        namespace("profiler")._record_function_exit._RecordFunction(self.record)

    def __call__(self, fn: Any) -> Any:
        import functools

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return wrapper
