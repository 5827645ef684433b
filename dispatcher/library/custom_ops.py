"""``torch.library.custom_op``: a Python function made an operator (``CustomOpDef``), and its autograd kernel.

Corresponds to torch/_library/custom_ops.py and torch/_library/autograd.py. ``custom_op("mylib::foo",
mutates_args=())`` infers the schema from the type hints, defines ``mylib::foo`` and registers, on its own
``FRAGMENT`` library:

* the function as the kernel of each of ``device_types`` (all devices: CompositeExplicitAutograd);
* a ``Meta`` kernel calling what ``register_fake`` gave (ops returning nothing get a trivial one);
* an ``Autograd`` kernel (``make_autograd_kernel``): below autograd when nothing needs a gradient, else a node
  ``GeneratedBackwardFor_<ns>_<name>_<overload>`` whose backward is ``register_autograd``'s (or an error);
* for a mutating op, an ``ADInplaceOrView`` kernel bumping the version counter of each mutated argument.

No kernel is CompositeImplicitAutograd, so tracers (make_fx in every mode) keep the op as one node.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..keys import DispatchKey
from ..tensor import Tensor
from .core import Library, _register_kernel
from .functions import _device_type_to_key, _parse_namespace, _resolve
from .infer_schema import infer_schema


def _bound(op: Any, args: tuple, kwargs: dict) -> tuple[list[Any], dict[str, Any]]:
    """Positional arguments with defaults filled in, and the keyword-only ones (``utils.fill_defaults``)."""
    positional, kw = [], {}
    for i, a in enumerate(op._schema.arguments):
        if a.kwarg_only:
            kw[a.name] = kwargs.get(a.name, a.default)
        else:
            positional.append(args[i] if i < len(args) else kwargs.get(a.name, a.default))
    return positional, kw


class _Ctx:
    """The ``ctx`` of ``setup_context`` / ``backward`` (the parts of autograd.Function's ctx custom ops use)."""

    def __init__(self, needs_input_grad: tuple[bool, ...]) -> None:
        self.needs_input_grad = needs_input_grad
        self.saved_tensors: tuple[Any, ...] = ()

    def save_for_backward(self, *tensors: Any) -> None:
        self.saved_tensors = tensors

    def mark_non_differentiable(self, *args: Any) -> None:
        self._non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = value


def make_autograd_kernel(op: Any, backward: Callable[..., Any] | None,
                         setup_context: Callable[..., Any] | None) -> Callable[..., Any]:
    """The boxed ``Autograd`` kernel ``(op, ks, args, kwargs)`` of a custom op (``make_autograd_impl``)."""
    from .. import autograd as _autograd
    from ..autograd.graph import gradient_edge, node_class
    from ..autograd.views import set_history
    from ..dispatch import redispatch_excluding
    from ..keyset import full_after_bits
    from ..tls import AUTOGRAD_KEYS_RAW

    after = full_after_bits(DispatchKey.AutogradOther)
    cls = node_class(f"GeneratedBackwardFor_{op.namespace}_{op._opname}_{op._overloadname}Backward")

    def kernel(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
        def below() -> Any:
            return redispatch_excluding(op, ks, after, AUTOGRAD_KEYS_RAW, args, kwargs)

        positional, kw = _bound(op, args, kwargs)
        needs = tuple(_requires_grad(a) for a in positional)
        if not (_autograd.is_grad_enabled() and any(needs)):
            return below()
        out = below()
        ctx = _Ctx(needs)
        if setup_context is not None:
            if kw:
                setup_context(ctx=ctx, inputs=tuple(positional), keyword_only_inputs=kw, output=out)
            else:
                setup_context(ctx=ctx, inputs=tuple(positional), output=out)
        slots = [i for i, a in enumerate(positional) if isinstance(a, Tensor)]
        node = cls([gradient_edge(positional[i]) if needs[i] else (None, 0) for i in slots])
        outputs = out if isinstance(out, (tuple, list)) else (out,)
        node.num_outputs = len(outputs)
        node.output_meta = [(o._shape, o._dtype, o._device) if isinstance(o, Tensor) else None for o in outputs]

        def run_backward(node: Any, grads: list[Any]) -> Sequence[Any]:
            if backward is None:
                raise RuntimeError(f"Trying to backward through {op} but no autograd formula was registered. "
                                   "Please use register_autograd to add one.")
            from ..api.factories import zeros

            grads = [g if g is not None or m is None else zeros(m[0], dtype=m[1])
                     for g, m in zip(grads, node.output_meta)]
            result = backward(ctx, *grads)
            result = result if isinstance(result, tuple) else (result,)
            if len(result) != len(positional):
                raise RuntimeError(f"function backward returned an incorrect number of gradients (expected "
                                   f"{len(positional)}, got {len(result)})")
            return [result[i] for i in slots]

        node._backward = run_backward
        for i, o in enumerate(outputs):
            if isinstance(o, Tensor) and (o._dtype.is_floating_point or o._dtype.is_complex):
                set_history(o, node, i)
        return out

    return kernel


def _requires_grad(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_requires_grad(v) for v in value)
    return bool(getattr(value, "requires_grad", False))


def _adinplaceorview_kernel(mutated: tuple[str, ...]) -> Callable[..., Any]:
    from ..dispatch import redispatch_excluding
    from ..keyset import full_after_bits

    after = full_after_bits(DispatchKey.ADInplaceOrView)

    def kernel(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
        names = [a.name for a in op._schema.arguments]
        for name in mutated:
            i = names.index(name)
            value = args[i] if i < len(args) else kwargs.get(name)
            for t in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(t, Tensor):
                    t._bump_version()
        # straight past ADInplaceOrView, nothing excluded in TLS: the kernel's own in-place ops bump again
        return redispatch_excluding(op, ks, after, 0, args, kwargs)

    return kernel


#: every custom op made, by qualified name (torch._library.custom_ops.OPDEFS)
OPDEFS: dict[str, CustomOpDef] = {}


class CustomOpDef:
    """A custom operator made by ``custom_op``: callable, and the registration point of its other parts."""

    def __init__(self, namespace: str, name: str, schema: str, fn: Callable[..., Any],
                 mutated: tuple[str, ...], tags: Any = ()) -> None:
        from ..kernel import BOXED, PLAIN, KernelFunction, registration_site

        self._namespace, self._name = namespace, name
        self._qualname = f"{namespace}::{name}"
        self._init_fn = fn
        self._schema_str = schema
        self._backward_fn: Callable[..., Any] | None = None
        self._setup_context_fn: Callable[..., Any] | None = None
        self._abstract_fn: Callable[..., Any] | None = None
        self._lib = Library(namespace, "FRAGMENT")
        self._lib.define(name + schema, tags=tags)
        self._opoverload = _resolve(self._qualname)
        site = registration_site()
        self._meta = KernelFunction(self._fake_impl, PLAIN, site)  # register_fake puts the user's function here
        self._lib._removers.append(_register_kernel(self._opoverload, DispatchKey.Meta, self._meta))
        auto = KernelFunction(make_autograd_kernel(self._opoverload, None, None), BOXED, site)
        self._autograd = auto
        self._lib._removers.append(_register_kernel(self._opoverload, DispatchKey.Autograd, auto))
        if mutated:
            view = KernelFunction(_adinplaceorview_kernel(mutated), BOXED, site)
            self._lib._removers.append(_register_kernel(self._opoverload, DispatchKey.ADInplaceOrView, view))
        self.__name__ = name
        self.__doc__ = fn.__doc__
        OPDEFS[self._qualname] = self  # alive as long as the process, as torch's custom ops are

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname})>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # torch's op call checks __torch_function__ first (TorchFunctionModes, tracer.compile's capture see the
        # op, not its kernel's insides)
        from ..modes import function_mode as fm  # (the modes package needs the aten ops registered first)

        if fm._ARMED.n:
            return fm.handle_torch_function(self._opoverload, self._opoverload, args, kwargs)
        return self._opoverload(*args, **kwargs)

    def _fake_impl(self, *args: Any, **kwargs: Any) -> Any:
        if self._abstract_fn is None:
            if not self._opoverload._schema.returns:
                return None
            raise RuntimeError(
                f"There was no fake impl registered for {self}. This is necessary for torch.compile/export/fx "
                f"tracing to work. Please use `{self._init_fn.__name__}.register_fake` to add an fake impl.")
        return self._abstract_fn(*args, **kwargs)

    def register_kernel(self, device_types: str | Sequence[str] | None,
                        fn: Callable[..., Any] | None = None) -> Any:
        """Register ``fn`` as this op's kernel for the device types (None: all)."""

        def inner(f: Callable[..., Any]) -> Callable[..., Any]:
            types = [device_types] if isinstance(device_types, str) else device_types
            keys = ["CompositeExplicitAutograd"] if types is None else [_device_type_to_key(t) for t in types]
            for key in keys:
                self._lib.impl(self._name, f, key)
            return f

        return inner if fn is None else inner(fn)

    def register_fake(self, fn: Callable[..., Any] | None = None) -> Any:
        """Register the fake kernel (what runs on fake / meta tensors)."""

        def inner(f: Callable[..., Any]) -> Callable[..., Any]:
            self._abstract_fn = f
            self._meta.fn = f
            return f

        return inner if fn is None else inner(fn)

    def register_autograd(self, backward: Callable[..., Any], /, *,
                          setup_context: Callable[..., Any] | None = None) -> None:
        """Register ``backward(ctx, *grads)`` and ``setup_context(ctx, inputs, output)``."""
        self._backward_fn, self._setup_context_fn = backward, setup_context
        self._autograd.fn = make_autograd_kernel(self._opoverload, backward, setup_context)

    def register_torch_dispatch(self, torch_dispatch_class: Any, fn: Callable[..., Any] | None = None) -> Any:
        from .functions import register_torch_dispatch

        return register_torch_dispatch(self._qualname, torch_dispatch_class, fn)


def custom_op(name: str, fn: Callable[..., Any] | None = None, /, *, mutates_args: Iterable[str] | str,
              device_types: str | Sequence[str] | None = None, schema: str | None = None,
              tags: Any = ()) -> Any:
    """Wrap a function into an operator ``ns::name`` (a decorator without ``fn``)."""

    def inner(f: Callable[..., Any]) -> CustomOpDef:
        ns, opname = _parse_namespace(name)
        if schema is None:
            if isinstance(mutates_args, str) and mutates_args != "unknown":
                raise ValueError("mutates_args must be a sequence of argument names or the string \"unknown\"")
            text = infer_schema(f, mutates_args=mutates_args)
        else:
            text = schema
        from ..schema import parse_schema

        parsed = parse_schema(f"{name}{text}")
        mutated = tuple(a.name for a in parsed.arguments if a.alias_info is not None and a.alias_info.is_write)
        result = CustomOpDef(ns, opname, text, f, mutated, tags)
        result.register_kernel(device_types, f)
        return result

    return inner if fn is None else inner(fn)
