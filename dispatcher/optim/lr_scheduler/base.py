"""``LRScheduler``: the base of the learning-rate schedulers, and the helpers they share.

Corresponds to the top of torch/optim/lr_scheduler.py (PyTorch 2.13). A scheduler remembers the
optimizer, each group's ``initial_lr`` (its ``base_lrs``) and ``last_epoch``; its constructor takes
the *initial step* (``last_epoch`` -1 -> 0) in "initial mode", so the first learning rates are set
at once. Every later ``step()`` bumps ``last_epoch`` and writes ``get_lr()`` into the groups (the
*chainable* form: each new value is computed from the group's current ``lr``), or, when an explicit
``epoch`` is passed (deprecated), the scheduler's *closed form* ``_get_closed_form_lr`` where it has
one. The optimizer's ``step`` is wrapped once per instance to note that it was called, so calling
``scheduler.step()`` before the first ``optimizer.step()`` gives PyTorch's warning.

``state_dict`` is the scheduler's ``__dict__`` without the optimizer: the attributes are set in
PyTorch's order, so the dicts (keys and order) are PyTorch's.
"""

from __future__ import annotations

import functools
import warnings
import weakref
from collections.abc import Callable
from typing import Any

from ...tensor import Tensor
from ..optimizer import Optimizer, _to_scalar

__all__ = ["EPOCH_DEPRECATION_WARNING", "LRScheduler", "group_values", "set_group_value", "per_group"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from "
    "None, the closed form is used instead of the new chainable form, where available. Please open an issue if "
    "you are unable to replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose."
)

_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call "
    "them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result "
    "in PyTorch skipping the first value of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)
_OVERRIDDEN_WARNING = (
    "Seems like `optimizer.step()` has been overridden after learning rate scheduler initialization. Please, make "
    "sure to call `optimizer.step()` before `lr_scheduler.step()`. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)
_GET_LR_WARNING = "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."


def _copied(value: Any) -> Any:
    return value.clone() if isinstance(value, Tensor) else value


def group_values(optimizer: Optimizer, key: str) -> list[Any]:
    """``group[key]`` of every parameter group (tensors cloned): PyTorch's ``_param_groups_val_list``."""
    return [_copied(group[key]) for group in optimizer.param_groups]


def set_group_value(group: dict[str, Any], key: str, value: Any) -> None:
    """Write a new value into a group: a tensor option is filled in place, anything else replaced."""
    if isinstance(group[key], Tensor):
        group[key].fill_(_to_scalar(value))
    else:
        group[key] = value


def per_group(name: str, optimizer: Optimizer, value: Any) -> list[Any]:
    """One value per parameter group: a list/tuple must have one per group, a single value is repeated."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. {name} has {len(value)} "
                             f"values, param_groups has {len(optimizer.param_groups)}.")
    else:
        value = [value] * len(optimizer.param_groups)
    return [_copied(v) for v in value]


def check_optimizer(optimizer: Any) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _mark_optimizer_steps(scheduler: LRScheduler) -> None:
    """Wrap this optimizer instance's ``step`` (once) so that it records ``_opt_called = True``."""
    optimizer = scheduler.optimizer
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    owner = weakref.ref(optimizer)  # the wrapper lives on the optimizer: no reference cycle through it
    unbound = optimizer.step.__func__

    @functools.wraps(unbound)
    def step(*args: Any, **kwargs: Any) -> Any:
        opt = owner()
        opt._opt_called = True
        return unbound.__get__(opt, opt.__class__)(*args, **kwargs)

    step._wrapped_by_lr_sched = True  # type: ignore[attr-defined]
    optimizer.step = step


class _Flag:
    """Sets ``attribute`` of a scheduler to True for the body of a ``with``, then back to False."""

    def __init__(self, scheduler: LRScheduler, attribute: str) -> None:
        self.scheduler, self.attribute = scheduler, attribute

    def __enter__(self) -> None:
        setattr(self.scheduler, self.attribute, True)

    def __exit__(self, *exc: object) -> None:
        setattr(self.scheduler, self.attribute, False)


class LRScheduler:
    """Adjusts the ``lr`` of an optimizer's parameter groups at every ``step()``."""

    #: True while ``step`` computes the new values (``get_lr`` called elsewhere warns)
    _get_lr_called_within_step: bool = False
    #: True during the initial step the constructor takes
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _copied(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming scheduler with "
                        "last_epoch >= 0.\nThis typically happens when:\n1. You're trying to resume training from a "
                        "checkpoint but haven't properly loaded the optimizer state\n2. You're using last_epoch >= 0 "
                        "for a fresh training run (not recommended)")
        self.base_lrs: list[Any] = group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _mark_optimizer_steps(self)
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        with _Flag(self, "_is_initial"):
            self.step()

    # --- state ---------------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Every attribute but the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list[Any]:
        """The learning rates the last ``step`` set (one per group)."""
        return self._last_lr

    def get_lr(self) -> list[Any]:
        """The new learning rates at ``last_epoch`` (each scheduler's rule)."""
        raise NotImplementedError

    def _warn_if_outside_step(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn(_GET_LR_WARNING, UserWarning, stacklevel=3)

    # --- stepping ------------------------------------------------------------------------------------
    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (or jump to ``epoch``, deprecated) and set the groups' learning rates."""
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(_OVERRIDDEN_WARNING, UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(_ORDER_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        with _Flag(self, "_get_lr_called_within_step"):
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form: Callable[[], list[Any]] | None = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        groups = self.optimizer.param_groups
        if len(values) != len(groups):
            raise ValueError(f"{type(self).__name__}: get_lr returned {len(values)} values for {len(groups)} groups")
        for group, lr in zip(groups, values):
            set_group_value(group, "lr", lr)
        self._last_lr: list[Any] = group_values(self.optimizer, "lr")


class _LRScheduler(LRScheduler):
    """The old name (still importable in PyTorch)."""
