"""The bad-input sweep (issue 18): every listed aten op, one valid sample call mutated one argument at a time,
run on torch 2.13 (the oracle, ``torch.ops.aten.<op>.<overload>``) and here (``dispatcher.ops.aten``).

PyTorch counterpart: none (a test generator); the mutations are what a new user gets wrong: wrong dtype, rank or
shape, None, a string, zero-size, NaN/inf, non-contiguous and overlapping (expanded) views for written-to
arguments, a cpu/meta mix, out-of-range dims, missing / extra / unknown arguments.

``cases(name)`` lists an op's mutated calls (at most ``CAP``); ``run_case`` runs one on both sides and returns an
``Outcome``: its ``category`` is "ok" or what went wrong:

* ``leak``: ours raised an internal error (AttributeError, KeyError, ZeroDivisionError, ... or any exception raised
  inside NumPy), whatever torch did;
* ``wrong_class``: both raise, ours not an instance of torch's public class;
* ``silent``: torch raises, ours returns;
* ``reject``: torch returns, ours raises (a public class);
* ``value``: both return, different dtype / shape / values (NaN-aware);
* ``warning``: ours returned torch's values but printed a NumPy RuntimeWarning.

``python tests/bad_input_sweep.py`` prints the counts per category (and per leaked class) and the cases.
"""

from __future__ import annotations

import sys
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])

from op_samples import DEV, DT, OPS, SM, Sample, T, build  # noqa: E402

from dispatcher.ops.native_functions import NATIVE_FUNCTIONS  # noqa: E402
from dispatcher.schema import parse_schema  # noqa: E402

_TRACE = bool(__import__('os').environ.get('SWEEP_TRACE'))
CAP = 24  #: mutated calls per op at most
PUBLIC = (NotImplementedError, IndexError, ValueError, TypeError, RuntimeError)  # subclasses first
INTERNAL = (AttributeError, KeyError, ZeroDivisionError, AssertionError, RecursionError, UnboundLocalError,
            NameError, OverflowError, FloatingPointError)
#: (op, case) pairs that crash torch 2.13 itself (a segfault in the oracle): not run
TORCH_CRASHES = {
    ("native_batch_norm_backward", "save_invstd:zero-size"),
    ("copy", "self:None"),
    ("_scaled_dot_product_flash_attention_for_cpu_backward", "value:zero-size"),
    ("_scaled_dot_product_flash_attention_for_cpu", "value:zero-size"),
    ("_scaled_dot_product_flash_attention_for_cpu", "key:zero-size"),
    ("_adaptive_avg_pool2d_backward", "self:zero-size"),
    ("_adaptive_avg_pool3d_backward", "grad_output:zero-size"),
    ("_embedding_bag_per_sample_weights_backward", "grad:zero-size"),
    ("_weight_norm", "g:zero-size"),
    ("_weight_norm_interface", "g:zero-size"),
    ("_weight_norm_interface_backward", "grad_w:zero-size"),
    ("_weight_norm_interface_backward", "saved_norms:zero-size"),
    ("max_pool3d_with_indices_backward", "indices:zero-size"),
    ("reflection_pad1d_backward", "padding:empty"),
    ("reflection_pad2d_backward", "grad_output:zero-size"),
    ("reflection_pad2d_backward", "padding:empty"),
    ("replication_pad1d_backward", "grad_output:zero-size"),
    ("replication_pad2d_backward", "grad_output:zero-size"),
    ("replication_pad3d_backward", "grad_output:zero-size"),
}
#: cases where torch 2.13 returns uninitialised memory (values not compared): gather_backward with a meta index
#: scatters nothing into its new_zeros... on CPU (the meta index makes scatter_add a no-op and the result is empty())
TORCH_UNINITIALISED = {("gather_backward", "index:meta")}
#: weight norm's fused CPU kernels write only the first values of a norm / grad_g shaped like a larger g
TORCH_UNINITIALISED |= {("_weight_norm_interface", "v:rank-"), ("_weight_norm_interface", "v:rank+"),
                        ("_weight_norm_interface", "g:shape"), ("_weight_norm_interface_backward", "saved_g:shape")}
