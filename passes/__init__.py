"""passes: everything that takes a captured graph (replay, drawing, networkx, DCE/CSE, serialization).

Imports ``dispatcher`` and ``tracer``. Filled in by the graph-passes work; empty for now.
"""
