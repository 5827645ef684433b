"""``FakeTensorMode``: run programs on FakeTensors; every op computed by its Meta kernel.

Corresponds to ``FakeTensorMode`` (and the parts of ``FakeTensorConverter`` and ``in_kernel_invocation_manager``
it uses) in torch/_subclasses/fake_tensor.py. The mode is an *infra* TorchDispatchMode (key FAKE: it keeps
the bottom slot of the mode stack, below user modes, whatever the order of entry). Inside ``with mode:``
factory functions return FakeTensors, and every op on FakeTensors reaches the Python key, below autograd
and the CompositeImplicitAutograd decompositions, where ``__torch_dispatch__`` handles it in this order:

1. an argument of an unknown tensor subclass -> ``NotImplemented`` (the subclass gets its turn);
2. ``lift_fresh`` of a real tensor (``dispatcher.tensor(...)``) -> a fake of it; a one-element one keeps a
   real copy as ``constant``;
3. every tensor argument must be a FakeTensor of this mode; otherwise torch's AssertionError ("Please
   convert all Tensors to FakeTensors first ...", "Mixing fake modes NYI ..."), or, with
   ``allow_non_fake_inputs=True``, the real tensor is converted (``from_tensor``);
4. constant propagation: when every fake argument has a ``constant`` the op runs for real on the
   constants, and one-element results become constant fakes (so ``dispatcher.tensor(2.) * 3`` can be
   ``.item()``-ed); an op writing into a constant fake otherwise drops its constant;
5. a CompositeImplicitAutograd op (reached e.g. from inside another mode's handler) is decomposed, the
   pieces running under the mode;
6. special rules (fake_impls.py): data-dependent outputs raise ``DataDependentOutputException``, data-
   dependent shapes ``DynamicOutputShapeException``; indexing with a boolean mask asks ``nonzero``;
7. otherwise the op runs with ``Meta`` added to the TLS include set and Python dispatch off
   (``in_kernel_invocation``): the Meta key wins over the fake tensors' CPU key, the Meta kernel
   computes shapes, strides and dtypes, and the meta outputs become FakeTensors on the common fake device
   (or the ``device=`` argument's: factory functions and ``_to_copy`` run with ``device=meta``). If the
   Meta kernel raises NotImplementedError and ``allow_fallback_kernels`` is on, the CPU kernel runs on
   zero-filled inputs instead.

``mode.from_tensor(t)`` turns a real tensor into a FakeTensor with the same metadata (and
``requires_grad``), memoized per tensor (weakly: the memo does not keep ``t`` alive); a view becomes a
fake view of the fake of its base. Autograd works on fakes as on real tensors: grads come out fake.

Not supported here (torch has them): symbolic shapes (``shape_env``: ``.item()`` returning an unbacked
symbol, ``nonzero`` of size ``u0``), the dispatch cache, Python decompositions from ``torch._decomp``,
``propagate_real_tensors``, and devices other than cpu / meta.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dispatch import redispatch_bound
from ..keys import DispatchKey
from ..keyset import BACKEND_MASK, key_bits
from ..math_bits import VIEW_BITS
from ..modes.dispatch_mode import (
    TorchDispatchMode,
    TorchDispatchModeKey,
    _pop_mode,
    _push_mode,
    _unset_dispatch_mode,
    no_dispatch,
)
from ..modes.weak import WeakIdKeyDictionary
from ..ops.inplace_or_view import written_arguments
from ..tensor import Tensor, as_device, device
from ..tls import PRE_DISPATCH_RAW, PYTHON_MODE_KEYS_RAW, per_thread
from .exceptions import UnsupportedOperatorException
from .fake_tensor import FAKE_KEY_SETS, FakeTensor, make_fake, render_call

_META = device("meta")
_CPU = device("cpu")
#: the TLS change of ``in_kernel_invocation``: Meta included, Python dispatch (and PreDispatch) excluded
_META_RAW = key_bits(DispatchKey.Meta)
_NO_PYTHON_RAW = PYTHON_MODE_KEYS_RAW | PRE_DISPATCH_RAW
_NOT_BACKEND_SELECT = ~key_bits(DispatchKey.BackendSelect)
#: tensors with at most this many elements made by ``lift_fresh`` keep a real copy (torch's CONSTANT_NUMEL_LIMIT)
CONSTANT_NUMEL_LIMIT = 1
_CIA = DispatchKey.CompositeImplicitAutograd
_FAKE_CPU_KEYS = FAKE_KEY_SETS["cpu"]
_FAKE_TYPES = (FakeTensor,)


class _OpInfo:
    """What the mode needs to know about one op, worked out on its first call."""

    __slots__ = ("handler", "is_lift", "device_pos", "device_kw", "written_pos", "written_kw", "const_ok",
                 "inplace_view", "simple", "numbers_as_tensors")

    def __init__(self, op: Any) -> None:
        from .fake_impls import find_handler

        schema = op._schema
        self.handler = find_handler(op)
        self.is_lift = op.name() in ("aten::lift_fresh", "aten::lift_fresh_copy")
        #: ``_should_allow_numbers_as_tensors``: without fakes among its arguments, the op runs for real
        self.numbers_as_tensors = op.name().split("::")[1].split(".")[0] in _NUMBERS_AS_TENSORS
        self.device_pos: int | None = None
        self.device_kw: str | None = None
        positional = [a for a in schema.arguments if not a.kwarg_only]
        for a in schema.arguments:
            if a.name == "device" and str(a.type).startswith("Device"):
                if a.kwarg_only:
                    self.device_kw = a.name
                else:
                    self.device_pos = positional.index(a)
        self.written_pos, self.written_kw = written_arguments(schema)
        self.inplace_view = "inplace_view" in op.tags
        # constant propagation is off for random ops and for ops that change a tensor's metadata in place
        self.const_ok = "nondeterministic_seeded" not in op.tags and (
            not self.inplace_view or op.name() == "aten::detach_")
        #: no rule, no device argument, no tensor lists or keyword tensors: the mode's fast path may apply
        self.simple = (self.handler is None and not self.is_lift and self.device_pos is None
                       and self.device_kw is None and not op._has_extra_tensor_args)


#: the ops torch._C._should_allow_numbers_as_tensors names (Python numbers bind to their Tensor arguments)
_NUMBERS_AS_TENSORS = frozenset((
    "_to_copy", "add", "add_", "copy", "copy_", "div", "div_", "divide", "divide_", "floor_divide", "floor_divide_",
    "mul", "mul_", "multiply", "multiply_", "sub", "sub_", "subtract", "subtract_", "to", "true_divide",
    "true_divide_"))

_OP_INFO: dict[Any, _OpInfo] = {}


def _op_info(op: Any) -> _OpInfo:
    info = _OP_INFO.get(op)
    if info is None:
        info = _OP_INFO[op] = _OpInfo(op)
    return info


def _may_turn_const(t: Any) -> bool:
    return (type(t) is Tensor and t._data is not None and t.numel() <= CONSTANT_NUMEL_LIMIT)


class FakeTensorMode(TorchDispatchMode):
    """Compute with FakeTensors: shapes, strides and dtypes flow, no data is touched (module docstring)."""

    _mode_key = TorchDispatchModeKey.FAKE

    def __init__(self, *, allow_fallback_kernels: bool = True, allow_non_fake_inputs: bool = False,
                 shape_env: Any = None, static_shapes: bool | None = None, export: bool = False) -> None:
        super().__init__()
        if shape_env is not None:
            raise NotImplementedError("FakeTensorMode(shape_env=...): symbolic shapes are not supported by dispatchkit")
        self.allow_fallback_kernels = allow_fallback_kernels
        self.allow_non_fake_inputs = allow_non_fake_inputs
        self.shape_env = None
        self.static_shapes = True if static_shapes is None else static_shapes
        self.export = export
        #: True while a kernel runs on this mode's fakes: they report device meta then
        self.in_kernel_invocation = False
        #: (entered for real?, the fake mode it displaced) per ``__enter__``
        self.enter_stack: list[tuple[bool, Any]] = []
        #: real tensor -> its FakeTensor (``from_tensor``'s memo; the real tensor is held weakly)
        self.tensor_memo = WeakIdKeyDictionary()

    # --- entering (a no-op when this mode is already the active fake mode) -----------------------------------
    def __enter__(self) -> FakeTensorMode:
        previous = _unset_dispatch_mode(TorchDispatchModeKey.FAKE)
        if previous is self:
            _push_mode(self)
            self.enter_stack.append((False, None))
        else:
            self.enter_stack.append((True, previous))
            _push_mode(self)
        return self

    def __exit__(self, *exc: object) -> None:
        live, previous = self.enter_stack.pop()
        if live:
            _pop_mode(TorchDispatchModeKey.FAKE)
            if previous is not None:
                _push_mode(previous)

    @classmethod
    def is_infra_mode(cls) -> bool:
        return True

    def is_our_fake(self, t: Any) -> bool:
        return isinstance(t, FakeTensor) and t.fake_mode is self

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>"

    # --- real tensors -> fakes --------------------------------------------------------------------------------
    def from_tensor(self, tensor: Tensor, *, static_shapes: bool | None = None, source: Any = None,
                    symbolic_context: Any = None, trace: bool = True) -> FakeTensor:
        """The FakeTensor of ``tensor`` in this mode (memoized: the same tensor gives the same fake)."""
        if not isinstance(tensor, Tensor):
            raise TypeError(f"from_tensor expects a Tensor, got {type(tensor).__name__}")
        if isinstance(tensor, FakeTensor) and tensor.fake_mode is self:
            return tensor
        if type(tensor) is not Tensor and hasattr(tensor, "__tensor_flatten__") and not isinstance(tensor, FakeTensor):
            # a traceable wrapper subclass: the same subclass around fakes of its inner tensors
            # (torch's meta_utils rebuilds it with __tensor_unflatten__)
            from ..utils._python_dispatch import transform_subclass

            memo = self.tensor_memo.get(tensor)
            if memo is None:
                memo = self.tensor_memo[tensor] = transform_subclass(tensor, lambda _, inner: self.from_tensor(inner))
            return memo
        return self.from_real_tensor(tensor)

    def from_real_tensor(self, t: Tensor, make_constant: bool = False) -> FakeTensor:
        """``FakeTensorConverter.from_real_tensor``: a fake with ``t``'s metadata (memoized per tensor)."""
        memo = self.tensor_memo.get(t)
        if memo is not None:
            return memo
        base = None
        if t._base is not None:
            base = self.from_real_tensor(t._base)
        meta = Tensor._from_storage(None, t._shape, t._stride, t._storage_offset, t._dtype, _META, base)
        meta._key_set |= t._key_set & VIEW_BITS  # a conj / neg view, a zero tensor stays one (math_bits.py)
        fake_device = t._fake_device if isinstance(t, FakeTensor) else t._device
        fake = make_fake(meta, self, fake_device)
        if make_constant:
            fake.constant = t
        if t.requires_grad:
            _mirror_requires_grad(fake, t)
        self.tensor_memo[t] = fake
        return fake

    # --- the handler ------------------------------------------------------------------------------------------
    def __torch_dispatch__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        if types != _FAKE_TYPES:
            for t in types:
                if not issubclass(t, FakeTensor):
                    return NotImplemented
        if kwargs is None:
            kwargs = {}
        info = _OP_INFO.get(func)
        if info is None:
            info = _op_info(func)
        if info.simple:
            # The common case written out: the tensor arguments are positional, all our fakes without a constant,
            # and the op has no special rule and no CompositeImplicitAutograd kernel: straight to the Meta kernel
            # (step 7).
            first = None
            n = len(args)
            for i in func._tensor_positions:
                if i < n:
                    x = args[i]
                    if x.__class__ is FakeTensor and x.fake_mode is self and x.constant is None:
                        if first is None:
                            first = x
                    elif isinstance(x, Tensor):
                        break
            else:
                if first is not None and not func.kernels.get(_CIA) and _CIA not in func.py_kernels:
                    try:
                        r = self._run_meta(func, args, kwargs)
                    except NotImplementedError as e:
                        return self._no_meta_kernel(func, args, kwargs, e)
                    if r.__class__ is Tensor and r._data is None:
                        return make_fake(r, self, first._fake_device)
                    return self._wrap(r, first._fake_device)
        return self._dispatch(func, args, kwargs, info)

    def _dispatch(self, func: Any, args: tuple, kwargs: dict, info: _OpInfo) -> Any:
        """Every step of the module docstring, in order."""
        if info.is_lift:
            x = args[0]
            if not isinstance(x, FakeTensor):
                if _may_turn_const(x):
                    return self.from_real_tensor(_real_clone(x), make_constant=True)
                return self.from_real_tensor(x)

        if info.numbers_as_tensors and info.device_pos is None and info.device_kw is None and not any(
                isinstance(x, FakeTensor) for x in (*args, *kwargs.values())):
            # no fakes at all (a real one-element tensor, e.g. an optimizer's ``step``): run it for real, and a
            # one-element result becomes a constant fake (FakeTensorMode._dispatch_impl)
            with no_dispatch():
                out = func(*args, **kwargs)
            if out.__class__ is Tensor and _may_turn_const(out):
                with no_dispatch():
                    out = _real_clone(out)
                return self.from_real_tensor(out, make_constant=True)
        # Every tensor argument must be one of our fakes (step 3); note whether all carry constants.
        fakes: list[FakeTensor] = []
        args, kwargs = self._validate_args(func, args, kwargs, fakes)
        if fakes and info.const_ok:
            for f in fakes:
                if f.constant is None:
                    break
            else:
                out = self._constant_propagate(func, args, kwargs)
                if out is not NotImplemented:
                    return out
        if info.written_pos or info.written_kw:
            _invalidate_written_constants(info, args, kwargs)

        if func.kernels.get(_CIA) or _CIA in func.py_kernels:
            with self:
                r = func.decompose(*args, **kwargs)
            if r is not NotImplemented:
                return r
        if info.handler is not None:
            r = info.handler(self, func, args, kwargs)
            if r is not NotImplemented:
                return r

        # The Meta kernel (step 7).
        out_device = fakes[0]._fake_device if fakes else _CPU
        if info.device_kw is not None:
            requested = kwargs.get(info.device_kw)
            if requested is not None or not fakes:
                if requested is not None:
                    out_device = as_device(requested)
                kwargs = dict(kwargs)
                kwargs[info.device_kw] = _META
        elif info.device_pos is not None and info.device_pos < len(args) and args[info.device_pos] is not None:
            out_device = as_device(args[info.device_pos])
            args = args[:info.device_pos] + (_META,) + args[info.device_pos + 1:]
        try:
            r = self._run_meta(func, args, kwargs)
        except NotImplementedError as e:
            return self._no_meta_kernel(func, args, kwargs, e)
        return self._wrap(r, out_device)

    def can_run_unsafe_fallback(self, func: Any) -> bool:
        """The real-kernel fallback is for built-in (aten / prims) ops only, and only if allowed."""
        return self.allow_fallback_kernels and func.namespace in ("aten", "prims")

    def _no_meta_kernel(self, func: Any, args: tuple, kwargs: dict, error: NotImplementedError) -> Any:
        """The Meta kernel raised NotImplementedError (or there is none): the fallback, else UnsupportedOperator."""
        if not self.can_run_unsafe_fallback(func):
            raise UnsupportedOperatorException(func) from error
        # the real kernel's own error, if it raises, is what the call raises (torch's run_fallback_kernel does not
        # catch it: record_stream's fallback gives the CPU backend's "Could not run")
        return self._run_fallback_kernel(func, args, kwargs)

    def _validate_args(self, func: Any, args: tuple, kwargs: dict, fakes: list[FakeTensor]) -> tuple[tuple, dict]:
        """Collect the FakeTensor arguments into ``fakes``; real ones raise (or are converted, if allowed)."""
        converted = False
        n = len(args)
        for i in func._tensor_positions:
            if i < n:
                x = args[i]
                if x.__class__ is FakeTensor and x.fake_mode is self:
                    fakes.append(x)
                elif isinstance(x, Tensor):
                    converted = True
        if func._has_extra_tensor_args:
            for i in func._list_positions:
                if i < n and args[i] is not None:
                    for x in args[i]:
                        if x.__class__ is FakeTensor and x.fake_mode is self:
                            fakes.append(x)
                        elif isinstance(x, Tensor):
                            converted = True
            for name, is_list in func._kwarg_tensors:
                value = kwargs.get(name)
                for x in (value if is_list and value is not None else (value,)):
                    if x.__class__ is FakeTensor and x.fake_mode is self:
                        fakes.append(x)
                    elif isinstance(x, Tensor):
                        converted = True
        if not converted:
            return args, kwargs
        # Slow path: something is not one of our fakes (a real tensor, another mode's fake, a number in a Tensor
        # slot): check every argument again, converting where allowed.
        fakes.clear()

        def check(x: Any) -> Any:
            if not isinstance(x, Tensor):
                return x
            if self.is_our_fake(x):
                fakes.append(x)
                return x
            if "inplace_view" in func.tags:
                raise AssertionError("Can't call metadata mutating ops on non-Fake Tensor inputs. Found in "
                                     f"{render_call(func, args, kwargs)}")
            if not self.allow_non_fake_inputs:
                if isinstance(x, FakeTensor):
                    raise AssertionError(f"Mixing fake modes NYI x.fake_mode={x.fake_mode} vs self={self}")
                raise AssertionError("Please convert all Tensors to FakeTensors first or instantiate FakeTensorMode "
                                     f"with 'allow_non_fake_inputs'. Found in {render_call(func, args, kwargs)}")
            fake = self.from_real_tensor(x)
            fakes.append(fake)
            return fake

        def check_all(x: Any) -> Any:
            if isinstance(x, (list, tuple)):
                return type(x)(check(e) for e in x)
            return check(x)

        new_args = tuple(check_all(a) for a in args)
        return new_args, {k: check_all(v) for k, v in kwargs.items()}

    def _run_meta(self, func: Any, args: tuple, kwargs: dict) -> Any:
        """``in_kernel_invocation_manager``: the call with Meta included and Python dispatch excluded in TLS.

        The call's key set is what a fresh call would compute (the fakes' keys, here their CPU keys, |
        the TLS include set, - the exclude set), so the op is redispatched on it directly: the arguments
        are bound already. Meta is the highest backend bit, so the Meta kernel runs; calls the kernel
        makes see the same TLS. BackendSelect is left out of that key set: a factory's BackendSelect kernel
        would only pick the backend from ``device=``, which is ``meta`` here.
        """
        s = per_thread.s
        included, excluded, mask = s.included, s.excluded, s.exclude_mask
        previous = self.in_kernel_invocation
        self.in_kernel_invocation = True
        s.included = included | _META_RAW
        s.excluded = excluded | _NO_PYTHON_RAW
        s.exclude_mask = new_mask = ~(s.excluded & ~BACKEND_MASK)
        try:
            return redispatch_bound(func, (_FAKE_CPU_KEYS | s.included) & new_mask & _NOT_BACKEND_SELECT, args, kwargs)
        finally:
            self.in_kernel_invocation = previous
            s.included, s.excluded, s.exclude_mask = included, excluded, mask

    def _wrap(self, r: Any, out_device: device) -> Any:
        """Meta outputs become FakeTensors on ``out_device``; fakes (in-place results) are returned as they are."""
        cls = r.__class__
        if cls is Tensor:
            if r._data is None:
                return make_fake(r, self, out_device)
            return self.from_real_tensor(r, make_constant=_may_turn_const(r))
        if cls is tuple or cls is list:
            if len(r) > 1 and len({id(e) for e in r}) < len(r):  # one meta tensor returned twice: one fake for it
                seen: dict[int, Any] = {}
                return cls(seen[id(e)] if id(e) in seen else seen.setdefault(id(e), self._wrap(e, out_device))
                           for e in r)
            return cls(self._wrap(e, out_device) for e in r)
        return r

    def _constant_propagate(self, func: Any, args: tuple, kwargs: dict) -> Any:
        """Run ``func`` for real on the constants; one-element results become constant fakes (else NotImplemented)."""

        def const(x: Any) -> Any:
            if isinstance(x, FakeTensor):
                return x.constant
            if isinstance(x, (list, tuple)):
                return type(x)(const(e) for e in x)
            return x

        with no_dispatch():
            out = func(*const(args), **{k: const(v) for k, v in kwargs.items()})
        leaves = out if isinstance(out, (list, tuple)) else (out,)
        if not all(_may_turn_const(t) for t in leaves if isinstance(t, Tensor)):
            return NotImplemented

        def wrap(x: Any) -> Any:
            if isinstance(x, Tensor):
                return self.from_real_tensor(x, make_constant=True)
            if isinstance(x, (list, tuple)):
                return type(x)(wrap(e) for e in x)
            return x

        return wrap(out)

    def _run_fallback_kernel(self, func: Any, args: tuple, kwargs: dict) -> Any:
        """The real (CPU) kernel on zero-filled stand-ins of the fakes; outputs mapped back to fakes."""
        stand_ins: dict[int, FakeTensor] = {}

        def to_real(x: Any) -> Any:
            if isinstance(x, FakeTensor):
                size = 1 + sum((s - 1) * st for s, st in zip(x._shape, x._stride)) + x._storage_offset \
                    if all(x._shape) else 0
                real = Tensor._from_storage(np.zeros(size, dtype=x._dtype.np_dtype), x._shape, x._stride,
                                            x._storage_offset, x._dtype, _CPU)
                stand_ins[id(real)] = x
                return real
            if isinstance(x, (list, tuple)):
                return type(x)(to_real(e) for e in x)
            if isinstance(x, device) and x.type == "meta":
                return _CPU
            return x

        with no_dispatch():
            out = func(*to_real(args), **{k: to_real(v) for k, v in kwargs.items()})

        def back(x: Any) -> Any:
            if isinstance(x, Tensor):
                original = stand_ins.get(id(x))
                if original is not None:
                    return original
                if x._base is not None and id(x._base) in stand_ins:
                    raise UnsupportedOperatorException(func)
                meta = Tensor._from_storage(None, x._shape, x._stride, x._storage_offset, x._dtype, _META)
                return make_fake(meta, self, _CPU)
            if isinstance(x, (list, tuple)):
                return type(x)(back(e) for e in x)
            return x

        return back(out)


