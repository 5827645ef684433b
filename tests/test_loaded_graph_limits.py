"""Loaded graphs (issue 18): a file whose nodes would allocate more than the loader's limit is refused at load
(nothing allocated: sizes are worked out on fake tensors), unless the limit is raised; lone surrogates in stored
text (stack traces, user_fn, module stacks) never break printing or ``dispatchkit show``."""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import pytest

import dispatcher as D
import passes.serialize_format as serialize_format
from passes.serialize import SerializationError, dumps, loads
from tracer import make_fx

BIG = 2**33  # 8 Gi elements: 32 GiB of float32


def _file(fn: Any, *inputs: Any) -> dict:
    return json.loads(dumps(make_fx(fn)(*inputs)))


def _enlarge(doc: dict, node: str, small: int) -> str:
    """The file with every ``small`` in ``node``'s arguments (an int or inside a list) made BIG."""
    def walk(v: Any) -> Any:
        if isinstance(v, dict) and set(v) == {"list"}:
            return {"list": [walk(e) for e in v["list"]]}
        if isinstance(v, int) and not isinstance(v, bool) and v == small:
            return BIG
        return v

    entry = next(n for n in doc["nodes"] if n["name"] == node)
    entry["args"] = [walk(a) for a in entry["args"]]
    return json.dumps(doc)


_CASES = [
    ("ones", lambda x: x + D.ones([5]), "ones", 5),
    ("zeros", lambda x: x + D.zeros(5), "zeros", 5),
    ("empty", lambda x: D.empty(5).fill_(1.0) + x, "empty", 5),
    ("full", lambda x: x + D.full([5], 2.0), "full", 5),
    ("arange", lambda x: x + D.arange(5), "arange", 5),
    ("rand", lambda x: x + D.rand(5), "rand", 5),
    ("randn", lambda x: x + D.randn(5), "randn", 5),
    ("new_empty", lambda x: x.new_empty([5]), "new_empty", 5),
    ("new_zeros", lambda x: x.new_zeros(5, 5), "new_zeros", 5),
    ("expand_then_clone", lambda x: x.sum().expand(7).clone(), "expand", 7),
]


@pytest.mark.parametrize("name,fn,node,small", _CASES, ids=[c[0] for c in _CASES])
def test_oversized_factory_is_refused_without_allocating(name: str, fn: Any, node: str, small: int) -> None:
    text = _enlarge(_file(fn, D.ones(5)), node, small)
    tracemalloc.start()
    try:
        with pytest.raises(SerializationError, match=r"would allocate .* GiB .* more than the loader's limit of 1\.0 "
                                                     r"GiB; nothing was allocated"):
            loads(text)
        assert tracemalloc.get_traced_memory()[1] < 64 << 20
    finally:
        tracemalloc.stop()


def test_broadcast_of_two_inputs_is_sized() -> None:
    doc = _file(lambda x, y: x * y, D.ones(4, 1), D.ones(1, 4))
    for n in doc["nodes"][:2]:
        n["meta"]["val"]["tensor"]["shape"] = [2**20, 1] if n["name"] == "x_1" else [1, 2**20]
    with pytest.raises(SerializationError, match=r"node #2 \('mul'\): aten.mul.Tensor would allocate 4096.0 GiB"):
        loads(json.dumps(doc))


def test_the_limit_can_be_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _enlarge(_file(lambda x: x + D.ones([5]), D.ones(5)), "ones", 5)
    assert loads(text, max_alloc_bytes=1 << 40).graph is not None
    monkeypatch.setenv("DISPATCHKIT_MAX_ALLOC_BYTES", str(1 << 40))
    assert loads(text).graph is not None
    monkeypatch.delenv("DISPATCHKIT_MAX_ALLOC_BYTES")
    monkeypatch.setattr(serialize_format, "MAX_ALLOC_BYTES", 1 << 40)
    assert loads(text).graph is not None
    monkeypatch.setattr(serialize_format, "MAX_ALLOC_BYTES", 1 << 10)  # lowered: a 1 MiB tensor is too much
    small = _file(lambda x: x + D.ones([1 << 18]), D.ones(1 << 18))
    with pytest.raises(SerializationError, match="1.0 MiB"):
        loads(json.dumps(small))


def test_graphs_within_the_limit_load_and_run() -> None:
    gm = loads(dumps(make_fx(lambda x: (x + D.ones(3)).expand(4, 3).sum(0))(D.ones(3))))
    assert gm(D.ones(3)).tolist() == [8.0, 8.0, 8.0]


_SURROGATE = "\udc80"


def test_lone_surrogates_in_stored_text_print(tmp_path: Any, capsys: pytest.CaptureFixture) -> None:
    from passes.cli import main

    doc = _file(lambda x: x.sin(), D.ones(4))
    meta = doc["nodes"][1]["meta"]
    meta["stack_trace"] = f'  File "a{_SURROGATE}.py", line 1, in f\n    return x.sin()  # {_SURROGATE}\n'
    meta["user_fn"] = f"f{_SURROGATE}"
    meta["nn_module_stack"] = [[f"L__self__{_SURROGATE}", f"layer{_SURROGATE}", f"mod.Cls{_SURROGATE}"]]
    text = json.dumps(doc)
    gm = loads(text)
    printed = gm.print_readable(print_output=False)
    printed.encode("utf-8")
    assert "a\\udc80.py" in printed
    gm.code.encode("utf-8")
    path = tmp_path / "g.json"
    path.write_text(text, encoding="utf-8")
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    out.encode("utf-8")
    assert "\\udc80" in out


def test_lone_surrogate_in_a_traced_stack_trace_prints() -> None:
    gm = make_fx(lambda x: x.cos())(D.ones(2))
    node = next(n for n in gm.graph.nodes if n.op == "call_function")
    node.meta["stack_trace"] = f'  File "/tmp/{_SURROGATE}.py", line 3, in g\n    y = x.cos()\n'
    gm.recompile()
    gm.print_readable(print_output=False).encode("utf-8")
