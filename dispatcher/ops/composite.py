"""What the CompositeImplicitAutograd / CompositeExplicitAutograd kernels share.

``_op("mm")`` is the OpOverload ``aten::mm`` (cached), what the C++ composites call as ``at::_ops::mm::call``;
``_aten()`` the aten namespace. ``is_tensor_subclass_like`` is at::isTensorSubclassLike
(aten/src/ATen/TensorSubclassLikeUtils.h): true while a dispatch mode is active (``dispatch_mode_enabled``,
c10::impl::dispatch_mode_enabled) or for a tensor carrying the Python key. PyTorch's composites branch on it
(``matmul`` then squeezes a size-1 batch dim, ``linear`` adds its bias out of place, backward formulas scatter out
of place), so ours do too, and graphs recorded under a mode match PyTorch's op for op.
"""

from __future__ import annotations

from typing import Any

from ..aten_namespace import aten as _aten  # noqa: F401 - the op families import it from here
from ..keys import DispatchKey
from ..keyset import key_bits
from ..memory_format import strided
from ..tls import per_thread
from .native_functions import NATIVE_FUNCTIONS

_LISTED = frozenset(op.name for op in NATIVE_FUNCTIONS)
_PYTHON_BIT = key_bits(DispatchKey.Python)
_STRIDED = strided  # torch.strided (equal to its c10 Layout code, 0); graphs print it as torch.strided
_CONTIGUOUS_FORMAT = 0  # MemoryFormat codes

_OPS: dict[str, Any] = {}


def _op(name: str) -> Any:
    """The OpOverload ``aten::name`` ("mm", "transpose.int"), cached."""
    op = _OPS.get(name)
    if op is None:
        from ..op_overload import namespace

        base, _, overload = name.partition(".")
        op = _OPS[name] = getattr(getattr(namespace("aten"), base), overload or "default")
    return op


def _missing(name: str, schema: str) -> NotImplementedError:
    return NotImplementedError(f"aten::{name} is not in the op listing yet (PyTorch calls it here: {schema})")


def dispatch_mode_enabled() -> bool:
    """c10::impl::dispatch_mode_enabled: a dispatch mode is on the stack and Python is not excluded. Modes marked
    ``_invisible_to_subclass_checks`` (the tracer's recorder of what runs inside an op kept whole, which has no
    PyTorch counterpart) do not count, so the code below them takes PyTorch's path."""
    s = per_thread.s
    stack = s.dispatch_mode_stack
    if not stack or s.excluded & _PYTHON_BIT:
        return False
    for m in stack:
        if not getattr(m, "_invisible_to_subclass_checks", False):
            return True
    return False


def is_tensor_subclass_like(t: Any) -> bool:
    """at::isTensorSubclassLike: a dispatch mode is active, or ``t`` carries the Python key."""
    return dispatch_mode_enabled() or bool(getattr(t, "_key_set", 0) & _PYTHON_BIT)


def _fmt_double(x: float) -> str:
    """A double as C++ ``<<`` prints it (2.0 -> "2", 0.25 -> "0.25")."""
    return f"{float(x):g}"


def _prod(xs: Any) -> int:
    n = 1
    for x in xs:
        n *= x
    return n
