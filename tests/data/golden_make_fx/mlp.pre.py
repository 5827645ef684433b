


def forward(self, x_1, w1_1, b1_1, w2_1, b2_1):
    linear = torch.ops.aten.linear.default(x_1, w1_1, b1_1);  x_1 = w1_1 = b1_1 = None
    relu = torch.ops.aten.relu.default(linear);  linear = None
    linear_1 = torch.ops.aten.linear.default(relu, w2_1, b2_1);  relu = w2_1 = b2_1 = None
    sum_1 = torch.ops.aten.sum.dim_IntList(linear_1, [-1]);  linear_1 = None
    return sum_1
    