"""Convolution layers against the torch oracle: ``Conv1d/2d/3d``, ``ConvTranspose1d/2d/3d``, ``Fold`` / ``Unfold``,
and two small models written here (a CNN classifier, a U-Net-like down / up path).

Each module is built by both libraries with torch's weights (tests/nn_oracle.py): repr, state_dict keys and shapes,
forward values, input and parameter gradients, make_fx graphs in the four configurations and replay. Constructor
and call errors are compared by class and message; default initialisation by its bounds.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest

import dispatcher as D
from tests import corpus as C
from tests.nn_oracle import check_eager, check_graphs, check_module, randn


def assert_same_error(build: Any, torch: Any, ours: Any) -> None:
    """``build(L)`` raises the same exception class with the same first message line in torch and here."""
    errors = []
    for L in (torch, ours):
        with pytest.raises(Exception) as info:  # noqa: PT011 - the class is what is compared
            build(L)
        errors.append(info.value)
    theirs, mine = errors
    assert isinstance(mine, type(theirs)), (theirs, mine)
    assert _set_sorted(str(mine).splitlines()[0]) == _set_sorted(str(theirs).splitlines()[0])


def _set_sorted(message: str) -> str:
    """A printed Python set (``{'zeros', 'reflect', ...}``) with its items sorted: its order depends on string hashing
    when the module was compiled, so torch's own order differs between processes."""
    return re.sub(r"\{([^}]*)\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", message)


# (module spec, input shape): groups / dilation / stride / 'same' (odd and even kernels) / 'valid' / padding modes
CONV_CASES = [
    ("Conv1d", (4, 6, 3), dict(stride=2, padding=1, bias=False), (2, 4, 11)),
    ("Conv1d", (4, 4, 4), dict(padding="same", dilation=1, padding_mode="reflect"), (2, 4, 9)),
    ("Conv2d", (3, 4, 3), dict(), (2, 3, 8, 7)),
    ("Conv2d", (4, 6, (3, 2)), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2), (2, 4, 9, 8)),
    ("Conv2d", (3, 4, (4, 3)), dict(padding="same"), (2, 3, 7, 6)),  # even kernel: asymmetric 'same'
    ("Conv2d", (3, 4, 3), dict(padding="valid"), (3, 7, 6)),  # unbatched
    ("Conv2d", (4, 4, 3), dict(groups=4, padding=2, padding_mode="circular"), (2, 4, 6, 6)),  # depthwise
    ("Conv2d", (3, 2, 3), dict(padding=(1, 2), padding_mode="replicate"), (1, 3, 6, 5)),
    ("Conv2d", (3, 2, (2, 3)), dict(padding="same", dilation=2, padding_mode="reflect"), (1, 3, 7, 8)),
    ("Conv3d", (2, 4, (2, 3, 2)), dict(stride=(1, 2, 1), padding=1), (2, 2, 4, 5, 4)),
    ("Conv3d", (2, 2, 3), dict(padding=1, padding_mode="replicate", bias=False), (1, 2, 3, 4, 4)),
    ("ConvTranspose1d", (4, 3, 3), dict(stride=2, padding=1, output_padding=1), (2, 4, 6)),
    ("ConvTranspose2d", (4, 6, 3), dict(stride=2, padding=1, output_padding=1, groups=2), (2, 4, 5, 4)),
    ("ConvTranspose2d", (3, 2, (2, 3)), dict(stride=(2, 1), dilation=(1, 2), bias=False), (3, 4, 5)),
    ("ConvTranspose3d", (2, 3, 2), dict(stride=2, padding=(0, 1, 0)), (1, 2, 3, 3, 2)),
]
CONV_IDS = [f"{name}-{i}" for i, (name, *_rest) in enumerate(CONV_CASES)]


def _conv_case(case: tuple) -> tuple[Any, Any]:
    name, args, kwargs, shape = case

    def make(L: Any) -> Any:
        return getattr(L.nn, name)(*args, **kwargs)

    def make_inputs(L: Any, seed: int) -> list:
        return [randn(L, seed, *shape)]

    return make, make_inputs


