"""``optim.Adam`` and ``optim.AdamW``: adaptive moment estimation, with L2 or decoupled weight decay.

Corresponds to torch/optim/adam.py and adamw.py (AdamW is Adam with ``decoupled_weight_decay=True``), the
single-tensor implementation PyTorch picks for CPU tensors (``_default_to_fused_or_foreach`` turns foreach on only
for cuda / xpu / mtia / privateuse1 devices), op for op: ``step_t += 1``, the weight decay
(``param.mul_(1 - lr * wd)`` or ``grad.add(param, alpha=wd)``), ``exp_avg.lerp_(grad, 1 - beta1)``,
``exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)``, for AMSGrad
``torch.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)``, then ``denom = (v.sqrt() / bc2_sqrt).add_(eps)``
and ``param.addcdiv_(exp_avg, denom, value=-step_size)``, with the bias corrections computed in Python from
``step_t.item()``. State per parameter: ``step`` (a float32 0-dim tensor), ``exp_avg``, ``exp_avg_sq`` and
``max_exp_avg_sq`` (amsgrad), PyTorch's names and layout.

With ``foreach=True`` (which PyTorch runs on CPU tensors too) the update is ``_multi_tensor_adam``'s: the
same arithmetic over each (device, dtype) group with the ``_foreach_*`` ops (dispatcher/ops/foreach.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import dtypes
from ..tensor import Tensor
from .optimizer import Optimizer, _check_nonnegative, _closure_loss, _to_scalar, _use_grad_for_differentiable

__all__ = ["Adam", "AdamW", "adam", "adamw"]


def _scalar_dtype() -> Any:
    """``_get_scalar_dtype()``: float64 when that is the default dtype, else float32."""
    from .. import get_default_dtype

    return dtypes.float64 if get_default_dtype() is dtypes.float64 else dtypes.float32


def _unsupported(name: str, foreach: bool | None, fused: bool | None, capturable: bool, differentiable: bool) -> None:
    """Refuse what is not reproduced: fused kernels, capturable (CUDA-graph) and differentiable updates."""
    if fused or capturable or differentiable:
        raise NotImplementedError(f"{name}: only the single-tensor and foreach implementations (fused=False, "
                                  "capturable=False, differentiable=False) are supported by dispatchkit")


def _group(tensorlists: list[list[Any]]) -> Any:
    """``Optimizer._group_tensors_by_device_and_dtype`` (not compiling: torch.utils._foreach_utils's, under no_grad)."""
    from ..api.foreach import group_tensors_by_device_and_dtype

    return group_tensors_by_device_and_dtype(tensorlists)


def _cpu_step_increment(steps: list[Tensor]) -> None:
    """``_foreach_add_(state_steps, torch.tensor(1.0, device="cpu"), alpha=1.0)`` (the CPU-step form torch uses)."""
    from .. import _foreach_add_, tensor

    _foreach_add_(steps, tensor(1.0, device="cpu"), alpha=1.0)


class Adam(Optimizer):
    def __init__(self, params: Any, lr: float | Tensor = 1e-3, betas: tuple[Any, Any] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
            if lr.numel() != 1:
                raise ValueError("Tensor lr must be 1-element")
        _check_nonnegative(lr=lr, eps=eps)
        for i in (0, 1):
            if not 0.0 <= betas[i] < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
        _check_nonnegative(weight_decay=weight_decay)
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        for i in (0, 1):
            if isinstance(betas[i], Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
                if betas[i].numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(map(_to_scalar, betas))
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused, "decoupled_weight_decay": decoupled_weight_decay}
        _unsupported(type(self).__name__, foreach, fused, capturable, differentiable)
        super().__init__(params, defaults)

    def _init_group(self, group: dict[str, Any], params_with_grad: list[Tensor], grads: list[Tensor],
                    exp_avgs: list[Tensor], exp_avg_sqs: list[Tensor], max_exp_avg_sqs: list[Tensor],
                    state_steps: list[Tensor]) -> bool:
        from .. import tensor, zeros_like
        from ..memory_format import preserve_format

        has_complex = False
        for p in group["params"]:
            if p.grad is None:
                continue
            has_complex |= p.is_complex()
            params_with_grad.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:  # lazy state initialization; `step` stays on the CPU
                state["step"] = tensor(0.0, dtype=_scalar_dtype(), device="cpu")
                state["exp_avg"] = zeros_like(p, memory_format=preserve_format)
                state["exp_avg_sq"] = zeros_like(p, memory_format=preserve_format)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = zeros_like(p, memory_format=preserve_format)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            if group["amsgrad"]:
                max_exp_avg_sqs.append(state["max_exp_avg_sq"])
            state_steps.append(state["step"])
        return has_complex

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; ``closure`` re-evaluates the loss first."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params_with_grad: list[Tensor] = []
            grads: list[Tensor] = []
            exp_avgs: list[Tensor] = []
            exp_avg_sqs: list[Tensor] = []
            max_exp_avg_sqs: list[Tensor] = []
            state_steps: list[Tensor] = []
            beta1, beta2 = group["betas"]
            has_complex = self._init_group(group, params_with_grad, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                                           state_steps)
            adam(params_with_grad, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
                 foreach=group["foreach"], amsgrad=group["amsgrad"], has_complex=has_complex, beta1=beta1,
                 beta2=beta2, lr=group["lr"],
                 weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
                 decoupled_weight_decay=group["decoupled_weight_decay"])
        return loss


class AdamW(Adam):
    def __init__(self, params: Any, lr: float | Tensor = 1e-3, betas: tuple[Any, Any] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


def adam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor], exp_avg_sqs: list[Tensor],
         max_exp_avg_sqs: list[Tensor], state_steps: list[Tensor], foreach: bool | None = None,
         capturable: bool = False, differentiable: bool = False, fused: bool | None = None,
         grad_scale: Tensor | None = None, found_inf: Tensor | None = None, has_complex: bool = False,
         decoupled_weight_decay: bool = False, *, amsgrad: bool, beta1: float, beta2: float, lr: float | Tensor,
         weight_decay: float, eps: float, maximize: bool) -> None:
    """The functional Adam update (``torch.optim.adam.adam``; single-tensor on CPU unless ``foreach=True``), in place."""
    _unsupported("adam", foreach, fused, capturable, differentiable)
    if foreach:
        if not all(isinstance(t, Tensor) for t in state_steps):
            raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
        _multi_tensor_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, amsgrad=amsgrad,
                           has_complex=has_complex, beta1=beta1, beta2=beta2, lr=lr, weight_decay=weight_decay,
                           eps=eps, maximize=maximize, decoupled_weight_decay=decoupled_weight_decay)
        return
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    if grad_scale is not None or found_inf is not None:
        raise AssertionError("Expected grad_scale and found_inf to be None")
    if has_complex:
        raise NotImplementedError("adam: complex parameters are not supported by dispatchkit")
    from .. import maximum

    lr, beta1, beta2 = _to_scalar(lr), _to_scalar(beta1), _to_scalar(beta2)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_avg_sq, step_t = exp_avgs[i], exp_avg_sqs[i], state_steps[i]
        step_t += 1
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = step_t.item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        if amsgrad:
            maximum(max_exp_avg_sqs[i], exp_avg_sq, out=max_exp_avg_sqs[i])
            denom = (max_exp_avg_sqs[i].sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)


