"""Utilities under torch.utils' private names: ``_python_dispatch`` (modes and traceable subclasses) and
``_mode_utils`` (``no_dispatch``, ``all_same_mode``).

Corresponds to torch/utils/_python_dispatch.py and torch/utils/_mode_utils.py; the machinery itself lives in
``dispatcher/modes/``.
"""
