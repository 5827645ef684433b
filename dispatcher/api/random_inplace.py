"""``Tensor.random_`` / ``exponential_`` / ``geometric_`` / ``cauchy_`` / ``log_normal_`` and ``torch.randint``,
parsed as PyTorch's Python argument parser parses them.

Corresponds to the bindings python_variable_methods.cpp / python_torch_functions.cpp generate for these ops and
to torch/csrc/utils/python_arg_parser.cpp (``FunctionSignature::parse``, ``PythonArgParser::print_error``):
the signatures of an overloaded binding are tried in order (``randint(high, size, *, generator)``,
``randint(high, size)``, ``randint(low, high, size, *, generator)``, ``randint(low, high, size)``; ``random_()``,
``random_(from, to)``, ``random_(to)``), positionally or by keyword; when none fits, the one signature whose
argument count fits gives its own error ("argument 'high' (position 1) must be int, not float", "missing 1
required positional arguments", "takes 2 positional arguments but 3 were given"), otherwise the error is "received
an invalid combination of arguments" with the signatures listed. Trailing arguments equal to their defaults are
left out of the aten call, as PyTorch's traced graphs show them.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor
from .arguments import _no_out
from .autograd_methods import _factory_requires_grad
from .factories import _factory_kwargs

aten = namespace("aten")

__all__ = ["randint"]

_TYPE_NAMES = {"int": "int", "int?": "int", "ints": "tuple of ints", "float": "float", "gen": "torch.Generator",
               "gen?": "torch.Generator"}


@dataclass(frozen=True)
class _Param:
    name: str
    kind: str  #: "int", "int?" (None allowed), "ints", "float", "gen" / "gen?" (a Generator, None allowed), "any"
    default: str | None = None  #: the default as the signature shows it (None: required)
    kwonly: bool = False
    shown: str = ""  #: how the listing of signatures shows a parameter of kind "any"

    def show(self) -> str:
        text = self.shown or f"{_TYPE_NAMES[self.kind]} {self.name}"
        return text if self.default is None or self.shown else f"{text} = {self.default}"


class _Signature:
    def __init__(self, name: str, params: list[_Param]) -> None:
        self.name, self.params = name, params
        self.min_args = sum(p.default is None for p in params)
        self.max_pos = sum(not p.kwonly for p in params)

    def show(self) -> str:
        parts, star = [], False
        for p in self.params:
            if p.kwonly and not star:
                parts.append("*")
                star = True
            parts.append(p.show())
        return f"({', '.join(parts)})"


def _integral_scalar(obj: Any) -> bool:
    return isinstance(obj, Tensor) and obj.dim() == 0 and not obj.requires_grad and \
        not (obj.dtype.is_floating_point or obj.dtype.is_complex or obj.dtype.name == "bool")


def _check(kind: str, obj: Any) -> tuple[bool, Any, int]:
    """(fits, value, index of the failing element of a list or -1): FunctionParameter::check for one argument."""
    if obj is None:
        return kind in ("int?", "gen", "gen?", "any"), None, -1
    if kind == "any":
        return True, obj, -1
    if kind in ("int", "int?"):
        if isinstance(obj, numbers.Integral) and not isinstance(obj, bool):
            return True, int(obj), -1
        if _integral_scalar(obj):
            return True, int(obj.item()), -1
        return False, None, -1
    if kind == "float":
        if isinstance(obj, numbers.Real):
            return True, float(obj), -1
        if isinstance(obj, Tensor) and obj.dim() == 0 and not obj.requires_grad and not obj.dtype.is_complex:
            return True, float(obj.item()), -1
        return False, None, -1
    if kind == "ints":
        if not isinstance(obj, (tuple, list)):
            return False, None, -1
        values = []
        for i, e in enumerate(obj):
            if isinstance(e, numbers.Integral) and not isinstance(e, bool):
                values.append(int(e))
            elif _integral_scalar(e):
                values.append(int(e.item()))
            else:
                return False, None, i
        return True, values, -1
    from ..random import Generator

    return isinstance(obj, Generator), obj, -1


def _missing(sig: _Signature, i: int) -> TypeError:
    names = [f'"{p.name}"' for p in sig.params[i:] if p.default is None]
    # (PyTorch's message pluralizes the other way round: "1 required positional arguments")
    return TypeError(f"{sig.name}() missing {len(names)} required positional argument{'s' if len(names) == 1 else ''}: "
                     f"{', '.join(names)}")


def _extra_args(sig: _Signature, nargs: int) -> TypeError:
    if sig.min_args != sig.max_pos:
        return TypeError(f"{sig.name}() takes from {sig.min_args} to {sig.max_pos} positional arguments but {nargs} "
                         "were given")
    return TypeError(f"{sig.name}() takes {sig.max_pos} positional argument{'' if sig.max_pos == 1 else 's'} but "
                     f"{nargs} were given")


def _parse(sig: _Signature, args: tuple, kwargs: dict, raise_: bool) -> dict[str, Any] | None:
    """The arguments by name when they fit ``sig``; else None, or the parser's error when ``raise_``."""
    if len(args) > sig.max_pos:
        if raise_:
            raise _extra_args(sig, len(args))
        return None
    out: dict[str, Any] = {}
    used = 0
    for i, p in enumerate(sig.params):
        positional = i < len(args)
        if positional:
            obj, present = args[i], True
        else:
            present = p.name in kwargs
            obj = kwargs.get(p.name)
        if not present:
            if p.default is not None:
                out[p.name] = None
                continue
            if raise_:
                raise _missing(sig, i)
            return None
        ok, value, failed = _check(p.kind, obj)
        if not ok:
            if not raise_:
                return None
            if not positional:
                raise TypeError(f"{sig.name}(): argument '{p.name}' must be {_TYPE_NAMES[p.kind]}, not "
                                f"{type(obj).__name__}")
            if failed >= 0:
                raise TypeError(f"{sig.name}(): argument '{p.name}' failed to unpack the object at "
                                f"pos {failed + 1} with error \"type must be tuple of ints,but got "
                                f"{type(obj[failed]).__name__}\"")
            raise TypeError(f"{sig.name}(): argument '{p.name}' (position {i + 1}) must be {_TYPE_NAMES[p.kind]}, not "
                            f"{type(obj).__name__}")
        out[p.name] = value
        used += not positional
    if used < len(kwargs):
        if raise_:
            names = [p.name for p in sig.params]
            for key in kwargs:
                if key not in names:
                    raise TypeError(f"{sig.name}() got an unexpected keyword argument '{key}'")
                if names.index(key) < len(args):
                    raise TypeError(f"{sig.name}() got multiple values for argument '{key}'")
        return None
    return out


