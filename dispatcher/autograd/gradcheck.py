"""Numerical gradient checks: ``gradcheck`` and ``gradgradcheck``, finite differences against the engine.

Corresponds to torch/autograd/gradcheck.py (real inputs and outputs only). For every
input that requires grad and every differentiable output, two Jacobians are built
and compared with ``allclose(analytical, numerical, rtol, atol)``:

* the *analytical* Jacobian, row by row: the engine's vector-Jacobian product
  (``autograd.grad``) with a one-hot ``grad_output`` per output element; it is
  computed twice and the two must agree within ``nondet_tol`` ("reentrant");
* the *numerical* Jacobian, column by column: each input element is perturbed in
  place by ``±eps`` (through a ``.data``-like alias, under ``no_grad``, so version
  counters are untouched) and the central difference ``(f(x+eps) - f(x-eps)) / 2eps``
  of every output is taken.

Everything, finite differences included, is computed with aten ops through the
dispatcher. ``fast_mode=True`` compares the scalars ``v^T J u`` for random unit
vectors ``u`` (per input) and ``v`` (per output) instead of whole Jacobians.
After the Jacobians, two more checks run as in PyTorch: backward with zero
``grad_outputs`` must give zero gradients of the inputs' dtype and size, and
backward must accept undefined (None) gradients for some of a node's outputs.

NB: PyTorch's complex (Wirtinger) checks, forward-mode AD and batched-grad checks
are not part of this module; the library has no complex autograd yet.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..op_overload import namespace
from .engine import run_backward
from .grad_mode import no_grad

aten = namespace("aten")

#: fixed seed of the vectors of fast mode and of gradgradcheck's random grad_outputs (checks are reproducible)
_VECTOR_SEED = 67280421310721


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` / ``gradgradcheck`` when a check fails (``raise_exception=True``)."""


# --- helpers ------------------------------------------------------------------------------------

def _as_tuple(x: Any) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _is_tensor(x: Any) -> bool:
    return getattr(x, "_key_set", None) is not None and hasattr(x, "_shape")


def _is_float(x: Any) -> bool:
    return _is_tensor(x) and (x._dtype.is_floating_point or x._dtype.is_complex)


def _diff_inputs(inputs: tuple) -> list[tuple[int, Any]]:
    """(position, tensor) of every input that is a tensor requiring grad (as in PyTorch, lists are not looked into)."""
    return [(i, x) for i, x in enumerate(inputs) if _is_tensor(x) and x.requires_grad]


def _differentiable_outputs(out: Any) -> tuple:
    return tuple(o for o in _as_tuple(out) if _is_tensor(o) and o.requires_grad)


def _variable_data(t: Any) -> Any:
    """``t.data``: the same storage and geometry, no autograd history and a version counter of its own."""
    return type(t)._from_storage(t._storage, t._shape, t._stride, t._storage_offset, t._dtype, t._device)


def _flat(t: Any) -> Any:
    return aten.reshape.default(t, [-1])


def _item(t: Any) -> Any:
    return aten._local_scalar_dense.default(t)


def _zeros(shape: Sequence[int], like: Any, dtype: Any = None) -> Any:
    return aten.zeros.default(list(shape), dtype=dtype or like._dtype, device=like._device)


def _to_dtype(t: Any, dtype: Any) -> Any:
    return t if t._dtype == dtype else aten._to_copy.default(t, dtype=dtype)


def _allclose(a: Any, b: Any, rtol: float, atol: float) -> bool:
    """``torch.allclose`` with type promotion: |a - b| <= atol + rtol * |b| everywhere (equal values always pass)."""
    from ..dtypes import promote_types

    with no_grad():
        dt = promote_types(a._dtype, b._dtype)
        a, b = _to_dtype(a, dt), _to_dtype(b, dt)
        within = aten.le.Tensor(aten.abs.default(aten.sub.Tensor(a, b)),
                                aten.add.Tensor(aten.mul.Tensor(aten.abs.default(b), rtol), atol))
        bad = aten.mul.Tensor(aten.logical_not.default(within), aten.ne.Tensor(a, b))
        return _item(aten.sum.default(bad)) == 0


def _max_abs_diff(a: Any, b: Any) -> float:
    with no_grad():
        if a.numel() == 0:
            return 0.0
        return float(_item(aten.amax.default(aten.abs.default(aten.sub.Tensor(a, b)))))


def _all_zero(t: Any) -> bool:
    with no_grad():
        return _item(aten.sum.default(aten.ne.Scalar(t, 0))) == 0


