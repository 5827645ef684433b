"""passes: everything that takes a captured graph.

Imports ``dispatcher`` and ``tracer``, never the other way round. Drawing (drawing.py: DOT text in dot.py,
collapsing of large graphs in collapse.py, a pure-Python layout in svg_layout.py), networkx views and
analyses (nx.py, cost estimates in costs.py), op statistics (stats.py), replay (interpreter.py, replay.py),
transforms (dce.py, cse.py, shape_prop.py, decompose.py, functionalize.py, replace_pattern.py, with the
shared purity / aliasing rules in side_effects.py), safe serialization (serialize.py) and the command line
(cli/).
"""

from dispatcher import __version__ as __version__  # (one version for the three packages: pyproject reads it)

# --- drawing, networkx views, statistics ---
from .drawing import DrawingTimeout as DrawingTimeout  # noqa: E402
from .drawing import GraphvizNotFound as GraphvizNotFound  # noqa: E402
from .drawing import draw as draw  # noqa: E402
from .drawing import render as render  # noqa: E402
from .drawing import to_dot as to_dot  # noqa: E402
from .drawing import to_svg as to_svg  # noqa: E402
from .inline import Picture as Picture  # noqa: E402
from .inline import show as show  # noqa: E402
from .inline import side_by_side as side_by_side  # noqa: E402
from .nx import critical_path as critical_path  # noqa: E402
from .nx import dominators as dominators  # noqa: E402
from .nx import liveness as liveness  # noqa: E402
from .nx import op_histogram as op_histogram  # noqa: E402
from .nx import parallelism_profile as parallelism_profile  # noqa: E402
from .nx import to_networkx as to_networkx  # noqa: E402
from .nx import topological_generations as topological_generations  # noqa: E402
from .stats import op_stats as op_stats  # noqa: E402
from .viewer import Viewer as Viewer  # noqa: E402
from .viewer import view as view  # noqa: E402

# isort: split
# --- the dispatcher drawn ---
from .dispatch_view import dispatch_table as dispatch_table  # noqa: E402
from .dispatch_view import explain_picture as explain_picture  # noqa: E402
from .dispatch_view import keyset_bits as keyset_bits  # noqa: E402
from .dispatch_view import register_ipython_formatters as _register_ipython_formatters  # noqa: E402

_register_ipython_formatters()

# isort: split
# --- serialization, functionalization, pattern rewriting ---
from .functionalize import FunctionalizationError as FunctionalizationError  # noqa: E402
from .functionalize import functionalize as functionalize  # noqa: E402
from .replace_pattern import Match as Match  # noqa: E402
from .replace_pattern import replace_pattern as replace_pattern  # noqa: E402
from .serialize import SerializationError as SerializationError  # noqa: E402
from .serialize import load as load  # noqa: E402
from .serialize import save as save  # noqa: E402

# isort: split
# --- interpreter / replay, DCE, CSE, shape propagation, decompose, side effects ---
from . import side_effects as side_effects  # noqa: E402
from .cse import common_subexpression_elimination as common_subexpression_elimination  # noqa: E402
from .dce import dead_code_elimination as dead_code_elimination  # noqa: E402
from .decompose import DecompositionInterpreter as DecompositionInterpreter  # noqa: E402
from .decompose import decompose as decompose  # noqa: E402
from .interpreter import Interpreter as Interpreter  # noqa: E402
from .interpreter import Transformer as Transformer  # noqa: E402
from .replay import ReplayMismatch as ReplayMismatch  # noqa: E402
from .replay import replay as replay  # noqa: E402
from .shape_prop import ShapeProp as ShapeProp  # noqa: E402
from .shape_prop import TensorMetadata as TensorMetadata  # noqa: E402
from .shape_prop import shape_propagation as shape_propagation  # noqa: E402
