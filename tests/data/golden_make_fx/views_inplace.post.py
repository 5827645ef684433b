


def forward(self, x_1):
    clone = torch.ops.aten.clone.default(x_1);  x_1 = None
    select = torch.ops.aten.select.int(clone, 0, 0)
    mul_ = torch.ops.aten.mul_.Tensor(select, 3);  select = mul_ = None
    slice_1 = torch.ops.aten.slice.Tensor(clone, 1, 1, 9223372036854775807)
    add_ = torch.ops.aten.add_.Tensor(slice_1, 1);  slice_1 = add_ = None
    t = torch.ops.aten.t.default(clone)
    clone_1 = torch.ops.aten.clone.default(t, memory_format = torch.contiguous_format);  t = None
    unsqueeze = torch.ops.aten.unsqueeze.default(clone_1, 0);  clone_1 = None
    expand = torch.ops.aten.expand.default(unsqueeze, [2, 3, 2]);  unsqueeze = None
    sum_1 = torch.ops.aten.sum.dim_IntList(expand, [0]);  expand = None
    unbind = torch.ops.aten.unbind.int(clone, 1);  clone = None
    getitem = unbind[0]
    getitem_1 = unbind[1]
    getitem_2 = unbind[2];  unbind = None
    return (sum_1, (getitem, getitem_1, getitem_2))
    