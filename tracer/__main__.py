"""``python -m tracer ...``: the dispatchkit command line.

An entry point, not part of the library: nothing imports this module. The command line itself
is ``passes.cli`` (it draws, saves and replays graphs, so it sits above every package).
"""

import sys

from passes.cli import main

sys.exit(main(prog="python -m tracer"))
