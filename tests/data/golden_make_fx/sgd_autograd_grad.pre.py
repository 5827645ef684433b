


def forward(self, x_1, y_1, w_1, b_1):
    linear = torch.ops.aten.linear.default(x_1, w_1, b_1)
    broadcast_tensors = torch.ops.aten.broadcast_tensors.default([linear, y_1]);  linear = y_1 = None
    getitem = broadcast_tensors[0]
    getitem_1 = broadcast_tensors[1];  broadcast_tensors = None
    mse_loss = torch.ops.aten.mse_loss.default(getitem, getitem_1)
    ones_like = torch.ops.aten.ones_like.default(mse_loss, pin_memory = False, memory_format = torch.preserve_format)
    mse_loss_backward = torch.ops.aten.mse_loss_backward.default(ones_like, getitem, getitem_1, 1);  ones_like = getitem = getitem_1 = None
    t = torch.ops.aten.t.default(mse_loss_backward)
    mm = torch.ops.aten.mm.default(t, x_1);  t = x_1 = None
    t_1 = torch.ops.aten.t.default(mm);  mm = None
    sum_1 = torch.ops.aten.sum.dim_IntList(mse_loss_backward, [0], True);  mse_loss_backward = None
    view = torch.ops.aten.view.default(sum_1, [2]);  sum_1 = None
    t_2 = torch.ops.aten.t.default(t_1);  t_1 = None
    _set_grad_enabled = torch._C._set_grad_enabled(False);  _set_grad_enabled = None
    mul = torch.ops.aten.mul.Tensor(t_2, 0.1);  t_2 = None
    sub = torch.ops.aten.sub.Tensor(w_1, mul);  w_1 = mul = None
    mul_1 = torch.ops.aten.mul.Tensor(view, 0.1);  view = None
    sub_1 = torch.ops.aten.sub.Tensor(b_1, mul_1);  b_1 = mul_1 = None
    _set_grad_enabled_1 = torch._C._set_grad_enabled(True);  _set_grad_enabled_1 = None
    detach = torch.ops.aten.detach.default(mse_loss);  mse_loss = None
    return (detach, sub, sub_1)
    