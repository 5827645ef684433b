"""``dispatcher.api``: the torch-level Python surface of the ops, one module per op family.

Each family module (``arithmetic``, ``transcendental``, ``comparison``, ``bitwise``, ``reductions``, ``views``,
``shape``, ``indexing``, ``factories``, ``conversions``, ``random``, ``linalg``, ``activations``,
``normalization``, ``convolution``, ``pooling``) holds both that family's torch-level functions
(``dispatcher.add``) and its Tensor methods and operators (``Tensor.add``, ``x + y``, ``Tensor.add_``). Each
binding calls the aten overload PyTorch's binding calls, with the arguments it passes.
``torch_functions.py`` gathers the functions into the ``dispatcher`` namespace and ``tensor_methods.py``
attaches the methods to ``Tensor``. The rest is shared machinery: ``arguments.py`` (argument parsing
helpers), ``bindings.py`` (the binding makers many ops share), ``from_data.py`` (``tensor`` / ``as_tensor``
/ ``from_numpy``), ``subscripts.py`` (``x[i]`` / ``x[i] = v``), ``tensor_info.py``, ``interop.py`` and
``autograd_methods.py`` (the surface that runs no aten op of its own).

PyTorch counterparts: torch/_C/_VariableFunctions (python_torch_functions.cpp), python_variable_methods.cpp,
torch/functional.py, torch/_tensor.py and torch/csrc/utils/python_arg_parser.cpp.
"""
