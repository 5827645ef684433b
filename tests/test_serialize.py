"""passes.save / passes.load: exact round trips on the corpus, and hostile files refused without running anything."""

from __future__ import annotations

import ast
import copy
import json
import math
import operator
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from passes import serialize as S
from passes.serialize import SerializationError
from tests import corpus as C
from tracer import make_fx

CONFIGS = {"post": {}, "pre": {"pre_dispatch": True}, "fake": {"tracing_mode": "fake"}}


def _trace(name: str, config: str) -> Any:
    prog, shapes, rg = C.PROGRAMS[name]
    return make_fx(prog(D, DF), **CONFIGS[config])(*C.inputs(D, C.arrays(shapes, 0), rg))


def _simple_gm() -> Any:
    def f(x):
        return (x * D.tensor([1.0, 2.0])).relu() + 1.5
    return make_fx(f)(D.randn(2))


# --- round trips ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("storage", ["npz", "embedded"])
# (captured_global cannot be traced with fake tensors: a real tensor meets fakes, as in torch)
@pytest.mark.parametrize(("config", "name"), [(c, n) for c in CONFIGS for n in sorted(C.PROGRAMS)
                                              if (c, n) != ("fake", "captured_global")])
def test_round_trip_corpus(tmp_path: Path, name: str, config: str, storage: str) -> None:
    gm = _trace(name, config)
    path = tmp_path / "g.json"
    S.save(gm, path, constants=storage)
    assert (tmp_path / "g.npz").exists() == (storage == "npz" and bool(gm.graph.find_nodes(op="get_attr")))
    loaded = S.load(path)
    loaded.graph.lint()
    assert loaded.code == gm.code
    assert loaded.print_readable(print_output=False) == gm.print_readable(print_output=False)
    for a, b in zip(gm.graph.nodes, loaded.graph.nodes, strict=True):
        assert (a.name, a.op, a.target) == (b.name, b.op, b.target)
        assert a.meta.get("stack_trace") == b.meta.get("stack_trace")
        va, vb = a.meta.get("val"), b.meta.get("val")
        if isinstance(va, D.Tensor):
            assert (va.shape, va.stride(), va.dtype, va.requires_grad) == (vb.shape, vb.stride(), vb.dtype,
                                                                          vb.requires_grad)
    # same results on the same inputs (post-dispatch graphs replay without autograd)
    prog, shapes, rg = C.PROGRAMS[name]
    fresh = C.arrays(shapes, 3)
    grads = rg if config == "pre" else ()
    expected = C.to_np(gm(*C.inputs(D, fresh, grads)))
    got = C.to_np(loaded(*C.inputs(D, fresh, grads)))
    C.assert_close(list(expected) if isinstance(expected, tuple) else expected,
                   list(got) if isinstance(got, tuple) else got)


def test_round_trip_of_every_value_kind() -> None:
    g = D.randn(2, 3)
    gm = make_fx(lambda x: x + 1)(g)
    graph = gm.graph
    out = graph.output_node()
    x = next(iter(graph.nodes))
    odd = (math.inf, -math.inf, -0.0, 1e-300, 2**63 - 1, -(2**63), True, None, "s'\"\n", 1 + 2j, Ellipsis,
           slice(1, None, 2), [1, (2, 3)], {"k": 1, 3: 2.5}, D.float64, D.device("cpu"), D.contiguous_format
           if hasattr(D, "contiguous_format") else None, D.ops.aten.add.Tensor)
    with graph.inserting_before(out):
        n = graph.call_function(D.ops.aten.add.Tensor, (x, 2), {"alpha": 1})
        n.meta["val"] = x.meta["val"]
        keep = graph.call_function(operator.getitem, ((x, odd), 1))
        keep.meta["val"] = None
    out.args = ((out.args[0], n, keep),)
    gm.recompile()
    loaded = S.loads(S.dumps(gm))
    assert loaded.code == gm.code
    got = next(iter(node for node in loaded.graph.nodes if node.name == keep.name)).args[0][1]
    assert got[:3] == odd[:3] and math.copysign(1, got[2]) == -1.0
    assert got[3:] == odd[3:]
    assert math.isnan(S.loads(S.dumps(_with_arg(math.nan))).graph.output_node().args[0][1].args[0][1])


