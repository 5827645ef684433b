"""Finding what the command line is asked about: a user's ``FILE.py:FUNCTION`` and operator names.

Loading a user file runs it (that is what the user asks for, as ``python FILE.py`` would); the
errors say which part of ``FILE.py:FUNCTION`` is wrong. Operator names are looked up in the
dispatcher's registry only (``aten.add.Tensor``, ``aten::add.Tensor``, ``aten.linear`` when the
operator has a single overload); nothing is imported or evaluated from the text.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["CliError", "check_output_path", "load_function", "one_line", "resolve_op"]


class CliError(Exception):
    """A user-facing command-line error: printed as ``dispatchkit: error: ...``, exit status 2."""


def one_line(text: str) -> str:
    """``text`` on one line (a multi-line message's lines joined with " | ")."""
    return " | ".join(line.strip() for line in str(text).splitlines() if line.strip())


def check_output_path(path: str, option: str, suffixes: tuple[str, ...]) -> None:
    """Before any work: ``path`` must end in one of ``suffixes`` and its folder must exist and be writable."""
    if not path.lower().endswith(suffixes):
        raise CliError(f"{option} {path!r}: expected a file name ending in {', '.join(suffixes)}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CliError(f"{option} {path!r}: the folder {folder!r} does not exist")
    if not os.access(folder, os.W_OK):
        raise CliError(f"{option} {path!r}: the folder {folder!r} is not writable")
    if os.path.isdir(path):
        raise CliError(f"{option} {path!r} is a folder; give a file name")


def load_function(target: str) -> Callable[..., Any]:
    """Import ``FILE.py`` and return its attribute ``FUNCTION`` (dotted paths reach nested attributes)."""
    path, sep, name = target.rpartition(":")
    if not sep or not path or not name:
        raise CliError(f"expected FILE.py:FUNCTION, got {target!r}")
    if not os.path.isfile(path):
        raise CliError(f"no such file: {path!r}")
    module_name = "_dispatchkit_user_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise CliError(f"cannot load {path!r} as a Python file")
    module = importlib.util.module_from_spec(spec)
    directory = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, directory)  # so the file can import its neighbours
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 - reported with the user's location
        raise CliError(f"importing {path} failed: {type(e).__name__}: {e}") from e
    finally:
        if sys.path and sys.path[0] == directory:
            sys.path.pop(0)
    obj: Any = module
    for part in name.split("."):
        if not hasattr(obj, part):
            defined = sorted(k for k, v in vars(module).items() if callable(v) and not k.startswith("_"))
            raise CliError(f"{path} defines no {name!r} (callables it defines: {', '.join(defined) or 'none'})")
        obj = getattr(obj, part)
    if not callable(obj):
        raise CliError(f"{path}:{name} is a {type(obj).__name__}, not a function")
    return obj


_OP_NAME = re.compile(r"^(?P<ns>[A-Za-z_]\w*)(?:::|\.)(?P<op>[A-Za-z_]\w*)(?:\.(?P<overload>[A-Za-z_]\w*))?$")


def resolve_op(name: str) -> Any:
    """The OpOverload named ``name`` (``aten.add.Tensor``, ``aten::add.Tensor``, ``aten.relu``)."""
    from dispatcher.registry import REGISTRY

    m = _OP_NAME.match(name.strip())
    if m is None:
        raise CliError(f"{name!r} is not an operator name; expected NAMESPACE.OP.OVERLOAD such as aten.add.Tensor")
    qualified = f"{m['ns']}::{m['op']}"
    found = {k: op for k, op in REGISTRY.operators.get(qualified, {}).items() if op._schema is not None}
    if not found:
        raise CliError(f"unknown operator {qualified!r}")
    overloads = [k or "default" for k in found]
    overload = m["overload"]
    if overload is None:
        if len(found) != 1:
            raise CliError(f"{qualified} has overloads {', '.join(overloads)}; name one, e.g. "
                           f"{m['ns']}.{m['op']}.{overloads[0]}")
        return next(iter(found.values()))
    op = found.get("" if overload == "default" else overload)
    if op is None:
        raise CliError(f"{qualified} has no overload {overload!r}; its overloads: {', '.join(overloads)}")
    return op