SCHEMAS = {op.name: parse_schema("aten::" + op.schema) for op in NATIVE_FUNCTIONS}
#: ops whose outputs hold uninitialised memory (values are not comparable)
_UNINITIALISED = ("empty", "new_empty", "empty_like", "empty_strided", "new_empty_strided", "resize_", "resize_as_",
                  "empty_permuted", "_efficientzerotensor")


#: ops drawing random numbers (a mutation may turn the randomness on: dropout's train=2)
_RANDOM = ("dropout", "bernoulli", "normal", "uniform", "rand", "multinomial", "exponential")


@dataclass(frozen=True)
class Post:
    """A change made to a built argument (both libraries): "nan" / "inf" fill, "meta" device, "overlap" view."""

    what: str
    spec: T


@dataclass
class Case:
    op: str
    label: str  #: "<argument>:<mutation>" or ":missing" / ":extra" / ":unknown_kw"
    sample: Sample


@dataclass
class Outcome:
    category: str
    detail: str = ""


def _arg_names(name: str, sample: Sample) -> list[str]:
    schema = SCHEMAS[name]
    pos = [a.name for a in schema.arguments if not a.kwarg_only]
    return [pos[i] if i < len(pos) else f"#{i}" for i in range(len(sample.args))]


def _written(name: str) -> set[str]:
    return {a.name for a in SCHEMAS[name].arguments if a.is_write}


def _tensor_mutations(v: T, arg: str, written: bool, n_tensors: int) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    floating = v.dtype in ("float16", "float32", "float64")
    out.append(("dtype", replace(v, dtype="int64" if floating else "float32",
                                 kind=v.kind if not isinstance(v.kind, tuple) or floating else "normal")))
    if v.shape:
        out.append(("rank-", replace(v, shape=v.shape[1:], layout="contiguous")))
    out.append(("rank+", replace(v, shape=(2,) + tuple(v.shape))))
    if v.shape:
        out.append(("shape", replace(v, shape=tuple(v.shape[:-1]) + (v.shape[-1] + 1,))))
        out.append(("zero-size", replace(v, shape=(0,) + tuple(v.shape[1:]))))
    out.append(("None", None))
    out.append(("str", "abc"))
    if floating:
        out.append(("nan", Post("nan", v)))
        out.append(("inf", Post("inf", v)))
    if n_tensors >= 2:
        out.append(("meta", Post("meta", v)))
    if len(v.shape) >= 2 and v.layout == "contiguous":
        out.append(("non-contiguous", replace(v, layout="transposed")))
    if written and v.shape and v.shape[-1] > 1:
        out.append(("overlap", Post("overlap", v)))
    return out


def _value_mutations(v: Any, arg: str) -> list[tuple[str, Any]]:
    if isinstance(v, T):
        raise AssertionError
    out: list[tuple[str, Any]] = []
    dim_like = "dim" in arg
    if isinstance(v, bool):
        out += [("str", "abc"), ("int", 2)]
    elif isinstance(v, int):
        if dim_like:
            out += [("dim+", 5), ("dim-", -7)]
        else:
            out += [("negative", -3)]
        out += [("None", None), ("str", "abc"), ("float", 1.5)]
    elif isinstance(v, float):
        out += [("None", None), ("str", "abc"), ("nan", float("nan"))]
    elif isinstance(v, str):
        out += [("None", None), ("str", "abc_not_valid")]
    elif isinstance(v, DT):
        out += [("None", None), ("str", "abc"), ("dtype", DT("int64" if v.name != "int64" else "float32"))]
    elif v is DEV:
        out += [("str", "xyz")]
    elif isinstance(v, (list, tuple)) and v and all(isinstance(e, T) for e in v):
        out += [("empty", type(v)()), ("None", None), ("str", "abc")]
        first = v[0]
        out += [("elem-rank+", type(v)([replace(first, shape=(2,) + tuple(first.shape))] + list(v[1:])))]
        if len(v) >= 2 and first.shape:
            out += [("elem-meta", type(v)([Post("meta", first)] + list(v[1:])))]
    elif isinstance(v, (list, tuple)) and all(isinstance(e, int) and not isinstance(e, bool) for e in v):
        out += [("None", None), ("str", "abc"), ("empty", type(v)())]
        if dim_like and v:
            out += [("dim+", type(v)([5] + list(v[1:])))]
        elif v:
            out += [("negative", type(v)([-3] + list(v[1:])))]
    elif v is None:
        out += [("str", "abc")]
    elif isinstance(v, SM):  # wt-stream: a Stream argument (not a str: torch reads its hash as a device type)
        out += [("None", None), ("int", 3), ("meta-stream", SM(0, -1, 14))]
    return out