def _with_arg(value: Any) -> Any:
    gm = make_fx(lambda x: x + 1)(D.randn(2))
    graph = gm.graph
    out = graph.output_node()
    x = next(iter(graph.nodes))
    with graph.inserting_before(out):
        n = graph.call_function(operator.getitem, ((x, value), 1))
        n.meta["val"] = None
    out.args = ((out.args[0], n),)
    gm.recompile()
    return gm


def test_non_contiguous_constant_keeps_strides(tmp_path: Path) -> None:
    const = D.randn(3, 2).t()

    def f(x):
        return x + const
    gm = make_fx(f)(D.randn(2, 3))
    S.save(gm, tmp_path / "g.json")
    loaded = S.load(tmp_path / "g.json")
    attr = loaded.fetch_attr(next(iter(loaded.graph.find_nodes(op="get_attr"))).target)
    assert attr.stride() == const.stride()
    np.testing.assert_array_equal(attr.numpy(), const.numpy())


def test_save_refuses_unknown_callables() -> None:
    gm = _simple_gm()
    graph = gm.graph
    with graph.inserting_before(graph.output_node()):
        node = graph.call_function(print, ("hi",))
        node.meta["val"] = None
    with pytest.raises(SerializationError, match=r"node print.*neither a registered operator"):
        S.dumps(gm)


# --- hostile files -----------------------------------------------------------------------------------------------


def _doc() -> dict[str, Any]:
    doc, _ = S.to_dict(_simple_gm(), constants="embedded")
    return doc


def _refused(doc: Any, match: str) -> SerializationError:
    text = doc if isinstance(doc, str) else json.dumps(doc)
    with pytest.raises(SerializationError, match=match) as info:
        S.loads(text)
    return info.value


