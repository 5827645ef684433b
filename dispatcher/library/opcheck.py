"""``torch.library.opcheck``: check a custom op's registrations agree with each other on sample inputs.

Corresponds to torch/testing/_internal/optests (``opcheck``). Runs, for one call: the op eagerly
(``test_schema``: arguments it does not declare as mutated stay unchanged), its autograd registration
(``test_autograd_registration``: outputs that need a gradient have a ``grad_fn``), and its fake kernel under
FakeTensorMode (``test_faketensor``: same shapes and dtypes as eager). Returns test name -> "SUCCESS"; a failure
raises ``OpCheckError``. (torch's ``test_aot_dispatch_dynamic`` has no counterpart: no symbolic shapes here.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor

DEFAULT_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor")


class OpCheckError(Exception):
    pass


def _flat(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flat(v)]
    return [value]


def _clone(value: Any) -> Any:
    if isinstance(value, Tensor):
        return value.detach().clone().requires_grad_(value.requires_grad)
    if isinstance(value, (list, tuple)):
        return type(value)(_clone(v) for v in value)
    return value


def opcheck(op: Any, args: tuple, kwargs: dict | None = None, *, test_utils: Any = DEFAULT_TEST_UTILS,
            raise_exception: bool = True, atol: float | None = None, rtol: float | None = None) -> dict[str, str]:
    """Run the checks ``test_utils`` on ``op(*args, **kwargs)``; test name -> "SUCCESS" (or the error)."""
    from ..fake import FakeTensorMode

    overload = getattr(op, "_opoverload", op)
    if not hasattr(overload, "_schema"):
        overload = overload.default
    kwargs = kwargs or {}
    tests = (test_utils,) if isinstance(test_utils, str) else tuple(test_utils)
    result: dict[str, str] = {}
    for test in tests:
        try:
            a, k = _clone(args), _clone(kwargs)
            if test == "test_schema":
                mutated = {x.name for x in overload._schema.arguments if x.alias_info and x.alias_info.is_write}
                names = [x.name for x in overload._schema.arguments]
                before = [np.array(t.detach().numpy()) if isinstance(t, Tensor) else None for t in _flat(list(a))]
                overload(*a, **k)
                for i, (t, old) in enumerate(zip(_flat(list(a)), before)):
                    name = names[i] if i < len(names) else str(i)
                    if old is not None and name not in mutated and not np.array_equal(old, t.detach().numpy(), equal_nan=True):
                        raise OpCheckError(f"{overload}: argument {name} is mutated but not marked as mutable in "
                                           "the schema")
            elif test == "test_autograd_registration":
                out = overload(*a, **k)
                if any(getattr(t, "requires_grad", False) for t in _flat(list(a))):
                    for o in _flat([out]):
                        if isinstance(o, Tensor) and o.dtype.is_floating_point and o.grad_fn is None:
                            raise OpCheckError(f"{overload}: output has no grad_fn although an input requires "
                                               "grad: register an autograd formula (register_autograd)")
            elif test == "test_faketensor":
                eager = _flat([overload(*_clone(args), **_clone(kwargs))])
                with FakeTensorMode() as mode:
                    fa = tuple(mode.from_tensor(t) if isinstance(t, Tensor) else t for t in a)
                    fk = {n: mode.from_tensor(t) if isinstance(t, Tensor) else t for n, t in k.items()}
                    fake = _flat([overload(*fa, **fk)])
                for e, f in zip(eager, fake):
                    if isinstance(e, Tensor) and (tuple(e.shape) != tuple(f.shape) or e.dtype != f.dtype):
                        raise OpCheckError(f"{overload}: fake kernel gives {tuple(f.shape)} {f.dtype}, eager "
                                           f"gives {tuple(e.shape)} {e.dtype}")
            else:
                raise ValueError(f"opcheck: unknown test {test}; expected one of {DEFAULT_TEST_UTILS}")
            result[test] = "SUCCESS"
        except OpCheckError as e:
            if raise_exception:
                raise
            result[test] = e  # type: ignore[assignment]
    return result
