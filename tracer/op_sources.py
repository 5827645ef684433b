"""Where every piece of an operator is defined: ``where(op)`` and ``dispatchkit where OP``.

PyTorch spreads one op over native_functions.yaml (schema), aten/src/ATen/native/*.cpp (kernels),
torch/_meta_registrations.py (meta), tools/autograd/derivatives.yaml (derivative), torch/_decomp
(decompositions) and torch/_tensor.py / torch/functional.py / torch/nn/functional.py (the Python
surface). PyTorch has no single command that finds them all; here the op library is laid out by op
family, the same file stem in every layer, and ``where`` reads the live registrations (not file names)
to print each piece as ``file:line``:

    >>> from tracer.op_sources import where
    >>> print(where("aten.logaddexp"))

The family of an aten op is the stem of the file its kernels are registered from
(``dispatcher/ops/<family>.py`` or ``<family>_<aspect>.py``); ``FAMILIES`` lists them.
An op of another namespace (``torch.library``) has no family: its pieces are wherever the user
registered them.
"""

from __future__ import annotations

import functools
import inspect
import os
import re
from dataclasses import dataclass, field
from typing import Any

import dispatcher
from dispatcher.keys import DispatchKey
from dispatcher.op_overload import OpOverload, OpOverloadPacket, namespace

__all__ = ["FAMILIES", "OpSources", "Piece", "family_of", "where"]

#: the op families, the same file stem in every layer (kernels, derivatives, decompositions, the
#: torch-level API, nn.functional), with what each holds
FAMILIES: dict[str, str] = {
    "arithmetic": "+ - * / pow, remainder / fmod / floor_divide, abs / neg / sign, rounding, clamp, "
                  "addcmul / addcdiv, lerp, nan_to_num",
    "transcendental": "exp / log / trigonometric / hyperbolic / erf / sigmoid / tanh / logit, atan2, hypot, "
                      "logaddexp, xlogy",
    "comparison": "eq / ne / lt / le / gt / ge, maximum / minimum, where, isnan / isinf / isfinite, signbit, "
                  "logical_*, heaviside",
    "bitwise": "bitwise_and / or / xor / not, shifts, the & | ^ << >> operators",
    "reductions": "sum, mean, var / std, max / min / argmax, prod, all / any, logsumexp, norms, scans",
    "views": "view, reshape, permute / transpose, expand, squeeze / unsqueeze, select / slice, split / "
             "unbind / chunk, diagonal, and their backward / scatter ops",
    "shape": "cat / stack, pad (constant, reflection / replication / circular), flip / roll, repeat / tile, "
             "tril / triu, diag, sort / argsort / topk, unique",
    "indexing": "gather / scatter, index / index_put / index_select / index_add / index_fill / index_copy, "
                "masked_fill / masked_select / masked_scatter, nonzero",
    "factories": "empty / zeros / ones / full / arange / eye, the *_like and new_* factories",
    "conversions": "to / _to_copy, contiguous, clone, copy_, fill_ / zero_, item",
    "random": "rand / randn, uniform_ / normal_, bernoulli",
    "linalg": "mm / bmm / addmm / matmul / linear, dot / mv / outer, einsum, tensordot, kron, trace",
    "activations": "relu / gelu / silu / elu / ..., softmax / log_softmax, glu, threshold",
    "normalization": "layer_norm, batch_norm, group_norm, instance_norm, rms_norm",
    "losses": "mse / l1 / smooth_l1 / huber, nll / cross_entropy, binary cross-entropy, kl_div, margin losses",
    "convolution": "convolution and conv1d / 2d / 3d, conv_transpose1d / 2d / 3d, im2col / col2im (unfold / fold)",
    "pooling": "max / avg / adaptive pooling",
    "attention": "scaled_dot_product_attention and its CPU kernels",
    "embedding": "embedding, one_hot",
    "dropout": "dropout, native_dropout",
    "tensor_info": "dim / numel / sym_size / sym_stride / is_contiguous (what a subclass's sizes-strides policy answers)",
    "foreach": "the _foreach_* ops over lists of tensors (multi-tensor optimizers, gradient clipping)",
    "resizing": "upsample_* (nearest, nearest-exact, linear, bilinear, trilinear, bicubic), pixel_shuffle / "
                "pixel_unshuffle",
    "recurrent": "lstm / gru / rnn_tanh / rnn_relu and their cells, oneDNN's LSTM layer, packed sequences",
    "storage": "set_ (a tensor re-pointed at a storage or at another tensor's), is_set_to",
    "complex": "conj / _conj / resolve_conj / conj_physical, _neg_view / resolve_neg, is_conj / is_neg (the lazy "
               "conjugate and negative bits), real / imag, view_as_real / view_as_complex",
    "fft": "the FFT primitives _fft_r2c / _fft_c2c / _fft_c2r, the fft_* user ops of torch.fft (fft / ifft / rfft / "
           "irfft / hfft / ihfft, their 2 / n forms), fftshift / ifftshift, fftfreq / rfftfreq",
    "testing_ops": "ATen's test operators (_foobar: positional and keyword-only defaults, for dispatcher tests)",
    "streams": "record_stream (torch.Stream arguments; torch's only kernel is CUDA's)",
}

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass
class Piece:
    """One piece of an op: what it is, where it is defined, and a short detail (key, name)."""

    kind: str  #: "schema", "kernel", "autograd", "decomposition", "torch-level"
    label: str  #: e.g. "CPU", "core-aten", "Tensor.add"
    location: str  #: "dispatcher/ops/arithmetic.py:120", or a description when there is no source
    detail: str = ""  #: the function's name, the node name of a formula, ...


