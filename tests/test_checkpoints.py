"""Checkpoints: torch.save / torch.load in PyTorch's zip format both ways through the torch oracle, Module state
dicts, .safetensors, and a corpus of hostile files that must be refused without running anything."""

from __future__ import annotations

import collections
import io
import os
import pickle
import struct
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import dispatcher as D
from dispatcher.serialization import CheckpointError


def _sample(T: Any) -> dict[str, Any]:  # noqa: N803
    base = T.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    return {
        "base": base, "row": base[1], "col": base[:, 2], "t": base.t(),
        "param": T.nn.Parameter(T.tensor([1.0, -2.0])), "frozen": T.nn.Parameter(T.ones(2), requires_grad=False),
        "grad": T.tensor([0.5, 0.25], requires_grad=True), "f64": T.tensor([1.5], dtype=T.float64),
        "i64": T.tensor([1, 2, 3]), "i32": T.tensor([4], dtype=T.int32), "u8": T.tensor([7], dtype=T.uint8),
        "b": T.tensor([True, False]), "f16": T.tensor([0.5], dtype=T.float16), "scalar": T.tensor(3.0),
        "empty": T.zeros(0, 3),
        "size": T.Size([2, 3]), "dtype": T.float16, "device": T.device("cpu"),
        "od": collections.OrderedDict([("x", 1), ("y", [2.5, "s", None, True, False])]),
        "nested": ({"k": [base[0, 1:3]]}, [1, (2, 3)], b"bytes", {1, 2}, 1 + 2j),
        "state_dict": T.nn.Linear(3, 2).state_dict(),
    }


def _same(a: Any, b: Any) -> None:
    """Structure, types (by name), values, dtypes, geometry and requires_grad equal."""
    if hasattr(a, "dtype") and hasattr(a, "stride"):
        assert type(a).__name__ == type(b).__name__
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        assert tuple(a.shape) == tuple(b.shape) and tuple(a.stride()) == tuple(b.stride())
        assert a.storage_offset() == b.storage_offset() and a.requires_grad == b.requires_grad
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    elif isinstance(a, dict):
        assert type(a).__name__ == type(b).__name__ and list(a) == list(b)
        for k in a:
            _same(a[k], b[k])
        assert getattr(a, "_metadata", None) == getattr(b, "_metadata", None)
    elif isinstance(a, (list, tuple)):
        assert type(a).__name__ == type(b).__name__ and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        assert str(a) == str(b) and type(a).__name__ == type(b).__name__


def _shares(lib: Any, a: Any, b: Any) -> bool:
    if lib is D:
        return a._storage is b._storage
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


@pytest.mark.parametrize("direction", ["ours_to_torch", "torch_to_ours", "ours_to_ours"])
def test_round_trip(torch: Any, tmp_path: Path, direction: str) -> None:
    writer, reader = {"ours_to_torch": (D, torch), "torch_to_ours": (torch, D), "ours_to_ours": (D, D)}[direction]
    path = tmp_path / "ckpt.pt"
    written = _sample(writer)
    writer.save(written, path)
    loaded = reader.load(path)
    expected = _sample(reader)
    for k in ("state_dict",):  # random initial values: compare against what was written
        expected[k] = collections.OrderedDict((n, reader.tensor(v.detach().numpy())) for n, v in written[k].items())
        expected[k]._metadata = written[k]._metadata
    _same(loaded, expected)
    # views still share their storage after loading, and see each other's writes
    assert _shares(reader, loaded["base"], loaded["row"]) and _shares(reader, loaded["base"], loaded["t"])
    with reader.no_grad():
        loaded["row"].mul_(10)
    assert loaded["base"][1, 0].item() == 40 and loaded["t"][0, 1].item() == 40


