"""Views handed back by a tensor subclass (or a dispatch mode), and re-typing a subclass instance.

PyTorch's ADInplaceOrView kernel of a view op (``as_view``) runs above the Python key: whatever a wrapper subclass's
``__torch_dispatch__`` returns for ``detach`` / ``view`` / ``t`` / ``split`` ... shares the input's version counter
(``x.detach().add_(2)`` bumps ``x._version``) and, but for ``detach``, is an autograd view of it (``_base``). Here
views made by ``Tensor._view`` always had that; a wrapper made by the subclass had neither. And
``Tensor._make_subclass(Foo, t)`` / ``t.as_subclass(Foo)`` on a tensor whose detach / alias comes back as an object
of another subclass is torch's "already associated to a python object" error (or that object, when it is a Foo).
"""

from __future__ import annotations

from typing import Any

import pytest

import dispatcher as D
from tests.subclass_env import skip_logging_tensor_in_pytest_capture
from tracer import pytree as our_pytree

# torch's LoggingTensor logs records pytest's capture handlers cannot format (see the fixture)
_pytest_capture_skips_logging_tensor = pytest.fixture(autouse=True)(skip_logging_tensor_in_pytest_capture)


def _rewrapping(T: Any) -> type:
    if T is D:
        tree_map = our_pytree.tree_map
    else:
        from torch.utils._pytree import tree_map

    class Wrapper(T.Tensor):
        @staticmethod
        def __new__(cls, elem):
            return T.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype, strides=elem.stride())

        def __init__(self, elem):
            self.elem = elem

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            unwrap = lambda x: x.elem if isinstance(x, Wrapper) else x  # noqa: E731
            out = func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {}))
            return tree_map(lambda x: Wrapper(x) if isinstance(x, T.Tensor) and not isinstance(x, Wrapper) else x,
                            out)

    return Wrapper


def _logging_tensor(T: Any) -> type:
    if T is D:
        from dispatcher.modes.logging_tensor import LoggingTensor
    else:
        from torch.testing._internal.logging_tensor import LoggingTensor
    return LoggingTensor


#: view expressions on ``x`` (a wrapped (2, 3) tensor); each result is written in place afterwards
VIEWS = {
    "detach": lambda x: [x.detach()],
    "view": lambda x: [x.view(6)],
    "t": lambda x: [x.t()],
    "getitem": lambda x: [x[1]],
    "alias": lambda x: [x[:]],
    "unsqueeze_expand": lambda x: [x.unsqueeze(0)],
    "split": lambda x: list(x.split(1)),
    "unbind": lambda x: list(x.unbind(1)),
    "detach_of_view": lambda x: [x.view(6).detach()],
    "view_of_view": lambda x: [x.t()[0]],
}


def _versions(T: Any, kind: str, name: str) -> list:
    cls = _rewrapping(T) if kind == "wrapper" else _logging_tensor(T)
    x = cls(T.arange(6.0).view(2, 3))
    out = []
    for v in VIEWS[name](x):
        before = x._version
        with T.no_grad():  # (unbind / split outputs may not be written in place with grad on)
            v.add_(1)
        out.append((x._version - before, v._version, v._base is x, type(v).__name__ == cls.__name__))
    return out


@pytest.mark.parametrize("kind", ["wrapper", "logging_tensor"])
@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_of_a_subclass_share_its_version_counter(torch: Any, kind: str, name: str) -> None:
    assert _versions(D, kind, name) == _versions(torch, kind, name)


def test_the_issue_case() -> None:
    from dispatcher.modes.logging_tensor import LoggingTensor

    x = LoggingTensor(D.randn(3))
    x.detach().add_(2)
    assert x._version == 1


def _autograd_through_subclass_views(T: Any) -> list:
    cls = _logging_tensor(T)
    out = []
    x = cls(T.tensor([1.0, -2.0, 3.0, 0.5])).requires_grad_()
    (x.view(2, 2).t() * 3).sum().backward()
    out.append(x.grad.elem.tolist())
    x2 = cls(T.tensor([1.0, -2.0, 3.0, 0.5])).requires_grad_()
    z = x2.clone()
    v = z[1:3]
    v.mul_(2)  # CopySlices on z's graph, v's grad_fn regenerated
    out.append((z._version, v._version, type(z.grad_fn).__name__, type(v.grad_fn).__name__))
    z.sum().backward()
    out.append(x2.grad.elem.tolist())
    a, _ = z.split(2)
    out.append(type(a.grad_fn).__name__)
    with pytest.raises(RuntimeError, match="Output 0 of Split is a view and is being modified inplace"):
        a.mul_(2)
    return out


def test_autograd_through_views_of_a_subclass(torch: Any) -> None:
    assert _autograd_through_subclass_views(D) == _autograd_through_subclass_views(torch)


def _mode_made_views(T: Any) -> list:
    if T is D:
        from dispatcher.modes.dispatch_mode import TorchDispatchMode
    else:
        from torch.utils._python_dispatch import TorchDispatchMode

    class CloneViews(TorchDispatchMode):
        """Answers view ops with copies: ADInplaceOrView above still makes them views of the input."""

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if func in (T.ops.aten.view.default, T.ops.aten.t.default, T.ops.aten.detach.default):
                out = out.clone()
            return out

    x = T.randn(2, 2)
    with CloneViews():
        views = [x.view(4), x.t(), x.detach()]
    result = []
    for v in views:
        v.add_(1)
        result.append((x._version, v._base is x))
    return result


def test_views_answered_by_a_mode(torch: Any) -> None:
    assert _mode_made_views(D) == _mode_made_views(torch)


def _retyping(T: Any) -> list:
    wrapper = _rewrapping(T)

    class Foo(T.Tensor):
        pass

    class Bar(T.Tensor):
        pass

    class SubWrapper(wrapper):
        pass

    out = []
    for make in (lambda: T.Tensor._make_subclass(Foo, wrapper(T.randn(2))),
                 lambda: wrapper(T.randn(2)).as_subclass(Foo),
                 lambda: T.Tensor._make_subclass(SubWrapper, wrapper(T.randn(2))),
                 lambda: T.Tensor._make_subclass(T.Tensor, wrapper(T.randn(2)), True),
                 lambda: T.Tensor._make_subclass(Foo, T.Tensor._make_subclass(Bar, T.randn(2))),
                 lambda: T.Tensor._make_subclass(Bar, T.nn.Parameter(T.randn(2))),
                 lambda: T.Tensor._make_subclass(Bar, T.randn(2)).as_subclass(Foo)):
        try:
            r = make()
            out.append((type(r).__name__, r.requires_grad))
        except RuntimeError as e:
            out.append(str(e))
    return out


def test_make_subclass_of_a_subclass_instance(torch: Any) -> None:
    ours, theirs = _retyping(D), _retyping(torch)
    assert ours == theirs
    assert ours[0] == ("Creating a new Tensor subclass Foo but the raw Tensor object is already associated to a python "
                       "object of type Wrapper which is not a subclass of the requested type")
