"""The allow-listed unpickler ``load`` uses: a small pickle VM that can only build data, never run code.

Corresponds to torch/_weights_only_unpickler.py (PyTorch 2.13, what ``torch.load(weights_only=True)``
runs). The standard unpickler calls whatever a file names (``GLOBAL os.system`` + ``REDUCE`` is
the classic payload); this one interprets the opcodes itself and

* resolves ``GLOBAL module.name`` only from an allow-list (PyTorch's names: the tensor and
  parameter rebuild functions, ``torch.Size``, ``torch.device``, the dtypes, the legacy storage
  classes, ``collections.OrderedDict``, ``builtins.set`` ...; plus what ``add_safe_globals`` adds).
  Anything else is refused before it is imported, with PyTorch's message naming the global;
  modules ``sys``, ``os``, ``posix``, ``nt`` are refused outright;
* calls (``REDUCE``) and instantiates (``NEWOBJ``) only allow-listed callables;
* applies ``BUILD`` state only to OrderedDicts (and allow-listed user classes), appends only to
  lists, sets items only on dicts;
* accepts persistent ids only of the form ``("storage", <storage class>, key, location, numel)``,
  handed to the caller's ``persistent_load``.

Opcodes outside protocol 2's data subset (``INST``, ``OBJ``, ``STACK_GLOBAL``, ``EXT*`` ...) are refused.
"""

from __future__ import annotations

import collections
import contextlib
import pickle
from collections.abc import Callable, Iterator
from struct import unpack
from typing import Any

__all__ = ["Unpickler", "WeightsOnlyError", "add_safe_globals", "clear_safe_globals", "get_safe_globals",
           "safe_globals", "wo_message"]

WeightsOnlyError = pickle.UnpicklingError

#: Python 2 module names a protocol-2 pickle may carry -> Python 3's (the easy subset of _compat_pickle that
#: PyTorch's loader applies, torch/_utils.py; e.g. ``subprocess`` is *not* mapped back from ``commands``)
IMPORT_MAPPING = {
    "__builtin__": "builtins", "copy_reg": "copyreg", "Queue": "queue", "repr": "reprlib",
    "_abcoll": "collections.abc", "UserDict": "collections", "UserList": "collections", "UserString": "collections",
    "whichdb": "dbm", "StringIO": "io", "cStringIO": "io",
}
NAME_MAPPING = {
    ("__builtin__", "xrange"): ("builtins", "range"), ("__builtin__", "reduce"): ("functools", "reduce"),
    ("__builtin__", "intern"): ("sys", "intern"), ("__builtin__", "unichr"): ("builtins", "chr"),
    ("__builtin__", "unicode"): ("builtins", "str"), ("__builtin__", "long"): ("builtins", "int"),
    ("itertools", "izip"): ("builtins", "zip"), ("itertools", "imap"): ("builtins", "map"),
    ("itertools", "ifilter"): ("builtins", "filter"), ("itertools", "ifilterfalse"): ("itertools", "filterfalse"),
    ("itertools", "izip_longest"): ("itertools", "zip_longest"),
    ("UserDict", "IterableUserDict"): ("collections", "UserDict"), ("UserList", "UserList"): ("collections", "UserList"),
    ("UserString", "UserString"): ("collections", "UserString"), ("__builtin__", "basestring"): ("builtins", "str"),
    ("exceptions", "StandardError"): ("builtins", "Exception"), ("UserDict", "UserDict"): ("collections", "UserDict"),
}

_BLOCKED_MODULES = ("sys", "os", "posix", "nt")
_MAX_STRING = 1 << 31  #: longest string / bytes an opcode may declare (larger: refused before reading)

#: globals added by ``add_safe_globals`` (``"module.qualname"`` -> object)
_user_globals: dict[str, Any] = {}


def _name_of(obj: Any) -> str:
    if isinstance(obj, tuple):  # (object, "module.name") as PyTorch allows
        return obj[1]
    return f"{obj.__module__}.{obj.__qualname__}"


