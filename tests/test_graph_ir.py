"""The graph IR (tracer/graph.py, graph_module.py, pytree.py) against torch.fx.

The main oracle: a graph captured by torch's make_fx is rebuilt node by node in our IR
(targets mapped to our operators, meta["val"] to our tensors) and the printed code, the
readable print and the graph printout must equal torch's text. The rest checks the Node /
Graph API, every lint rule, code injection attempts, pytrees and GraphModule behaviour.
"""

from __future__ import annotations

import builtins
import collections
import difflib
import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dispatcher as ours
from tracer import Graph, GraphLintError, GraphModule, Namespace, PyTreeInfo, map_arg, python_code, pytree

aten = ours.ops.aten


# ---------------------------------------------------------------------------------------
# helpers: torch graph -> our graph
# ---------------------------------------------------------------------------------------


def _ours_value(torch, v):
    if isinstance(v, (torch.dtype, torch.memory_format, torch.layout)):
        return getattr(ours, str(v).split(".")[-1])
    if isinstance(v, torch.device):
        return ours.device(v.type, v.index)
    return v


def _ours_target(torch, t):
    if isinstance(t, torch._ops.OpOverload):
        return getattr(getattr(aten, t.overloadpacket.__name__), t._overloadname)
    return t


def _ours_tensor(torch, t):
    return ours.tensor(t.detach().numpy().copy())


def _meta_val(torch, v):
    if isinstance(v, torch.Tensor):
        return aten.empty_strided.default(list(v.shape), list(v.stride()), dtype=_ours_value(torch, v.dtype))
    if isinstance(v, (list, tuple)):
        return type(v)(_meta_val(torch, a) for a in v)
    return v


def _ours_spec(spec):
    if spec is None:
        return None
    if spec.is_leaf():
        return pytree.LeafSpec()
    kind = spec.context if spec.type is collections.namedtuple else spec.type  # torch files namedtuples so
    return pytree.TreeSpec(kind, spec.context, [_ours_spec(c) for c in spec.children()])


def translate(torch, tgm, *, keep_names: bool = True) -> GraphModule:
    """Rebuild torch GraphModule ``tgm`` in our IR. Without keep_names, nodes are named by our rules."""
    graph, env, consts = Graph(), {}, {}

    def conv(a):
        if isinstance(a, torch.fx.Node):
            return env[a]
        if isinstance(a, (list, tuple)):
            return type(a)(conv(x) for x in a)
        if isinstance(a, dict):
            return {k: conv(v) for k, v in a.items()}
        return _ours_value(torch, a)

    for n in tgm.graph.nodes:
        if n.op == "placeholder":
            new = graph.placeholder(n.target)
        elif n.op == "get_attr":
            new = graph.get_attr(n.target)
            consts[n.target] = _ours_tensor(torch, getattr(tgm, n.target))
        elif n.op == "output":
            new = graph.output(conv(n.args[0]))
        else:
            new = graph.create_node(n.op, _ours_target(torch, n.target), conv(n.args), conv(n.kwargs),
                                    name=n.name if keep_names else None)
        if "val" in n.meta:
            new.meta["val"] = _meta_val(torch, n.meta["val"])
        if n.meta.get("stack_trace"):
            new.meta["stack_trace"] = n.meta["stack_trace"]
        env[n] = new
    info = getattr(tgm.graph._codegen, "pytree_info", None)
    if info is not None:
        graph.pytree_info = PyTreeInfo(list(info.orig_args), _ours_spec(info.in_spec), _ours_spec(info.out_spec))
    graph.traced = True
    return GraphModule(consts, graph, class_name=type(tgm).__name__)


def assert_same_text(expected: str, actual: str) -> None:
    if expected != actual:
        diff = "\n".join(difflib.unified_diff(expected.split("\n"), actual.split("\n"), "torch", "ours", lineterm=""))
        raise AssertionError("printed text differs from torch's:\n" + diff)


def _to_torch(torch, v):
    if isinstance(v, ours.Tensor):
        return torch.from_numpy(np.array(v.numpy()))
    if isinstance(v, (list, tuple)):
        return type(v)(_to_torch(torch, a) for a in v)
    if isinstance(v, dict):
        return {k: _to_torch(torch, a) for k, a in v.items()}
    return v


def _to_ours(torch, v):
    if isinstance(v, torch.Tensor):
        return _ours_tensor(torch, v)
    if isinstance(v, (list, tuple)):
        return type(v)(_to_ours(torch, a) for a in v)
    if isinstance(v, dict):
        return {k: _to_ours(torch, a) for k, a in v.items()}
    return v


def assert_close_tree(torch, expected, actual):
    exp_leaves, exp_spec = torch.utils._pytree.tree_flatten(expected)
    act_leaves, _ = pytree.tree_flatten(_to_torch(torch, actual))
    assert len(exp_leaves) == len(act_leaves)
    assert repr(_ours_spec(exp_spec)) == repr(pytree.tree_structure(actual))
    for e, a in zip(exp_leaves, act_leaves):
        if isinstance(e, torch.Tensor):
            torch.testing.assert_close(a, e.detach(), rtol=1e-5, atol=1e-6)
        else:
            assert a == e or (a != a and e != e)


