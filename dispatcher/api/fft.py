"""``torch.fft``: the torch-level FFT functions (``fft`` / ``ifft`` / ``rfft`` / ``irfft`` / ``hfft`` / ``ihfft``,
their ``2`` / ``n`` forms, ``fftshift`` / ``ifftshift``, ``fftfreq`` / ``rfftfreq``).

Corresponds to torch/fft/__init__.py (whose functions are the generated ``torch._C._fft`` bindings,
python_fft_functions.cpp): each calls its ``aten.fft_*`` op with the arguments given. ``out=`` is not
supported here (there are no out= overloads in dispatchkit).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..op_overload import namespace
from ..tensor import Tensor

aten = namespace("aten")

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
           "rfftn", "irfftn", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftshift", "ifftshift", "fftfreq", "rfftfreq"]

_Dims = int | Sequence[int] | None


def _no_out(name: str, out: Any) -> None:
    if out is not None:
        raise NotImplementedError(f"torch.fft.{name}: out= is not supported in dispatchkit (no out= overloads)")


def _listed(v: Any) -> Any:
    return [v] if isinstance(v, int) else v


def fft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.fft``."""
    _no_out("fft", out)
    return aten.fft_fft.default(input, n, dim, norm)


def ifft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.ifft``."""
    _no_out("ifft", out)
    return aten.fft_ifft.default(input, n, dim, norm)


def rfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.rfft``."""
    _no_out("rfft", out)
    return aten.fft_rfft.default(input, n, dim, norm)


def irfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.irfft``."""
    _no_out("irfft", out)
    return aten.fft_irfft.default(input, n, dim, norm)


def hfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.hfft``."""
    _no_out("hfft", out)
    return aten.fft_hfft.default(input, n, dim, norm)


def ihfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.ihfft``."""
    _no_out("ihfft", out)
    return aten.fft_ihfft.default(input, n, dim, norm)


def fft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.fft2``."""
    _no_out("fft2", out)
    return aten.fft_fft2.default(input, _listed(s), _listed(dim), norm)


def ifft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.ifft2``."""
    _no_out("ifft2", out)
    return aten.fft_ifft2.default(input, _listed(s), _listed(dim), norm)


def rfft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.rfft2``."""
    _no_out("rfft2", out)
    return aten.fft_rfft2.default(input, _listed(s), _listed(dim), norm)


def irfft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.irfft2``."""
    _no_out("irfft2", out)
    return aten.fft_irfft2.default(input, _listed(s), _listed(dim), norm)


def fftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.fftn``."""
    _no_out("fftn", out)
    return aten.fft_fftn.default(input, _listed(s), _listed(dim), norm)


def ifftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.ifftn``."""
    _no_out("ifftn", out)
    return aten.fft_ifftn.default(input, _listed(s), _listed(dim), norm)


def rfftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.rfftn``."""
    _no_out("rfftn", out)
    return aten.fft_rfftn.default(input, _listed(s), _listed(dim), norm)


def irfftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.irfftn``."""
    _no_out("irfftn", out)
    return aten.fft_irfftn.default(input, _listed(s), _listed(dim), norm)


def hfft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.hfft2``."""
    _no_out("hfft2", out)
    return aten.fft_hfft2.default(input, _listed(s), _listed(dim), norm)


def ihfft2(input: Tensor, s: _Dims = None, dim: _Dims = (-2, -1), norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.ihfft2``."""
    _no_out("ihfft2", out)
    return aten.fft_ihfft2.default(input, _listed(s), _listed(dim), norm)


def hfftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.hfftn``."""
    _no_out("hfftn", out)
    return aten.fft_hfftn.default(input, _listed(s), _listed(dim), norm)


def ihfftn(input: Tensor, s: _Dims = None, dim: _Dims = None, norm: str | None = None, *,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``torch.fft.ihfftn``."""
    _no_out("ihfftn", out)
    return aten.fft_ihfftn.default(input, _listed(s), _listed(dim), norm)


def fftshift(input: Tensor, dim: _Dims = None) -> Tensor:  # noqa: A002
    """``torch.fft.fftshift``."""
    return aten.fft_fftshift.default(input, _listed(dim))


def ifftshift(input: Tensor, dim: _Dims = None) -> Tensor:  # noqa: A002
    """``torch.fft.ifftshift``."""
    return aten.fft_ifftshift.default(input, _listed(dim))


def fftfreq(n: int, d: float = 1.0, *, out: Tensor | None = None, dtype: Any = None, layout: Any = None,
        device: Any = None, requires_grad: bool = False) -> Tensor:
    """``torch.fft.fftfreq``."""
    _no_out("fftfreq", out)
    result = aten.fft_fftfreq.default(n, d, dtype=dtype, layout=layout, device=device)
    return result.requires_grad_() if requires_grad else result


def rfftfreq(n: int, d: float = 1.0, *, out: Tensor | None = None, dtype: Any = None, layout: Any = None,
        device: Any = None, requires_grad: bool = False) -> Tensor:
    """``torch.fft.rfftfreq``."""
    _no_out("rfftfreq", out)
    result = aten.fft_rfftfreq.default(n, d, dtype=dtype, layout=layout, device=device)
    return result.requires_grad_() if requires_grad else result
