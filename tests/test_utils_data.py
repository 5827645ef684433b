"""``dispatcher.utils.data`` against torch 2.13's ``torch.utils.data``: datasets, ``random_split``, samplers,
``default_collate`` / ``default_convert``, ``DataLoader`` (batches, ``len``, argument errors, warnings) with and without
worker processes, tensors and wrapper subclasses crossing process boundaries, and a training loop fed by a
DataLoader. Each scenario is written once as ``fn(L)`` for L = torch or dispatcher and the results compared (tensors
by type, dtype, shape and values; errors by class and message). Random orders are ours (PCG64): they are compared by
their properties (a permutation, the sizes, reproducibility under ``manual_seed`` / ``generator=``), not values."""

from __future__ import annotations

import collections
import pickle
import time
import warnings
from typing import Any

import numpy as np
import pytest

import dispatcher as D

Point = collections.namedtuple("Point", ["x", "y"])


# --- helpers ----------------------------------------------------------------------------------------------------------
def plain(obj: Any) -> Any:
    """A comparable picture of a result: tensors as (class name, dtype, shape, values), containers kept."""
    if hasattr(obj, "dtype") and hasattr(obj, "tolist") and not isinstance(obj, np.ndarray):
        return ("T", type(obj).__name__, str(obj.dtype), tuple(obj.shape), obj.tolist())
    if isinstance(obj, np.ndarray):
        return ("nd", str(obj.dtype), obj.tolist())
    if isinstance(obj, dict):
        return (type(obj).__name__, {k: plain(v) for k, v in obj.items()})
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return (type(obj).__name__, tuple(plain(v) for v in obj))
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [plain(v) for v in obj])
    return obj


