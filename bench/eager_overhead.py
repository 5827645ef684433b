"""Eager-mode cost: microseconds per op and per small program, ours vs torch eager vs plain NumPy.

Rows:

* ``a + b`` and ``a @ b`` on 4x4 float32 tensors (the Python operators, i.e. the front end), plus the direct
  ``aten.add.Tensor`` / ``aten.mm`` calls;
* an MLP forward (batch 8, 32 -> 64 -> relu -> 10, two ``linear`` layers);
* a transformer block forward (B=1, S=16, D=64, 4 heads: layer_norm, one qkv linear, attention with softmax,
  output projection, an MLP with gelu, residuals);
* with autograd recording (``requires_grad=True`` inputs, grad mode on for both): ``a + b`` and ``a @ b`` on 4x4,
  and a training step of the MLP (gradients reset to None, forward, ``.sum().backward()``; its NumPy column is a
  hand-written forward + backward, that of the two op rows the plain NumPy op; the difference column compares
  ``w1.grad``).

The programs are written once against a module parameter ``m`` (``torch`` or ``dispatcher``), with the same
NumPy-initialised parameters, plus a hand-written NumPy version. Rows without autograd run torch under
``no_grad``; torch runs on one thread, like ours.
A row whose ops are not all implemented yet prints ``n/a (missing aten::X)``; the last column is the largest
difference between our output and torch's (a sanity check, not a timing).
Each figure is the median of 7 repeats. Run: ``.venv/bin/python bench/eager_overhead.py``.
"""

from __future__ import annotations

import gc
import math
import re
import statistics
import sys
import timeit
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dispatcher  # noqa: E402

try:
    import torch
except ImportError:  # the oracle is optional
    torch = None

REPEAT = 7
B, S, D, HEADS = 1, 16, 64, 4


# --- parameters (NumPy, shared by every implementation) -----------------------------------------------------------
def make_params(seed: int = 0) -> dict[str, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)

    def w(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) / math.sqrt(shape[-1])).astype(np.float32)

    def b(n: int) -> np.ndarray:
        return (0.1 * rng.standard_normal(n)).astype(np.float32)

    return {
        "ops": {"a": rng.standard_normal((4, 4)).astype(np.float32), "b": rng.standard_normal((4, 4)).astype(np.float32)},
        "mlp": {"x": rng.standard_normal((8, 32)).astype(np.float32), "w1": w(64, 32), "b1": b(64), "w2": w(10, 64),
                "b2": b(10)},
        "block": {
            "x": rng.standard_normal((B, S, D)).astype(np.float32),
            "ln1_w": 1 + b(D), "ln1_b": b(D), "w_qkv": w(3 * D, D), "b_qkv": b(3 * D), "w_o": w(D, D), "b_o": b(D),
            "ln2_w": 1 + b(D), "ln2_b": b(D), "w1": w(4 * D, D), "b1": b(4 * D), "w2": w(D, 4 * D), "b2": b(D),
        },
    }


def to_module(m: Any, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    return {k: m.from_numpy(v.copy()) for k, v in arrays.items()}


# --- the programs, written once against ``m`` ---------------------------------------------------------------------
def mlp(m: Any, p: dict[str, Any]) -> Any:
    F = m.nn.functional
    h = F.relu(F.linear(p["x"], p["w1"], p["b1"]))
    return F.linear(h, p["w2"], p["b2"])


def transformer_block(m: Any, p: dict[str, Any]) -> Any:
    F = m.nn.functional
    x = p["x"]
    dh = D // HEADS
    h = F.layer_norm(x, (D,), p["ln1_w"], p["ln1_b"])
    q, k, v = F.linear(h, p["w_qkv"], p["b_qkv"]).chunk(3, dim=-1)
    q = q.reshape(B, S, HEADS, dh).transpose(1, 2)
    k = k.reshape(B, S, HEADS, dh).transpose(1, 2)
    v = v.reshape(B, S, HEADS, dh).transpose(1, 2)
    att = F.softmax((q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(dh)), dim=-1)
    y = (att @ v).transpose(1, 2).reshape(B, S, D)
    x = x + F.linear(y, p["w_o"], p["b_o"])
    h = F.layer_norm(x, (D,), p["ln2_w"], p["ln2_b"])
    return x + F.linear(F.gelu(F.linear(h, p["w1"], p["b1"])), p["w2"], p["b2"])


def mlp_train_step(m: Any, p: dict[str, Any]) -> Any:
    """One step's forward + backward (the optimizer update left out); returns ``w1.grad``."""
    for k in ("w1", "b1", "w2", "b2"):
        p[k].grad = None
    mlp(m, p).sum().backward()
    return p["w1"].grad


# --- hand-written NumPy versions ----------------------------------------------------------------------------------
def np_mlp(p: dict[str, np.ndarray]) -> np.ndarray:
    h = np.maximum(p["x"] @ p["w1"].T + p["b1"], 0)
    return h @ p["w2"].T + p["b2"]


def np_mlp_train_step(p: dict[str, np.ndarray]) -> np.ndarray:
    """Forward and backward of ``np_mlp(p).sum()`` by hand; returns the gradient of ``w1`` (the others computed too)."""
    pre = p["x"] @ p["w1"].T + p["b1"]
    h = np.maximum(pre, 0)
    g_out = np.ones((p["x"].shape[0], p["w2"].shape[0]), np.float32)
    _g_w2, _g_b2 = g_out.T @ h, g_out.sum(0)
    g_pre = (g_out @ p["w2"]) * (pre > 0)
    _g_b1 = g_pre.sum(0)
    return g_pre.T @ p["x"]


def np_erf(x: np.ndarray) -> np.ndarray:
    """erf, vectorised (Abramowitz & Stegun 7.1.26, |error| < 1.5e-7: below float32 resolution here)."""
    t = 1.0 / (1.0 + 0.3275911 * np.abs(x))
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return np.sign(x) * (1.0 - poly * np.exp(-x * x))


def np_layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def np_gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np_erf(x * np.float32(1 / math.sqrt(2))))