# ---------------------------------------------------------------------------------------
# programs traced by torch's make_fx
# ---------------------------------------------------------------------------------------


def _programs(torch):
    F = torch.nn.functional

    def linear_softmax_layer_norm(x, w, b):
        return F.layer_norm(F.softmax(F.linear(x, w, b), -1), (4,))

    def inplace_and_views(x, y):
        x.add_(y)
        v = x.view(-1)
        v.mul_(2)
        return v

    def constants_and_scalars(x, n, s):
        return x * n + torch.tensor([1.0, 2.0]) + s + torch.tensor([1.0, 2.0, 3.0]).sum() + torch.ones(2)

    def joint_grad(x, w):
        loss = torch.relu(x @ w).sum()
        (gw,) = torch.autograd.grad(loss, [w])
        return loss, gw

    def nested_inputs(d, seq):
        x = d["a"] + seq[0]
        return (x.sin(), [x.cos(), {"k": x.clone(memory_format=torch.contiguous_format),
                                    "j": torch.ones(2, dtype=torch.float64)}], 7, None, "str", float("inf"))

    def nested_outputs(x):
        return (x.sin(), [x.cos(), {"k": x + 1}], 7, -float("inf"))

    def slicing(x):
        return x[0:1, 1], x[..., None].sum(dim=(0, 1), keepdim=True), x.masked_fill(x > 0, float("-inf"))

    def mlp_step(x, w1, w2, t):
        h = torch.relu(x @ w1)
        loss = F.mse_loss(h @ w2, t)
        loss.backward()
        return loss, w1.grad, w2.grad

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 4)

        def forward(self, x):
            y = x.sin()
            z = self.lin(y)
            return z.relu(), z.sum()

    g = torch.Generator().manual_seed(0)

    def r(*shape, **kw):
        return torch.randn(*shape, generator=g, **kw)

    return [
        ("linear_softmax_layer_norm", linear_softmax_layer_norm, lambda: (r(2, 3), r(4, 3), r(4))),
        ("inplace_and_views", inplace_and_views, lambda: (r(2, 3), r(2, 3))),
        ("constants_and_scalars", constants_and_scalars, lambda: (r(2), 3, 0.5)),
        ("joint_grad", joint_grad, lambda: (r(3, 2), r(2, 4, requires_grad=True))),
        ("nested_inputs", nested_inputs, lambda: ({"a": r(2)}, [r(2)])),
        ("nested_outputs", nested_outputs, lambda: (r(2),)),
        ("slicing", slicing, lambda: (r(2, 3),)),
        ("mlp_step", mlp_step, lambda: (r(4, 3), r(3, 5, requires_grad=True), r(5, 2, requires_grad=True), r(4, 2))),
        ("module_with_stack_traces", Block(), lambda: (r(2, 3),)),
    ]


def _program_ids():
    return ["linear_softmax_layer_norm", "inplace_and_views", "constants_and_scalars", "joint_grad", "nested_inputs",
            "nested_outputs", "slicing", "mlp_step", "module_with_stack_traces"]


def _trace(torch, which):
    from torch.fx.experimental.proxy_tensor import make_fx

    name, fn, make_args = next(p for p in _programs(torch) if p[0] == which)
    return fn, make_args, make_fx(fn, record_stack_traces=True)(*make_args())


@pytest.mark.parametrize("which", _program_ids())
@pytest.mark.parametrize("keep_names", [True, False], ids=["torch-names", "our-names"])
def test_printed_code_matches_torch_make_fx(torch, which, keep_names):
    _, _, tgm = _trace(torch, which)
    gm = translate(torch, tgm, keep_names=keep_names)
    gm.graph.lint()
    # our naming rules reproduce torch's names for the same node sequence
    assert [n.name for n in gm.graph.nodes] == [n.name for n in tgm.graph.nodes]
    assert_same_text(tgm.code, gm.code)
    assert_same_text(str(tgm.graph), str(gm.graph))
    torch_class = type(tgm).__name__
    ours_class = gm._class_name
    assert ours_class == torch_class or torch_class == "<lambda>"  # we sanitize class names (see below)
    for kw in ({}, {"include_stride": True, "include_device": True}):
        expected = tgm.print_readable(print_output=False, **kw).replace(f"class {torch_class}(", f"class {ours_class}(")
        assert_same_text(expected, gm.print_readable(print_output=False, **kw))


@pytest.mark.parametrize("which", _program_ids())
def test_generated_code_runs_on_our_ops_like_torch(torch, which):
    fn, make_args, tgm = _trace(torch, which)
    gm = translate(torch, tgm)
    args = make_args()
    ours_args = _to_ours(torch, args)  # before torch runs: in-place programs mutate their inputs
    expected = tgm(*args)
    assert_close_tree(torch, expected, gm(*ours_args))


def test_stack_trace_comment_uses_innermost_frame_and_groups_nodes(torch):
    _, _, tgm = _trace(torch, "module_with_stack_traces")
    text = translate(torch, tgm).print_readable(print_output=False)
    comments = [line.strip() for line in text.split("\n") if line.strip().startswith("# File:")]
    assert len(comments) == 3  # one per user line; consecutive nodes from the same line share it
    assert "in forward, code: return F.linear(input, self.weight, self.bias)" in comments[1]


