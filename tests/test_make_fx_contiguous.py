"""``Tensor.contiguous`` returns the tensor itself, without dispatching, when it already has the asked layout.

That shortcut is in PyTorch's Python binding (``THPVariable_contiguous``), above the dispatcher: post-dispatch it
makes no difference (``aten::contiguous`` is CompositeImplicitAutograd and returns self), but before dispatch, where
CompositeImplicitAutograd ops are kept whole, a binding without it records an ``aten.contiguous.default`` node that
torch's graph does not have; e.g. after ``scaled_dot_product_attention`` on transposed q / k / v, whose output is
already laid out as (B, L, H, E), ``y.transpose(1, 2).contiguous()``. These programs are traced by both libraries in
every configuration; the op sequences must be equal and the graphs replay like eager on fresh inputs.
"""

from __future__ import annotations

from typing import Any

import pytest

import dispatcher as D
import dispatcher.nn.functional as DF
from tests import corpus as C
from tests.op_program_checks import CONFIGS, trace_both


def _programs() -> dict[str, tuple[Any, list, tuple[int, ...]]]:
    progs: dict[str, tuple[Any, list, tuple[int, ...]]] = {}

    def reg(shapes: list, rg: tuple[int, ...] = ()) -> Any:
        def deco(f: Any) -> Any:
            progs[f.__name__] = (f, shapes, rg)
            return f
        return deco

    @reg([(2, 5, 3, 4)])
    def sdpa_transposed_heads(T, F):
        def f(x):
            b, seq, h, e = x.shape
            q, k, v = x.transpose(1, 2), (x * 2).transpose(1, 2), (x + 1).transpose(1, 2)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return y.transpose(1, 2).contiguous().view(b, seq, h * e)
        return f

    @reg([(2, 5, 12), (12, 36)], rg=(0, 1))
    def attention_block(T, F):
        def f(x, w):  # the GPT-style block: qkv projection, heads split by view + transpose, sdpa, merge
            b, seq, c = x.shape
            q, k, v = (x @ w * 0.2).split(12, dim=2)
            q, k, v = (t.view(b, seq, 3, 4).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return y.transpose(1, 2).contiguous().view(b, seq, c).tanh()
        return f

    @reg([(3, 4)])
    def already_contiguous(T, F):
        def f(x):
            return x.contiguous() + x.t().t().contiguous() + x.contiguous(memory_format=T.preserve_format)
        return f

    @reg([(3, 4)])
    def needs_a_copy(T, F):
        def f(x):
            return x.t().contiguous(), x[:, ::2].contiguous()
        return f

    @reg([(2, 3, 4, 5)])
    def channels_last_layouts(T, F):
        def f(x):
            nhwc = x.contiguous(memory_format=T.channels_last)  # a copy
            same = nhwc.contiguous(memory_format=T.channels_last)  # already so: itself
            return same.contiguous() * 2, nhwc.permute(0, 2, 3, 1).contiguous()  # row-major copy; already so
        return f

    @reg([(2, 4, 6)])
    def softmax_matmul_merge(T, F):
        def f(x):
            s = F.softmax(x.transpose(1, 2) @ x, -1)
            return (x @ s).transpose(0, 1).contiguous().transpose(0, 1).contiguous()
        return f

    return progs


_PROGRAMS = _programs()


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("name", sorted(_PROGRAMS))
def test_contiguous_recorded_only_where_torch_records_it(torch: Any, name: str, config: str) -> None:
    prog, shapes, rg = _PROGRAMS[name]
    gm_t, gm_o = trace_both(torch, prog, C.arrays(shapes, 0), rg, config)
    assert C.targets(gm_o) == C.targets(gm_t)
    if config in ("post", "core"):
        assert gm_o.code == gm_t.code
    gm_o.graph.lint()
    fresh = C.arrays(shapes, 1)
    expected = C.to_np(prog(D, DF)(*C.inputs(D, fresh, rg)))
    C.assert_close(expected, C.to_np(gm_o(*C.inputs(D, fresh, rg if config == "pre" else ()))))
    C.assert_close(C.to_np(prog(torch, torch.nn.functional)(*C.inputs(torch, fresh, rg))), expected)


def test_the_issue_case_has_no_contiguous_node_before_dispatch() -> None:
    from tracer import make_fx

    prog = _PROGRAMS["sdpa_transposed_heads"][0](D, DF)
    gm = make_fx(prog, pre_dispatch=True)(D.randn(2, 5, 3, 4))
    assert "aten.contiguous.default" not in C.targets(gm)
    assert C.targets(gm)[-3:] == ["aten.scaled_dot_product_attention.default", "aten.transpose.int",
                                  "aten.view.default"]


def test_contiguous_returns_the_same_object(torch: Any) -> None:
    for T in (D, torch):
        x = T.randn(2, 3)
        assert x.contiguous() is x and x.t().contiguous() is not x
        assert x.contiguous(memory_format=T.preserve_format) is x
        with pytest.raises(RuntimeError, match="preserve memory format is unsupported by the contiguous operator"):
            x.t().contiguous(memory_format=T.preserve_format)
