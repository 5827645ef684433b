"""The "numpy" compiler backend: lower a graph to core aten, then generate straight-line NumPy code.

``numpy_backend(gm, example_inputs)`` follows PyTorch's backend contract (``backend(gm, example_inputs) ->
callable``, torch/_dynamo/backends/): ``gm`` is any callable taking tensors — a torch-level GraphModule
captured by ``tracer.compile``, an aten GraphModule, or a plain function. It is traced with ``make_fx``
(post-dispatch, with the core-aten decomposition table when ``tracer.decompositions`` provides one) into
an aten graph, and numpy_codegen.py turns that graph into one Python function of NumPy calls: no
dispatcher, no Tensor objects and no autograd on the hot path, buffers reused where liveness allows.

The returned function is the generated function itself (no wrapper call), with attributes:
``code`` (its source), ``print_code()``, ``graph_module`` (the aten graph it was generated from),
``fallback_ops`` (aten ops that run through the dispatcher: none when the generator covers the graph)
and ``whole_graph_fallback`` (None, or why the whole graph runs eagerly). Fallbacks are also logged
on the ``tracer.compile`` logger. ``unchecked`` is the same generated code without its input guard (or None),
valid only for inputs of class ``Tensor`` that do not require grad and have the shapes, strides and dtypes
in ``unchecked_metas``: ``tracer.compile``'s warm path calls it when its own guard has proven that.

What differs from eager: outputs are new Tensors over the result arrays (row-major, or NumPy's layout
for views: strides may differ from eager's), without autograd history; inputs modified in place keep
their identity and get their version counters bumped. The function is specialized to the example
inputs' shapes, dtypes and non-tensor values: other inputs raise a ValueError naming the input;
inputs with other strides run the aten graph through the dispatcher (the generated views assume a layout).
When an input requires grad and grad mode is on, ``gm`` itself runs eagerly (logged once), so that
autograd records the computation as in eager; Tensor subclasses run the aten graph through the dispatcher.
NumPy's floating-point warnings (``invalid value encountered in sqrt``) are not silenced (eager silences
them): an ``np.errstate`` around every call would cost a few microseconds.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import numpy as np

from dispatcher.tensor import Tensor

from .. import pytree
from ..graph_module import GraphModule
from ..proxy_tensor import make_fx
from .numpy_codegen import NumpyCodegen

__all__ = ["core_aten_table", "lower_to_aten", "numpy_backend"]

log = logging.getLogger("tracer.compile")


def core_aten_table() -> dict | None:
    """``tracer.decompositions.core_aten_decompositions()`` when available, else None (no decompositions)."""
    try:
        from ..decompositions import core_aten_decompositions
    except ImportError:
        return None
    try:
        return core_aten_decompositions()
    except Exception as e:  # a table under construction must not break compilation
        log.warning("numpy backend: core_aten_decompositions() failed (%s); lowering without decompositions", e)
        return None


def lower_to_aten(fn: Callable[..., Any], example_inputs: list | tuple,
                  decomposition_table: dict | None = None) -> GraphModule:
    """``fn`` traced post-dispatch into an aten GraphModule, without touching the example inputs' values.

    Traced with fake tensors first (in-place ops in ``fn`` must not modify the caller's tensors); when fake
    tracing cannot run ``fn`` (it reads tensor data, or meets a real tensor it captured), on clones.
    """
    args = list(example_inputs)
    from dispatcher.fake import FakeTensor

    if any(isinstance(a, FakeTensor) for a in pytree.tree_leaves(args)):
        return make_fx(fn, decomposition_table, tracing_mode="fake")(*args)
    try:
        return make_fx(fn, decomposition_table, tracing_mode="fake")(*args)
    except Exception as fake_error:
        log.debug("numpy backend: fake tracing failed (%s); tracing on clones", fake_error)
    return make_fx(fn, decomposition_table)(*pytree.tree_map(_clone, args))


def _clone(a: Any) -> Any:
    if not isinstance(a, Tensor):
        return a
    from dispatcher.autograd.grad_mode import no_grad

    with no_grad():
        c = a.detach().clone()
    return c.requires_grad_() if a.requires_grad else c


def _example_value(a: Any, rng: np.random.Generator) -> Any:
    """What the generator's check run uses for one input: a copy of the data, or made-up data for a fake."""
    from dispatcher.fake import FakeTensor

    if not isinstance(a, Tensor):
        return a
    np_dtype = np.dtype(a.dtype.np_dtype)
    if not isinstance(a, FakeTensor) and a._data is not None:
        return np.array(a._data, order="K")
    shape = tuple(a.shape)
    if np_dtype.kind == "f":
        return rng.standard_normal(shape).astype(np_dtype)
    return np.zeros(shape, np_dtype)


def numpy_backend(gm: Callable[..., Any], example_inputs: list | tuple, *, check_inputs: bool = True,
                  decomposition_table: dict | None = None) -> Callable[..., Any]:
    """Compile ``gm`` for inputs like ``example_inputs`` into generated NumPy code (module docstring).

    ``decomposition_table`` overrides the core-aten table; ``check_inputs=False`` drops the per-call guard
    on the inputs' types, shapes and dtypes (a few hundred nanoseconds per input).
    """
    table = core_aten_table() if decomposition_table is None else decomposition_table
    try:
        aten_gm = lower_to_aten(gm, example_inputs, table)
    except Exception as e:
        return _whole_graph_fallback(gm, f"lowering to aten failed: {type(e).__name__}: {e}", None)
    rng = np.random.default_rng(0)
    values = [_example_value(a, rng) for a in pytree.tree_leaves(list(example_inputs))]
    gen = NumpyCodegen(aten_gm, values, check_inputs=check_inputs)
    gen.autograd_fn = gm
    try:
        source = gen.generate()
        namespace = dict(gen.globals)
        filename = f"<numpy backend: {getattr(gm, '__name__', type(gm).__name__)}>"
        exec(compile(source, filename, "exec"), namespace)
        if gen.unchecked_source is not None:
            exec(compile(gen.unchecked_source, filename, "exec"), namespace)
    except Exception as e:
        return _whole_graph_fallback(aten_gm, f"code generation failed: {type(e).__name__}: {e}", aten_gm)
    fn = namespace["forward"]
    if gen.fallback_ops:
        log.warning("numpy backend: %d op(s) not covered by the code generator run through the dispatcher: %s",
                    len(gen.fallback_ops), ", ".join(gen.fallback_ops))
    fn = _annotate(fn, source, aten_gm, list(gen.fallback_ops), None)
    fn.unchecked = namespace.get("forward_unchecked")
    fn.unchecked_metas = gen.unchecked_metas if fn.unchecked is not None else None
    return fn


def _whole_graph_fallback(run: Callable[..., Any], reason: str, aten_gm: GraphModule | None) -> Callable[..., Any]:
    log.warning("numpy backend: running the whole graph eagerly through the dispatcher (%s)", reason)

    def forward(*args: Any) -> Any:
        return run(*args)

    code = getattr(run, "code", "") or f"# eager: {getattr(run, '__name__', type(run).__name__)}\n"
    return _annotate(forward, code, aten_gm, ["<whole graph>"], reason)


def _annotate(fn: Any, source: str, aten_gm: GraphModule | None, fallback_ops: list[str],
              whole_graph_reason: str | None) -> Any:
    fn.code = source
    fn.print_code = lambda: print(source)
    fn.graph_module = aten_gm
    fn.fallback_ops = fallback_ops
    fn.whole_graph_fallback = whole_graph_reason
    fn.unchecked = None
    fn.unchecked_metas = None
    return fn