def test_graph_without_meta_prints_plain_and_no_stacktrace_header():
    g = Graph()
    x = g.placeholder("x")
    g.output(g.call_function(aten.sin.default, (x,)))
    text = GraphModule({}, g).print_readable(print_output=False)
    assert text == ("class GraphModule(torch.nn.Module):\n"
                    "    def forward(self, x):\n"
                    "        # No stacktrace found for following nodes\n"
                    "        sin = torch.ops.aten.sin.default(x);  x = None\n"
                    "        return sin\n")


# ---------------------------------------------------------------------------------------
# hand-built torch.fx graphs: operators, builtins, methods, attributes, kwargs
# ---------------------------------------------------------------------------------------


def my_helperFn(a, b=1, **kw):  # noqa: N802 - checks the snake_case naming rule
    return a * b


NT = collections.namedtuple("NT", ["a", "b"])


def _build_both(torch, build):
    tg, og = torch.fx.Graph(), Graph()
    build(tg, torch)
    build(og, None)
    root = torch.nn.Module()
    root.register_buffer("buf", torch.ones(2))
    sub = torch.nn.Module()
    sub.register_buffer("w", torch.full((2,), 3.0))
    root.add_module("sub", sub)
    sub.add_module("act", torch.nn.ReLU())
    tgm = torch.fx.GraphModule(root, tg)
    ogm = GraphModule({"buf": ours.ones(2), "sub.w": ours.full((2,), 3.0), "sub.act": ours.relu}, og)
    return tgm, ogm


def _mixed_graph(g, torch):
    x = g.placeholder("x")
    y = g.placeholder("y")
    buf = g.get_attr("buf")
    w = g.get_attr("sub.w")
    a = g.call_function(operator.add, (x, y))
    b = g.call_function(operator.mul, (a, 2))
    c = g.call_function(operator.neg, (b,))
    d = g.call_function(operator.getitem, (c, slice(0, 1, None)))
    e = g.call_function(operator.truediv, (c, buf))
    f = g.call_function(builtins.abs, (g.call_function(operator.sub, (e, w)),))
    h = g.call_function(my_helperFn, (f,), {"b": 3, "extra": "s'q\"uote"})
    m = g.call_method("sum", (h,), {"dim": 0})
    n = g.call_method("__add__", (m, 1.5))
    k = g.call_function(operator.getitem, (h, (0, Ellipsis)))
    nt = g.call_function(operator.getitem, (NT(1, 2), 1))
    t = g.call_function(my_helperFn, (k, nt))
    r = g.call_module("sub.act", (t,))
    g.output({"n": n, "d": [d, r], "c": (1, None, 2.5e-07, -3)})


def test_hand_built_graph_prints_like_torch_fx(torch):
    tgm, ogm = _build_both(torch, _mixed_graph)
    ogm.graph.lint()
    assert [n.name for n in ogm.graph.nodes] == [n.name for n in tgm.graph.nodes]
    # torch names module-level helper globals after the test module; so do we
    assert_same_text(tgm.code, ogm.code)
    assert_same_text(str(tgm.graph), str(ogm.graph))


def test_hand_built_graph_runs_like_torch_fx(torch):
    tgm, ogm = _build_both(torch, _mixed_graph)
    x, y = np.array([1.0, -2.0]), np.array([0.5, 4.0])
    expected = tgm(torch.tensor(x), torch.tensor(y))
    actual = ogm(ours.tensor(x), ours.tensor(y))
    assert_close_tree(torch, expected, actual)


def test_inplace_operator_and_getattr_builtin_print_like_torch_fx(torch):
    def build(g, _torch):
        x = g.placeholder("x")
        y = g.call_function(operator.iadd, (x, 1))
        s = g.call_function(builtins.getattr, (y, "shape"))
        z = g.call_function(operator.setitem, (x, 0, 5.0))
        g.output((y, s, z))

    tgm, ogm = _build_both(torch, build)
    assert_same_text(tgm.code, ogm.code)


def test_constants_print_as_torch_names_and_run():
    g = Graph()
    x = g.placeholder("x_1")
    ones = g.call_function(aten.ones_like.default, (x,), {"dtype": ours.float64, "device": ours.device("cpu"),
                                                          "memory_format": ours.preserve_format})
    full = g.call_function(aten.full.default, ([2], float("nan")), {"layout": ours.strided})
    g.output((ones, full, float("inf"), -float("inf"), 1 + 2j, b"\x00", np.float32(0.5)))
    gm = GraphModule({}, g)
    assert ("ones_like = torch.ops.aten.ones_like.default(x_1, dtype = torch.float64, device = device(type='cpu'), "
            "memory_format = torch.preserve_format);  x_1 = None") in gm.code
    assert "full = torch.ops.aten.full.default([2], nan, layout = torch.strided)" in gm.code
    assert "return (ones_like, full, inf, -inf, (1+2j), b'\\x00', 0.5)" in gm.code
    out = gm(ours.zeros(3))
    assert out[0].dtype == ours.float64 and out[0].tolist() == [1.0, 1.0, 1.0]
    assert np.isnan(out[1].numpy()).all() and out[2] == float("inf") and out[6] == 0.5


