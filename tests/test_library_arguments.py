"""``Library.impl`` checks its arguments first, as torch/library.py does: the kernel must be callable (TypeError
"Input function is required to be a callable but found type ..."), the operator a name or an OpOverload
(RuntimeError), and a rejected call registers nothing."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

import dispatcher
import dispatcher.library as our_library

_names = itertools.count()


class _Callable:
    def __call__(self, x: Any) -> Any:
        return x


#: (op name, kernel) calls of Library.impl, run on an op ``foo(Tensor x) -> Tensor`` of a fresh namespace
CALLS = {
    "int_kernel": ("foo", 5),
    "none_kernel": ("foo", None),
    "str_kernel": ("foo", "cpu_kernel"),
    "int_op_name": (3, lambda x: x),
    "int_op_name_and_kernel": (3, 5),  # the kernel is checked first
    "list_op_name": (["foo"], lambda x: x),
    "callable_object": ("foo", _Callable()),
}


def _outcome(T: Any, library: Any, tag: str, name: str) -> Any:
    lib = library.Library(f"libargs_{tag}{next(_names)}", "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    op_name, fn = CALLS[name]
    try:
        lib.impl(op_name, fn, "CPU")
    except (TypeError, RuntimeError) as e:
        registered = getattr(T.ops, lib.ns).foo.default.has_kernel_for_dispatch_key("CPU")
        return type(e).__name__, str(e), registered
    return "ok", getattr(T.ops, lib.ns).foo.default.has_kernel_for_dispatch_key("CPU")


@pytest.mark.parametrize("name", sorted(CALLS))
def test_impl_checks_its_arguments_like_torch(torch: Any, name: str) -> None:
    assert _outcome(dispatcher, our_library, "d", name) == _outcome(torch, torch.library, "t", name)


def test_the_issue_case() -> None:
    lib = our_library.Library(f"libargs_issue{next(_names)}", "DEF")
    lib.define("foo(Tensor x) -> Tensor")
    with pytest.raises(TypeError, match="Input function is required to be a callable but found type <class 'int'>"):
        lib.impl("foo", 5, "CPU")