def add_safe_globals(safe_globals: list[Any]) -> None:
    """Allow these classes / functions in checkpoints (``torch.serialization.add_safe_globals``)."""
    for obj in safe_globals:
        _user_globals[_name_of(obj)] = obj[0] if isinstance(obj, tuple) else obj


def get_safe_globals() -> list[Any]:
    return list(_user_globals.values())


def clear_safe_globals() -> None:
    _user_globals.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: list[Any]) -> Iterator[None]:
    """Allow these globals for the body of a ``with`` only."""
    saved = dict(_user_globals)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _user_globals.clear()
        _user_globals.update(saved)


def _plain_global(full_path: str) -> str:
    """``builtins.eval`` is shown as ``eval`` in the message, as PyTorch does."""
    return full_path[len("builtins."):] if full_path.startswith("builtins.") else full_path


def unsupported_global(full_path: str) -> pickle.UnpicklingError:
    name = _plain_global(full_path)
    return pickle.UnpicklingError(
        f"Unsupported global: GLOBAL {name} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{name}])` or the `torch.serialization.safe_globals([{name}])` "
        "context manager to allowlist this global if you trust this class/function.")


_UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to "
    "`True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in "
    "arbitrary code execution. Do it only if you got the file from a trusted source."
)


_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default with weights_only "
    "https://pytorch.org/docs/stable/generated/torch.load.html."
)


def wo_message(message: str) -> str:
    """The text of the error ``load`` raises (PyTorch's ``_get_wo_message``, word for word).

    NB: dispatchkit has no ``weights_only=False`` path; the advice is PyTorch's, for PyTorch."""
    if "was not an allowed global by default" in message:
        return ("Weights only load failed. This file can still be loaded, to do so you have two options, "
                "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
                f"\n\t(1) {_UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check the "
                "recommended steps in the following error message.\n\tWeightsUnpickler error: " + message
                + _DOCS_MESSAGE)
    head = f"Weights only load failed. {_UNSAFE_MESSAGE}\n"
    if "is blocked" not in message:
        head += ("Please file an issue with the following so that we can make `weights_only=True` compatible with "
                 "your use case: WeightsUnpickler error: ")
    return head + "\n\n" + message + _DOCS_MESSAGE


# opcodes (pickle's one-byte codes)
_OP = {name: getattr(pickle, name)[0] for name in (
    "PROTO", "STOP", "GLOBAL", "NEWOBJ", "REDUCE", "BUILD", "APPEND", "APPENDS", "SETITEM", "SETITEMS", "MARK",
    "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3", "NONE", "NEWFALSE", "NEWTRUE", "EMPTY_TUPLE", "EMPTY_LIST",
    "EMPTY_DICT", "EMPTY_SET", "BININT", "BININT1", "BININT2", "BINFLOAT", "BINUNICODE", "SHORT_BINSTRING",
    "BINPERSID", "BINGET", "LONG_BINGET", "BINPUT", "LONG_BINPUT", "LONG1", "SHORT_BINBYTES", "BINBYTES")}


