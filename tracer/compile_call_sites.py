"""Reading a torch-level call site for ``tracer.compile``'s capture: whose frame it is and what the call is.

Two questions the capture (compile_capture.py) asks at every torch-level call:

* **where**: the innermost frame of user code (outside dispatcher/, tracer/ and contextlib), and its
  ``(file, line, function)``, which graph nodes keep as ``stack_trace`` and break reasons print;
* **what**: how the callable appears in Dynamo's graphs (``_call_info``: a Tensor method, a property getter or
  a function; whether its answer needs data), and whether the user frame is executing a Python operator
  (``_operator_of``: ``x + y`` is ``operator.add``, told apart from ``x.add(y)`` by the current bytecode
  instruction), plus the graph-break reasons in Dynamo's wording.

PyTorch counterpart: the instruction handlers of torch/_dynamo/symbolic_convert.py (``BINARY_OP``,
``COMPARE_OP``, ``BINARY_SUBSCR``, ...) and the unsupported-method checks of torch/_dynamo/variables/tensor.py;
Dynamo reads the bytecode itself, we read only the instruction the user frame is at.
"""

from __future__ import annotations

import dis
import operator
import os
from typing import Any

import dispatcher

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

