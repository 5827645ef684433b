"""Writes the tutorial notebooks (output-free) from the cell lists below: ``python notebooks/make_notebooks.py``.

The notebooks are generated so that their text stays reviewable as plain Python; the test suite
executes every ``*.ipynb`` here top to bottom (tests/test_notebooks.py) and checks that the
committed files match this script.
"""

from __future__ import annotations

import os
import sys

import nbformat

HERE = os.path.dirname(os.path.abspath(__file__))

NOTEBOOKS: dict[str, list[tuple[str, str]]] = {}


def md(text: str) -> tuple[str, str]:
    return ("markdown", text.strip("\n"))


def code(text: str) -> tuple[str, str]:
    return ("code", text.strip("\n"))


NOTEBOOKS["01_dispatcher.ipynb"] = [
    md("""
# 1. The dispatcher: keys, key sets, tables, the Python dispatcher

Every operator call goes through a **dispatcher**. It computes a *key set* from the tensors' keys
plus the thread-local include set minus the exclude set, picks the highest-priority key, and calls
the kernel the operator's *dispatch table* holds for that key. This notebook walks through each
piece with `dispatcher` used exactly like `torch`.
"""),
    code("""
import dispatcher as torch
from dispatcher import DispatchKey, DispatchKeySet, Library, ops, full_after
from dispatcher.python_dispatcher import PythonDispatcher

x = torch.randn(2, 3)
print(torch._C._dispatch_keys(x))          # the keys a CPU tensor carries into every call
print(torch.tls_local_include_set(), torch.tls_local_exclude_set())
"""),
    md("""
## Key sets are bitmasks; priority is the key's position
A key set is one integer. The dispatcher picks the highest bit: autograd runs before the backend.
"""),
    code("""
ks = DispatchKeySet([DispatchKey.CPU, DispatchKey.AutogradCPU, DispatchKey.Python])
print(ks, '->', ks.highest_priority_type_id())
print((ks - DispatchKeySet(DispatchKey.AutogradCPU)).highest_priority_type_id())
print(ks & full_after(DispatchKey.AutogradOther))   # what autograd redispatches with
"""),
    md("""
The same key set drawn as its 64 bits (`passes` draws key sets and explanations in Jupyter once imported):
the functionality bits, highest priority on the left, and the backend bits; outlined are the highest of
each, which together name the key the set dispatches to.
"""),
    code("""
import passes
ks
"""),
    md("""
## One call, hop by hop
`explain_dispatch` runs a call once and records every hop: where each key came from, which
kernel ran and why.
"""),
    code("""
print(torch.explain_dispatch(ops.aten.add.Tensor, x, 1))
"""),
    md("""
Left as a cell's value, the explanation is a diagram: one box per hop, nested calls indented.
"""),
    code("""
torch.explain_dispatch(ops.aten.linear.default, x, torch.randn(4, 3, requires_grad=True))
"""),
    md("""
## Dispatch tables
Each operator has a table computed from its registrations with PyTorch's precedence rules
(direct registration > CompositeExplicitAutograd > CompositeImplicitAutograd > fallback).
`linear` has only a CompositeImplicitAutograd kernel (a decomposition), so it fills every key:
"""),
    code("""
print('\\n'.join(ops.aten.linear.default.dump_table().splitlines()[:8]))
"""),
    md("""
As a grid: one row per runtime key, one column per place a kernel can come from (highest precedence on
the left); the coloured cell is the rule that won. `compact=True` merges runs of keys with the same entry.
"""),
    code("""
passes.dispatch_table(ops.aten.linear.default, compact=True)
"""),
    md("""
## Your own operator
`Library` works as `torch.library`: define a schema, register kernels per key. The Autograd
kernel redispatches below itself, as PyTorch's autograd kernels do.
"""),
    code("""
lib = Library("nb", "DEF")
lib.define("scale(Tensor x, float factor=2.0) -> Tensor")
lib.impl("scale", lambda x, factor=2.0: x * factor, "CPU")
lib.impl("scale", lambda ks, x, factor=2.0: ops.nb.scale.default.redispatch(
    ks & full_after(DispatchKey.AutogradOther), x, factor), "Autograd", with_keyset=True)
print(ops.nb.scale.default(torch.ones(3)))
print(torch.explain_dispatch(ops.nb.scale.default, torch.ones(3)))
"""),
    md("""
## A custom operator with `torch.library.custom_op`
The high-level API writes the registrations for you: the schema comes from the type hints, the function
becomes the kernel of every device (CompositeExplicitAutograd), `register_fake` gives the Meta kernel that
FakeTensorMode and make_fx's fake mode run, `register_autograd` an Autograd kernel, and `mutates_args` an
ADInplaceOrView kernel that bumps version counters. The dump shows each registration; `explain_dispatch`
shows where one call goes (Autograd kernel, then the device kernel, then the aten ops inside).
"""),
    code("""
from dispatcher import Tensor
from tracer import make_fx

@torch.library.custom_op("nb::mysin", mutates_args=())
def mysin(x: Tensor, scale: float = 1.0) -> Tensor:
    return torch.sin(x) * scale

@mysin.register_fake
def _(x, scale=1.0):
    return torch.empty_like(x)

def setup_context(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])
    ctx.scale = inputs[1]

def backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * torch.cos(x) * ctx.scale, None

mysin.register_autograd(backward, setup_context=setup_context)
print(ops.nb.mysin.default._schema)
print(torch._C._dispatch_dump("nb::mysin"))
"""),
    code("""
x = torch.randn(3, requires_grad=True)
y = mysin(x, 2.0)
y.sum().backward()
print(y.grad_fn, float((x.grad - 2 * torch.cos(x)).abs().max()))
print(torch.explain_dispatch(ops.nb.mysin.default, torch.ones(2, requires_grad=True)))
print(make_fx(lambda t: mysin(t, 3.0) + 1, tracing_mode="fake")(torch.randn(4)).code)   # one node
"""),
    md("""
## The seed's hooks: `torch._C._dispatch_library`
Underneath, `Library` is the hook PyTorch's own C++ tests and the original `PythonDispatcher` use. The old
alias names `Math` and `DefaultBackend` still parse here.
"""),
    code("""
ref = torch._C._dispatch_library("FRAGMENT", "nb_seed", "")
ref.def_("foo(Tensor x) -> Tensor").impl_t_t("foo", dispatch="Math", debug="fn_Math")
ref.impl_t_t("foo", dispatch="CPU", debug="fn_CPU")
print(torch._C._dispatch_dump("nb_seed::foo"))
print("\\n".join(l for l in torch._C._dispatch_dump_table("nb_seed::foo").splitlines()
                if l.split(":")[0] in ("CPU", "XLA", "AutogradCPU", "AutogradOther")))
del ref                                       # the registrations go with the handle
print(repr(torch._C._dispatch_dump("nb_seed::foo")))
"""),
    md("""
## The teaching `PythonDispatcher`
Register generated kernels on any mix of keys and read off the table the dispatcher computes,
the same text PyTorch's `torch._python_dispatcher.PythonDispatcher` prints.
"""),
    code("""
d = PythonDispatcher()
d.register(["CPU", "XLA", "CompositeImplicitAutograd"])
print(d.dispatchTable())
"""),
    md("""
## The guards: `_EnablePythonDispatcher`, `_DisablePythonDispatcher`, `_EnablePreDispatch`
They only flip bits of the thread-local include set, and restore what they found on exit (also
when the body raises). With the **PythonDispatcher** key included, every call first looks for a
Python kernel registered with `op.py_impl(key)` for the key it would go to. **PreDispatch** is the
hook `make_fx(pre_dispatch=True)` uses, above autograd.
"""),
    code("""
print('before:', torch.tls_local_include_set())
with torch._C._EnablePythonDispatcher():
    print('python dispatcher on:', torch._C._is_python_dispatcher_enabled(), torch.tls_local_include_set())
    with torch._C._DisablePythonDispatcher():
        print('  disabled inside:', torch._C._is_python_dispatcher_enabled())
with torch._C._EnablePreDispatch():
    print('pre-dispatch:', torch.tls_local_include_set())
print('after:', torch.tls_local_include_set())
"""),
    md("""
## Overriding a kernel from Python: `py_impl`
A Python kernel for `aten.matmul` at CompositeImplicitAutograd replaces the C++-style
decomposition, but only while the Python dispatcher is on.
"""),
    code("""
matmul = ops.aten.matmul.default
calls = []

@matmul.py_impl(DispatchKey.CompositeImplicitAutograd)
def my_matmul(a, b):
    calls.append((tuple(a.shape), tuple(b.shape)))
    return (a.unsqueeze(-1) * b.unsqueeze(-3)).sum(-2)     # a broadcast-multiply-sum decomposition

a, b = torch.randn(2, 3), torch.randn(3, 4)
try:
    plain = matmul(a, b)                   # Python dispatcher off: the usual kernel
    with torch._C._EnablePythonDispatcher():
        mine = matmul(a, b)                # now my_matmul runs
finally:
    del matmul.py_kernels[DispatchKey.CompositeImplicitAutograd]
    matmul._dispatch_cache.clear()
print(calls, float((plain - mine).abs().max()))
"""),
]