def test_archive_layout_like_torch(torch: Any, tmp_path: Path) -> None:
    D.save({"w": D.ones(2)}, tmp_path / "model.v1.pt")
    torch.save({"w": torch.ones(2)}, tmp_path / "theirs.v1.pt")
    ours = zipfile.ZipFile(tmp_path / "model.v1.pt")
    theirs = zipfile.ZipFile(tmp_path / "theirs.v1.pt")
    strip = [n.split("/", 1)[1] for n in theirs.namelist()]
    assert [n.split("/", 1)[1] for n in ours.namelist()] == strip
    assert ours.namelist()[0] == "model.v1/data.pkl"
    for info in ours.infolist():
        assert info.compress_type == zipfile.ZIP_STORED
        with open(tmp_path / "model.v1.pt", "rb") as fh:  # data starts on a 64-byte boundary
            fh.seek(info.header_offset + 26)
            name_len, extra_len = struct.unpack("<HH", fh.read(4))
        assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0
    for name in (".format_version", ".storage_alignment", "byteorder", "version"):
        assert ours.read(f"model.v1/{name}") == theirs.read(f"theirs.v1/{name}")
    buf = io.BytesIO()
    D.save(D.zeros(1), buf)
    assert zipfile.ZipFile(io.BytesIO(buf.getvalue())).namelist()[0] == "archive/data.pkl"


def test_module_state_dict_round_trip(torch: Any, tmp_path: Path) -> None:
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.LayerNorm(3), torch.nn.Linear(3, 2))
    torch.save(theirs.state_dict(), tmp_path / "t.pt")
    ours = D.nn.Sequential(D.nn.Linear(4, 3), D.nn.LayerNorm(3), D.nn.Linear(3, 2))
    ours.load_state_dict(D.load(tmp_path / "t.pt"))
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(ours(D.tensor(x)).detach().numpy(), theirs(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    D.save(ours.state_dict(), tmp_path / "o.pt")
    again = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.LayerNorm(3), torch.nn.Linear(3, 2))
    again.load_state_dict(torch.load(tmp_path / "o.pt"))
    for (n1, v1), (n2, v2) in zip(theirs.state_dict().items(), again.state_dict().items()):
        assert n1 == n2 and torch.equal(v1, v2)
    sd = D.load(tmp_path / "o.pt")
    assert list(sd) == list(ours.state_dict()) and sd._metadata == ours.state_dict()._metadata


def test_optimizer_and_scheduler_state_dicts_round_trip(tmp_path: Path) -> None:
    p = D.nn.Parameter(D.ones(3))
    opt = D.optim.SGD([p], lr=0.1, momentum=0.9)
    sched = D.optim.lr_scheduler.StepLR(opt, 2)
    p.grad = D.ones(3)
    opt.step()
    sched.step()
    D.save({"opt": opt.state_dict(), "sched": sched.state_dict()}, tmp_path / "s.pt")
    back = D.load(tmp_path / "s.pt")
    _same(back["opt"], opt.state_dict())
    assert back["sched"] == sched.state_dict()


def test_safetensors_round_trip(torch: Any, tmp_path: Path) -> None:
    st_torch = pytest.importorskip("safetensors.torch")
    tensors = {"w": D.tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), "i": D.tensor([1, 2]),
               "h": D.tensor([0.5], dtype=D.float16)}
    D.serialization.save_safetensors(tensors, tmp_path / "a.safetensors", metadata={"format": "pt"})
    theirs = st_torch.load_file(str(tmp_path / "a.safetensors"))
    for k, v in tensors.items():
        np.testing.assert_array_equal(theirs[k].numpy(), v.numpy())
    st_torch.save_file({"x": torch.arange(4.0)}, str(tmp_path / "b.safetensors"))
    back = D.serialization.load_safetensors(tmp_path / "b.safetensors")
    np.testing.assert_array_equal(back["x"].numpy(), np.arange(4.0, dtype=np.float32))
    base = D.ones(4)
    with pytest.raises(RuntimeError, match="Some tensors share memory"):
        D.serialization.save_safetensors({"a": base, "b": base[1:]}, tmp_path / "c.safetensors")


# --- hostile checkpoints ------------------------------------------------------------------------------------------


