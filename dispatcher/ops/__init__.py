"""``dispatcher.ops``: operator namespaces (``ops.aten.add.Tensor``) and the aten op library.

Attribute access on this package gives an op namespace (``ops.aten``,
``ops.mylib``), as ``torch.ops`` does. The modules of the package hold the aten
library: ``native_functions.py`` (the listing), the kernel modules and
``registration.py``; a name that is one of those modules gives the module, so
no kernel module may be named like an op namespace.
"""

from __future__ import annotations

import importlib
import importlib.util

from ..op_overload import namespace as _namespace


def __getattr__(name: str):  # noqa: ANN202 - module attribute hook
    if name.startswith("__"):
        raise AttributeError(name)
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    ns = globals()[name] = _namespace(name)  # cached: the module search above is slow (~30 us)
    return ns