# ---------------------------------------------------------------------------------------
# naming
# ---------------------------------------------------------------------------------------

CANDIDATES = ["add", "add", "add_1", "add", "sum", "sum", "x", "x_1", "x", "1abc", "a b", "class", "def", "",
              "foo.bar", "weird-name!", "_", "__", "x_01", "x_1_1", "torch", "device", "inf", "nan", "max",
              "getitem", "getitem_5", "getitem", "NoneType", "pytree", "fx_pytree", "print", "ünï", "match"]


def test_namespace_matches_torch_fx_naming(torch):
    tg, og = torch.fx.Graph(), Graph()
    for cand in CANDIDATES:
        t = tg.create_node("call_function", operator.add, (), {}, name=cand)
        o = og.create_node("call_function", operator.add, (), {}, name=cand)
        assert o.name == t.name, cand
    # default names from targets: __name__ in snake case, magic methods without underscores
    for target, op in [(operator.add, "call_function"), (my_helperFn, "call_function"), ("__add__", "call_method"),
                       (builtins.max, "call_function"), ("relu", "call_method"), ("lin.weight", "get_attr")]:
        t = tg.create_node(op, target, (), {})
        o = og.create_node(op, target, (), {})
        assert o.name == t.name, target


def test_names_are_identifiers_never_keywords_or_generated_code_globals():
    g = Graph()
    for cand in ["self", "lambda", "torch", "None", "True", "3", "a.b.c", "\n", "x; import os", "__import__"]:
        name = g.placeholder(cand).name
        assert name.isidentifier()
        assert name not in {"self", "lambda", "torch", "None", "True", "__import__"}
    assert g.placeholder("self").name == "self_2"


def test_op_overload_nodes_are_named_after_the_packet():
    g = Graph()
    x = g.placeholder("x_1")
    names = [g.call_function(op, (x,)).name for op in
             [aten.add.Tensor, aten.add.Tensor, aten.sum.default, aten.sum.dim_IntList, aten._softmax.default]]
    assert names == ["add", "add_1", "sum_1", "sum_2", "_softmax"]


def test_naming_is_constant_time_per_node():
    ns = Namespace()
    for _ in range(50_000):
        ns.create_name("add")
    assert ns.create_name("add") == "add_50000"
    assert ns._base_count["add"] == 50_000


# ---------------------------------------------------------------------------------------
# Node API
# ---------------------------------------------------------------------------------------


def _chain():
    g = Graph()
    x = g.placeholder("x")
    a = g.call_function(aten.sin.default, (x,))
    b = g.call_function(aten.add.Tensor, (a, x), {"alpha": 2})
    c = g.call_function(aten.mul.Tensor, (b, a))
    g.output(c)
    return g, x, a, b, c


def test_users_and_inputs_follow_args():
    g, x, a, b, c = _chain()
    assert list(x.users) == [a, b]
    assert b.all_input_nodes == [a, x]
    assert list(a.users) == [b, c]
    b.update_arg(1, a)
    assert b.all_input_nodes == [a] and list(x.users) == [a]
    b.update_kwarg("alpha", x)
    assert b.kwargs == {"alpha": x} and list(x.users) == [a, b]
    b.args = (x, [x, (a,)])
    assert b.all_input_nodes == [x, a]
    g.lint()


def test_args_are_immutable_with_a_helpful_message():
    g = Graph()
    x = g.placeholder("x")
    shape = [2, 3]
    v = g.call_function(aten.view.default, (x, shape))
    shape.append(4)  # the caller's list is copied
    assert v.args[1] == [2, 3]
    with pytest.raises(TypeError, match="node.update_arg"):
        v.args[1].append(5)
    with pytest.raises(TypeError, match="immutable"):
        v.kwargs["k"] = 1


def test_replace_all_uses_with_and_delete_user_cb():
    g, x, a, b, c = _chain()
    with g.inserting_after(a):
        relu = g.call_function(aten.relu.default, (a,))
    changed = a.replace_all_uses_with(relu, delete_user_cb=lambda user: user is not relu)
    assert changed == [b, c]
    assert list(a.users) == [relu] and list(relu.users) == [b, c]
    assert b.args == (relu, x)
    g.lint()
    c.replace_input_with(relu, x)
    assert c.args == (b, x)
    a.meta["val"] = 1
    fresh = g.call_function(aten.cos.default, (x,))
    a.replace_all_uses_with(fresh, propagate_meta=True)
    assert fresh.meta == {"val": 1}


def test_replace_all_uses_without_guard_makes_a_cycle_that_lint_explains():
    g, x, a, b, c = _chain()
    with g.inserting_after(a):
        relu = g.call_function(aten.relu.default, (a,))
    a.replace_all_uses_with(relu)
    with pytest.raises(GraphLintError, match=r"\[topo\].*relu(.|\n)*uses itself(.|\n)*delete_user_cb"):
        g.lint()


def test_format_node_and_graph_str():
    g, x, a, b, c = _chain()
    assert b.format_node() == ("%add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor]"
                               "(args = (%sin, %x), kwargs = {alpha: 2})")
    assert x.format_node() == "%x : [num_users=2] = placeholder[target=x]"
    assert str(g).splitlines()[-1] == "    return mul"