def cases(name: str) -> list[Case]:
    """The mutated calls of op ``name`` (from its first sample; at most CAP)."""
    info = OPS[name]
    if not info.samples:
        return []
    sample = info.samples[0]
    names = _arg_names(name, sample)
    written = _written(name)
    n_tensors = sum(1 for a in list(sample.args) + list(sample.kwargs.values()) if isinstance(a, T))
    out: list[Case] = []
    slots: list[tuple[Any, str, Any]] = [(i, names[i], v) for i, v in enumerate(sample.args)]
    slots += [(k, k, v) for k, v in sample.kwargs.items()]
    for key, arg, v in slots:
        muts = _tensor_mutations(v, arg, arg in written, n_tensors) if isinstance(v, T) else _value_mutations(v, arg)
        for label, new in muts:
            if isinstance(key, int):
                args = list(sample.args)
                args[key] = new
                s = Sample(tuple(args), dict(sample.kwargs))
            else:
                s = Sample(sample.args, {**sample.kwargs, key: new})
            out.append(Case(name, f"{arg}:{label}", s))
    if sample.args:
        out.append(Case(name, ":missing", Sample(sample.args[:-1], dict(sample.kwargs))))
    n_pos = sum(1 for a in SCHEMAS[name].arguments if not a.kwarg_only)
    extra = tuple(sample.args) + tuple([1] * max(1, n_pos + 1 - len(sample.args)))
    out.append(Case(name, ":extra", Sample(extra, dict(sample.kwargs))))
    out.append(Case(name, ":unknown_kw", Sample(sample.args, {**sample.kwargs, "foo": 1})))
    if len(out) > CAP:  # keep the call-level cases and an even spread of the rest
        head, tail = out[:-3], out[-3:]
        step = len(head) / (CAP - 3)
        out = [head[int(i * step)] for i in range(CAP - 3)] + tail
    return out


# --------------------------------------------------------------------------------------------------------------
# building and running


def _apply_post(x: Any, what: str, lib: Any, ours: bool) -> Any:
    if what == "nan":
        return x.fill_(float("nan"))
    if what == "inf":
        return x.fill_(float("inf"))
    if what == "meta":
        if ours:
            from dispatcher.tensor import Tensor, device
            return Tensor._empty(x._shape, x._dtype, device("meta"), x._stride)
        return x.to("meta")
    if what == "overlap":
        return x.narrow(-1, 0, 1).expand(list(x.shape))
    raise AssertionError(what)


def _build(sample: Sample, target: str) -> tuple[tuple, dict]:
    """``build`` with the Post placeholders resolved (the same values on both sides)."""
    posts: list[Post] = []

    def strip(x: Any) -> Any:
        if isinstance(x, Post):
            posts.append(x)
            return x.spec
        if isinstance(x, list):
            return [strip(e) for e in x]
        if isinstance(x, tuple):
            return tuple(strip(e) for e in x)
        return x

    plain = Sample(tuple(strip(a) for a in sample.args), {k: strip(v) for k, v in sample.kwargs.items()})
    args, kwargs = build(plain, target)
    if not posts:
        return args, kwargs
    if target == "torch":
        import torch as lib
    else:
        import dispatcher as lib

    def resolve(spec: Any, built: Any) -> Any:
        if isinstance(spec, Post):
            return _apply_post(built, spec.what, lib, target != "torch")
        if isinstance(spec, (list, tuple)) and isinstance(built, (list, tuple)):
            return type(built)(resolve(s, b) for s, b in zip(spec, built))
        return built

    return (tuple(resolve(s, b) for s, b in zip(sample.args, args)),
            {k: resolve(sample.kwargs[k], v) for k, v in kwargs.items()})


