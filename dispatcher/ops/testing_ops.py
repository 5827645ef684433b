"""ATen's test operators: ops that exist only so PyTorch's own tests can exercise the dispatcher's argument handling.

Corresponds to the test ops of aten/src/ATen/native/native_functions.yaml (``_foobar``) and their CPU kernels in
aten/src/ATen/native/TensorProperties.cpp. ``_foobar`` has positional defaults and a keyword-only default, so a
``__torch_dispatch__`` log shows which arguments a call passed (defaults are left out, even when passed by keyword).
Its CPU kernel returns ``self`` itself (the same tensor, not a copy); it has no Meta kernel and no derivative formula.
"""

from __future__ import annotations

from ..tensor import Tensor
from .kernel_registry import impl


@impl("_foobar", "CPU")
def _foobar(self: Tensor, arg1: bool = True, arg2: bool = True, *, arg3: bool = True) -> Tensor:
    """``aten::_foobar``: ``self`` unchanged, whatever the flags (TensorProperties.cpp)."""
    return self