@dataclass
class OpSources:
    """Everything ``where`` found for one OpOverload."""

    op: OpOverload
    family: str | None
    pieces: list[Piece] = field(default_factory=list)

    def of_kind(self, kind: str) -> list[Piece]:
        return [p for p in self.pieces if p.kind == kind]

    def __str__(self) -> str:
        fam = self.family or ("none (an op of another namespace)" if self.op.namespace != "aten" else "unknown")
        lines = [f"{self.op.name()}  (family: {fam})", f"  {self.op._schema}"]
        previous = None
        for p in self.pieces:
            head = p.kind if p.kind != previous else ""
            previous = p.kind
            detail = f"  {p.detail}" if p.detail else ""
            lines.append(f"  {head:<14} {p.label:<28} {p.location}{detail}")
        return "\n".join(lines)


def _relpath(path: str) -> str:
    path = os.path.abspath(path)
    return os.path.relpath(path, _ROOT) if path.startswith(_ROOT + os.sep) else path


def _source_of(fn: Any) -> str | None:
    """``file:line`` of a Python callable's definition (through wrappers and partials), or None."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    try:
        fn = inspect.unwrap(fn)
        path = inspect.getsourcefile(fn)
        _, line = inspect.getsourcelines(fn)
    except (TypeError, OSError):
        return None
    if path is None:
        return None
    return f"{_relpath(path)}:{line}"


def _made_at(fn: Any, name: str) -> str | None:
    """For a function made by a factory (``_binary(np.add)``): the line of its module naming ``name``.

    ``inspect`` can only point at the factory's inner ``def``; the line that asks the factory for this op
    (``logaddexp = _binary_float(...)``, ``("logaddexp", ...)`` in a table) is where a reader should look.
    """
    location = _source_of(fn)
    if location is None or "<locals>" not in _name_of(fn):
        return location
    path = location.rsplit(":", 1)[0]
    path = path if os.path.isabs(path) else os.path.join(_ROOT, path)
    word = re.escape(name)
    patterns = (  # best first: an assignment or def, then a call naming the op, then any quoted mention
        re.compile(rf"^\s*(def\s+)?{word}\s*(=|\()"),
        re.compile(rf"\(\s*['\"]{word}['\"]"),
        re.compile(rf"['\"]{word}['\"]"),
    )
    try:
        lines = _lines(path)
    except OSError:
        return location
    for pattern in patterns:
        for number, text in enumerate(lines, 1):
            if pattern.search(text) and not text.lstrip().startswith("#"):
                return f"{_relpath(path)}:{number}"
    return location


def _kernel_location(op: OpOverload, key: DispatchKey, fn: Any) -> str | None:
    """Where an aten kernel is: its ``def``, or, for a kernel a shared factory made, the line that registered it."""
    location = _source_of(fn)
    if op.namespace != "aten" or (location is not None and "<locals>" not in _name_of(fn)):
        return location
    from dispatcher.ops.kernel_registry import SITES

    site = SITES.get((op.name().split("::", 1)[1], key.name))
    if site is None:
        return _made_at(fn, op.name().split("::", 1)[1])
    module = __import__(site[0], fromlist=["_"])
    path = inspect.getsourcefile(module)
    return f"{_relpath(path)}:{site[1]}" if path else location


@functools.cache
def _lines(path: str) -> tuple[str, ...]:
    """A source file's lines (read once per process: ``where`` over every op reads the same files)."""
    with open(path, encoding="utf-8") as f:
        return tuple(f.readlines())


