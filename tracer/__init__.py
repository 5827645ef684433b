"""tracer: graph capture on top of the dispatcher (graph IR, make_fx, decompositions).

Imports ``dispatcher``; never the other way round. The graph IR (torch.fx's counterpart):
``Graph`` (graph.py, with the IR's grammar), ``Node`` (node.py), node names (names.py),
``Graph.lint()`` (lint.py), ``GraphModule`` and code generation (graph_module.py), and a
small pytree library (pytree.py). ``make_fx`` and ``ProxyTorchDispatchMode`` are in proxy_tensor.py;
decomposition tables (``core_aten_decompositions()``) in decompositions.py and decomp_*.py.
"""

from . import decompositions, pytree
from .graph import OPCODES, Graph, GraphLintError, Namespace, Node, PyTreeInfo, map_aggregate, map_arg
from .graph_module import GraphModule, PythonCode, python_code
from .proxy_tensor import ProxyTorchDispatchMode, TracingError, make_fx

__all__ = [
    "OPCODES",
    "Graph",
    "GraphLintError",
    "GraphModule",
    "Namespace",
    "Node",
    "ProxyTorchDispatchMode",
    "PyTreeInfo",
    "PythonCode",
    "TracingError",
    "decompositions",
    "make_fx",
    "map_aggregate",
    "map_arg",
    "pytree",
    "python_code",
]
