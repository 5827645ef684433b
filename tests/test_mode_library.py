"""The ready-made modes against torch's: LoggingTensorMode / LoggingTensor, FlopCounterMode, MetaCheckMode.

* The lines ``capture_logs_with_logging_tensor_mode`` collects for every program of tests/test_programs.py
  and tests/test_autograd_programs.py equal the lines torch's (torch/testing/_internal/logging_tensor.py)
  collects, after removing torch's two printing quirks (``torch._ops.`` before op names, and quotes from
  ``str`` of lists of strings), and with floats rounded (float32 sums differ in the last digits);
* ``FlopCounterMode``: per-op counts and totals equal torch.utils.flop_counter's on every program (MLP,
  attention, transformer block, training steps with backward), also on fake tensors; the options add mv / dot
  and elementwise ops;
* ``MetaCheckMode`` finds nothing wrong in the op library on every program, and names the op when a kernel
  and its Meta kernel disagree.
"""

from __future__ import annotations

import contextlib
import logging
import re
import warnings
import zlib
from typing import Any

import numpy as np
import pytest

import dispatcher
from dispatcher import Library
from dispatcher.fake import FakeTensorMode
from dispatcher.modes import (
    FlopCounterMode,
    LoggingTensor,
    LoggingTensorMode,
    MetaCheckMode,
    MetadataMismatchError,
    capture_logs,
    capture_logs_with_logging_tensor_mode,
    register_flop_formula,
)
from dispatcher.modes.flop_counter import flop_registry


def _forward_programs() -> list:
    from tests.test_programs import MARKS, PROGRAMS

    return [pytest.param("fwd", n, marks=MARKS[n]) for n in PROGRAMS]


def _backward_programs() -> list:
    from tests.test_autograd_programs import MARKS, PROGRAMS

    return [pytest.param("bwd", n, marks=MARKS[n]) for n in PROGRAMS]


ALL_PROGRAMS = _forward_programs() + _backward_programs()


def program_and_inputs(kind: str, name: str) -> tuple[Any, Any]:
    """(fn, make_inputs(T)) for a program of tests/test_programs.py ("fwd") or test_autograd_programs.py ("bwd")."""
    if kind == "fwd":
        from tests.test_programs import PROGRAMS, _to_module

        fn, make = PROGRAMS[name]
        arrays = make(np.random.default_rng(zlib.crc32(name.encode())))
        return fn, lambda T: _to_module(T, arrays)
    from tests.test_autograd_programs import PROGRAMS, _tensors

    fn, make = PROGRAMS[name]
    arrays = make(np.random.default_rng(zlib.crc32(name.encode())))
    return fn, lambda T: _tensors(T, arrays, "float64")


def run(fn: Any, T: Any, inputs: dict) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(T, T.nn.functional, **inputs)


_FLOAT = re.compile(r"-?\d+\.\d+(e[-+]?\d+)?")


def normalize(lines: list[str]) -> list[str]:
    """torch's lines in our spelling: no ``torch._ops.`` prefix, no quotes, floats to 4 significant digits."""
    out = []
    for line in lines:
        line = line.replace("torch._ops.", "").replace("'", "")
        out.append(_FLOAT.sub(lambda m: f"{float(m.group(0)):.4g}", line))
    return out


# --- LoggingTensorMode ------------------------------------------------------------------------------------------
class _TorchLogging:
    """torch's logging_tensor module with ``capture_logs`` made robust under pytest.

    torch's LoggingTensor logs records whose arguments are not a format string's; if any other handler sees
    them (pytest's capture handlers end up on the "LoggingTensor" logger once torch._dynamo's logging is set
    up), formatting fails with a TypeError inside the op. Here the logger has only the capturing handler while
    it captures, and is restored afterwards.
    """

    def __init__(self, module: Any) -> None:
        self.LoggingTensor = module.LoggingTensor
        self.LoggingTensorMode = module.LoggingTensorMode
        self._module = module

    @contextlib.contextmanager
    def capture_logs(self, is_mode: bool = False) -> Any:
        log = logging.getLogger("LoggingTensor")
        saved = (list(log.handlers), log.propagate, log.level)
        log.handlers = []
        try:
            with self._module.capture_logs(is_mode) as lines:
                yield lines
        finally:
            log.handlers, log.propagate = saved[0], saved[1]
            log.setLevel(saved[2])

    @contextlib.contextmanager
    def capture_logs_with_logging_tensor_mode(self) -> Any:
        with self.LoggingTensorMode(), self.capture_logs(True) as lines:
            yield lines


