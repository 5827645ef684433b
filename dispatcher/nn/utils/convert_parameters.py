"""``parameters_to_vector`` / ``vector_to_parameters``: a model's parameters as one flat vector and back.

Corresponds to torch/nn/utils/convert_parameters.py: ``cat`` of each parameter's ``view(-1)``; the way back sets
each parameter's ``.data`` to a slice of the vector viewed as the parameter (so the parameters share the vector's
memory afterwards, as in PyTorch).
"""

from __future__ import annotations

from collections.abc import Iterable

from ...tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param: Tensor, old_param_device: int | None) -> int:
    """-1 for the CPU (the only device with storage here); mixing devices is refused as PyTorch refuses it."""
    if old_param_device is None:
        return -1
    if param.device.type != "cpu" and old_param_device == -1:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return old_param_device


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """Flatten the parameters into one vector (``cat`` of their ``view(-1)``)."""
    from ... import cat

    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.view(-1))
    return cat(vec)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into the parameters (their ``.data`` becomes a view of ``vec``)."""
    if not isinstance(vec, Tensor):
        from ..module import typename

        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param
