


def forward(self, x_1, w_1, b_1):
    t = torch.ops.aten.t.default(w_1);  w_1 = None
    addmm = torch.ops.aten.addmm.default(b_1, x_1, t);  b_1 = x_1 = t = None
    _softmax = torch.ops.aten._softmax.default(addmm, -1, False);  addmm = None
    native_layer_norm = torch.ops.aten.native_layer_norm.default(_softmax, [4], None, None, 1e-05);  _softmax = None
    getitem = native_layer_norm[0]
    getitem_1 = native_layer_norm[1];  getitem_1 = None
    getitem_2 = native_layer_norm[2];  native_layer_norm = getitem_2 = None
    return getitem
    