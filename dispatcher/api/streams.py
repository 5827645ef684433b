"""``Tensor.record_stream`` (the streams family's Tensor method; torch has no ``torch.record_stream``).

Corresponds to its python_variable_methods.cpp binding (native_functions.yaml: ``variants: method``), parsed by
PythonArgParser with the signature ``record_stream(Stream s)``. Torch's parser checks a ``Stream`` parameter with
``THPStream_Check`` and, for anything else, fails while writing its own error ("unknown parameter type": the
parser has no printable name for the Stream type): that RuntimeError is what a wrong argument gives there, and
here. The call itself is ``aten::record_stream`` (dispatcher/ops/streams.py: no CPU kernel, as in torch).
"""

from __future__ import annotations

from typing import Any

from ..op_overload import namespace
from ..stream import Stream
from ..tensor import Tensor

aten = namespace("aten")


def record_stream(self: Tensor, *args: Any, **kwargs: Any) -> None:
    """Mark ``self``'s memory as used on stream ``s`` (``aten::record_stream``)."""
    if not isinstance(self, Tensor):  # (called unbound: ``Tensor.record_stream(3, s)``)
        raise TypeError(f"descriptor 'record_stream' for 'torch._C.TensorBase' objects doesn't apply to a "
                        f"'{type(self).__name__}' object")
    if len(args) > 1:
        raise TypeError(f"record_stream() takes 1 positional argument but {len(args)} were given")
    if args:
        s = args[0]
        if not isinstance(s, Stream):
            raise RuntimeError("unknown parameter type")
        if "s" in kwargs:
            raise TypeError("record_stream() got multiple values for argument 's'")
    elif "s" in kwargs:
        s = kwargs["s"]
    else:
        raise TypeError('record_stream() missing 1 required positional arguments: "s"')
    for k in kwargs:
        if k != "s":
            raise TypeError(f"record_stream() got an unexpected keyword argument '{k}'")
    if not isinstance(s, Stream):
        raise RuntimeError("unknown parameter type")
    return aten.record_stream.default(self, s)


def install(T: type) -> None:  # noqa: N803 - the Tensor class
    """Attach ``Tensor.record_stream`` (called by ``tensor_methods.install``)."""
    T.record_stream = record_stream
