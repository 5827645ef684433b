"""The "numpy" backend: aten graphs turned into straight-line NumPy code (tracer/backends/numpy_backend.py).

Every corpus program is compiled on one set of inputs and called on fresh ones: results, dtypes and shapes
must equal eager's. Also: no dispatcher call on the hot path (a logging dispatch mode sees nothing), ops the
generator does not cover run through the dispatcher and are reported, buffer reuse happens and never writes
into memory a live view, an input or an output still needs, PyTorch's dtype rules where NumPy's differ,
in-place updates of inputs, guards, and ``tracer.compile(fn, backend="numpy")``.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import numpy as np
import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from dispatcher.modes.logging_tensor import LoggingTensorMode
from tests import corpus as C
from tracer.backends.numpy_backend import numpy_backend

#: programs whose every op the generator must cover (the brief's list: MLP, attention, transformer block,
#: layer norm, softmax, cross-entropy, in-place and view updates, joint forward + backward graphs)
MUST_COVER = ["mlp", "attention", "transformer_block", "linear_softmax_ln", "linear_softmax_ln_rg", "inplace_view",
              "views_inplace", "multi_output", "cat_stack_where", "autograd_grad", "backward_grad", "train_step",
              "ln_backward_partial", "constants", "scalars", "nested_in", "nested_out", "no_grad_region"]
MUST_COVER += [n for n in ("masked_attention", "multi_head_attention", "multi_head_attention_rg", "residual_layer_norm",
                           "residual_layer_norm_rg", "gelu_silu_mlp", "mlp_train_rg", "inplace_activations",
                           "embedding_classifier", "log_softmax_nll_grad") if n in C.PROGRAMS]


def _close(expected: Any, got: Any) -> None:
    """Equal structure, dtypes and shapes; values within float32 tolerance scaled to the result's magnitude.

    Eager computes layer norm, softmax and gelu in float64 and rounds; the generated code stays in float32,
    so large activations (the transformer block reaches ~300) differ by a few float32 ulps of the largest value.
    """
    if isinstance(expected, np.ndarray):
        assert isinstance(got, np.ndarray), type(got)
        assert got.dtype == expected.dtype and got.shape == expected.shape, (got.dtype, got.shape, expected.dtype,
                                                                           expected.shape)
        if expected.dtype.kind == "f":
            scale = float(np.max(np.abs(expected), initial=1.0)) if np.all(np.isfinite(expected)) else 1.0
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * scale, equal_nan=True)
        else:
            np.testing.assert_array_equal(got, expected)
    elif isinstance(expected, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(expected)
        for e, g in zip(expected, got):
            _close(e, g)
    elif isinstance(expected, dict):
        assert isinstance(got, dict) and got.keys() == expected.keys()
        for k in expected:
            _close(expected[k], got[k])
    else:
        assert got == expected


def _compile_program(name: str) -> tuple[Any, Any, list, tuple]:
    prog, shapes, rg = C.PROGRAMS[name]
    fn = numpy_backend(prog(D, DF), C.inputs(D, C.arrays(shapes, 0), rg))
    return prog, fn, shapes, rg


def _eager(prog: Any, shapes: list, rg: tuple, seed: int) -> Any:
    return C.to_np(prog(D, DF)(*C.inputs(D, C.arrays(shapes, seed), rg)))


# --- every corpus program ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(C.PROGRAMS))
def test_corpus_program_equals_eager_on_fresh_inputs(name: str) -> None:
    prog, shapes, rg = C.PROGRAMS[name]
    expected = _eager(prog, shapes, rg, 1)
    _, fn, _, _ = _compile_program(name)
    assert fn.whole_graph_fallback is None, fn.whole_graph_fallback
    got = C.to_np(fn(*C.inputs(D, C.arrays(shapes, 1), ())))
    _close(expected, got)
    # a second call gives the same values and leaves the first call's outputs alone (no state between calls)
    again = C.to_np(fn(*C.inputs(D, C.arrays(shapes, 1), ())))
    _close(expected, again)
    _close(expected, got)
    if name in MUST_COVER:
        assert fn.fallback_ops == [], fn.code


@pytest.mark.parametrize("name", [n for n in MUST_COVER if n in C.PROGRAMS])
def test_no_dispatcher_call_on_the_hot_path(name: str) -> None:
    prog, shapes, rg = C.PROGRAMS[name]
    _eager(prog, shapes, rg, 2)
    _, fn, _, _ = _compile_program(name)
    args = C.inputs(D, C.arrays(shapes, 2), ())
    with LoggingTensorMode() as mode:
        fn(*args)
    assert mode.lines == []
    # the same mode does see the program's ops when it runs eagerly (the check can fail)
    with LoggingTensorMode() as mode:
        prog(D, DF)(*C.inputs(D, C.arrays(shapes, 2), rg))
    assert mode.lines


def test_generated_code_calls_numpy_directly() -> None:
    _, fn, _, _ = _compile_program("transformer_block")
    code = fn.code
    assert "_np_matmul(" in code and "_k.layer_norm(" in code and "_k.softmax(" in code
    # NumPy functions are read from globals bound to them (no attribute lookups per call)
    assert fn.__globals__["_np_matmul"] is np.matmul and "np." not in code
    assert "torch.ops" not in code and "_fallback_call" not in code
    # one statement per node, names are the graph's (safe identifiers), inputs unwrapped once
    assert code.count("._data") == 9
    names = re.findall(r"^    ([A-Za-z_][A-Za-z0-9_]*) = ", code, re.M)
    assert all(n.isidentifier() for n in names) and len(names) == len(set(names))
    assert callable(fn.print_code) and fn.graph_module is not None


# --- in-place updates, aliasing, identity ----------------------------------------------------------------------------


def test_inputs_updated_in_place_like_eager() -> None:
    prog, fn, shapes, _ = _compile_program("train_step")
    arrays = C.arrays(shapes, 3)
    eager_in = C.inputs(D, arrays, ())
    x, y, w1, w2 = C.inputs(D, arrays, ())
    v1, v2 = w1._version, w2._version
    loss, r1, r2 = fn(x, y, w1, w2)
    assert r1 is w1 and r2 is w2  # the in-place results are the input tensors themselves, as in eager
    assert w1._version > v1 and w2._version > v2
    # eager on the same values: the graph holds the SGD update (the gradients are computed inside it)
    e_loss, e1, e2 = _graph_replay("train_step", eager_in)
    _close(C.to_np(e_loss), C.to_np(loss))
    _close(C.to_np(e1), w1.numpy())
    _close(C.to_np(e2), w2.numpy())


def _graph_replay(name: str, args: list) -> Any:
    from tracer import make_fx

    prog, shapes, rg = C.PROGRAMS[name]
    gm = make_fx(prog(D, DF))(*C.inputs(D, C.arrays(shapes, 0), rg))
    return gm(*args)


def test_view_of_input_written_in_place() -> None:
    def f(x, y):
        x[0].mul_(2)
        x[:, 1:].add_(y[:, 1:])
        return x.sum(0)

    a, b = np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((2, 3), np.float32)
    fn = numpy_backend(f, [D.tensor(a.copy()), D.tensor(b)])
    assert fn.fallback_ops == []
    xe, xc = D.tensor(a.copy()), D.tensor(a.copy())
    expected = f(xe, D.tensor(b))
    got = fn(xc, D.tensor(b))
    _close(expected.numpy(), got.numpy())
    _close(xe.numpy(), xc.numpy())


# --- buffer reuse ----------------------------------------------------------------------------------------------------


def _out_targets(code: str) -> list[str]:
    return [m.split(".")[0] for m in re.findall(r"out=([A-Za-z_][A-Za-z0-9_.]*)", code)]


def test_buffer_reuse_happens_in_the_transformer_block() -> None:
    _, fn, shapes, _ = _compile_program("transformer_block")
    targets = _out_targets(fn.code)
    assert len(targets) >= 4, fn.code
    inputs = re.findall(r"^    (\w+) = _in\d+\._data", fn.code, re.M)
    assert not set(targets) & set(inputs)


def test_no_reuse_of_a_temporary_a_live_view_still_reads() -> None:
    # t's only direct user is the view v, made at once; v is read at the very end. An allocator that looked at
    # t's own users would hand t's buffer to w (same shape and dtype) and corrupt v.
    def f(x, y):
        t = x * 2.0
        v = t.t()
        u = y + 1.0
        w = u * 3.0
        z = w - 1.0
        return z + v

    xa, ya = C.arrays([(4, 4), (4, 4)], 5)
    fn = numpy_backend(f, [D.tensor(xa), D.tensor(ya)])
    code = fn.code
    lines = code.splitlines()
    t_var = re.search(r"^    (\w+) = _np_multiply\(x_1, 2\.0", code, re.M).group(1)
    v_var = re.search(rf"^    (\w+) = {t_var}\.(T|transpose)", code, re.M).group(1)
    last_read_of_v = max(i for i, ln in enumerate(lines)
                         if re.search(rf"\b{v_var}\b", ln) and not ln.startswith(f"    {v_var} ="))
    writes_into_t = [i for i, ln in enumerate(lines) if re.search(rf"out={t_var}\b", ln)]
    # t's buffer is written at the earliest by the statement that reads v for the last time (an elementwise
    # ufunc may write over its own dying operand: NumPy buffers overlapping operands)
    assert all(i >= last_read_of_v for i in writes_into_t), code
    assert _out_targets(code), code  # reuse does happen where it is safe (u dies at w, w at z)
    _close(f(D.tensor(xa), D.tensor(ya)).numpy(), fn(D.tensor(xa), D.tensor(ya)).numpy())


def test_no_reuse_of_inputs_outputs_or_constants() -> None:
    c = D.tensor(np.full((3,), 0.5, np.float32))

    def f(x):
        a = x + 1.0
        b = a * c
        d = b + 2.0
        e = d * 2.0
        return a, e, x

    xa = C.arrays([(3,)], 6)[0]
    fn = numpy_backend(f, [D.tensor(xa)])
    targets = _out_targets(fn.code)
    a_var = re.search(r"^    (\w+) = _np_add\(x_1, 1\.0\)", fn.code, re.M).group(1)
    assert a_var not in targets and "x_1" not in targets
    assert not any(t.startswith("_c_") or t.startswith("_tensor_constant") for t in targets)
    x = D.tensor(xa.copy())
    a, e, x_out = fn(x)
    assert x_out is x
    ea, ee, _ = f(D.tensor(xa.copy()))
    _close(ea.numpy(), a.numpy())
    _close(ee.numpy(), e.numpy())
    np.testing.assert_array_equal(c.numpy(), np.full((3,), 0.5, np.float32))


# --- dtype semantics -----------------------------------------------------------------------------------------------


def _dtype_programs() -> dict[str, tuple[Any, list]]:
    i = D.tensor(np.array([[-7, 5, 3], [8, -9, 1]], np.int64))
    j = D.tensor(np.array([[2, -2, 4], [-3, 3, 1]], np.int64))
    f32 = D.tensor(np.array([[0.5, -1.5, 2.0], [3.0, -4.0, 0.25]], np.float32))
    b = D.tensor(np.array([[True, False, True], [False, True, True]]))
    f64_0d = D.tensor(np.array(2.5, np.float64))
    return {
        "int_times_float_scalar": (lambda x: x * 0.5, [i]),
        "int_true_divide": (lambda x, y: x / y, [i, j]),
        "int_floor_divide": (lambda x, y: D.div(x, y, rounding_mode="floor"), [i, j]),
        "int_trunc_divide": (lambda x, y: D.div(x, y, rounding_mode="trunc"), [i, j]),
        "float_trunc_divide": (lambda x: D.div(x, 0.7, rounding_mode="trunc"), [f32]),
        "float32_with_python_float": (lambda x: x * 1e-3 + 2.5, [f32]),
        "float32_with_0dim_float64": (lambda x, s: x * s, [f32, f64_0d]),
        "int_exp": (lambda x: x.exp(), [i]),
        "int_sum": (lambda x: x.sum(), [i]),
        "bool_plus_int": (lambda x: x + 1, [b]),
        "bool_mask_where": (lambda x, m: D.where(m, x, 0.0), [f32, b]),
        "compare_int_float": (lambda x: (x > 2.5).float(), [i]),
        "int_pow": (lambda x: x ** 2, [i]),
    }


@pytest.mark.parametrize("name", sorted(_dtype_programs()))
def test_dtype_rules_follow_eager(name: str) -> None:
    f, args = _dtype_programs()[name]
    expected = f(*args)
    fn = numpy_backend(f, args)
    got = fn(*args)
    assert got.dtype is expected.dtype and tuple(got.shape) == tuple(expected.shape)
    _close(expected.numpy(), got.numpy())


# --- fallbacks ---------------------------------------------------------------------------------------------------------


def test_uncovered_op_runs_through_the_dispatcher_and_is_reported(caplog: Any) -> None:
    from dispatcher import Library

    lib = Library("h8test", "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x * 2, "CompositeExplicitAutograd")

    def f(x):
        return D.ops.h8test.twice.default(x.sin()) + 1

    xa = C.arrays([(2, 3)], 7)[0]
    with caplog.at_level(logging.WARNING, logger="tracer.compile"):
        fn = numpy_backend(f, [D.tensor(xa)])
    assert fn.fallback_ops == ["h8test.twice.default"]
    assert any("h8test.twice.default" in r.getMessage() for r in caplog.records if r.name == "tracer.compile")
    assert "_fallback_call(" in fn.code
    x = D.tensor(xa)
    with LoggingTensorMode() as mode:
        got = fn(x)
    assert len(mode.lines) == 1 and "h8test.twice.default" in mode.lines[0]
    _close(f(D.tensor(xa)).numpy(), got.numpy())
    del lib


def test_whole_graph_falls_back_when_lowering_fails(caplog: Any) -> None:
    def f(x):
        if x.sum() > 0:  # data-dependent Python: make_fx cannot trace it
            return x * 2
        return x - 1

    xa = np.array([1.0, 2.0], np.float32)
    with caplog.at_level(logging.WARNING, logger="tracer.compile"):
        fn = numpy_backend(f, [D.tensor(xa)])
    assert fn.whole_graph_fallback is not None and fn.fallback_ops == ["<whole graph>"]
    assert any("whole graph" in r.getMessage() for r in caplog.records)
    _close(np.array([2.0, 4.0], np.float32), fn(D.tensor(xa)).numpy())
    _close(np.array([-2.0, -3.0], np.float32), fn(D.tensor(-xa)).numpy())


# --- guards ----------------------------------------------------------------------------------------------------------


def test_other_shapes_or_constants_are_refused_with_a_clear_error() -> None:
    _, fn, _, _ = _compile_program("mlp")
    args = C.inputs(D, C.arrays([(4, 5), (8, 5), (8,), (2, 8), (2,)], 0), ())
    with pytest.raises(ValueError, match=r"input 0 \(x_1\) was compiled for shape \[3, 5\]"):
        fn(*args)
    _, fn, shapes, _ = _compile_program("scalars")
    x = C.inputs(D, C.arrays(shapes, 0), ())[0]
    with pytest.raises(ValueError, match="compiled for the constant 3"):
        fn(x, 4, 0.5)


def test_tensor_subclass_inputs_run_the_aten_graph() -> None:
    from dispatcher.modes.logging_tensor import LoggingTensor

    _, fn, shapes, _ = _compile_program("mlp")
    arrays = C.arrays(shapes, 8)
    expected = _eager(C.PROGRAMS["mlp"][0], shapes, (), 8)
    args = [LoggingTensor(t) for t in C.inputs(D, arrays, ())]
    got = fn(*args)
    _close(expected, C.to_np(got.elem if hasattr(got, "elem") else got))


def test_parameter_names_do_not_clash_with_generated_names() -> None:
    def f(np, _k, _wrap):  # noqa: ANN001 - names of the generated code's globals
        return np * _k + _wrap

    args = [D.tensor(a) for a in C.arrays([(3,), (3,), (3,)], 9)]
    fn = numpy_backend(f, args)
    _close(f(*args).numpy(), fn(*args).numpy())


# --- tracer.compile ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["mlp", "transformer_block", "attention"])
def test_tracer_compile_with_the_numpy_backend(name: str) -> None:
    import tracer

    prog, shapes, rg = C.PROGRAMS[name]
    compiled = tracer.compile(prog(D, DF), backend="numpy")
    for seed in (1, 2):
        expected = _eager(prog, shapes, (), seed)
        _close(expected, C.to_np(compiled(*C.inputs(D, C.arrays(shapes, seed), ()))))


def test_inputs_that_require_grad_run_eagerly_so_gradients_flow(caplog: Any) -> None:
    prog, fn, shapes, _ = _compile_program("linear_softmax_ln")
    arrays = C.arrays(shapes, 10)
    eager_in = C.inputs(D, arrays, (0, 1))
    compiled_in = C.inputs(D, arrays, (0, 1))
    with caplog.at_level(logging.WARNING, logger="tracer.compile"):
        out = fn(*compiled_in)
    assert out.grad_fn is not None  # autograd recorded the call, as in eager
    assert any("requires grad" in r.getMessage() for r in caplog.records)
    (out * out).sum().backward()
    e = prog(D, DF)(*eager_in)
    (e * e).sum().backward()
    for a, b in zip(eager_in[:2], compiled_in[:2]):
        _close(a.grad.numpy(), b.grad.numpy())
    # under no_grad, inputs that require grad run the aten graph through the dispatcher (values as eager)
    with D.no_grad():
        _close(e.detach().numpy(), fn(*compiled_in).numpy())


def test_a_view_of_a_base_that_requires_grad_counts_as_requiring_grad(torch: Any) -> None:
    """A view made under no_grad of a leaf that requires grad has no flag of its own, yet requires grad (its base
    does, as in torch): the guard must send it to the eager path, so that the result has autograd history."""
    fn = numpy_backend(lambda x: (x * 2).sum(), [D.randn(2, 3)])
    w = D.randn(4, 3).requires_grad_()
    with D.no_grad():
        v = w[0:2]
    tw = torch.randn(4, 3, requires_grad=True)
    with torch.no_grad():
        tv = tw[0:2]
    assert v.requires_grad == tv.requires_grad and not v._requires_grad
    out, t_out = fn(v), (tv * 2).sum()
    assert out.grad_fn is not None and t_out.grad_fn is not None
    out.backward()
    t_out.backward()
    assert w.grad is None and tw.grad is None  # the no_grad view is a leaf of its own: nothing reaches the base


def test_every_lowering_rule_names_a_real_aten_overload(torch: Any) -> None:
    from tracer.backends.numpy_lowerings import LOWERINGS

    missing = [k for k in LOWERINGS
               if not hasattr(getattr(torch.ops.aten, k.split(".")[1], None), k.split(".")[2])]
    assert missing == []


def test_inputs_with_other_strides_still_give_eager_results() -> None:
    def f(x, y):
        v = x.view(-1)  # a view op: the generated code assumes x is laid out as at compile time
        v.add_(1.0)
        return x * y

    a, b = C.arrays([(3, 4), (3, 4)], 11)
    fn = numpy_backend(f, [D.tensor(a.copy()), D.tensor(b)])
    assert fn.fallback_ops == []
    xt = D.tensor(np.ascontiguousarray(a.T)).t()  # same shape, transposed strides: view(-1) fails in eager
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        f(D.tensor(np.ascontiguousarray(a.T)).t(), D.tensor(b))
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        fn(xt, D.tensor(b))
    x = D.tensor(a.copy())
    _close(f(D.tensor(a.copy()), D.tensor(b)).numpy(), fn(x, D.tensor(b)).numpy())
    _close(a + 1, x.numpy())


def test_in_place_scatter_into_a_clone_matches_eager() -> None:
    """scatter_ is lowered as its functional rule (a copy, then put_along_axis) made in place: every statement of
    the rule must run before the copy back (once, the copy was taken alone and the scatter was lost)."""
    def f(x, idx, src):
        y = x.clone()
        y.scatter_(1, idx, src)
        return y * 2, y

    x, idx, src = D.randn(3, 4), D.tensor([[0, 1], [2, 0], [1, 3]]), D.randn(3, 2)
    fn = numpy_backend(f, [x, idx, src])
    assert "aten.scatter_.src" not in fn.fallback_ops and "_np_put_along_axis(" in fn.code
    for want, got in zip(f(x, idx, src), fn(x, idx, src), strict=True):
        _close(want.numpy(), got.numpy())