def outcome(fn: Any, L: Any) -> Any:
    """``plain(fn(L))``, or the error's class and message; the warnings raised on the way."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", plain(fn(L)))
        except Exception as e:  # noqa: BLE001 - compared with torch's
            result = ("error", type(e).__name__, str(e))
    return result, [(w.category.__name__, str(w.message)) for w in caught]


def check(torch: Any, fn: Any) -> Any:
    """``fn`` gives the same results, errors and warnings here as in torch."""
    ours, theirs = outcome(fn, D), outcome(fn, torch)
    assert ours == theirs
    return ours


def data_mod(L: Any) -> Any:
    return L.utils.data


def tds(L: Any, n: int = 7) -> Any:
    """A TensorDataset of float features, int64 labels and a bool flag."""
    x = L.arange(float(2 * n)).reshape(n, 2)
    return data_mod(L).TensorDataset(x, L.arange(n), L.arange(n) % 2 == 0)


# --- datasets ---------------------------------------------------------------------------------------------------------
DATASET_CASES = {
    "tensor_dataset": lambda L: (len(tds(L)), tds(L)[3], tds(L)[1:3]),
    "tensor_dataset_mismatch": lambda L: data_mod(L).TensorDataset(L.zeros(3), L.zeros(4)),
    "concat": lambda L: (lambda c: (len(c), c.cumulative_sizes, c[0], c[4], c[-1], c[-6]))(
        data_mod(L).ConcatDataset([tds(L, 3), [10, 11], tds(L, 2)])),
    "concat_add": lambda L: (lambda c: (type(c).__name__, len(c), c[3]))(tds(L, 3) + tds(L, 2)),
    "concat_too_negative": lambda L: data_mod(L).ConcatDataset([[1, 2], [3]])[-4],
    "concat_empty": lambda L: data_mod(L).ConcatDataset([]),
    "concat_iterable": lambda L: data_mod(L).ConcatDataset([[1], Counting(L)]),
    "chain": lambda L: (lambda c: (list(c), len(c)))(data_mod(L).ChainDataset([Counting(L, 3), Counting(L, 2)])),
    "chain_add": lambda L: (lambda c: (type(c).__name__, list(c)))(Counting(L, 2) + Counting(L, 3)),
    "chain_map_style": lambda L: list(data_mod(L).ChainDataset([Counting(L, 1), [1, 2]])),
    "subset": lambda L: (lambda s: (len(s), s[0], s[2], s.__getitems__([0, 1])))(
        data_mod(L).Subset(tds(L), [6, 0, 3])),
    "subset_list_index": lambda L: data_mod(L).Subset(L.arange(10) * 2, [4, 5, 9])[[0, 2]],
    "stack_tuple": lambda L: (lambda s: (len(s), s[1], s.__getitems__([0, 2])))(
        data_mod(L).StackDataset(tds(L, 3), [5, 6, 7])),
    "stack_dict": lambda L: (lambda s: (len(s), s[1], s.__getitems__([2, 0])))(
        data_mod(L).StackDataset(a=tds(L, 3), b=data_mod(L).Subset([9, 8, 7, 6], [3, 2, 1]))),
    "stack_mismatch": lambda L: data_mod(L).StackDataset([1, 2], [3]),
    "stack_both": lambda L: data_mod(L).StackDataset([1, 2], b=[3, 4]),
    "stack_none": lambda L: data_mod(L).StackDataset(),
    "base_getitem": lambda L: data_mod(L).Dataset()[0],
}


def counting_cls(L: Any) -> type:
    class _Counting(data_mod(L).IterableDataset):
        """0 .. n-1; with workers, each worker yields the numbers ``i`` with ``i % num_workers == id``."""

        def __init__(self, n: int = 4, with_len: bool = True) -> None:
            self.n, self.with_len, self.L = n, with_len, L

        def __iter__(self) -> Any:
            info = data_mod(self.L).get_worker_info()
            if info is None:
                return iter(range(self.n))
            return iter(range(info.id, self.n, info.num_workers))

        def __len__(self) -> int:
            if not self.with_len:
                raise TypeError("no len")
            return self.n
    return _Counting


def Counting(L: Any, n: int = 4, with_len: bool = True) -> Any:  # noqa: N802 - reads as a class
    return counting_cls(L)(n, with_len)


@pytest.mark.parametrize("case", DATASET_CASES)
def test_datasets(torch, case):
    check(torch, DATASET_CASES[case])


def test_subset_overriding_getitem_only(torch):
    def fn(L):
        class S(data_mod(L).Subset):
            def __getitem__(self, idx):
                return 0
        return S([1, 2], [0])
    assert check(torch, fn)[0][0] == "error"


# --- random_split -----------------------------------------------------------------------------------------------------
SPLITS = [(10, [3, 7]), (10, [0.3, 0.3, 0.4]), (7, [0.5, 0.5]), (5, [0.1, 0.1, 0.8]), (3, [0.9, 0.1, 0.0]),
          (10, [4, 5]), (10, [1.5, -0.5]), (4, [2, 2]), (4, [0.25, 0.25, 0.25, 0.25])]


@pytest.mark.parametrize("n,lengths", SPLITS)
def test_random_split_sizes_errors_and_warnings(torch, n, lengths):
    def fn(L):
        parts = data_mod(L).random_split(range(n), lengths, generator=L.Generator().manual_seed(0))
        return [(type(p).__name__, len(p)) for p in parts]
    result, _ = check(torch, fn)
    if result[0] == "ok":  # our split is a partition of the dataset
        parts = data_mod(D).random_split(range(n), lengths, generator=D.Generator().manual_seed(1))
        assert sorted(i for p in parts for i in p) == list(range(n))


def test_random_split_reproducible():
    def split(gen):
        return [list(p) for p in D.utils.data.random_split(range(20), [0.5, 0.5], generator=gen)]
    assert split(D.Generator().manual_seed(3)) == split(D.Generator().manual_seed(3))
    D.manual_seed(5)
    first = [list(p) for p in D.utils.data.random_split(range(20), [10, 10])]
    D.manual_seed(5)
    assert [list(p) for p in D.utils.data.random_split(range(20), [10, 10])] == first
    assert first[0] != list(range(10))


# --- samplers ---------------------------------------------------------------------------------------------------------
SAMPLER_CASES = {
    "sequential": lambda L: (list(data_mod(L).SequentialSampler(range(5))), len(data_mod(L).SequentialSampler([1]))),
    "batch": lambda L: [(list(s), len(s)) for s in (data_mod(L).BatchSampler(range(10), 3, False),
                                                    data_mod(L).BatchSampler(range(10), 3, True),
                                                    data_mod(L).BatchSampler(range(9), 3, True))],
    "batch_size_zero": lambda L: data_mod(L).BatchSampler(range(3), 0, False),
    "batch_size_bool": lambda L: data_mod(L).BatchSampler(range(3), True, False),
    "batch_drop_last_int": lambda L: data_mod(L).BatchSampler(range(3), 2, 1),
    "random_len": lambda L: [len(data_mod(L).RandomSampler(range(5), **kw)) for kw in
                             ({}, {"num_samples": 12, "replacement": True}, {"num_samples": 3})],
    "random_bad_replacement": lambda L: data_mod(L).RandomSampler(range(5), replacement=1),
    "random_bad_num_samples": lambda L: data_mod(L).RandomSampler(range(5), num_samples=0),
    "random_empty": lambda L: data_mod(L).RandomSampler([]),
    "weighted_bad_num": lambda L: data_mod(L).WeightedRandomSampler([1.0, 2.0], 0),
    "weighted_bad_replacement": lambda L: data_mod(L).WeightedRandomSampler([1.0, 2.0], 2, replacement=None),
    "weighted_2d": lambda L: data_mod(L).WeightedRandomSampler([[1.0, 2.0]], 2),
    "weighted_len_weights": lambda L: (lambda s: (len(s), s.weights))(data_mod(L).WeightedRandomSampler([1, 2, 3], 5)),
    "subset_random_len": lambda L: len(data_mod(L).SubsetRandomSampler([4, 9, 2])),
    "weighted_too_many_without_replacement": lambda L: list(data_mod(L).WeightedRandomSampler([1, 1], 3, False)),
    "weighted_negative": lambda L: list(data_mod(L).WeightedRandomSampler([1.0, -1.0], 1)),
    "random_replacement_draws_in_range": lambda L: sorted(set(data_mod(L).RandomSampler(
        range(3), replacement=True, num_samples=200))),
}


@pytest.mark.parametrize("case", SAMPLER_CASES)
def test_samplers(torch, case):
    check(torch, SAMPLER_CASES[case])


@pytest.mark.parametrize("num_samples", [None, 3, 12])
def test_random_sampler_without_replacement_is_permutations(num_samples):
    got = list(D.utils.data.RandomSampler(range(5), num_samples=num_samples))
    n = num_samples or 5
    assert len(got) == n
    for start in range(0, n, 5):  # each pass is a permutation (its prefix for the last one)
        chunk = got[start:start + 5]
        assert len(set(chunk)) == len(chunk) and set(chunk) <= set(range(5))


def test_random_sampler_with_replacement_and_reproducibility():
    got = list(D.utils.data.RandomSampler(range(4), replacement=True, num_samples=70))
    assert len(got) == 70 and set(got) == {0, 1, 2, 3}
    gen = D.Generator().manual_seed(0)
    a = list(D.utils.data.RandomSampler(range(9), generator=gen))
    gen.manual_seed(0)
    assert list(D.utils.data.RandomSampler(range(9), generator=gen)) == a
    D.manual_seed(11)
    b = list(D.utils.data.RandomSampler(range(9)))
    D.manual_seed(11)
    assert list(D.utils.data.RandomSampler(range(9))) == b
    assert sorted(b) == list(range(9))


def test_subset_and_weighted_samplers():
    sub = list(D.utils.data.SubsetRandomSampler([4, 9, 2], generator=D.Generator().manual_seed(0)))
    assert sorted(sub) == [2, 4, 9]
    drawn = list(D.utils.data.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 50))
    assert len(drawn) == 50 and set(drawn) <= {1, 3}
    assert sorted(D.utils.data.WeightedRandomSampler([1, 1, 1, 1], 4, replacement=False)) == [0, 1, 2, 3]


# --- collation --------------------------------------------------------------------------------------------------------
COLLATE_CASES = {
    "tensors": lambda L: [L.arange(3), L.arange(3) + 1],
    "scalar_tensors": lambda L: [L.tensor(1.5), L.tensor(2.5)],
    "ints": lambda L: [1, 2, 3],
    "floats": lambda L: [1.0, 2.5],
    "bools": lambda L: [True, False],
    "numpy_arrays": lambda L: [np.arange(3, dtype=np.int16), np.ones(3, dtype=np.int16)],
    "numpy_float_scalars": lambda L: [np.float32(1.0), np.float32(2.0)],
    "numpy_int_scalars": lambda L: [np.int64(1), np.int64(2)],
    "numpy_bool_scalars": lambda L: [np.bool_(True), np.bool_(False)],
    "strings": lambda L: ["a", "bc"],
    "bytes": lambda L: [b"a", b"b"],
    "dicts": lambda L: [{"x": L.zeros(2), "y": 1}, {"x": L.ones(2), "y": 2}],
    "ordered_dicts": lambda L: [collections.OrderedDict(a=1.0), collections.OrderedDict(a=2.0)],
    "namedtuples": lambda L: [Point(L.zeros(1), 1), Point(L.ones(1), 2)],
    "tuples": lambda L: [(L.zeros(2), 1, "a"), (L.ones(2), 2, "b")],
    "lists": lambda L: [[1, 2.0], [3, 4.0]],
    "nested": lambda L: [{"a": [(1, np.zeros(2))], "b": "s"}, {"a": [(2, np.ones(2))], "b": "t"}],
    "unequal_lists": lambda L: [[1, 2], [3]],
    "objects": lambda L: [object(), object()],
    "none": lambda L: [None, None],
    "numpy_str_array": lambda L: [np.array(["a"]), np.array(["b"])],
    "unequal_tensors": lambda L: [L.zeros(2), L.zeros(3)],
    "tensor_then_int": lambda L: [L.zeros(2), 3],
    "mixed_dtype_tensors": lambda L: [L.zeros(2, dtype=L.int64), L.ones(2, dtype=L.float32)],
    "requires_grad_tensors": lambda L: [L.ones(2, requires_grad=True), L.zeros(2)],
}


@pytest.mark.parametrize("case", COLLATE_CASES)
def test_default_collate(torch, case):
    def fn(L):
        return data_mod(L).default_collate(COLLATE_CASES[case](L))
    check(torch, fn)


CONVERT_CASES = {
    "numpy_array": lambda L: np.arange(4.0),
    "numpy_scalar": lambda L: np.float64(2.5),
    "numpy_str_array": lambda L: np.array(["a", "b"]),
    "numpy_str_scalar": lambda L: np.str_("a"),
    "tuple": lambda L: (np.int32(1), 2, "x"),
    "namedtuple": lambda L: Point(np.zeros(2), 1),
    "dict_of_list": lambda L: {"a": [np.ones(2), 3.0], "b": L.zeros(1)},
    "int": lambda L: 5,
    "string": lambda L: "text",
}


@pytest.mark.parametrize("case", CONVERT_CASES)
def test_default_convert(torch, case):
    check(torch, lambda L: data_mod(L).default_convert(CONVERT_CASES[case](L)))


# --- DataLoader in the main process -----------------------------------------------------------------------------------
def loader_batches(L: Any, dataset: Any, **kw: Any) -> Any:
    dl = data_mod(L).DataLoader(dataset, **kw)
    return len(dl), list(dl)


def _pairs(batch: Any) -> Any:
    return [(a.item(), b) for a, b in batch]


LOADER_CASES = {
    "default": lambda L: loader_batches(L, tds(L)),
    "batch_3": lambda L: loader_batches(L, tds(L), batch_size=3),
    "batch_3_drop_last": lambda L: loader_batches(L, tds(L), batch_size=3, drop_last=True),
    "batch_none": lambda L: loader_batches(L, tds(L, 3), batch_size=None),
    "batch_none_numpy": lambda L: loader_batches(L, [np.arange(2), np.ones(2)], batch_size=None),
    "list_of_dicts": lambda L: loader_batches(L, [{"a": i, "b": float(i)} for i in range(5)], batch_size=2),
    "sampler": lambda L: loader_batches(L, tds(L), batch_size=2, sampler=[6, 0, 3, 3]),
    "batch_sampler": lambda L: loader_batches(L, tds(L), batch_sampler=[[0, 1], [5], [2, 6, 4]]),
    "batch_sampler_object": lambda L: loader_batches(
        L, tds(L), batch_sampler=data_mod(L).BatchSampler(data_mod(L).SequentialSampler(range(7)), 4, True)),
    "collate_fn": lambda L: loader_batches(L, range(5), batch_size=2, collate_fn=lambda b: sum(b)),
    "subset": lambda L: loader_batches(L, data_mod(L).Subset(tds(L), [5, 1, 2]), batch_size=2),
    "stack_dataset": lambda L: loader_batches(L, data_mod(L).StackDataset(x=tds(L, 3), y=range(3)), batch_size=2),
    "concat": lambda L: loader_batches(L, tds(L, 2) + tds(L, 3), batch_size=4),
    "iterable": lambda L: loader_batches(L, Counting(L, 5), batch_size=2),
    "iterable_drop_last": lambda L: loader_batches(L, Counting(L, 5), batch_size=2, drop_last=True),
    "iterable_no_batching": lambda L: loader_batches(L, Counting(L, 3), batch_size=None),
    "iterable_len_too_small": lambda L: (lambda dl: (len(dl), list(dl)))(
        data_mod(L).DataLoader(ShortLen(L), batch_size=None)),
    "iterable_no_len": lambda L: len(data_mod(L).DataLoader(Counting(L, 3, with_len=False))),
    "pin_memory": lambda L: loader_batches(L, range(3), batch_size=2, pin_memory=True),
    "pin_memory_device": lambda L: loader_batches(L, range(3), batch_size=2, pin_memory=True,
                                                  pin_memory_device="cpu"),
    "stacked_tensor_error": lambda L: loader_batches(L, [L.zeros(2), L.zeros(3)], batch_size=2),
    "getitem_error": lambda L: loader_batches(L, [1, 2], batch_size=1, sampler=[0, 5]),
    "too_many_workers_warning": lambda L: data_mod(L).DataLoader(range(3), num_workers=512).prefetch_factor,
    "sampler_without_len": lambda L: len(data_mod(L).DataLoader(range(3), sampler=iter([0, 1]))),
    "sampler_without_len_batches": lambda L: list(data_mod(L).DataLoader(range(3), batch_size=2,
                                                                          sampler=iter([2, 0, 1]))),
}


def ShortLen(L: Any) -> Any:  # noqa: N802
    class _ShortLen(data_mod(L).IterableDataset):
        def __iter__(self) -> Any:
            return iter(range(4))

        def __len__(self) -> int:
            return 2

        def __repr__(self) -> str:
            return "ShortLen"
    return _ShortLen()


@pytest.mark.parametrize("case", LOADER_CASES)
def test_dataloader_batches(torch, case):
    check(torch, LOADER_CASES[case])


BAD_ARGS = {
    "num_workers": {"num_workers": -1},
    "timeout": {"timeout": -1},
    "prefetch_without_workers": {"prefetch_factor": 2},
    "prefetch_negative": {"num_workers": 1, "prefetch_factor": -1},
    "persistent_without_workers": {"persistent_workers": True},
    "shuffle_with_sampler": {"shuffle": True, "sampler": [0, 1]},
    "batch_sampler_with_batch_size": {"batch_sampler": [[0]], "batch_size": 2},
    "batch_sampler_with_shuffle": {"batch_sampler": [[0]], "shuffle": True},
    "batch_sampler_with_sampler": {"batch_sampler": [[0]], "sampler": [0]},
    "batch_sampler_with_drop_last": {"batch_sampler": [[0]], "drop_last": True},
    "batch_none_drop_last": {"batch_size": None, "drop_last": True},
    "batch_size_zero": {"batch_size": 0},
    "context_without_workers": {"multiprocessing_context": "fork"},
    "context_bad_name": {"num_workers": 1, "multiprocessing_context": "threads"},
    "context_bad_type": {"num_workers": 1, "multiprocessing_context": 3},
    "iterable_shuffle": {"iterable": True, "shuffle": True},
    "iterable_sampler": {"iterable": True, "sampler": [0]},
    "iterable_batch_sampler": {"iterable": True, "batch_sampler": [[0]]},
}


@pytest.mark.parametrize("case", BAD_ARGS)
def test_dataloader_argument_errors(torch, case):
    def fn(L):
        kw = dict(BAD_ARGS[case])
        dataset = Counting(L, 3) if kw.pop("iterable", False) else range(3)
        data_mod(L).DataLoader(dataset, **kw)
    assert check(torch, fn)[0][0] == "error"


def test_dataloader_attributes_frozen_and_iterator_not_picklable(torch):
    def fn(L):
        dl = data_mod(L).DataLoader(range(4), batch_size=2)
        dl.num_workers = 0  # allowed
        errors = []
        for attr in ("batch_size", "sampler", "dataset", "drop_last"):
            try:
                setattr(dl, attr, None)
            except ValueError as e:
                errors.append(str(e))
        try:
            pickle.dumps(iter(dl))
        except NotImplementedError as e:
            errors.append(e.args)
        return errors, dl.prefetch_factor, type(dl.sampler).__name__, type(dl.batch_sampler).__name__
    check(torch, fn)


def test_shuffled_batches_have_torchs_shapes_and_contents(torch):
    """Everything but the order: the same number of batches with the same dtypes and shapes, each sample whole."""
    def fn(L):
        ds = data_mod(L).TensorDataset(L.arange(22.0).reshape(11, 2), L.arange(11))
        seen, shapes = [], []
        for kw in ({}, {"drop_last": True}, {"generator": L.Generator().manual_seed(0)}):
            for x, y in data_mod(L).DataLoader(ds, batch_size=4, shuffle=True, **kw):
                assert x[:, 0].tolist() == (2 * y).float().tolist()  # rows stay with their labels
                shapes.append((str(x.dtype), tuple(x.shape), str(y.dtype), tuple(y.shape)))
                seen.extend(y.tolist() if "drop_last" not in kw else [])  # which samples drop depends on the order
        return shapes, sorted(seen)
    result, _ = check(torch, fn)
    assert result[0] == "ok" and len(result[1][1][0][1]) == 3 + 2 + 3  # batches of the three loaders


def test_shuffle_order_is_a_permutation_and_seeded():
    ds = D.utils.data.TensorDataset(D.arange(10))

    def epoch(**kw):
        return [x.item() for (b,) in D.utils.data.DataLoader(ds, batch_size=3, shuffle=True, **kw) for x in b]
    D.manual_seed(0)
    first = epoch()
    assert sorted(first) == list(range(10)) and first != list(range(10))
    D.manual_seed(0)
    assert epoch() == first
    assert epoch(generator=D.Generator().manual_seed(7)) == epoch(generator=D.Generator().manual_seed(7))
    gen = D.Generator().manual_seed(7)
    loader = D.utils.data.DataLoader(ds, batch_size=10, shuffle=True, generator=gen)
    assert loader.sampler.generator is gen
    e1, e2 = ([x.item() for x in b[0][0]] for b in (list(loader), list(loader)))
    assert sorted(e1) == sorted(e2) == list(range(10)) and e1 != e2  # the generator advances between passes


# --- worker processes -------------------------------------------------------------------------------------------------
WORKERS = {"num_workers": 2, "timeout": 20}


def test_workers_give_the_single_process_batches(torch):
    """Map-style: two workers, batches back in order, as torch's main-process loader gives them."""
    def fn(L, **kw):
        return loader_batches(L, tds(L), batch_size=2, **kw)
    ours = outcome(lambda L: fn(L, **WORKERS), D)
    assert ours == outcome(fn, torch) == outcome(fn, D)


