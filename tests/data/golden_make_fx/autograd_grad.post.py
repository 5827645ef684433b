


def forward(self, x_1, w_1):
    mm = torch.ops.aten.mm.default(x_1, w_1);  w_1 = None
    relu = torch.ops.aten.relu.default(mm);  mm = None
    detach = torch.ops.aten.detach.default(relu)
    sum_1 = torch.ops.aten.sum.default(relu);  relu = None
    ones_like = torch.ops.aten.ones_like.default(sum_1, pin_memory = False, memory_format = torch.preserve_format)
    expand = torch.ops.aten.expand.default(ones_like, [2, 4]);  ones_like = None
    detach_1 = torch.ops.aten.detach.default(detach);  detach = None
    threshold_backward = torch.ops.aten.threshold_backward.default(expand, detach_1, 0);  expand = detach_1 = None
    t = torch.ops.aten.t.default(x_1);  x_1 = None
    mm_1 = torch.ops.aten.mm.default(t, threshold_backward);  t = threshold_backward = None
    return (sum_1, mm_1)
    