def _unit_vector(numel: int, like: Any, rng: np.random.Generator) -> Any:
    """A random vector of norm 1 (fast mode's ``u`` and ``v``)."""
    from ..tensor import Tensor

    values = rng.random(numel)
    norm = float(np.sqrt((values * values).sum())) or 1.0
    return Tensor._from_numpy((values / norm).astype(like._dtype.np_dtype))


def _fail(message: str) -> None:
    raise GradcheckError(message)


def _mismatch_message(output_idx: int, input_idx: int, numerical: Any, analytical: Any) -> str:
    return (f"Jacobian mismatch for output {output_idx:d} with respect to input {input_idx:d},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


# --- inputs and outputs -------------------------------------------------------------------------

def _check_inputs(inputs: tuple) -> None:
    any_requires_grad = False
    for idx, x in enumerate(inputs):
        if not (_is_tensor(x) and x.requires_grad):
            continue
        if x._dtype.name not in ("float64", "complex128"):
            warnings.warn(
                f"Input #{idx} requires gradient and is not a double precision floating point or complex. This "
                "check will likely fail if all the inputs are not of double precision floating point or complex. ",
                stacklevel=3,
            )
        if not all(st > 0 or sz <= 1 for st, sz in zip(x._stride, x._shape)):
            raise RuntimeError(
                f"The {idx}th input has a dimension with stride 0. gradcheck only supports inputs that are "
                "non-overlapping to be able to compute the numerical gradients correctly. You should call "
                ".contiguous on the input before passing it to gradcheck."
            )
        any_requires_grad = True
    if not any_requires_grad:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")


def _check_same_dtype_and_shape(a: Any, b: Any, eps: float, idx: Any = None) -> None:
    on_index = f"on index {idx} " if idx is not None else ""
    if tuple(a._shape) != tuple(b._shape):
        raise AssertionError(f"Expected `func` to return outputs with the same shape when inputs are perturbed "
                             f"{on_index}by {eps}, but got: shapes {a.shape} and {b.shape}.")
    if a._dtype != b._dtype:
        raise AssertionError(f"Expected `func` to return outputs with the same dtype when inputs are perturbed "
                             f"{on_index}by {eps}, but got: dtypes {a.dtype} and {b.dtype}.")


def _run_cloned(func: Callable[..., Any], inputs: tuple) -> tuple:
    """``func(*inputs)`` with tensor outputs cloned (an output may be a view of the perturbed input)."""
    out = _as_tuple(func(*inputs))
    with no_grad():
        return tuple(aten.clone.default(o) if _is_tensor(o) else o for o in out)


# --- numerical derivatives ----------------------------------------------------------------------

def _central_difference(func: Callable[..., Any], inputs: tuple, entry: Any, delta: Any, eps: float,
                        idx: Any = None) -> list[Any]:
    """Per output: (f(entry + delta) - f(entry - delta)) / (2 eps), flattened (None for non-float outputs)."""
    with no_grad():
        orig = aten.clone.default(entry)
        aten.copy_.default(entry, aten.sub.Tensor(orig, delta))
    outa = _run_cloned(func, inputs)
    with no_grad():
        aten.copy_.default(entry, aten.add.Tensor(orig, delta))
    outb = _run_cloned(func, inputs)
    with no_grad():
        aten.copy_.default(entry, orig)
        diffs = []
        for a, b in zip(outa, outb):
            if not _is_tensor(a):
                diffs.append(None)
                continue
            _check_same_dtype_and_shape(a, b, eps, idx)
            # every tensor output is differenced, as in PyTorch (bool outputs raise here); only floats are kept
            diff = aten.div.Tensor(aten.sub.Tensor(b, a), 2 * eps)
            diffs.append(_flat(diff) if _is_float(a) else None)
        return diffs


def _numerical_jacobians(func: Callable[..., Any], inputs: tuple, outputs: tuple, eps: float) -> list[list[Any]]:
    """jacobians[i][k]: (numel of input i, numel of output k), for every input requiring grad and float output k."""
    result = []
    for _, inp in _diff_inputs(inputs):
        data = _variable_data(inp)
        with no_grad():
            jacobians = [_zeros((inp.numel(), o.numel()), o) if _is_float(o) else None for o in outputs]
        for d_idx, idx in enumerate(itertools.product(*[range(n) for n in inp._shape])):
            offset = inp._storage_offset + sum(i * s for i, s in zip(idx, inp._stride))
            with no_grad():
                entry = aten.as_strided.default(data, [], [], offset)
            columns = _central_difference(func, inputs, entry, eps, eps, idx)
            with no_grad():
                for jac, col in zip(jacobians, columns):
                    if jac is not None and col is not None:
                        aten.copy_.default(aten.select.int(jac, 0, d_idx), col)
        result.append(jacobians)
    return result


# --- analytical derivatives ---------------------------------------------------------------------

def _vjp(output: Any, diff_inputs: list[Any], grad_output: Any) -> tuple:
    from . import grad

    return grad(output, diff_inputs, grad_output, retain_graph=True, allow_unused=True)


def _analytical_jacobians(diff_inputs: list[Any], output: Any) -> tuple[list[Any], bool, bool]:
    """Per input, (numel of input, numel of output), from one-hot vjps; plus sizes_ok and types_ok."""
    sizes_ok = types_ok = True
    with no_grad():
        jacobians = [_zeros((x.numel(), output.numel()), x) for x in diff_inputs]
        base = _zeros(output._shape, output)
        flat = _flat(base)
    for j in range(output.numel()):
        with no_grad():
            aten.zero_.default(flat)
            aten.fill_.Scalar(aten.select.int(flat, 0, j), 1.0)
        grads = _vjp(output, diff_inputs, base)
        with no_grad():
            for jac, x, g in zip(jacobians, diff_inputs, grads):
                if g is None:
                    continue
                if tuple(g._shape) != tuple(x._shape):
                    sizes_ok = False
                    continue
                if g._dtype != x._dtype:
                    types_ok = False
                aten.copy_.default(aten.select.int(jac, 1, j), _flat(g))
    return jacobians, sizes_ok, types_ok


def _checked_analytical(diff_inputs: list[Any], output: Any, nondet_tol: float, check_grad_dtypes: bool) -> list:
    first, sizes_ok, types_ok = _analytical_jacobians(diff_inputs, output)
    second, _, _ = _analytical_jacobians(diff_inputs, output)
    reentrant = not any(_max_abs_diff(a, b) > nondet_tol for a, b in zip(first, second))  # NaN compares False
    if not types_ok and check_grad_dtypes:
        _fail("Gradient has dtype mismatch")
    if not sizes_ok:
        _fail("Analytical gradient has incorrect size")
    if not reentrant:
        _fail("Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
              "gives different values, although analytical gradient matches numerical gradient."
              f"The tolerance for nondeterminism was {nondet_tol}.")
    return first


# --- the slow and fast checks ---------------------------------------------------------------------

def _slow_check(func: Callable[..., Any], func_out: tuple, inputs: tuple, outputs: tuple, eps: float, rtol: float,
                atol: float, nondet_tol: float, check_grad_dtypes: bool) -> None:
    diff_inputs = [x for _, x in _diff_inputs(inputs)]
    analytical = [_checked_analytical(diff_inputs, o, nondet_tol, check_grad_dtypes) for o in outputs]
    numerical = _numerical_jacobians(func, inputs, func_out, eps)
    if not outputs:
        for per_input in numerical:
            if any(n is not None and not _all_zero(n) for n in per_input):
                _fail("Numerical gradient for function expected to be zero")
        return
    differentiable = [k for k, o in enumerate(func_out) if _is_tensor(o) and o.requires_grad]
    for i, k in enumerate(differentiable):
        for j, per_input in enumerate(numerical):
            a, n = analytical[i][j], per_input[k]
            if not _allclose(a, n, rtol, atol):
                _fail(_mismatch_message(i, j, n, a))


def _fast_check(func: Callable[..., Any], func_out: tuple, inputs: tuple, outputs: tuple, eps: float, rtol: float,
                atol: float, nondet_tol: float, check_grad_dtypes: bool) -> None:
    rng = np.random.default_rng(_VECTOR_SEED)
    diff = _diff_inputs(inputs)
    diff_inputs = [x for _, x in diff]
    all_u = [_unit_vector(x.numel(), x, rng) for x in diff_inputs]
    all_v = [_unit_vector(o.numel(), o, rng) for o in outputs]
    differentiable = [k for k, o in enumerate(func_out) if _is_tensor(o) and o.requires_grad]

    # numerical J u, per input: perturb the whole input along u
    numerical = []  # numerical[j][k]: J_k u_j (flat), per float output k
    for (_, inp), u in zip(diff, all_u):
        data = _variable_data(inp)
        with no_grad():
            delta = aten.mul.Tensor(aten.reshape.default(u, list(inp._shape)), eps)
        numerical.append(_central_difference(func, inputs, data, delta, eps))
    if not outputs:
        for per_input in numerical:
            if any(n is not None and not _all_zero(n) for n in per_input):
                _fail("Numerical gradient for function expected to be zero")
        return

    for i, (o, v) in enumerate(zip(outputs, all_v)):
        grad_output = aten.reshape.default(v, list(o._shape))
        first = _vjp(o, diff_inputs, grad_output)
        second = _vjp(o, diff_inputs, grad_output)
        for x, g1, g2 in zip(diff_inputs, first, second):
            if g1 is None:
                continue
            if tuple(g1._shape) != tuple(x._shape):
                _fail("Analytical gradient has incorrect size")
            if g1._dtype != x._dtype and check_grad_dtypes:
                _fail("Gradient has dtype mismatch")
            if _max_abs_diff(g1, g2) > nondet_tol:
                _fail("Backward is not reentrant, i.e., running backward with same input and grad_output multiple "
                      "times gives different values, although analytical gradient matches numerical gradient."
                      f"The tolerance for nondeterminism was {nondet_tol}.")
        with no_grad():
            for j, (x, u, g) in enumerate(zip(diff_inputs, all_u, first)):
                a = aten.zeros.default([], dtype=x._dtype, device=x._device) if g is None else \
                    aten.sum.default(aten.mul.Tensor(_flat(g), u))
                n = aten.sum.default(aten.mul.Tensor(v, numerical[j][differentiable[i]]))
                adjusted_atol = atol * float(_item(aten.sum.default(u))) * float(_item(aten.sum.default(v)))
                if not _allclose(a, n, rtol, adjusted_atol):
                    _fail(_mismatch_message(i, j, n, a) + _slow_mode_details(func, inputs, func_out, o, j, i, rtol,
                                                                             atol, eps))


def _slow_mode_details(func: Callable[..., Any], inputs: tuple, func_out: tuple, output: Any, input_idx: int,
                       output_idx: int, rtol: float, atol: float, eps: float) -> str:
    """After a fast-mode failure: the whole Jacobians of the failing pair, recomputed element by element."""
    diff_inputs = [x for _, x in _diff_inputs(inputs)]
    analytical = _analytical_jacobians(diff_inputs, output)[0][input_idx]
    k = [n for n, o in enumerate(func_out) if _is_tensor(o) and o.requires_grad][output_idx]
    numerical = _numerical_jacobians(func, inputs, func_out, eps)[input_idx][k]
    with no_grad():
        max_diff = aten.amax.default(aten.abs.default(aten.sub.Tensor(numerical, analytical)))
    msg = ("\nThe above quantities relating the numerical and analytical jacobians are computed \n"
           "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
           "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
           f"Numerical:\n {numerical}\nAnalytical:\n{analytical}\n\n"
           f"The max per-element difference (slow mode) is: {max_diff}.\n")
    if _allclose(analytical, numerical, rtol, atol):
        msg += ("Fast gradcheck failed but element-wise differences are small. This means that the\n"
                "test might've passed in slow_mode!\n")
    return msg


# --- the checks after the Jacobians ---------------------------------------------------------------

def _check_backward_mul_by_grad_output(outputs: tuple, inputs: tuple) -> None:
    from . import grad

    diff_inputs = [x for _, x in _diff_inputs(inputs)]
    with no_grad():
        zeros = [_zeros(o._shape, o) for o in outputs]
    grads = grad(outputs, diff_inputs, zeros, allow_unused=True)
    for g, x in zip(grads, diff_inputs):
        if g is None:
            continue
        if not _all_zero(g):
            _fail("backward not multiplied by grad_output")
        if g._dtype != x._dtype:
            _fail("grad is incorrect type")
        if g._device != x._device:
            _fail("grad is incorrect device")
        if tuple(g._shape) != tuple(x._shape):
            _fail("grad is incorrect size")


def _check_undefined_grad(func: Callable[..., Any], inputs: tuple) -> None:
    """Backward must treat undefined (None) output gradients as zeros: all of them, then one at a time."""
    diff_inputs = [x for _, x in _diff_inputs(inputs)]

    def run(outputs: tuple, seeds: list[Any]) -> None:
        try:
            grads = run_backward(outputs, seeds, False, False, inputs=diff_inputs, allow_unused=True,
                                 accumulate_grad=False)
        except RuntimeError as e:  # as in PyTorch; a formula's TypeError on a None gradient propagates as it is
            _warn_undefined_check()
            raise GradcheckError('Expected backward function to handle undefined output grads. Please look at '
                                 '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"') from e
        for g in grads or ():
            if g is not None and not _all_zero(g):
                _warn_undefined_check()
                _fail('Expected all input grads to be undefined or zero when all output grads are undefined or '
                      'zero. Please look at "Notes about undefined output gradients" in '
                      '"tools/autograd/derivatives.yaml"')

    outputs = _differentiable_outputs(func(*inputs))
    run(outputs, [None] * len(outputs))
    if len(outputs) > 1:
        for undefined in range(len(outputs)):
            outputs = _differentiable_outputs(func(*inputs))
            with no_grad():
                seeds = [None if k == undefined else _zeros(o._shape, o) for k, o in enumerate(outputs)]
            run(outputs, seeds)


def _warn_undefined_check() -> None:
    warnings.warn("Backwards compatibility: New undefined gradient support checking feature is enabled by default, "
                  "but it may break existing callers of this function. If this is true for you, you can call this "
                  'function with "check_undefined_grad=False" to disable the feature', stacklevel=4)


# --- the public functions -------------------------------------------------------------------------

def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    fast_mode: bool = False,
) -> bool:
    """Check the engine's gradients of ``func`` at ``inputs`` against finite differences (float64 inputs).

    Returns True when every Jacobian matches; otherwise raises ``GradcheckError`` naming the
    output and input ("Jacobian mismatch for output 0 with respect to input 0, ..."), or returns
    False with ``raise_exception=False``. Bad arguments (no input requiring grad, an input with a
    zero stride) raise ValueError / RuntimeError in both modes, as in PyTorch.
    """
    try:
        tupled = _as_tuple(inputs)
        _check_inputs(tupled)
        func_out = _as_tuple(func(*tupled))
        outputs = _differentiable_outputs(func_out)
        check = _fast_check if fast_mode else _slow_check
        check(func, func_out, tupled, outputs, eps, rtol, atol, nondet_tol, check_grad_dtypes)
        if outputs:
            _check_backward_mul_by_grad_output(outputs, tupled)
        if check_undefined_grad:
            _check_undefined_grad(func, tupled)
        return True
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _random_grad_output(like: Any, noncontiguous: bool, rng: np.random.Generator) -> Any:
    """A uniform(-1, 1) tensor shaped like ``like`` (float64 for non-float outputs), requiring grad."""
    from ..dtypes import float64
    from ..tensor import Tensor

    dtype = like._dtype if _is_float(like) else float64
    shape = tuple(like._shape)
    if noncontiguous and like.numel() > 1:  # every other element of a buffer twice as wide
        wide = shape[:-1] + (2 * shape[-1],)
        buf = Tensor._from_numpy(rng.uniform(-1.0, 1.0, wide).astype(dtype.np_dtype))
        t = aten.slice.Tensor(buf, -1, 0, None, 2)
    else:
        t = Tensor._from_numpy(np.asarray(rng.uniform(-1.0, 1.0, shape)).astype(dtype.np_dtype))
    t.requires_grad = True
    return t


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    fast_mode: bool = False,
) -> bool:
    """Check second derivatives: ``gradcheck`` of the map (inputs, grad_outputs) -> gradients of the inputs.

    The gradients are computed with ``autograd.grad(..., create_graph=True)``, so this checks the
    derivative formulas of the ops that the first backward pass called. ``grad_outputs`` defaults
    to random tensors (fixed seed) shaped like the differentiable outputs.
    """
    from . import grad

    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(_VECTOR_SEED)
        outs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grads = tuple(_random_grad_output(o, gen_non_contig_grad_outputs, rng) for o in outs)
    else:
        tupled_grads = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grads)
    diff_input_idx = {i for i, x in enumerate(tupled_inputs) if _is_tensor(x) and x.requires_grad}

    def first_derivatives(*args: Any) -> tuple:
        input_args = args[: len(args) - num_outputs]
        outputs = _differentiable_outputs(func(*input_args))
        diff_args = [x for i, x in enumerate(input_args) if i in diff_input_idx]
        grads = grad(outputs, diff_args, list(args[len(args) - num_outputs:]), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, tupled_inputs + tupled_grads, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol, check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, fast_mode=fast_mode)


__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]
