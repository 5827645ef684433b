"""The numpy code generator's check run: the lowered statements run once, node by node, on the example values.

Each result's shape and dtype are compared with the node's ``meta["val"]``. Where NumPy's type promotion differs
from PyTorch's (Python scalars, 0-dim float64 operands, integer division, ...), a ufunc gets ``dtype=`` and
anything else an ``astype``; a node that still disagrees or raises falls back to the dispatcher. The run also
records the memory facts the alias analysis needs (numpy_buffers.py): results sharing memory with their operands,
and results owning a fresh writable array. Step 2 of numpy_codegen.py's ``NumpyCodegen.generate``.

PyTorch counterpart: none as such; Inductor derives its buffers' dtypes by type propagation over its IR
(torch/_inductor/graph.py, ``GraphLowering``, and the dtype propagation of torch/_inductor/codegen/common.py)
instead of running the code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dispatcher.tensor import Tensor

from ..node import Node
from .numpy_lowerings import Lowering
from .numpy_nodes import attr_of, flat_nodes

if TYPE_CHECKING:
    from .numpy_codegen import NumpyCodegen

__all__ = ["check_run"]


def check_run(gen: NumpyCodegen) -> None:
    """Lower every node (``gen.lowering``) and run the statements once on the example values, fixing dtypes,
    falling back where a result still disagrees with its ``meta["val"]``, recording which results share memory
    with their operands (``gen.shares``) and which own theirs (``gen.fresh_ok``)."""
    env: dict[str, Any] = dict(gen.globals)
    for n, val in zip([n for n in gen.nodes if n.op == "placeholder"], gen.example_values):
        env[gen.var[n]] = val
    for n in gen.nodes:
        if n.op == "get_attr":
            env[gen.var[n]] = attr_of(gen.gm, n.target)._data
        elif n.op == "call_function":
            low = gen.lowering[n] = gen.lower_node(n)
            _check_node(gen, n, low, env)


def _run(gen: NumpyCodegen, node: Node, low: Lowering, env: dict) -> Any:
    env.update(gen.globals)
    with np.errstate(all="ignore"):
        exec(compile("\n".join(gen.statements(node, low)), "<numpy backend check>", "exec"), env)
    return env.get(gen.var[node])


def _check_node(gen: NumpyCodegen, node: Node, low: Lowering, env: dict) -> None:
    expected = node.meta.get("val")
    if low.kind == "inplace":
        # an in-place write into a 0-dim result: ufuncs return NumPy scalars there, so make that one an array
        tgt = low.sources[0]
        tgt_low = gen.lowering.get(tgt)
        if (not isinstance(env.get(gen.var[tgt]), np.ndarray) and tgt_low is not None
                and tgt_low.kind in ("ufunc", "fresh", "getitem")):
            gen.asarray.add(tgt)
            env[gen.var[tgt]] = np.asarray(env[gen.var[tgt]])
    try:
        value = _run(gen, node, low, env)
        problem = _mismatch(value, expected)
        if problem == "dtype" and low.kind in ("ufunc", "fresh", "getitem"):
            if low.kind == "ufunc":
                low.dtype_kw = f", dtype={gen.dtype_global(expected.dtype)}"
            else:
                low.cast = gen.dtype_global(expected.dtype)
            value = _run(gen, node, low, env)
            problem = _mismatch(value, expected)
            if problem == "dtype" and low.kind == "ufunc":
                low.dtype_kw = ""
                low.cast = gen.dtype_global(expected.dtype)
                value = _run(gen, node, low, env)
                problem = _mismatch(value, expected)
        if problem is not None and low.kind != "fallback":
            raise _Mismatch(problem)
    except Exception:
        if low.kind == "fallback":
            raise
        low = gen.lowering[node] = gen.fallback(node)
        value = _run(gen, node, low, env)
    # memory facts for the alias analysis
    if low.kind in ("ufunc", "fresh", "multi_fresh", "getitem"):
        # a getitem's array came out of its tuple-producing parent: compare it with the parent's operands
        reads = node.args[0] if low.kind == "getitem" else node
        operands = flat_nodes((reads.args, reads.kwargs))
        arrays = [env.get(gen.var[a]) for a in operands]
        outs = value if isinstance(value, tuple) else (value,)
        shared = set()
        for o in outs:
            if isinstance(o, np.ndarray):
                for a, arr in zip(operands, arrays):
                    if isinstance(arr, np.ndarray) and np.may_share_memory(o, arr):
                        shared.add(a)
        if shared:
            gen.shares[node] = shared
        elif (isinstance(value, np.ndarray) and value.ndim >= 1 and value.flags.writeable and value.flags.owndata
              and low.kind != "multi_fresh"):
            gen.fresh_ok.add(node)
    if low.kind == "inplace":
        tgt = low.sources[0]
        if not isinstance(env.get(gen.var[tgt]), np.ndarray):
            raise RuntimeError(f"numpy backend: in-place target {tgt.name} is not an array")


class _Mismatch(Exception):
    """The lowered code's result has another shape / dtype than the node's ``meta["val"]``: fall back."""


def _mismatch(value: Any, expected: Any) -> str | None:
    """``None`` when ``value`` has the shape / dtype of ``expected`` (a FakeTensor, a tuple of them, or None)."""
    if isinstance(expected, (tuple, list)):
        if not isinstance(value, (tuple, list)) or len(value) != len(expected):
            return "structure"
        for v, e in zip(value, expected):
            p = _mismatch(v, e)
            if p is not None:
                return p
        return None
    if not isinstance(expected, Tensor):
        return None
    if value is None:
        return "missing"
    if np.shape(value) != tuple(expected.shape):
        return "shape"
    if np.asarray(value).dtype != np.dtype(expected.dtype.np_dtype):
        return "dtype"
    return None
