"""The ``torch.linalg`` namespace (``import dispatcher as torch; torch.linalg.lstsq``).

PyTorch's counterpart: torch/linalg/__init__.py. Only what exists here: ``lstsq`` (``aten.linalg_lstsq``), ``pinv``
(``aten.linalg_pinv.atol_rtol_tensor``), ``vector_norm`` (``aten.linalg_vector_norm``), ``matmul`` (torch.matmul)
and ``LinAlgError``; the other products are top-level functions (``torch.mm``, ...). dispatcher/__init__.py wraps
them for ``__torch_function__`` under torch's binding names (``linalg_lstsq``, ...).
"""

from __future__ import annotations

from .api.linalg import lstsq, pinv
from .op_overload import namespace
from .ops.linalg_lstsq import LinAlgError

__all__ = ["LinAlgError", "lstsq", "matmul", "pinv", "vector_norm"]

_aten = namespace("aten")


def matmul(input, other):  # noqa: A002, ANN001, ANN201 - torch.linalg.matmul is torch.matmul
    """``torch.linalg.matmul``: an alias of ``torch.matmul``."""
    from .api.linalg import matmul as _matmul

    return _matmul(input, other)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002, ANN001, ANN201
    """``torch.linalg.vector_norm``: ``aten.linalg_vector_norm``."""
    kw = {} if dtype is None else {"dtype": dtype}
    if isinstance(dim, int):
        dim = [dim]
    return _aten.linalg_vector_norm.default(x, ord, dim, keepdim, **kw)