def test_workers_shard_an_iterable_dataset_as_torch(torch):
    def fn(L):
        return loader_batches(L, Counting(L, 7), batch_size=2, **WORKERS)
    check(torch, fn)


def _worker_report(worker_id: int) -> None:
    info = D.utils.data.get_worker_info()
    assert info.id == worker_id and info.num_workers == 2


class _InfoDataset(D.utils.data.Dataset):
    def __getitem__(self, i: int) -> Any:
        info = D.utils.data.get_worker_info()
        return {"id": info.id, "seed": info.seed, "num_workers": info.num_workers,
                "randn": D.randn(1).item(), "np": float(np.random.rand())}

    def __len__(self) -> int:
        return 4


def test_worker_info_seeds_and_init_fn():
    assert D.utils.data.get_worker_info() is None
    gen = D.Generator().manual_seed(3)
    loader = D.utils.data.DataLoader(_InfoDataset(), batch_size=1, worker_init_fn=_worker_report, generator=gen,
                                     **WORKERS)
    rows = [{k: v[0].item() if hasattr(v, "item") else v for k, v in b.items()} for b in loader]
    assert [r["id"] for r in rows] == [0, 1, 0, 1]  # tasks go round-robin, results come back in order
    assert {r["num_workers"] for r in rows} == {2}
    assert rows[1]["seed"] == rows[0]["seed"] + 1  # base_seed + worker id
    assert rows[0]["randn"] != rows[1]["randn"] and rows[0]["np"] != rows[1]["np"]  # workers seeded apart
    gen.manual_seed(3)
    again = [{k: v[0].item() if hasattr(v, "item") else v for k, v in b.items()} for b in loader]
    assert again == rows  # the same generator state gives the same worker seeds and draws