def adamw(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor], exp_avg_sqs: list[Tensor],
          max_exp_avg_sqs: list[Tensor], state_steps: list[Tensor], foreach: bool | None = None,
          capturable: bool = False, differentiable: bool = False, fused: bool | None = None,
          grad_scale: Tensor | None = None, found_inf: Tensor | None = None, has_complex: bool = False, *,
          amsgrad: bool, beta1: float, beta2: float, lr: float | Tensor, weight_decay: float, eps: float,
          maximize: bool) -> None:
    """The functional AdamW update: ``adam`` with decoupled weight decay."""
    adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach=foreach, capturable=capturable,
         differentiable=differentiable, fused=fused, grad_scale=grad_scale, found_inf=found_inf,
         has_complex=has_complex, decoupled_weight_decay=True, amsgrad=amsgrad, beta1=beta1, beta2=beta2, lr=lr,
         weight_decay=weight_decay, eps=eps, maximize=maximize)


def _multi_tensor_adam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor], exp_avg_sqs: list[Tensor],
                       max_exp_avg_sqs: list[Tensor], state_steps: list[Tensor], *, amsgrad: bool, has_complex: bool,
                       beta1: Any, beta2: Any, lr: Any, weight_decay: float, eps: float, maximize: bool,
                       decoupled_weight_decay: bool) -> None:
    """``_multi_tensor_adam`` (``foreach=True``; capturable=False): the same update with ``_foreach_*`` ops."""
    from .. import (
        _foreach_add,
        _foreach_add_,
        _foreach_addcdiv_,
        _foreach_addcmul_,
        _foreach_div_,
        _foreach_lerp_,
        _foreach_maximum_,
        _foreach_mul_,
        _foreach_neg,
        _foreach_sqrt,
    )

    if len(params) == 0:
        return
    if isinstance(lr, Tensor):
        raise RuntimeError("lr as a Tensor is not supported for capturable=False and foreach=True")
    for name, beta in (("beta1", beta1), ("beta2", beta2)):
        if isinstance(beta, Tensor):
            raise ValueError(f"{name} as a Tensor is not supported for capturable=False and foreach=True")
    if has_complex:
        raise NotImplementedError("adam: complex parameters are not supported by dispatchkit")
    lr, beta1, beta2 = _to_scalar(lr), _to_scalar(beta1), _to_scalar(beta2)
    grouped = _group([params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps])
    for (device_params, device_grads, device_exp_avgs, device_exp_avg_sqs, device_max_exp_avg_sqs,
         device_state_steps), _ in grouped.values():
        if maximize:
            device_grads = _foreach_neg(device_grads)
        _cpu_step_increment(device_state_steps)
        if weight_decay != 0:
            if decoupled_weight_decay:
                _foreach_mul_(device_params, 1 - lr * weight_decay)
            elif maximize:
                _foreach_add_(device_grads, device_params, alpha=weight_decay)
            else:
                device_grads = _foreach_add(device_grads, device_params, alpha=weight_decay)
        _foreach_lerp_(device_exp_avgs, device_grads, 1 - beta1)
        _foreach_mul_(device_exp_avg_sqs, beta2)
        _foreach_addcmul_(device_exp_avg_sqs, device_grads, device_grads, 1 - beta2)
        del device_grads
        bias_correction1 = [1 - beta1 ** step.item() for step in device_state_steps]
        bias_correction2 = [1 - beta2 ** step.item() for step in device_state_steps]
        step_size = [(lr / bc) * -1 for bc in bias_correction1]
        bias_correction2_sqrt = [bc ** 0.5 for bc in bias_correction2]
        if amsgrad:
            _foreach_maximum_(device_max_exp_avg_sqs, device_exp_avg_sqs)
            exp_avg_sq_sqrt = _foreach_sqrt(device_max_exp_avg_sqs)
        else:
            exp_avg_sq_sqrt = _foreach_sqrt(device_exp_avg_sqs)
        _foreach_div_(exp_avg_sq_sqrt, bias_correction2_sqrt)
        _foreach_add_(exp_avg_sq_sqrt, eps)
        _foreach_addcdiv_(device_params, device_exp_avgs, exp_avg_sq_sqrt, step_size)
