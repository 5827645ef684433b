"""``TorchFunctionMode`` and the ``__torch_function__`` protocol, at the Python API level.

Corresponds to torch/overrides.py (TorchFunctionMode, ``_get_current_function_mode_stack``,
``_pop_mode_temporarily``), ``Tensor.__torch_function__`` / ``_convert`` of torch/_tensor.py and
``handle_torch_function`` in torch/csrc/utils/python_arg_parser.cpp.

Every public front-end callable (``dispatcher.add``, ``Tensor.add``, ``x + y``, ``F.linear``,
``x[i]``, ``x.shape``) is wrapped by ``torch_function_wrapper``. Before the dispatcher runs, the
wrapper looks for an active TorchFunctionMode and for tensor-subclass arguments whose class has
a ``__torch_function__``. The top mode runs first, popped while its handler runs (so calls in
the handler reach the next mode or the real function); if it returns ``NotImplemented`` the
subclasses are tried (a subclass before its superclass, otherwise left to right); when all
refuse, TypeError. Modes do not touch dispatch keys: a TorchDispatchMode below still sees the
aten ops the function calls.

Hot path: ``_ARMED.n`` counts entered function modes (all threads) plus one per ``Tensor``
subclass that keeps ``__torch_function__`` enabled. While it is 0 a wrapped call costs one
attribute check before the real function runs.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading
from collections.abc import Callable, Iterator
from typing import Any


class _Armed:
    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = 0


_ARMED = _Armed()


class _FunctionModeTLS(threading.local):
    def __init__(self) -> None:
        self.stack: list[Any] = []
        self.all_disabled = False        # DisableTorchFunction: modes and subclasses both skipped
        self.subclass_disabled = False   # DisableTorchFunctionSubclass: only subclasses skipped


_tls = _FunctionModeTLS()


class TorchFunctionMode:
    """Override every public function / Tensor method called in a dynamic scope.

    Subclass it and define ``__torch_function__(self, func, types, args=(), kwargs=None)``:
    ``func`` is the public callable the user called (``dispatcher.add``, ``Tensor.add``,
    ``Tensor.shape.__get__``); ``types`` the tensor-subclass types with ``__torch_function__``
    among the arguments. The handler runs with this mode popped; ``NotImplemented`` passes the
    call on to the tensor subclasses.
    """

    def __init__(self) -> None:
        pass

    def __torch_function__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        raise NotImplementedError

    def __enter__(self) -> TorchFunctionMode:
        _push_mode(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _pop_mode()

    @classmethod
    def push(cls, *args: Any, **kwargs: Any) -> TorchFunctionMode:
        import warnings

        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
                      stacklevel=2)
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A pass-through function mode."""

    def __torch_function__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        return func(*args, **(kwargs or {}))


# --- the stack -----------------------------------------------------------------------------------------------------
def _push_mode(mode: TorchFunctionMode) -> None:
    _tls.stack.append(mode)
    _ARMED.n += 1


def _pop_mode() -> TorchFunctionMode:
    stack = _tls.stack
    if not stack:
        raise AssertionError("Trying to pop from an empty mode stack")
    _ARMED.n -= 1
    return stack.pop()


@contextlib.contextmanager
def _pop_mode_temporarily() -> Iterator[TorchFunctionMode]:
    """Pop the top function mode for the body; push it back afterwards (also on errors)."""
    old = _pop_mode()
    try:
        yield old
    finally:
        _push_mode(old)


def _get_current_function_mode() -> TorchFunctionMode | None:
    stack = _tls.stack
    return stack[-1] if stack else None


def _get_current_function_mode_stack() -> list[TorchFunctionMode]:
    """This thread's function modes, bottom to top."""
    return list(_tls.stack)


def _len_torch_function_stack() -> int:
    return len(_tls.stack)


def _is_torch_function_mode_enabled() -> bool:
    return bool(_tls.stack) and not _tls.all_disabled


def _is_torch_function_enabled() -> bool:
    return not _tls.all_disabled and not _tls.subclass_disabled


# --- guards (torch._C.DisableTorchFunction / DisableTorchFunctionSubclass) -----------------------------------------
class DisableTorchFunctionSubclass:
    """Skip subclasses' ``__torch_function__`` in the body (function modes still run)."""

    def __enter__(self) -> DisableTorchFunctionSubclass:
        self._old = _tls.subclass_disabled
        _tls.subclass_disabled = True
        return self

    def __exit__(self, *exc: object) -> None:
        _tls.subclass_disabled = self._old