# ---------------------------------------------------------------------------------------
# Graph: list, insertion, erasure, queries, copies
# ---------------------------------------------------------------------------------------


def test_iteration_tolerates_erasing_the_current_and_following_nodes():
    g = Graph()
    x = g.placeholder("x")
    dead = [g.call_function(aten.sin.default, (x,)) for _ in range(5)]
    live = g.call_function(aten.cos.default, (x,))
    g.output(live)
    visited = []
    for node in g.nodes:
        visited.append(node.name)
        if node is dead[0]:
            for d in dead:
                g.erase_node(d)
    assert visited == ["x", "sin", "cos", "output"]
    assert len(g.nodes) == 3 and [n.name for n in reversed(g.nodes)] == ["output", "cos", "x"]
    g.lint()


def test_iteration_visits_nodes_inserted_ahead():
    g, x, a, b, c = _chain()
    seen = []
    for node in g.nodes:
        seen.append(node.name)
        if node is a:
            with g.inserting_after(b):
                g.call_function(aten.neg.default, (a,))
    assert seen == ["x", "sin", "add", "neg", "mul", "output"]


def test_inserting_before_and_after_keep_creation_order():
    g, x, a, b, c = _chain()
    with g.inserting_after(a):
        n1 = g.call_function(aten.neg.default, (a,))
        n2 = g.call_function(aten.neg.default, (n1,))
    with g.inserting_before(c):
        n3 = g.call_function(aten.exp.default, (b,))
        n4 = g.call_function(aten.exp.default, (n3,))
    with g.inserting_before(None):
        p = g.placeholder("first")
    assert [n.name for n in g.nodes] == ["first", "x", "sin", "neg", "neg_1", "add", "exp", "exp_1", "mul", "output"]
    assert g.find_nodes(op="call_function", target=aten.exp.default) == [n3, n4]
    assert g.find_nodes(op="placeholder") == [p, x]
    assert n2 in n1.users
    g.lint()
    # the insert point is restored afterwards
    tail = g.call_function(aten.neg.default, (x,))
    assert list(g.nodes)[-1] is tail


def test_erase_node_refuses_used_nodes_and_explains():
    g, x, a, b, c = _chain()
    with pytest.raises(RuntimeError, match=r"Tried to erase Node sin but it still had 2 users in the graph: "
                                           r"add, mul\. Replace its uses first"):
        g.erase_node(a)
    out = g.output_node()
    g.erase_node(out)
    with pytest.raises(RuntimeError, match="already erased"):
        g.erase_node(out)
    g.erase_node(c)
    assert list(b.users) == [] and list(a.users) == [b]
    assert g.find_nodes(op="call_function", target=aten.mul.Tensor) == []
    other = Graph()
    with pytest.raises(RuntimeError, match="another graph"):
        other.erase_node(b)


def test_find_nodes_follows_retargeting_and_moves():
    g, x, a, b, c = _chain()
    b.target = aten.sub.Tensor
    assert g.find_nodes(op="call_function", target=aten.add.Tensor) == []
    assert g.find_nodes(op="call_function", target=aten.sub.Tensor) == [b]
    a.prepend(c)  # move mul before sin: breaks def-before-use, find_nodes follows the new order
    assert g.find_nodes(op="call_function") == [c, a, b]
    with pytest.raises(GraphLintError, match=r"\[topo\]"):
        g.lint()


def test_node_copy_and_graph_copy():
    g, x, a, b, c = _chain()
    a.meta["val"] = "sin-val"
    new = Graph()
    y = new.placeholder("y")
    val_map = {x: y}
    out = new.graph_copy(g, val_map)
    assert out is val_map[c] and out.name == "mul"
    assert val_map[a].meta == {"val": "sin-val"} and val_map[a].meta is not a.meta
    new.output(out)
    new.lint()
    gm = GraphModule({}, new)
    t = ours.tensor([0.5, 1.0])
    expected = GraphModule({}, g)(t)
    np.testing.assert_allclose(gm(t).numpy(), expected.numpy())
    copy2 = new.node_copy(a, lambda n: y)
    assert copy2.args == (y,) and copy2.name == "sin_1"


def test_deepcopy_of_graph_and_module_is_independent_and_not_recursive():
    import copy

    g = Graph()
    cur = g.placeholder("x")
    cur.meta["val"] = "v"
    for _ in range(5000):  # a long chain: copying must not recurse along the list
        cur = g.call_function(aten.neg.default, (cur,))
    g.output(cur)
    g.traced = True
    w = g.inserting_before(g.output_node())
    with w:
        c = g.get_attr("c")
        g.call_function(aten.add.Tensor, (cur, c))
    gm = GraphModule({"c": ours.ones(1)}, g)
    gm2 = copy.deepcopy(gm)
    assert gm2.code == gm.code and gm2.graph is not g and gm2.graph.traced
    assert [n.name for n in gm2.graph.nodes] == [n.name for n in g.nodes]
    assert next(iter(gm2.graph.nodes)).meta == {"val": "v"}
    gm2.graph.lint(check_meta=False)
    assert gm2.c is not gm.c and gm2.graph.owning_module is gm2
    gm2.graph.erase_node(gm2.graph.find_nodes(op="call_function", target=aten.add.Tensor)[0])
    assert len(gm2.graph.nodes) == len(g.nodes) - 1


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["append", "before", "after", "erase", "move", "retarget"]),
                          st.integers(0, 10_000), st.integers(0, 10_000)), max_size=60))