def _module_line(module: str) -> str:
    """``file:1`` of a module (where nothing better is known)."""
    path = inspect.getsourcefile(__import__(module, fromlist=["_"]))
    return f"{_relpath(path)}:1" if path else module


def _formula_location(name: str, backward: Any) -> str:
    """Where a derivative formula is: its ``def`` when that is in the module that registered it, else the
    registering line (an in-place op whose formula is its out-of-place op's, a formula made by a helper)."""
    from dispatcher.autograd.function import DERIVATIVE_SITES

    location = _source_of(backward)
    site = DERIVATIVE_SITES.get(name)
    if site is None:
        return location or "?"
    path = inspect.getsourcefile(__import__(site[0], fromlist=["_"]))
    if path is None or (location is not None and location.rsplit(":", 1)[0] == _relpath(path)):
        return location or "?"
    return f"{_relpath(path)}:{site[1]}"


def _defined_in_layer(name: str, folders: tuple[str, ...], only: str | None = None) -> str | None:
    """``file:line`` of ``name = ...`` / ``def name(`` at the top level of a module in ``folders``, else of the
    first line naming ``"name"`` (a table of names a binding factory is applied to)."""
    word = re.escape(name)
    patterns = (re.compile(rf"^(def\s+{word}\s*\(|{word}\s*(:[^=]*)?=)"), re.compile(rf"['\"]{word}['\"]"))
    texts = []
    for folder in folders:
        directory = os.path.join(_ROOT, folder)
        for file in sorted(os.listdir(directory)):
            if file.endswith(".py") and only in (None, file):
                texts.append((f"{folder}/{file}", _lines(os.path.join(directory, file))))
    for pattern in patterns:
        for path, lines in texts:
            for number, text in enumerate(lines, 1):
                if pattern.search(text) and not text.lstrip().startswith("#"):
                    return f"{path}:{number}"
    return None


def _name_of(fn: Any) -> str:
    while isinstance(fn, functools.partial):
        fn = fn.func
    return getattr(inspect.unwrap(fn), "__qualname__", type(fn).__name__)


def _listing_line(op: OpOverload) -> str | None:
    """``file:line`` of the op's entry in the aten listing (native_functions.py)."""
    from dispatcher.ops import native_functions

    path = inspect.getsourcefile(native_functions)
    if path is None:
        return None
    needle = f'OpDef("{op._opname}{"." + op._overload_name_raw if op._overload_name_raw else ""}('
    for number, text in enumerate(_lines(path), 1):
        if needle in text:
            return f"{_relpath(path)}:{number}"
    return None


def family_of_file(location: str) -> str | None:
    """The family a ``file:line`` belongs to: the file stem, or its part before ``_<aspect>``."""
    stem = os.path.splitext(os.path.basename(location.rsplit(":", 1)[0]))[0]
    for family in FAMILIES:
        if stem == family or stem.startswith(family + "_"):
            return family
    return None


