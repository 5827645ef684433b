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


class SchemaArgumentError(RuntimeError, TypeError):
    """Arguments passed to an operator do not match its schema (wrong count, type or name).

    Both a RuntimeError and a TypeError: an operator called directly (``torch.ops.aten.add.Tensor(x, "a")``,
    createStackForSchema) raises RuntimeError in PyTorch, while a torch-level function or Tensor method given the
    same arguments (``torch.add(x, "a")``, the Python argument parser) raises TypeError. Ours reach the same
    schema binding either way, so the error is an instance of both and code catching either catches it.
    """


class UndefinedTensorError(RuntimeError):
    """None (an undefined tensor) bound to a Tensor argument that is not optional: PyTorch's
    "Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument #1 'other'"."""


class DispatchError(NotImplementedError):
    """No kernel could be found for the key a call dispatched to."""


class RegistrationError(RuntimeError):
    """A registration (define / impl / fallback / py_impl) broke one of the dispatcher's rules."""


class AmbiguousAutogradOtherError(RuntimeError):
    """An op has a CompositeImplicitAutograd kernel and a kernel on a backend mapped to AutogradOther."""
