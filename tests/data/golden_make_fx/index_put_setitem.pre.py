


def forward(self, x_1, idx_1, v_1):
    clone = torch.ops.aten.clone.default(x_1)
    index_put_ = torch.ops.aten.index_put_.default(clone, [idx_1], v_1);  clone = v_1 = None
    index = torch.ops.aten.index.Tensor(x_1, [idx_1]);  x_1 = idx_1 = None
    sum_1 = torch.ops.aten.sum.dim_IntList(index, [0]);  index = None
    return (index_put_, sum_1)
    