@pytest.mark.parametrize("case", CONV_CASES, ids=CONV_IDS)
def test_conv_module_eager(torch: Any, case: tuple) -> None:
    check_eager(torch, *_conv_case(case))


# graphs: one configuration of each family of arguments is enough to pin the op sequence
@pytest.mark.parametrize("index", [1, 3, 4, 6, 9, 12, 13])
def test_conv_module_graphs(torch: Any, index: int) -> None:
    check_graphs(torch, *_conv_case(CONV_CASES[index]))


def test_conv_transpose_output_size(torch: Any) -> None:
    """``forward(input, output_size)`` picks the output_padding; sizes outside the stride's range are refused."""
    def make(L: Any) -> Any:
        class Up(L.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.up = L.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)

            def forward(self, x: Any) -> Any:
                return self.up(x, output_size=[1, 2, 10, 9])

        return Up()

    check_module(torch, make, lambda L, seed: [randn(L, seed, 1, 3, 5, 5)])
    for L in (torch, D):
        m = L.nn.ConvTranspose2d(3, 4, 3, stride=2)
        assert tuple(m(L.zeros(1, 3, 8, 8), output_size=[18, 18]).shape) == (1, 4, 18, 18)
    assert_same_error(lambda L: L.nn.ConvTranspose2d(3, 4, 3, stride=2)(L.zeros(1, 3, 8, 8), output_size=[30, 18]),
                        torch, D)
    assert_same_error(lambda L: L.nn.ConvTranspose2d(3, 4, 3, stride=2)(L.zeros(1, 3, 8, 8), output_size=[1, 17, 18]),
                        torch, D)


@pytest.mark.parametrize("build", [
    lambda L: L.nn.Conv2d(3, 4, 3, groups=2),
    lambda L: L.nn.Conv2d(4, 3, 3, groups=2),
    lambda L: L.nn.Conv2d(4, 4, 3, groups=0),
    lambda L: L.nn.Conv2d(3, 4, 3, padding="foo"),
    lambda L: L.nn.Conv2d(3, 4, 3, padding="same", stride=2),
    lambda L: L.nn.Conv1d(3, 4, 3, padding_mode="foo"),
    lambda L: L.nn.ConvTranspose2d(4, 4, 3, padding_mode="reflect"),
    lambda L: L.nn.Conv2d(3, 4, 3)(L.zeros(1, 5, 8, 8)),  # wrong in-channels
    lambda L: L.nn.Conv2d(3, 4, 3)(L.zeros(8, 8)),
    lambda L: L.nn.Conv2d(3, 4, 5)(L.zeros(1, 3, 3, 3)),  # kernel larger than the input
    lambda L: L.nn.Conv3d(3, 4, 3)(L.zeros(1, 3, 4, 4)),
    lambda L: L.nn.ConvTranspose2d(4, 2, 3)(L.zeros(1, 3, 5, 5)),
    lambda L: L.nn.functional.conv_transpose2d(L.zeros(1, 4, 5, 5), L.zeros(4, 3, 3, 3), output_padding=2),
    lambda L: L.nn.functional.conv_transpose1d(L.zeros(4, 5), L.zeros(4, 3, 3), padding="same"),
    lambda L: L.nn.functional.conv3d(L.zeros(1, 3, 5, 5, 5), L.zeros(5, 3, 3, 3, 3), padding="same", stride=2),
    lambda L: L.nn.functional.unfold(L.zeros(2, 3, 5, 6), (9, 3)),
    lambda L: L.nn.functional.fold(L.zeros(2, 12, 12), (4, 6), (2, 2)),
], ids=["in-groups", "out-groups", "groups0", "padding-string", "same-strided", "padding-mode", "transposed-mode",
        "in-channels", "rank", "kernel-too-big", "conv3d-rank", "transposed-in-channels", "output-padding",
        "transposed-string-padding", "f-same-strided", "unfold-blocks", "fold-blocks"])
def test_errors_match_torch(torch: Any, build: Any) -> None:
    assert_same_error(build, torch, D)


