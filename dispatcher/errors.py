"""Error classes raised by the dispatcher.

Each error names the operator, the argument and what was expected, in PyTorch's
words where PyTorch has a message. Corresponds loosely to c10/util/Exception.h:
PyTorch raises RuntimeError / NotImplementedError / TypeError from C++, so our
classes subclass the same built-ins and code written for PyTorch that catches
those still catches ours.
"""

from __future__ import annotations


class SchemaError(RuntimeError):
    """A schema string could not be parsed, or arguments did not fit a schema."""


class SchemaArgumentError(TypeError):
    """Arguments passed to an operator do not match its schema (wrong count, type or name)."""


class DispatchError(NotImplementedError):
    """No kernel could be found for the key a call dispatched to."""


class RegistrationError(RuntimeError):
    """A registration (define / impl / fallback / py_impl) broke one of the dispatcher's rules."""


class AmbiguousAutogradOtherError(RuntimeError):
    """An op has a CompositeImplicitAutograd kernel and a kernel on a backend mapped to AutogradOther."""