def _call_nodes(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [n for n in doc["nodes"] if n["op"] == "call_function"]


@pytest.mark.parametrize("target", ["aten.nonexistent.default", "aten.add.NoSuchOverload", "__import__", "os.system",
                                    "builtins.eval", "builtins.exec", "builtins.getattr", "subprocess.call",
                                    "aten.__class__.__init__", "operator.__builtins__", "operator.attrgetter",
                                    "torch.ops.aten.add.Tensor", "aten.add", "", "aten..default",
                                    "numpy.load", "posix.system"])
def test_unknown_targets_are_refused(target: str) -> None:
    doc = _doc()
    _call_nodes(doc)[0]["target"] = target
    err = _refused(doc, "refusing to load it")
    assert repr(target[:120]) in str(err) and _call_nodes(doc)[0]["name"] in str(err)


def test_os_system_is_never_called(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    doc = _doc()
    node = _call_nodes(doc)[0]
    node["target"] = "os.system"
    node["args"] = [f"touch {marker}"]
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(SerializationError, match="'os.system' is not a registered operator"):
        S.load(path)
    assert not marker.exists()


def test_string_constants_and_class_names_cannot_inject_code(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    payload = f"'); __import__('os').system('touch {marker}'); ('"
    doc = S.to_dict(_with_arg(payload), constants="embedded")[0]
    doc["class_name"] = f"X(object): pass\n__import__('os').system('touch {marker}')\nclass Y"
    gm = S.loads(json.dumps(doc))
    gm(D.randn(2))
    gm.print_readable(print_output=False)
    assert not marker.exists()
    assert gm.graph.output_node().args[0][1].args[0][1] == payload


@pytest.mark.parametrize("mutate, match", [
    (lambda d: d.update(version=2), "unsupported format version 2"),
    (lambda d: d.update(version="1"), "unsupported format version"),
    (lambda d: d.update(version=True), "unsupported format version"),
    (lambda d: d.update(format="torch.export"), "not a dispatchkit graph file"),
    (lambda d: d.pop("nodes"), "missing field 'nodes'"),
    (lambda d: d.update(nodes={"a": 1}), "field 'nodes' must be list"),
    (lambda d: d["nodes"][1].update(op="call_module"), "op 'call_module' is not supported"),
    (lambda d: d["nodes"][1].update(op="exec"), "op 'exec' is not supported"),
])
def test_malformed_documents(mutate: Any, match: str) -> None:
    doc = _doc()
    mutate(doc)
    _refused(doc, match)


def test_truncated_and_non_json() -> None:
    text = json.dumps(_doc())
    for cut in (1, len(text) // 3, len(text) // 2, len(text) - 1):
        _refused(text[:cut], "not valid JSON")
    _refused("[1, 2, 3]", "top level is not a JSON object")
    _refused("null", "top level is not a JSON object")
    _refused("{\"format\": NaN}", "not a dispatchkit graph file")


def test_undefined_and_forward_node_references() -> None:
    doc = _doc()
    _call_nodes(doc)[0]["args"][0] = {"node": "does_not_exist"}
    _refused(doc, "refers to node 'does_not_exist', which is not defined before it")
    doc = _doc()
    first = _call_nodes(doc)[0]
    first["args"][0] = {"node": _call_nodes(doc)[-1]["name"]}  # a use before the definition
    _refused(doc, "which is not defined before it")
    doc = _doc()
    doc["nodes"][-1]["args"] = [{"node": "output"}]
    _refused(doc, "refers to node 'output'")


@pytest.mark.parametrize("name", ["x; import os", "os.system('x')", "1abc", "class", "None", "torch", "self",
                                  "print", "__import__", "", "a b", "é\u2028x"])
def test_invalid_node_names(name: str) -> None:
    doc = _doc()
    _call_nodes(doc)[0]["name"] = name
    _refused(doc, "not a valid identifier|renamed")


def test_duplicate_names() -> None:
    doc = _doc()
    calls = _call_nodes(doc)
    calls[1]["name"] = calls[0]["name"]
    _refused(doc, "duplicate node name")


def test_renamed_names_are_refused() -> None:
    doc = _doc()
    _call_nodes(doc)[0]["name"] = "inf"  # a name the generated code reserves
    _refused(doc, "not a valid identifier|renamed")


@pytest.mark.parametrize("value, match", [
    (2**70, "does not fit in 64 bits"),
    (-(2**64), "does not fit in 64 bits"),
    (1.5, "bare JSON float"),
    ({"float": "1e5; import os"}, "malformed float"),
    ({"float": "9" * 100}, "malformed float"),
    ({"float": 3}, "malformed float"),
    ({"dtype": "object"}, "unknown dtype"),
    ({"device": "cuda:0"}, "unknown device"),
    ({"memory_format": "__class__"}, "unknown memory_format"),
    ({"slice": [1, 2]}, "slice must be"),
    ({"eval": "1+1"}, "unknown value tag 'eval'"),
    ({"node": "x_1", "float": "1"}, "one-key tagged object"),
    ({"op": "os.system"}, "unknown operator"),
    ({"dict": [[[1], 2]]}, "one-key tagged object"),
    ({"dict": [[{"list": [1]}, 2]]}, "dict keys must be str or int"),
    ([1, 2], "one-key tagged object"),
])
def test_bad_values(value: Any, match: str) -> None:
    doc = _doc()
    _call_nodes(doc)[0]["args"].append(value)
    _refused(doc, match)


def test_huge_integer_literals() -> None:
    doc = json.dumps(_doc()).replace('"args": [{', '"args": [' + "9" * 50000 + ", {", 1)
    _refused(doc, "not valid JSON|64 bits")


def test_deep_nesting_is_refused_without_recursion_error() -> None:
    for depth in (MAX := S.MAX_DEPTH + 5, 5000, 200000):
        doc = _doc()
        text = json.dumps(doc)
        nested = '{"list": [' * depth + "1" + "]}" * depth
        text = text.replace('"args": [{', '"args": [' + nested + ", {", 1)
        _refused(text, "deeper")
    assert MAX > S.MAX_DEPTH


def test_get_attr_targets_and_constants(tmp_path: Path) -> None:
    doc = _doc()
    get_attr = next(n for n in doc["nodes"] if n["op"] == "get_attr")
    for target in ("__class__.__init__.__globals__", "a.__dict__", "x-y", "forward"):
        bad = copy.deepcopy(doc)
        node = next(n for n in bad["nodes"] if n["op"] == "get_attr")
        node["target"] = target
        if target == "forward":
            bad["constants"]["forward"] = bad["constants"].pop(get_attr["target"])
        _refused(bad, "plain identifiers|not among the file's constants|shadow")
    bad = copy.deepcopy(doc)
    bad["constants"]["__class__"] = bad["constants"][get_attr["target"]]
    _refused(bad, "not a dotted path of plain identifiers")
    bad = copy.deepcopy(doc)
    bad["constants"][get_attr["target"]]["data"] = "!!!not base64"
    _refused(bad, "not valid base64")
    bad = copy.deepcopy(doc)
    bad["constants"][get_attr["target"]]["shape"] = [3]
    _refused(bad, "needs")
    bad = copy.deepcopy(doc)
    bad["constants"][get_attr["target"]]["dtype"] = "float64"
    _refused(bad, "needs")
    bad = copy.deepcopy(doc)
    bad["constants"][get_attr["target"]]["shape"] = [2**50]
    _refused(bad, "sizes must be ints")
    bad = copy.deepcopy(doc)
    bad["constants"] = {}
    _refused(bad, "not among the file's constants")


def test_npz_shape_and_dtype_mismatch(tmp_path: Path) -> None:
    gm = _simple_gm()
    path = tmp_path / "g.json"
    S.save(gm, path)
    doc = json.loads(path.read_text())
    np.savez(tmp_path / "g.npz", c0=np.zeros(3, np.float32))
    with pytest.raises(SerializationError, match=r"stored array has shape \[3\], the file records \[2\]"):
        S.load(path)
    np.savez(tmp_path / "g.npz", c0=np.zeros(2, np.float64))
    with pytest.raises(SerializationError, match="stored array has dtype float64, the file records float32"):
        S.load(path)
    np.savez(tmp_path / "g.npz", c0=np.array([object(), object()], dtype=object))
    with pytest.raises(SerializationError, match="cannot read the array safely|dtype object"):
        S.load(path)
    np.savez(tmp_path / "g.npz", other=np.zeros(2, np.float32))
    with pytest.raises(SerializationError, match="not in the constants file"):
        S.load(path)
    (tmp_path / "g.npz").write_bytes(b"PK\x03\x04garbage")
    with pytest.raises(SerializationError):
        S.load(path)
    os.remove(tmp_path / "g.npz")
    with pytest.raises(SerializationError, match="constants file .* is missing"):
        S.load(path)
    assert doc["constants_storage"] == "npz"


def test_bad_meta_and_pytree() -> None:
    doc = _doc()
    _call_nodes(doc)[0]["meta"]["val"] = {"tensor": {"shape": [2], "stride": [1, 1], "dtype": "float32"}}
    _refused(doc, "one stride per dim")
    doc = _doc()
    _call_nodes(doc)[0]["meta"]["val"] = {"tensor": {"shape": [2], "stride": [1], "dtype": "object"}}
    _refused(doc, "unknown dtype")
    doc = _doc()
    _call_nodes(doc)[0]["meta"]["stack_trace"] = ["not", "a", "string"]
    _refused(doc, "stack_trace")
    doc = _doc()
    doc["pytree"] = {"orig_args": ["x"], "in_spec": {"type": "defaultdict", "children": []}, "out_spec": None}
    _refused(doc, "unknown pytree type 'defaultdict'")
    doc = _doc()
    doc["pytree"] = {"orig_args": ["x"], "in_spec": {"type": "dict", "context": {"list": ["a"]},
                                                     "children": []}, "out_spec": None}
    _refused(doc, "one key per child")


def test_structural_errors_are_serialization_errors() -> None:
    doc = _doc()
    doc["nodes"] = [n for n in doc["nodes"] if n["op"] != "output"]
    _refused(doc, "not describe a valid graph")
    doc = _doc()
    doc["nodes"].append(copy.deepcopy(doc["nodes"][-1]) | {"name": "output_2"})
    _refused(doc, "not describe a valid graph")
    doc = _doc()
    doc["nodes"][-1]["args"] = [1, 2]
    _refused(doc, "exactly one argument")
    doc = _doc()
    _call_nodes(doc)[0]["meta"].pop("val")
    _refused(doc, "meta")


@pytest.mark.parametrize("seed", range(40))
def test_random_corruption_never_crashes(seed: int) -> None:
    """Flip random characters of a valid file: either it loads or it is refused with SerializationError."""
    rng = np.random.default_rng(seed)
    text = list(json.dumps(_doc()))
    for _ in range(3):
        i = int(rng.integers(len(text)))
        text[i] = chr(int(rng.choice([ord(c) for c in '{}[]":,0a_.-n ']))) if rng.random() < 0.7 else ""
    try:
        gm = S.loads("".join(text))
    except SerializationError:
        return
    gm.graph.lint()


def test_injection_through_kwarg_keys_and_pytree_names(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    evil = f"x=__import__('os').system('touch {marker}')"
    doc = _doc()
    doc["pytree"] = {"orig_args": [evil], "in_spec": {"type": "tuple", "context": None, "children": [{"leaf": None}]},
                     "out_spec": None}
    first = _call_nodes(doc)[0]
    first["kwargs"] = {evil: 1} if first["target"] == "aten.add.Tensor" else first["kwargs"]
    try:
        gm = S.loads(json.dumps(doc))
    except SerializationError:
        pass
    else:
        tree = ast.parse(gm.code)
        calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert "__import__" not in calls
        try:
            gm(D.randn(2))
        except Exception:  # noqa: BLE001 - a bad kwarg may fail at call time; it must not run the payload
            pass
    assert not marker.exists()


def test_save_and_load_scale(tmp_path: Path) -> None:
    """A 2,000-op chain round-trips (linear work; nothing quadratic in the loader)."""
    def f(x):
        for _ in range(1000):
            x = (x * 1.0001).relu()
        return x
    gm = make_fx(f)(D.randn(4))
    S.save(gm, tmp_path / "big.json")
    loaded = S.load(tmp_path / "big.json")
    assert loaded.code == gm.code
    assert len(loaded.graph.nodes) == len(gm.graph.nodes) == 2002


def test_round_trip_of_pass_outputs(tmp_path: Path) -> None:
    """Graphs made by other passes (functionalize's index constants, int64 get_attrs) round-trip too."""
    from passes.functionalize import functionalize

    prog, shapes, rg = C.PROGRAMS["views_inplace"]
    gm = functionalize(make_fx(prog(D, DF))(*C.inputs(D, C.arrays(shapes, 0), rg)))
    assert any(n.target.startswith("_functional_index") for n in gm.graph.find_nodes(op="get_attr"))
    S.save(gm, tmp_path / "f.json")
    loaded = S.load(tmp_path / "f.json")
    assert loaded.code == gm.code
    x = C.inputs(D, C.arrays(shapes, 4), ())
    C.assert_close(C.to_np(list(gm(*x))), C.to_np(list(loaded(*x))))


def test_expanded_constant_and_hostile_strides(tmp_path: Path) -> None:
    const = D.randn(3).expand(2, 3)  # stride 0: saved dense

    def f(x):
        return x + const
    gm = make_fx(f)(D.randn(2, 3))
    loaded = S.loads(S.dumps(gm))
    x = D.randn(2, 3)
    _close = np.testing.assert_allclose
    _close(loaded(x).numpy(), gm(x).numpy())
    doc = _doc()
    rec = next(iter(doc["constants"].values()))
    for stride in ([2**39], [0]):  # a huge allocation / overlapping memory: refused before allocating
        rec["stride"] = stride
        _refused(doc, "do not describe a dense tensor")
