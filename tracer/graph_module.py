"""``GraphModule``: a Graph plus its attributes, turned into Python source and compiled.

Corresponds to torch/fx/graph_module.py and the code generator of torch/fx/graph.py
(``CodeGen._gen_python_code``). The generated text follows FX's layout line for line, so it
can be diffed against ``torch`` make_fx output::

    def forward(self, x_1, w_1):
        t = torch.ops.aten.t.default(w_1);  w_1 = None
        addmm = torch.ops.aten.addmm.default(b_1, x_1, t);  b_1 = x_1 = t = None
        getitem = native_layer_norm[0]
        return (sin, [cos, {'k': add}], 7)

In the generated module the global ``torch`` is the ``dispatcher`` package, so the code runs
on our operators; ``device``, ``inf``, ``nan``, ``fx_pytree`` and ``pytree`` are FX's other
globals. Nothing from a graph reaches the source unescaped: node names are re-sanitized
through a fresh Namespace, attribute paths that are not plain identifiers are read with
``getattr(self, '<repr>')``, string constants are ``repr``'d with ``str.__repr__``, kwargs
whose keys are not identifiers are passed as ``**{...}``, and objects that have no literal
form become named globals of the generated module rather than their ``repr``.
"""

from __future__ import annotations

import builtins
import collections
import copy
import enum
import itertools
import linecache
import math
import operator
import re
import types
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

import dispatcher
from dispatcher.dtypes import dtype as _DType
from dispatcher.memory_format import layout as _Layout
from dispatcher.memory_format import memory_format as _MemoryFormat
from dispatcher.op_overload import OpOverload, OpOverloadPacket
from dispatcher.tensor import Tensor
from dispatcher.tensor import device as _Device

from . import pytree
from .graph import Graph
from .names import _RESERVED, CODEGEN_GLOBALS, Namespace, _is_dunder, escape_surrogates, is_valid_name
from .node import Node

__all__ = ["GraphModule", "PythonCode", "python_code", "dtype_abbrs"]


class PythonCode(NamedTuple):
    """Generated source of ``forward`` and the globals it runs with."""

    src: str
    globals: dict[str, Any]


#: FX's short dtype names used in annotations ("f32[2, 3]")
dtype_abbrs = {
    "bool": "b8", "uint8": "u8", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "complex32": "c32", "complex64": "c64", "complex128": "c128", "uint16": "u16", "uint32": "u32", "uint64": "u64",
}

# operator functions printed as Python syntax (FX's magic_methods)
_INFIX = {
    "add": "{} + {}", "sub": "{} - {}", "mul": "{} * {}", "floordiv": "{} // {}", "truediv": "{} / {}",
    "mod": "{} % {}", "pow": "{} ** {}", "lshift": "{} << {}", "rshift": "{} >> {}",
    "and_": "{} & {}", "or_": "{} | {}", "xor": "{} ^ {}", "getitem": "{}[{}]", "matmul": "{} @ {}",
    "eq": "{} == {}", "ne": "{} != {}", "lt": "{} < {}", "gt": "{} > {}", "le": "{} <= {}", "ge": "{} >= {}",
    "pos": "+{}", "neg": "-{}", "invert": "~{}",
}
# in-place operator functions printed as statements (FX's inplace_methods)
_INPLACE = {
    "iadd": "{} += {}", "iand": "{} &= {}", "ifloordiv": "{} //= {}", "ilshift": "{} <<= {}", "imod": "{} %= {}",
    "imul": "{} *= {}", "imatmul": "{} @= {}", "ior": "{} |= {}", "ipow": "{} **= {}", "irshift": "{} >>= {}",
    "isub": "{} -= {}", "itruediv": "{} /= {}", "ixor": "{} ^= {}", "setitem": "{}[{}] = {}",
}
_OPERATOR_FNS = {fn for name in itertools.chain(_INFIX, _INPLACE) if (fn := getattr(operator, name, None))}