def test_random_edits_keep_every_invariant(ops):
    g = Graph()
    x = g.placeholder("x")
    out = g.output(x)
    live = [x]
    for kind, i, j in ops:
        a = live[i % len(live)]
        if kind == "append":
            with g.inserting_before(out):
                live.append(g.call_function(aten.neg.default, (a,)))
        elif kind in ("before", "after") and a is not x:
            ctx = g.inserting_before(a) if kind == "before" else g.inserting_after(a)
            src = a.all_input_nodes[0]  # defined before `a`, so using it keeps def-before-use
            with ctx:
                live.append(g.call_function(aten.exp.default, (src,)))
                live.append(g.call_function(aten.exp.default, (live[-1],)))
        elif kind == "erase" and a is not x:
            a.replace_all_uses_with(a.all_input_nodes[0])
            out.replace_input_with(a, x)
            g.erase_node(a)
            live.remove(a)
        elif kind == "move" and a is not x and not a.users:
            b = live[j % len(live)]
            if b is not x and b is not a and all(n in _before(g, b) for n in a.all_input_nodes):
                b.prepend(a)
        elif kind == "retarget" and a is not x:
            a.target = aten.sin.default if a.target is not aten.sin.default else aten.cos.default
    g.lint()
    order = list(g.nodes)
    assert len(order) == len(live) + 1 and set(order[:-1]) == set(live)
    keys = [n._sort_key for n in order]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    for target in (aten.neg.default, aten.exp.default, aten.sin.default, aten.cos.default):
        assert g.find_nodes(op="call_function", target=target) == [n for n in order if n.target is target]
    assert g.find_nodes(op="call_function") == [n for n in order if n.op == "call_function"]
    assert list(reversed(g.nodes)) == order[::-1]


def _before(g, node):
    seen = []
    for n in g.nodes:
        if n is node:
            return seen
        seen.append(n)
    return seen


def test_map_arg_keeps_structure():
    g, x, a, b, c = _chain()
    assert map_arg((x, [a, {"k": b}], 3), lambda n: n.name) == ("x", ["sin", {"k": "add"}], 3)


def test_create_node_validates_its_inputs():
    g = Graph()
    with pytest.raises(ValueError, match="op must be one of"):
        g.create_node("call", aten.add.Tensor)
    with pytest.raises(TypeError, match="args must be a tuple"):
        g.create_node("call_function", aten.add.Tensor, [1])
    with pytest.raises(TypeError, match="must be callable"):
        g.call_function("aten.add", ())
    with pytest.raises(TypeError, match="not hashable"):
        g.create_node("call_method", ["sum"], ())
    assert len(g.nodes) == 0


# ---------------------------------------------------------------------------------------
# lint: one test per rule
# ---------------------------------------------------------------------------------------


def _lint_error(g, **kw) -> str:
    with pytest.raises(GraphLintError) as info:
        g.lint(**kw)
    return str(info.value)


def test_lint_passes_a_good_graph_and_checks_meta_only_when_asked():
    g, x, a, b, c = _chain()
    g.lint()
    text = _lint_error(g, check_meta=True)
    assert "[meta]" in text and '`x` has no meta["val"]' in text
    for n in g.nodes:
        n.meta["val"] = None
    g.traced = True
    g.lint()


def test_lint_owner():
    g, x, a, b, c = _chain()
    other = Graph()
    foreign = other.placeholder("z")
    with g.inserting_before(c):
        g.call_function(aten.neg.default, (foreign,))
    text = _lint_error(g)
    assert "[owner]" in text and "belongs to another graph" in text and "node_copy" in text


def test_lint_topo_explains_and_marks_the_node():
    g, x, a, b, c = _chain()
    a.prepend(b)
    text = _lint_error(g)
    assert "rule [topo] is broken at node `add`" in text
    assert "`add` uses `sin`, which is defined later" in text
    assert "fix:" in text and "inserting_before(add)" in text
    assert ">>>     %add" in text  # the graph printout marks the offending node


def test_lint_names():
    g, x, a, b, c = _chain()
    b.name = "a b"
    assert "[names]" in _lint_error(g)
    b.name = "sin"
    assert "also used by an earlier node" in _lint_error(g)
    b.name = "add"
    b._rename("sin")
    assert b.name == "sin_1"
    g.lint()


def test_lint_users_catches_args_poked_behind_the_graphs_back():
    g, x, a, b, c = _chain()
    c._args = (b, x)  # bypasses the args setter
    text = _lint_error(g)
    assert "[users]" in text and "changed in place" in text


def test_lint_output_rules():
    g, x, a, b, c = _chain()
    g.call_function(aten.neg.default, (c,))
    assert "comes after the output node" in _lint_error(g)
    g2 = Graph()
    g2.placeholder("x")
    assert "has no output node" in _lint_error(g2)


def test_lint_inputs_placeholders_first():
    g, x, a, b, c = _chain()
    with g.inserting_after(a):
        g.placeholder("late")
    assert "[inputs]" in _lint_error(g)


