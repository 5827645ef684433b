"""``dispatcher.autograd.gradcheck`` / ``gradgradcheck`` against ``torch.autograd``'s, on correct and broken formulas.

Custom ops (``gck::...``) get CPU kernels written with NumPy and derivative formulas that are right, wrong by a
factor, nondeterministic, or wrong only in their second derivative; torch gets ``autograd.Function`` twins with
the same mistakes. Both checkers must agree: pass on the same functions, fail with the same message (the Jacobians
are printed with the same tensor repr), raise the same errors for bad arguments.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import dispatcher
from dispatcher import Library, ops
from dispatcher.autograd import GradcheckError, derivative, gradcheck, gradgradcheck, register_autograd_kernel
from dispatcher.tensor import Tensor

_lib = Library("gck", "DEF")
for _schema in ("gck_square(Tensor x) -> Tensor", "gck_bad_square(Tensor x) -> Tensor",
                "gck_noisy_square(Tensor x) -> Tensor", "gck_cube(Tensor x) -> Tensor",
                "gck_cube_backward(Tensor grad, Tensor x) -> Tensor", "gck_unscaled_square(Tensor x) -> Tensor"):
    _lib.define(_schema)


def _np(fn: Any) -> Any:
    return lambda *ts: Tensor._from_numpy(np.asarray(fn(*[t._data for t in ts])))


for _name in ("gck_square", "gck_bad_square", "gck_noisy_square", "gck_unscaled_square"):
    _lib.impl(_name, _np(lambda x: x * x), "CPU")
_lib.impl("gck_cube", _np(lambda x: x ** 3), "CPU")
_lib.impl("gck_cube_backward", _np(lambda g, x: 3 * x * x * g), "CPU")
gck = ops.gck
aten = ops.aten
_noise = np.random.default_rng(0)


@derivative("gck::gck_square", "GckSquareBackward0", ("x",), save_inputs=("x",))
def _square(ctx, grads, needs):
    return (aten.mul.Tensor(aten.mul.Tensor(grads[0], ctx.x), 2),)


@derivative("gck::gck_bad_square", "GckBadSquareBackward0", ("x",), save_inputs=("x",))
def _bad_square(ctx, grads, needs):  # the factor 2 is missing
    return (aten.mul.Tensor(grads[0], ctx.x),)


@derivative("gck::gck_noisy_square", "GckNoisySquareBackward0", ("x",), save_inputs=("x",))
def _noisy_square(ctx, grads, needs):  # right on average, never twice the same
    return (aten.add.Tensor(aten.mul.Tensor(aten.mul.Tensor(grads[0], ctx.x), 2), float(_noise.normal()) * 1e-9),)


@derivative("gck::gck_unscaled_square", "GckUnscaledSquareBackward0", ("x",), save_inputs=("x",))
def _unscaled_square(ctx, grads, needs):  # right Jacobian, but a zero grad_output gives a nonzero gradient
    g = grads[0]
    if float(aten.sum.default(aten.abs.default(g))) == 0.0:
        return (aten.add.Tensor(g, 1.0),)
    return (aten.mul.Tensor(aten.mul.Tensor(g, ctx.x), 2),)


@derivative("gck::gck_cube", "GckCubeBackward0", ("x",), save_inputs=("x",))
def _cube(ctx, grads, needs):
    return (gck.gck_cube_backward(grads[0], ctx.x),)


@derivative("gck::gck_cube_backward", "GckCubeBackwardBackward0", ("grad", "x"), save_inputs=("grad", "x"))
def _cube_backward(ctx, grads, needs):  # d/dx is 6 x grad: the factor 2 is missing
    gg = grads[0]
    return (gck.gck_cube_backward(gg, ctx.x) if needs[0] else None,
            aten.mul.Tensor(aten.mul.Tensor(aten.mul.Tensor(gg, ctx.grad), ctx.x), 3) if needs[1] else None)


for _name in ("gck_square", "gck_bad_square", "gck_noisy_square", "gck_unscaled_square", "gck_cube",
              "gck_cube_backward"):
    register_autograd_kernel(getattr(gck, _name).default)


def _torch_fns(torch: Any) -> dict[str, Any]:
    """The same functions in torch, with the same mistakes."""
    F = torch.autograd.Function  # noqa: N806

    class Square(F):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x * 2

    class BadSquare(Square):
        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x

    class NoisySquare(Square):
        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x * 2 + float(_noise.normal()) * 1e-9

    class UnscaledSquare(Square):
        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g + 1.0 if float(g.abs().sum()) == 0.0 else g * x * 2

    class CubeBackward(F):
        @staticmethod
        def forward(ctx, g, x):
            ctx.save_for_backward(g, x)
            return 3 * x * x * g

        @staticmethod
        def backward(ctx, gg):
            g, x = ctx.saved_tensors
            return CubeBackward.apply(gg, x), gg * g * x * 3

    class Cube(F):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return CubeBackward.apply(g, x)

    return {"square": Square.apply, "bad_square": BadSquare.apply, "noisy_square": NoisySquare.apply,
            "unscaled_square": UnscaledSquare.apply, "cube": Cube.apply}


def _ours_fns() -> dict[str, Any]:
    return {"square": gck.gck_square, "bad_square": gck.gck_bad_square, "noisy_square": gck.gck_noisy_square,
            "unscaled_square": gck.gck_unscaled_square, "cube": gck.gck_cube}


def _inputs(torch: Any, shape: tuple = (2, 3), dtype: str = "float64", requires_grad: bool = True) -> tuple:
    values = np.random.default_rng(1).uniform(0.5, 1.5, shape).astype(dtype)
    t, o = torch.from_numpy(values.copy()), dispatcher.from_numpy(values.copy())
    return t.requires_grad_(requires_grad), o.requires_grad_(requires_grad)


def _outcome(check: Any, fn: Any, *args: Any, **kwargs: Any) -> tuple[str, str]:
    """("ok", "") or (exception type name, message) of one gradcheck call, warnings silenced."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = check(fn, *args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the outcome is compared
        return type(e).__name__, str(e)
    return ("ok", "") if result is True else ("returned", repr(result))


