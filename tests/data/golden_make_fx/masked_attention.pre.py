


def forward(self, q_1, k_1, v_1):
    transpose = torch.ops.aten.transpose.int(k_1, -2, -1);  k_1 = None
    matmul = torch.ops.aten.matmul.default(q_1, transpose);  q_1 = transpose = None
    mul = torch.ops.aten.mul.Tensor(matmul, 0.3535533905932738);  matmul = None
    arange = torch.ops.aten.arange.default(4, device = device(type='cpu'), pin_memory = False)
    unsqueeze = torch.ops.aten.unsqueeze.default(arange, 0);  arange = None
    arange_1 = torch.ops.aten.arange.default(4, device = device(type='cpu'), pin_memory = False)
    unsqueeze_1 = torch.ops.aten.unsqueeze.default(arange_1, 1);  arange_1 = None
    gt = torch.ops.aten.gt.Tensor(unsqueeze, unsqueeze_1);  unsqueeze = unsqueeze_1 = None
    masked_fill = torch.ops.aten.masked_fill.Scalar(mul, gt, -inf);  mul = gt = None
    softmax = torch.ops.aten.softmax.int(masked_fill, -1);  masked_fill = None
    matmul_1 = torch.ops.aten.matmul.default(softmax, v_1);  softmax = v_1 = None
    return matmul_1
    