def np_block(p: dict[str, np.ndarray]) -> np.ndarray:
    x = p["x"]
    dh = D // HEADS
    h = np_layer_norm(x, p["ln1_w"], p["ln1_b"])
    q, k, v = np.split(h @ p["w_qkv"].T + p["b_qkv"], 3, axis=-1)
    q, k, v = (t.reshape(B, S, HEADS, dh).transpose(0, 2, 1, 3) for t in (q, k, v))
    s = (q @ k.transpose(0, 1, 3, 2)) * np.float32(1.0 / math.sqrt(dh))
    e = np.exp(s - s.max(-1, keepdims=True))
    att = e / e.sum(-1, keepdims=True)
    y = (att @ v).transpose(0, 2, 1, 3).reshape(B, S, D)
    x = x + y @ p["w_o"].T + p["b_o"]
    h = np_layer_norm(x, p["ln2_w"], p["ln2_b"])
    return x + np_gelu(h @ p["w1"].T + p["b1"]) @ p["w2"].T + p["b2"]


# --- measuring ----------------------------------------------------------------------------------------------------
def per_call_us(fn: Any, number: int) -> float:
    times = timeit.repeat(fn, number=number, repeat=REPEAT)
    return statistics.median(times) / number * 1e6


_MISSING = re.compile(r"Could not run '(aten::[\w.]+)'")


def why_not(exc: BaseException) -> str:
    """'n/a (missing aten::X)' for a missing kernel, else a short description of the error."""
    m = _MISSING.search(str(exc))
    if m:
        return f"n/a (missing {m.group(1)})"
    if isinstance(exc, AttributeError):
        return f"n/a (missing {str(exc).split(' has no attribute ')[-1]})"
    return f"n/a ({type(exc).__name__}: {str(exc).splitlines()[0][:60]})"


def as_numpy(x: Any) -> np.ndarray:
    if isinstance(x, np.ndarray):
        return x
    if torch is not None and isinstance(x, torch.Tensor):
        return x.detach().numpy()
    return np.asarray(x.detach().numpy())


def requiring_grad(tensors: dict[str, Any], names: Any) -> dict[str, Any]:
    """``tensors`` with the ones named made leaves that require grad."""
    for k in names:
        tensors[k].requires_grad_()
    return tensors


