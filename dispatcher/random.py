"""The random number generator behind ``randn``, ``rand``, ``bernoulli_`` and dropout.

Corresponds to torch/random.py and c10's CPUGeneratorImpl (ATen/CPUGeneratorImpl.cpp).
A ``Generator`` wraps a NumPy ``Generator`` (PCG64) and a seed; one process-wide
default generator serves every random op that is not given ``generator=``.
``manual_seed(s)`` makes the random factories reproducible. The values differ from
PyTorch's (it uses mt19937 and its own normal sampling); only reproducibility and
the distributions match.

NB: PyTorch's default CPU generator is shared by all threads and guarded by a mutex;
here every draw takes the generator's lock as well.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

_DEFAULT_SEED = 67280421310721  # PyTorch's default_rng_seed_val
STATE_SIZE = 45  #: bytes of ``Generator.get_state()``: seed, PCG64 state and increment, the cached 32-bit draw


class Generator:
    """Like ``torch.Generator``: ``manual_seed``, ``seed``, ``initial_seed``, ``get_state`` / ``set_state``."""

    def __init__(self, device: Any = "cpu") -> None:
        from .tensor import device as as_device

        self.device = as_device(device)
        if self.device.type != "cpu":
            raise RuntimeError(f"{self.device.type.upper()} device type not an accelerator.")
        self._lock = threading.Lock()
        self._seed = _DEFAULT_SEED
        self._np = np.random.Generator(np.random.PCG64(self._seed))

    def manual_seed(self, seed: int) -> Generator:
        """Re-seed; negative seeds and seeds above 2**64 - 1 are rejected like PyTorch."""
        if not isinstance(seed, (int, np.integer)) and not (hasattr(seed, "item") and hasattr(seed, "dim")):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = int(seed)
        if seed < -0x8000_0000_0000_0000 or seed > 0xFFFF_FFFF_FFFF_FFFF:
            raise RuntimeError(f"Overflow when unpacking long long, got {seed}")
        seed &= 0xFFFF_FFFF_FFFF_FFFF  # PyTorch reinterprets a negative seed as uint64
        with self._lock:
            self._seed = seed
            self._np = np.random.Generator(np.random.PCG64(seed))
        return self

    def seed(self) -> int:
        """Seed from a non-deterministic source and return the seed used."""
        s = int.from_bytes(np.random.SeedSequence().entropy.to_bytes(16, "little")[:8], "little") ^ time.time_ns()
        s &= 0xFFFF_FFFF_FFFF_FFFF
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Any:
        """The state as a uint8 tensor (a ``torch.ByteTensor``, as PyTorch's), for ``set_state`` or a checkpoint.

        NB: PyTorch's is the 5056-byte mt19937 state; ours is the PCG64 state in ``STATE_SIZE`` bytes."""
        with self._lock:
            bits = self._np.bit_generator.state
        inner = bits["state"]
        raw = (self._seed.to_bytes(8, "little") + inner["state"].to_bytes(16, "little")
               + inner["inc"].to_bytes(16, "little") + bytes([bits["has_uint32"]])
               + int(bits["uinteger"]).to_bytes(4, "little"))
        from .api.from_data import _wrap_numpy  # not dispatched: a trace records nothing (PyTorch makes it in C++)

        return _wrap_numpy(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, new_state: Any) -> Generator:
        """Restore what ``get_state`` returned (PyTorch's type and size checks)."""
        from .tensor import Tensor

        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype.name != "uint8":
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = bytes(new_state.contiguous().numpy().tobytes())
        if len(raw) != STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found the input RNG "
                               f"state size to be {len(raw)}")
        state = {"bit_generator": "PCG64", "state": {"state": int.from_bytes(raw[8:24], "little"),
                                                      "inc": int.from_bytes(raw[24:40], "little")},
                 "has_uint32": raw[40], "uinteger": int.from_bytes(raw[41:45], "little")}
        with self._lock:
            self._seed = int.from_bytes(raw[:8], "little")
            self._np.bit_generator.state = state
        return self

    def draw(self, fn: Any) -> Any:
        """``fn(numpy_generator)`` under this generator's lock (how kernels draw numbers)."""
        with self._lock:
            return fn(self._np)

    def __repr__(self) -> str:
        return f"<dispatcher.Generator object at {id(self):#x}>"  # torch: <torch._C.Generator object at ...>


_default = Generator()


def default_generator() -> Generator:
    """The process-wide CPU generator (``torch.default_generator``)."""
    return _default


def manual_seed(seed: int) -> Generator:
    """Seed the default generator; returns it (like ``torch.manual_seed``)."""
    return _default.manual_seed(seed)


def seed() -> int:
    """Seed the default generator non-deterministically; returns the seed."""
    return _default.seed()


def initial_seed() -> int:
    """The seed the default generator was last seeded with."""
    return _default.initial_seed()


def get_rng_state() -> Any:
    """The default generator's state (a uint8 tensor)."""
    return _default.get_state()


def set_rng_state(new_state: Any) -> None:
    """Restore the default generator's state from ``get_rng_state()``."""
    _default.set_state(new_state)