def test_lint_attrs_and_consts():
    g, x, a, b, c = _chain()
    with g.inserting_before(c):
        w = g.get_attr("w")
    gm = GraphModule({"w": ours.ones(2)}, g)
    g.lint()
    delattr(gm, "w")
    assert "[attrs]" in _lint_error(g) and "gm.set_attr('w', value)" in _lint_error(g)
    gm.set_attr("w", ours.ones(2))
    with g.inserting_before(c):
        g.call_function(aten.add.Tensor, (w, ours.ones(2)))
    assert "[consts]" in _lint_error(g)


def test_lint_links_catches_a_corrupted_list():
    g, x, a, b, c = _chain()
    b._prev = x
    assert "[links]" in _lint_error(g)


def test_lint_error_on_large_graph_shows_a_window():
    g = Graph()
    x = g.placeholder("x")
    cur = x
    for _ in range(200):
        cur = g.call_function(aten.neg.default, (cur,))
    g.output(cur)
    bad = list(g.nodes)[100]
    bad.name = "bad name"
    text = _lint_error(g)
    assert "nodes above" in text and "nodes below" in text and ">>>     %bad name" in text
    assert len(text.splitlines()) < 50


# ---------------------------------------------------------------------------------------
# code injection
# ---------------------------------------------------------------------------------------

PAYLOAD = "__import__('builtins').setattr(__import__('builtins'), 'PWNED', 1)"


@pytest.fixture
def no_pwn():
    yield
    assert not hasattr(builtins, "PWNED"), "generated code executed injected source"


class Evil:
    def __repr__(self):
        return PAYLOAD


class EvilStr(str):
    def __repr__(self):
        return PAYLOAD


def test_injection_through_names_attributes_constants_is_impossible(no_pwn):
    g = Graph()
    x = g.placeholder(f"x); {PAYLOAD}; (")
    a = g.call_function(aten.add.Tensor, (x, 1), name=f"a = 1\n{PAYLOAD}\n#")
    a.name = f"b = {PAYLOAD}"  # even a name assigned behind the namespace's back
    s = g.call_function(dict, (), {"k": f"'); {PAYLOAD}; ('", "q": EvilStr("evil"), "o": Evil()})
    k = g.call_function(dict, (), {f"x=1); {PAYLOAD}; (": 1})
    g.output((a, s, k, f"\"\"\"{PAYLOAD}\"\"\""))
    gm = GraphModule({}, g, class_name=f"C(object): pass\n{PAYLOAD}\nclass D")
    compile(gm.code, "<test>", "exec")
    compile(gm.print_readable(print_output=False), "<test>", "exec")
    out = gm(ours.tensor([1.0]))
    assert out[0].tolist() == [2.0]
    assert out[1]["k"] == f"'); {PAYLOAD}; ('" and out[1]["q"] == "evil" and isinstance(out[1]["o"], Evil)
    assert out[2] == {f"x=1); {PAYLOAD}; (": 1}
    assert out[3] == f"\"\"\"{PAYLOAD}\"\"\""


def test_injection_through_attribute_paths_and_method_names(no_pwn):
    g = Graph()
    x = g.placeholder("x")
    evil_attr = g.get_attr(f"a'); {PAYLOAD}; ('")
    meth = g.call_method(f"sum(); {PAYLOAD}; x.sum", (x,))
    g.output((evil_attr, meth))
    with pytest.raises(ValueError, match="not a plain identifier"):
        GraphModule({f"a'); {PAYLOAD}; ('": 1}, g)
    # the code still reads exactly those attributes, with getattr + repr: run it on a stand-in `self`
    code = python_code(g)
    scope = dict(code.globals)
    exec(compile(code.src, "<test>", "exec"), scope)  # noqa: S102

    class Obj:
        pass

    fake_self, x_val = Obj(), Obj()
    holder = fake_self
    parts = evil_attr.target.split(".")
    for part in parts[:-1]:
        setattr(holder, part, Obj())
        holder = getattr(holder, part)
    setattr(holder, parts[-1], "attr-value")
    holder = x_val
    parts = meth.target.split(".")
    for part in parts[:-1]:
        setattr(holder, part, Obj())
        holder = getattr(holder, part)
    setattr(holder, parts[-1], lambda: "method-result")
    assert scope["forward"](fake_self, x_val) == ("attr-value", "method-result")


def test_injection_through_stack_traces_and_pytree_arg_names(no_pwn):
    g = Graph()
    x = g.placeholder("x_1")
    y = g.call_function(aten.neg.default, (x,))
    y.meta["stack_trace"] = f'File "a.py", line 1, in f\n    y = -x\r{PAYLOAD}\u2028{PAYLOAD}'
    g.output([y])
    g.pytree_info = PyTreeInfo([f"x): {PAYLOAD}; def f(x"], pytree.tree_structure((1,)), pytree.tree_structure([1]))
    gm = GraphModule({}, g)
    text = gm.print_readable(print_output=False)
    compile(text, "<test>", "exec")
    assert sum(1 for line in text.splitlines() if PAYLOAD in line) == 1  # only inside the one comment line
    assert gm(ours.tensor([1.0]))[0].tolist() == [-1.0]


