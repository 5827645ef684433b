"""``make demo`` (until tracing exists): watch registrations turn into a dispatch table, then follow one call.

Run with ``python -m dispatcher.demo``. It defines ``demo::scale(Tensor x, float factor) -> Tensor``,
prints the computed table for a few keys before and after kernels are registered on
CompositeImplicitAutograd, then CPU and Autograd, shows the same thing with the teaching ``PythonDispatcher``,
prints ``explain_dispatch`` for one call with and without the Python dispatcher, then the path of
``aten.linear`` on real tensors (its decomposition into ``t`` and ``mm``).
"""

from __future__ import annotations

from dispatcher import (
    DispatchKey,
    DispatchKeySet,
    EnablePythonDispatcher,
    Library,
    explain_dispatch,
    full_after,
    ops,
)
from dispatcher.python_dispatcher import PythonDispatcher

SHOWN = ("Undefined", "CPU", "Meta", "XLA", "AutogradCPU", "AutogradMeta", "AutogradOther", "Python", "PythonDispatcher")


class DemoTensor:
    """A stand-in for a CPU tensor: a value and a CPU tensor's key set."""

    _key_set = DispatchKeySet(
        [DispatchKey.CPU, DispatchKey.ADInplaceOrView, DispatchKey.AutogradCPU, DispatchKey.AutocastCPU]
    ).raw_repr()

    def __init__(self, value: float) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"DemoTensor({self.value})"


def show_table(title: str) -> None:
    print(f"--- {title}")
    for line in ops.demo.scale.default.dump_table().splitlines():
        key = line.split(":")[0]
        if key in SHOWN:
            print("   ", line.replace("registered at ", "@ "))


def main() -> None:
    lib = Library("demo", "DEF")
    lib.define("scale(Tensor x, float factor=2.0) -> Tensor")
    op = ops.demo.scale.default
    print(f"defined {op.name()}: {op._schema}\n")
    show_table("no kernels yet: only backend fallbacks")

    lib.impl("scale", lambda x, factor=2.0: DemoTensor(x.value * factor), "CompositeImplicitAutograd")
    show_table("after a CompositeImplicitAutograd kernel: it fills every backend and autograd key")

    lib.impl("scale", lambda x, factor=2.0: DemoTensor(x.value * factor), "CPU")

    def autograd_kernel(ks, x, factor=2.0):
        return op.redispatch(ks & full_after(DispatchKey.AutogradOther), x, factor)

    lib.impl("scale", autograd_kernel, "Autograd", with_keyset=True)
    show_table("after CPU and Autograd kernels: a backend kernel blocks the decomposition on its autograd key")

    print("\n--- the teaching PythonDispatcher, same idea on its eleven keys")
    d = PythonDispatcher()
    d.register(["CPU", "XLA", "AutogradCPU", "CompositeImplicitAutograd"])
    print(d.registrations())
    print(d.dispatchTable())

    print("--- one call: demo.scale(DemoTensor(3.0), 4.0)")
    print(explain_dispatch(op, DemoTensor(3.0), 4.0))

    @op.py_impl(DispatchKey.CPU)
    def scale_cpu_python(x, factor=2.0):
        return DemoTensor(-x.value * factor)

    print("\n--- the same call with the Python dispatcher on and a py_impl(CPU) kernel")
    with EnablePythonDispatcher():
        print(explain_dispatch(op, DemoTensor(3.0), 4.0))

    import dispatcher

    print("\n--- a real aten op: linear is CompositeImplicitAutograd, so it decomposes above autograd")
    x, w = dispatcher.randn(2, 3), dispatcher.randn(4, 3)
    print(explain_dispatch(ops.aten.linear.default, x, w))


if __name__ == "__main__":
    main()