@pytest.mark.parametrize("fast_mode", [False, True])
@pytest.mark.parametrize("fn", ["square", "bad_square", "noisy_square", "unscaled_square", "cube"])
def test_gradcheck_agrees_with_torch(torch: Any, fn: str, fast_mode: bool) -> None:
    t, o = _inputs(torch)
    theirs = _outcome(torch.autograd.gradcheck, _torch_fns(torch)[fn], (t,), fast_mode=fast_mode)
    ours = _outcome(gradcheck, _ours_fns()[fn], (o,), fast_mode=fast_mode)
    assert ours[0] == theirs[0], f"{fn}: torch {theirs}, ours {ours}"
    if fast_mode:  # the random vectors differ: compare the first line only
        assert ours[1].splitlines()[:1] == theirs[1].splitlines()[:1]
    elif fn == "noisy_square":  # the noise differs: compare the sentence
        assert ours[1].split(".")[0] == theirs[1].split(".")[0]
    else:  # the whole message, Jacobians included
        assert ours[1] == theirs[1], f"{fn}:\n torch: {theirs[1]}\n ours:  {ours[1]}"
    expected = {"square": "ok", "cube": "ok", "bad_square": "GradcheckError", "noisy_square": "GradcheckError",
                "unscaled_square": "GradcheckError"}
    assert ours[0] == expected[fn]


def test_gradcheck_error_is_a_runtime_error_and_can_be_turned_off(torch: Any) -> None:
    _, o = _inputs(torch)
    assert issubclass(GradcheckError, RuntimeError)
    with pytest.raises(GradcheckError, match=r"^Jacobian mismatch for output 0 with respect to input 0,\nnumerical:"):
        gradcheck(gck.gck_bad_square, (o,))
    assert gradcheck(gck.gck_bad_square, (o,), raise_exception=False) is False
    assert gradcheck(gck.gck_square, o) is True  # a single tensor is accepted as inputs
    # the check left no trace: the input is unchanged and its version counter untouched
    assert o._version == 0 and o.grad is None


@pytest.mark.parametrize("fn", ["square", "cube"])
def test_gradgradcheck_agrees_with_torch(torch: Any, fn: str) -> None:
    t, o = _inputs(torch)
    theirs = _outcome(torch.autograd.gradgradcheck, _torch_fns(torch)[fn], (t,))
    ours = _outcome(gradgradcheck, _ours_fns()[fn], (o,))
    assert ours[0] == theirs[0] == ("ok" if fn == "square" else "GradcheckError"), (theirs, ours)
    # the random grad_outputs differ: compare the first line ("... for output 0 with respect to input 0,")
    assert ours[1].splitlines()[:1] == theirs[1].splitlines()[:1]


