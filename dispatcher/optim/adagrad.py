"""``optim.Adagrad``: per-coordinate learning rates from the running sum of squared gradients.

Corresponds to torch/optim/adagrad.py, the single-tensor implementation PyTorch picks for CPU tensors, op for op:
``step_t += 1``, ``grad.add(param, alpha=wd)``, ``state_sum.addcmul_(grad, grad, value=1)``,
``std = state_sum.sqrt().add_(eps)``, ``param.addcdiv_(grad, std, value=-clr)`` with
``clr = lr / (1 + (step - 1) * lr_decay)``. As in PyTorch the state (``step``, a float32 0-dim tensor, and ``sum``,
filled with ``initial_accumulator_value``) is made in the constructor.

With ``foreach=True`` (which PyTorch runs on CPU tensors too) the update is ``_multi_tensor_adagrad``'s: the
same arithmetic over each (device, dtype) group with the ``_foreach_*`` ops (dispatcher/ops/foreach.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..tensor import Tensor
from .adam import _scalar_dtype, _unsupported
from .optimizer import (
    Optimizer,
    _check_lr_elements,
    _check_nonnegative,
    _closure_loss,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["Adagrad", "adagrad"]


class Adagrad(Optimizer):
    def __init__(self, params: Any, lr: float | Tensor = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        from .. import full_like, tensor
        from ..memory_format import preserve_format

        _check_lr_elements(lr)
        _check_nonnegative(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                           initial_accumulator_value=initial_accumulator_value, eps=eps)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        _unsupported("Adagrad", foreach, fused, False, differentiable)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = tensor(0.0, dtype=_scalar_dtype())
                state["sum"] = full_like(p, initial_accumulator_value, memory_format=preserve_format)

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; ``closure`` re-evaluates the loss first."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, state_sums, state_steps = [], [], [], []
            for p in group["params"]:
                if p.grad is not None:
                    params.append(p)
                    grads.append(p.grad)
                    state = self.state[p]
                    state_sums.append(state["sum"])
                    state_steps.append(state["step"])
            adagrad(params, grads, state_sums, state_steps, lr=group["lr"], weight_decay=group["weight_decay"],
                    lr_decay=group["lr_decay"], eps=group["eps"], maximize=group["maximize"], foreach=group["foreach"])
        return loss


def adagrad(params: list[Tensor], grads: list[Tensor], state_sums: list[Tensor], state_steps: list[Tensor], *,
            lr: float | Tensor, weight_decay: float, lr_decay: float, eps: float, maximize: bool,
            foreach: bool | None = None) -> None:
    """The functional Adagrad update (``torch.optim.adagrad.adagrad``: single-tensor unless ``foreach=True``)."""
    if any(p.is_complex() for p in params):
        raise NotImplementedError("adagrad: complex parameters are not supported by dispatchkit")
    if foreach:
        _multi_tensor_adagrad(params, grads, state_sums, state_steps, lr=lr, weight_decay=weight_decay,
                              lr_decay=lr_decay, eps=eps, maximize=maximize)
        return
    lr = _to_scalar(lr)
    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps, strict=True):
        step_t += 1
        step = step_t.item()
        grad = grad if not maximize else -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        clr = lr / (1 + (step - 1) * lr_decay)
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt().add_(eps)
        param.addcdiv_(grad, std, value=-clr)


def _multi_tensor_adagrad(params: list[Tensor], grads: list[Tensor], state_sums: list[Tensor],
                          state_steps: list[Tensor], *, lr: Any, weight_decay: float, lr_decay: float, eps: float,
                          maximize: bool) -> None:
    """``_multi_tensor_adagrad`` (``foreach=True``, dense gradients)."""
    from .. import (
        _foreach_add,
        _foreach_add_,
        _foreach_addcdiv_,
        _foreach_addcmul_,
        _foreach_mul,
        _foreach_mul_,
        _foreach_neg,
        _foreach_sqrt,
    )
    from .adam import _cpu_step_increment, _group

    if len(params) == 0:
        return
    lr = _to_scalar(lr)
    grouped = _group([params, grads, state_sums, state_steps])
    for (device_params, device_grads, device_state_sums, device_state_steps), _ in grouped.values():
        if maximize:
            device_grads = _foreach_neg(device_grads)
        _cpu_step_increment(device_state_steps)
        if weight_decay != 0:
            if maximize:
                _foreach_add_(device_grads, device_params, alpha=weight_decay)
            else:
                device_grads = _foreach_add(device_grads, device_params, alpha=weight_decay)
        minus_clr = [-lr / (1 + (step.item() - 1) * lr_decay) for step in device_state_steps]
        _foreach_addcmul_(device_state_sums, device_grads, device_grads, value=1)
        std = _foreach_sqrt(device_state_sums)
        _foreach_add_(std, eps)
        if weight_decay != 0 or maximize:
            _foreach_mul_(device_grads, minus_clr)
            numerator = device_grads
        else:
            numerator = _foreach_mul(device_grads, minus_clr)
        _foreach_addcdiv_(device_params, numerator, std)
