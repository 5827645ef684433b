"""Generate straight-line NumPy source for an aten-level GraphModule (the "numpy" backend's code generator).

Steps, each a method of ``NumpyCodegen``:

1. **lower**: every ``call_function`` node gets a ``Lowering`` from numpy_lowerings.py; a node with no
   rule (or whose rule declines) becomes a *fallback* node that calls its aten op through the
   dispatcher on arrays wrapped as Tensors (the aot_eager way), and is reported.
2. **check**: the lowered statements run once, node by node, on the example values; each result's
   shape and dtype are compared with the node's ``meta["val"]``. Where NumPy's type promotion differs
   from PyTorch's (Python scalars, 0-dim float64 operands, integer division, ...), a ufunc gets
   ``dtype=`` and anything else an ``astype``; a node that still disagrees or raises falls back.
3. **alias analysis and liveness**: nodes whose arrays share memory (views, aliases, in-place results,
   fallback results, and anything the check run found sharing memory) form one storage class. A class
   is *pinned* when it holds an input, a constant, a fallback value or an output.
4. **buffer reuse**: a ufunc node writes (``out=``) into the array of an unpinned class that is dead by
   then, has the same shape and dtype, and was made fresh by the generated code itself. Elementwise
   ufuncs may take a buffer that dies at that very node (NumPy handles the overlap); matmul only one
   that died before.
5. **emit**: inputs are unwrapped once (``x_1 = _in0._data``) after a metadata guard, outputs are
   wrapped once (``_wrap``), in-place writes into inputs bump their version counters; the source is
   compiled with the constants and kernels as globals.

PyTorch's counterpart is Inductor's scheduler and Python wrapper codegen
(torch/_inductor/scheduler.py, codegen/wrapper.py), which also plans buffer reuse from liveness.
"""

from __future__ import annotations

import keyword
import logging
import operator
import re
from typing import Any

import numpy as np

from dispatcher.tensor import Tensor

from ..graph_module import GraphModule
from ..node import Node
from . import numpy_kernels
from .numpy_lowerings import Lowering, lowering_for, view_text

__all__ = ["NumpyCodegen"]

log = logging.getLogger("tracer.compile")

_INF = float("inf")
#: ``np.<name>`` or ``np.<name>.<attr>`` in a generated statement, not preceded by a name character or a dot
_NP_REF = re.compile(r"(?<![\w.])np\.([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)")


class _DSU:
    """Union-find over node indices (storage classes)."""

    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, i: int) -> int:
        p = self.parent.setdefault(i, i)
        while p != self.parent[p]:
            self.parent[p] = self.parent[self.parent[p]]
            p = self.parent[p]
        self.parent[i] = p
        return p

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _fallback_call(op: Any, args: Any, kwargs: Any) -> Any:
    """Run ``op`` through the dispatcher on ndarray arguments (wrapped as Tensors sharing memory); arrays back."""
    from dispatcher.api.from_data import _wrap_numpy

    def wrap(a: Any) -> Any:
        if isinstance(a, (np.ndarray, np.generic)):
            return _wrap_numpy(np.asarray(a))
        if isinstance(a, (list, tuple)):
            return type(a)(wrap(e) for e in a)
        return a

    def unwrap(r: Any) -> Any:
        if isinstance(r, Tensor):
            return r._data
        if isinstance(r, (list, tuple)):
            return tuple(unwrap(e) for e in r)
        return r

    return unwrap(op(*wrap(args), **{k: wrap(v) for k, v in kwargs.items()}))


def _wrap_output(a: Any, dt: Any) -> Tensor:
    """The result array as a CPU Tensor (no copy: contiguous arrays directly, others keep their strides)."""
    if type(a) is not np.ndarray:
        a = np.asarray(a)
    if a.flags.c_contiguous:
        return Tensor._wrap_contiguous(a, dt)
    from dispatcher.api.from_data import _wrap_numpy

    return _wrap_numpy(a)


class _Ctx:
    """What a lowering rule sees: source text of arguments, their metadata, global names for dtypes."""

    def __init__(self, gen: NumpyCodegen) -> None:
        self.gen = gen
        self.node: Node | None = None

    def v(self, x: Any) -> str:
        return self.gen.text(x)

    def meta(self, x: Node) -> Any:
        return x.meta["val"]

    def shape(self, x: Node) -> str:
        return repr(tuple(int(s) for s in x.meta["val"].shape))

    def np_dtype(self, dt: Any) -> str:
        return self.gen.dtype_global(dt)