class _Failing(D.utils.data.Dataset):
    def __getitem__(self, i: int) -> Any:
        if i == 1:
            raise ValueError("bad sample 1")
        return i

    def __len__(self) -> int:
        return 3


def test_worker_error_raised_in_main_process(torch):
    def fn(L):
        ds = _Failing() if L is D else _torch_failing(L)
        it = iter(data_mod(L).DataLoader(ds, **WORKERS))
        try:
            return list(it)
        finally:  # now: left to the garbage collector, a queue's finalizer may run first and the join wait 5 s
            it._shutdown_workers()
    (ours, _), (theirs, _) = outcome(fn, D), outcome(fn, torch)
    assert ours[:2] == theirs[:2] == ("error", "ValueError")
    head = "Caught ValueError in DataLoader worker process 1.\nOriginal Traceback (most recent call last):\n"
    assert ours[2].startswith(head) and theirs[2].startswith(head)
    assert ours[2].endswith("ValueError: bad sample 1\n") and theirs[2].endswith("ValueError: bad sample 1\n")


def _torch_failing(L: Any) -> Any:
    class F(L.utils.data.Dataset):
        __getitem__ = _Failing.__getitem__
        __len__ = _Failing.__len__
    return F()


def _init_fails(worker_id: int) -> None:
    raise ZeroDivisionError(f"worker {worker_id} cannot start")