@pytest.mark.parametrize("name,args,fan_in", [("Conv2d", (6, 4, 3), 6 * 9), ("Conv2d", (6, 4, 3, 1, 0, 1, 2), 3 * 9),
                                              ("ConvTranspose2d", (6, 4, (3, 2)), 4 * 6),
                                              ("ConvTranspose1d", (6, 4, 3, 1, 0, 0, 2), 2 * 3),
                                              ("Conv3d", (2, 3, 2), 2 * 8)])
def test_default_init_bounds(name: str, args: tuple, fan_in: int) -> None:
    """kaiming_uniform_(a=sqrt(5)) gives U(+-1/sqrt(fan_in)) for the weight, the bias the same bound; a transposed
    weight's fan_in is its dim 1 (out / groups) times the kernel."""
    D.manual_seed(0)
    m = getattr(D.nn, name)(*args)
    bound = 1 / math.sqrt(fan_in)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    assert np.abs(b).max() <= bound
    assert D.nn.init._calculate_fan_in_and_fan_out(m.weight)[0] == fan_in


def test_functional_and_torch_level_names(torch: Any) -> None:
    """torch.conv3d / torch.conv_transpose* exist beside nn.functional's; positional order stride, padding,
    output_padding, groups, dilation."""
    assert D.conv3d.__name__ == "conv3d" and D.nn.functional.conv_transpose3d.__name__ == "conv_transpose3d"
    x_t, w_t = torch.ones(1, 4, 5, 5), torch.ones(4, 3, 3, 3)
    x_o, w_o = D.ones(1, 4, 5, 5), D.ones(4, 3, 3, 3)
    out_t = torch.conv_transpose2d(x_t, w_t, None, 2, 1, 1, 1, 1)
    out_o = D.conv_transpose2d(x_o, w_o, None, 2, 1, 1, 1, 1)
    C.assert_close(C.to_np(out_t), C.to_np(out_o))


@pytest.mark.parametrize("build", [
    lambda L: L.nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=2),
    lambda L: L.nn.Unfold(2),
], ids=["unfold-args", "unfold-int"])
def test_unfold_module(torch: Any, build: Any) -> None:
    check_module(torch, build, lambda L, seed: [randn(L, seed, 2, 3, 7, 8)])


def test_fold_module(torch: Any) -> None:
    check_module(torch, lambda L: L.nn.Fold((5, 6), (2, 3), padding=1, stride=2),
                 lambda L, seed: [randn(L, seed, 2, 12, 9)])


def test_fold_of_unfold_counts_overlaps(torch: Any) -> None:
    """fold(unfold(x)) multiplies each pixel by the number of blocks covering it (the documented identity)."""
    x = D.ones(1, 2, 5, 5)
    y = D.nn.functional.fold(D.nn.functional.unfold(x, 3, padding=1), (5, 5), 3, padding=1)
    t = torch.nn.functional.fold(torch.nn.functional.unfold(torch.ones(1, 2, 5, 5), 3, padding=1), (5, 5), 3,
                                 padding=1)
    C.assert_close(C.to_np(t), C.to_np(y))


# --- small models written here --------------------------------------------------------------------------------------


def _cnn(L: Any) -> Any:
    F = L.nn.functional

    class SmallCNN(L.nn.Module):
        """Conv2d-ReLU-MaxPool2d-Conv2d-ReLU-flatten-Linear on 1 x 12 x 12 images, 10 classes."""

        def __init__(self) -> None:
            super().__init__()
            self.conv1 = L.nn.Conv2d(1, 4, 3, padding=1)
            self.conv2 = L.nn.Conv2d(4, 8, 3)
            self.fc = L.nn.Linear(8 * 4 * 4, 10)

        def forward(self, x: Any) -> Any:
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.relu(self.conv2(x))
            return self.fc(L.flatten(x, 1))

    return SmallCNN()


def test_small_cnn_classifier(torch: Any) -> None:
    check_module(torch, _cnn, lambda L, seed: [randn(L, seed, 3, 1, 12, 12)])