def _zip(records: dict[str, bytes], compress: int = zipfile.ZIP_STORED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=compress) as z:
        for name, data in records.items():
            z.writestr(name, data)
    return buf.getvalue()


def _checkpoint(payload: bytes, extra: dict[str, bytes] | None = None) -> bytes:
    return _zip({"archive/data.pkl": payload, "archive/byteorder": b"little", "archive/version": b"3\n",
                 **(extra or {})})


def _storage_pickle(key: str, numel: int, size: tuple, stride: tuple, offset: int = 0) -> bytes:
    """A _rebuild_tensor_v2 pickle with a hand-written persistent id (protocol 2)."""
    def s(text: str) -> bytes:
        raw = text.encode()
        return pickle.BINUNICODE + struct.pack("<I", len(raw)) + raw

    def ints(values: tuple) -> bytes:
        return pickle.MARK + b"".join(pickle.BININT + struct.pack("<i", v) for v in values) + pickle.TUPLE

    return (pickle.PROTO + b"\x02" + pickle.GLOBAL + b"torch._utils\n_rebuild_tensor_v2\n" + pickle.MARK
            + pickle.MARK + s("storage") + pickle.GLOBAL + b"torch\nFloatStorage\n" + s(key) + s("cpu")
            + pickle.BININT + struct.pack("<i", numel) + pickle.TUPLE + pickle.BINPERSID
            + pickle.BININT + struct.pack("<i", offset) + ints(size) + ints(stride) + pickle.NEWFALSE
            + pickle.GLOBAL + b"collections\nOrderedDict\n" + pickle.EMPTY_TUPLE + pickle.REDUCE
            + pickle.TUPLE + pickle.REDUCE + pickle.STOP)


class _Reduce:
    """An object whose pickle calls ``fn(*args)`` when unpickled by a standard unpickler."""

    def __init__(self, fn: Any, *args: Any) -> None:
        self.fn, self.args = fn, args

    def __reduce__(self) -> Any:
        return self.fn, self.args


