"""Complex numbers and the lazy math bits: ``conj`` / ``conj_physical`` / ``resolve_conj`` / ``resolve_neg`` /
``is_conj`` / ``is_neg`` / ``real`` / ``imag`` / ``view_as_real`` / ``view_as_complex`` / ``_neg_view``:
torch-level functions and Tensor methods (``.real`` / ``.imag`` are properties).

Corresponds to the python_torch_functions.cpp / python_variable_methods.cpp bindings of these ops. As there,
``conj`` is ``Tensor::conj`` inlined (TensorBody.h): ``_conj`` for a complex tensor, the tensor itself otherwise,
so ``aten.conj`` is never dispatched from Python; ``is_conj`` / ``is_neg`` read the tensor's key set
(``TensorImpl::is_conj``) without dispatching.
"""

from __future__ import annotations

from ..math_bits import is_conj as _is_conj
from ..math_bits import is_neg as _is_neg
from ..op_overload import namespace
from ..tensor import Tensor

aten = namespace("aten")

__all__ = ["conj", "conj_physical", "conj_physical_", "resolve_conj", "resolve_neg", "is_conj", "is_neg", "real",
           "imag", "view_as_real", "view_as_complex", "_neg_view", "_conj", "_conj_physical"]


def conj(input: Tensor) -> Tensor:  # noqa: A002
    """``torch.conj``: a view with the conjugate bit flipped (complex), else ``input`` itself."""
    if not input._dtype.is_complex:
        return input
    return aten._conj.default(input)


def _conj(input: Tensor) -> Tensor:  # noqa: A002
    return aten._conj.default(input)


def conj_physical(input: Tensor) -> Tensor:  # noqa: A002
    return aten.conj_physical.default(input)


def conj_physical_(input: Tensor) -> Tensor:  # noqa: A002
    return aten.conj_physical_.default(input)


def _conj_physical(input: Tensor) -> Tensor:  # noqa: A002
    return aten._conj_physical.default(input)


def resolve_conj(input: Tensor) -> Tensor:  # noqa: A002
    return aten.resolve_conj.default(input)


def resolve_neg(input: Tensor) -> Tensor:  # noqa: A002
    return aten.resolve_neg.default(input)


def _neg_view(input: Tensor) -> Tensor:  # noqa: A002
    return aten._neg_view.default(input)


def is_conj(input: Tensor) -> bool:  # noqa: A002
    return _is_conj(input)


def is_neg(input: Tensor) -> bool:  # noqa: A002
    return _is_neg(input)


def real(input: Tensor) -> Tensor:  # noqa: A002
    return aten.real.default(input)


def imag(input: Tensor) -> Tensor:  # noqa: A002
    return aten.imag.default(input)


def view_as_real(input: Tensor) -> Tensor:  # noqa: A002
    return aten.view_as_real.default(input)


def view_as_complex(input: Tensor) -> Tensor:  # noqa: A002
    return aten.view_as_complex.default(input)


def _complex(self: Tensor) -> complex:
    """``complex(t)``: the one element as a Python complex (``item``)."""
    if self.numel() != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return complex(aten.item.default(self))


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach the methods and the ``real`` / ``imag`` properties (called by ``tensor_methods.install``)."""
    for fn in (conj, _conj, conj_physical, conj_physical_, _conj_physical, resolve_conj, resolve_neg, _neg_view,
               is_conj, is_neg):
        setattr(T, fn.__name__, fn)
    T.__complex__ = _complex
    T.real = property(real, _set_real)
    T.imag = property(imag, _set_imag)


def _set_real(self: Tensor, value: Tensor) -> None:
    """``x.real = v``: ``copy_`` into the ``real`` view (THPVariable_set_real)."""
    aten.copy_.default(aten.real.default(self), value)


def _set_imag(self: Tensor, value: Tensor) -> None:
    aten.copy_.default(aten.imag.default(self), value)