# the objects behind FX's pre-registered globals
_BUILTIN_GLOBALS: dict[str, Any] = {
    "inf": math.inf, "nan": math.nan, "NoneType": type(None), "torch": dispatcher, "device": _Device,
    "fx_pytree": pytree, "pytree": pytree,
}
assert set(_BUILTIN_GLOBALS) == set(CODEGEN_GLOBALS)

# exact type -> the base type's repr (never a subclass's __repr__); these are valid literals
_LITERAL_REPR: dict[type, Callable[[Any], str]] = {
    int: int.__repr__, float: float.__repr__, str: str.__repr__, bool: bool.__repr__, type(None): repr,
    complex: complex.__repr__, bytes: bytes.__repr__,
}

# characters that end a line in Python source (or confuse tools); never let them into a comment
_LINE_BREAKS_RE = re.compile(r"[\r\n\x00\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_ANNOTATION_SAFE_RE = re.compile(r"^[A-Za-z0-9_\[\], ().:+*-]*$")
_STACK_FRAME_RE = re.compile(r'^File "(.+)", line (\d+), in (.+)$')


def _dispatcher_path(obj: Any) -> str | None:
    """``torch.<path>`` when ``obj`` is reachable from the dispatcher package by that path.

    Tried in order: a top-level name (``torch.float32``), then ``__module__`` + ``__name__``
    (``dispatcher.ops.aten`` + ``add.Tensor``). The path is resolved before it is trusted,
    so printed code always refers to the very object.
    """
    name = getattr(obj, "__name__", None)
    if isinstance(obj, (_DType, _MemoryFormat, _Layout)):
        name = obj.name
    if not isinstance(name, str):
        return None
    if "." not in name and getattr(dispatcher, name, None) is obj:
        return f"torch.{name}"
    module = getattr(obj, "__module__", None)
    if not isinstance(module, str) or not (module == "dispatcher" or module.startswith("dispatcher.")):
        return None
    parts = module.split(".")[1:] + name.split(".")
    value: Any = dispatcher
    for part in parts:
        if not is_valid_name(part):
            return None
        value = getattr(value, part, None)
    if value is not obj:
        return None
    return "torch." + ".".join(parts)


def _qualified_name(obj: Any) -> str:
    """A readable hint for a global's name: ``module.qualname``."""
    module = getattr(obj, "__module__", None) or ""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__name__
    return f"{module}.{name}" if module else str(name)


class _CodeGen:
    """Generates the source of one graph's ``forward`` (one instance per generation)."""

    def __init__(self, graph: Graph, verbose: bool, include_stride: bool, include_device: bool) -> None:
        self.graph = graph
        self.verbose = verbose
        self.include_stride = include_stride
        self.include_device = include_device
        self.namespace = Namespace()
        self.globals: dict[str, Any] = {}
        self._global_names: dict[int, str] = {}  # id(obj) -> global name
        self._keepalive: list[Any] = []  # objects whose id() is in _global_names
        self.node_names: dict[Node, str] = {}
        self._callable_names: dict[int, str] = {}  # id(callable) -> how the code names it
        for name, obj in _BUILTIN_GLOBALS.items():
            self.namespace.create_name(name, obj)
            self.globals[name] = obj

    # --- names ----------------------------------------------------------------------------
    def add_global(self, hint: str, obj: Any) -> str:
        """A global of the generated module standing for ``obj`` (named from ``hint``)."""
        known = self._global_names.get(id(obj))
        if known is not None:
            return known
        if getattr(builtins, hint, None) is obj and hint in builtins.__dict__:
            name = hint  # e.g. `max`, `getattr`: the builtin itself
        else:
            name = self.namespace.create_name(hint, obj)
        self.globals[name] = obj
        self._global_names[id(obj)] = name
        self._keepalive.append(obj)
        return name

    def callable_name(self, fn: Any) -> str:
        """How generated code names a callable: ``torch.ops.aten.add.Tensor``, ``max``, or a global."""
        known = self._callable_names.get(id(fn))
        if known is not None:
            return known
        text = _dispatcher_path(fn)
        if text is None:
            name = getattr(fn, "__name__", None)
            if isinstance(name, str) and getattr(builtins, name, None) is fn:
                text = self.add_global(name, fn)
            else:
                text = self.add_global(_qualified_name(fn), fn)
        self._callable_names[id(fn)] = text
        self._keepalive.append(fn)
        return text

    # --- constants --------------------------------------------------------------------------
    def repr_arg(self, arg: Any) -> str:
        """Source text evaluating to ``arg`` in the generated module (never a foreign ``repr``)."""
        cls = type(arg)
        if cls is Node:
            name = self.node_names.get(arg)
            if name is None:
                raise RuntimeError(f"cannot generate code: a node refers to `{arg.name}`, which is not a live node "
                                   "of this graph (graph.lint() explains)")
            return name
        literal = _LITERAL_REPR.get(cls)
        if literal is not None:
            return literal(arg)
        if isinstance(arg, enum.Enum):
            return f"{self.add_global(type(arg).__name__, type(arg))}.{arg.name}" \
                if is_valid_name(arg.name) else self.add_global(f"{type(arg).__name__}_value", arg)
        if isinstance(arg, bool):
            return "True" if arg else "False"
        if isinstance(arg, int):
            return int.__repr__(arg)
        if isinstance(arg, float):
            return float.__repr__(arg)  # inf / nan / -inf read the `inf` and `nan` globals
        if isinstance(arg, complex):
            return complex.__repr__(arg)
        if isinstance(arg, str):
            return str.__repr__(arg)
        if isinstance(arg, bytes):
            return bytes.__repr__(arg)
        if arg is Ellipsis:
            return "Ellipsis"
        if isinstance(arg, tuple):
            if hasattr(arg, "_fields"):
                cls_name = self.add_global(_qualified_name(cls), cls)
                return f"{cls_name}({', '.join(self.repr_arg(a) for a in arg)})"
            if len(arg) == 1:
                return f"({self.repr_arg(arg[0])},)"
            return "(" + ", ".join(self.repr_arg(a) for a in arg) + ")"
        if isinstance(arg, list):
            return "[" + ", ".join(self.repr_arg(a) for a in arg) + "]"
        if isinstance(arg, dict):
            return "{" + ", ".join(f"{self.repr_arg(k)}: {self.repr_arg(v)}" for k, v in arg.items()) + "}"
        if cls is slice:
            return f"slice({self.repr_arg(arg.start)}, {self.repr_arg(arg.stop)}, {self.repr_arg(arg.step)})"
        if isinstance(arg, _Device):
            inner = f"type={str.__repr__(arg.type)}"
            if arg.index is not None:
                inner += f", index={int.__repr__(arg.index)}"
            return f"device({inner})"
        if isinstance(arg, (_DType, _MemoryFormat, _Layout, OpOverload, OpOverloadPacket)):
            path = _dispatcher_path(arg)
            return path if path is not None else self.add_global(str(arg), arg)
        if isinstance(arg, np.generic) and isinstance(arg.item(), (bool, int, float, complex)):
            return self.repr_arg(arg.item())
        if isinstance(arg, Tensor):
            return self.add_global("_tensor_constant_arg", arg)
        if callable(arg):
            return self.callable_name(arg)
        return self.add_global(f"_{type(arg).__name__}_constant", arg)

    def format_args(self, args: tuple, kwargs: dict) -> str:
        parts = [self.repr_arg(a) for a in args]
        unusual = {}
        for key, value in kwargs.items():
            if is_valid_name(key):
                parts.append(f"{key} = {self.repr_arg(value)}")
            else:
                unusual[key] = value
        if unusual:
            parts.append("**" + self.repr_arg(unusual))
        return ", ".join(parts)

    def attr_path(self, base: str, target: str) -> str:
        """``self.a.b``, falling back to ``getattr(x, 'part')`` for parts that are not identifiers."""
        text = base
        for part in target.split("."):
            # a "__private" part would be name-mangled inside the printed class; dunders are fine
            plain = is_valid_name(part) and (not part.startswith("__") or part.endswith("__"))
            text = f"{text}.{part}" if plain else f"getattr({text}, {str.__repr__(part)})"
        return text

    # --- annotations and stack traces ----------------------------------------------------------
    def annotation(self, node: Node) -> str:
        if not self.verbose:
            return ""
        val = node.meta.get("val")
        if isinstance(val, Tensor):
            dtype = dtype_abbrs.get(val.dtype.name, val.dtype.name)
            text = f"{dtype}[{', '.join(str(s) for s in val.shape)}]"
            if self.include_stride:
                text += f"[{', '.join(str(s) for s in val.stride())}]"
            if self.include_device:
                text += str(val.device)
            if _ANNOTATION_SAFE_RE.match(text):
                return f': "{text}"'
        return ""

    @staticmethod
    def stack_summary(node: Node) -> str:
        """``File: path:line in fn, code: text`` for the innermost frame of meta["stack_trace"]."""
        trace = node.meta.get("stack_trace")
        if isinstance(trace, str):
            lines = trace.strip().split("\n")
            for idx in range(len(lines) - 1, -1, -1):
                match = _STACK_FRAME_RE.match(lines[idx].strip())
                if match:
                    file, lineno, fn = match.group(1, 2, 3)
                    # the source line follows, unless the frame has none (code from exec / the REPL): PyTorch
                    # then shows the outer frame's header as the code; we keep the innermost frame, without code
                    after = lines[idx + 1].strip() if idx + 1 < len(lines) else ""
                    code = "" if _STACK_FRAME_RE.match(after) else after
                    text = f"File: {file}:{lineno} in {fn}" + (f", code: {code}" if code else "")
                    return escape_surrogates(_LINE_BREAKS_RE.sub(" ", text))
        return "No stacktrace found for following nodes"

    # --- the function ---------------------------------------------------------------------------
    def generate(self) -> PythonCode:
        graph = self.graph
        nodes = list(graph.nodes)
        names = self.node_names
        used = self.namespace._used
        for node in nodes:  # node names first, so globals never take them
            name = node.name
            if type(name) is str and name not in used and name not in _RESERVED and name.isidentifier():
                used.add(name)  # the usual case: the graph's namespace already made it valid and unique
            else:  # a name assigned behind the namespace's back: sanitize it again
                name = self.namespace.create_name(str(name), node)
            names[node] = name

        # the last use of each value: the "x = None" suffix frees it right after
        last_uses: dict[Node, list[str]] = {}
        seen: set[Node] = set()
        for node in reversed(nodes):
            for inp in node._input_nodes:
                if inp not in seen:
                    seen.add(inp)
                    last_uses.setdefault(node, []).append(names[inp])

        free_vars: list[str] = []
        body: list[str] = []
        prev_summary = None
        verbose = self.verbose
        for node in nodes:
            op = node.op
            if op == "placeholder":
                default = f" = {self.repr_arg(node._args[0])}" if node._args else ""
                free_vars.append(f"{names[node]}{self.annotation(node)}{default}")
                continue
            if op == "output":
                body.append(self.output_line(node) + "\n")
                continue
            if verbose:
                summary = f"\n# {self.stack_summary(node)}\n"
                if summary != prev_summary:
                    prev_summary = summary
                    body.append(summary)
            body.append(self.node_line(node))
            dead = last_uses.get(node)
            if not node.users:
                dead = (dead or []) + [names[node]]
            body.append(f";  {' = '.join(dead)} = None\n" if dead else "\n")

        prologue = self.prologue(free_vars)
        code = "".join(body).lstrip("\n") if body else "pass\n"
        code = "\n".join("    " + line for line in code.split("\n"))
        src = f"\n\n\n{prologue}\n{code}"
        return PythonCode(src, self.globals)

    def node_line(self, node: Node) -> str:
        name = self.node_names[node]
        lhs = f"{name}{self.annotation(node)}"
        op, target, args, kwargs = node.op, node._target, node._args, node._kwargs
        if op == "call_function":
            if target in _OPERATOR_FNS and not kwargs:
                template = _INFIX.get(target.__name__)
                if template is not None and template.count("{}") == len(args):
                    return f"{lhs} = {template.format(*(self.repr_arg(a) for a in args))}"
                template = _INPLACE.get(target.__name__)
                if template is not None and template.count("{}") == len(args):
                    statement = template.format(*(self.repr_arg(a) for a in args))
                    return f"{statement};  {lhs} = {self.repr_arg(args[0])}"
            if (target is getattr and len(args) == 2 and not kwargs and isinstance(args[1], str)
                    and is_valid_name(args[1]) and not _is_dunder(args[1])):
                return f"{lhs} = {self.repr_arg(args[0])}.{args[1]}"
            return f"{lhs} = {self.callable_name(target)}({self.format_args(args, kwargs)})"
        if op == "get_attr":
            return f"{lhs} = {self.attr_path('self', str(target))}"
        if op == "call_method":
            obj = self.repr_arg(args[0])
            method = self.attr_path(obj if type(args[0]) is Node else f"({obj})", str(target))
            return f"{lhs} = {method}({self.format_args(args[1:], kwargs)})"
        if op == "call_module":
            return f"{lhs} = {self.attr_path('self', str(target))}({self.format_args(args, kwargs)})"
        raise RuntimeError(f"cannot generate code for node {node.name}: unknown op {op!r}")

    def output_line(self, node: Node) -> str:
        result = node._args[0] if node._args else None
        info = self.graph.pytree_info
        if info is not None and info.out_spec is not None:
            return f"return pytree.tree_unflatten({self.repr_arg(result)}, self._out_spec)"
        return f"return {self.repr_arg(result)}"

    def prologue(self, free_vars: list[str]) -> str:
        info = self.graph.pytree_info
        if info is None or info.in_spec is None:
            return f"def forward({', '.join(['self'] + free_vars)}):"
        arg_names = [self.namespace.create_name(a, None) for a in info.orig_args]
        text = f"def forward({', '.join(['self'] + arg_names)}):"
        if free_vars:
            annotated = [v for v in free_vars if ":" in v]
            if annotated:
                text += "\n    " + "".join(v + "; " for v in annotated) + "\n"
            bare = [v.split(":")[0].split("=")[0].strip() for v in free_vars]
            text += f"\n    {', '.join(bare)}, = fx_pytree.tree_flatten_spec([{', '.join(arg_names)}], self._in_spec)"
        return text


def python_code(graph: Graph, *, verbose: bool = False, include_stride: bool = False,
                include_device: bool = False) -> PythonCode:
    """The source of ``forward`` for ``graph`` (``verbose`` adds annotations and stack-trace comments)."""
    return _CodeGen(graph, verbose, include_stride, include_device).generate()


# ---------------------------------------------------------------------------------------
# GraphModule
# ---------------------------------------------------------------------------------------

_compile_counter = itertools.count()
_LINECACHE_KEEP = 64  # generated sources kept for tracebacks (the oldest are dropped)
_linecache_names: collections.deque[str] = collections.deque()


def _compile_forward(src: str, globals_: dict[str, Any]) -> Callable[..., Any]:
    """Compile generated source; register it with linecache so tracebacks show the lines."""
    filename = f"<eval_with_key>.{next(_compile_counter)}"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    _linecache_names.append(filename)
    while len(_linecache_names) > _LINECACHE_KEEP:
        linecache.cache.pop(_linecache_names.popleft(), None)
    scope: dict[str, Any] = dict(globals_)
    scope["__builtins__"] = builtins
    exec(compile(src, filename, "exec"), scope)  # noqa: S102 - source built by _CodeGen from sanitized parts
    return scope["forward"]


class _AttrHolder:
    """An empty object standing for an intermediate module of a dotted attribute path."""

    def __repr__(self) -> str:
        return f"<attributes: {', '.join(vars(self))}>"


_CLASS_NAMES: dict[str, str] = {}  #: _sanitize_class_name's results (traced functions' names repeat)
_CLASS_NAMES_LIMIT = 1024


def _sanitize_class_name(name: str) -> str:
    known = _CLASS_NAMES.get(name) if type(name) is str else None
    if known is not None:
        return known
    text = re.sub(r"[^0-9a-zA-Z_]+", "_", str(name)) or "GraphModule"
    if text[0].isdigit():
        text = "_" + text
    text = text if is_valid_name(text) else f"{text}_"
    if type(name) is str and len(_CLASS_NAMES) < _CLASS_NAMES_LIMIT:
        _CLASS_NAMES[name] = text
    return text


class GraphModule:
    """A Graph with the attributes its ``get_attr`` / ``call_module`` nodes read, compiled to ``forward``.

    ``GraphModule(root, graph, class_name)``: ``root`` is an object or a dict supplying the
    attributes named by the graph's get_attr/call_module targets (dotted paths such as
    ``"lin.weight"`` create intermediate holders). ``gm(*args)`` runs the generated
    ``forward``; ``gm.code`` is its source; ``gm.recompile()`` regenerates it after the graph
    was edited; ``gm.print_readable()`` shows the source with shapes and source lines.
    """

    #: names a get_attr target may not start with (they would shadow the module's own members)
    _RESERVED_ATTRS = frozenset({"forward", "_graph", "_python_code", "_class_name", "_in_spec", "_out_spec",
                                 "_compiled"})

    def __init__(self, root: Any, graph: Graph, class_name: str = "GraphModule") -> None:
        self._class_name = _sanitize_class_name(class_name)
        self._graph: Graph | None = None
        for op in ("get_attr", "call_module"):
            for node in graph.find_nodes(op=op):
                self.set_attr(node.target, _fetch(root, node.target))
        self.graph = graph

    # --- attributes ----------------------------------------------------------------------------
    def set_attr(self, target: str, value: Any) -> None:
        """Store ``value`` at dotted path ``target`` (e.g. ``"_tensor_constant0"``, ``"lin.weight"``)."""
        if not isinstance(target, str) or not target:
            raise TypeError(f"attribute paths are non-empty strings, got {target!r}")
        parts = target.split(".")
        for part in parts:
            if not is_valid_name(part) or _is_dunder(part):
                raise ValueError(f"attribute path {target!r}: {part!r} is not a plain identifier "
                                 "(no spaces, quotes, keywords or __dunder__ names)")
        if parts[0] in self._RESERVED_ATTRS or hasattr(type(self), parts[0]):
            raise ValueError(f"attribute path {target!r} would shadow GraphModule.{parts[0]}; pick another name")
        holder: Any = self
        for part in parts[:-1]:
            nxt = getattr(holder, part, None)
            if nxt is None:
                nxt = _AttrHolder()
                setattr(holder, part, nxt)
            holder = nxt
        setattr(holder, parts[-1], value)

    def fetch_attr(self, target: str) -> Any:
        """The value at dotted path ``target``."""
        value: Any = self
        for i, part in enumerate(target.split(".")):
            if _is_dunder(part) or not hasattr(value, part):
                raise AttributeError(f"GraphModule has no attribute {'.'.join(target.split('.')[:i + 1])!r}")
            value = getattr(value, part)
        return value

    # --- graph and code ---------------------------------------------------------------------------
    @property
    def graph(self) -> Graph:
        """The graph; assigning a new one recompiles."""
        return self._graph

    @graph.setter
    def graph(self, graph: Graph) -> None:
        if not isinstance(graph, Graph):
            raise TypeError(f"GraphModule.graph must be a Graph, got {type(graph).__name__}")
        self._graph = graph
        graph.owning_module = self
        self._python_code = None  # generated on first use of `code` / `forward` (see _ensure_code)
        self._compiled = None
        info = graph.pytree_info
        self._in_spec = info.in_spec if info is not None else None  #: read by generated code
        self._out_spec = info.out_spec if info is not None else None  #: read by generated code

    def recompile(self) -> PythonCode:
        """Regenerate ``code`` and ``forward`` from the graph (call after editing the graph)."""
        self._python_code = None
        self._compiled = None
        return self._ensure_code()

    def _ensure_code(self) -> PythonCode:
        # Code generation is deferred from construction to first use, so make_fx does not pay for
        # source it may never need (torch's _LazyGraphModule does the same). NB: FX generates in
        # the constructor; the difference shows only if the graph is edited between construction
        # and the first use of `code` without a recompile().
        if self._python_code is None:
            info = self._graph.pytree_info
            self._in_spec = info.in_spec if info is not None else None
            self._out_spec = info.out_spec if info is not None else None
            self._python_code = python_code(self._graph)
        return self._python_code

    @property
    def code(self) -> str:
        """The generated source of ``forward``."""
        return self._ensure_code().src

    @property
    def forward(self) -> Callable[..., Any]:
        """The compiled ``forward``, bound to this module (compiled on first use)."""
        if self._compiled is None:
            code = self._ensure_code()
            self._compiled = types.MethodType(_compile_forward(code.src, code.globals), self)
        return self._compiled

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def print_readable(self, print_output: bool = True, include_stride: bool = False,
                       include_device: bool = False) -> str:
        """The class-style source with ``"f32[2, 3]"`` annotations and ``# File: ...`` source lines."""
        src = python_code(self._graph, verbose=True, include_stride=include_stride,
                          include_device=include_device).src.lstrip("\n")
        lines = src.split("\n")
        text = "\n".join([f"class {self._class_name}(torch.nn.Module):"]
                         + [("    " + line) if line.strip() else "" for line in lines])
        if print_output:
            print(text)
        return text

    def __deepcopy__(self, memo: dict) -> GraphModule:
        """An independent copy: attributes deep-copied, the graph copied, code regenerated on use."""
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        skip = {"_graph", "_python_code", "_compiled", "_in_spec", "_out_spec"}
        for key, value in self.__dict__.items():
            if key not in skip:
                new.__dict__[key] = copy.deepcopy(value, memo)
        new.graph = copy.deepcopy(self._graph, memo)
        return new

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"<{self._class_name}: GraphModule with {len(self._graph.nodes)} nodes>"

    def _repr_svg_(self) -> str | None:
        """The graph drawn as SVG, for Jupyter and other front ends (passes/inline.py)."""
        return _display(self, "svg")

    def _repr_html_(self) -> str | None:
        """The drawing in a height-limited, scrollable box, for Jupyter (passes/inline.py)."""
        return _display(self, "html")


def _display(gm: GraphModule, kind: str) -> str | None:
    """A picture of ``gm`` for a front end's display hook (``_repr_svg_`` / ``_repr_html_``).

    Display hook only: the drawing code lives in ``passes``, above this package (arrows point down), so it is
    imported here, inside the function, when a front end asks for a picture. Importing ``tracer`` never
    imports ``passes`` and there is no module-level cycle (``passes`` imports ``tracer`` at its top); a
    GraphModule shows as a picture in Jupyter with only ``tracer`` imported.
    """
    try:
        from passes import inline
    except ImportError:  # (an installation without the passes package: the text repr is shown)
        return None
    return inline.graph_svg(gm) if kind == "svg" else inline.graph_html(gm)


def _fetch(root: Any, target: str) -> Any:
    """The value ``root`` supplies for ``target``: ``root[target]`` for a dict, else attribute lookups."""
    if isinstance(root, dict):
        if target in root:
            return root[target]
        value: Any = root
        for part in target.split("."):
            if not isinstance(value, dict) or part not in value:
                raise KeyError(f"GraphModule: the attribute dict has no entry for {target!r}")
            value = value[part]
        return value
    value = root
    for part in target.split("."):
        if _is_dunder(part) or not hasattr(value, part):
            raise AttributeError(f"GraphModule: {type(root).__name__} has no attribute {target!r} "
                                 "that the graph reads")
        value = getattr(value, part)
    return value