def _hostile_corpus(sentinel: Path) -> dict[str, tuple[bytes, type, str]]:
    """name -> (file bytes, the exception, a fragment of its message)."""
    touch = f"touch {sentinel}"
    evil_eval = f"open({str(sentinel)!r}, 'w').write('pwned')"
    bomb = b"\0" * (16 << 20)  # 16 MiB of zeros: deflates to ~16 KiB
    return {
        "os_system_reduce": (_checkpoint(pickle.dumps(_Reduce(os.system, touch), protocol=2)),
                             pickle.UnpicklingError, "whose module posix is blocked"),
        "builtins_eval": (_checkpoint(pickle.dumps({"w": _Reduce(eval, evil_eval)}, protocol=2)),
                          pickle.UnpicklingError, "GLOBAL eval was not an allowed global by default"),
        "subprocess_call": (_checkpoint(pickle.dumps([_Reduce(subprocess.call, ["touch", str(sentinel)])],
                                                     protocol=2)),
                            pickle.UnpicklingError, "GLOBAL commands.call was not an allowed global"),
        "nested_exec": (_checkpoint(pickle.dumps({"a": [({"b": _Reduce(exec, evil_eval)},)]}, protocol=2)),
                        pickle.UnpicklingError, "GLOBAL exec was not an allowed global"),
        "protocol0_inst": (_checkpoint(b"(S'" + touch.encode() + b"'\nios\nsystem\n."),
                           pickle.UnpicklingError, "Unsupported operand"),
        "protocol4_stack_global": (_checkpoint(pickle.dumps(_Reduce(os.system, touch), protocol=4)),
                                   pickle.UnpicklingError, "Unsupported operand"),
        "getattr_gadget": (_checkpoint(pickle.dumps(_Reduce(getattr, "os", "system"), protocol=2)),
                           pickle.UnpicklingError, "GLOBAL getattr was not an allowed global"),
        "storage_larger_than_file": (_checkpoint(_storage_pickle("0", 1 << 30, (1 << 30,), (1,)),
                                                 {"archive/data/0": b"\0" * 16}),
                                     CheckpointError, "holds 16 bytes but its storage declares 4294967296"),
        "geometry_outside_storage": (_checkpoint(_storage_pickle("0", 4, (4, 4), (4, 1)),
                                                 {"archive/data/0": b"\0" * 16}),
                                     pickle.UnpicklingError, "reaches element 15 of a storage of 4 elements"),
        "storage_key_traversal": (_checkpoint(_storage_pickle("../../etc/passwd", 1, (1,), (1,))),
                                  pickle.UnpicklingError, "refusing the storage key"),
        "zip_path_traversal": (_zip({"archive/data.pkl": pickle.dumps(1, protocol=2), "../../evil.pt": b"x"}),
                               CheckpointError, "unsafe record name '../../evil.pt'"),
        "zip_absolute_name": (_zip({"/etc/archive/data.pkl": pickle.dumps(1, protocol=2)}),
                              CheckpointError, "unsafe record name"),
        "compressed_bomb": (_zip({"archive/data.pkl": pickle.dumps(1, protocol=2), "archive/data/0": bomb},
                                 zipfile.ZIP_DEFLATED),
                            CheckpointError, "is compressed"),
        "legacy_format": (pickle.dumps(0x1950A86A20F9469CFC6C, protocol=2) + b"rest",
                          CheckpointError, "legacy (pre-1.6, non-zip)"),
        "not_a_checkpoint": (b"hello world", CheckpointError, "not a PyTorch checkpoint"),
        "newobj_arbitrary": (_checkpoint(pickle.PROTO + b"\x02" + pickle.GLOBAL + b"torch\nTensor\n"
                                         + pickle.EMPTY_TUPLE + pickle.NEWOBJ + pickle.STOP),
                             pickle.UnpicklingError, "Can only create new object"),
        "build_on_list": (_checkpoint(pickle.PROTO + b"\x02" + pickle.EMPTY_LIST + pickle.EMPTY_DICT + pickle.BUILD
                                      + pickle.STOP), pickle.UnpicklingError, "Can only build"),
    }


def test_hostile_checkpoints_are_refused(tmp_path: Path) -> None:
    sentinel = tmp_path / "SENTINEL"
    for name, (data, error, fragment) in _hostile_corpus(sentinel).items():
        path = tmp_path / f"{name}.pt"
        path.write_bytes(data)
        with pytest.raises(error) as caught:
            D.load(path)
        assert fragment in str(caught.value), (name, str(caught.value))
        with pytest.raises(error):
            D.load(io.BytesIO(data), weights_only=False)  # no unrestricted path either
        assert not sentinel.exists(), name


def test_refusal_messages_equal_torch(torch: Any, tmp_path: Path) -> None:
    sentinel = tmp_path / "SENTINEL"
    corpus = _hostile_corpus(sentinel)
    for name in ("os_system_reduce", "builtins_eval", "subprocess_call", "nested_exec", "getattr_gadget"):
        data = corpus[name][0]
        with pytest.raises(pickle.UnpicklingError) as theirs:
            torch.load(io.BytesIO(data))
        with pytest.raises(pickle.UnpicklingError) as ours:
            D.load(io.BytesIO(data))
        assert str(ours.value) == str(theirs.value), name
    assert not sentinel.exists()


def test_safe_globals_allow_a_user_class(tmp_path: Path) -> None:
    D.save({"c": collections.Counter("aab"), "point": _Point(1, 2)}, tmp_path / "p.pt")
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL \S*_Point was not an allowed"):
        D.load(tmp_path / "p.pt")
    with D.serialization.safe_globals([_Point]):
        back = D.load(tmp_path / "p.pt")
    assert back["point"] == _Point(1, 2) and back["c"] == collections.Counter("aab")
    assert _Point not in D.serialization.get_safe_globals()


class _Point:
    def __init__(self, x: int, y: int) -> None:
        self.x, self.y = x, y

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Point) and (self.x, self.y) == (other.x, other.y)