def test_gradgradcheck_with_given_grad_outputs_matches_torch_message(torch: Any) -> None:
    t, o = _inputs(torch)
    gt, go = _inputs(torch, dtype="float64")
    theirs = _outcome(torch.autograd.gradgradcheck, _torch_fns(torch)["cube"], (t,), (gt,))
    ours = _outcome(gradgradcheck, _ours_fns()["cube"], (o,), (go,))
    assert theirs[0] == ours[0] == "GradcheckError"
    assert ours[1] == theirs[1]


def test_gradcheck_on_aten_programs(torch: Any) -> None:
    """Programs of aten ops with formulas: both checkers pass (first and second derivatives)."""
    t, o = _inputs(torch, (3, 4))
    tw, ow = _inputs(torch, (4, 2))
    for lib, x, w in ((torch, t, tw), (dispatcher, o, ow)):
        check, check2 = ((torch.autograd.gradcheck, torch.autograd.gradgradcheck) if lib is torch
                         else (gradcheck, gradgradcheck))

        def program(a: Any, b: Any) -> Any:
            return ((a * b.sum()).exp() / 3 - a).sum(1)

        assert check(program, (x, w))
        assert check(lambda a, b: a @ b, (x, w), fast_mode=True)
        assert check2(lambda a: (a * a).sum(0), (x,))


def test_bad_arguments_raise_like_torch(torch: Any) -> None:
    t, o = _inputs(torch, requires_grad=False)
    cases = [
        ((t,), (o,)),  # no input requires grad: ValueError
        ((torch.ones(3, dtype=torch.float64).expand(2, 3).requires_grad_(),),  # a zero stride: RuntimeError
         (dispatcher.ones(3, dtype=dispatcher.float64).expand(2, 3).requires_grad_(),)),
    ]
    for theirs_in, ours_in in cases:
        theirs = _outcome(torch.autograd.gradcheck, lambda x: x * 2, theirs_in)
        ours = _outcome(gradcheck, lambda x: x * 2, ours_in)
        assert theirs[0] in ("ValueError", "RuntimeError") and ours == theirs
        # raise_exception=False does not hide bad arguments
        theirs = _outcome(torch.autograd.gradcheck, lambda x: x * 2, theirs_in, raise_exception=False)
        assert _outcome(gradcheck, lambda x: x * 2, ours_in, raise_exception=False) == theirs


def test_single_precision_input_warns_like_torch(torch: Any) -> None:
    t, o = _inputs(torch, dtype="float32")
    messages = []
    for check, fn, x in ((torch.autograd.gradcheck, lambda a: a * 2, t), (gradcheck, lambda a: a * 2, o)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check(fn, (x,), atol=1e-2, rtol=1e-2, eps=1e-3)
        messages.append([str(w.message) for w in caught if issubclass(w.category, UserWarning)])
    assert messages[0] == messages[1] and messages[1][0].startswith("Input #0 requires gradient and is not a double")


def test_functions_without_differentiable_outputs(torch: Any) -> None:
    """No output requires grad: the numerical Jacobian must be zero (it is not for a detached copy)."""
    t, o = _inputs(torch)
    for fn_t, fn_o in ((lambda x: x > 1, lambda x: x > 1),
                       (lambda x: x.detach() * 2, lambda x: x.detach() * 2),
                       (lambda x: torch.zeros_like(x), lambda x: dispatcher.zeros_like(x))):
        theirs = _outcome(torch.autograd.gradcheck, fn_t, (t,))
        ours = _outcome(gradcheck, fn_o, (o,))
        assert ours == theirs
    assert _outcome(gradcheck, lambda x: x.detach() * 2, (o,)) == (
        "GradcheckError", "Numerical gradient for function expected to be zero")


def test_outputs_that_alias_the_input_are_fine(torch: Any) -> None:
    """The perturbed input is read through views (t, select): outputs are cloned before they are compared."""
    _, o = _inputs(torch, (3, 4))
    assert gradcheck(lambda x: (x.t(), x[1]), (o,))
    assert gradcheck(lambda x: x.t(), (o.t(),))  # a transposed input is perturbed through its own strides
