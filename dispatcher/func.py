"""``functional_call``: call a module with some of its parameters and buffers replaced for the call.

Corresponds to torch/_functorch/functional_call.py (``torch.func.functional_call``) and
torch/nn/utils/stateless.py (``_reparametrize_module``): each name ``"a.b.w"`` in the dictionaries is swapped
into submodule ``a.b`` (in its ``_parameters`` or ``_buffers`` entry, or as a plain attribute), the module runs,
and the originals are put back, also when the call raises. The values may be any tensors (a traced or fake one
too: make_fx traces through it). Not supported here: ``tie_weights`` for tied names given once (a name tied to
another must be given itself).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["functional_call"]

_MISSING = object()


def functional_call(module: Any, parameter_and_buffer_dicts: Mapping[str, Any] | Sequence[Mapping[str, Any]],
                    args: Any = None, kwargs: dict[str, Any] | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` in place of its own."""
    if isinstance(parameter_and_buffer_dicts, Mapping):
        values = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        values = {}
        for d in parameter_and_buffer_dicts:
            seen = set(values) & set(d)
            if seen:
                raise ValueError(f"{sorted(seen)} appeared in multiple dictionaries; behavior of functional call is "
                                 "ambiguous")
            values.update(d)
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    if strict:
        own = {n for n, _ in module.named_parameters()} | {n for n, _ in module.named_buffers()}
        missing, unexpected = sorted(own - set(values)), sorted(set(values) - own)
        if missing or unexpected:
            parts = []
            if unexpected:
                parts.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
            if missing:
                parts.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(parts))
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    saved = []
    try:
        for name, value in values.items():
            prefix, _, attr = name.rpartition(".")
            owner = module.get_submodule(prefix) if prefix else module
            saved.append((owner, attr, _swap(owner, attr, value)))
        return module(*args, **kwargs)
    finally:
        for owner, attr, old in reversed(saved):
            _swap(owner, attr, old)


def _swap(owner: Any, attr: str, value: Any) -> Any:
    """Put ``value`` at ``owner.attr`` (its parameter / buffer slot when it has one); return what was there."""
    for slots in (owner._parameters, owner._buffers):
        if attr in slots:
            old = slots[attr]
            slots[attr] = value
            return old
    old = owner.__dict__.get(attr, _MISSING)
    if value is _MISSING:
        delattr(owner, attr)
    else:
        object.__setattr__(owner, attr, value)
    return old
