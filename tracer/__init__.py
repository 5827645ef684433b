"""tracer: graph capture on top of the dispatcher (graph IR, make_fx, decompositions, compile()).

Imports ``dispatcher``; never the other way round. The graph IR (torch.fx's counterpart):
``Graph`` (graph.py, with the IR's grammar), ``Node`` (node.py), node names (names.py),
``Graph.lint()`` (lint.py), ``GraphModule`` and code generation (graph_module.py), and a
small pytree library (pytree.py). ``make_fx`` and ``ProxyTorchDispatchMode`` are in proxy_tensor.py;
decomposition tables (``core_aten_decompositions()``) in the decompositions/ package, one module per op
family. ``compile()`` and Dynamo's controls are in compile*.py, its backends in backends/; built-in
example programs in examples.py.
"""

from dispatcher import __version__ as __version__  # (one version for the three packages)

from . import decompositions, pytree
from .compile import compile, reset  # noqa: A004 - torch.compile's name
from .compile_cache import compile_stats
from .compile_capture import Unsupported
from .compile_explain import explain
from .compile_markers import allow_in_graph, disable, disable_module, disallow_in_graph, graph_break
from .graph import OPCODES, Graph, GraphLintError, Namespace, Node, PyTreeInfo, map_aggregate, map_arg
from .graph_module import GraphModule, PythonCode, python_code
from .isolated import disable_proxy_modes_tracing, get_isolated_graphmodule
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
    "Unsupported",
    "allow_in_graph",
    "compile",
    "compile_stats",
    "decompositions",
    "disable",
    "disable_module",
    "disallow_in_graph",
    "explain",
    "graph_break",
    "make_fx",
    "disable_proxy_modes_tracing",
    "get_isolated_graphmodule",
    "map_aggregate",
    "map_arg",
    "pytree",
    "python_code",
    "reset",
]
