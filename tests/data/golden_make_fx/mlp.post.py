


def forward(self, x_1, w1_1, b1_1, w2_1, b2_1):
    t = torch.ops.aten.t.default(w1_1);  w1_1 = None
    addmm = torch.ops.aten.addmm.default(b1_1, x_1, t);  b1_1 = x_1 = t = None
    relu = torch.ops.aten.relu.default(addmm);  addmm = None
    t_1 = torch.ops.aten.t.default(w2_1);  w2_1 = None
    addmm_1 = torch.ops.aten.addmm.default(b2_1, relu, t_1);  b2_1 = relu = t_1 = None
    sum_1 = torch.ops.aten.sum.dim_IntList(addmm_1, [-1]);  addmm_1 = None
    return sum_1
    