"""``dispatcher.nn.utils`` (torch/nn/utils/__init__.py): ``rnn``, the packed-sequence helpers."""

from . import rnn

__all__ = ["rnn"]