NOTEBOOKS["02_modes.ipynb"] = [
    md("""
# 2. Dispatch modes, tensor subclasses and fake tensors

A `TorchDispatchMode` sees every aten op that reaches the **Python** key, i.e. after autograd and
after CompositeImplicitAutograd decompositions. Modes stack; the top one runs first and is popped
while it runs.
"""),
    code("""
import dispatcher as torch
import dispatcher.nn.functional as F
from dispatcher import TorchDispatchMode, TorchFunctionMode

class Logging(TorchDispatchMode):
    def __init__(self, tag):
        super().__init__()
        self.tag, self.seen = tag, []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.append(str(func))
        return func(*args, **(kwargs or {}))

x, w = torch.randn(2, 3), torch.randn(4, 3, requires_grad=True)
with Logging("a") as log:
    y = F.linear(x, w).relu().sum()
print(log.seen)      # linear arrives decomposed: t + mm
"""),
    md("""
Where the mode gets control: under a mode the dispatcher's path goes through the **Python** key (the
mode's handler), after AutogradCPU has redispatched below itself.
"""),
    code("""
import passes
with Logging("b"):
    path = torch.explain_dispatch(torch.ops.aten.mul.Tensor, w, 2.0)
passes.explain_picture(path)
"""),
    md("""
## Nested modes and state
The inner mode (entered last) runs first; when it calls the op again, the outer mode sees it.
"""),
    code("""
class Counter(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.counts = {}
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts[str(func)] = self.counts.get(str(func), 0) + 1
        return func(*args, **(kwargs or {}))

with Counter() as outer, Logging("inner") as inner:
    (x * 2 + 1).exp()
print(inner.seen, outer.counts)
"""),
    md("""
## Backward ops go through modes too
Autograd's formulas are written with aten ops, so a mode active during `backward()` sees them,
including the `detach` calls autograd makes for saved tensors.
"""),
    code("""
with Logging("bw") as log:
    y.backward()
print(log.seen)
"""),
    md("""
## Tensor subclasses vs modes
A subclass with `__torch_dispatch__` intercepts ops on *its* tensors only; a mode sees everything.
`LoggingTensor` wraps a tensor and logs the ops that touch it; `capture_logs` collects the lines.
"""),
    code("""
from dispatcher.modes.logging_tensor import LoggingTensor, capture_logs
lt = LoggingTensor(torch.randn(3))
with capture_logs() as lines:
    out = (lt * 2).sum() + torch.ones(())     # the plain tensor's op is logged because lt takes part
print(type(out).__name__)
print("\\n".join(lines))
"""),
    md("""
## TorchFunctionMode: above the dispatcher
A `TorchFunctionMode` sees the *Python-level* calls (`torch.add`, `Tensor.relu`, `F.linear`)
before any dispatching, so `F.linear` is still one call there.
"""),
    code("""
class FnLog(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.seen = []
    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.seen.append(getattr(func, '__name__', str(func)))
        return func(*args, **(kwargs or {}))

with FnLog() as fl:
    F.linear(x, w.detach()).relu()
print(fl.seen)
"""),
    md("""
## Fake tensors
Inside a `FakeTensorMode`, tensors carry shape, dtype and device but no data; every op runs its
meta kernel. Data-dependent operations raise a specific error.
"""),
    code("""
from dispatcher.fake import FakeTensorMode
with FakeTensorMode() as mode:
    a = mode.from_tensor(torch.randn(8, 32))
    b = torch.randn(32, 16)
    c = (a @ b).softmax(-1)
    print(type(c).__name__, c.shape, c.dtype)
    try:
        c.sum().item()
    except Exception as e:
        print(type(e).__name__, e)
"""),
    md("""
A graph recorded on fake tensors, drawn: shapes flow (every box shows `f32[...]`), no data is computed.
"""),
    code("""
from tracer import make_fx
make_fx(lambda x, w: F.linear(x, w).relu().sum(), tracing_mode="fake")(torch.randn(8, 3), torch.randn(4, 3))
"""),
]