def test_reserved_and_dunder_attribute_names_are_refused():
    gm = GraphModule({}, _chain()[0])
    for bad in ["forward", "graph", "recompile", "_graph", "__class__", "a.__dict__", "a..b", "class"]:
        with pytest.raises(ValueError):
            gm.set_attr(bad, 1)
    gm.set_attr("lin.weight", 3)
    assert gm.fetch_attr("lin.weight") == 3 and gm.lin.weight == 3


# ---------------------------------------------------------------------------------------
# GraphModule
# ---------------------------------------------------------------------------------------


def test_recompile_after_editing_the_graph():
    g, x, a, b, c = _chain()
    gm = GraphModule({}, g)
    t = ours.tensor([0.25])
    before = gm(t).tolist()
    with g.inserting_after(c):
        d = g.call_function(aten.neg.default, (c,))
    g.output_node().update_arg(0, d)
    assert "neg" not in gm.code
    gm.recompile()
    assert "neg = torch.ops.aten.neg.default(mul);  mul = None" in gm.code
    assert gm(t).tolist() == [-v for v in before]


def test_attributes_from_objects_and_dotted_dicts():
    class Root:
        pass

    root = Root()
    root.sub = Root()
    root.sub.w = ours.full((2,), 3.0)
    g = Graph()
    x = g.placeholder("x")
    w = g.get_attr("sub.w")
    g.output(g.call_function(aten.mul.Tensor, (x, w)))
    assert GraphModule(root, g)(ours.ones(2)).tolist() == [3.0, 3.0]
    assert GraphModule({"sub": {"w": ours.full((2,), 2.0)}}, g)(ours.ones(2)).tolist() == [2.0, 2.0]
    with pytest.raises(AttributeError, match="sub.w"):
        GraphModule(Root(), g)


def test_nested_inputs_and_outputs_through_pytree_info():
    g = Graph()
    a = g.placeholder("d_1")
    b = g.placeholder("l_1")
    s = g.call_function(aten.add.Tensor, (a, b))
    g.output([s, 7])
    in_spec = pytree.tree_structure(({"a": 0}, [0]))
    g.pytree_info = PyTreeInfo(["d", "l"], in_spec, pytree.tree_structure({"sum": 0, "n": 0}))
    gm = GraphModule({}, g)
    assert "d_1, l_1, = fx_pytree.tree_flatten_spec([d, l], self._in_spec)" in gm.code
    assert "return pytree.tree_unflatten([add, 7], self._out_spec)" in gm.code
    out = gm({"a": ours.tensor([1.0]), "extra": 0}, [ours.tensor([2.0])])
    assert out["sum"].tolist() == [3.0] and out["n"] == 7
    with pytest.raises(ValueError, match="missing key 'a'"):
        gm({"b": ours.tensor([1.0])}, [ours.tensor([2.0])])


def test_tracebacks_show_the_generated_line():
    import traceback

    g = Graph()
    x = g.placeholder("x")
    g.output(g.call_function(aten.mm.default, (x, x)))
    gm = GraphModule({}, g)
    with pytest.raises(Exception) as info:  # noqa: B017 - whatever the kernel raises for a 1-d mm
        gm(ours.ones(3))
    text = "".join(traceback.format_exception(info.value))
    assert "mm = torch.ops.aten.mm.default(x, x)" in text


# ---------------------------------------------------------------------------------------
# pytree vs torch.utils._pytree
# ---------------------------------------------------------------------------------------

TREES = [
    1, None, (1, None, [2, {"b": 3, "a": 4}]), NT(1, (2, 3)), collections.OrderedDict(a=1, b=[2]),
    collections.defaultdict(int, a=1), {"x": (), "y": []}, [[[]]], (ours.Size([2, 3]),), "leaf",
]


@pytest.mark.parametrize("tree", TREES, ids=range(len(TREES)))
def test_pytree_matches_torch(torch, tree):
    leaves, spec = pytree.tree_flatten(tree)
    t_leaves, t_spec = torch.utils._pytree.tree_flatten(tree)
    assert leaves == t_leaves
    assert repr(spec) == repr(t_spec)
    assert spec.num_leaves == t_spec.num_leaves
    assert pytree.tree_unflatten(leaves, spec) == tree
    assert type(pytree.tree_unflatten(leaves, spec)) is type(tree)
    assert spec == _ours_spec(t_spec)


def test_pytree_errors_and_helpers():
    leaves, spec = pytree.tree_flatten((1, [2, 3]))
    with pytest.raises(ValueError, match="has length 2 but the spec refers to a pytree that holds 3 items"):
        spec.unflatten([1, 2])
    assert pytree.tree_map(lambda v: v * 10, {"a": (1, 2)}) == {"a": (10, 20)}
    assert pytree.tree_flatten_spec([1, [2, 3]], spec) == [1, 2, 3]
    with pytest.raises(ValueError, match=r"inputs\[1\]: expected 2 items, got 1"):
        pytree.tree_flatten_spec((1, [2]), spec)
    assert pytree.arg_tree_leaves(1, (2, 3), k=4) == [1, 2, 3, 4]
    assert pytree.tree_structure({"a": 1, "b": 2}) != pytree.tree_structure({"b": 2, "a": 1})
