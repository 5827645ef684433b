"""``PythonDispatcher``: a teaching tool that shows how registrations become a dispatch table.

Corresponds to torch/_python_dispatcher.py, with the same keys, text and errors
(PyTorch 2.13). Register a generated kernel ``fn_<Key>`` on any mix of the
supported keys, then print what the dispatcher computed for the runtime keys:

    d = PythonDispatcher()
    d.register(["CPU", "XLA", "CompositeImplicitAutograd"])
    print(d.dispatchTable())

The supported keys stand for one example of each kind of backend:

* CPU / AutogradCPU: an in-tree backend with its own autograd key;
* FPGA / AutogradOther: backends that share the AutogradOther autograd key;
* XLA / AutogradXLA and Lazy / AutogradLazy: out-of-tree backends;
* CompositeExplicitAutograd: one inference kernel for every backend;
* Autograd: one autograd kernel for every backend;
* CompositeImplicitAutograd: a decomposition that works for inference and autograd.

The old names ``Math`` (CompositeImplicitAutograd) and ``DefaultBackend``
(CompositeExplicitAutograd) are accepted. NB: PyTorch registers on one fixed
operator ``__test__::foo`` so only one instance can exist at a time; here each
instance gets its own operator (``foo``, ``foo_1``, ...), so several may live
at once.
"""

from __future__ import annotations

import itertools

from .keys import DispatchKey
from .library import Library
from .registry import REGISTRY

_OLD_NAMES = {"Math": "CompositeImplicitAutograd", "DefaultBackend": "CompositeExplicitAutograd"}


class PythonDispatcher:
    namespace = "__test__"
    runtime_keys = [
        "CPU", "AutogradCPU",
        "FPGA", "AutogradOther",
        "XLA", "AutogradXLA",
        "Lazy", "AutogradLazy",
    ]
    alias_keys = [
        "CompositeExplicitAutograd",
        "Autograd",
        "CompositeImplicitAutograd",
    ]
    supported_keys = runtime_keys + alias_keys

    def __init__(self) -> None:
        self.name = self._free_op_name()
        self._lib = Library(self.namespace, "FRAGMENT")
        self._lib.define(f"{self.name}(Tensor x) -> Tensor")
        self._op = REGISTRY.find(f"{self.namespace}::{self.name}")

    @classmethod
    def _free_op_name(cls) -> str:
        for i in itertools.count():
            name = "foo" if i == 0 else f"foo_{i}"
            op = REGISTRY.find(f"{cls.namespace}::{name}")
            if op is None or op._schema is None:
                return name
        raise AssertionError("unreachable")

    def keys(self) -> list[str]:
        """The dispatch keys kernels can be registered on."""
        return self.supported_keys

    def register(self, dispatchKeys: list[str]) -> None:  # noqa: N803 - PyTorch's argument name
        """Register a generated kernel ``fn_<Key>`` on each of the given keys."""
        keys = [_OLD_NAMES.get(k, k) for k in dispatchKeys]
        if len(set(keys)) != len(keys):
            raise RuntimeError(f"Overridden is not allowed but found duplicates in {dispatchKeys}.")
        if "CompositeImplicitAutograd" in keys and "CompositeExplicitAutograd" in keys:
            raise RuntimeError(
                "Registration to both CompositeImplicitAutograd and CompositeExplicitAutograd is not allowed."
            )
        for key in keys:
            if key not in self.supported_keys:
                raise RuntimeError(f"{key} is not supported, please select a dispatch key in {self.supported_keys}.")
            self._lib.impl(self.name, _make_kernel(key), key, debug="fn_" + key)

    @staticmethod
    def _format_line(key: str, kernel: str) -> str:
        return f"{key:<15} {kernel}\n"

    def _format_header(self, header: str) -> str:
        return f"\n{header}\n" + self._format_line("key", "kernel") + "---------------------------\n"

    def rawRegistrations(self) -> str:  # noqa: N802 - PyTorch's name
        """The operator's registrations as stored (see ``OpOverload.dump``)."""
        return self._op.dump()

    def rawDispatchTable(self) -> str:  # noqa: N802 - PyTorch's name
        """The operator's computed table (see ``OpOverload.dump_table``)."""
        return self._op.dump_table()

    def registrations(self) -> str:
        """Every kernel registered through ``register`` (runtime and alias keys), as the raw dump lists them."""
        output = self._format_header("Registered Kernels")
        for line in self.rawRegistrations().split("\n"):
            first = line.split(":")[0]
            if any(first.startswith(k) for k in self.supported_keys):
                output += self._format_line(first, line.split("::")[0].split(" ")[1])
        return output

    def dispatchTable(self) -> str:  # noqa: N802 - PyTorch's name
        """The computed kernel for each supported runtime key (alias registrations expanded)."""
        output = self._format_header("Computed Dispatch Table")
        for key, (kernel, tag) in self._op.computed_table().items():
            if key.name in self.runtime_keys:
                text = f"[{tag}]" if tag == "backend fallback" else f"{kernel.debug} [{tag}]"
                output += self._format_line(key.name, text)
        return output


def _make_kernel(key: str):
    def kernel(x):
        return x

    kernel.__name__ = kernel.__qualname__ = "fn_" + key
    return kernel


assert all(k in DispatchKey.__members__ for k in PythonDispatcher.supported_keys)
