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


class Generator:
    """Like ``torch.Generator``: ``manual_seed``, ``seed``, ``initial_seed``, ``get_state`` / ``set_state``."""

    def __init__(self, device: Any = "cpu") -> None:
        self.device = device
        self._lock = threading.Lock()
        self._seed = _DEFAULT_SEED
        self._np = np.random.Generator(np.random.PCG64(self._seed))

    def manual_seed(self, seed: int) -> Generator:
        """Re-seed; negative seeds and seeds above 2**64 - 1 are rejected like PyTorch."""
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

    def get_state(self) -> dict:
        with self._lock:
            return {"seed": self._seed, "bit_generator": self._np.bit_generator.state}

    def set_state(self, state: dict) -> Generator:
        with self._lock:
            self._seed = state["seed"]
            self._np.bit_generator.state = state["bit_generator"]
        return self

    def draw(self, fn: Any) -> Any:
        """``fn(numpy_generator)`` under this generator's lock (how kernels draw numbers)."""
        with self._lock:
            return fn(self._np)

    def __repr__(self) -> str:
        return f"<dispatcher.Generator object at {id(self):#x}>"


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


def get_rng_state() -> dict:
    return _default.get_state()


def set_rng_state(state: dict) -> None:
    _default.set_state(state)