def _torch_op(name: str) -> Callable:
    import torch
    base, _, overload = name.partition(".")
    return getattr(getattr(torch.ops.aten, base), overload or "default")


def _our_op(name: str) -> Callable:
    from dispatcher.ops import aten
    base, _, overload = name.partition(".")
    return getattr(getattr(aten, base), overload or "default")


def public_class(exc: BaseException) -> type:
    for t in PUBLIC:
        if isinstance(exc, t):
            return t
    return type(exc)


#: NumPy's own wording (raised from C, so no NumPy frame shows in the traceback)
_NUMPY_TEXTS = ("cannot reshape array", "could not be broadcast", "could not broadcast", "only specify one unknown",
                "more dimensions than allowed", "is out of bounds for axis", "is out of bounds for array",
                "setting an array element", "axes don't match", "negative dimensions are not allowed",
                "mismatch in its core dimension", "zero-size array to reduction", "invalid entry in coordinates",
                "repeats may not contain", "cannot convert float NaN", "maximum supported dimension",
                "array is too big", "too many indices for array", "arrays used as indices must be",
                "only integers, slices", "cannot do a non-empty take", "Cannot cast ufunc", "ufunc '",
                "not 'NoneType'", "unsupported operand type", "object is not iterable", "object is not subscriptable",
                "object cannot be interpreted as an integer", "values to unpack", "list index out of range",
                "tuple index out of range")


def is_leak(exc: BaseException) -> str | None:
    """The reason ``exc`` is an internal error leaking out of ours, or None."""
    if isinstance(exc, INTERNAL):
        return type(exc).__name__
    text = str(exc)
    if type(exc) in (ValueError, TypeError, IndexError) and any(t in text for t in _NUMPY_TEXTS):
        return "numpy/python:" + type(exc).__name__
    if type(exc).__module__.startswith("numpy"):
        return "numpy." + type(exc).__name__
    frames = traceback.extract_tb(exc.__traceback__)
    if frames and "/numpy/" in frames[-1].filename.replace("\\", "/"):
        return "numpy:" + type(exc).__name__
    if not isinstance(exc, PUBLIC):
        return type(exc).__name__
    return None


def _flat(out: Any) -> list:
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _flat(o)]
    return [out]


def _compare(name: str, ours: Any, theirs: Any, values: bool) -> str | None:
    import torch
    a, b = _flat(ours), _flat(theirs)
    if len(a) != len(b):
        return f"{len(a)} outputs, torch {len(b)}"
    for o, t in zip(a, b):
        if isinstance(t, torch.Tensor):
            if not hasattr(o, "numpy") or not hasattr(o, "dtype"):
                return f"ours {type(o).__name__}, torch Tensor"
            if str(o.dtype) != str(t.dtype) or tuple(o.shape) != tuple(t.shape):
                return f"ours {o.dtype}{tuple(o.shape)}, torch {t.dtype}{tuple(t.shape)}"
            if not values or t.device.type == "meta" or o.device.type == "meta":
                continue
            got, want = o.numpy(force=True), t.detach().numpy(force=True)  # force: resolves conj / neg bits
            if got.dtype.kind in "fc":
                tol = {2: 2e-3, 4: 1e-5, 8: 1e-10}[got.real.dtype.itemsize]
                wide = np.complex128 if got.dtype.kind == "c" else np.float64
                ok = np.allclose(got.astype(wide), want.astype(wide), rtol=tol, atol=tol, equal_nan=True)
            else:
                ok = np.array_equal(got, want)
            if not ok:
                return "values differ"
        elif isinstance(t, float) and isinstance(o, float):
            if not (t == o or (t != t and o != o) or abs(t - o) <= 1e-5 * max(1.0, abs(t))):
                return f"ours {o}, torch {t}"
        elif t != o and not (isinstance(t, float) and t != t):
            return f"ours {o!r}, torch {t!r}"
    return None