NOTEBOOKS["03_make_fx.ipynb"] = [
    md("""
# 3. make_fx: capturing graphs before and after dispatch

`make_fx` records the aten ops a function runs into a graph. **Post-dispatch** (the default)
records on the Python key, after autograd and decompositions; **pre-dispatch** records on the
PreDispatch key, before both, so the graph can be replayed under autograd.
"""),
    code("""
import dispatcher as torch
import dispatcher.nn.functional as F
from tracer import make_fx

def f(x, w, b):
    return F.layer_norm(F.softmax(F.linear(x, w, b), -1), (4,))

x, w, b = torch.randn(2, 3), torch.randn(4, 3), torch.randn(4)
post = make_fx(f)(x, w, b)
pre = make_fx(f, pre_dispatch=True)(x, w, b)
post.print_readable(); pre.print_readable();
"""),
    md("""
Side by side: post-dispatch (left: `t` + `addmm`, `_softmax`, `native_layer_norm`) and pre-dispatch
(right: `linear`, `softmax`, `layer_norm` kept whole). A GraphModule left as a cell's value is drawn the
same way, in a box that scrolls; `passes.view([pre, post])` opens both in the interactive viewer, with
matching nodes linked.
"""),
    code("""
import passes
passes.side_by_side(post, pre, titles=["post-dispatch", "pre-dispatch"])
"""),
    md("""
## Decompositions from Python
A `decomposition_table` applies where the op *reaches the proxy mode*: post-dispatch, `linear` never
does (it is already `t` + `addmm`), but `addmm` and `_softmax` do.
"""),
    code("""
aten = torch.ops.aten

def my_addmm(bias, a, m, beta=1, alpha=1):
    return torch.mm(a, m) + bias

table = {aten.addmm.default: my_addmm, aten.linear.default: lambda *a: 1 / 0}
print(make_fx(f, decomposition_table=table)(x, w, b).code)
"""),
    md("""
## Joint graphs: backward inside the traced function
When the function calls `backward()`, the backward ops are recorded too: one joint graph. Our
pre-dispatch traces also track autograd's saved tensors, so the graph stays right on new inputs.
"""),
    code("""
import inspect
from tracer.examples import train_step, example_inputs
print(inspect.getsource(train_step))
args = example_inputs("train_step")      # the weights require grad
joint = make_fx(train_step)(*args)
print(joint.code)
"""),
    md("""
The joint graph drawn: the forward on top, autograd's backward ops (pink) below it, then the update.
"""),
    code("""
joint
"""),
    md("""
## Replay under autograd
A pre-dispatch graph still contains `linear`, `softmax`, `layer_norm` as ops with derivative
formulas, so replaying it with `requires_grad` inputs and calling `backward()` gives the same
gradients as the original function.
"""),
    code("""
import numpy as np
fresh = [torch.randn(2, 3), torch.randn(4, 3), torch.randn(4)]
e = [t.clone().requires_grad_() for t in fresh]
r = [t.clone().requires_grad_() for t in fresh]
f(*e).sum().backward()
pre(*r).sum().backward()
print([float((a.grad - b.grad).abs().max()) for a, b in zip(e, r)])
"""),
    md("""
## Fake tracing
`tracing_mode="fake"` traces on fake tensors: the same graph, no data computed.
"""),
    code("""
fake_gm = make_fx(f, tracing_mode="fake")(x, w, b)
print([str(n.target) for n in fake_gm.graph.nodes if n.op == "call_function"] ==
      [str(n.target) for n in post.graph.nodes if n.op == "call_function"])
"""),
    md("""
## Models: nodes know their module
Tracing an `nn.Module`, make_fx records each node's module path in `node.meta["nn_module_stack"]`
(torch.export's format). Big graphs are drawn by module: each block is a frame, its calls closed boxes
named by path (`passes.show(gm, rankdir="LR")` lays it out left to right).
"""),
    code("""
import dispatcher.nn as nn

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm, self.fc, self.act = nn.LayerNorm(16), nn.Linear(16, 16), nn.GELU()
    def forward(self, x):
        return x + self.act(self.fc(self.norm(x)))

model = nn.Sequential(*[Block() for _ in range(6)])
big = make_fx(model)(torch.randn(4, 16))
print(len(big.graph.nodes), "nodes;", [n.meta["nn_module_stack"] for n in big.graph.nodes if n.name == "addmm_3"])
big
"""),
]

