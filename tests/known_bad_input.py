"""The bad-input sweep's known differences from torch 2.13 (tests/test_bad_input_sweep.py): (op, case) ->
(category, reason). Each is a case where torch is the odd one out, or one not fixed yet, said so."""

from __future__ import annotations

KNOWN: dict[tuple[str, str], tuple[str, str]] = {
    ('__ilshift__.Scalar', 'self:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('__irshift__.Scalar', 'self:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('__lshift__.Scalar', 'self:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('__rshift__.Scalar', 'self:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('_log_softmax_backward_data', 'grad_output:rank+'): ('reject',
        "torch's _log_softmax_backward_data CPU kernel does not check grad against output (reads past the end); ours makes _softmax_backward_data's check"),
    ('_log_softmax_backward_data', 'grad_output:rank-'): ('wrong_class',
        "torch wraps dim against grad's rank before comparing the sizes (IndexError); ours compares the sizes first (torch's message for a size mismatch)"),
    ('_log_softmax_backward_data', 'grad_output:zero-size'): ('reject',
        "torch's _log_softmax_backward_data CPU kernel does not check grad against output (reads past the end); ours makes _softmax_backward_data's check"),
    ('_log_softmax_backward_data', 'output:rank-'): ('reject',
        "torch's _log_softmax_backward_data CPU kernel does not check grad against output (reads past the end); ours makes _softmax_backward_data's check"),
    ('_log_softmax_backward_data', 'output:shape'): ('reject',
        "torch's _log_softmax_backward_data CPU kernel does not check grad against output (reads past the end); ours makes _softmax_backward_data's check"),
    ('_log_softmax_backward_data', 'output:zero-size'): ('reject',
        "torch's _log_softmax_backward_data CPU kernel does not check grad against output (reads past the end); ours makes _softmax_backward_data's check"),
    ('_scaled_dot_product_attention_math', 'query:dtype'): ('value',
        "an integer query: torch's math path keeps the integer dtype (truncating scores and weights); ours promotes to the key's float dtype (not reproduced)"),
    ('_scaled_dot_product_flash_attention_for_cpu', 'key:nan'): ('value',
        "NaN query / key: torch's flash-attention CPU kernel (its online softmax) gives 0 for rows of NaN scores; ours NaN, as softmax of NaN scores gives"),
    ('_scaled_dot_product_flash_attention_for_cpu', 'query:nan'): ('value',
        "NaN query / key: torch's flash-attention CPU kernel (its online softmax) gives 0 for rows of NaN scores; ours NaN, as softmax of NaN scores gives"),
    ('_scaled_dot_product_flash_attention_for_cpu', 'query:zero-size'): ('reject',
        "torch's flash-attention CPU kernel does not compare the batch sizes (it loops over query's, reading past key's and value's when they are smaller); ours refuses"),
    ('_scaled_dot_product_flash_attention_for_cpu_backward', 'grad_out:shape'): ('reject',
        "torch's native kernel does not check the per-channel parameter's size / the gradient's shape: it reads as many values as it expects (past the end of a shorter tensor, undefined values); ours refuses"),
    ('_scaled_dot_product_flash_attention_for_cpu_backward', 'key:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('_scaled_dot_product_flash_attention_for_cpu_backward', 'logsumexp:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('_scaled_dot_product_flash_attention_for_cpu_backward', 'logsumexp:rank+'): ('value',
        "a logsumexp of another shape than the forward's: ours recomputes it from the scores (core-aten graphs pass the attention weights there), torch broadcasts the given tensor"),
    ('_scaled_dot_product_flash_attention_for_cpu_backward', 'out:non-contiguous'): ('value',
        "torch's CPU kernel reads this argument's data as if contiguous (a transposed argument gives wrong values in torch); ours respects the strides"),
    ('_scaled_dot_product_flash_attention_for_cpu_backward', 'out:shape'): ('reject',
        "torch's flash-attention backward kernel does not check out's shape and reads past it; ours refuses"),
    ('_scaled_dot_product_flash_attention_for_cpu_backward', 'query:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('_scaled_dot_product_flash_attention_for_cpu_backward', 'value:non-contiguous'): ('value',
        "torch's CPU kernel reads this argument's data as if contiguous (a transposed argument gives wrong values in torch); ours respects the strides"),
    ('addbmm', 'batch2:rank-'): ('wrong_class',
        "torch reads batch2.size(2) before its rank check (IndexError); ours makes the rank check first (torch's message)"),
    ('binary_cross_entropy', 'self:rank-'): ('value',
        "a target of more dims: torch writes the loss into an output of self's shape that it resizes (deprecated, with a warning) before reducing; ours reduces the broadcast loss"),
    ('binary_cross_entropy', 'target:rank+'): ('value',
        "a target of more dims: torch writes the loss into an output of self's shape that it resizes (deprecated, with a warning) before reducing; ours reduces the broadcast loss"),
    ('binary_cross_entropy_backward', 'self:rank-'): ('reject',
        "a target of more dims: torch resizes its empty_like(self) gradient to the broadcast shape (deprecated, with a warning) and returns the self-shaped part; ours refuses with TensorIterator's message"),
    ('binary_cross_entropy_backward', 'target:rank+'): ('reject',
        "a target of more dims: torch resizes its empty_like(self) gradient to the broadcast shape (deprecated, with a warning) and returns the self-shaped part; ours refuses with TensorIterator's message"),
    ('contiguous', 'self:None'): ('reject',
        "torch's CompositeImplicitAutograd kernel passes the undefined tensor through (an undefined result); ours refuses None for a Tensor argument at binding"),
    ('convolution_backward', 'grad_output:dtype'): ('silent',
        "torch's oneDNN (mkldnn) path refuses what its native kernel computes; ours computes as the native kernel (torch is the odd one out)"),
    ('convolution_backward', 'weight:dtype'): ('silent',
        "torch's oneDNN (mkldnn) path refuses what its native kernel computes; ours computes as the native kernel (torch is the odd one out)"),
    ('cross_entropy_loss', 'target:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('cumprod_backward', 'input:None'): ('reject',
        "torch's CompositeImplicitAutograd kernel passes the undefined tensor through (an undefined result); ours refuses None for a Tensor argument at binding"),
    ('dropout', 'input:None'): ('reject',
        "torch's CompositeImplicitAutograd kernel passes the undefined tensor through (an undefined result); ours refuses None for a Tensor argument at binding"),
    ('empty_strided', 'stride:negative'): ('silent',
        "negative strides: torch's storage-size check is not reproduced yet (ours makes a tensor that views nothing)"),
    ('flatten.using_ints', 'self:None'): ('reject',
        "torch's CompositeImplicitAutograd kernel passes the undefined tensor through (an undefined result); ours refuses None for a Tensor argument at binding"),
    ('gelu', 'self:inf'): ('value',
        "gelu(inf): torch's vectorised formula gives nan; ours the limit inf"),
    ('gelu_backward', 'grad_output:dtype'): ('silent',
        "torch's oneDNN (mkldnn) path refuses what its native kernel computes; ours computes as the native kernel (torch is the odd one out)"),
    ('gelu_backward', 'grad_output:rank+'): ('silent',
        "torch's oneDNN (mkldnn) path refuses what its native kernel computes; ours computes as the native kernel (torch is the odd one out)"),
    ('gelu_backward', 'grad_output:rank-'): ('silent',
        "torch's oneDNN (mkldnn) path refuses what its native kernel computes; ours computes as the native kernel (torch is the odd one out)"),
    ('gelu_backward', 'self:rank+'): ('silent',
        "torch's oneDNN (mkldnn) path refuses what its native kernel computes; ours computes as the native kernel (torch is the odd one out)"),
    ('gelu_backward', 'self:rank-'): ('silent',
        "torch's oneDNN (mkldnn) path refuses what its native kernel computes; ours computes as the native kernel (torch is the odd one out)"),
    ('group_norm', 'input:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('group_norm', 'weight:inf'): ('value',
        "an infinite parameter: torch's fused normalisation (x * (rstd * w) + (b - mean * rstd * w)) gives nan where ours gives +-inf"),
    ('index_fill.int_Scalar', 'index:meta'): ('silent',
        "torch's index_fill reports index_copy's device message from its Meta path; not reproduced (ours computes on meta)"),
    ('index_fill.int_Scalar', 'self:meta'): ('silent',
        "torch's index_fill reports index_copy's device message from its Meta path; not reproduced (ours computes on meta)"),
    ('index_fill.int_Tensor', 'index:meta'): ('silent',
        "torch's index_fill reports index_copy's device message from its Meta path; not reproduced (ours computes on meta)"),
    ('index_fill.int_Tensor', 'self:zero-size'): ('wrong_class',
        "an empty self: torch fails inside setStorage (an internal RuntimeError); ours reports the index out of bounds (IndexError, index_fill's own error)"),
    ('index_fill_.int_Scalar', 'index:meta'): ('silent',
        "torch's index_fill reports index_copy's device message from its Meta path; not reproduced (ours computes on meta)"),
    ('index_fill_.int_Scalar', 'self:meta'): ('silent',
        "torch's index_fill reports index_copy's device message from its Meta path; not reproduced (ours computes on meta)"),
    ('index_fill_.int_Scalar', 'self:zero-size'): ('wrong_class',
        "an empty self: torch fails inside setStorage (an internal RuntimeError); ours reports the index out of bounds (IndexError, index_fill's own error)"),
    ('index_fill_.int_Tensor', 'index:meta'): ('silent',
        "torch's index_fill reports index_copy's device message from its Meta path; not reproduced (ours computes on meta)"),
    ('index_fill_.int_Tensor', 'self:meta'): ('silent',
        "torch's index_fill reports index_copy's device message from its Meta path; not reproduced (ours computes on meta)"),
    ('index_fill_.int_Tensor', 'self:zero-size'): ('wrong_class',
        "an empty self: torch fails inside setStorage (an internal RuntimeError); ours reports the index out of bounds (IndexError, index_fill's own error)"),
    ('instance_norm', 'input:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('instance_norm', 'input:rank-'): ('value',
        "one element per instance: torch's result is rounding noise (~1e-5) around ours, the exact 0"),
    ('isfinite', 'self:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('maximum.out', 'out:rank+'): ('reject',
        'resizing an out= tensor of another shape is not implemented here (documented NotImplementedError)'),
    ('maximum.out', 'out:shape'): ('reject',
        'resizing an out= tensor of another shape is not implemented here (documented NotImplementedError)'),
    ('moveaxis.int', 'self:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('moveaxis.intlist', 'self:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('movedim.int', 'self:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('movedim.intlist', 'self:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('narrow', 'self:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('native_batch_norm', 'bias:rank-'): ('reject',
        "torch's native kernel does not check the per-channel parameter's size / the gradient's shape: it reads as many values as it expects (past the end of a shorter tensor, undefined values); ours refuses"),
    ('native_batch_norm', 'bias:zero-size'): ('reject',
        "torch's native kernel does not check the per-channel parameter's size / the gradient's shape: it reads as many values as it expects (past the end of a shorter tensor, undefined values); ours refuses"),
    ('native_batch_norm', 'input:rank+'): ('reject',
        "torch's native kernel does not check the per-channel parameter's size / the gradient's shape: it reads as many values as it expects (past the end of a shorter tensor, undefined values); ours refuses"),
    ('native_batch_norm', 'running_var:shape'): ('reject',
        "torch's native kernel does not check the per-channel parameter's size / the gradient's shape: it reads as many values as it expects (past the end of a shorter tensor, undefined values); ours refuses"),
    ('native_batch_norm', 'weight:inf'): ('value',
        "an infinite parameter: torch's fused normalisation (x * (rstd * w) + (b - mean * rstd * w)) gives nan where ours gives +-inf"),
    ('native_batch_norm', 'weight:shape'): ('reject',
        "torch's native kernel does not check the per-channel parameter's size / the gradient's shape: it reads as many values as it expects (past the end of a shorter tensor, undefined values); ours refuses"),
    ('native_batch_norm_backward', 'grad_out:shape'): ('reject',
        "torch's native kernel does not check the per-channel parameter's size / the gradient's shape: it reads as many values as it expects (past the end of a shorter tensor, undefined values); ours refuses"),
    ('native_batch_norm_backward', 'input:shape'): ('reject',
        "torch's native kernel does not check the per-channel parameter's size / the gradient's shape: it reads as many values as it expects (past the end of a shorter tensor, undefined values); ours refuses"),
    ('native_batch_norm_backward', 'save_mean:shape'): ('reject',
        "torch's native kernel does not check the per-channel parameter's size / the gradient's shape: it reads as many values as it expects (past the end of a shorter tensor, undefined values); ours refuses"),
    ('native_batch_norm_backward', 'weight:shape'): ('reject',
        "torch's native kernel does not check the per-channel parameter's size / the gradient's shape: it reads as many values as it expects (past the end of a shorter tensor, undefined values); ours refuses"),
    ('native_group_norm', 'weight:inf'): ('value',
        "an infinite parameter: torch's fused normalisation (x * (rstd * w) + (b - mean * rstd * w)) gives nan where ours gives +-inf"),
    ('native_group_norm_backward', 'grad_out:non-contiguous'): ('value',
        "torch's CPU kernel reads this argument's data as if contiguous (a transposed argument gives wrong values in torch); ours respects the strides"),
    ('native_group_norm_backward', 'mean:inf'): ('value',
        "an infinite parameter: torch's fused normalisation (x * (rstd * w) + (b - mean * rstd * w)) gives nan where ours gives +-inf"),
    ('native_group_norm_backward', 'rstd:non-contiguous'): ('value',
        "torch's CPU kernel reads this argument's data as if contiguous (a transposed argument gives wrong values in torch); ours respects the strides"),
    ('new_empty_strided', 'stride:negative'): ('silent',
        "negative strides: torch's storage-size check is not reproduced yet (ours makes a tensor that views nothing)"),
    ('nll_loss_nd', 'target:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('positive', 'self:None'): ('reject',
        "torch's CompositeImplicitAutograd kernel passes the undefined tensor through (an undefined result); ours refuses None for a Tensor argument at binding"),
    ('remainder.Scalar_Tensor', 'other:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('scaled_dot_product_attention', 'key:nan'): ('value',
        "NaN query / key: torch's flash-attention CPU kernel (its online softmax) gives 0 for rows of NaN scores; ours NaN, as softmax of NaN scores gives"),
    ('scaled_dot_product_attention', 'query:nan'): ('value',
        "NaN query / key: torch's flash-attention CPU kernel (its online softmax) gives 0 for rows of NaN scores; ours NaN, as softmax of NaN scores gives"),
    ('scaled_dot_product_attention', 'value:zero-size'): ('reject',
        "a value with batch 0 beside a query and key of batch 2: torch's CPU flash kernel takes the output's shape from "
        "the query and never checks value's batch (it returns zeros); ours refuses the batches that do not "
        "broadcast, as the math definition does"),
    ('std_mean', 'self:inf'): ('value',
        "all-inf input: torch's Welford mean gives nan (inf - inf); ours the exact mean inf"),
    ('std_mean.correction', 'self:inf'): ('value',
        "all-inf input: torch's Welford mean gives nan (inf - inf); ours the exact mean inf"),
    ('std_mean.dim', 'self:inf'): ('value',
        "all-inf input: torch's Welford mean gives nan (inf - inf); ours the exact mean inf"),
    ('topk', 'self:dtype'): ('value',
        "ties (equal values): torch's partial sort returns other indices among equal values; the order is unspecified"),
    ('topk', 'self:inf'): ('value',
        "ties (equal values): torch's partial sort returns other indices among equal values; the order is unspecified"),
    ('topk', 'self:nan'): ('value',
        "ties (equal values): torch's partial sort returns other indices among equal values; the order is unspecified"),
    ('unflatten.int', 'self:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does"),
    ('var_mean', 'self:inf'): ('value',
        "all-inf input: torch's Welford mean gives nan (inf - inf); ours the exact mean inf"),
    ('var_mean.correction', 'self:inf'): ('value',
        "all-inf input: torch's Welford mean gives nan (inf - inf); ours the exact mean inf"),
    ('var_mean.dim', 'self:inf'): ('value',
        "all-inf input: torch's Welford mean gives nan (inf - inf); ours the exact mean inf"),
}

# sweep-fix group sw2 (foreach, weight_norm, bernoulli_.Tensor, div.out, tensor_info metadata ops)
_UNDEFINED_METADATA = (
    "torch's CompositeImplicitAutograd kernel reads the undefined tensor's placeholder TensorImpl (sizes [0]: dim 1, "
    "numel 0, contiguous, storage offset 0) and answers with that meaningless metadata; ours refuses None for a "
    "Tensor argument at binding")
_WN_PAST_END = (
    "torch's fused weight-norm CPU kernel does not check g's / grad_w's size: it reads one value per slice of v "
    "through data_ptr, past the end of a smaller tensor (undefined values); ours refuses")
KNOWN.update({
    ('dim', 'self:None'): ('reject', _UNDEFINED_METADATA),
    ('numel', 'self:None'): ('reject', _UNDEFINED_METADATA),
    ('is_contiguous', 'self:None'): ('reject', _UNDEFINED_METADATA),
    ('is_contiguous.memory_format', 'self:None'): ('reject', _UNDEFINED_METADATA),
    ('sym_is_contiguous', 'self:None'): ('reject', _UNDEFINED_METADATA),
    ('sym_numel', 'self:None'): ('reject', _UNDEFINED_METADATA),
    ('sym_storage_offset', 'self:None'): ('reject', _UNDEFINED_METADATA),
    ('div.out', 'out:rank+'): ('reject',
        "resizing an out= tensor of another shape (torch's resize_output, with its deprecation warning) is not "
        "implemented here: dispatchkit has no in-place resize (documented NotImplementedError, as maximum.out)"),
    ('div.out', 'out:shape'): ('reject',
        "resizing an out= tensor of another shape (torch's resize_output, with its deprecation warning) is not "
        "implemented here: dispatchkit has no in-place resize (documented NotImplementedError, as maximum.out)"),
    ('_weight_norm', 'g:rank-'): ('reject', _WN_PAST_END),
    ('_weight_norm_interface', 'g:rank-'): ('reject', _WN_PAST_END),
    ('_weight_norm_interface_backward', 'saved_g:rank-'): ('reject', _WN_PAST_END),
    ('_weight_norm_interface_backward', 'saved_v:shape'): ('reject', _WN_PAST_END),
    ('_weight_norm_interface', 'v:non-contiguous'): ('value',
        "torch's fused CPU kernel reads v through data_ptr as if it were contiguous (a transposed v's memory order "
        "mixes up the slices); ours normalizes v's logical slices"),
    ('sym_size.int', 'self:None'): ('wrong_class', _UNDEFINED_METADATA + " (so torch's size(1) is out of its one "
                                    "dimension: IndexError)"),
})

# sweep-fix group sw3 (embedding_bag ops, _trilinear, dropout composites, conv3d, _pad_enum, pad backward ops)
_PAD_BATCH = ("torch's reflection backward kernel checks only the padded dims of grad_output and reads past a "
              "gradient of a smaller batch (returns garbage); ours checks grad_output's whole size")
_UNDEFINED_THROUGH = ("torch's CompositeImplicitAutograd kernel passes the undefined tensor through (an undefined "
                      "result); ours refuses None for a Tensor argument at binding")
KNOWN.update({
    ('reflection_pad1d_backward', 'grad_output:zero-size'): ('reject', _PAD_BATCH),
    ('reflection_pad3d_backward', 'grad_output:zero-size'): ('reject', _PAD_BATCH),
    ('alpha_dropout', 'input:None'): ('reject', _UNDEFINED_THROUGH),
    ('feature_alpha_dropout', 'input:None'): ('reject', _UNDEFINED_THROUGH),
    ('feature_dropout', 'input:None'): ('reject', _UNDEFINED_THROUGH),
    ('_pad_enum', 'self:None'): ('wrong_class',
        "torch's CompositeImplicitAutograd kernel takes the undefined tensor on (its dim() reads 1) and fails later "
        "with NotImplementedError; ours refuses None for a Tensor argument at binding, as every aten kernel's "
        "unboxing does"),
    ('conv3d', 'weight:inf'): ('value',
        "all-inf weight: torch's CPU conv3d kernel leaves the zero padding out of its sums, so a border window of "
        "same-sign inputs gives inf; ours multiplies the zero-padded input (inf * 0 = nan there), as the "
        "convolution's definition does"),
})
# fix group ga (recurrent family: mkldnn_rnn_layer, rnn cells / .data overloads, unsafe_chunk)
_ONEDNN_UNCHECKED = ("torch hands the weights / states to oneDNN's LSTM primitive without checking their sizes "
                     "(it reads past a smaller one and returns); ours checks each against [4 * hidden_size, "
                     "input_size] / [4 * hidden_size, hidden_size] / [batch, hidden_size] and refuses")
_WORKSPACE = ("train=True: torch's fourth output is oneDNN's opaque workspace (28672 scratch bytes here, a size "
              "oneDNN picks); ours returns an empty one (its mkldnn_rnn_layer_backward recomputes the gates)")
_META_PARAM = ("torch's CPU recurrent kernel takes a meta parameter among CPU tensors without a device check and "
               "returns a CPU result (measured against torch 2.13); ours refuses the cpu/meta mix, as the matmul / "
               "addmm it decomposes into do")
_UNDEFINED_DIM = ("torch's CompositeImplicitAutograd kernel takes the undefined tensor on (its size(1) fails with "
                  "IndexError); ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing "
                  "does")
KNOWN.update({
    ('lstm.input', 'input:shape'): ('reject', _ONEDNN_UNCHECKED),
    ('lstm.input', 'params:elem-rank+'): ('reject', _ONEDNN_UNCHECKED),
    ('mkldnn_rnn_layer', 'weight0:shape'): ('reject', _ONEDNN_UNCHECKED),
    ('mkldnn_rnn_layer', 'weight1:rank-'): ('reject', _ONEDNN_UNCHECKED),
    ('mkldnn_rnn_layer', 'cx_:rank+'): ('reject', _ONEDNN_UNCHECKED),
    ('mkldnn_rnn_layer', 'weight0:inf'): ('value', _WORKSPACE),
    ('mkldnn_rnn_layer', 'weight2:dtype'): ('value', _WORKSPACE),
    ('mkldnn_rnn_layer', 'hx_:inf'): ('value', _WORKSPACE),
    ('mkldnn_rnn_layer', 'cx_:nan'): ('value', _WORKSPACE),
    ('mkldnn_rnn_layer', 'reverse:int'): ('value', _WORKSPACE),
    ('mkldnn_rnn_layer', 'bidirectional:int'): ('value', _WORKSPACE),
    ('gru.data', 'params:elem-meta'): ('reject', _META_PARAM),
    ('lstm.data', 'params:elem-meta'): ('reject', _META_PARAM),
    ('rnn_relu.data', 'params:elem-meta'): ('reject', _META_PARAM),
    ('rnn_tanh.data', 'params:elem-meta'): ('reject', _META_PARAM),
    ('gru_cell', 'w_hh:meta'): ('reject', _META_PARAM),
    ('gru_cell', 'w_ih:None'): ('wrong_class', _UNDEFINED_DIM),
    ('lstm_cell', 'input:None'): ('wrong_class', _UNDEFINED_DIM),
    ('unsafe_chunk', 'self:None'): ('wrong_class', _UNDEFINED_DIM),

})

# last-mile gb: native_layer_norm_backward after its kernel's fix (mean / rstd read as torch's CPU kernel reads them)
_LN_BWD_SIZES = ("torch's CPU kernel does not check grad_out's size against input's (it reads grad_out's first "
                 "M*N values through its data pointer); ours refuses a grad_out of another size")
KNOWN.update({
    ('native_layer_norm_backward', 'grad_out:shape'): ('reject', _LN_BWD_SIZES),
    ('native_layer_norm_backward', 'input:rank-'): ('reject', _LN_BWD_SIZES),
    ('native_layer_norm_backward', 'rstd:rank-'): ('reject',
        "rstd holding fewer than M values: torch's CPU kernel reads M values from its data pointer, past the end of "
        "its storage (results that change from call to call); ours refuses it"),
    ('native_layer_norm_backward', 'input:inf'): ('value',
        "an all-inf input: torch's vectorized CPU kernel (its own summation order and fused formula) places its "
        "nan / inf results otherwise than ours; both are the non-finite results of a non-finite input"),
    ('native_layer_norm_backward', 'rstd:inf'): ('value',
        "an all-inf rstd: torch's vectorized CPU kernel (its own summation order and fused formula) places its "
        "nan / inf results otherwise than ours; both are the non-finite results of a non-finite rstd"),
})

# wt-storage: the set_ family
KNOWN.update({
    ('set_.source_Tensor_storage_offset', 'source:None'): ('wrong_class',
        "None for the source tensor: torch's CompositeImplicitAutograd kernel fails reading its storage "
        "(NotImplementedError); our binding refuses the undefined tensor before any kernel (UndefinedTensorError, "
        "a RuntimeError)"),
})

# wt-conj (conj views): CompositeImplicitAutograd ops whose torch kernel reads only the undefined tensor's flags
_UNDEFINED_PASSES = ("torch's CompositeImplicitAutograd kernel of this op only asks the undefined tensor for a flag "
                     "(is_complex / is_conj / is_neg) and returns it, or False, without checking it; ours, like "
                     "every Python binding here, refuses None for a Tensor argument")
KNOWN.update({
    ('conj', 'self:None'): ('reject', _UNDEFINED_PASSES),
    ('conj_physical', 'self:None'): ('reject', _UNDEFINED_PASSES),
    ('is_conj', 'self:None'): ('reject', _UNDEFINED_PASSES),
    ('is_neg', 'self:None'): ('reject', _UNDEFINED_PASSES),
    ('real', 'self:None'): ('reject', _UNDEFINED_PASSES),
    ('resolve_conj', 'self:None'): ('reject', _UNDEFINED_PASSES),
    ('resolve_neg', 'self:None'): ('reject', _UNDEFINED_PASSES),
})

# wt-dtypes: ATen's test op _foobar
KNOWN.update({
    ('_foobar', 'self:None'): ('wrong_class',
        "torch reaches its dispatcher with no tensor argument (NotImplementedError \"There were no tensor arguments "
        "to this function\"), where for most CPU-kernel ops (nonzero, equal) it fails unboxing None instead; ours "
        "refuses None for any aten Tensor argument when binding (RuntimeError \"Expected a proper Tensor but got "
        "None\"): both refuse the call"),
})

# wt-zero (zero tensors): _is_zerotensor's CompositeImplicitAutograd kernel only reads the undefined tensor's key set
KNOWN.update({
    ('_is_zerotensor', 'self:None'): ('reject', "torch's CompositeImplicitAutograd kernel only asks the undefined "
                                                "tensor for its ZeroTensor key and returns False; ours, like every "
                                                "Python binding here, refuses None for a Tensor argument"),
})

# wt-stream: record_stream's Stream argument. torch's toIValue (jit/python/pybind_utils.cpp, StreamObjType case) has
# no type check: it reinterprets any Python object's memory as a THPStream (undefined behaviour; for None and a
# small int the bytes it reads happen to make a valid CPU-build stream, so the call goes on to the CPU backend's
# "Could not run" NotImplementedError). Ours checks the type and refuses with torch's usual words for a mismatched
# argument ("Expected a value of type 'Stream' for argument 's'", a RuntimeError).
_STREAM_UNCHECKED = ("torch reads any object as a THPStream (no type check in toIValue's Stream case: undefined "
                     "behaviour, here reaching the CPU 'Could not run' NotImplementedError); ours refuses a non-Stream "
                     "with torch's 'Expected a value of type 'Stream'' RuntimeError")
KNOWN.update({
    ('record_stream', 's:None'): ('wrong_class', _STREAM_UNCHECKED),
    ('record_stream', 's:int'): ('wrong_class', _STREAM_UNCHECKED),
})

# wt-fft: the FFT family. torch's _fft_* CPU kernels (MKL) index their dims unchecked (undefined behaviour: out-of-range
# dims are read past the end, giving an internal assert, a garbage-length permute error, or a result); ours wrap them
# and refuse with IndexError. Inputs holding inf: MKL's real-input transforms keep exact zeros where pocketfft (NumPy,
# through complex arithmetic) gets inf * 0 = nan; the finite values agree.
_FFT_UNCHECKED_DIMS = ("torch's MKL FFT kernels do not wrap or check dims (out-of-bounds reads: an internal assert, an "
                       "error naming a garbage length, or a result); ours refuse with IndexError (Dimension out of range)")
_FFT_INF = ("an inf input: torch's MKL real-input FFT keeps exact zeros (inf+0j); NumPy's pocketfft computes "
            "inf * 0 = nan in those places (nan parts where torch has 0)")
_UNDEFINED_CIA = ("torch's CompositeImplicitAutograd kernel takes the undefined tensor on and fails later with another "
                  "class; ours refuses None for a Tensor argument at binding, as every aten kernel's unboxing does")
KNOWN.update({
    ('_fft_c2c', 'self:rank-'): ('wrong_class', _FFT_UNCHECKED_DIMS),
    ('_fft_c2c', 'dim:dim+'): ('reject', _FFT_UNCHECKED_DIMS),
    ('_fft_c2r', 'self:rank-'): ('reject', _FFT_UNCHECKED_DIMS),
    ('_fft_c2r', 'dim:dim+'): ('reject', _FFT_UNCHECKED_DIMS),
    ('_fft_r2c', 'self:rank-'): ('wrong_class', _FFT_UNCHECKED_DIMS),
    ('_fft_r2c', 'dim:dim+'): ('reject', _FFT_UNCHECKED_DIMS),
    ('_fft_r2c', 'self:inf'): ('value', _FFT_INF),
    ('fft_fft', 'self:inf'): ('value', _FFT_INF),
    ('fft_fft2', 'self:inf'): ('value', _FFT_INF),
    ('fft_fftn', 'self:inf'): ('value', _FFT_INF),
    ('fft_ifft', 'self:inf'): ('value', _FFT_INF),
    ('fft_ifft2', 'self:inf'): ('value', _FFT_INF),
    ('fft_ifftn', 'self:inf'): ('value', _FFT_INF),
    ('fft_ihfft', 'self:inf'): ('value', _FFT_INF),
    ('fft_rfft', 'self:inf'): ('value', _FFT_INF),
    ('fft_rfft2', 'self:inf'): ('value', _FFT_INF),
    ('fft_rfftn', 'self:inf'): ('value', _FFT_INF),
    ('fft_fft2', 'self:None'): ('wrong_class', _UNDEFINED_CIA),
    ('fft_ifft2', 'self:None'): ('wrong_class', _UNDEFINED_CIA),
    ('fft_irfft2', 'self:None'): ('wrong_class', _UNDEFINED_CIA),
    ('fft_rfft2', 'self:None'): ('wrong_class', _UNDEFINED_CIA),
    ('fft_ihfft2', 'self:inf'): ('value', _FFT_INF),
    ('fft_ihfftn', 'self:inf'): ('value', _FFT_INF),
    ('fft_hfft2', 'self:None'): ('wrong_class', _UNDEFINED_CIA),
    ('fft_ihfft2', 'self:None'): ('wrong_class', _UNDEFINED_CIA),
})

# wt-lstsq: torch.linalg.lstsq
KNOWN.update({
    ('linalg_lstsq', 'self:inf'): ('value',
        "an infinite entry in A: what torch returns is whatever MKL's LAPACK driver leaves (gelsy: NaN in some rows, "
        "zeros in others, rank 1; gelsd / gelss fail in DLASCL's parameter check); ours returns NaN solutions and "
        "rank 0, as no finite answer exists"),
})
