"""The CompositeImplicitAutograd aliases of arithmetic ops: ``clip`` (-> ``clamp``), ``divide`` / ``true_divide``
(-> ``div``), ``multiply`` (-> ``mul``), ``subtract`` (-> ``sub``), and their in-place forms.

Corresponds to the one-line alias kernels of aten/src/ATen/native/BinaryOps.cpp (``divide``, ``true_divide``,
``multiply``, ``subtract``) and TensorCompare.cpp (``clip``). The Tensor methods and torch functions of these names
call these ops (as torch's bindings do), so a pre-dispatch trace keeps ``aten.divide.Tensor`` whole while autograd,
modes below it and post-dispatch tracing see the ``div`` it forwards to. (``divide.Scalar_mode``,
``divide_.Tensor_mode`` / ``.Scalar_mode`` and ``subtract_.Scalar`` are with their targets in arithmetic_overloads.py.)
Also ``div.out`` (the out= form of ``div``, as ``maximum.out``: an ``out`` of the result's shape).
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .composite import _op
from .kernel_registry import impl


def _alias(name: str, target: str) -> Any:
    """Register ``name``'s CIA kernel: call ``target`` with the same arguments."""

    def kernel(*args: Any, **kwargs: Any) -> Tensor:
        return _op(target)(*args, **kwargs)

    kernel.__name__ = name.replace(".", "_")
    kernel.__doc__ = f"``aten.{name}``: ``aten.{target}`` with the same arguments."
    return impl(name, "CompositeImplicitAutograd")(kernel)


#: alias op -> the op its CIA kernel calls
ALIASES = {
    "clip": "clamp", "clip.Tensor": "clamp.Tensor", "clip_": "clamp_", "clip_.Tensor": "clamp_.Tensor",
    "divide.Tensor": "div.Tensor", "divide.Scalar": "div.Scalar", "divide.Tensor_mode": "div.Tensor_mode",
    "divide_.Tensor": "div_.Tensor", "divide_.Scalar": "div_.Scalar",
    "true_divide.Tensor": "div.Tensor", "true_divide.Scalar": "div.Scalar",
    "true_divide_.Tensor": "div_.Tensor", "true_divide_.Scalar": "div_.Scalar",
    "multiply.Tensor": "mul.Tensor", "multiply.Scalar": "mul.Scalar",
    "multiply_.Tensor": "mul_.Tensor", "multiply_.Scalar": "mul_.Scalar",
    "subtract.Tensor": "sub.Tensor", "subtract.Scalar": "sub.Scalar", "subtract_.Tensor": "sub_.Tensor",
}
for _name, _target in ALIASES.items():
    _alias(_name, _target)
del _name, _target


# --- issue 20: div.out (F.normalize(out=...), the spectral norm's power iteration) ------------------------------------
@impl("div.out", "CPU", "Meta")
def div_out(self: Any, other: Any, *, out: Any) -> Any:
    """``div`` written into ``out`` (an ``out`` of the result's shape; resizing ``out`` is not supported)."""
    from .arithmetic import div_tensor
    from .tensor_iterator import _store

    result = div_tensor(self, other)
    if tuple(out._shape) != tuple(result._shape):
        raise NotImplementedError("div(out=...): an out tensor of another shape than the result (resized by "
                                  "PyTorch) is not supported by dispatchkit")
    return _store(out, result)
