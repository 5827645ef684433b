"""NumPy lowerings of the comparison and logical ops: eq, ne, lt, le, gt, ge, logical_not / and / or / xor, and
``where`` (selecting by a boolean condition).

Part of the numpy backend's lowering table (see lowering.py). PyTorch counterpart: the comparison / logical
lowerings of torch/_inductor/lowering.py.
"""

from __future__ import annotations

from typing import Any

from .lowering import Lowering, register, register_binary, register_unary

_BINARY = {  # overloads .Tensor and .Scalar
    "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
}
register_binary(_BINARY, ("Tensor", "Scalar"))
register_unary({"logical_not": "logical_not"})
register_binary({"logical_and": "logical_and", "logical_or": "logical_or", "logical_xor": "logical_xor"},
                ("default",))


@register("aten.where.self")
def _where(ctx: Any, a: dict) -> Lowering:
    return Lowering("fresh", f"np.where({ctx.v(a['condition'])}, {ctx.v(a['self'])}, {ctx.v(a['other'])})")
