"""The aten operator listing: every operator the library defines, with PyTorch 2.13's schema and kind.

Corresponds to aten/src/ATen/native/native_functions.yaml. Each entry gives the
schema (exactly as torch 2.13 prints it), the op's *kind*, which decides where
its kernels are registered and therefore what graphs look like, and its tags:

* ``BACKEND``: real kernels on CPU (NumPy) and Meta (shapes only), e.g. ``mm``,
  ``add.Tensor``, ``_softmax``. Modes and post-dispatch tracing see these.
* ``CEA``: one CompositeExplicitAutograd kernel for every backend, written
  with other ops (``t``, ``unsqueeze``, ``ones``, ``embedding``, ...). Also seen
  by modes (they sit above the backend keys); the ops inside run below the mode.
* ``CIA``: CompositeImplicitAutograd, a decomposition that runs *above*
  autograd (``linear``, ``matmul``, ``softmax.int``, ``layer_norm``, ...), so
  autograd, modes and post-dispatch tracing see only the ops it calls.

``factory=True`` ops have no tensor arguments to dispatch on: a BackendSelect
kernel picks the backend from ``device=`` (SEMANTICS §1.8).

The kind of every op is the one PyTorch 2.13 registers (read off its dispatch
tables), so our graphs decompose where PyTorch's do. Kernels live in the
modules next to this file and are attached by ``registration.py``.
"""

from __future__ import annotations

from typing import NamedTuple

BACKEND = "backend"
CEA = "cea"
CIA = "cia"


class OpDef(NamedTuple):
    schema: str  #: the schema without the ``aten::`` namespace
    kind: str  #: BACKEND, CEA or CIA
    factory: bool = False  #: dispatched through BackendSelect (no tensor arguments)
    tags: tuple[str, ...] = ()  #: PyTorch's tags (core, pointwise, inplace, reduction, ...)

    @property
    def name(self) -> str:
        """``add.Tensor`` / ``relu`` (name and overload, as kernels are registered under)."""
        return self.schema.split("(", 1)[0]


