"""``torch.multiprocessing``'s storage helpers: only ``reductions.StorageWeakRef`` (which storage a tensor sees, as a
hashable weak handle), which aliasing checks use. No processes are started here.

Corresponds to torch/multiprocessing/ (its ``reductions`` module).
"""

from . import reductions

__all__ = ["reductions"]
