"""What runs inside a DataLoader worker process: the fetchers, ``get_worker_info`` and the worker loop.

Corresponds to torch/utils/data/_utils/worker.py and fetch.py (and ``ExceptionWrapper`` of torch/_utils.py). A worker
seeds Python's ``random``, our default generator (``base_seed + worker_id``) and NumPy's global generator (the
SeedSequence-style mix of ``base_seed`` and the worker id PyTorch uses), sets ``get_worker_info()``, runs
``worker_init_fn``, then answers ``(task index, indices)`` requests from its index queue with ``(task index,
batch)`` on the shared result queue until it gets ``None``. Errors travel as an ``ExceptionWrapper`` and are
raised again in the main process with the worker's traceback; an iterable dataset's end is reported once.
"""

from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any

MP_STATUS_CHECK_INTERVAL = 5.0  #: seconds between a worker's checks that the main process is alive


class ExceptionWrapper:
    """An exception and its formatted traceback, to raise again in another process."""

    def __init__(self, exc_info: Any = None, where: str = "in background") -> None:
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self) -> None:
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    """A KeyError's message printed as is (KeyError would show its repr)."""

    def __repr__(self) -> str:
        return self


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker: its id, the number of workers, its seed, its dataset."""

    id: int
    num_workers: int
    seed: int
    dataset: Any
    rng: Any = None
    worker_method: str | None = "multiprocessing"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """This worker's ``WorkerInfo``; ``None`` in the main process."""
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    seed: int | None = None


class _DatasetKind:
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind: int, dataset: Any, auto_collation: bool, collate_fn: Any, drop_last: bool) -> Any:
        cls = _MapDatasetFetcher if kind == _DatasetKind.Map else _IterableDatasetFetcher
        return cls(dataset, auto_collation, collate_fn, drop_last)


class _MapDatasetFetcher:
    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Any, drop_last: bool) -> None:
        self.dataset, self.auto_collation, self.collate_fn, self.drop_last = dataset, auto_collation, collate_fn, drop_last

    def fetch(self, possibly_batched_index: Any) -> Any:
        if not self.auto_collation:
            return self.collate_fn(self.dataset[possibly_batched_index])
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems:
            data = getitems(possibly_batched_index)
        else:
            data = [self.dataset[idx] for idx in possibly_batched_index]
        return self.collate_fn(data)


class _IterableDatasetFetcher(_MapDatasetFetcher):
    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Any, drop_last: bool) -> None:
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, possibly_batched_index: Any) -> Any:
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in possibly_batched_index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if len(data) == 0 or (self.drop_last and len(data) < len(possibly_batched_index)):
            raise StopIteration
        return self.collate_fn(data)


def _generate_state(base_seed: int, worker_id: int) -> list[int]:
    """Four 32-bit words seeding NumPy's global generator in a worker: NumPy's SeedSequence hashing of
    ``[worker_id, base_seed low, base_seed high, 0]`` (the values PyTorch's workers use)."""
    mask = 0xFFFFFFFF
    half = 16
    mult_a = 0x931E8875
    hash_a = [0x43B0D7E5]

    def hashmix(value: int) -> int:
        value = (value ^ hash_a[0]) & mask
        hash_a[0] = (hash_a[0] * mult_a) & mask
        value = (value * hash_a[0]) & mask
        return (value ^ (value >> half)) & mask

    def mix(x: int, y: int) -> int:
        r = ((0xCA01F9DD * x) - (0x4973F715 * y)) & mask
        return (r ^ (r >> half)) & mask

    pool = [hashmix(e) for e in (worker_id, base_seed & mask, base_seed >> 32, 0)]
    for src in range(4):
        for dst in range(4):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    hash_b = 0x8B51F9DD
    state = []
    for word in pool:
        word = (word ^ hash_b) & mask
        hash_b = (hash_b * 0x58F38DED) & mask
        word = (word * hash_b) & mask
        state.append((word ^ (word >> half)) & mask)
    return state


def _worker_loop(dataset_kind: int, dataset: Any, index_queue: Any, data_queue: Any, done_event: Any,
                 auto_collation: bool, collate_fn: Any, drop_last: bool, base_seed: int, init_fn: Any,
                 worker_id: int, num_workers: int, persistent_workers: bool) -> None:
    """The body of one worker process (see the module docstring)."""
    import numpy as np

    from ... import random as _random

    global _worker_info
    try:
        seed = base_seed + worker_id
        random.seed(seed)
        _random.manual_seed(seed)
        np.random.seed(_generate_state(base_seed, worker_id))
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        init_exception = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        iteration_end = False
        manager_pid = os.getppid()
        while os.getppid() == manager_pid:
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))
                iteration_end = False
                fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue
            idx, index = r
            if init_exception is not None:
                data: Any = init_exception
                init_exception = None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
            del data, idx, index, r
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