class NumpyCodegen:
    """Generate, check and compile NumPy source for one aten-level GraphModule (see the module docstring)."""

    def __init__(self, gm: GraphModule, example_values: list[Any], check_inputs: bool = True) -> None:
        self.gm = gm
        self.nodes: list[Node] = list(gm.graph.nodes)
        self.index = {n: i for i, n in enumerate(self.nodes)}
        self.example_values = example_values
        self.check_inputs = check_inputs
        self.globals: dict[str, Any] = {"np": np, "_k": numpy_kernels, "_inf": _INF, "_nan": float("nan"),
                                        "_fallback_call": _fallback_call, "_wrap": _wrap_output, "_Tensor": Tensor,
                                        "_wrap_contiguous": Tensor._wrap_contiguous, "_ndarray": np.ndarray,
                                        "_getitem": operator.getitem}
        self.autograd_fn: Any = None  #: what runs when an input requires grad (set by numpy_backend)
        self._said_autograd = False
        self.var: dict[Node, str] = {}
        self.lowering: dict[Node, Lowering] = {}
        self.fallback_ops: list[str] = []
        self.asarray: set[Node] = set()
        self.shares: dict[Node, set[Node]] = {}  # found by the check run: results sharing memory with operands
        self.fresh_ok: set[Node] = set()  # results that own their (writable, ndim >= 1) memory
        #: ``generate``'s second function, ``<fn_name>_unchecked``: the same code without the input guard, for
        #: callers that proved the inputs match ``unchecked_metas`` (None when some input is not a tensor)
        self.unchecked_source: str | None = None
        self.unchecked_metas: list[tuple] | None = None  #: (shape, stride, dtype) per input
        self._name_vars()
        self.ctx = _Ctx(self)

    # --- names and literals -----------------------------------------------------------------------------------------
    def _name_vars(self) -> None:
        taken = set(self.globals)
        for i, n in enumerate(self.nodes):
            base = n.name if n.name.isidentifier() and not keyword.iskeyword(n.name) else f"v{i}"
            name, k = base, 1
            while name in taken or name.startswith(("_in", "_c_", "_np_", "_dtype_", "_op_", "_wrap_out")):
                name, k = f"{base}_v{k}", k + 1
            taken.add(name)
            self.var[n] = name

    def dtype_global(self, dt: Any) -> str:
        name = f"_np_{np.dtype(dt.np_dtype).name}"
        self.globals[name] = np.dtype(dt.np_dtype).type
        return name

    def const(self, x: Any) -> str:
        """A global name bound to the object ``x`` (constants, dispatcher dtypes, Tensors returned as they are)."""
        for k, v in self.globals.items():
            if v is x and k.startswith(("_c_", "_dtype_")):
                return k
        name = f"_c_{len(self.globals)}"
        if hasattr(x, "np_dtype") and isinstance(getattr(x, "name", None), str) and x.name.isidentifier():
            name = f"_dtype_{x.name}"  # a dispatcher dtype (torch.float32)
        self.globals[name] = x
        return name

    def text(self, x: Any) -> str:
        """Source text for an argument: a node's variable, or a literal."""
        if isinstance(x, Node):
            return self.var[x]
        if isinstance(x, bool) or x is None or isinstance(x, (int, str)):
            return repr(x)
        if isinstance(x, float):
            if x != x:
                return "_nan"
            if x in (_INF, -_INF):
                return "_inf" if x > 0 else "(-_inf)"
            return repr(x)
        if isinstance(x, (list, tuple)):
            inner = ", ".join(self.text(e) for e in x)
            return f"[{inner}]" if isinstance(x, list) else f"({inner}{',' if len(x) == 1 else ''})"
        if hasattr(x, "np_dtype"):
            return self.dtype_global(x)
        return self.const(x)

    # --- 1. lowering ------------------------------------------------------------------------------------------------
    @staticmethod
    def bind(node: Node) -> dict:
        schema = node.target._schema
        out: dict[str, Any] = {}
        params = schema.arguments
        for p, a in zip(params, node.args):
            out[p.name] = a
        for p in params[len(node.args):]:
            if p.name in node.kwargs:
                out[p.name] = node.kwargs[p.name]
            elif p.has_default:
                out[p.name] = p.default
        return out

    def lower_node(self, node: Node) -> Lowering:
        target = node.target
        if target is operator.getitem:
            return Lowering("getitem", f"{self.text(node.args[0])}[{node.args[1]}]")
        if getattr(target, "__name__", None) == "_set_grad_enabled":
            return Lowering("noop", "")
        name = str(target)
        rule, inplace = lowering_for(name) if hasattr(target, "_schema") else (None, False)
        low = None
        if rule is not None:
            self.ctx.node = node
            try:
                low = rule(self.ctx, self.bind(node))
            except Exception:  # a rule that cannot handle these arguments declines
                low = None
        if low is not None and inplace:
            low = self._as_inplace(node, low)
        if low is not None and low.kind == "view" and low.view_op is not None:
            low = self._fold_views(low)
        if low is not None and low.kind == "alias":
            self.var[node] = self.var[low.sources[0]]  # the same array: no statement, the same variable
        return low if low is not None else self._fallback(node)

    def _fold_views(self, low: Lowering) -> Lowering:
        """``a.reshape(s1).reshape(s2)`` -> ``a.reshape(s2)`` (and transposes composed) when the middle is read once."""
        src = low.sources[0]
        src_low = self.lowering.get(src)
        if (src_low is None or src_low.kind != "view" or src_low.view_op is None or len(src.users) != 1
                or src_low.view_op[0] != low.view_op[0]):
            return low
        base = src_low.sources[0]
        kind, arg = low.view_op
        if kind == "transpose":
            arg = tuple(src_low.view_op[1][i] for i in arg)
            if arg == tuple(range(len(arg))):
                folded = Lowering("alias", self.var[base], (base,))
                folded.reads = (base,)
                return folded
        folded = Lowering("view", view_text(self.var[base], (kind, arg)), (base,))
        folded.view_op, folded.reads = (kind, arg), (base,)
        return folded

    def _as_inplace(self, node: Node, low: Lowering) -> Lowering | None:
        target = node.args[0]
        if not isinstance(target, Node):
            return None
        dst = self.var[target]
        if low.kind == "ufunc" and not low.post:
            return Lowering("inplace", f"{low.expr}, out={dst})", (target,))
        if low.kind == "fresh" and low.post:  # (scatter_: a copy, then statements completing it) into a temporary
            v = self.var[node]
            steps = [f"{v} = {low.expr}", *(p.format(out=v) for p in low.post), f"np.copyto({dst}, {v}, casting='unsafe')"]
            return Lowering("inplace", "; ".join(steps), (target,), post=(f"{{out}} = {dst}",))
        if low.kind in ("ufunc", "fresh"):
            expr = low.expr + ")" if low.kind == "ufunc" else low.expr
            return Lowering("inplace", f"np.copyto({dst}, {expr}, casting='unsafe')", (target,),
                            post=(f"{{out}} = {dst}",))
        return None

    def _fallback(self, node: Node) -> Lowering:
        op_name = f"_op_{self.var[node]}"
        self.globals[op_name] = node.target
        kwargs = "{" + ", ".join(f"{k!r}: {self.text(v)}" for k, v in node.kwargs.items()) + "}"
        args = self.text(tuple(node.args))
        if str(node.target) not in self.fallback_ops:
            self.fallback_ops.append(str(node.target))
        sources = tuple(a for a in _flat_nodes((node.args, node.kwargs)))
        return Lowering("fallback", f"_fallback_call({op_name}, {args}, {kwargs})", sources)

    def statements(self, node: Node, low: Lowering, out_buffer: str | None = None) -> list[str]:
        v = self.var[node]
        if low.kind in ("noop", "alias"):
            return []
        if low.kind == "ufunc":
            extra = low.dtype_kw
            extra += f", out={out_buffer}" if out_buffer else ""
            lines = [f"{v} = {low.expr}{extra})"]
        elif low.kind == "inplace" and not low.post:
            lines = [f"{v} = {low.expr}"]
        elif low.kind == "inplace":
            lines = [low.expr]
        else:
            lines = [f"{v} = {low.expr}"]
        lines += [p.format(out=v) for p in low.post]
        cast = low.cast
        if cast:
            lines.append(f"{v} = {v}.astype({cast})")
        if node in self.asarray:
            lines.append(f"{v} = np.asarray({v})")
        return lines

    # --- 2. the check run ------------------------------------------------------------------------------------------
    def check(self) -> None:
        env: dict[str, Any] = dict(self.globals)
        for n, val in zip([n for n in self.nodes if n.op == "placeholder"], self.example_values):
            env[self.var[n]] = val
        for n in self.nodes:
            if n.op == "get_attr":
                env[self.var[n]] = _attr(self.gm, n.target)._data
            elif n.op == "call_function":
                low = self.lowering[n] = self.lower_node(n)
                self._check_node(n, low, env)

    def _run(self, node: Node, low: Lowering, env: dict) -> Any:
        env.update(self.globals)
        with np.errstate(all="ignore"):
            exec(compile("\n".join(self.statements(node, low)), "<numpy backend check>", "exec"), env)
        return env.get(self.var[node])

    def _check_node(self, node: Node, low: Lowering, env: dict) -> None:
        expected = node.meta.get("val")
        if low.kind == "inplace":
            # an in-place write into a 0-dim result: ufuncs return NumPy scalars there, so make that one an array
            tgt = low.sources[0]
            tgt_low = self.lowering.get(tgt)
            if (not isinstance(env.get(self.var[tgt]), np.ndarray) and tgt_low is not None
                    and tgt_low.kind in ("ufunc", "fresh", "getitem")):
                self.asarray.add(tgt)
                env[self.var[tgt]] = np.asarray(env[self.var[tgt]])
        try:
            value = self._run(node, low, env)
            problem = _mismatch(value, expected)
            if problem == "dtype" and low.kind in ("ufunc", "fresh", "getitem"):
                if low.kind == "ufunc":
                    low.dtype_kw = f", dtype={self.dtype_global(expected.dtype)}"
                else:
                    low.cast = self.dtype_global(expected.dtype)
                value = self._run(node, low, env)
                problem = _mismatch(value, expected)
                if problem == "dtype" and low.kind == "ufunc":
                    low.dtype_kw = ""
                    low.cast = self.dtype_global(expected.dtype)
                    value = self._run(node, low, env)
                    problem = _mismatch(value, expected)
            if problem is not None and low.kind != "fallback":
                raise _Mismatch(problem)
        except Exception:
            if low.kind == "fallback":
                raise
            low = self.lowering[node] = self._fallback(node)
            value = self._run(node, low, env)
        # memory facts for the alias analysis
        if low.kind in ("ufunc", "fresh", "multi_fresh", "getitem"):
            # a getitem's array came out of its tuple-producing parent: compare it with the parent's operands
            reads = node.args[0] if low.kind == "getitem" else node
            operands = _flat_nodes((reads.args, reads.kwargs))
            arrays = [env.get(self.var[a]) for a in operands]
            outs = value if isinstance(value, tuple) else (value,)
            shared = set()
            for o in outs:
                if isinstance(o, np.ndarray):
                    for a, arr in zip(operands, arrays):
                        if isinstance(arr, np.ndarray) and np.may_share_memory(o, arr):
                            shared.add(a)
            if shared:
                self.shares[node] = shared
            elif (isinstance(value, np.ndarray) and value.ndim >= 1 and value.flags.writeable and value.flags.owndata
                  and low.kind != "multi_fresh"):
                self.fresh_ok.add(node)
        if low.kind == "inplace":
            tgt = low.sources[0]
            if not isinstance(env.get(self.var[tgt]), np.ndarray):
                raise RuntimeError(f"numpy backend: in-place target {tgt.name} is not an array")

    # --- 3. + 4. alias analysis, liveness, buffers --------------------------------------------------------------------
    def plan(self) -> dict[Node, str]:
        dsu = _DSU()
        idx = self.index
        pinned_members: set[int] = set()
        for n in self.nodes:
            i = idx[n]
            dsu.find(i)
            if n.op in ("placeholder", "get_attr"):
                pinned_members.add(i)
            low = self.lowering.get(n)
            if low is None:
                continue
            if low.kind in ("view", "alias", "inplace", "multi_view", "fallback"):
                for s in low.sources:
                    dsu.union(i, idx[s])
            if low.kind == "fallback":
                pinned_members.add(i)
            if low.kind == "getitem":
                parent = self.lowering.get(n.args[0])
                if parent is not None and parent.kind in ("multi_view", "fallback"):
                    dsu.union(i, idx[n.args[0]])
            for s in self.shares.get(n, ()):
                dsu.union(i, idx[s])
        output = self.nodes[-1]
        for a in _flat_nodes(output.args):
            pinned_members.add(idx[a])
        pinned = {dsu.find(i) for i in pinned_members}
        last_use: dict[int, int] = {}
        for n in self.nodes:
            i = idx[n]
            r = dsu.find(i)
            last_use[r] = max(last_use.get(r, i), i)
            for a in _flat_nodes((n.args, n.kwargs)):
                ra = dsu.find(idx[a])
                last_use[ra] = max(last_use.get(ra, i), i)
        self.dsu, self.pinned = dsu, pinned
        # a class can lend its buffer when it is unpinned and its root array was made fresh here
        owner: dict[int, Node] = {}
        used = self.used
        for n in self.nodes:
            r = dsu.find(idx[n])
            if r == idx[n] and n in self.fresh_ok and r not in pinned and n in used:
                owner[r] = n
        dies_at: dict[int, list[int]] = {}
        for r in owner:
            dies_at.setdefault(last_use[r], []).append(r)
        free: dict[tuple, list[tuple[str, int]]] = {}  # (numel, dtype) -> dead buffers (variable, died at)
        buffer_var: dict[int, str] = {r: self.var[n] for r, n in owner.items()}
        buffer_shape = {self.var[n]: tuple(n.meta["val"].shape) for n in owner.values()}
        out_buffers: dict[Node, str] = {}
        for n in self.nodes:
            i = idx[n]
            low = self.lowering.get(n)
            # a receiver may be pinned (an output takes over the dead buffer for good: it never returns to the pool)
            if low is not None and low.kind == "ufunc" and n in self.fresh_ok and dsu.find(i) == i and n in used:
                key = _key(n.meta["val"])
                candidates = free.get(key, [])
                now = list(candidates)
                if low.elementwise:
                    now += [(buffer_var[r], i) for r in dies_at.get(i, []) if _key(owner[r].meta["val"]) == key]
                if now:
                    var, died = now[0]
                    if (var, died) in candidates:
                        candidates.remove((var, died))
                    else:
                        dies_at[i] = [r for r in dies_at[i] if buffer_var[r] != var]
                    shape = tuple(n.meta["val"].shape)
                    # a buffer of another shape is seen through a reshape (a view: the buffers are fresh row-major
                    # arrays; were it ever a copy, the ufunc would write into the copy, still correct)
                    out_buffers[n] = var if buffer_shape[var] == shape else f"{var}.reshape({shape!r})"
                    buffer_var[i] = var
            for r in dies_at.get(i, []):
                free.setdefault(_key(owner[r].meta["val"]), []).append((buffer_var[r], i))
        return out_buffers

    # --- 5. source ---------------------------------------------------------------------------------------------------
    def generate(self, fn_name: str = "forward") -> str:
        self.check()
        self.used = self._used_nodes()
        out_buffers = self.plan()
        placeholders = [n for n in self.nodes if n.op == "placeholder"]
        params = [f"_in{i}" for i in range(len(placeholders))]
        lines = []
        info = self.gm.graph.pytree_info
        if info is not None:
            self.globals["_tree_leaves"] = _tree_leaves
            lines.append(f"def {fn_name}(*args):")
            lines.append(f"    {', '.join(params)}{',' if len(params) == 1 else ''} = _tree_leaves(args)")
        else:
            lines.append(f"def {fn_name}({', '.join(params)}):")
        self.globals["_guard_failed"] = self._guard_failed
        same_object: dict[Node, str] = {}
        checks: set[int] = set()  # indices of the guard's lines (left out of the unchecked function)
        metas: list[tuple] | None = [] if info is None else None
        for p, n, ex in zip(params, placeholders, self.example_values):
            val = n.meta.get("val")
            if isinstance(val, Tensor):
                if metas is not None:
                    metas.append((tuple(val.shape), tuple(val.stride()), val.dtype))
                if self.check_inputs:
                    checks.update((len(lines), len(lines) + 1))
                    # requires_grad (own flag, or a view's base's): class defaults an empty __dict__ keeps
                    rg = f"{p}.__dict__ and ({p}._requires_grad or {p}._base is not None and {p}._base._requires_grad)"
                    lines.append(f"    if {p}.__class__ is not _Tensor or {p}._shape != {tuple(val.shape)!r} or "
                                 f"{p}._dtype is not {self.const(val.dtype)} or {p}._stride != {tuple(val.stride())!r} "
                                 f"or {rg}:")
                    lines.append(f"        return _guard_failed({', '.join(params)})")
                lines.append(f"    {self.var[n]} = {p}._data")
                same_object[n] = p
            else:
                metas = None  # a constant input: only the checked function compares it
                lines.append(f"    if {p} != {self.text(ex)}:")
                lines.append(f"        return _guard_failed({', '.join(params)})")
        for n in self.nodes:
            if n.op == "get_attr":
                lines.append(f"    {self.var[n]} = {self.text(_attr(self.gm, n.target)._data)}")
        for n in self.nodes:
            if n.op != "call_function" or n not in self.used:
                continue
            low = self.lowering[n]
            stmts = self.statements(n, low, out_buffers.get(n))
            for s in stmts:
                lines.append("    " + self._bind_numpy(s))
            if low.kind == "fallback":
                lines[-1] += f"  # fallback: {n.target} through the dispatcher"
            if low.kind == "inplace" or (low.kind == "fallback" and _mutates(n)):
                root = self.dsu.find(self.index[n])
                for pn, p in same_object.items():
                    if self.dsu.find(self.index[pn]) == root and pn.op == "placeholder":
                        lines.append(f"    {p}._version_counter.version += 1")
            if low.kind == "inplace" and low.sources and low.sources[0] in same_object:
                same_object[n] = same_object[low.sources[0]]
        lines.append(f"    return {self._output_text(self.nodes[-1].args[0], same_object)}")
        if metas is not None and checks:
            unchecked = [f"def {fn_name}_unchecked({', '.join(params)}):"]
            unchecked += [line for i, line in enumerate(lines) if i and i not in checks]
            self.unchecked_source = "\n".join(unchecked) + "\n"
            self.unchecked_metas = metas
        return "\n".join(lines) + "\n"

    def _bind_numpy(self, line: str) -> str:
        """``line`` with each ``np.name`` / ``np.name.attr`` reference read from a global bound to that object
        (``np.add.reduce(`` becomes ``_np_add_reduce(``): a global load instead of one or two attribute lookups
        per call, which is measurable on small arrays. References that do not resolve are left as written."""

        def bound(m: re.Match) -> str:
            obj: Any = np
            for part in m.group(1).split("."):
                obj = getattr(obj, part, None)
                if obj is None:
                    return m.group(0)
            name = "_np_" + m.group(1).replace(".", "_")
            if self.globals.setdefault(name, obj) is not obj:
                return m.group(0)  # the name is taken by another object: keep the attribute lookup
            return name

        return _NP_REF.sub(bound, line)

    def _used_nodes(self) -> set[Node]:
        """Nodes whose value is needed: outputs, side effects and what they read (pure dead nodes are skipped)."""
        used: set[Node] = set()
        for n in reversed(self.nodes):
            low = self.lowering.get(n)
            live = n.op == "output" or n in used  # marked by a later node that reads it
            if low is not None and low.kind in ("inplace", "fallback", "noop"):
                live = True
            if live:
                used.add(n)
                used.update(self.reads(n))
        return used

    def reads(self, n: Node) -> list[Node]:
        """The nodes whose variables the code of ``n`` reads (its arguments, unless a fold changed that)."""
        low = self.lowering.get(n)
        if low is not None and low.reads is not None:
            return list(low.reads)
        if low is not None and low.kind == "alias":
            return list(low.sources)
        return _flat_nodes((n.args, n.kwargs))

    def _output_text(self, out: Any, same_object: dict[Node, str]) -> str:
        info = self.gm.graph.pytree_info
        wrapped: dict[Node, str] = {}

        def leaf(x: Any) -> str:
            if isinstance(x, Node):
                if x in same_object:
                    return same_object[x]
                if x.op == "get_attr":
                    return self.text(_attr(self.gm, x.target))
                val = x.meta.get("val")
                if not isinstance(val, Tensor):
                    return self.var[x]
                if x not in wrapped:  # C-contiguous arrays (the usual result): a wrapper with the shape bound
                    v, dt = self.var[x], self.const(val.dtype)
                    w = f"_wrap_out{len(wrapped)}"
                    self.globals[w] = Tensor._contiguous_wrapper(tuple(int(s) for s in val.shape), val.dtype)
                    wrapped[x] = (f"({w}({v}) if {v}.__class__ is _ndarray and "
                                  f"{v}.flags.c_contiguous else _wrap({v}, {dt}))")
                return wrapped[x]
            return self.text(x)

        def tree(x: Any) -> str:
            if isinstance(x, (list, tuple)):
                inner = ", ".join(tree(e) for e in x)
                return f"[{inner}]" if isinstance(x, list) else f"({inner}{',' if len(x) == 1 else ''})"
            if isinstance(x, dict):
                return "{" + ", ".join(f"{k!r}: {tree(v)}" for k, v in x.items()) + "}"
            return leaf(x)

        if info is not None:
            self.globals["_tree_unflatten"] = _tree_unflatten
            self.globals["_out_spec"] = info.out_spec
            return f"_tree_unflatten({tree(list(out))}, _out_spec)"
        return tree(out)

    def _guard_failed(self, *args: Any) -> Any:
        """Inputs unlike the example (the generated guard failed): an error, or a slower correct path.

        Other shapes, dtypes or constants: a ValueError. Other strides (the generated views assume the example's
        layout): the aten graph runs through the dispatcher. An input that requires grad, with grad mode on: the
        original callable runs eagerly (``autograd_fn``), so results carry autograd history as in eager (the
        generated code records none). Tensor subclasses (and requires-grad inputs with grad mode off): the aten
        graph runs through the dispatcher.
        """
        placeholders = [n for n in self.nodes if n.op == "placeholder"]
        for i, (a, n) in enumerate(zip(args, placeholders)):
            val = n.meta.get("val")
            if isinstance(val, Tensor):
                if not isinstance(a, Tensor):
                    raise TypeError(f"numpy backend: input {i} ({n.name}) must be a Tensor, got {type(a).__name__}")
                if tuple(a.shape) != tuple(val.shape) or a.dtype is not val.dtype:
                    raise ValueError(
                        f"numpy backend: input {i} ({n.name}) was compiled for shape {list(val.shape)} and dtype "
                        f"{val.dtype}, got shape {list(a.shape)} and dtype {a.dtype}; compile again "
                        "for these inputs")
            elif a != self.example_values[i]:
                raise ValueError(f"numpy backend: input {i} ({n.name}) was compiled for the constant "
                                 f"{self.example_values[i]!r}, got {a!r}; compile again for this value")
        info = self.gm.graph.pytree_info
        nested = _tree_unflatten(list(args), info.in_spec) if info is not None else args
        if self.autograd_fn is not None and any(isinstance(a, Tensor) and a.requires_grad for a in args):
            from dispatcher.autograd.grad_mode import is_grad_enabled

            if is_grad_enabled():
                if not self._said_autograd:
                    self._said_autograd = True
                    log.warning("numpy backend: an input requires grad: running %s eagerly so that autograd "
                                "records it (the generated NumPy code records no autograd history)",
                                getattr(self.autograd_fn, "__name__", type(self.autograd_fn).__name__))
                return self.autograd_fn(*nested)
        return self.gm(*nested)


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


def _key(val: Any) -> tuple:
    """Buffers are interchangeable when they hold as many elements of the same dtype."""
    n = 1
    for s in val.shape:
        n *= int(s)
    return n, np.dtype(val.dtype.np_dtype)


def _mutates(node: Node) -> bool:
    """Does the node's op write into one of its arguments (an ``(a!)`` annotation in its schema)?"""
    schema = getattr(node.target, "_schema", None)
    return schema is not None and any(getattr(a, "is_write", False) for a in schema.arguments)


def _flat_nodes(tree: Any) -> list[Node]:
    out: list[Node] = []

    def walk(x: Any) -> None:
        if isinstance(x, Node):
            out.append(x)
        elif isinstance(x, (list, tuple)):
            for e in x:
                walk(e)
        elif isinstance(x, dict):
            for e in x.values():
                walk(e)

    walk(tree)
    return out


def _attr(gm: Any, target: str) -> Any:
    obj = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def _tree_leaves(args: Any) -> list:
    from .. import pytree

    return pytree.tree_leaves(list(args))


def _tree_unflatten(leaves: list, spec: Any) -> Any:
    from .. import pytree

    return pytree.tree_unflatten(leaves, spec)
