"""``MetaCheckMode``: check every op's real output against what its Meta kernel says.

A debugging mode in the spirit of torch's ``CrossRefFakeMode`` (torch/_subclasses/fake_utils.py) and
``DebugMode``: for each aten call it first runs the op on *meta* copies of the arguments (same shape,
strides, storage offset and dtype, no data; ``device=`` arguments turned into ``meta``), then runs the real
op, and compares the two results output by output: number of outputs, which are tensors, shape, dtype,
strides (where they matter: dims of size > 1 of non-empty tensors, as ``check_significant_strides``),
storage offset, and aliasing (is an output one of the inputs, does it view an input). A kernel author gets
the op named in the error::

    MetadataMismatchError: When comparing the output of aten.foo.default on Meta and concrete Tensors,
    found mismatched tensor metadata: Shapes torch.Size([2, 3]) and torch.Size([3, 2]) are not equal!

``MetaCheckMode(check_strides=True, check_aliasing=True, on_mismatch="raise", ignore_op_fn=None)``;
``on_mismatch="record"`` keeps going and appends each error to ``mode.mismatches``. A Meta kernel that
raises where the real one succeeds is a mismatch too. Ops whose output size or value depends on data
(tags ``data_dependent_output`` / ``dynamic_output_shape``: ``nonzero``, ``.item()``) and ``lift_fresh``
are not checked; ``mode.checked`` counts the calls that were. The meta run is made with dispatch modes off
(``no_dispatch``), so modes below this one see only the real call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..tensor import Tensor, device
from .dispatch_mode import TorchDispatchMode, no_dispatch

_META = device("meta")
_SKIP_TAGS = ("data_dependent_output", "dynamic_output_shape")
_SKIP_OPS = ("aten::lift_fresh", "aten::lift_fresh_copy")


class MetadataMismatchError(RuntimeError):
    """A kernel's result disagrees with its Meta kernel's (torch's name, from torch._subclasses.fake_tensor)."""

    def __init__(self, reason: str, func: Any = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.func = func


def _size_repr(shape: tuple[int, ...]) -> str:
    return f"torch.Size([{', '.join(str(s) for s in shape)}])"


def compare_tensor_meta(real: Tensor, meta: Tensor, check_strides: bool = True) -> str | None:
    """What differs between two tensors' metadata (torch's ``compare_tensor_meta`` wording), or None."""
    if tuple(real._shape) != tuple(meta._shape):
        return f"Shapes {_size_repr(real._shape)} and {_size_repr(meta._shape)} are not equal!"
    if real._dtype is not meta._dtype:
        return f"Dtypes {real._dtype!r} and {meta._dtype!r} are not equal!"
    if check_strides:
        if real.numel() > 0:
            for i, (a, b) in enumerate(zip(real._stride, meta._stride)):
                if a != b and real._shape[i] > 1:
                    return f"Stride mismatch! Strides are {real._stride} and {meta._stride} (mismatched at {i})!"
        if real._storage_offset != meta._storage_offset:
            return (f"Storage offset mismatch! Storage offsets are {real._storage_offset} and "
                    f"{meta._storage_offset}!")
    return None


def _leaves(x: Any) -> list[Any]:
    if isinstance(x, (list, tuple)):
        return [leaf for e in x for leaf in _leaves(e)]
    return [x]


def _root(t: Tensor) -> Tensor:
    return t._base if t._base is not None else t


class MetaCheckMode(TorchDispatchMode):
    """Run each op on meta copies too and compare the metadata (see the module docstring)."""

    def __init__(self, *, check_strides: bool = True, check_aliasing: bool = True, on_mismatch: str = "raise",
                 ignore_op_fn: Callable[[Any], bool] | None = None) -> None:
        super().__init__()
        if on_mismatch not in ("raise", "record"):
            raise ValueError(f"on_mismatch must be 'raise' or 'record', got {on_mismatch!r}")
        self.check_strides = check_strides
        self.check_aliasing = check_aliasing
        self.on_mismatch = on_mismatch
        self.ignore_op_fn = ignore_op_fn
        #: the errors seen with ``on_mismatch="record"``, oldest first
        self.mismatches: list[MetadataMismatchError] = []
        #: how many calls were compared
        self.checked = 0

    def _should_check(self, func: Any, types: tuple) -> bool:
        if types or func.name() in _SKIP_OPS or any(tag in func.tags for tag in _SKIP_TAGS):
            return False
        return self.ignore_op_fn is None or not self.ignore_op_fn(func)

    def __torch_dispatch__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        if not self._should_check(func, types):
            return func(*args, **kwargs)
        meta_inputs: dict[int, Tensor] = {}

        def to_meta(x: Any) -> Any:
            if isinstance(x, Tensor):
                m = meta_inputs.get(id(x))
                if m is None:
                    m = meta_inputs[id(x)] = Tensor._from_storage(None, x._shape, x._stride, x._storage_offset,
                                                                  x._dtype, _META)
                return m
            if isinstance(x, (list, tuple)):
                return type(x)(to_meta(e) for e in x)
            return x

        meta_args, meta_kwargs = to_meta(args), {k: to_meta(v) for k, v in kwargs.items()}
        if any(a.name == "device" for a in func._schema.arguments):
            meta_kwargs["device"] = _META
        meta_error: Exception | None = None
        meta_out: Any = None
        try:
            with no_dispatch():
                meta_out = func(*meta_args, **meta_kwargs)
        except Exception as e:  # noqa: BLE001 - reported below if the real kernel succeeds
            meta_error = e
        out = func(*args, **kwargs)
        self.checked += 1
        problem = self._compare(out, meta_out, meta_error, args, kwargs, meta_inputs)
        if problem is not None:
            error = MetadataMismatchError(
                f"When comparing the output of {func} on Meta and concrete Tensors, found {problem}", func)
            if self.on_mismatch == "raise":
                raise error
            self.mismatches.append(error)
        return out

    def _compare(self, out: Any, meta_out: Any, meta_error: Exception | None, args: tuple, kwargs: dict,
                 meta_inputs: dict[int, Tensor]) -> str | None:
        if meta_error is not None:
            return f"that the Meta kernel raised {type(meta_error).__name__}: {meta_error}"
        real_flat, meta_flat = _leaves(out), _leaves(meta_out)
        if len(real_flat) != len(meta_flat):
            return f"mismatch in number of returns {len(meta_flat)} != {len(real_flat)}"
        inputs = [t for t in _leaves((list(args), list(kwargs.values()))) if isinstance(t, Tensor)]
        for i, (r, m) in enumerate(zip(real_flat, meta_flat)):
            where = f" for output[{i}]" if len(real_flat) > 1 else ""
            if isinstance(r, Tensor) != isinstance(m, Tensor):
                return "mismatched number of tensor outputs"
            if not isinstance(r, Tensor):
                continue
            detail = compare_tensor_meta(r, m, self.check_strides)
            if detail is None and self.check_aliasing:
                detail = self._alias_detail(r, m, inputs, meta_inputs)
            if detail is not None:
                return f"mismatched tensor metadata{where}: {detail}"
        return None

    @staticmethod
    def _alias_detail(r: Tensor, m: Tensor, inputs: list[Tensor], meta_inputs: dict[int, Tensor]) -> str | None:
        pairs = [(x, meta_inputs[id(x)]) for x in inputs if id(x) in meta_inputs]
        real_is = any(r is x for x, _ in pairs)
        meta_is = any(m is mx for _, mx in pairs)
        if real_is != meta_is:
            return f"mismatch in outputs_are_inputs check {meta_is} != {real_is}"
        real_views = any(_root(r) is _root(x) for x, _ in pairs)
        meta_views = any(_root(m) is _root(mx) or _root(m) is mx for _, mx in pairs)
        if real_views != meta_views:
            return f"mismatch in outputs_alias_inputs check {meta_views} != {real_views}"
        return None


__all__ = ["MetaCheckMode", "MetadataMismatchError", "compare_tensor_meta"]
