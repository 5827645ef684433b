"""make_fx records where each node came from: ``meta["nn_module_stack"]`` (tracer/module_stack.py), ``meta["user_fn"]``.

The module stacks of a pre-dispatch trace equal torch.export's for the same model (keys, qualified names, the
``@1`` suffix of a module called twice; class names compared without their Python module, which differs
between the libraries); a function that calls a model names it after its variable; backward ops, placeholders
and ops outside modules carry none; ``Module.__call__`` is restored after the trace, also when it raises;
``record_module_stack=False`` records nothing; library-defined examples point at their own lines.
"""

from __future__ import annotations

from typing import Any

import pytest

import dispatcher as D
from dispatcher.nn.module import Module
from tracer import make_fx


def build(L: Any) -> Any:
    """The same small model in either library (``L`` is torch or dispatcher)."""
    nn = L.nn

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm = nn.LayerNorm(8)
            self.fc = nn.Linear(8, 8)
            self.act = nn.GELU()

        def forward(self, x: Any) -> Any:
            return x + self.act(self.fc(self.act(self.norm(x))))  # act called twice: key "@1"

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = nn.ModuleList([Block(), Block()])
            self.head = nn.Sequential(nn.Linear(8, 4), nn.ReLU())

        def forward(self, x: Any) -> Any:
            for layer in self.layers:
                x = layer(x)
            return self.head(x).sum()

    return Model()


def stacks(graph: Any) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """(op name, [(key, fqn, class name)]) of each call node, class names without their module."""
    out = []
    for n in graph.nodes:
        if n.op != "call_function":
            continue
        stack = n.meta.get("nn_module_stack") or {}
        op = getattr(n.target, "__name__", str(n.target)).split(".")[0]
        out.append((op, [(k, fqn, cls.rpartition(".")[2]) for k, (fqn, cls) in stack.items()]))
    return out


def test_module_stacks_equal_torch_export(torch: Any) -> None:
    x = torch.randn(2, 8)
    ep = torch.export.export(build(torch), (x,))
    theirs = stacks(ep.graph)
    ours = stacks(make_fx(build(D), pre_dispatch=True)(D.randn(2, 8)).graph)
    assert [op for op, _ in ours] == [op for op, _ in theirs]
    assert ours == theirs
    keys = {k for _, s in ours for k, _, _ in s}
    assert "L__self__layers.1.act@1" in keys and "L__self__head.0" in keys


def test_post_dispatch_nodes_carry_the_stack_of_their_module() -> None:
    gm = make_fx(build(D))(D.randn(2, 8))
    by_name = {n.name: n for n in gm.graph.nodes}
    addmm = [n for n in gm.graph.nodes if n.name.startswith("addmm")]
    assert [list(n.meta["nn_module_stack"].values())[-1][0] for n in addmm] == ["layers.0.fc", "layers.1.fc", "head.0"]
    # getitem nodes of a multi-output op inherit it; placeholders and the output carry none
    ln = [n for n in gm.graph.nodes if n.name.startswith("getitem")]
    assert ln and all("layers." in list(n.meta["nn_module_stack"].values())[-1][0] for n in ln)
    assert "nn_module_stack" not in by_name["arg0_1"].meta and "nn_module_stack" not in by_name["output"].meta
    # parameters read inside a module carry that module's stack
    params = [n for n in gm.graph.nodes if n.op == "get_attr"]
    assert params and all(n.meta["nn_module_stack"] for n in params)
    # the innermost user function, with its qualified name (the classes are local to build())
    assert {n.meta["user_fn"] for n in gm.graph.nodes if n.op == "call_function"} == {
        "build.<locals>.Block.forward", "build.<locals>.Model.forward"}


def test_a_function_calling_a_model_names_it_and_backward_ops_have_no_module() -> None:
    net = build(D)

    def train_step(x: Any) -> Any:
        loss = net(x)
        loss.backward()
        return loss

    gm = make_fx(train_step)(D.randn(2, 8))
    fqns = {list(n.meta["nn_module_stack"].values())[-1][0] for n in gm.graph.nodes if "nn_module_stack" in n.meta}
    assert "net.layers.0.norm" in fqns and "net.head.1" in fqns and "net" in fqns
    backward = [n for n in gm.graph.nodes if n.op == "call_function" and "backward" in str(n.target)]
    assert backward and all("nn_module_stack" not in n.meta for n in backward)


def test_call_is_restored_also_when_the_trace_raises() -> None:
    original = Module.__dict__["__call__"]
    net = build(D)

    def bad(x: Any) -> Any:
        net(x)
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        make_fx(bad)(D.randn(2, 8))
    assert Module.__dict__["__call__"] is original
    make_fx(net)(D.randn(2, 8))
    assert Module.__dict__["__call__"] is original


def test_record_module_stack_false_records_nothing() -> None:
    gm = make_fx(build(D), record_module_stack=False)(D.randn(2, 8))
    assert not any("nn_module_stack" in n.meta for n in gm.graph.nodes)


def test_library_examples_point_at_their_own_lines() -> None:
    from tracer.examples import EXAMPLES, example_inputs

    gm = make_fx(EXAMPLES["transformer_block"].fn)(*example_inputs("transformer_block"))
    calls = [n for n in gm.graph.nodes if n.op == "call_function"]
    assert all("tracer/examples.py" in n.meta["stack_trace"].splitlines()[-2] for n in calls)
    assert {n.meta["user_fn"] for n in calls} == {"transformer_block"}


def test_passes_keep_where_nodes_came_from(tmp_path: Any) -> None:
    import passes

    gm = make_fx(build(D))(D.randn(2, 8))
    expected = [(n.name, n.meta.get("nn_module_stack"), n.meta.get("user_fn")) for n in gm.graph.nodes]
    # a saved graph keeps its module stacks (equal stacks share one dict again) and user functions
    passes.save(gm, tmp_path / "g.json")
    loaded = passes.load(tmp_path / "g.json")
    assert [(n.name, n.meta.get("nn_module_stack"), n.meta.get("user_fn")) for n in loaded.graph.nodes] == expected
    stacks = [n.meta["nn_module_stack"] for n in loaded.graph.nodes if n.name in ("t", "addmm")]
    assert stacks[0] is stacks[1]
    # a Transformer's copy, DCE and functionalize keep them
    copied = passes.Transformer(gm).transform()
    assert [n.meta.get("nn_module_stack") for n in copied.graph.nodes] == [e[1] for e in expected]
    fn = passes.functionalize(gm)
    assert any("nn_module_stack" in n.meta for n in fn.graph.nodes)
    # the file refuses a malformed stack
    import json

    doc = json.loads((tmp_path / "g.json").read_text())
    node = next(e for e in doc["nodes"] if "nn_module_stack" in e.get("meta", {}))
    node["meta"]["nn_module_stack"] = [["k", 1, "C"]]
    (tmp_path / "g.json").write_text(json.dumps(doc))  # (beside its g.npz)
    with pytest.raises(passes.SerializationError, match="nn_module_stack must be a list"):
        passes.load(tmp_path / "g.json")