def _unpacked(sig: _Signature, parsed: dict[str, Any]) -> dict[str, Any]:
    """``parsed`` once its int arguments are read as int64 (PythonArgs::toInt64's overflow error)."""
    for p in sig.params:
        v = parsed[p.name]
        if p.kind in ("int", "int?") and v is not None and not -(2 ** 63) <= v < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")
    return parsed


def _parse_overloads(sigs: list[_Signature], args: tuple, kwargs: dict) -> tuple[int, dict[str, Any]]:
    """(index of the first signature that fits, its arguments), or the parser's error (print_error)."""
    for i, sig in enumerate(sigs):
        parsed = _parse(sig, args, kwargs, False)
        if parsed is not None:
            return i, _unpacked(sig, parsed)
    n = len(args) + len(kwargs)
    plausible = [s for s in sigs if s.min_args <= n <= len(s.params)]
    if len(plausible) == 1:
        _parse(plausible[0], args, kwargs, True)
    # keyword arguments are listed last-given first (an unordered_map), "(x=int, )" when there are no positional ones
    named = [f"{k}={type(v).__name__}" for k, v in reversed(kwargs.items())]
    got = ", ".join([type(a).__name__ for a in args] + named) if args else "".join(f"{k}, " for k in named)
    options = "".join(f" * {s.show()}\n" for s in sigs)
    raise TypeError(f"{sigs[0].name}() received an invalid combination of arguments - got ({got}), but expected one "
                    f"of:\n{options}")


# --- Tensor.random_ and the other in-place samplers -----------------------------------------------------------------

_GEN = _Param("generator", "gen?", "None", kwonly=True)
_RANDOM_ = [_Signature("random_", [_GEN]),
            _Signature("random_", [_Param("from", "int"), _Param("to", "int?"), _GEN]),
            _Signature("random_", [_Param("to", "int"), _GEN])]


