"""``nn.utils.parametrizations``: ``weight_norm`` and ``spectral_norm`` as parametrizations.

Corresponds to torch/nn/utils/parametrizations.py. ``weight_norm(module)`` registers ``_WeightNorm(dim)`` (unsafe: its
``right_inverse`` splits the weight into ``original0`` = g, the norms ``norm_except_dim(w, 2, dim)``, and
``original1`` = v), computed by ``torch._weight_norm(v, g, dim)``; ``spectral_norm(module)`` registers
``_SpectralNorm``: buffers ``_u`` / ``_v`` (normalized normal draws, refined by 15 power iterations at creation and
``n_power_iterations`` per forward in training), the weight divided by ``vdot(u, mv(W, v))``. State dict keys are
PyTorch's (``parametrizations.weight.original0`` / ``original1``; ``parametrizations.weight.original``,
``parametrizations.weight.0._u`` / ``_v``; the power method writes them with ``F.normalize(..., out=)``, ``div.out``).
Not reproduced: ``orthogonal`` and the old-checkpoint load hook of ``weight_norm`` (``weight_g`` / ``weight_v``).
"""

from __future__ import annotations

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from .. import functional as F
from ..module import Module
from . import parametrize

__all__ = ["spectral_norm", "weight_norm"]


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        from ... import _weight_norm

        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        from ... import norm_except_dim

        weight_g = norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (magnitude ``original0``, direction ``original1``)."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if weight.ndim <= 1:
            raise AssertionError(f"Expected weight to have more than 1 dimension, got {weight.ndim}")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        from ... import mv

        with no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(mv(weight_mat, self._v), dim=0, eps=self.eps, out=self._u)
                self._v = F.normalize(mv(weight_mat.H, self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight: Tensor) -> Tensor:
        from ... import contiguous_format, mv, vdot

        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone(memory_format=contiguous_format)
        v = self._v.clone(memory_format=contiguous_format)
        sigma = vdot(u, mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """Divide ``module.<name>`` by its largest singular value, estimated by power iteration."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if type(module).__name__ in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d") else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