NATIVE_FUNCTIONS: tuple[OpDef, ...] = (
    # --- backend ---
    OpDef("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", BACKEND, tags=('inplace', 'pointwise')),
    OpDef("sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", BACKEND, tags=('inplace', 'pointwise')),
    OpDef("mul.Tensor(Tensor self, Tensor other) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", BACKEND, tags=('inplace', 'pointwise')),
    OpDef("div.Tensor(Tensor self, Tensor other) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", BACKEND, tags=('inplace', 'pointwise')),
    OpDef("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("neg(Tensor self) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("exp(Tensor self) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("log(Tensor self) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("sin(Tensor self) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("cos(Tensor self) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("tanh(Tensor self) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("sigmoid(Tensor self) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("relu(Tensor self) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("relu_(Tensor(a!) self) -> Tensor(a!)", BACKEND, tags=('inplace', 'pointwise')),
    OpDef("sqrt(Tensor self) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("rsqrt(Tensor self) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("pow.Scalar(Scalar self, Tensor exponent) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("maximum(Tensor self, Tensor other) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("minimum(Tensor self, Tensor other) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("clamp_min(Tensor self, Scalar min) -> Tensor", BACKEND, tags=('pointwise',)),
    OpDef("clamp_max(Tensor self, Scalar max) -> Tensor", BACKEND, tags=('pointwise',)),
    OpDef("eq.Tensor(Tensor self, Tensor other) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("eq.Scalar(Tensor self, Scalar other) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("ne.Tensor(Tensor self, Tensor other) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("ne.Scalar(Tensor self, Scalar other) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("lt.Tensor(Tensor self, Tensor other) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("lt.Scalar(Tensor self, Scalar other) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("le.Tensor(Tensor self, Tensor other) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("le.Scalar(Tensor self, Scalar other) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("gt.Tensor(Tensor self, Tensor other) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("gt.Scalar(Tensor self, Scalar other) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("ge.Tensor(Tensor self, Tensor other) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("ge.Scalar(Tensor self, Scalar other) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef('gelu(Tensor self, *, str approximate="none") -> Tensor', BACKEND, tags=('core', 'pointwise')),
    OpDef("silu(Tensor self) -> Tensor", BACKEND, tags=('pointwise',)),
    OpDef("masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)", BACKEND, tags=('inplace',)),
    OpDef("reciprocal(Tensor self) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("erf(Tensor self) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("bitwise_not(Tensor self) -> Tensor", BACKEND, tags=('core', 'pointwise')),
    OpDef("tanh_backward(Tensor grad_output, Tensor output) -> Tensor", BACKEND, tags=('pointwise',)),
    OpDef("sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor", BACKEND, tags=('pointwise',)),
    OpDef("threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor", BACKEND, tags=('pointwise',)),
    OpDef('gelu_backward(Tensor grad_output, Tensor self, *, str approximate="none") -> Tensor', BACKEND, tags=('pointwise',)),
    OpDef("sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", BACKEND, tags=('core', 'reduction')),
    OpDef("mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", BACKEND, tags=('core', 'reduction')),
    OpDef("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", BACKEND, tags=('core', 'reduction')),
    OpDef("amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", BACKEND, tags=('core', 'reduction')),
    OpDef("max(Tensor self) -> Tensor", BACKEND, tags=('reduction',)),
    OpDef("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", BACKEND, tags=('core', 'reduction')),
    OpDef("min(Tensor self) -> Tensor", BACKEND, tags=('reduction',)),
    OpDef("min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", BACKEND, tags=('core', 'reduction')),
    OpDef("argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", BACKEND, tags=('core', 'reduction')),
    OpDef("argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", BACKEND, tags=('core', 'reduction')),
    OpDef("var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor", BACKEND, tags=('core', 'reduction')),
    OpDef("mm(Tensor self, Tensor mat2) -> Tensor", BACKEND, tags=('core',)),
    OpDef("bmm(Tensor self, Tensor mat2) -> Tensor", BACKEND, tags=('core',)),
    OpDef("addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", BACKEND, tags=('core',)),
    OpDef("dot(Tensor self, Tensor tensor) -> Tensor", BACKEND, tags=()),
    OpDef("baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", BACKEND, tags=()),
    OpDef("view(Tensor(a) self, SymInt[] size) -> Tensor(a)", BACKEND, tags=('core',)),
    OpDef("as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)", BACKEND, tags=('core',)),
    OpDef("cat(Tensor[] tensors, int dim=0) -> Tensor", BACKEND, tags=('core',)),
    OpDef("_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", BACKEND, tags=('core',)),
    OpDef("_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", BACKEND, tags=('core',)),
    OpDef("native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)", BACKEND, tags=('core',)),
    OpDef("native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)", BACKEND, tags=('core', 'nondeterministic_seeded')),
    OpDef("mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor", BACKEND, tags=()),
    OpDef("nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> (Tensor output, Tensor total_weight)", BACKEND, tags=()),
    OpDef("_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor", BACKEND, tags=()),
    OpDef("_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor", BACKEND, tags=()),
    OpDef("native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)", BACKEND, tags=('core',)),
    OpDef("nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index, Tensor total_weight) -> Tensor", BACKEND, tags=()),
    OpDef("mse_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction) -> Tensor", BACKEND, tags=()),
    OpDef("embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, SymInt padding_idx, bool scale_grad_by_freq) -> Tensor", BACKEND, tags=('core',)),
    OpDef("empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor", BACKEND, factory=True, tags=('core',)),
    OpDef("empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", BACKEND, factory=True, tags=('core',)),
    OpDef("_local_scalar_dense(Tensor self) -> Scalar", BACKEND, tags=('core', 'data_dependent_output')),
    OpDef("bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)", BACKEND, tags=('inplace', 'nondeterministic_seeded')),
    OpDef("index_select(Tensor self, int dim, Tensor index) -> Tensor", BACKEND, tags=('core',)),
    OpDef("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", BACKEND, tags=('core', 'dynamic_output_shape')),
    OpDef("nonzero(Tensor self) -> Tensor", BACKEND, tags=('core', 'dynamic_output_shape')),
    OpDef("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", BACKEND, tags=('inplace',)),
    OpDef("zero_(Tensor(a!) self) -> Tensor(a!)", BACKEND, tags=('inplace',)),
    OpDef("fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)", BACKEND, tags=('inplace',)),
    OpDef("_index_put_impl_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False, bool unsafe=False) -> Tensor(a!)", BACKEND, tags=('inplace',)),
    OpDef("nll_loss2d_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> (Tensor output, Tensor total_weight)", BACKEND, tags=()),
    # --- cea ---
    OpDef("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", CEA, tags=('core', 'pointwise')),
    OpDef("rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", CEA, tags=('pointwise',)),
    OpDef("mul.Scalar(Tensor self, Scalar other) -> Tensor", CEA, tags=('core', 'pointwise')),
    OpDef("div.Scalar(Tensor self, Scalar other) -> Tensor", CEA, tags=('core', 'pointwise')),
    OpDef("div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", CEA, tags=('inplace', 'pointwise')),
    OpDef("abs(Tensor self) -> Tensor", CEA, tags=('core', 'pointwise')),
    OpDef("masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor", CEA, tags=('pointwise',)),
    OpDef("masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor", CEA, tags=()),
    OpDef("logical_not(Tensor self) -> Tensor", CEA, tags=('core', 'pointwise')),
    OpDef("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", CEA, tags=('reduction',)),
    OpDef("mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", CEA, tags=('core', 'reduction')),
    OpDef("mv(Tensor self, Tensor vec) -> Tensor", CEA, tags=()),
    OpDef("t(Tensor(a) self) -> Tensor(a)", CEA, tags=()),
    OpDef("_unsafe_view(Tensor self, SymInt[] size) -> Tensor", CEA, tags=()),
    OpDef("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", CEA, tags=('core',)),
    OpDef("squeeze(Tensor(a) self) -> Tensor(a)", CEA, tags=()),
    OpDef("squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)", CEA, tags=('core',)),
    OpDef("squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)", CEA, tags=('core',)),
    OpDef("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", CEA, tags=()),
    OpDef("permute(Tensor(a) self, int[] dims) -> Tensor(a)", CEA, tags=('core',)),
    OpDef("expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)", CEA, tags=('core',)),
    OpDef("select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)", CEA, tags=('core',)),
    OpDef("slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)", CEA, tags=('core',)),
    OpDef("alias(Tensor(a) self) -> Tensor(a)", CEA, tags=('core',)),
    OpDef("detach(Tensor(a) self) -> Tensor(a)", CEA, tags=()),
    OpDef("unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]", CEA, tags=()),
    OpDef("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]", CEA, tags=()),
    OpDef("clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", CEA, tags=('core', 'pointwise')),
    OpDef("_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor", CEA, factory=True, tags=('core',)),
    OpDef("stack(Tensor[] tensors, int dim=0) -> Tensor", CEA, tags=()),
    OpDef("embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor", CEA, tags=('core',)),
    OpDef("zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", CEA, factory=True, tags=()),
    OpDef("ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", CEA, factory=True, tags=()),
    OpDef("full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", CEA, factory=True, tags=('core',)),
    OpDef("arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", CEA, factory=True, tags=()),
    OpDef("arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", CEA, factory=True, tags=()),
    OpDef("arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", CEA, factory=True, tags=('core',)),
    OpDef("scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", CEA, factory=True, tags=('core',)),
    OpDef("randn(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", CEA, factory=True, tags=('core', 'nondeterministic_seeded')),
    OpDef("rand(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", CEA, factory=True, tags=('core', 'nondeterministic_seeded')),
    OpDef("eye(SymInt n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", CEA, factory=True, tags=()),
    OpDef("eye.m(SymInt n, SymInt m, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", CEA, factory=True, tags=()),
    OpDef("empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor", CEA, tags=()),
    OpDef("zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor", CEA, tags=()),
    OpDef("ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor", CEA, tags=()),
    OpDef("full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor", CEA, tags=('core',)),
    OpDef("rand_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor", CEA, tags=('nondeterministic_seeded',)),
    OpDef("randn_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor", CEA, tags=('nondeterministic_seeded',)),
    OpDef("new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", CEA, tags=()),
    OpDef("new_ones(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", CEA, tags=()),
    OpDef("new_empty(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", CEA, tags=()),
    OpDef("new_full(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", CEA, tags=()),
    OpDef("lift_fresh(Tensor(a) self) -> Tensor(a)", CEA, tags=()),
    OpDef("lift_fresh_copy(Tensor self) -> Tensor", CEA, tags=('view_copy',)),
    OpDef("copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)", CEA, tags=('inplace',)),
    OpDef("index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)", CEA, tags=('inplace',)),
    OpDef("split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]", CEA, tags=('core',)),
    OpDef("squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!)", CEA, tags=('inplace', 'inplace_view')),
    # --- cia ---
    OpDef("where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor", CIA, tags=()),
    OpDef("where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor", CIA, tags=()),
    OpDef("where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor", CIA, tags=()),
    OpDef("matmul(Tensor self, Tensor other) -> Tensor", CIA, tags=()),
    OpDef("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", CIA, tags=()),
    OpDef("reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", CIA, tags=()),
    OpDef("flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)", CIA, tags=()),
    OpDef("chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]", CIA, tags=()),
    OpDef("contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)", CIA, tags=()),
    OpDef("to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)", CIA, tags=()),
    OpDef("to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)", CIA, tags=()),
    OpDef("to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)", CIA, factory=True, tags=()),
    OpDef("expand_as(Tensor(a) self, Tensor other) -> Tensor(a)", CIA, tags=()),
    OpDef("view_as(Tensor(a) self, Tensor other) -> Tensor(a)", CIA, tags=()),
    OpDef("softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", CIA, tags=()),
    OpDef("log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", CIA, tags=()),
    OpDef("layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1.0000000000000001e-05, bool cudnn_enable=True) -> Tensor", CIA, tags=()),
    OpDef("dropout(Tensor input, float p, bool train) -> Tensor", CIA, tags=('maybe_aliasing_or_mutating', 'nondeterministic_seeded')),
    OpDef("cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100, float label_smoothing=0.) -> Tensor", CIA, tags=()),
    OpDef("nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100) -> Tensor", CIA, tags=()),
    OpDef("nll_loss_nd(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100) -> Tensor", CIA, tags=()),
    OpDef("embedding_backward(Tensor grad, Tensor indices, SymInt num_weights, SymInt padding_idx, bool scale_grad_by_freq, bool sparse) -> Tensor", CIA, tags=()),
    OpDef("is_nonzero(Tensor self) -> bool", CIA, tags=()),
    OpDef("sum_to_size(Tensor self, SymInt[] size) -> Tensor", CIA, tags=()),
    OpDef("to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)", CIA, tags=()),
)
