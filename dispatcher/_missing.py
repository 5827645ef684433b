"""Names of ``torch`` that ``dispatcher`` (used as ``import dispatcher as torch``) does not have, and what to use.

``dispatcher.__getattr__`` (PEP 562, called only for names the package does not define) raises an
``AttributeError`` that says the name does not exist here and names what to use instead: ``torch.compile`` is
``tracer.compile``, ``torch.cuda`` has no counterpart (devices are ``cpu`` and ``meta``), and so on. Any other missing name gets Python's usual
message. ``hasattr(torch, "cuda")`` stays False and ``getattr(torch, "cuda", None)`` stays None.
PyTorch's counterpart: none (torch has these names).
"""

from __future__ import annotations

__all__ = ["MISSING", "missing_attribute"]

_DEVICES = ("dispatchkit runs on NumPy: tensors live on 'cpu' or 'meta' only (device='meta' or "
            "dispatcher.fake.FakeTensorMode for shape-only runs)")

#: torch name -> what to say instead of "module has no attribute"
MISSING: dict[str, str] = {
    "compile": "torch.compile's counterpart is tracer.compile (from tracer import compile): same backends idea, "
               "capturing at the torch-function level; Dynamo's controls are tracer.disable, graph_break, "
               "allow_in_graph, explain. To capture aten graphs directly use tracer.make_fx",
    "cuda": f"torch.cuda has no counterpart: {_DEVICES}; code asking torch.cuda.is_available() can use False",
    "mps": f"torch.mps has no counterpart: {_DEVICES}",
    "xpu": f"torch.xpu has no counterpart: {_DEVICES}",
    "amp": "torch.amp (autocast) is not implemented: the Autocast keys exist in key sets, with fallthrough "
           "kernels only",
    "jit": "torch.jit (TorchScript) is not implemented: capture graphs with tracer.make_fx or tracer.compile",
    "export": "torch.export is not implemented: tracer.make_fx(f, pre_dispatch=True) records the same "
              "pre-dispatch aten graph, with nn_module_stack in node.meta",
    "_dynamo": "torch._dynamo's counterpart is tracer (tracer.compile, tracer.explain, tracer.disable, "
               "tracer.graph_break, tracer.allow_in_graph, tracer.reset)",
    "fx": "torch.fx's counterpart is tracer (tracer.Graph, tracer.GraphModule, tracer.Node) and passes "
          "(passes.Interpreter, passes.Transformer, passes.replace_pattern, drawing)",
    "onnx": "torch.onnx is not implemented: save graphs with passes.save (versioned JSON)",
    "distributed": "torch.distributed is not implemented (one process, one NumPy device)",
    "sparse": "torch.sparse is not implemented: tensors are strided (dense) only",
    "special": "torch.special is not implemented as a namespace; the functions that exist (erf, erfc, expit as "
               "sigmoid, logit, xlogy, ...) are top-level torch functions",
    "quantization": "torch.quantization is not implemented (the Quantized keys exist in key sets only)",
}


def missing_attribute(module: str, name: str) -> AttributeError:
    """The error for ``module.name``: what to use, for torch names dispatchkit knows it lacks."""
    hint = MISSING.get(name)
    if hint is None:
        return AttributeError(f"module {module!r} has no attribute {name!r}")
    return AttributeError(f"module {module!r} has no attribute {name!r} (torch.{name}): {hint}")