def test_worker_init_fn_error_reported_on_first_batch():
    it = iter(D.utils.data.DataLoader(range(4), worker_init_fn=_init_fails, **WORKERS))
    try:
        with pytest.raises(ZeroDivisionError, match=r"^Caught ZeroDivisionError in DataLoader worker process 0\.\n"
                                                    r"Original Traceback(.|\n)*worker 0 cannot start\n$"):
            next(it)
    finally:
        it._shutdown_workers()


class _Slow(D.utils.data.Dataset):
    def __getitem__(self, i: int) -> int:
        time.sleep(0.5)
        return i

    def __len__(self) -> int:
        return 2


def test_worker_timeout():
    it = iter(D.utils.data.DataLoader(_Slow(), num_workers=1, timeout=0.1))
    start = time.perf_counter()
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.1 seconds$"):
        next(it)
    assert time.perf_counter() - start < 0.45
    it._shutdown_workers()  # the worker finishes its sample, skips the rest and exits
    assert not it._workers[0].is_alive()


def test_persistent_workers_prefetch_and_out_of_order():
    loader = D.utils.data.DataLoader(range(9), batch_size=2, persistent_workers=True, prefetch_factor=1, **WORKERS)
    epochs = [[b.tolist() for b in loader] for _ in range(3)]
    assert epochs == [[[0, 1], [2, 3], [4, 5], [6, 7], [8]]] * 3
    workers = loader._iterator._workers
    assert all(w.is_alive() for w in workers)  # kept between passes
    loader._iterator._shutdown_workers()
    assert not any(w.is_alive() for w in workers)
    unordered = D.utils.data.DataLoader(range(9), batch_size=2, in_order=False, **WORKERS)
    assert sorted(x for b in unordered for x in b.tolist()) == list(range(9))
    sharded = D.utils.data.DataLoader(Counting(D, 5), batch_size=None, persistent_workers=True, **WORKERS)
    assert [list(sharded) for _ in range(2)] == [[0, 1, 2, 3, 4]] * 2
    sharded._iterator._shutdown_workers()


