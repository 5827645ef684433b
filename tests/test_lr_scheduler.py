"""optim.lr_scheduler against torch 2.13: every scheduler's learning rates (and momentums) over 30 steps,
their state dicts, the closed forms of ``step(epoch)``, load_state_dict and the warnings."""

from __future__ import annotations

import math
import warnings

import pytest

import dispatcher as dk

STEPS = 30


class _Scale:
    """A callable object: its ``__dict__`` goes into LambdaLR's state dict."""

    def __init__(self, k: float) -> None:
        self.k = k

    def __call__(self, epoch: int) -> float:
        return self.k ** epoch


def _optimizer(lib, momentum=0.9):
    p1 = lib.nn.Parameter(lib.ones(2))
    p2 = lib.nn.Parameter(lib.ones(3))
    return lib.optim.SGD([{"params": [p1]}, {"params": [p2], "lr": 0.05}], lr=0.1, momentum=momentum)


def _plateau_metric(i: int) -> float:
    return [5.0, 4.0, 4.0, 4.1, 4.0, 3.9, 4.0, 4.0, 4.0, 4.2][i % 10] - 0.01 * (i // 10)


#: name -> (constructor taking (lr_scheduler module, optimizer, lib), step arguments function or None)
CASES = {
    "LambdaLR": lambda m, o, lib: m.LambdaLR(o, lambda e: 0.95 ** e),
    "LambdaLR_list": lambda m, o, lib: m.LambdaLR(o, [lambda e: 1 / (e + 1), _Scale(0.9)]),
    "MultiplicativeLR": lambda m, o, lib: m.MultiplicativeLR(o, lambda e: 0.97),
    "StepLR": lambda m, o, lib: m.StepLR(o, step_size=4, gamma=0.7),
    "MultiStepLR": lambda m, o, lib: m.MultiStepLR(o, milestones=[3, 8, 8, 20], gamma=0.3),
    "ConstantLR": lambda m, o, lib: m.ConstantLR(o, factor=0.3, total_iters=6),
    "LinearLR": lambda m, o, lib: m.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=17),
    "ExponentialLR": lambda m, o, lib: m.ExponentialLR(o, gamma=0.93),
    "CosineAnnealingLR": lambda m, o, lib: m.CosineAnnealingLR(o, T_max=7, eta_min=0.001),
    "CosineAnnealingWarmRestarts": lambda m, o, lib: m.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2, eta_min=1e-3),
    "OneCycleLR": lambda m, o, lib: m.OneCycleLR(o, max_lr=[0.5, 0.2], total_steps=STEPS + 1),
    "OneCycleLR_3phase_linear": lambda m, o, lib: m.OneCycleLR(o, max_lr=0.3, epochs=4, steps_per_epoch=8,
                                                               anneal_strategy="linear", three_phase=True),
    "CyclicLR": lambda m, o, lib: m.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=5, step_size_down=3),
    "CyclicLR_triangular2": lambda m, o, lib: m.CyclicLR(o, 0.01, 0.1, step_size_up=4, mode="triangular2"),
    "CyclicLR_exp_range": lambda m, o, lib: m.CyclicLR(o, 0.01, 0.1, step_size_up=3, mode="exp_range", gamma=0.9),
    "PolynomialLR": lambda m, o, lib: m.PolynomialLR(o, total_iters=12, power=2.0),
    "SequentialLR": lambda m, o, lib: m.SequentialLR(
        o, [m.LinearLR(o, start_factor=0.2, total_iters=5), m.ExponentialLR(o, gamma=0.9),
            m.CosineAnnealingLR(o, T_max=6)], milestones=[5, 14]),
    "ChainedScheduler": lambda m, o, lib: m.ChainedScheduler(
        [m.ConstantLR(o, factor=0.5, total_iters=4), m.ExponentialLR(o, gamma=0.9), m.StepLR(o, 5, 0.5)]),
    "ReduceLROnPlateau": lambda m, o, lib: m.ReduceLROnPlateau(o, patience=1, factor=0.5, cooldown=1,
                                                               min_lr=[0.01, 0.0]),
    "ReduceLROnPlateau_max_abs": lambda m, o, lib: m.ReduceLROnPlateau(o, mode="max", threshold_mode="abs",
                                                                       patience=2),
}


def _run(lib, name):
    opt = _optimizer(lib)
    sched = CASES[name](lib.optim.lr_scheduler, opt, lib)
    lrs, momentums = [sched.get_last_lr()], []
    for i in range(STEPS):
        opt.step()
        if name.startswith("ReduceLROnPlateau"):
            sched.step(_plateau_metric(i) * (-1 if "max" in name else 1))
        else:
            sched.step()
        lrs.append(list(sched.get_last_lr()))
        momentums.append([g["momentum"] for g in opt.param_groups])
    return lrs, momentums, sched