def _real_clone(t: Tensor) -> Tensor:
    """A real copy of ``t`` (same strides), made without dispatching."""
    copy = Tensor._empty(t._shape, t._dtype, _CPU, t._stride)
    if t._data is not None and copy._data.size:
        copy._data[...] = t._data
    return copy


def _invalidate_written_constants(info: _OpInfo, args: tuple, kwargs: dict) -> None:
    """An op that writes into a constant fake (and was not constant-propagated) makes its value unknown."""
    for i in info.written_pos:
        if i < len(args) and isinstance(args[i], FakeTensor) and args[i].constant is not None:
            args[i].constant = None
    for name in info.written_kw:
        x = kwargs.get(name)
        if isinstance(x, FakeTensor) and x.constant is not None:
            x.constant = None


def _mirror_requires_grad(fake: FakeTensor, real: Tensor) -> None:
    """A leaf stays a leaf that requires grad; a non-leaf gets torch's ``Error`` node (no backward through it)."""
    if real.grad_fn is None:
        if real._requires_grad:
            fake._requires_grad = True
        return
    from ..autograd.graph import node_class

    def refuse(node: Any, grads: list[Any]) -> Any:
        raise RuntimeError("Internal error: Tried to backward() through example input")

    fake._grad_fn = node_class("Error")((), refuse)
    fake._requires_grad = True


__all__ = ["CONSTANT_NUMEL_LIMIT", "FakeTensorMode"]