@pytest.fixture
def torch_logging(torch: Any) -> Any:
    from torch.testing._internal import logging_tensor

    return _TorchLogging(logging_tensor)


@pytest.mark.parametrize(("kind", "name"), ALL_PROGRAMS)
def test_logging_mode_lines_equal_torchs(torch_logging: Any, torch: Any, kind: str, name: str) -> None:
    torch_capture = torch_logging.capture_logs_with_logging_tensor_mode

    fn, inputs = program_and_inputs(kind, name)
    theirs_in, ours_in = inputs(torch), inputs(dispatcher)
    with torch_capture() as theirs:
        run(fn, torch, theirs_in)
    with capture_logs_with_logging_tensor_mode() as ours:
        run(fn, dispatcher, ours_in)
    theirs, ours = normalize(theirs), normalize(ours)
    first = next((i for i, (o, t) in enumerate(zip(ours, theirs)) if o != t), min(len(ours), len(theirs)))
    assert ours == theirs, f"line {first}:\n torch: {theirs[first:first + 3]}\n ours:  {ours[first:first + 3]}"


def test_logging_mode_records_calls_and_formats_them() -> None:
    x, y = dispatcher.ones(4, 4), dispatcher.ones(4, dtype=dispatcher.int64)
    with LoggingTensorMode() as mode:
        z = x + y
        values, indices = z.max(1)
        z.view(2, 8)
    assert [str(c.func) for c in mode.calls] == ["aten.add.Tensor", "aten.max.dim", "aten.view.default"]
    call = mode.calls[0]
    assert call.args == (x, y) and call.kwargs == {} and call.outputs is z
    assert mode.calls[1].outputs == (values, indices)
    assert mode.lines == [
        "$2: f32[4, 4] = aten.add.Tensor($0, $1)",
        "($3: f32[4], $4: i64[4]) = aten.max.dim($2, 1)",
        "$5: f32[2, 8] = aten.view.default($2, [2, 8])",
    ]
    assert mode.format() == "\n".join(mode.lines)
    mode.clear()
    assert mode.calls == [] and mode.lines == []


def test_logging_mode_prints_enum_codes_by_name() -> None:
    x = dispatcher.ones(2, 3).t()
    with LoggingTensorMode() as mode:
        x.contiguous()
    assert mode.lines == ["$1: f32[3, 2] = aten.clone.default($0, memory_format=torch.contiguous_format)"]


def test_logging_mode_writes_to_a_logger() -> None:
    log = logging.getLogger("tests.h8.logging_mode")
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep()
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    try:
        with LoggingTensorMode(logger="tests.h8.logging_mode", level=logging.DEBUG, record=False) as mode:
            dispatcher.ones(2) * 2
    finally:
        log.removeHandler(handler)
    assert [r.getMessage() for r in records] == mode.lines
    assert len(records) == 2 and all(r.levelno == logging.DEBUG for r in records)
    assert str(records[1].op_call.func) == "aten.mul.Tensor"
    assert mode.calls == []  # record=False keeps no tensors alive


def test_logging_mode_ids_do_not_keep_tensors_alive() -> None:
    import gc
    import weakref

    with LoggingTensorMode(record=False) as mode:
        t = dispatcher.ones(3) + 1
        ref = weakref.ref(t)
    del t
    gc.collect()
    assert ref() is None and len(mode.lines) == 2


def test_logging_mode_nests_with_other_modes_in_torchs_order(torch_logging: Any, torch: Any) -> None:
    """The innermost mode logs first; the outer one sees what the inner one issued (here: the same ops)."""

    def scenario(T: Any, Mode: Any) -> list[list[str]]:
        outer, inner = Mode(), Mode()
        x = T.ones(2, 2)
        with outer, inner:
            (x * 2).sum()
        return [outer.lines, inner.lines]

    class TorchLines(torch_logging.LoggingTensorMode):
        def __init__(self) -> None:
            super().__init__()
            self.lines: list[str] = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
            self.lines.append(str(func))
            return super().__torch_dispatch__(func, types, args, kwargs)

    theirs = scenario(torch, TorchLines)
    ours = [[line.split(" = ")[1].split("(")[0] for line in lines] for lines in scenario(dispatcher, LoggingTensorMode)]
    assert ours == theirs


# --- LoggingTensor ----------------------------------------------------------------------------------------------
def _logging_tensor_program(T: Any, wrap: Any) -> Any:
    a = wrap(T.from_numpy(np.arange(4.0, dtype=np.float32).reshape(2, 2)))
    b = a + T.ones(2, 2)
    b.mul_(2)
    c = T.cat([b, a]).sum(0)
    return a, b, c