def test_small_cnn_training_step_backward_graph(torch: Any) -> None:
    """The cross-entropy loss's backward through the CNN: the same aten ops as torch, convolution_backward included."""
    from tests.nn_oracle import build_both, own_targets, trace

    def step(L: Any, model: Any) -> Any:
        def f(x: Any, y: Any) -> Any:
            loss = L.nn.functional.cross_entropy(model(x), y)
            return L.autograd.grad(loss, list(model.parameters()))
        return f

    def make_inputs(L: Any, seed: int) -> list:
        return [randn(L, seed, 2, 1, 12, 12), L.tensor(np.array([3, 7]))]

    m_t, a_t, m_o, a_o = build_both(torch, _cnn, make_inputs)
    gm_t, gm_o = trace(torch, step(torch, m_t), a_t, "post"), trace(D, step(D, m_o), a_o, "post")
    assert own_targets(gm_o) == own_targets(gm_t)
    assert "aten.convolution_backward.default" in own_targets(gm_o)
    for g_t, g_o in zip(gm_t(*a_t), gm_o(*a_o)):
        C.assert_close(C.to_np(g_t), C.to_np(g_o))


def _unet(L: Any) -> Any:
    F = L.nn.functional

    class TinyUNet(L.nn.Module):
        """Two levels: conv blocks, a strided-conv down step, a transposed-conv up step and a concatenated skip."""

        def __init__(self) -> None:
            super().__init__()
            self.enc = L.nn.Conv2d(2, 4, 3, padding=1)
            self.down = L.nn.Conv2d(4, 8, 3, stride=2, padding=1)
            self.mid = L.nn.Conv2d(8, 8, 3, padding=1, padding_mode="reflect")
            self.up = L.nn.ConvTranspose2d(8, 4, 2, stride=2)
            self.dec = L.nn.Conv2d(8, 4, 3, padding="same")
            self.head = L.nn.Conv2d(4, 1, 1)

        def forward(self, x: Any) -> Any:
            skip = F.relu(self.enc(x))
            h = F.relu(self.mid(F.relu(self.down(skip))))
            h = self.up(h)
            h = F.relu(self.dec(L.cat([h, skip], 1)))
            return self.head(h)

    return TinyUNet()


def test_unet_down_up_path(torch: Any) -> None:
    check_module(torch, _unet, lambda L, seed: [randn(L, seed, 2, 2, 8, 8)])


@pytest.mark.parametrize("fn,shapes", [
    (lambda F, x, w: F.conv_transpose2d(x, w, None, 2, 1, 1, 2), ((1, 4, 4, 3), (4, 3, 3, 2))),
    (lambda F, x, w: F.conv_transpose1d(x, w, None, 2, 0, 1), ((2, 2, 5), (2, 3, 3))),
    (lambda F, x, w: F.conv3d(x, w, None, 1, 1, 2), ((1, 2, 5, 4, 5), (3, 2, 2, 2, 2))),
], ids=["transpose2d-groups", "transpose1d", "conv3d-dilated"])
def test_double_backward(torch: Any, fn: Any, shapes: tuple) -> None:
    """Gradients of gradients through convolution_backward (Convolution.cpp's _convolution_double_backward), input
    and weight, float64."""
    results = []
    for L in (torch, D):
        x = L.tensor(np.random.default_rng(0).standard_normal(shapes[0])).requires_grad_(True)
        w = L.tensor(np.random.default_rng(1).standard_normal(shapes[1])).requires_grad_(True)
        y = fn(L.nn.functional, x, w)
        gx, gw = L.autograd.grad((y * y).sum(), [x, w], create_graph=True)
        ggx, ggw = L.autograd.grad((gx * gx).sum() + (gw * gw).sum(), [x, w])
        results.append([C.to_np(t) for t in (y, gx, gw, ggx, ggw)])
    for a, b in zip(*results):
        C.assert_close(a, b)


@pytest.mark.parametrize("name", ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
                                  "Fold", "Unfold", "ZeroPad2d", "ConstantPad3d", "ReflectionPad1d", "ReplicationPad3d",
                                  "CircularPad2d"])
def test_constructor_signature_is_torch_s(torch: Any, name: str) -> None:
    """The same parameter names, order and defaults (keyword use in user code must work the same)."""
    import inspect

    def params(cls: Any) -> list[tuple[str, Any]]:
        return [(p.name, p.default) for p in inspect.signature(cls.__init__).parameters.values()]

    assert params(getattr(D.nn, name)) == params(getattr(torch.nn, name))
