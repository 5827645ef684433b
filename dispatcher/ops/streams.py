"""The streams family's kernels: ``aten::record_stream`` (torch's native/cuda/RecordStream.cu).

``record_stream(Tensor(a!) self, Stream s) -> ()`` tells the CUDA caching allocator that ``self``'s memory is in
use on stream ``s``. Torch 2.13 registers one kernel for it, ``CUDA: record_stream_cuda``; there is no CPU or Meta
kernel, so on a CPU tensor the call reaches the dispatcher's "Could not run 'aten::record_stream' with arguments
from the 'CPU' backend" (NotImplementedError) and on a meta tensor the Meta backend fallback's "attempted to run
this operator with Meta tensors". This package builds no CUDA backend, so nothing is registered here either: the
listing (native_functions.py) defines the op, a dispatch mode or a Python-key subclass sees it (above the backend
keys), and the CUDA kernel is only recorded as living elsewhere.
"""

from __future__ import annotations

from .kernel_registry import elsewhere

elsewhere("record_stream", "CUDA", "record_stream_cuda (torch's CUDA build only; no CUDA backend here)")