def test_logging_tensor_lines_equal_torchs(torch_logging: Any, torch: Any) -> None:
    TorchLoggingTensor, torch_capture_logs = torch_logging.LoggingTensor, torch_logging.capture_logs  # noqa: N806

    with torch_capture_logs() as theirs:
        t_out = _logging_tensor_program(torch, TorchLoggingTensor)
    with capture_logs() as ours:
        o_out = _logging_tensor_program(dispatcher, LoggingTensor)
    assert normalize(ours) == normalize(theirs)
    assert len(ours) == 4 and "aten.add.Tensor($0, tensor([[1., 1.]," in ours[0]
    for o, t in zip(o_out, t_out):
        assert type(o) is LoggingTensor and tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(o.elem.numpy(), t.elem.numpy())


def test_logging_tensor_with_autograd(torch_logging: Any, torch: Any) -> None:
    """A LoggingTensor that requires grad: forward and backward ops are logged, the grad is a LoggingTensor."""
    TorchLoggingTensor, torch_capture_logs = torch_logging.LoggingTensor, torch_logging.capture_logs  # noqa: N806

    def scenario(T: Any, cls: Any, capture: Any) -> tuple[list[str], Any]:
        x = cls(T.from_numpy(np.array([1.0, -2.0, 3.0])), requires_grad=True)
        with capture() as lines:
            (x * x).relu().sum().backward()
        return lines, x.grad

    theirs, t_grad = scenario(torch, TorchLoggingTensor, torch_capture_logs)
    ours, o_grad = scenario(dispatcher, LoggingTensor, capture_logs)
    assert normalize(ours) == normalize(theirs)
    assert type(o_grad) is LoggingTensor
    np.testing.assert_allclose(o_grad.elem.numpy(), t_grad.elem.numpy())


def test_capture_logs_restores_the_logger() -> None:
    from dispatcher.modes.logging_tensor import logger

    before = (logger.level, logger.propagate, list(logger.handlers))
    with pytest.raises(ZeroDivisionError), capture_logs():
        1 / 0  # noqa: B018
    assert (logger.level, logger.propagate, list(logger.handlers)) == before


# --- FlopCounterMode --------------------------------------------------------------------------------------------
def _flops(T: Any, counter_cls: Any, fn: Any, inputs: dict, **options: Any) -> tuple[int, dict[str, int]]:
    with counter_cls(display=False, **options) as fc:
        run(fn, T, inputs)
    counts = fc.get_flop_counts().get("Global", {})
    return fc.get_total_flops(), {str(k): v for k, v in counts.items()}


@pytest.mark.parametrize(("kind", "name"), ALL_PROGRAMS)
def test_flop_counts_equal_torchs(torch: Any, kind: str, name: str) -> None:
    from torch.utils.flop_counter import FlopCounterMode as TorchFlopCounterMode

    fn, inputs = program_and_inputs(kind, name)
    theirs = _flops(torch, TorchFlopCounterMode, fn, inputs(torch))
    ours = _flops(dispatcher, FlopCounterMode, fn, inputs(dispatcher))
    assert ours == theirs


def test_flop_counts_of_known_programs_are_not_trivial(torch: Any) -> None:
    """The MLP, attention and transformer block programs count matrix products (the comparison is not 0 == 0)."""
    for kind, name in (("fwd", "mlp"), ("fwd", "attention"), ("fwd", "transformer_block"), ("bwd", "mlp_sgd_steps")):
        fn, inputs = program_and_inputs(kind, name)
        total, counts = _flops(dispatcher, FlopCounterMode, fn, inputs(dispatcher))
        assert total > 0 and set(counts) <= {"aten.mm", "aten.addmm", "aten.bmm", "aten.baddbmm"}
    fn, inputs = program_and_inputs("fwd", "mlp")
    total, counts = _flops(dispatcher, FlopCounterMode, fn, inputs(dispatcher))
    assert total == counts["aten.mm"] == 2 * (8 * 16 * 32) + 2 * (8 * 32 * 4)