NOTEBOOKS["04_compile.ipynb"] = [
    md("""
# 4. compile(): graph breaks and Dynamo's fine-grained controls

`tracer.compile(fn)` captures the tensor operations `fn` runs at the *torch-function* level, lazily,
and breaks the graph where Python needs a real value or where you ask it to: `graph_break()`, a
`disable`d function, a `disallow_in_graph` callable. `allow_in_graph(fn)` keeps a call as one opaque
node. `explain(fn)(*args)` reports the graphs, the breaks and why, like `torch._dynamo.explain`.
"""),
    code("""
import dispatcher as torch
import tracer

def fn(x):
    y = x.sin()
    tracer.graph_break()
    return y.cos() + 1

report = tracer.explain(fn)(torch.randn(4))
print(report)
"""),
    md("""
The graphs `explain` captured, drawn next to each other: the break sits between them.
"""),
    code("""
import passes
passes.side_by_side(*report.graphs, titles=[f"graph {i + 1}" for i in range(len(report.graphs))])
"""),
    md("""
## `disable`: recursive or only the function's own frame
`disable(helper)` runs `helper` and everything it calls eagerly. With `recursive=False` only
`helper`'s own frame runs eagerly: what it calls is captured again, as its own graph.
"""),
    code("""
def helper_inner(x):
    return x * 3

def helper(x):
    return helper_inner(x) + 2

def g(x):
    return helper(x.sin()).cos()

for recursive in (True, False):
    tracer.reset()
    marked = tracer.disable(helper, recursive=recursive)
    def run(x, marked=marked):
        return marked(x.sin()).cos()
    r = tracer.explain(run)(torch.randn(4))
    print(f"recursive={recursive}: {r.graph_count} graphs, {r.graph_break_count} breaks,",
          [reason.reason for reason in r.break_reasons])
"""),
    md("""
## `disallow_in_graph` and `allow_in_graph`
Disallowing a torch function makes each call a graph break; allowing a user function makes it one
node that the graph does not look inside.
"""),
    code("""
def h(x):
    return torch.add(torch.sub(torch.add(x, 1), 2), 3)

tracer.reset()
tracer.disallow_in_graph(torch.sub)
print(tracer.explain(h)(torch.randn(4)).graph_count)    # two graphs: sub runs eagerly between them
tracer.allow_in_graph(torch.sub)
print(tracer.explain(h)(torch.randn(4)).graph_count)    # one graph again

def weird(x):
    return x * len(str(x.shape))

tracer.allow_in_graph(weird)
def k(x):
    return weird(x.sin()).cos()
for gm in tracer.explain(k)(torch.randn(4)).graphs:
    print(gm.code)
"""),
    md("""
## The limitation of torch-function-level controls
These controls see *Python-level* calls. `x + y` never calls `aten.add.Tensor` at that level (it
reaches the dispatcher later), so disallowing the aten overload has no effect on it; you are warned.
"""),
    code("""
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    tracer.disallow_in_graph(torch.ops.aten.add.Tensor)
print([str(w.message)[:120] for w in caught])
"""),
    md("""
## Data-dependent Python, fullgraph, caching and backends
`if t.sum() > 0:` needs a real value: the graph breaks there. `fullgraph=True` turns such accidental
breaks into an error naming the line. Compiled segments are cached by structure and input metadata.
"""),
    code("""
def branchy(x):
    y = x * 2
    if y.sum() > 0:
        return y.exp()
    return y.neg()

tracer.reset()
c = tracer.compile(branchy, backend="eager")
x = torch.randn(8)
print(float((c(x) - branchy(x)).abs().max()))
c(x); c(x)
print(tracer.compile_stats())
try:
    tracer.compile(branchy, fullgraph=True)(x)
except tracer.Unsupported as e:
    print(type(e).__name__, str(e).splitlines()[0])
"""),
    code("""
from tracer.examples import EXAMPLES, example_inputs
mlp = EXAMPLES["mlp"].fn
inputs = example_inputs("mlp")
fast = tracer.compile(mlp, backend="numpy")
print(float((fast(*inputs) - mlp(*inputs)).abs().max()))
"""),
]

