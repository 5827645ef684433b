"""Packed sequences: ``PackedSequence``, ``pack_padded_sequence`` / ``pad_packed_sequence`` / ``pad_sequence`` /
``pack_sequence`` / ``unpad_sequence`` / ``unpack_sequence`` / ``invert_permutation`` (torch/nn/utils/rnn.py).

A PackedSequence is the (data, batch_sizes, sorted_indices, unsorted_indices) tuple PyTorch's is: ``data`` holds the
time steps one after the other, each with the sequences still running, and ``batch_sizes`` (a CPU int64 tensor)
how many that is per step. Packing and padding call the aten ops PyTorch's functions call
(``_pack_padded_sequence``, ``_pad_packed_sequence``, ``pad_sequence``), with the same sorting and permutations.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from ...op_overload import namespace
from ...tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]

aten = namespace("aten")


class _PackedSequenceBase(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(_PackedSequenceBase):
    """Holds the data and the list of ``batch_sizes`` of a packed sequence (made by ``pack_padded_sequence`` /
    ``pack_sequence``, consumed by the RNN modules and ``pad_packed_sequence``)."""

    def __new__(cls, data: Any, batch_sizes: Tensor | None = None, sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None) -> PackedSequence:
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices, unsorted_indices))

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def double(self) -> PackedSequence:
        return self.to(dtype=_dtype("float64"))

    def float(self) -> PackedSequence:
        return self.to(dtype=_dtype("float32"))

    @property
    def is_cuda(self) -> bool:
        return False


def _dtype(name: str) -> Any:
    from ... import dtypes

    return getattr(dtypes, name)


def _packed_sequence_init_args(data: Any, batch_sizes: Tensor | None, sorted_indices: Tensor | None,
                               unsorted_indices: Tensor | None) -> tuple:
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be created "
                             "manually. They should be instantiated by functions like pack_sequence and "
                             "pack_padded_sequences in nn.utils.rnn. "
                             "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of ``permutation`` (``empty_like`` + ``scatter_`` of an ``arange``, as PyTorch computes it)."""
    if permutation is None:
        return None
    from ... import api
    from ...memory_format import contiguous_format as legacy_contiguous_format

    output = api.factories.empty_like(permutation, memory_format=legacy_contiguous_format)
    output.scatter_(0, permutation, api.factories.arange(0, permutation.numel(), device=permutation.device))
    return output


def pack_padded_sequence(input: Tensor, lengths: Any, batch_first: bool = False,  # noqa: A002
                         enforce_sorted: bool = True) -> PackedSequence:
    """Packs a padded (T x B x *, or B x T x * with ``batch_first``) batch of sequences of the given lengths."""
    from ... import api, dtypes

    if not isinstance(lengths, Tensor):
        lengths = api.from_data.as_tensor(lengths, dtype=dtypes.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=dtypes.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = api.shape.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = aten._pack_padded_sequence.default(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """The inverse of ``pack_padded_sequence``: (padded batch, lengths)."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded_output, lengths = aten._pad_packed_sequence.default(sequence.data, sequence.batch_sizes, batch_first,
                                                               padding_value, max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return padded_output.index_select(batch_dim, unsorted_indices), lengths[unsorted_indices.cpu()]
    return padded_output, lengths


def pad_sequence(sequences: Any, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Pads a list of (L x *) tensors to (T x B x *) (or B x T x *) with ``padding_value``."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    return aten.pad_sequence.default(list(sequences), batch_first, padding_value, padding_side)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list[Tensor]:
    """The list of the sequences of a padded batch, each cut to its length."""
    from ... import api

    unpadded = []
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    max_length = padded_sequences.shape[1]
    idx = api.factories.arange(max_length, device=lengths.device)
    for seq, length in zip(padded_sequences, lengths):
        mask = idx < length
        unpadded.append(seq[mask])
    return unpadded


def pack_sequence(sequences: list[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Packs a list of variable-length sequences (``pad_sequence`` then ``pack_padded_sequence``)."""
    from ... import api

    lengths = api.from_data.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences a PackedSequence holds."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
