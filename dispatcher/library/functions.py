"""The function API of ``torch.library``: ``define``, ``impl``, ``register_kernel``, ``register_fake``,
``register_autograd``, ``register_torch_dispatch``, ``_scoped_library``, ``get_ctx``.

Corresponds to torch/library.py (the functions after ``class Library``) and torch/_library/autograd.py (the
autograd kernel ``register_autograd`` installs). Each registration lives in a ``FRAGMENT`` library kept alive by
this module (``_keep_alive``) unless a ``lib`` is given; then it lives as long as that library.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..keys import DispatchKey
from ..op_overload import OpOverload
from ..op_overload import namespace as _namespace
from .core import Library

_keep_alive: list[Library] = []
_NAMELESS_SCHEMA = re.compile(r"\(.*\) -> .*")
_DEVICE_KEYS = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta", "xla": "XLA", "mps": "MPS", "xpu": "XPU",
                "hpu": "HPU", "ipu": "IPU", "lazy": "Lazy", "mtia": "MTIA", "privateuseone": "PrivateUse1"}


@contextlib.contextmanager
def _scoped_library(*args: Any, **kwargs: Any) -> Iterator[Library]:
    """A ``Library`` destroyed (every registration undone) when the ``with`` block ends."""
    lib = Library(*args, **kwargs)
    try:
        yield lib
    finally:
        lib._destroy()


def _parse_namespace(qualname: str) -> tuple[str, str]:
    splits = qualname.split("::")
    if len(splits) != 2:
        raise ValueError(f"Expected `qualname` to be of the form \"namespace::name\", but got {qualname}. "
                         "The qualname passed to the torch.library APIs must consist of a namespace and a name, "
                         "e.g. aten::sin")
    return splits[0], splits[1]


def _lib_for(ns: str, lib: Library | None) -> Library:
    if lib is not None:
        return lib
    made = Library(ns, "FRAGMENT")
    _keep_alive.append(made)
    return made


def define(qualname: Any, schema: Any, *, lib: Library | None = None, tags: Any = (), alias_analysis: str = "") -> Any:
    """``torch.library.define("mylib::sin", "(Tensor x) -> Tensor")`` (legacy form: ``define(lib, schema)``)."""
    if isinstance(qualname, Library):  # legacy: define(lib, schema, alias_analysis="") is a decorator
        def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
            name = qualname.define(schema, alias_analysis)
            qualname.impl(name, f, "CompositeImplicitAutograd")
            return f

        return wrap
    if not isinstance(qualname, str):
        raise ValueError(f"define(qualname, schema): expected qualname to be instance of str, got {type(qualname)}")
    ns, name = _parse_namespace(qualname)
    use = _lib_for(ns, lib)
    if not _NAMELESS_SCHEMA.fullmatch(schema):
        raise ValueError(f'define(qualname, schema, ...): expected schema to look like e.g. "(Tensor x) -> Tensor" '
                         f'but got "{schema}"')
    use.define(name + schema, alias_analysis="", tags=tags)
    return None


def _device_type_to_key(device_type: str) -> str:
    if device_type == "default":
        return "CompositeExplicitAutograd"
    key = _DEVICE_KEYS.get(device_type)
    if key is None:
        raise RuntimeError(f"Expected one of cpu, cuda, ... device type at start of device string: {device_type}")
    return key


def _keys_for(types: str | Sequence[str] | None) -> list[str]:
    if types is None:
        return ["CompositeExplicitAutograd"]
    if isinstance(types, str):
        types = (types,)
    return [t if t in DispatchKey.__members__ else _device_type_to_key(t) for t in types]


def _qualname(op: Any) -> str:
    if isinstance(op, OpOverload):
        return op.name()
    if hasattr(op, "_qualname"):  # a CustomOpDef
        return op._qualname
    if hasattr(op, "_qualified_name"):  # an OpOverloadPacket
        return op._qualified_name
    return op


def impl(qualname: Any, types: Any = "", func: Callable[..., Any] | None = None, *,
         lib: Library | None = None) -> Any:
    """Register ``func`` for device types or dispatch keys (``"cpu"``, ``"default"``, ``"CPU"``); a decorator
    without ``func``. Legacy form: ``impl(lib, name, dispatch_key)`` is a decorator registering on ``lib``."""
    if isinstance(qualname, Library):
        lib_, name, key = qualname, types, func if isinstance(func, str) else ""

        def wrap_legacy(f: Callable[..., Any]) -> Callable[..., Any]:
            lib_.impl(name, f, key)
            return f

        return wrap_legacy
    qualname = _qualname(qualname)
    keys = _keys_for(types)

    def register(f: Callable[..., Any]) -> Callable[..., Any]:
        ns, _ = _parse_namespace(qualname)
        use = _lib_for(ns, lib)
        for key in keys:
            use.impl(qualname, f, key)
        return f

    return register if func is None else register(func)


def register_kernel(op: Any, device_types: str | Sequence[str] | None, func: Callable[..., Any] | None = None, /,
                    *, lib: Library | None = None) -> Any:
    """Register a device kernel of a custom op (``device_types`` None: every device)."""
    if hasattr(op, "register_kernel") and lib is None:  # a CustomOpDef keeps its own kernels
        return op.register_kernel(device_types, func)
    return impl(_qualname(op), device_types, func, lib=lib)


def register_fake(op: Any, func: Callable[..., Any] | None = None, /, *, lib: Library | None = None,
                  _stacklevel: int = 1, allow_override: bool = False) -> Any:
    """Register the fake (meta) kernel of an op: what FakeTensorMode and make_fx's fake mode run for it.

    It is the op's ``Meta`` kernel: called with fake (or meta) tensors, it must return tensors of the right
    shape, dtype and device without reading data.
    """
    if hasattr(op, "register_fake") and lib is None:
        return op.register_fake(func)
    qualname = _qualname(op)

    def register(f: Callable[..., Any]) -> Callable[..., Any]:
        ns, _ = _parse_namespace(qualname)
        _lib_for(ns, lib).impl(qualname, f, "Meta", allow_override=True)
        return f

    return register if func is None else register(func)


def register_autograd(op: Any, backward: Callable[..., Any], /, *, setup_context: Callable[..., Any] | None = None,
                      lib: Library | None = None) -> None:
    """Register ``backward(ctx, *grads)`` (and ``setup_context(ctx, inputs, output)``) as the op's autograd."""
    if hasattr(op, "register_autograd") and lib is None:
        op.register_autograd(backward, setup_context=setup_context)
        return
    from .custom_ops import make_autograd_kernel

    qualname = _qualname(op)
    ns, name = _parse_namespace(qualname)
    overload = _resolve(qualname)
    kernel = make_autograd_kernel(overload, backward, setup_context)
    _lib_for(ns, lib).impl(qualname, kernel, "Autograd", with_keyset=True)