NOTEBOOKS["05_passes.ipynb"] = [
    md("""
# 5. Graph passes: drawing, networkx analyses, transforms, serialization

Everything in `passes` takes a captured `GraphModule`.
"""),
    code("""
import dispatcher as torch
import dispatcher.nn.functional as F
from tracer import make_fx
from tracer.examples import EXAMPLES, example_inputs
import passes

block = EXAMPLES["transformer_block"].fn
gm = make_fx(block)(*example_inputs("transformer_block"))
gm            # drawn inline in Jupyter, in a box that scrolls (GraphModule._repr_html_)
"""),
    md("""
## Statistics and networkx analyses
"""),
    code("""
print(passes.op_stats(gm))
G = passes.to_networkx(gm.graph)
print(G.number_of_nodes(), "nodes;", "parallelism per generation:", passes.parallelism_profile(gm.graph)[:12])
path, cost = passes.critical_path(gm.graph)
print("critical path:", len(path), "nodes")
print("peak live memory estimate:", passes.liveness(gm.graph))
"""),
    md("""
The same statistics as a table (readable units, the share of FLOPs per op), and the live bytes per node
with the peak marked.
"""),
    code("""
passes.op_stats(gm)
"""),
    code("""
passes.liveness(gm.graph)
"""),
    md("""
## Transforms: DCE, CSE, shape propagation
"""),
    code("""
def f(x):
    a = x.sin() + x.sin()      # the same pure op twice
    unused = x.cos()           # dead
    return a

g = make_fx(f)(torch.randn(3))
print(g.code)
g = passes.common_subexpression_elimination(g)
g = passes.dead_code_elimination(g)
print(g.code)
passes.shape_propagation(g, torch.randn(5))
print([(n.name, tuple(n.meta["val"].shape)) for n in g.graph.nodes if n.op == "call_function"])
"""),
    md("""
Before and after the transforms, drawn side by side.
"""),
    code("""
passes.side_by_side(make_fx(f)(torch.randn(3)), g, titles=["traced", "after CSE + DCE"])
"""),
    md("""
## Functionalization and pattern rewriting
"""),
    code("""
def mutate(x):
    y = x.clone()
    y.add_(1)
    y.view(-1).mul_(2)
    return y

m = make_fx(mutate)(torch.randn(2, 3))
pure = passes.functionalize(m)
print(pure.code)

def pattern(a):
    return a.sin().cos()
def replacement(a):
    return a.cos()
h = make_fx(lambda x: x.sin().cos() + x.sin().cos().exp())(torch.randn(3))
matches = passes.replace_pattern(h, pattern, replacement, example_inputs=[torch.randn(3)])
print(len(matches), "matches"); print(h.code)
"""),
    md("""
## The interactive viewer
`passes.view(gm)` is one self-contained HTML page (`.save("g.html")`; inline here): drag to pan, wheel
to zoom, search by op or name, click a node for its details, open and close module groups. With two
graphs (`passes.view([a, b])`) clicking a node highlights its matches in the other graph.
"""),
    code("""
passes.view([m, pure], titles=["with mutations", "functionalized"])
"""),
    md("""
## Replay and safe serialization
`replay` runs a graph eagerly and, given the original function, reports the first node whose value
differs. `save` / `load` use a versioned JSON format; loading never executes anything from the file.
"""),
    code("""
import os, tempfile
fresh = example_inputs("transformer_block", seed=1)
passes.replay(gm, *fresh, check_against=block)
path = os.path.join(tempfile.mkdtemp(), "block.json")
passes.save(gm, path)
back = passes.load(path)
print(back.code == gm.code, float((back(*fresh) - block(*fresh)).abs().max()))
"""),
]


def build(name: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell(src) if kind == "markdown" else nbformat.v4.new_code_cell(src)
                for kind, src in NOTEBOOKS[name]]
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"c{i:02d}"
    return nb


def main() -> int:
    for name in NOTEBOOKS:
        nbformat.write(build(name), os.path.join(HERE, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
