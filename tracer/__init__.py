"""tracer: graph capture on top of the dispatcher (graph IR, make_fx, fake tensors, compile()).

Imports ``dispatcher``; never the other way round. Filled in by the make_fx and
compile() work; empty for now.
"""
