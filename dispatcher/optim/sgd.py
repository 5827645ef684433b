"""``optim.SGD``: stochastic gradient descent with momentum, dampening, weight decay, Nesterov, maximize.

Corresponds to torch/optim/sgd.py, the single-tensor implementation (``foreach=False``, what
PyTorch picks for CPU tensors), op for op: ``grad.add(param, alpha=wd)``, the first momentum
buffer ``grad.detach().clone()``, later ``buf.mul_(momentum).add_(grad, alpha=1 - dampening)``,
``param.add_(grad, alpha=-lr)``; so a traced step gives PyTorch's graph.

With ``foreach=True`` (which PyTorch runs on CPU tensors too) the update is ``_multi_tensor_sgd``'s: the
same arithmetic over each (device, dtype) group with the ``_foreach_*`` ops (dispatcher/ops/foreach.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..tensor import Tensor
from .optimizer import (
    Optimizer,
    _check_lr_elements,
    _check_nonnegative,
    _closure_loss,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    def __init__(self, params: Any, lr: float | Tensor = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float | Tensor = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False, fused: bool | None = None) -> None:
        _check_lr_elements(lr)
        _check_nonnegative(lr=lr, momentum=momentum, weight_decay=weight_decay, nan_passes=True)
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach, "differentiable": differentiable,
                    "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        if fused:
            raise NotImplementedError("SGD: only the single-tensor and foreach implementations (fused=False) are "
                                      "supported by dispatchkit")
        super().__init__(params, defaults)

    def _init_group(self, group: dict[str, Any], params: list[Tensor], grads: list[Tensor],
                    momentum_buffer_list: list[Tensor | None]) -> bool:
        has_sparse_grad = False
        for p in group["params"]:
            if p.grad is not None:
                params.append(p)
                grads.append(p.grad)
                if group["momentum"] != 0:
                    momentum_buffer_list.append(self.state[p].get("momentum_buffer"))
        return has_sparse_grad

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; ``closure`` re-evaluates the loss first."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params: list[Tensor] = []
            grads: list[Tensor] = []
            momentum_buffer_list: list[Tensor | None] = []
            has_sparse_grad = self._init_group(group, params, grads, momentum_buffer_list)
            sgd(params, grads, momentum_buffer_list, weight_decay=group["weight_decay"], momentum=group["momentum"],
                lr=group["lr"], dampening=group["dampening"], nesterov=group["nesterov"], maximize=group["maximize"],
                has_sparse_grad=has_sparse_grad, foreach=group["foreach"])
            if group["momentum"] != 0:
                for p, momentum_buffer in zip(params, momentum_buffer_list, strict=True):
                    self.state[p]["momentum_buffer"] = momentum_buffer
        return loss


def sgd(params: list[Tensor], d_p_list: list[Tensor], momentum_buffer_list: list[Tensor | None], *,
        weight_decay: float, momentum: float, lr: float, dampening: float, nesterov: bool, maximize: bool,
        has_sparse_grad: bool = False, foreach: bool | None = None) -> None:
    """The functional SGD update (``torch.optim.sgd.sgd``: single-tensor unless ``foreach=True``), in place."""
    if foreach:
        _multi_tensor_sgd(params, d_p_list, momentum_buffer_list, weight_decay=weight_decay, momentum=momentum,
                          lr=lr, dampening=dampening, nesterov=nesterov, maximize=maximize)
        return
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = d_p_list[i] if not maximize else -d_p_list[i]
        if weight_decay != 0:
            if isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
                grad = grad.addcmul_(param.clone(), weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        if momentum != 0:
            buf = momentum_buffer_list[i]
            if buf is None:
                buf = grad.detach().clone()
                momentum_buffer_list[i] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            grad = grad.add(buf, alpha=momentum) if nesterov else buf
        if isinstance(lr, Tensor) and lr.requires_grad:
            param.addcmul_(grad, lr, value=-1)
        else:
            param.add_(grad, alpha=-lr)


def _multi_tensor_sgd(params: list[Tensor], grads: list[Tensor], momentum_buffer_list: list[Tensor | None], *,
                      weight_decay: float, momentum: float, lr: float, dampening: float, nesterov: bool,
                      maximize: bool) -> None:
    """``_multi_tensor_sgd`` (``foreach=True``): the first momentum buffers made per tensor, then ``_foreach_*``."""
    from .. import _foreach_add, _foreach_add_, _foreach_mul_, _foreach_neg
    from .adam import _group

    if len(params) == 0:
        return
    lr = _to_scalar(lr)
    grouped = _group([params, grads, momentum_buffer_list])
    for (device_params, device_grads, device_momentum_buffer_list), indices in grouped.values():
        if maximize:
            device_grads = _foreach_neg(device_grads)
        if weight_decay != 0:
            if maximize:
                _foreach_add_(device_grads, device_params, alpha=weight_decay)
            else:
                device_grads = _foreach_add(device_grads, device_params, alpha=weight_decay)
        if momentum != 0:
            if all(b is not None for b in device_momentum_buffer_list):
                bufs = list(device_momentum_buffer_list)
                _foreach_mul_(bufs, momentum)
                _foreach_add_(bufs, device_grads, alpha=1 - dampening)
            else:
                bufs = []
                for i in range(len(device_momentum_buffer_list)):
                    buf = device_momentum_buffer_list[i]
                    if buf is None:
                        buf = device_momentum_buffer_list[i] = momentum_buffer_list[indices[i]] = (
                            device_grads[i].detach().clone())
                    else:
                        buf.mul_(momentum).add_(device_grads[i], alpha=1 - dampening)
                    bufs.append(buf)
            if nesterov:
                _foreach_add_(device_grads, bufs, alpha=momentum)
            else:
                device_grads = bufs
        _foreach_add_(device_params, device_grads, alpha=-lr)