class DisableTorchFunction:
    """Skip function modes and subclasses' ``__torch_function__`` in the body."""

    def __enter__(self) -> DisableTorchFunction:
        self._old = _tls.all_disabled
        _tls.all_disabled = True
        return self

    def __exit__(self, *exc: object) -> None:
        _tls.all_disabled = self._old


def _disabled_torch_function_impl(func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
    """Set as a subclass's ``__torch_function__`` to opt out of the protocol (``torch._C._disabled_torch_function_impl``)."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


def _has_own_torch_function(cls: type) -> bool:
    return getattr(cls, "__torch_function__", _disabled_torch_function_impl) is not _disabled_torch_function_impl


# --- the protocol --------------------------------------------------------------------------------------------------
_TENSOR: type = object  # set by install()


def _add_overloaded(arg: Any, types: list[type]) -> None:
    t = type(arg)
    if t is _TENSOR or t in types or not isinstance(arg, _TENSOR) or not _has_own_torch_function(t):
        return
    for i, seen in enumerate(types):  # a subclass goes before its superclass
        if issubclass(t, seen):
            types.insert(i, t)
            return
    types.append(t)


def _overloaded_types(args: tuple, kwargs: dict) -> list[type]:
    types: list[type] = []
    for a in (*args, *kwargs.values()):
        if isinstance(a, (list, tuple)):
            for b in a:
                _add_overloaded(b, types)
        else:
            _add_overloaded(a, types)
    return types


class _AllRefused(TypeError):
    pass


def _func_name(func: Any) -> str:
    owner = getattr(func, "__self__", None)
    if isinstance(owner, property) and owner.fget is not None:
        return f"Tensor.{owner.fget.__name__}.__get__"
    qual = getattr(func, "__qualname__", getattr(func, "__name__", repr(func)))
    if "." in qual:
        return f"torch.{qual}"  # torch.Tensor.add
    if getattr(func, "__module__", "").endswith("nn.functional"):
        return f"torch.nn.functional.{qual}"
    return f"torch.{qual}"


def handle_torch_function(public: Any, impl: Callable[..., Any], args: tuple, kwargs: dict,
                          getter_of: Any = None) -> Any:
    """Run the ``__torch_function__`` protocol for a call of ``public``; ``impl`` runs when nobody overrides.

    ``getter_of``: the tensor whose attribute is read. As torch's getters do, a mode then gets
    ``types=(type(tensor),)`` even for a plain Tensor (whose own default handler is not tried).
    """
    if _tls.all_disabled:
        return impl(*args, **kwargs)
    types = [] if _tls.subclass_disabled else _overloaded_types(args, kwargs)
    stack = _tls.stack
    if not stack and not types:
        return impl(*args, **kwargs)
    tuple_types = tuple(types)
    tried: list[str] = []
    if stack:
        mode_types = tuple_types if tuple_types or getter_of is None else (type(getter_of),)
        mode = stack.pop()
        try:
            ret = mode.__torch_function__(public, mode_types, args, kwargs)
        finally:
            stack.append(mode)
        if ret is not NotImplemented:
            return ret
        tried.append(f"mode object {mode!r}")
    for t in types:
        ret = t.__torch_function__(public, tuple_types, args, kwargs)
        if ret is not NotImplemented:
            return ret
        tried.append(f"tensor subclass {t!r}")
    lines = "".join(f"  - {x}\n" for x in tried)
    # (torch's message ends "For more information, try re-running with TORCH_LOGS=not_implemented"; there are no
    # TORCH_LOGS here, so the hint says what does help)
    raise _AllRefused(f"Multiple dispatch failed for '{_func_name(public)}'; all __torch_function__ handlers "
                      f"returned NotImplemented:\n\n{lines}\n{NOT_IMPLEMENTED_HINT}")


#: the last line of "all handlers returned NotImplemented" errors (torch's points at TORCH_LOGS, which dispatchkit
#: does not have)
NOT_IMPLEMENTED_HINT = ("To see why, print func and types in each handler listed above: each one returned "
                        "NotImplemented for this call")


def torch_function_wrapper(impl: Callable[..., Any], public: Any = None, operator: bool = False,
                           name: str | None = None, owner: str | None = None) -> Callable[..., Any]:
    """Wrap ``impl`` so that calls go through the protocol first; the wrapper itself is ``func`` unless ``public`` is given.

    ``public`` may be a zero-argument callable resolved at call time (operators report the method:
    ``x + y`` reports ``Tensor.add``). With ``operator=True`` the wrapper returns NotImplemented when every
    handler refused, so Python raises its own "unsupported operand type(s)".
    """
    armed = _ARMED

    def slow(args: tuple, kwargs: dict) -> Any:
        func = wrapper if public is None else public()
        if operator:
            try:
                return handle_torch_function(func, impl, args, kwargs)
            except _AllRefused:
                return NotImplemented
        return handle_torch_function(func, impl, args, kwargs)

    # fixed-arity fast paths (Tensor.dim(), x + y): no *args packing while nothing is armed
    arity = _simple_arity(impl)
    if arity == 1:
        def wrapper(self: Any) -> Any:
            if not armed.n:
                return impl(self)
            return slow((self,), {})
    elif arity == 2:
        def wrapper(self: Any, other: Any) -> Any:
            if not armed.n:
                return impl(self, other)
            return slow((self, other), {})
    else:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not armed.n:
                return impl(*args, **kwargs)
            return slow(args, kwargs)

    functools.update_wrapper(wrapper, impl)

    wrapper.__torch_function_impl__ = impl  # type: ignore[attr-defined]
    if name is not None:  # the public name (impls are often made by factories: ``_unary.<locals>.fn``)
        wrapper.__name__ = name
        wrapper.__qualname__ = f"{owner}.{name}" if owner else name
    return wrapper


def _simple_arity(impl: Callable[..., Any]) -> int:
    """1 for ``f(self)``, 2 for ``f(self, other)`` (plain positional parameters, no defaults), else 0."""
    try:
        params = list(inspect.signature(impl).parameters.values())
    except (TypeError, ValueError):
        return 0
    if any(p.kind is not p.POSITIONAL_OR_KEYWORD or p.default is not p.empty for p in params):
        return 0
    if len(params) == 1:
        return 1
    if len(params) == 2 and params[1].name == "other":
        return 2
    return 0


def _wrap_property(prop: property, name: str) -> property:
    """A property whose getter goes through the protocol with ``func`` = the new property's ``__get__``."""
    getter = prop.fget
    holder: list[property] = []
    armed = _ARMED

    def fget(self: Any) -> Any:
        if not armed.n:
            return getter(self)
        return handle_torch_function(holder[0].__get__, getter, (self,), {}, getter_of=self)

    functools.update_wrapper(fget, getter)
    fget.__name__ = name
    new = property(fget, prop.fset, prop.fdel, prop.__doc__)
    holder.append(new)
    return new


# --- Tensor.__torch_function__ (torch/_tensor.py) ------------------------------------------------------------------
def _convert(ret: Any, cls: type) -> Any:
    if cls is _TENSOR:
        return ret
    if isinstance(ret, _TENSOR) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [_convert(r, cls) for r in ret]
        return type(ret)(*items) if hasattr(ret, "_fields") else type(ret)(items)
    return ret


_NOWRAP: set[str] = {"_base", "grad", "_grad"}


def _default_torch_function(cls: type, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
    """Run ``func`` with subclass handling off and re-wrap Tensor results as ``cls``."""
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        ret = func(*args, **kwargs)
    owner = getattr(func, "__self__", None)
    if isinstance(owner, property) and owner.fget is not None and owner.fget.__name__ in _NOWRAP:
        return ret
    return _convert(ret, cls)


_default_torch_function.__name__ = _default_torch_function.__qualname__ = "__torch_function__"


def _init_subclass(cls: type, **kwargs: Any) -> None:
    super(_TENSOR, cls).__init_subclass__(**kwargs)  # type: ignore[misc]
    if "__torch_dispatch__" in vars(cls) and "__torch_function__" not in vars(cls):
        from ..python_key import disabled_torch_dispatch_impl

        # as torch: defining a __torch_dispatch__ of one's own opts out (Tensor's own, the disabled one, does not)
        if getattr(cls, "__torch_dispatch__", None) is not disabled_torch_dispatch_impl:
            cls.__torch_function__ = _disabled_torch_function_impl
    if _has_own_torch_function(cls):
        _ARMED.n += 1


# --- installation ---------------------------------------------------------------------------------------------------
# operators report the method torch reports for them
_OPERATOR_REPORTS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub", "__isub__": "sub_",
    "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_", "__truediv__": "div", "__itruediv__": "div_",
    "__rtruediv__": "__rdiv__", "__pow__": "pow", "__matmul__": "matmul", "__neg__": "neg", "__abs__": "abs",
    "__gt__": "gt", "__ge__": "ge", "__lt__": "lt", "__le__": "le", "__ne__": "ne",
}
_BINARY_OPERATORS = {"__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
                     "__rtruediv__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__eq__", "__ne__",
                     "__lt__", "__le__", "__gt__", "__ge__", "__and__", "__or__", "__xor__", "__floordiv__",
                     "__rfloordiv__", "__mod__", "__iadd__", "__isub__", "__imul__", "__itruediv__"}
# not wrapped: construction, identity and the protocol itself (torch does not route these either)
_SKIP = {"__init__", "__new__", "__hash__", "__torch_function__", "__torch_dispatch__", "__init_subclass__",
         "__iter__", "__format__", "__array__", "__reduce_ex__", "__deepcopy__", "__setstate__", "__getstate__",
         "_make_wrapper_subclass", "_make_subclass", "as_subclass", "__class_getitem__", "__subclasshook__"}


_PRIVATE_REPORTED = {"_version", "_base", "_grad", "_grad_fn"}  # private attributes torch's getters report


def _wrap_tensor(tensor_cls: type) -> None:
    names = [n for n, v in vars(tensor_cls).items()
             if n not in _SKIP and (not n.startswith("_") or (n.startswith("__") and n.endswith("__"))
                                    or n in _PRIVATE_REPORTED)
             and (isinstance(v, property) or (callable(v) and not isinstance(v, (type, classmethod, staticmethod))))]
    for name in names:
        v = vars(tensor_cls)[name]
        if hasattr(v, "__torch_function_impl__"):
            continue
        if isinstance(v, property):
            if v.fget is not None:
                setattr(tensor_cls, name, _wrap_property(v, name))
            continue
        report = _OPERATOR_REPORTS.get(name)
        public = None if report is None else (lambda r=report: getattr(tensor_cls, r))
        setattr(tensor_cls, name, torch_function_wrapper(v, public, operator=name in _BINARY_OPERATORS, name=name,
                                                         owner="Tensor"))
    if "__rtruediv__" in vars(tensor_cls) and "__rdiv__" not in vars(tensor_cls):
        tensor_cls.__rdiv__ = torch_function_wrapper(vars(tensor_cls)["__rtruediv__"].__torch_function_impl__,
                                                     name="__rdiv__", owner="Tensor")


def _wrap_module(module: Any, names: list[str]) -> None:
    for name in names:
        v = getattr(module, name, None)
        if v is None or isinstance(v, type) or not callable(v) or hasattr(v, "__torch_function_impl__"):
            continue
        setattr(module, name, torch_function_wrapper(v, name=name))


def _count_existing_subclasses(cls: type) -> None:
    for sub in cls.__subclasses__():
        if _has_own_torch_function(sub):
            _ARMED.n += 1
        _count_existing_subclasses(sub)


def install(tensor_cls: type, modules: list[tuple[Any, list[str]]]) -> None:
    """Wrap Tensor's methods/properties and the given module functions; give Tensor its ``__torch_function__``."""
    global _TENSOR
    _TENSOR = tensor_cls
    _wrap_tensor(tensor_cls)
    for module, names in modules:
        _wrap_module(module, names)
    tensor_cls.__torch_function__ = classmethod(_default_torch_function)
    tensor_cls.__init_subclass__ = classmethod(_init_subclass)
    _count_existing_subclasses(tensor_cls)


__all__ = [
    "BaseTorchFunctionMode",
    "DisableTorchFunction",
    "DisableTorchFunctionSubclass",
    "TorchFunctionMode",
    "_disabled_torch_function_impl",
    "_get_current_function_mode",
    "_get_current_function_mode_stack",
    "_is_torch_function_enabled",
    "_is_torch_function_mode_enabled",
    "_len_torch_function_stack",
    "_pop_mode",
    "_pop_mode_temporarily",
    "_push_mode",
    "handle_torch_function",
    "torch_function_wrapper",
]
