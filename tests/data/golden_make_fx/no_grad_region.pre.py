


def forward(self, x_1):
    _set_grad_enabled = torch._C._set_grad_enabled(False);  _set_grad_enabled = None
    sin = torch.ops.aten.sin.default(x_1)
    _set_grad_enabled_1 = torch._C._set_grad_enabled(True);  _set_grad_enabled_1 = None
    cos = torch.ops.aten.cos.default(x_1);  x_1 = None
    add = torch.ops.aten.add.Tensor(sin, cos);  sin = cos = None
    return add
    