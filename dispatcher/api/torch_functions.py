"""The torch-level functions, gathered: ``dispatcher.add``, ``dispatcher.zeros``, ``dispatcher.cat`` ...

Corresponds to torch/_C/_VariableFunctions (the namespace python_torch_functions.cpp fills) together with the
functions torch/__init__.py takes from torch/functional.py. Each family module's ``__all__`` is gathered here;
dispatcher/__init__.py copies them into the package namespace and wraps them for ``__torch_function__``.
Like torch's builtins they say they are of the ``dispatcher`` (torch) module, so graphs print and name them
``torch.<name>``. (The functions here are the unwrapped ones: code of the package that calls them does not go
through ``__torch_function__``.)
"""

from __future__ import annotations

from . import (
    activations,
    arithmetic,
    arithmetic_clamp,
    bitwise,
    comparison,
    complex,
    conversions,
    convolution,
    dropout,
    embedding,
    factories,
    foreach,
    from_data,
    indexing,
    linalg,
    losses,
    normalization,
    pooling,
    random,
    recurrent,
    reductions,
    resizing,
    shape,
    tensor_info,
    testing_ops,
    transcendental,
    views,
)

_MODULES = (from_data, factories, random, arithmetic, arithmetic_clamp, transcendental, comparison, bitwise, reductions,
            views, shape, indexing, conversions, linalg, activations, normalization, convolution, pooling, tensor_info,
            dropout, losses, embedding, foreach, recurrent)
_MODULES += (resizing,)
_MODULES += (complex,)
_MODULES += (testing_ops,)

__all__: list[str] = []
for _module in _MODULES:
    for _name in _module.__all__:
        _fn = getattr(_module, _name)
        if _fn.__module__.startswith(f"{__package__}."):
            _fn.__module__ = "dispatcher"
        globals()[_name] = _fn
    __all__ += _module.__all__
del _module, _name, _fn
