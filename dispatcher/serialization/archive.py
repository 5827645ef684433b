"""PyTorch's checkpoint container: a zip archive of uncompressed records under one top-level folder.

Corresponds to caffe2/serialize/inline_container.cc (``PyTorchFileWriter`` / ``PyTorchFileReader``)
as torch/serialization.py uses it (PyTorch 2.13). ``torch.save(obj, "ckpt.pt")`` writes, under
``ckpt/`` (``archive/`` for a file object): ``data.pkl`` (the pickle), ``.format_version``,
``.storage_alignment``, ``byteorder``, ``data/<key>`` (one record of raw little-endian bytes per
storage), ``version`` and ``.data/serialization_id``. Records are stored (no compression) and each
one's bytes start at a multiple of 64 (the local header's extra field pads, as PyTorch's writer does).

Reading is defensive: the archive is only read, never extracted; names that are absolute, contain
``..`` or backslashes, or leave the top-level folder are refused; compressed records (which
``torch.save`` never writes: a decompression bomb's vehicle) are refused; a record's declared size
must fit in the file; a legacy (pre-1.6, non-zip) checkpoint is refused with a clear message.
"""

from __future__ import annotations

import io
import os
import secrets
import struct
import zipfile
from typing import Any

__all__ = ["ArchiveReader", "CheckpointError", "archive_name", "write_archive"]

_ALIGNMENT = 64
_PAD_HEADER_ID = 0x4246  # "FB", the extra-field id PyTorch's writer pads with
_LEGACY_MAGIC = b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19"  # pickle(0x1950a86a20f9469cfc6c), protocol 2


class CheckpointError(RuntimeError):
    """A file that is not a checkpoint this loader accepts (legacy format, unsafe names, bad records)."""


def archive_name(f: Any) -> str:
    """The top-level folder: the file's base name without its last extension, ``archive`` for a file object."""
    if isinstance(f, (str, os.PathLike)):
        base = os.path.basename(os.fspath(f))
        stem, ext = os.path.splitext(base)
        return stem if ext else base
    return "archive"


def write_archive(f: Any, prefix: str, records: list[tuple[str, bytes]]) -> None:
    """Write ``records`` (name, bytes) as PyTorch does: stored, data 64-byte aligned, under ``prefix/``."""
    records = [*records, ("version", b"3\n"),
               (".data/serialization_id", str(int.from_bytes(secrets.token_bytes(16), "little")).zfill(40).encode())]
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
        for name, data in records:
            info = zipfile.ZipInfo(f"{prefix}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            header = 30 + len(info.filename.encode("utf-8")) + 4  # local header + name + the extra field's head
            pad = (-(z.start_dir + header)) % _ALIGNMENT
            info.extra = struct.pack("<HH", _PAD_HEADER_ID, pad) + b"Z" * pad
            z.writestr(info, data)


def _safe_name(name: str) -> bool:
    parts = name.split("/")
    return (bool(name) and not name.startswith("/") and "\\" not in name and ".." not in parts
            and ":" not in parts[0] and "\x00" not in name)


class ArchiveReader:
    """The records of a checkpoint archive, checked (see the module docstring)."""

    def __init__(self, f: Any) -> None:
        if isinstance(f, (str, os.PathLike)):
            with open(f, "rb") as fh:
                raw = fh.read()
        else:
            raw = f.read()
            if isinstance(raw, str):
                raise CheckpointError("torch.load: the file object must be opened in binary mode")
        self.size = len(raw)
        if raw[:2] != b"PK":
            if raw.startswith(_LEGACY_MAGIC):
                raise CheckpointError(
                    "This checkpoint is in PyTorch's legacy (pre-1.6, non-zip) torch.save format, which dispatchkit "
                    "does not load: unpickling it needs the unrestricted pickle loader. Re-save it with a current "
                    "PyTorch (torch.save(torch.load(path, weights_only=True), new_path)).")
            raise CheckpointError("torch.load: the file is not a PyTorch checkpoint (a zip archive written by "
                                  "torch.save); legacy and other formats are not loaded")
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(raw))
        except zipfile.BadZipFile as e:
            raise CheckpointError(f"torch.load: the checkpoint archive is damaged: {e}") from None
        infos = self.zip.infolist()
        if not infos:
            raise CheckpointError("torch.load: the checkpoint archive is empty")
        for info in infos:
            if not _safe_name(info.filename):
                raise CheckpointError(f"torch.load: refusing the checkpoint: unsafe record name {info.filename!r}")
        self.prefix = infos[0].filename.split("/", 1)[0]
        self.records: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            head, _, rest = info.filename.partition("/")
            if head != self.prefix or not rest:
                raise CheckpointError(f"torch.load: refusing the checkpoint: record {info.filename!r} is outside "
                                      f"its folder {self.prefix!r}")
            self.records[rest] = info

    def has(self, name: str) -> bool:
        return name in self.records

    def size_of(self, name: str) -> int:
        return self.records[name].file_size

    def read(self, name: str, expected: int | None = None) -> bytes:
        """The bytes of record ``name`` (of exactly ``expected`` bytes when given), after the size checks."""
        info = self.records.get(name)
        if info is None:
            raise CheckpointError(f"torch.load: the checkpoint has no record {self.prefix}/{name}")
        if info.compress_type != zipfile.ZIP_STORED:
            raise CheckpointError(f"torch.load: record {info.filename} is compressed; torch.save writes stored "
                                  "records only (refused: a compressed record can expand without bound)")
        if info.file_size > self.size or info.compress_size != info.file_size:
            raise CheckpointError(f"torch.load: record {info.filename} declares {info.file_size} bytes, more than "
                                  f"the {self.size}-byte file holds")
        if expected is not None and info.file_size != expected:
            raise CheckpointError(f"torch.load: record {info.filename} holds {info.file_size} bytes but its storage "
                                  f"declares {expected}")
        try:
            return self.zip.read(info)
        except (zipfile.BadZipFile, EOFError, OSError) as e:
            raise CheckpointError(f"torch.load: cannot read record {info.filename}: {e}") from None