class Unpickler:
    """Interpret a protocol-2 pickle with the allow-list ``allowed`` (``"module.name"`` -> object)."""

    def __init__(self, data: bytes, allowed: dict[str, Any], persistent_load: Callable[[tuple], Any],
                 buildable: tuple[type, ...] = (), constructible: tuple[type, ...] = ()) -> None:
        self.data = data
        self.constructible = constructible  #: classes NEWOBJ may call (nn.Parameter)
        self.pos = 0
        self.allowed = allowed
        self.persistent_load = persistent_load
        self.buildable = buildable  #: types BUILD may set state on (besides OrderedDict)
        self.memo: dict[int, Any] = {}

    # --- reading ------------------------------------------------------------------------------------
    def _read(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise pickle.UnpicklingError("pickle data was truncated")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def _readline(self) -> bytes:
        end = self.data.find(b"\n", self.pos)
        if end < 0:
            raise pickle.UnpicklingError("pickle data was truncated")
        line = self.data[self.pos:end]
        self.pos = end + 1
        return line

    def _resolve(self, module: str, name: str) -> Any:
        full_path = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise pickle.UnpicklingError(
                f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked.")
        if full_path in self.allowed:
            return self.allowed[full_path]
        if full_path in _user_globals:
            return _user_globals[full_path]
        raise unsupported_global(full_path)

    def _callable_ok(self, fn: Any) -> bool:
        return any(fn is v for v in self.allowed.values()) or any(fn is v for v in _user_globals.values())

    # --- the VM -------------------------------------------------------------------------------------
    def load(self) -> Any:  # noqa: C901 - one branch per opcode, as in pickle.py
        op = _OP
        stack: list[Any] = []
        metastack: list[list[Any]] = []
        while True:
            code = self._read(1)[0]
            if code == op["GLOBAL"]:
                module = self._readline().decode("utf-8")
                name = self._readline().decode("utf-8")
                if (module, name) in NAME_MAPPING:  # protocol 2 writes Python 2's names (__builtin__.set)
                    module, name = NAME_MAPPING[(module, name)]
                elif module in IMPORT_MAPPING:
                    module = IMPORT_MAPPING[module]
                stack.append(self._resolve(module, name))
            elif code == op["REDUCE"]:
                args = stack.pop()
                fn = stack[-1]
                if not self._callable_ok(fn):
                    raise pickle.UnpicklingError(f"Trying to call reduce for unrecognized function {fn}")
                if not isinstance(args, tuple):
                    raise pickle.UnpicklingError(f"REDUCE arguments must be a tuple, got {type(args).__name__}")
                stack[-1] = fn(*args)
            elif code == op["NEWOBJ"]:
                args = stack.pop()
                cls = stack.pop()
                if any(cls is c for c in self.constructible) and isinstance(args, tuple):
                    stack.append(cls(*args))
                elif any(cls is v for v in _user_globals.values()) and isinstance(cls, type):
                    stack.append(cls.__new__(cls, *args))
                else:
                    raise pickle.UnpicklingError("Can only create new object for nn.Parameter or classes allowlisted "
                                                 f"via `add_safe_globals` but got {cls}")
            elif code == op["BUILD"]:
                state = stack.pop()
                self._build(stack[-1], state)
            elif code == op["BINPERSID"]:
                pid = stack.pop()
                if type(pid) is not tuple or not pid or pid[0] not in ("storage", b"storage"):
                    raise pickle.UnpicklingError(f"Only persistent_load of storage is allowed, but got {pid!r:.80}")
                stack.append(self.persistent_load(pid))
            elif code == op["MARK"]:
                metastack.append(stack)
                stack = []
            elif code in (op["TUPLE"], op["APPENDS"], op["SETITEMS"]):
                items = stack
                if not metastack:
                    raise pickle.UnpicklingError("could not find MARK")
                stack = metastack.pop()
                if code == op["TUPLE"]:
                    stack.append(tuple(items))
                elif code == op["APPENDS"]:
                    self._list(stack).extend(items)
                else:
                    target = self._dict(stack, "SETITEMS")
                    if len(items) % 2:
                        raise pickle.UnpicklingError("odd number of items for SETITEMS")
                    for i in range(0, len(items), 2):
                        target[items[i]] = items[i + 1]
            elif code == op["APPEND"]:
                item = stack.pop()
                self._list(stack).append(item)
            elif code == op["SETITEM"]:
                value, key = stack.pop(), stack.pop()
                self._dict(stack, "SETITEM")[key] = value
            elif code == op["TUPLE1"]:
                stack[-1] = (stack[-1],)
            elif code == op["TUPLE2"]:
                stack[-2:] = [(stack[-2], stack[-1])]
            elif code == op["TUPLE3"]:
                stack[-3:] = [(stack[-3], stack[-2], stack[-1])]
            elif code in _CONSTANTS:
                stack.append(_CONSTANTS[code]())
            elif code == op["BININT"]:
                stack.append(unpack("<i", self._read(4))[0])
            elif code == op["BININT1"]:
                stack.append(self._read(1)[0])
            elif code == op["BININT2"]:
                stack.append(unpack("<H", self._read(2))[0])
            elif code == op["BINFLOAT"]:
                stack.append(unpack(">d", self._read(8))[0])
            elif code == op["LONG1"]:
                n = self._read(1)[0]
                stack.append(int.from_bytes(self._read(n), "little", signed=True))
            elif code in (op["BINUNICODE"], op["BINBYTES"]):
                n = unpack("<I", self._read(4))[0]
                if n > _MAX_STRING:
                    raise pickle.UnpicklingError("String is too long")
                raw = self._read(n)
                stack.append(str(raw, "utf-8", "surrogatepass") if code == op["BINUNICODE"] else raw)
            elif code in (op["SHORT_BINSTRING"], op["SHORT_BINBYTES"]):
                raw = self._read(self._read(1)[0])
                stack.append(raw.decode("ascii") if code == op["SHORT_BINSTRING"] else raw)
            elif code in (op["BINGET"], op["LONG_BINGET"]):
                idx = self._read(1)[0] if code == op["BINGET"] else unpack("<I", self._read(4))[0]
                if idx not in self.memo:
                    raise pickle.UnpicklingError(f"Memo value not found at index {idx}")
                stack.append(self.memo[idx])
            elif code in (op["BINPUT"], op["LONG_BINPUT"]):
                idx = self._read(1)[0] if code == op["BINPUT"] else unpack("<I", self._read(4))[0]
                self.memo[idx] = stack[-1]
            elif code == op["PROTO"]:
                self._read(1)
            elif code == op["STOP"]:
                if len(stack) != 1 or metastack:
                    raise pickle.UnpicklingError("unbalanced pickle stack at STOP")
                return stack.pop()
            else:
                raise pickle.UnpicklingError(f"Unsupported operand {code}")

    def _list(self, stack: list[Any]) -> list[Any]:
        if type(stack[-1]) is not list:
            raise pickle.UnpicklingError(f"Can only append to lists, but got {type(stack[-1])}")
        return stack[-1]

    def _dict(self, stack: list[Any], opcode: str) -> Any:
        if type(stack[-1]) not in (dict, collections.OrderedDict, collections.Counter):
            raise pickle.UnpicklingError(f"Can only {opcode} for dict, collections.OrderedDict, collections.Counter, "
                                         f"but got {type(stack[-1])}")
        return stack[-1]

    def _build(self, inst: Any, state: Any) -> None:
        if type(inst) is collections.OrderedDict and isinstance(state, dict):
            inst.__dict__.update(state)  # a state dict's ``_metadata``
            return
        if type(inst) in self.buildable or any(type(inst) is v for v in _user_globals.values()):
            if hasattr(inst, "__setstate__"):
                inst.__setstate__(state)
                return
            slotstate = None
            if isinstance(state, tuple) and len(state) == 2:
                state, slotstate = state
            if state:
                inst.__dict__.update(state)
            for k, v in (slotstate or {}).items():
                setattr(inst, k, v)
            return
        raise pickle.UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                                     f"`add_safe_globals`, but got {type(inst)}")


_CONSTANTS: dict[int, Callable[[], Any]] = {
    _OP["NONE"]: lambda: None, _OP["NEWFALSE"]: lambda: False, _OP["NEWTRUE"]: lambda: True,
    _OP["EMPTY_TUPLE"]: tuple, _OP["EMPTY_LIST"]: list, _OP["EMPTY_DICT"]: dict, _OP["EMPTY_SET"]: set,
}
