"""ADInplaceOrView kernels: version-counter bumps for in-place ops.

Corresponds to the generated torch/csrc/autograd/generated/ADInplaceOrViewType*.cpp.
ADInplaceOrView is a fallthrough for most ops; an op that writes to an argument
(its schema marks it ``(a!)``) gets a kernel here that runs the op below this key
and then bumps the version counter of every tensor it wrote, so autograd can
tell when a saved tensor was modified. (View ops also get work at this key in
PyTorch, for autograd's view tracking; that comes with autograd.)
"""

from __future__ import annotations

from typing import Any

from ..dispatch import redispatch_excluding
from ..keys import DispatchKey
from ..keyset import DispatchKeySet, full_after_bits, key_bits

_AFTER_RAW = full_after_bits(DispatchKey.ADInplaceOrView)
_ADIOV = key_bits(DispatchKey.ADInplaceOrView)


def redispatch_below_adinplaceorview(op: Any, ks: DispatchKeySet | int, args: tuple, kwargs: dict) -> Any:
    """Run ``op`` below this key with ADInplaceOrView TLS-excluded meanwhile (AutoDispatchBelowADInplaceOrView)."""
    raw = ks if isinstance(ks, int) else ks.raw_repr()
    return redispatch_excluding(op, raw, _AFTER_RAW, _ADIOV, args, kwargs)


def written_arguments(schema: Any) -> tuple[list[int], list[str]]:
    """Positions and keyword names of the arguments the schema says are written."""
    positions, names = [], []
    index = 0
    for arg in schema.arguments:
        writes = arg.alias_info is not None and arg.alias_info.is_write
        if arg.kwarg_only:
            if writes:
                names.append(arg.name)
        else:
            if writes:
                positions.append(index)
            index += 1
    return positions, names


def _bump(written: Any) -> None:
    """Bump the version of a written tensor, or of each tensor of a written list (``Tensor(a!)[]``)."""
    if isinstance(written, (list, tuple)):
        for t in written:
            t._version_counter.version += 1
    else:
        written._version_counter.version += 1


def make_inplace_kernel(op: Any) -> Any:
    """The ADInplaceOrView kernel of one mutating op."""
    positions, names = written_arguments(op._schema)

    def kernel(ks: DispatchKeySet, *args: Any, **kwargs: Any) -> Any:
        result = redispatch_below_adinplaceorview(op, ks, args, kwargs)
        for i in positions:
            if i < len(args):
                _bump(args[i])
        for name in names:
            if kwargs.get(name) is not None:
                _bump(kwargs[name])
        return result

    kernel.__name__ = kernel.__qualname__ = f"{op._opname}_ADInplaceOrView"
    return kernel
