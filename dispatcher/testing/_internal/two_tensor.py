"""``TwoTensor``: a traceable wrapper subclass holding two tensors and running every op on both.

Corresponds to torch/testing/_internal/two_tensor.py (the subclass PyTorch's tests use for traceable
subclasses). ``TwoTensor(a, b)`` has ``a``'s metadata and no storage of its own; its ``__torch_dispatch__``
runs the op once on the ``a`` sides and once on the ``b`` sides of its arguments and wraps each pair of
tensor results in a new ``TwoTensor`` (``return_and_correct_aliasing`` gives back the mutated argument for
in-place ops). ``__tensor_flatten__`` / ``__tensor_unflatten__`` make it traceable: make_fx records the ops
run on ``a`` and ``b``, and ``FakeTensorMode.from_tensor`` gives a ``TwoTensor`` of two fake tensors.
``TwoTensorMode`` turns every tensor a factory makes into ``TwoTensor(out, out.clone())``.
"""

from __future__ import annotations

from typing import Any

from ...modes.dispatch_mode import TorchDispatchMode
from ...modes.logging_tensor import tree_map
from ...tensor import Tensor
from ...utils._python_dispatch import return_and_correct_aliasing


def _pair_map(fn: Any, x: Any, y: Any) -> Any:
    """``fn(leaf_x, leaf_y)`` over two results of the same structure (lists, tuples)."""
    if x.__class__ in (list, tuple):
        return x.__class__(_pair_map(fn, a, b) for a, b in zip(x, y, strict=True))
    return fn(x, y)


class TwoTensor(Tensor):
    """Two tensors of one shape, dtype and device, treated as one; every op runs on both."""

    @staticmethod
    def __new__(cls, a: Tensor, b: Tensor, outer_size: Any = None, outer_stride: Any = None, *,
                requires_grad: bool | None = None) -> TwoTensor:
        if outer_size is None:
            outer_size = a.size()
        if outer_stride is None:
            outer_stride = a.stride()
        if not (a.device == b.device and a.layout == b.layout and a.requires_grad == b.requires_grad
                and a.dtype == b.dtype):
            raise AssertionError("Expected a and b to have same device, layout, requires_grad, and dtype")
        out = Tensor._make_wrapper_subclass(cls, outer_size, strides=outer_stride,
                                            storage_offset=a.storage_offset(), device=a.device, layout=a.layout,
                                            requires_grad=requires_grad or a.requires_grad, dtype=a.dtype)
        if a.shape != b.shape:
            raise AssertionError(f"Expected a.shape == b.shape, got {a.shape} != {b.shape}")
        if a.stride() != b.stride():
            raise AssertionError(f"Expected a.stride() == b.stride(), got {a.stride()} != {b.stride()}")
        if a.storage_offset() != b.storage_offset():
            raise AssertionError(f"Expected a.storage_offset() == b.storage_offset(), got {a.storage_offset()} != "
                                 f"{b.storage_offset()}")
        return out

    def __init__(self, a: Tensor, b: Tensor, outer_size: Any = None, outer_stride: Any = None, *,
                 requires_grad: bool | None = None) -> None:
        self.a = a
        self.b = b

    def __repr__(self) -> str:
        return f"TwoTensor({self.a!r}, {self.b!r})"

    def __tensor_flatten__(self) -> tuple[list[str], None]:
        return ["a", "b"], None

    @staticmethod
    def __tensor_unflatten__(inner_tensors: dict, meta: Any, outer_size: Any, outer_stride: Any) -> TwoTensor:
        if meta is not None:
            raise AssertionError("Expected meta to be None")
        a, b = inner_tensors["a"], inner_tensors["b"]
        if type(a) is Tensor:
            if outer_size is None:
                raise AssertionError("Expected outer_size to not be None")
            if outer_stride is None:
                raise AssertionError("Expected outer_stride to not be None")
        return TwoTensor(a, b, outer_size, outer_stride)

    @classmethod
    def __torch_dispatch__(cls, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        if kwargs is None:
            kwargs = {}
        args_a = tree_map(lambda x: x.a if isinstance(x, TwoTensor) else x, args)
        args_b = tree_map(lambda x: x.b if isinstance(x, TwoTensor) else x, args)
        kwargs_a = tree_map(lambda x: x.a if isinstance(x, TwoTensor) else x, kwargs)
        kwargs_b = tree_map(lambda x: x.b if isinstance(x, TwoTensor) else x, kwargs)
        out_a = func(*args_a, **kwargs_a)
        out_b = func(*args_b, **kwargs_b)
        # an op returning non-tensors: both sides are assumed to give the same value
        out = _pair_map(lambda x, y: cls(x, y) if isinstance(x, Tensor) else x, out_a, out_b)
        return return_and_correct_aliasing(func, args, kwargs, out)

    def get_elem_a(self) -> Tensor:
        return self.a


class TwoTensorMode(TorchDispatchMode):
    """Every tensor made by a factory op becomes ``TwoTensor(out, out.clone())``."""

    def __torch_dispatch__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        out = func(*args, **(kwargs or {}))
        if _is_tensor_constructor(func):
            out = TwoTensor(out, out.clone())
        return out


def _is_tensor_constructor(func: Any) -> bool:
    """``fake_tensor._is_tensor_constructor``: no Tensor argument and a Tensor result."""
    schema = func._schema
    return (not any(a.kind == "tensor" for a in schema.arguments) and len(schema.returns) == 1
            and schema.returns[0].kind == "tensor")


__all__ = ["TwoTensor", "TwoTensorMode"]