def test_flop_formulas() -> None:
    a, b = dispatcher.ones(3, 4), dispatcher.ones(4, 5)
    with FlopCounterMode(display=False) as fc:
        dispatcher.mm(a, b)
        dispatcher.addmm(dispatcher.ones(5), a, b)
        dispatcher.bmm(dispatcher.ones(2, 3, 4), dispatcher.ones(2, 4, 5))
        dispatcher.ops.aten.baddbmm.default(dispatcher.ones(2, 3, 5), dispatcher.ones(2, 3, 4), dispatcher.ones(2, 4, 5))
        dispatcher.mv(a, dispatcher.ones(4))  # not counted by default (torch does not)
        dispatcher.ones(3) + 1  # elementwise: not counted by default
    counts = {str(k): v for k, v in fc.get_flop_counts()["Global"].items()}
    assert counts == {"aten.mm": 120, "aten.addmm": 120, "aten.bmm": 240, "aten.baddbmm": 240}
    with FlopCounterMode(display=False, count_vector_products=True, count_elementwise=True) as fc:
        dispatcher.mv(a, dispatcher.ones(4))
        dispatcher.dot(dispatcher.ones(4), dispatcher.ones(4))
        dispatcher.ones(3, 2) * 2
        dispatcher.relu(dispatcher.ones(5))
        dispatcher.ones(3).sum()  # a reduction, not pointwise
    counts = {str(k): v for k, v in fc.get_flop_counts()["Global"].items()}
    assert counts == {"aten.mv": 24, "aten.dot": 8, "aten.mul": 6, "aten.relu": 5}
    assert fc.get_total_flops() == 43


def test_flop_counter_decomposes_ops_without_a_formula() -> None:
    """A CompositeImplicitAutograd op reaching the mode (autograd excluded) is decomposed and its mm counted."""
    x, w = dispatcher.ones(2, 3), dispatcher.ones(4, 3)
    with FlopCounterMode(display=False) as fc, dispatcher.AutoDispatchBelowADInplaceOrView():
        out = dispatcher.ops.aten.linear.default(x, w)
    assert tuple(out.shape) == (2, 4)
    assert {str(k): v for k, v in fc.get_flop_counts()["Global"].items()} == {"aten.mm": 48}


def test_flop_counter_custom_mapping_table_and_registration(capsys: Any) -> None:
    def relu_flop(x_shape: tuple, out_shape: Any = None, **kwargs: Any) -> int:
        return 7

    relu = dispatcher.ops.aten.relu
    with FlopCounterMode(custom_mapping={relu: relu_flop}) as fc:
        dispatcher.relu(dispatcher.ones(2)) @ dispatcher.ones(2)  # relu: 7 via the mapping; dot: not counted
        dispatcher.ones(10, 100) @ dispatcher.ones(100, 10)
    printed = capsys.readouterr().out
    assert fc.get_total_flops() == 20007
    table = fc.get_table()
    assert printed.strip() == table.strip()
    lines = table.splitlines()
    assert lines[0].split() == ["Module", "FLOP", "%", "Total"]
    assert lines[2].split() == ["Global", "20.007K", "100.00%"]
    assert lines[3].split() == ["-", "aten.relu", "0.007K", "0.03%"]
    assert lines[4].split() == ["-", "aten.mm", "20.000K", "99.97%"]
    with pytest.raises(RuntimeError, match="duplicate registrations for aten.mm"):
        register_flop_formula(dispatcher.ops.aten.mm)(relu_flop)
    with pytest.raises(ValueError, match="expected each target to be OpOverloadPacket"):
        register_flop_formula(dispatcher.ops.aten.mm.default)(relu_flop)
    assert str(next(iter(flop_registry))) == "aten.mm"
    with pytest.warns(UserWarning, match="mods argument is not needed anymore"):
        FlopCounterMode(mods=object(), display=False)


def test_flop_counter_on_fake_tensors(torch: Any) -> None:
    """Counting a model without running it: the counts on fake inputs equal the counts on real ones."""
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchFakeTensorMode
    from torch.utils.flop_counter import FlopCounterMode as TorchFlopCounterMode

    fn, inputs = program_and_inputs("bwd", "transformer_block_step")

    def fake_count(T: Any, fake_cls: Any, counter_cls: Any) -> tuple[int, dict[str, int]]:
        mode = fake_cls()
        fakes = {k: mode.from_tensor(v) for k, v in inputs(T).items()}
        with mode:
            return _flops(T, counter_cls, fn, fakes)

    ours = fake_count(dispatcher, FakeTensorMode, FlopCounterMode)
    assert ours == fake_count(torch, TorchFakeTensorMode, TorchFlopCounterMode)
    assert ours == _flops(dispatcher, FlopCounterMode, fn, inputs(dispatcher))


