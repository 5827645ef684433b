"""``shape_propagation(gm, *args)``: fill ``meta["val"]`` and ``meta["tensor_meta"]`` on every node, with fake tensors.

Corresponds to torch/fx/passes/shape_prop.py (``ShapeProp``, ``TensorMetadata``) run under a
``FakeTensorMode``, as torch's ``ShapeProp(gm, fake_mode=...)`` does: the graph is interpreted on
FakeTensors (real inputs and the module's tensor constants are converted), so every op runs its Meta
kernel and nothing is computed. Each node gets ``meta["val"]`` (a FakeTensor of its own with the
value's shape, strides and dtype; tuples for multi-output ops; Python values as they are) and
``meta["tensor_meta"]`` (a ``TensorMetadata``, or a list of them for multi-output ops). Called with no
arguments, the placeholders' existing ``meta["val"]`` are the inputs.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from dispatcher.fake import FakeTensor, FakeTensorMode
from dispatcher.fake.fake_tensor import make_fake
from dispatcher.memory_format import contiguous_format
from dispatcher.tensor import Tensor, device
from tracer import GraphModule, Node, pytree

from .interpreter import Interpreter

__all__ = ["ShapeProp", "TensorMetadata", "shape_propagation"]

_META = device("meta")


class TensorMetadata(NamedTuple):
    """torch.fx.passes.shape_prop.TensorMetadata: what a pass may want to know about a tensor value."""

    shape: tuple[int, ...]
    dtype: Any
    requires_grad: bool
    stride: tuple[int, ...]
    memory_format: Any  #: contiguous_format when contiguous, else None
    is_quantized: bool
    qparams: dict[str, Any]


def _tensor_metadata(t: Tensor) -> TensorMetadata:
    return TensorMetadata(tuple(t.shape), t.dtype, bool(t.requires_grad), tuple(t.stride()),
                          contiguous_format if t.is_contiguous() else None, False, {})


def fresh_fake(t: Tensor, fake_mode: FakeTensorMode) -> FakeTensor:
    """A new FakeTensor of ``fake_mode`` with ``t``'s shape, strides, offset, dtype and device (no aliasing)."""
    dev = t.fake_device if isinstance(t, FakeTensor) else t.device
    meta = Tensor._from_storage(None, t._shape, t._stride, t._storage_offset, t._dtype, _META)
    return make_fake(meta, fake_mode, dev)


class ShapeProp(Interpreter):
    """Interprets the graph on fake tensors and records each node's value metadata (module docstring)."""

    def __init__(self, gm: GraphModule, fake_mode: FakeTensorMode | None = None) -> None:
        super().__init__(gm)
        self.fake_mode = fake_mode if fake_mode is not None else FakeTensorMode(allow_non_fake_inputs=True)

    def _fake(self, value: Any) -> Any:
        if isinstance(value, Tensor) and not (isinstance(value, FakeTensor) and value.fake_mode is self.fake_mode):
            return self.fake_mode.from_tensor(value)
        return value

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Any:
        return self._fake(super().get_attr(target, args, kwargs))

    def run_node(self, n: Node) -> Any:
        result = super().run_node(n)
        if n.op != "output":
            n.meta["val"] = self._meta_val(result)
            tm = _map_tensors(result, _tensor_metadata)
            if tm is not None:
                n.meta["tensor_meta"] = tm
            else:
                n.meta.pop("tensor_meta", None)
        return result

    def _meta_val(self, value: Any) -> Any:
        if isinstance(value, Tensor):
            return fresh_fake(value, self.fake_mode)
        if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
            return type(value)(self._meta_val(v) for v in value)
        return value

    def propagate(self, *args: Any) -> Any:
        """Run on ``args`` (converted to fakes of this mode) under the fake mode; return the fake result."""
        fake_args = pytree.tree_map(self._fake, list(args))
        with self.fake_mode:
            return self.run(*fake_args)


def _map_tensors(value: Any, fn: Any) -> Any:
    """``fn`` of a tensor, a list of ``fn`` results for a sequence holding tensors, else None."""
    if isinstance(value, Tensor):
        return fn(value)
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
        return [fn(v) if isinstance(v, Tensor) else None for v in value]
    return None


def shape_propagation(gm: GraphModule, *args: Any, fake_mode: FakeTensorMode | None = None) -> GraphModule:
    """Fill ``meta["val"]`` / ``meta["tensor_meta"]`` on every node of ``gm`` from ``args`` (module docstring)."""
    if not isinstance(gm, GraphModule):
        raise TypeError(f"shape_propagation: expected a GraphModule, got {type(gm).__name__}")
    prop = ShapeProp(gm, fake_mode)
    if not args:
        placeholders = gm.graph.find_nodes(op="placeholder")
        missing = [p.name for p in placeholders if "val" not in p.meta]
        if missing:
            raise ValueError(f"shape_propagation: no example inputs given and placeholders {missing} have no "
                             'meta["val"]; pass example inputs (real or fake tensors)')
        flat = [p.meta["val"] for p in placeholders]
        info = gm.graph.pytree_info
        if info is not None and info.in_spec is not None:
            args = tuple(pytree.tree_unflatten(flat, info.in_spec))
        else:
            args = tuple(flat)
    prop.propagate(*args)
    return gm
