"""NumPy lowerings of the bitwise ops: bitwise_not, bitwise_and, bitwise_or, bitwise_xor (one ufunc each).

Part of the numpy backend's lowering table (see lowering.py). PyTorch counterpart: the bitwise lowerings of
torch/_inductor/lowering.py.
"""

from __future__ import annotations

from .lowering import register_binary, register_unary

register_unary({"bitwise_not": "invert"})
register_binary({"bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor"},
                ("Tensor", "Scalar"))
