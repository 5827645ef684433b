"""Utilities under torch.utils' names: ``_python_dispatch`` (modes and traceable subclasses), ``_mode_utils``
(``no_dispatch``, ``all_same_mode``) and ``data`` (datasets, samplers, collation, ``DataLoader``).

Corresponds to torch/utils/_python_dispatch.py, torch/utils/_mode_utils.py and torch/utils/data/; the mode machinery lives in
``dispatcher/modes/``.
"""
