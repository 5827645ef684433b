"""One namespace per library for the subclass / mode parity tests: the same program runs on torch and here.

``env("torch")`` / ``env("ours")`` give the pieces under one set of names (``E.T`` is the torch module or
dispatcher, ``E.lt`` the logging_tensor testing module, ``E.TwoTensor``, ``E.pd`` = utils._python_dispatch,
``E.make_fx`` ...). ``outcome(fn)`` runs ``fn`` and returns ``("ok", value)`` or ``("error", class name, first
line of the message)``, with our spellings of op names turned into torch's (``dispatcher.ops.aten.x`` ->
``torch.ops.aten.x``; torch's ``torch._ops.aten.x`` -> ``torch.ops.aten.x``) so outcomes compare equal.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Any


def env(which: str) -> types.SimpleNamespace:
    if which == "torch":
        import torch
        import torch.testing._internal.logging_tensor as lt
        import torch.utils._mode_utils as mu
        import torch.utils._python_dispatch as pd
        from torch._subclasses.fake_tensor import FakeTensorMode
        from torch.fx.experimental.proxy_tensor import get_isolated_graphmodule, make_fx
        from torch.testing._internal.two_tensor import TwoTensor, TwoTensorMode
        from torch.utils._pytree import tree_map, tree_map_only

        return types.SimpleNamespace(T=torch, lt=lt, mu=mu, pd=pd, FakeTensorMode=FakeTensorMode, make_fx=make_fx,
                                     get_isolated_graphmodule=get_isolated_graphmodule, TwoTensor=TwoTensor,
                                     TwoTensorMode=TwoTensorMode, tree_map=tree_map, tree_map_only=tree_map_only,
                                     reentrant=torch.overrides.enable_reentrant_dispatch, name="torch")
    import dispatcher
    import dispatcher.testing._internal.logging_tensor as lt
    import dispatcher.utils._mode_utils as mu
    import dispatcher.utils._python_dispatch as pd
    from dispatcher.fake import FakeTensorMode
    from dispatcher.modes import enable_reentrant_dispatch
    from dispatcher.testing._internal.two_tensor import TwoTensor, TwoTensorMode
    from tracer import get_isolated_graphmodule, make_fx
    from tracer.pytree import tree_map

    def tree_map_only(cls: Any, fn: Any, tree: Any) -> Any:
        return tree_map(lambda x: fn(x) if isinstance(x, cls) else x, tree)

    return types.SimpleNamespace(T=dispatcher, lt=lt, mu=mu, pd=pd, FakeTensorMode=FakeTensorMode, make_fx=make_fx,
                                 get_isolated_graphmodule=get_isolated_graphmodule, TwoTensor=TwoTensor,
                                 TwoTensorMode=TwoTensorMode, tree_map=tree_map, tree_map_only=tree_map_only,
                                 reentrant=enable_reentrant_dispatch, name="ours")


def normalize(text: str) -> str:
    return text.replace("dispatcher.ops.", "torch.ops.").replace("torch._ops.", "torch.ops.").replace(
        "dispatcher.", "torch.")


def outcome(fn: Any) -> tuple:
    try:
        value = fn()
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        lines = str(e).strip().splitlines()
        return ("error", type(e).__name__, normalize(lines[0] if lines else ""))
    return ("ok", value)


def both(torch: Any, program: Any) -> tuple[Any, Any]:
    """``program(E)`` run on torch and here (``torch``: the oracle fixture, so a missing torch skips)."""
    return program(env("torch")), program(env("ours"))


def skip_logging_tensor_in_pytest_capture(monkeypatch: Any) -> Iterator[None]:
    """(a fixture body) Records of the "LoggingTensor" logger carry (args, kwargs, results), not %-arguments:
    pytest's capture handlers, when such a record reaches them (torch's logging setup can attach them to that
    logger), cannot format it and fail the test; they skip those records. torch's ``capture_logs`` leaves that
    logger at INFO (it sets the level and ``propagate`` and never restores them): both are put back after the test,
    so a later test's torch ``LoggingTensor`` does not log into pytest's handlers."""
    import logging

    from _pytest.logging import LogCaptureHandler

    handle = LogCaptureHandler.handle
    monkeypatch.setattr(LogCaptureHandler, "handle",
                        lambda self, record: False if record.name == "LoggingTensor" else handle(self, record))
    log = logging.getLogger("LoggingTensor")
    saved = (log.level, log.propagate)
    try:
        yield
    finally:
        log.setLevel(saved[0])
        log.propagate = saved[1]