def _resolve(qualname: str) -> OpOverload:
    ns, name = _parse_namespace(qualname)
    short, _, overload = name.partition(".")
    return getattr(getattr(_namespace(ns), short), overload or "default")


def register_torch_dispatch(op: Any, torch_dispatch_class: Any, func: Callable[..., Any] | None = None, /,
                            *, lib: Library | None = None) -> Any:
    """Run ``func(mode_or_subclass, func, types, args, kwargs)`` instead of the class's ``__torch_dispatch__``
    when that mode (or tensor subclass) handles this op."""
    overload = _resolve(_qualname(op))

    def register(f: Callable[..., Any]) -> Callable[..., Any]:
        rules = overload.__dict__.setdefault("_torch_dispatch_rules", {})
        rules[torch_dispatch_class] = f
        if lib is not None:
            lib._removers.append(lambda: rules.pop(torch_dispatch_class, None))
        return f

    return register if func is None else register(func)


class FakeImplCtx:
    """What ``get_ctx()`` returns inside a fake kernel (torch._library.fake_impl.FakeImplCtx)."""

    def new_dynamic_size(self, *, min: int = 0, max: int | None = None) -> int:  # noqa: A002 - torch's names
        raise RuntimeError("dispatchkit has no symbolic sizes: an output size that depends on data cannot be made")


def get_ctx() -> FakeImplCtx:
    """The context of the fake kernel being run."""
    return FakeImplCtx()
