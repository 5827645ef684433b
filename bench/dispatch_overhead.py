"""Dispatcher overhead: microseconds per call of a custom op with trivial kernels, ours vs torch.

Paths measured (the same registrations are made in both dispatchers):

* 1 hop: a CPU kernel; AutogradCPU is a fallthrough, so the call goes straight to CPU.
* 2 hops (Python dispatcher on): the PythonDispatcher fallback resolves CPU, then the CPU kernel.
* 3 hops: AutogradCPU kernel -> redispatch -> ADInplaceOrView kernel -> redispatch -> CPU kernel.
* 5 hops: PreDispatch fallback -> PythonTLSSnapshot fallback -> the 3-hop chain (both keys TLS-included).

Arguments: ours get a stand-in carrying a CPU tensor's key set; torch gets ``torch.ones(1)``.
Each figure is the median of 7 repeats. Run: ``.venv/bin/python bench/dispatch_overhead.py``.
"""

from __future__ import annotations

import gc
import statistics
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dispatcher  # noqa: E402
from dispatcher import DispatchKey, DispatchKeySet, Library  # noqa: E402

try:
    import torch
except ImportError:  # the oracle is optional
    torch = None

NUMBER = 20000
REPEAT = 7


class Stand:
    _key_set = DispatchKeySet(
        [DispatchKey.CPU, DispatchKey.ADInplaceOrView, DispatchKey.AutogradCPU, DispatchKey.AutocastCPU]
    ).raw_repr()


def register(lib, ops_ns, ns, full_after, fallthrough):
    lib.define("one(Tensor x) -> Tensor")
    lib.define("three(Tensor x) -> Tensor")
    lib.impl("one", lambda x: x, "CPU")
    lib.impl("one", fallthrough, "AutogradCPU")
    after_autograd = full_after("AutogradOther")
    after_adiov = full_after("ADInplaceOrView")
    three = None

    def autograd(ks, x):
        return three.redispatch(ks & after_autograd, x)

    def adiov(ks, x):
        return three.redispatch(ks & after_adiov, x)

    lib.impl("three", lambda x: x, "CPU")
    lib.impl("three", autograd, "AutogradCPU", with_keyset=True)
    lib.impl("three", adiov, "ADInplaceOrView", with_keyset=True)
    three = getattr(ops_ns, ns).three.default
    return getattr(ops_ns, ns).one.default, three


def per_call_us(fn, arg):
    times = timeit.repeat(lambda: fn(arg), number=NUMBER, repeat=REPEAT)
    return statistics.median(times) / NUMBER * 1e6


def measure_ours():
    lib = Library("bench_ours", "DEF")
    one, three = register(
        lib, dispatcher.ops, "bench_ours", lambda k: dispatcher.full_after(DispatchKey[k]), dispatcher.fallthrough_kernel
    )
    x = Stand()
    rows = {"1 hop": per_call_us(one, x), "3 hops": per_call_us(three, x)}
    with dispatcher.EnablePythonDispatcher():
        rows["2 hops (Python dispatcher on)"] = per_call_us(one, x)
    with dispatcher.EnablePreDispatch(), dispatcher.IncludeDispatchKeyGuard(DispatchKey.PythonTLSSnapshot):
        rows["5 hops"] = per_call_us(three, x)
    return rows, lib


def measure_torch():
    if torch is None:
        return {}, None
    C = torch._C
    lib = torch.library.Library("bench_torch", "DEF")
    one, three = register(
        lib, torch.ops, "bench_torch",
        lambda k: C._dispatch_keyset_full_after(getattr(C.DispatchKey, k)), torch.library.fallthrough_kernel,
    )
    x = torch.ones(1)
    rows = {"1 hop": per_call_us(one, x), "3 hops": per_call_us(three, x)}
    with C._EnablePythonDispatcher():
        rows["2 hops (Python dispatcher on)"] = per_call_us(one, x)
    with C._EnablePreDispatch(), C._IncludeDispatchKeyGuard(C.DispatchKey.PythonTLSSnapshot):
        rows["5 hops"] = per_call_us(three, x)
    rows["aten.add.Tensor (reference)"] = per_call_us(lambda t: torch.ops.aten.add.Tensor(t, t), x)
    return rows, lib


def main() -> None:
    gc.freeze()  # keep full collections from scanning torch's large heap during the timing loops (both sides)
    ours, _keep = measure_ours()
    theirs, _keep2 = measure_torch()
    order = ["1 hop", "2 hops (Python dispatcher on)", "3 hops", "5 hops", "aten.add.Tensor (reference)"]
    print(f"{'path':32s} {'ours (us)':>10s} {'torch (us)':>11s} {'ours/torch':>11s}")
    for name in order:
        a, b = ours.get(name), theirs.get(name)
        fa = f"{a:10.2f}" if a is not None else f"{'-':>10s}"
        fb = f"{b:11.2f}" if b is not None else f"{'-':>11s}"
        ratio = f"{a / b:11.2f}" if a is not None and b is not None else f"{'-':>11s}"
        print(f"{name:32s} {fa} {fb} {ratio}")
    if torch is None:
        print("(torch not installed: torch columns empty)")
    print("target: 1 hop <= 2.5 us")


if __name__ == "__main__":
    main()