def _plain(value):
    """A state-dict value made comparable across the two libraries (callables' identity dropped)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if callable(value):
        return "<callable>"
    return value


def _close(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return a == b or (math.isinf(a) and a == b) or abs(a - b) <= 1e-12 * max(1.0, abs(b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    return a == b


@pytest.mark.parametrize("name", sorted(CASES))
def test_scheduler_matches_torch(torch, name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # optimizer.step() comes first: no warning on either side
        ours, our_m, our_sched = _run(dk, name)
        theirs, their_m, their_sched = _run(torch, name)
    assert len(ours) == len(theirs) == STEPS + 1
    for step, (a, b) in enumerate(zip(ours, theirs)):
        assert _close(a, b), (step, a, b)
    assert _close(our_m, their_m)
    our_state, their_state = _plain(our_sched.state_dict()), _plain(their_sched.state_dict())
    assert list(our_state) == list(their_state)
    assert _close(our_state, their_state)


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
                                  "CosineAnnealingLR", "PolynomialLR", "LambdaLR", "CosineAnnealingWarmRestarts"])
def test_step_with_epoch_uses_closed_form(torch, name):
    def run(lib):
        opt = _optimizer(lib)
        sched = CASES[name](lib.optim.lr_scheduler, opt, lib)
        out = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for epoch in [3, 7, 2, 11, 11, 0, 25] + ([4.5, 9.25] if "Warm" in name else []):
                opt.step()
                sched.step(epoch)
                out.append(list(sched.get_last_lr()))
        return out, [str(w.message) for w in caught]

    (ours, our_w), (theirs, their_w) = run(dk), run(torch)
    assert _close(ours, theirs)
    assert our_w == their_w
    assert our_w or "Warm" in name  # the deprecation warning (CosineAnnealingWarmRestarts.step gives none)


@pytest.mark.parametrize("name", ["StepLR", "CosineAnnealingLR", "OneCycleLR", "CyclicLR", "SequentialLR",
                                  "ChainedScheduler", "ReduceLROnPlateau", "LambdaLR_list"])
def test_load_state_dict_resumes(torch, name):
    """Half the steps, save, a fresh scheduler loads the state dict and continues as the original would."""
    def run(lib):
        opt = _optimizer(lib)
        sched = CASES[name](lib.optim.lr_scheduler, opt, lib)
        step = (lambda i: sched.step(_plateau_metric(i))) if "Plateau" in name else (lambda i: sched.step())
        for i in range(10):
            opt.step()
            step(i)
        state = sched.state_dict()
        opt2 = _optimizer(lib)
        opt2.load_state_dict(opt.state_dict())
        fresh = CASES[name](lib.optim.lr_scheduler, opt2, lib)
        fresh.load_state_dict(state)
        for g2, g in zip(opt2.param_groups, opt.param_groups):
            g2["lr"] = g["lr"]
        sched = fresh
        out = []
        for i in range(10, 20):
            opt2.step()
            step(i)
            out.append(list(sched.get_last_lr()))
        return out

    assert _close(run(dk), run(torch))


def test_step_before_optimizer_step_warns(torch):
    for lib in (dk, torch):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2)
        with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
            sched.step()
        opt.step()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            sched.step()  # only the first step is checked


def test_overridden_optimizer_step_and_get_lr_warn():
    opt = _optimizer(dk)
    sched = dk.optim.lr_scheduler.ExponentialLR(opt, 0.5)
    opt.step = lambda: None
    with pytest.warns(UserWarning, match="has been overridden after learning rate scheduler initialization"):
        sched.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


def test_errors_match_torch(torch):
    def errors(lib):
        m = lib.optim.lr_scheduler
        opt = _optimizer(lib)
        attempts = [
            lambda: m.StepLR(object(), 3),
            lambda: m.StepLR(opt, 3, last_epoch=4),
            lambda: m.ConstantLR(opt, factor=1.5),
            lambda: m.LinearLR(opt, start_factor=0),
            lambda: m.LinearLR(opt, end_factor=2),
            lambda: m.LambdaLR(opt, [lambda e: 1.0]),
            lambda: m.MultiplicativeLR(opt, 3),
            lambda: m.CosineAnnealingWarmRestarts(opt, T_0=0),
            lambda: m.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=0),
            lambda: m.OneCycleLR(opt, 0.1),
            lambda: m.OneCycleLR(opt, 0.1, total_steps=10, pct_start=2.0),
            lambda: m.OneCycleLR(opt, 0.1, total_steps=10, anneal_strategy="x"),
            lambda: m.CyclicLR(opt, 0.1, 0.2, mode="bad"),
            lambda: m.CyclicLR(opt, [0.1], 0.2),
            lambda: m.ReduceLROnPlateau(opt, factor=1.0),
            lambda: m.ReduceLROnPlateau(opt, mode="mid"),
            lambda: m.ReduceLROnPlateau(opt, min_lr=[0.1]),
            lambda: m.SequentialLR(opt, [], []),
            lambda: m.SequentialLR(opt, [m.StepLR(opt, 2)], [3]),
            lambda: m.SequentialLR(opt, [m.StepLR(opt, 2), m.ReduceLROnPlateau(opt)], [3]),
            lambda: m.ChainedScheduler([]),
            lambda: m.ChainedScheduler([m.StepLR(opt, 2), m.StepLR(_optimizer(lib), 2)]),
        ]
        out = []
        for attempt in attempts:
            try:
                attempt()
                out.append(None)
            except Exception as e:  # noqa: BLE001 - comparing the kinds and texts
                out.append((type(e).__name__, str(e).split(" at 0x")[0].replace("dispatcher", "torch")))
        return out

    ours, theirs = errors(dk), errors(torch)
    for a, b in zip(ours, theirs):
        assert a == b


def test_one_cycle_too_many_steps(torch):
    for lib in (dk, torch):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=2)
        opt.step()
        sched.step()
        sched.step()
        with pytest.raises(ValueError, match="Tried to step 3 times. The specified number of total steps is 2"):
            sched.step()