def family_of(op: Any) -> str | None:
    """The family of an aten op (the stem of the file its kernels are registered from), else None."""
    op = _resolve(op)[0]
    if op.namespace != "aten":
        return None
    for key in (DispatchKey.CPU, DispatchKey.CompositeExplicitAutograd, DispatchKey.CompositeImplicitAutograd,
                DispatchKey.Meta):
        for kernel in op.kernels.get(key, ()):
            location = _kernel_location(op, key, kernel.fn) if kernel.fn is not None else None
            if location and (family := family_of_file(location)):
                return family
    for _key, location, _note in _elsewhere(op):  # wt-stream: an op whose only torch kernel is CUDA's
        if family := family_of_file(location):
            return family
    return None


def _elsewhere(op: OpOverload) -> list[tuple[str, str, str]]:
    """(key, ``file:line``, note) of the ``elsewhere(...)`` records of an aten op: kernels torch has only for a
    backend not built here (dispatcher/ops/kernel_registry.py)."""
    from dispatcher.ops.kernel_registry import ELSEWHERE

    name = op.name().split("::", 1)[1]
    out = []
    for (n, key), (module, line, note) in ELSEWHERE.items():
        if n == name:
            path = inspect.getsourcefile(__import__(module, fromlist=["_"]))
            out.append((key, f"{_relpath(path)}:{line}" if path else module, note))
    return out


def _resolve(op: Any) -> list[OpOverload]:
    """An OpOverload, a packet (all overloads) or a name: ``aten.add``, ``aten::add.Tensor``, ``add.Tensor``."""
    if isinstance(op, OpOverload):
        return [op]
    if isinstance(op, OpOverloadPacket):
        return [getattr(op, name) for name in op.overloads()]
    if not isinstance(op, str):
        raise TypeError(f"where(): expected an OpOverload, an OpOverloadPacket or an op name such as "
                        f"'aten.add.Tensor', got {type(op).__name__}")
    import dispatcher.ops  # noqa: F401 - the aten library is defined on import

    text = op.strip().replace("::", ".")
    if text.startswith("torch.ops."):
        text = text[len("torch.ops."):]
    parts = text.split(".")
    if len(parts) == 1 or (len(parts) == 2 and parts[0] != "aten" and not _has_namespace(parts[0])):
        parts = ["aten", *parts]
    ns, name, *rest = parts
    packet = getattr(namespace(ns), name, None) if name else None
    overloads = packet.overloads() if isinstance(packet, OpOverloadPacket) else []
    if not overloads:
        raise ValueError(f"where(): no operator named {ns}::{name} is registered")
    if rest:
        if rest[0] not in overloads:
            raise ValueError(f"where(): {ns}::{name} has no overload {rest[0]!r} (it has: {', '.join(overloads)})")
        return [getattr(packet, rest[0])]
    return [getattr(packet, n) for n in overloads]


def _has_namespace(name: str) -> bool:
    from dispatcher.registry import REGISTRY

    return any(q.split("::", 1)[0] == name for q in getattr(REGISTRY, "operators", {}))


def _kernel_pieces(op: OpOverload) -> list[Piece]:
    from dispatcher.autograd.function import DERIVATIVES

    pieces = []
    for key in sorted(op.kernels, key=lambda k: -int(k)):
        kernels = op.kernels[key]
        if not kernels:
            continue
        kernel = kernels[-1]  # the newest registration wins
        if kernel.is_fallthrough:
            pieces.append(Piece("kernel", key.name, "fallthrough", ""))
            continue
        location = _kernel_location(op, key, kernel.fn) or kernel.debug
        if key in (DispatchKey.Autograd, DispatchKey.AutogradCPU) and _name_of(kernel.fn).startswith("autograd_kernel"):
            continue  # the generic autograd kernel: the formula below says where the op's derivative is
        kind = "autograd" if key == DispatchKey.Autograd else "kernel"
        pieces.append(Piece(kind, key.name, location, _name_of(kernel.fn)))
    name = op.name().split("::", 1)[1] if op.namespace == "aten" else op.name()
    if op.namespace == "aten":  # wt-stream: kernels torch has only for a backend not built here (CUDA)
        pieces.extend(Piece("kernel", key, location, note) for key, location, note in _elsewhere(op))
    formula = DERIVATIVES.get(name)
    if formula is not None:
        pieces.append(Piece("autograd", formula.node_name, _formula_location(name, formula.backward),
                            _name_of(formula.backward)))
    for key, fn in op.py_kernels.items():
        # py_impl kernels run under the Python dispatcher: Python decompositions overriding the op's kernel
        pieces.append(Piece("decomposition", f"py_impl({getattr(key, 'name', key)})", _source_of(fn) or "?",
                            _name_of(fn)))
    return pieces