def rows(params: dict[str, dict[str, np.ndarray]]) -> list[tuple[str, dict[str, Any], int, bool]]:
    """(row name, {impl: zero-arg callable}, calls per timing, autograd on) for every row."""
    out = []
    impls: dict[str, Any] = {"ours": dispatcher}
    if torch is not None:
        impls["torch"] = torch
    ops = {name: to_module(m, params["ops"]) for name, m in impls.items()}
    progs = {name: (to_module(m, params["mlp"]), to_module(m, params["block"])) for name, m in impls.items()}
    grad_ops = {name: requiring_grad(to_module(m, params["ops"]), ("a", "b")) for name, m in impls.items()}
    grad_mlp = {name: requiring_grad(to_module(m, params["mlp"]), ("w1", "b1", "w2", "b2"))
                for name, m in impls.items()}
    npo, npm, npb = params["ops"], params["mlp"], params["block"]

    def row(label: str, number: int, make: Any, np_fn: Any, grad: bool = False) -> None:
        fns = {name: make(name, m) for name, m in impls.items()}
        fns["numpy"] = np_fn
        out.append((label, fns, number, grad))

    row("4x4 a + b", 20000, lambda n, m: (lambda a=ops[n]["a"], b=ops[n]["b"]: a + b),
        lambda a=npo["a"], b=npo["b"]: a + b)
    row("4x4 a @ b", 20000, lambda n, m: (lambda a=ops[n]["a"], b=ops[n]["b"]: a @ b),
        lambda a=npo["a"], b=npo["b"]: a @ b)
    row("4x4 aten.add.Tensor(a, b)", 20000,
        lambda n, m: (lambda f=m.ops.aten.add.Tensor, a=ops[n]["a"], b=ops[n]["b"]: f(a, b)),
        lambda a=npo["a"], b=npo["b"]: np.add(a, b))
    row("4x4 aten.mm(a, b)", 20000,
        lambda n, m: (lambda f=m.ops.aten.mm.default, a=ops[n]["a"], b=ops[n]["b"]: f(a, b)),
        lambda a=npo["a"], b=npo["b"]: np.matmul(a, b))
    row("MLP 8x32->64->10 (program)", 1000, lambda n, m: (lambda: mlp(m, progs[n][0])), lambda: np_mlp(npm))
    row("transformer block S=16 D=64 (program)", 200, lambda n, m: (lambda: transformer_block(m, progs[n][1])),
        lambda: np_block(npb))
    row("4x4 a + b (autograd recording)", 20000, lambda n, m: (lambda a=grad_ops[n]["a"], b=grad_ops[n]["b"]: a + b),
        lambda a=npo["a"], b=npo["b"]: a + b, grad=True)
    row("4x4 a @ b (autograd recording)", 20000, lambda n, m: (lambda a=grad_ops[n]["a"], b=grad_ops[n]["b"]: a @ b),
        lambda a=npo["a"], b=npo["b"]: a @ b, grad=True)
    row("MLP training step (fwd + bwd)", 300, lambda n, m: (lambda: mlp_train_step(m, grad_mlp[n])),
        lambda: np_mlp_train_step(npm), grad=True)
    return out


def main() -> None:
    params = make_params()
    # Move everything imported so far (torch's and our module state) out of the garbage collector's reach, so
    # periodic full collections do not scan torch's large heap during the timing loops (same for both sides).
    gc.freeze()
    if torch is not None:
        torch.set_num_threads(1)  # ours computes on one thread (NumPy); small ops are faster so anyway
    results = []
    for label, fns, number, grad in rows(params):
        cells: dict[str, Any] = {}
        outputs: dict[str, Any] = {}
        for name, fn in fns.items():
            # torch's grad mode for the whole row (ours records only when an input requires grad, as torch does)
            mode = torch.set_grad_enabled(grad) if torch is not None and name == "torch" else None
            if mode is not None:
                mode.__enter__()
            try:
                outputs[name] = fn()
                cells[name] = per_call_us(fn, number)
            except Exception as e:  # noqa: BLE001 - a row with missing ops is reported, not fatal
                cells[name] = why_not(e)
            finally:
                if mode is not None:
                    mode.__exit__(None, None, None)
        diff = "-"
        if "ours" in outputs and "torch" in outputs:
            diff = f"{float(np.max(np.abs(as_numpy(outputs['ours']) - as_numpy(outputs['torch'])))):.1e}"
        results.append((label, cells, diff))

    def fmt(v: Any, width: int) -> str:
        return f"{v:{width}.2f}" if isinstance(v, float) else f"{v if v is not None else '-':>{width}s}"

    print(f"{'per call (us, median of 7)':40s} {'ours':>12s} {'torch':>10s} {'numpy':>10s} {'ours/torch':>11s} "
          f"{'|ours-torch|':>13s}")
    for label, cells, diff in results:
        a, b = cells.get("ours"), cells.get("torch")
        ratio = f"{a / b:11.2f}" if isinstance(a, float) and isinstance(b, float) else f"{'-':>11s}"
        tail = "" if isinstance(a, float) or a is None else f"   {a}"
        print(f"{label:40s} {fmt(a if isinstance(a, float) else 'n/a', 12)} {fmt(b, 10)} {fmt(cells.get('numpy'), 10)}"
              f" {ratio} {diff:>13s}{tail}")
    if torch is None:
        print("(torch not installed: torch columns empty)")
    print("target: 4x4 a + b <= 6 us (ours, no autograd); torch ~1.4 us, NumPy ~0.4 us on the reference machine")
    print("target: 4x4 a + b with autograd recording <= 12 us (torch ~2.2 us)")


if __name__ == "__main__":
    main()
