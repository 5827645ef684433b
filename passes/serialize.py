"""Safe serialization of GraphModules: ``save(gm, path)`` / ``load(path)`` to versioned JSON.

Corresponds in purpose to torch.export's serializer (torch/_export/serde/serialize.py), not to
pickling a GraphModule: the file is *data*. Loading never runs anything the file says: no
pickle (constants are read with ``np.load(allow_pickle=False)`` or from base64 bytes), no
``eval`` / ``exec`` / ``import`` of file text. A call target is a string that must name either
an operator registered with the dispatcher (``"aten.add.Tensor"``, looked up in the registry,
never imported) or one of the few Python functions of ``ALLOWED_FUNCTIONS``
(``"operator.getitem"``, the grad-mode setter ``"torch._C._set_grad_enabled"``, ...). Anything
else — unknown targets, wrong versions, malformed values, undefined node references, invalid
or duplicate names, constants whose data does not match their recorded shape / dtype, nesting
deeper than ``MAX_DEPTH`` — is refused with a ``SerializationError`` naming the node and what
was expected.

The format (``FORMAT``, ``VERSION``)::

    {"format": "dispatchkit.graph", "version": 1, "class_name": ..., "traced": true,
     "pytree": null | {"orig_args": [...], "in_spec": spec | null, "out_spec": spec | null},
     "constants_storage": "npz" | "embedded",
     "constants": {"_tensor_constant0": {"shape": [2], "stride": [1], "dtype": "float32",
                                          "requires_grad": false, "data": "<base64>" (embedded only)}},
     "nodes": [{"name": "add", "op": "call_function", "target": "aten.add.Tensor",
                "args": [{"node": "x_1"}, 1], "kwargs": {}, "meta": {"val": ..., "stack_trace": ...}}]}

Values carry explicit type tags: JSON ``null`` / ``true`` / ``false`` / strings / integers stand
for themselves; everything else is a one-key object: ``{"node": name}``, ``{"float": "inf"}``
(repr text, so inf / nan / -0.0 survive), ``{"complex": [re, im]}``, ``{"tuple": [...]}``,
``{"list": [...]}``, ``{"dict": [[key, value], ...]}``, ``{"slice": [start, stop, step]}``,
``{"ellipsis": null}``, ``{"dtype": "float32"}``, ``{"device": "cpu"}``,
``{"memory_format": "contiguous_format"}``, ``{"layout": "strided"}``, ``{"op": "aten.add.Tensor"}``;
a ``meta["val"]`` tensor is ``{"tensor": {"shape", "stride", "storage_offset", "dtype", "device",
"requires_grad"}}`` and comes back as a FakeTensor with that metadata. With ``constants="npz"``
the tensors are stored in ``<path without .json>.npz`` next to the JSON (the name is derived
from the path, never read from the file).

This module is the public entry point; the work is done by serialize_save.py (``to_dict``, ``dumps``, ``save``),
serialize_load.py (``from_dict``, ``loads``, ``load``: the checking loader) and serialize_format.py (the
format's constants, ``SerializationError``, ``ALLOWED_FUNCTIONS`` and the other tables both sides share).
"""

from __future__ import annotations

from .serialize_format import ALLOWED_FUNCTIONS, FORMAT, MAX_DEPTH, VERSION, SerializationError
from .serialize_load import from_dict, load, loads
from .serialize_save import dumps, save, to_dict

__all__ = ["ALLOWED_FUNCTIONS", "FORMAT", "MAX_DEPTH", "VERSION", "SerializationError", "dumps", "from_dict", "load", "loads",
           "save", "to_dict"]