def _identity(batch: Any) -> Any:
    return batch


def test_tensors_and_wrapper_subclass_cross_processes():
    """torch's test_wrapper_subclass_multiprocessing_preserves_dtype, and tensors of every kind through a worker."""
    from dispatcher.testing._internal.two_tensor import TwoTensor

    data = TwoTensor(D.randperm(5), D.randperm(5))  # int64: not the wrapper's default dtype
    loader = D.utils.data.DataLoader([data, data], batch_size=2, num_workers=2, collate_fn=_identity, timeout=20)
    batches = list(loader)
    assert len(batches) == 1
    for got in batches[0]:
        assert type(got) is TwoTensor and got.dtype == data.dtype == D.int64
        assert got.a.tolist() == data.a.tolist() and got.b.tolist() == data.b.tolist()
    samples = [D.randn(2, 3, dtype=D.float64), D.arange(6).reshape(2, 3).t(), D.tensor([True, False]),
               D.randn(3, requires_grad=True), D.zeros(0, 2, dtype=D.int32)]
    out = list(D.utils.data.DataLoader(samples, batch_size=None, **WORKERS))
    for got, want in zip(out, samples, strict=True):
        assert (got.dtype, got.shape, got.tolist(), got.requires_grad) == (
            want.dtype, want.shape, want.tolist(), want.requires_grad)
    stacked = next(iter(D.utils.data.DataLoader([data, data], batch_size=2, **WORKERS)))  # default_collate in a worker
    assert type(stacked) is TwoTensor and stacked.dtype == D.int64 and stacked.shape == (2, 5)