def _gen_kw(generator: Any) -> dict[str, Any]:
    return {} if generator is None else {"generator": generator}


def random_(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``Tensor.random_()`` / ``random_(to)`` / ``random_(from, to)`` (``to`` may be None: up to the dtype's max)."""
    which, a = _parse_overloads(_RANDOM_, args, kwargs)
    kw = _gen_kw(a["generator"])
    if which == 0:
        return aten.random_.default(self, **kw)
    if which == 1:
        return getattr(aten.random_, "from")(self, a["from"], a["to"], **kw)
    return aten.random_.to(self, a["to"], **kw)


def _sampler(name: str, params: list[tuple[str, float | None]]) -> Any:
    """The binding of an in-place sampler with float parameters (``None``: required)."""
    sig = _Signature(name, [_Param(n, "float", None if d is None else f"{d:g}") for n, d in params] + [_GEN])
    defaults = [d for _, d in params]

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        a = _parse(sig, args, kwargs, True)
        values = [a[n] if a[n] is not None else d for n, d in params]
        while values and defaults[len(values) - 1] is not None and values[-1] == defaults[len(values) - 1]:
            values.pop()  # trailing defaults left out, as in PyTorch's graphs
        return getattr(aten, name).default(self, *values, **_gen_kw(a["generator"]))

    method.__name__ = method.__qualname__ = name
    shown = ", ".join(f"{n}={d:g}" if d is not None else n for n, d in params)
    method.__doc__ = f"``Tensor.{name}({shown}, *, generator=None)``: ``aten.{name}``, in place."
    return method


exponential_ = _sampler("exponential_", [("lambd", 1.0)])
geometric_ = _sampler("geometric_", [("p", None)])
cauchy_ = _sampler("cauchy_", [("median", 0.0), ("sigma", 1.0)])
log_normal_ = _sampler("log_normal_", [("mean", 1.0), ("std", 2.0)])


# --- torch.randint ------------------------------------------------------------------------------------------------

_FACTORY = [_Param("out", "any", "None", True, "Tensor out = None"),
            _Param("dtype", "any", "None", True, "torch.dtype dtype = None"),
            _Param("layout", "any", "None", True, "torch.layout layout = None"),
            _Param("device", "any", "None", True, "torch.device device = None"),
            _Param("pin_memory", "any", "False", True, "bool pin_memory = False"),
            _Param("requires_grad", "any", "False", True, "bool requires_grad = False")]
_HIGH, _LOW, _SIZE = _Param("high", "int"), _Param("low", "int"), _Param("size", "ints")
_GEN_REQUIRED = _Param("generator", "gen", kwonly=True)
_RANDINT = [_Signature("randint", [_HIGH, _SIZE, _GEN_REQUIRED, *_FACTORY]),
            _Signature("randint", [_HIGH, _SIZE, *_FACTORY]),
            _Signature("randint", [_LOW, _HIGH, _SIZE, _GEN_REQUIRED, *_FACTORY]),
            _Signature("randint", [_LOW, _HIGH, _SIZE, *_FACTORY])]


def randint(*args: Any, **kwargs: Any) -> Tensor:
    """``torch.randint(high, size)`` / ``randint(low, high, size)``, positionally or by keyword (``high=``,
    ``low=``, ``size=``): ``randint``, ``.low``, ``.generator`` or ``.low_generator`` as PyTorch's parser picks them
    (``generator=None`` given picks a generator overload, as there); int64 unless ``dtype=`` says otherwise."""
    which, a = _parse_overloads(_RANDINT, args, kwargs)
    _no_out(a["out"], "randint")
    kw = _factory_kwargs(a["dtype"], a["device"])
    if which in (0, 2):
        kw["generator"] = a["generator"]
    op = (aten.randint.generator, aten.randint.default, aten.randint.low_generator, aten.randint.low)[which]
    bounds = [a["high"]] if which < 2 else [a["low"], a["high"]]
    result = op(*bounds, a["size"], **kw)
    return _factory_requires_grad(result) if a["requires_grad"] else result


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach ``Tensor.random_`` / ``exponential_`` / ``geometric_`` / ``cauchy_`` / ``log_normal_``."""
    T.random_ = random_
    T.exponential_ = exponential_
    T.geometric_ = geometric_
    T.cauchy_ = cauchy_
    T.log_normal_ = log_normal_