def run_case(case: Case) -> Outcome:
    import torch
    info = OPS[case.op]
    try:
        t_args, t_kwargs = _build(case.sample, "torch")
        o_args, o_kwargs = _build(case.sample, "cpu")
    except Exception as e:  # noqa: BLE001 - a mutation the sample builder cannot express
        return Outcome("ok", f"unbuildable: {type(e).__name__}: {e}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            theirs, t_exc = _torch_op(case.op)(*t_args, **t_kwargs), None
        except Exception as e:  # noqa: BLE001 - the oracle's outcome
            theirs, t_exc = None, e
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            ours, o_exc = _our_op(case.op)(*o_args, **o_kwargs), None
        except Exception as e:  # noqa: BLE001 - the outcome under test
            ours, o_exc = None, e
    numpy_warnings = [w for w in caught if issubclass(w.category, RuntimeWarning)
                      and ("/numpy/" in w.filename or "encountered" in str(w.message))]
    del torch
    if o_exc is not None:
        leak = is_leak(o_exc)
        text = f"{type(o_exc).__name__}: {str(o_exc).splitlines()[0][:160] if str(o_exc) else ''}"
        if leak:
            return Outcome("leak", f"{leak} | {text} | torch: {_short(t_exc)}")
        if t_exc is None:
            return Outcome("reject", f"{text} | torch returns")
        if not isinstance(o_exc, public_class(t_exc)):
            return Outcome("wrong_class", f"{text} | torch: {_short(t_exc)}")
        return Outcome("ok")
    if t_exc is not None:
        return Outcome("silent", f"torch: {_short(t_exc)}")
    base = case.op.split(".")[0]
    values = (not info.random and base not in _UNINITIALISED and not any(r in base for r in _RANDOM)
              and (case.op, case.label) not in TORCH_UNINITIALISED)
    diff = _compare(case.op, ours, theirs, values)
    if diff:
        return Outcome("value", diff)
    if numpy_warnings:
        return Outcome("warning", str(numpy_warnings[0].message))
    return Outcome("ok")


def _short(exc: BaseException | None) -> str:
    if exc is None:
        return "returns"
    text = str(exc).splitlines()[0][:160] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"


def sweep(names: list[str] | None = None) -> dict[tuple[str, str], Outcome]:
    results = {}
    start = __import__('os').environ.get('SWEEP_START', '')
    for name in names or sorted(OPS):
        if name < start:
            continue
        if name not in SCHEMAS:
            continue
        for case in cases(name):
            if (case.op, case.label) in TORCH_CRASHES:
                continue
            if _TRACE:
                print("CASE", case.op, case.label, flush=True)
            results[(case.op, case.label)] = run_case(case)
    return results


def check_known(res: dict[tuple[str, str], Outcome]) -> None:
    """Print what tests/known_bad_input.py should change: new differences (to fix, or list with a reason) and
    listed cases whose outcome changed (to remove or update)."""
    from known_bad_input import KNOWN
    for key, o in sorted(res.items()):
        listed = KNOWN.get(key)
        if o.category != "ok" and listed is None:
            print(f"NEW     {key!r}: ({o.category!r}, {o.detail[:200]!r}),")
        elif listed is not None and listed[0] != o.category:
            print(f"CHANGED {key!r}: listed {listed[0]}, now {o.category} {o.detail[:120]}")


def main() -> None:
    """``python tests/bad_input_sweep.py [--check] [op ...]`` (with PYTHONPATH=.): the counts and the differing
    cases, or (``--check``) what the known-differences table should change."""
    import collections
    import time
    check = "--check" in sys.argv
    names = [a for a in sys.argv[1:] if a != "--check"] or None
    t0 = time.perf_counter()
    res = sweep(names)
    dt = time.perf_counter() - t0
    if check:
        check_known(res)
        return
    counts = collections.Counter(o.category for o in res.values())
    leaks = collections.Counter(o.detail.split(" | ")[0] for o in res.values() if o.category == "leak")
    for (op, label), o in sorted(res.items()):
        if o.category != "ok":
            print(f"{o.category:12} {op:40} {label:28} {o.detail}")
    print(f"\n{len(res)} cases in {len({k[0] for k in res})} ops, {dt:.1f} s")
    print(dict(counts))
    print("leaks by class:", dict(leaks))
    print("ops with problems:", len({k[0] for k, o in res.items() if o.category != "ok"}))


if __name__ == "__main__":
    main()