# --- MetaCheckMode ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("kind", "name"), ALL_PROGRAMS)
def test_meta_check_mode_finds_no_mismatch_in_the_op_library(kind: str, name: str) -> None:
    fn, inputs = program_and_inputs(kind, name)
    mode = MetaCheckMode(on_mismatch="record")
    try:
        with mode:
            run(fn, dispatcher, inputs(dispatcher))
    except RuntimeError:
        pass  # saved_tensor_modified etc. catch their own errors; nothing else may escape
    assert mode.mismatches == []
    assert mode.checked > 0


@pytest.fixture
def wrong_meta_lib() -> Any:
    """demo ops whose Meta kernels lie: wrong shape, wrong dtype, wrong strides, a Meta kernel that raises."""
    lib = Library("h8meta", "DEF")
    lib.define("shape(Tensor x) -> Tensor")
    lib.define("dtype(Tensor x) -> Tensor")
    lib.define("strides(Tensor x) -> Tensor")
    lib.define("raises(Tensor x) -> Tensor")
    lib.define("ok(Tensor x) -> Tensor")
    aten = dispatcher.ops.aten
    lib.impl("shape", lambda x: aten.clone.default(x), "CPU")
    lib.impl("shape", lambda x: aten.empty.memory_format([1], device="meta"), "Meta")
    lib.impl("dtype", lambda x: aten.clone.default(x), "CPU")
    lib.impl("dtype", lambda x: aten.empty.memory_format(list(x.shape), dtype=dispatcher.float64, device="meta"),
             "Meta")
    lib.impl("strides", lambda x: aten.clone.default(x), "CPU")
    lib.impl("strides", lambda x: aten.t.default(aten.empty.memory_format(list(x.shape)[::-1], device="meta")),
             "Meta")

    def refuse(x: Any) -> Any:
        raise RuntimeError("no meta for you")

    lib.impl("raises", lambda x: aten.clone.default(x), "CPU")
    lib.impl("raises", refuse, "Meta")
    lib.impl("ok", lambda x: aten.clone.default(x), "CPU")
    lib.impl("ok", lambda x: aten.empty.memory_format(list(x.shape), device="meta"), "Meta")
    yield dispatcher.ops.h8meta
    del lib


def test_meta_check_mode_names_the_op(wrong_meta_lib: Any) -> None:
    x = dispatcher.ones(2, 3)
    ops = wrong_meta_lib
    with MetaCheckMode():
        ops.ok.default(x)
        prefix = "When comparing the output of h8meta.shape.default on Meta and concrete Tensors, found mismatched"
        with pytest.raises(MetadataMismatchError, match=re.escape(prefix)) as info:
            ops.shape.default(x)
        assert "Shapes torch.Size([2, 3]) and torch.Size([1]) are not equal!" in str(info.value)
        assert info.value.func is ops.shape.default
        with pytest.raises(MetadataMismatchError, match="Dtypes torch.float32 and torch.float64 are not equal!"):
            ops.dtype.default(x)
        with pytest.raises(MetadataMismatchError, match=re.escape("Stride mismatch! Strides are (3, 1) and (1, 2)")):
            ops.strides.default(x)
        with pytest.raises(MetadataMismatchError, match="the Meta kernel raised RuntimeError: no meta for you"):
            ops.raises.default(x)
    with MetaCheckMode(check_strides=False):
        ops.strides.default(x)
    with MetaCheckMode(on_mismatch="record") as mode:
        out = ops.shape.default(x)
        ops.dtype.default(x)
        ops.ok.default(x)
    assert tuple(out.shape) == (2, 3)  # the real result is returned
    assert [e.func for e in mode.mismatches] == [ops.shape.default, ops.dtype.default] and mode.checked == 3
    with pytest.raises(ValueError, match="on_mismatch"):
        MetaCheckMode(on_mismatch="warn")


def test_meta_check_mode_checks_aliasing_and_skips_data_dependent_ops() -> None:
    lib = Library("h8alias", "DEF")
    lib.define("same(Tensor(a) x) -> Tensor(a)")
    aten = dispatcher.ops.aten
    lib.impl("same", lambda x: aten.alias.default(x), "CPU")
    lib.impl("same", lambda x: aten.empty.memory_format(list(x.shape), device="meta"), "Meta")
    x = dispatcher.ones(3)
    with MetaCheckMode() as mode:
        with pytest.raises(MetadataMismatchError, match="mismatch in outputs_alias_inputs check False != True"):
            dispatcher.ops.h8alias.same.default(x)
        (x > 0).nonzero()  # dynamic output shape: not compared
        x.sum().item()  # data-dependent output: not compared
        x.add_(1)  # in-place: the output is the input on both sides
    assert mode.checked == 4  # same, gt, sum, add_ (nonzero and _local_scalar_dense are skipped)
    del lib