def _decomposition_pieces(op: OpOverload) -> list[Piece]:
    from .decompositions import core_aten_decompositions, global_decomposition_table

    pieces = []
    from .decompositions.registry import DECOMPOSITION_SITES

    fn = global_decomposition_table.get(op)
    if fn is not None:
        location = _source_of(fn)
        site = DECOMPOSITION_SITES.get(op)
        if site is not None:  # made by a helper in another file: the line that registered it
            path = inspect.getsourcefile(__import__(site[0], fromlist=["_"]))
            if path is not None and (location is None or location.rsplit(":", 1)[0] != _relpath(path)):
                location = f"{_relpath(path)}:{site[1]}"
        pieces.append(Piece("decomposition", "decomposition table", location or "?", _name_of(fn)))
    core = core_aten_decompositions().get(op)
    if core is not None and core is fn:
        pieces[-1].label = "table, core-aten"
    elif core is not None:
        # a CIA op's own decomposition: the table entry runs the op's CompositeImplicitAutograd kernel
        cia = op.kernels.get(DispatchKey.CompositeImplicitAutograd)
        target = cia[-1].fn if cia else core
        location = _kernel_location(op, DispatchKey.CompositeImplicitAutograd, target) if cia else _source_of(core)
        pieces.append(Piece("decomposition", "core-aten (CIA kernel)", location or "?", _name_of(target)))
    return pieces


def _surface_candidates(op: OpOverload) -> list[tuple[str, Any]]:
    """The torch-level callables named after the op: ``torch.X``, ``Tensor.X``, ``nn.functional.X``."""
    from dispatcher.nn import functional as F

    base = op._opname
    found: list[tuple[str, Any]] = []
    plain = base.strip("_") if base.startswith("__") else base
    for owner, prefix in ((dispatcher, "torch"), (dispatcher.Tensor, "Tensor"), (F, "nn.functional")):
        for attr in dict.fromkeys((base, plain)):
            value = owner.__dict__.get(attr) if isinstance(owner, type) else getattr(owner, attr, None)
            if value is None or isinstance(value, (OpOverload, OpOverloadPacket, type, int, float, str)):
                continue
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            if isinstance(value, property):
                value = value.fget
            if callable(value) and (prefix, attr) not in {(p, a) for p, a, *_ in found}:
                found.append((prefix, attr, value))  # type: ignore[arg-type]
    if base.startswith("fft_") and callable(getattr(dispatcher.fft, base[4:], None)):  # torch.fft.X is aten.fft_X
        found.append(("torch.fft", base[4:], getattr(dispatcher.fft, base[4:])))  # type: ignore[arg-type]
    if base.startswith("linalg_"):  # torch.linalg.X for aten linalg_X (wt-lstsq)
        value = getattr(dispatcher.linalg, base.removeprefix("linalg_"), None)
        if callable(value):
            found.append(("linalg", base.removeprefix("linalg_"), value))
    return [(f"{prefix}.{attr}", value) for prefix, attr, value in found]  # type: ignore[misc]