def test_spawned_worker_receives_pickled_dataset():
    """With the spawn start method the dataset itself is pickled to a fresh interpreter (and the batches back)."""
    from dispatcher.testing._internal.two_tensor import TwoTensor

    a = D.randperm(5)
    samples = [TwoTensor(a, a.clone()), D.arange(6.0).reshape(2, 3).t()]
    out = list(D.utils.data.DataLoader(samples, batch_size=None, num_workers=1, multiprocessing_context="spawn",
                                       timeout=60))
    assert type(out[0]) is TwoTensor and out[0].dtype == D.int64 and out[0].b.tolist() == a.tolist()
    assert out[1].tolist() == samples[1].tolist() and out[1].stride() == (1, 3)


def test_worker_numpy_seed_words_are_torchs(torch):
    from torch.utils.data._utils.worker import _generate_state as theirs

    from dispatcher.utils.data.worker import _generate_state as ours

    for base_seed, worker_id in [(0, 0), (1, 3), (2 ** 63 - 1, 7), (123456789012345, 1)]:
        assert ours(base_seed, worker_id) == theirs(base_seed, worker_id)


def test_typing_and_worker_info_frozen():
    loader: D.utils.data.DataLoader[int] = D.utils.data.DataLoader(range(3))
    assert len(loader) == 3
    info = D.utils.data.WorkerInfo(id=0, num_workers=1, seed=5, dataset=None)
    with pytest.raises(AttributeError):
        info.id = 1  # type: ignore[misc]


