"""make_fx defers to tensor subclasses it does not know (torch's ``proxy_call``: ``can_handle_tensor``).

The proxy mode handles plain tensors, Parameters and FakeTensors, and any tensor it tracks. An op with an untracked
argument of another Tensor subclass (a wrapper made inside the traced function) is declined with NotImplemented:
the subclass's ``__torch_dispatch__`` runs next, unwraps, and calls the op again on what it holds, which the mode
then records. Before, the wrapper was baked as a ``_tensor_constant`` and its op recorded on it. Before dispatch
there is no subclass handler at the mode's key: torch fails with "Unable to cast NotImplemented to Tensor".
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C
from tracer import make_fx
from tracer import pytree as our_pytree


def _subclasses(T: Any, tree_map: Any) -> tuple[type, type]:
    class Unwrapping(T.Tensor):
        """Unwraps its argument and returns plain tensors."""

        @staticmethod
        def __new__(cls, elem):
            return T.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype)

        def __init__(self, elem):
            self.elem = elem

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            unwrap = lambda x: x.elem if isinstance(x, Unwrapping) else x  # noqa: E731
            return func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {}))

    class Rewrapping(T.Tensor):
        """Unwraps, runs the op, wraps the tensor results again."""

        @staticmethod
        def __new__(cls, elem):
            return T.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype, strides=elem.stride())

        def __init__(self, elem):
            self.elem = elem

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            unwrap = lambda x: x.elem if isinstance(x, Rewrapping) else x  # noqa: E731
            out = func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {}))
            return tree_map(lambda x: Rewrapping(x) if isinstance(x, T.Tensor) else x, out)

    return Unwrapping, Rewrapping


#: name -> program of (T, Unwrapping, Rewrapping, x, y)
PROGRAMS = {
    "unwrap_cos_mul": lambda T, U, R, x, y: U(x).cos() * 2,  # the issue's case: [cos, mul]
    "wrapper_and_tracked_tensor": lambda T, U, R, x, y: U(x) + y,
    "wrapper_in_a_tensor_list": lambda T, U, R, x, y: T.cat([U(x), y]),
    "rewrapped_chain": lambda T, U, R, x, y: (R(x).sin() + y).elem * 3,
    "wrapper_of_a_computed_tensor": lambda T, U, R, x, y: R(x * y).exp().elem,
    "wrapper_of_a_factory": lambda T, U, R, x, y: U(T.ones(3)).mul(x),
}


def _program(T: Any, name: str) -> Any:
    if T is D:
        tree_map = our_pytree.tree_map
    else:
        from torch.utils._pytree import tree_map
    u, r = _subclasses(T, tree_map)
    fn = PROGRAMS[name]
    return lambda x, y: fn(T, u, r, x, y)


@pytest.mark.parametrize("mode", ["real", "fake"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_unknown_subclass_is_traced_through(torch: Any, name: str, mode: str) -> None:
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    arrays = C.arrays([(3,), (3,)], 0)
    gm_t = torch_make_fx(_program(torch, name), tracing_mode=mode)(*C.inputs(torch, arrays, ()))
    gm_o = make_fx(_program(D, name), tracing_mode=mode)(*C.inputs(D, arrays, ()))
    ops = lambda gm: [str(n.target) for n in gm.graph.nodes if n.op in ("call_function", "get_attr")]  # noqa: E731
    assert ops(gm_o) == ops(gm_t)
    assert not any(n.op == "get_attr" for n in gm_o.graph.nodes)
    gm_o.graph.lint()
    fresh = C.arrays([(3,), (3,)], 1)
    expected = _program(D, name)(*C.inputs(D, fresh, ()))
    np.testing.assert_allclose(gm_o(*C.inputs(D, fresh, ())).numpy(), expected.numpy(), rtol=1e-6)
    np.testing.assert_allclose(_program(torch, name)(*C.inputs(torch, fresh, ())).numpy(), expected.numpy(),
                               rtol=1e-6)


def test_the_issue_case_records_cos_then_mul() -> None:
    gm = make_fx(_program(D, "unwrap_cos_mul"))(D.randn(3), D.randn(3))
    assert C.targets(gm) == ["aten.cos.default", "aten.mul.Tensor"]


def test_before_dispatch_the_declined_op_fails_as_in_torch(torch: Any) -> None:
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    for lib, trace in ((torch, torch_make_fx), (D, make_fx)):
        with pytest.raises(RuntimeError, match="Unable to cast NotImplemented to Tensor"):
            trace(_program(lib, "unwrap_cos_mul"), pre_dispatch=True)(lib.randn(3), lib.randn(3))


def test_tracked_and_handled_types_are_still_recorded() -> None:
    """Plain tensors, Parameters and fake tensors are handled untracked (baked as constants), as in torch."""
    p = D.nn.Parameter(D.randn(3))
    c = D.randn(3)
    gm = make_fx(lambda x: x * p + c)(D.randn(3))
    assert [n.target for n in gm.graph.nodes if n.op == "get_attr"] == ["_param_constant0", "_tensor_constant0"]