def _surface_pieces(op: OpOverload) -> list[Piece]:
    pieces = []
    for label, fn in _surface_candidates(op):
        location = _source_of(fn)
        if location is not None and "<locals>" in _name_of(fn):  # made by a binding factory: find the assignment
            if label.startswith("Tensor."):
                from dispatcher.api.tensor_methods import INSTALLED_BY

                module = INSTALLED_BY.get(label.rsplit(".", 1)[1])
                if module is not None:
                    folder = module.replace(".", "/").rsplit("/", 1)[0]
                    found = _defined_in_layer(label.rsplit(".", 1)[1], (folder,), module.rsplit(".", 1)[1] + ".py")
                    pieces.append(Piece("torch-level", label, found or _module_line(module), _name_of(fn)))
                    continue
            folders = ("dispatcher/nn/functional", "dispatcher/api") if label.startswith("nn.") else ("dispatcher/api",)
            location = _defined_in_layer(label.rsplit(".", 1)[1], folders) or _made_at(fn, label.rsplit(".", 1)[1])
        if location is not None:
            pieces.append(Piece("torch-level", label, location, _name_of(fn)))
    return pieces


def where(op: Any) -> list[OpSources]:
    """Where each piece of ``op`` (every overload of a packet) is defined, with its family."""
    result = []
    for overload in _resolve(op):
        family = family_of(overload)
        sources = OpSources(overload, family)
        schema_at = _listing_line(overload) if overload.namespace == "aten" else None
        defined_at = overload._schema_debug.removeprefix("registered at ")
        if not schema_at and ":" in defined_at:
            path, _, line = defined_at.rpartition(":")
            defined_at = f"{_relpath(path)}:{line}"
        sources.pieces.append(Piece("schema", "listing" if schema_at else "Library.define", schema_at or defined_at))
        sources.pieces += _kernel_pieces(overload)
        sources.pieces += _decomposition_pieces(overload)
        sources.pieces += _surface_pieces(overload)
        result.append(sources)
    return result


def describe(op: Any) -> str:
    """``where(op)`` as the text ``dispatchkit where`` prints."""
    return "\n\n".join(str(s) for s in where(op))


def family_table_markdown() -> str:
    """docs/op_families.md: every aten op of the listing by family, generated from the registry.

    ``tests/test_op_sources.py`` regenerates it and compares, so the page stays true; rewrite it with
    ``python -m tracer.op_sources > docs/op_families.md``.
    """
    from dispatcher.ops.native_functions import NATIVE_FUNCTIONS

    by_family: dict[str, list[str]] = {family: [] for family in FAMILIES}
    unplaced = []
    for entry in NATIVE_FUNCTIONS:
        op = _resolve(f"aten.{entry.name}")[0]
        family = family_of(op)
        (by_family[family] if family else unplaced).append(entry.name)
    lines = [
        "# Op families",
        "",
        "Generated from the registry by `python -m tracer.op_sources > docs/op_families.md` (a test keeps it",
        "true). Every aten op of the listing belongs to one family; the family is the file stem of each of",
        "its pieces in every layer:",
        "",
        "| layer | file |",
        "|---|---|",
        "| kernels and meta functions | `dispatcher/ops/<family>.py` |",
        "| derivative formulas | `dispatcher/autograd/derivatives/<family>.py` |",
        "| core-aten decompositions | `tracer/decompositions/<family>.py` |",
        "| torch-level functions and Tensor methods | `dispatcher/api/<family>.py` |",
        "| `nn.functional` | `dispatcher/nn/functional/<family>.py` |",
        "",
        "A family too big for one file in a layer continues in `<family>_<aspect>.py`. `dispatchkit where OP`",
        "prints where each piece of one op is (file:line).",
        "",
        "| family | what it holds | ops |",
        "|---|---|---|",
    ]
    for family, names in by_family.items():
        ops = ", ".join(f"`{n}`" for n in names)
        lines.append(f"| {family} | {FAMILIES[family]} | {ops} |")
    if unplaced:
        lines.append(f"| (no family) | ops whose kernels are not in a family file | "
                     f"{', '.join(f'`{n}`' for n in unplaced)} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(family_table_markdown(), end="")