# --- a training loop fed by a DataLoader ------------------------------------------------------------------------------
def test_training_loop_with_dataloader_matches_torch(torch):
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((24, 3)).astype(np.float32)
    y_np = (x_np @ np.array([[1.0], [-2.0], [0.5]], dtype=np.float32) + 0.3).astype(np.float32)
    w_np = rng.standard_normal((1, 3)).astype(np.float32)

    def train(L, **kw):
        model = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.Tanh(), L.nn.Linear(4, 1))
        with L.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(L.tensor(np.resize(w_np, tuple(p.shape)) * (0.5 + 0.1 * i)))
        opt = L.optim.Adam(model.parameters(), lr=0.05)
        data = data_mod(L).TensorDataset(L.tensor(x_np), L.tensor(y_np))
        losses = []
        for _ in range(3):
            for xb, yb in data_mod(L).DataLoader(data, batch_size=5, shuffle=False, **kw):
                opt.zero_grad()
                loss = L.nn.functional.mse_loss(model(xb), yb)
                loss.backward()
                opt.step()
                losses.append(loss.item())
        return losses
    theirs = train(torch)
    assert len(theirs) == 15
    np.testing.assert_allclose(train(D), theirs, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(train(D, **WORKERS), theirs, rtol=1e-5, atol=1e-6)
