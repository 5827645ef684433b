"""The Tensor method table: attaches every family's Tensor methods, operators and properties to ``Tensor``.

Corresponds to the method table of python_variable_methods.cpp (``variable_methods[]``) together with the
Python-level methods of torch/_tensor.py. The methods themselves live in the family modules of this package
(``Tensor.add`` / ``__add__`` / ``add_`` in ``arithmetic.py``, ``Tensor.sum`` in ``reductions.py`` ...), each
of which attaches its own in ``install``; the methods defined on the class itself (``size``, ``dim``,
``shape``, ...) are in dispatcher/tensor.py. Every binding calls the aten overload PyTorch's binding calls
(checked op for op against torch under a logging TorchDispatchMode in tests/test_frontend.py), so modes and
tracers see the same calls.
"""

from __future__ import annotations

from ..tensor import Tensor
from . import (
    activations,
    arithmetic,
    arithmetic_clamp,
    autograd_methods,
    bitwise,
    comparison,
    complex,
    conversions,
    factories,
    indexing,
    interop,
    linalg,
    random,
    reductions,
    shape,
    storage,
    streams,
    subscripts,
    transcendental,
    views,
)

_MODULES = (arithmetic, arithmetic_clamp, transcendental, comparison, bitwise, reductions, views, shape, indexing,
            factories, conversions, random, linalg, activations, subscripts, interop, autograd_methods,
            storage)
_MODULES += (complex,)
_MODULES += (streams,)  # wt-stream: Tensor.record_stream


#: Tensor attribute -> name of the module whose ``install`` attached it (``dispatchkit where`` reads it: many
#: methods are made by binding factories from tables of names, so their ``def`` does not say where they live)
INSTALLED_BY: dict[str, str] = {}


def install() -> None:
    """Attach the methods and operators to Tensor (called once at import)."""
    for module in _MODULES:
        before = dict(Tensor.__dict__)
        module.install(Tensor)
        for name, value in Tensor.__dict__.items():
            if before.get(name) is not value:
                INSTALLED_BY[name] = module.__name__
