"""``optim.Adadelta``: updates scaled by running averages of squared gradients and of squared updates.

Corresponds to torch/optim/adadelta.py, the single-tensor implementation PyTorch picks for CPU tensors, op for op:
``step += 1``, ``grad.add(param, alpha=wd)``, ``square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)``,
``std = square_avg.add(eps).sqrt_()``, ``delta = acc_delta.add(eps).sqrt_()``, ``delta.div_(std).mul_(grad)``,
``acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)``, ``param.add_(delta, alpha=-lr)``. State: ``step``
(``zeros(())``, float32), ``square_avg``, ``acc_delta``, made at the first step.

With ``foreach=True`` (which PyTorch runs on CPU tensors too) the update is ``_multi_tensor_adadelta``'s: the
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

__all__ = ["Adadelta", "adadelta"]


class Adadelta(Optimizer):
    def __init__(self, params: Any, lr: float | Tensor = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr_elements(lr)
        _check_nonnegative(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_nonnegative(eps=eps, weight_decay=weight_decay)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        _unsupported("Adadelta", foreach, None, capturable, differentiable)
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; ``closure`` re-evaluates the loss first."""
        from .. import zeros, zeros_like
        from ..memory_format import preserve_format

        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, square_avgs, acc_deltas, steps = [], [], [], [], []
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.is_complex():
                    raise NotImplementedError("Adadelta: complex parameters are not supported by dispatchkit")
                params.append(p)
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = zeros((), dtype=_scalar_dtype())
                    state["square_avg"] = zeros_like(p, memory_format=preserve_format)
                    state["acc_delta"] = zeros_like(p, memory_format=preserve_format)
                square_avgs.append(state["square_avg"])
                acc_deltas.append(state["acc_delta"])
                steps.append(state["step"])
            adadelta(params, grads, square_avgs, acc_deltas, steps, lr=group["lr"], rho=group["rho"],
                     eps=group["eps"], weight_decay=group["weight_decay"], maximize=group["maximize"],
                     foreach=group["foreach"])
        return loss


def adadelta(params: list[Tensor], grads: list[Tensor], square_avgs: list[Tensor], acc_deltas: list[Tensor],
             state_steps: list[Tensor], *, lr: float | Tensor, rho: float, eps: float, weight_decay: float,
             maximize: bool, foreach: bool | None = None) -> None:
    """The functional Adadelta update (``torch.optim.adadelta.adadelta``: single-tensor unless ``foreach=True``)."""
    if foreach:
        _multi_tensor_adadelta(params, grads, square_avgs, acc_deltas, state_steps, lr=lr, rho=rho, eps=eps,
                               weight_decay=weight_decay, maximize=maximize)
        return
    lr = _to_scalar(lr)
    for param, grad, square_avg, acc_delta, step in zip(params, grads, square_avgs, acc_deltas, state_steps,
                                                        strict=True):
        step += 1
        grad = grad if not maximize else -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-lr)


def _multi_tensor_adadelta(params: list[Tensor], grads: list[Tensor], square_avgs: list[Tensor],
                           acc_deltas: list[Tensor], state_steps: list[Tensor], *, lr: Any, rho: float, eps: float,
                           weight_decay: float, maximize: bool) -> None:
    """``_multi_tensor_adadelta`` (``foreach=True``; capturable=False)."""
    from .. import (
        _foreach_add,
        _foreach_add_,
        _foreach_addcmul_,
        _foreach_div_,
        _foreach_mul_,
        _foreach_neg,
        _foreach_sqrt_,
    )
    from .adam import _cpu_step_increment, _group

    if len(params) == 0:
        return
    lr = _to_scalar(lr)
    grouped = _group([params, grads, square_avgs, acc_deltas, state_steps])
    for (device_params, device_grads, device_square_avgs, device_acc_deltas, device_state_steps), _ in \
            grouped.values():
        _cpu_step_increment(device_state_steps)
        if maximize:
            device_grads = _foreach_neg(device_grads)
        if weight_decay != 0:
            if maximize:
                _foreach_add_(device_grads, device_params, alpha=weight_decay)
            else:
                device_grads = _foreach_add(device_grads, device_params, alpha=weight_decay)
        _foreach_mul_(device_square_avgs, rho)
        _foreach_addcmul_(device_square_avgs, device_grads, device_grads, value=1 - rho)
        std = _foreach_add(device_square_avgs, eps)
        _foreach_sqrt_(std)
        deltas = _foreach_add(device_acc_deltas, eps)
        _foreach_sqrt_(deltas)
        _foreach_div_(deltas, std)
        _foreach_mul_(deltas, device_grads)
        _foreach_mul_(device_acc_deltas, rho)
        _foreach_addcmul_(device_acc_deltas, deltas, deltas, value=1 - rho)
        _foreach_add_(device_params, deltas, alpha=-lr)
