"""``optim.RMSprop``: gradients scaled by a running average of their squares (optionally centered, with momentum).

Corresponds to torch/optim/rmsprop.py, the single-tensor implementation PyTorch picks for CPU tensors, op for op:
``step += 1``, ``grad.add(param, alpha=wd)``, ``square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)``,
centered: ``grad_avg.lerp_(grad, 1 - alpha)`` and ``square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()``,
else ``square_avg.sqrt()``; ``avg.add_(eps)``; momentum: ``buf.mul_(momentum).addcdiv_(grad, avg)`` then
``param.add_(buf, alpha=-lr)``, else ``param.addcdiv_(grad, avg, value=-lr)``. State: ``step`` (``zeros(())``,
float32), ``square_avg``, ``momentum_buffer`` (momentum > 0), ``grad_avg`` (centered), made at the first step.

With ``foreach=True`` (which PyTorch runs on CPU tensors too) the update is ``_multi_tensor_rmsprop``'s: the
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

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(Optimizer):
    def __init__(self, params: Any, lr: float | Tensor = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr_elements(lr)
        _check_nonnegative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        _unsupported("RMSprop", foreach, None, capturable, differentiable)
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; ``closure`` re-evaluates the loss first."""
        from .. import zeros, zeros_like
        from ..memory_format import preserve_format

        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, square_avgs, grad_avgs, bufs, steps = [], [], [], [], [], []
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.is_complex():
                    raise NotImplementedError("RMSprop: complex parameters are not supported by dispatchkit")
                params.append(p)
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = zeros((), dtype=_scalar_dtype())
                    state["square_avg"] = zeros_like(p, memory_format=preserve_format)
                    if group["momentum"] > 0:
                        state["momentum_buffer"] = zeros_like(p, memory_format=preserve_format)
                    if group["centered"]:
                        state["grad_avg"] = zeros_like(p, memory_format=preserve_format)
                square_avgs.append(state["square_avg"])
                steps.append(state["step"])
                if group["momentum"] > 0:
                    bufs.append(state["momentum_buffer"])
                if group["centered"]:
                    grad_avgs.append(state["grad_avg"])
            rmsprop(params, grads, square_avgs, grad_avgs, bufs, steps, lr=group["lr"], alpha=group["alpha"],
                    eps=group["eps"], weight_decay=group["weight_decay"], momentum=group["momentum"],
                    centered=group["centered"], maximize=group["maximize"], foreach=group["foreach"])
        return loss


def rmsprop(params: list[Tensor], grads: list[Tensor], square_avgs: list[Tensor], grad_avgs: list[Tensor],
            momentum_buffer_list: list[Tensor], state_steps: list[Tensor], *, lr: float | Tensor, alpha: float,
            eps: float, weight_decay: float, momentum: float, centered: bool, maximize: bool,
            foreach: bool | None = None) -> None:
    """The functional RMSprop update (``torch.optim.rmsprop.rmsprop``: single-tensor unless ``foreach=True``)."""
    if foreach:
        _multi_tensor_rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, lr=lr,
                              alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum, centered=centered,
                              maximize=maximize)
        return
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        step = state_steps[i]
        grad = grads[i] if not maximize else -grads[i]
        square_avg = square_avgs[i]
        step += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if centered:
            grad_avg = grad_avgs[i]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(eps)
        if momentum > 0:
            buf = momentum_buffer_list[i]
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-lr)
        else:
            param.addcdiv_(grad, avg, value=-lr)


def _multi_tensor_rmsprop(params: list[Tensor], grads: list[Tensor], square_avgs: list[Tensor],
                          grad_avgs: list[Tensor], momentum_buffer_list: list[Tensor], state_steps: list[Tensor], *,
                          lr: Any, alpha: float, eps: float, weight_decay: float, momentum: float, centered: bool,
                          maximize: bool) -> None:
    """``_multi_tensor_rmsprop`` (``foreach=True``; capturable=False)."""
    from .. import (
        _foreach_add,
        _foreach_add_,
        _foreach_addcdiv_,
        _foreach_addcmul,
        _foreach_addcmul_,
        _foreach_lerp_,
        _foreach_mul_,
        _foreach_neg,
        _foreach_sqrt,
        _foreach_sqrt_,
    )
    from .adam import _cpu_step_increment, _group

    if len(params) == 0:
        return
    lr = _to_scalar(lr)
    grouped = _group([params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps])
    for (g_params, g_grads, g_square_avgs, g_grad_avgs, g_bufs, g_steps), _ in grouped.values():
        if maximize:
            g_grads = _foreach_neg(g_grads)
        _cpu_step_increment(g_steps)
        if weight_decay != 0:
            if maximize:
                _foreach_add_(g_grads, g_params, alpha=weight_decay)
            else:
                g_grads = _foreach_add(g_grads, g_params, alpha=weight_decay)
        _foreach_mul_(g_square_avgs, alpha)
        _foreach_addcmul_(g_square_avgs, g_grads, g_grads, value=1 - alpha)
        if centered:
            _foreach_lerp_(g_grad_avgs, g_grads, 1 - alpha)
            avg = _foreach_addcmul(g_square_avgs, g_grad_avgs, g_grad_avgs, value=-1)
            _foreach_sqrt_(avg)
            _foreach_add_(avg, eps)
        else:
            avg = _foreach_sqrt(g_square_avgs)
            _foreach_add_(avg, eps)
        if momentum > 0:
            _foreach_mul_(g_bufs, momentum)
            _foreach_addcdiv_(g_bufs, g_grads, avg)
            _foreach_add_(g_params, g_bufs, alpha=-lr)
        else:
            _foreach_addcdiv_(g_params, g_grads, avg, value=-lr)
