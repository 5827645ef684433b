"""Regenerate tests/data/aten_schemas.txt from the torch oracle.

The file holds torch's canonical ``str()`` of a few hundred real operator schemas, one per
line, chosen so that every form present in ``torch._C._jit_get_all_schemas()`` is covered:
each argument/return type, fixed list size, default-value shape, alias annotation shape,
keyword-only arguments, named and unnamed returns, tuple/list/empty/vararg returns. The
round-trip test in tests/test_schema.py reads it without torch.

Run from the repository root (needs torch==2.13.0):
    .venv/bin/python tests/data/make_schema_corpus.py
"""

from __future__ import annotations

import re
from pathlib import Path

import torch

OUT = Path(__file__).with_name("aten_schemas.txt")
TARGET = 400

# Schemas the tests use by name; always included.
REQUIRED = [
    "aten::add.Tensor", "aten::add.Scalar", "aten::add.out", "aten::add_.Tensor", "aten::sub.Tensor",
    "aten::mul.Tensor", "aten::div.Tensor", "aten::div.Tensor_mode", "aten::maximum", "aten::atan2", "aten::mm",
    "aten::sum", "aten::sum.dim_IntList", "aten::var.correction", "aten::view", "aten::expand", "aten::as_strided",
    "aten::transpose.int", "aten::split.Tensor", "aten::split_with_sizes", "aten::cat", "aten::index.Tensor",
    "aten::clamp", "aten::leaky_relu", "aten::max_pool2d", "aten::conv2d", "aten::layer_norm",
    "aten::native_layer_norm", "aten::upsample_nearest2d.vec", "aten::new_zeros", "aten::ones", "aten::full",
    "aten::arange.start_step", "aten::randn.generator", "aten::empty.memory_format", "aten::contiguous",
    "aten::as_tensor", "aten::max.dim", "aten::topk",
]


def _scan(text: str, start: int = 0):
    """Yield (index, char, depth) for the characters of `text` outside string literals."""
    depth, quote, escaped = 0, "", False
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
            continue
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        yield i, ch, depth


def _split_top_level(text: str) -> list[str]:
    """Split an argument or return list at the commas that are not nested or quoted."""
    parts, last = [], 0
    for i, ch, depth in _scan(text):
        if ch == "," and depth == 0:
            parts.append(text[last:i].strip())
            last = i + 1
    if text[last:].strip():
        parts.append(text[last:].strip())
    return parts


def _matching_paren(text: str, open_index: int) -> int:
    """The index of the parenthesis closing the one at `open_index`."""
    for i, ch, depth in _scan(text, open_index):
        if ch == ")" and depth == 0:
            return i
    raise ValueError(f"unbalanced parentheses in {text!r}")


def _shape(text: str) -> str:
    """Reduce a printed default or alias annotation to its shape: digits -> 9, names -> a."""
    if text in ("None", "True", "False", "[]"):
        return text
    return re.sub(r"[A-Za-z_]+", "a", re.sub(r"[0-9]+", "9", text))


def features(schema: torch._C.FunctionSchema) -> set[str]:
    """The forms one schema exhibits (types, list sizes, default shapes, alias shapes, returns)."""
    text = str(schema)
    open_paren = text.index("(")
    close_paren = _matching_paren(text, open_paren)
    args_text = text[open_paren + 1:close_paren]
    rets = text[close_paren + len(") -> "):]
    feats = {f"ns:{schema.name.split('::')[0]}", f"nret:{min(len(schema.returns), 3)}",
             f"retform:{_shape(rets)[:1]}{'...' if '...' in rets else ''}"}
    for part in _split_top_level(args_text):
        if part in ("*", "..."):
            feats.add(f"marker:{part}")
            continue
        spelled, _, default = part.partition("=")
        type_text = spelled.rsplit(" ", 1)[0]
        feats.add(f"type:{re.sub(r'[(][a-z*|!> -]+[)]', '(_)', type_text)}")
        feats.add(f"alias:{_shape(''.join(re.findall(r'[(][a-z*|!> -]+[)]', type_text)))}")
        if default:
            feats.add(f"default:{re.sub(r'[(][a-z*|!> -]+[)]', '', type_text)}={_shape(default)}")
    for arg in schema.arguments:
        feats.add(f"kwarg_only:{arg.kwarg_only}:{arg.has_default_value()}")
    wrapped = rets.startswith("(") and _matching_paren(rets, 0) == len(rets) - 1
    ret_list = rets[1:-1] if wrapped else rets
    for part in _split_top_level(ret_list):
        m = re.fullmatch(r"(.*\S) ([A-Za-z_]\w*)", part)
        named = m is not None and m.group(1).count("(") == m.group(1).count(")")
        type_text = m.group(1) if named else part
        feats.add(f"ret:{re.sub(r'[(][a-z*|!> -]+[)]', '(_)', type_text)}:{named}")
    return feats


def main() -> None:
    schemas = sorted(torch._C._jit_get_all_schemas(), key=str)
    by_name = {}
    for s in schemas:
        by_name.setdefault(s.name + (f".{s.overload_name}" if s.overload_name else ""), s)
    chosen: dict[str, None] = {}
    for name in REQUIRED:
        chosen[str(by_name[name])] = None
    covered: set[str] = set()
    for text in chosen:
        covered |= features(torch._C.parse_schema(text))
    # Greedy cover: keep taking the schema that adds the most uncovered features.
    candidates = [(str(s), features(s)) for s in schemas]
    while True:
        best, gain = None, 0
        for text, feats in candidates:
            if text not in chosen and len(feats - covered) > gain:
                best, gain = (text, feats), len(feats - covered)
        if best is None:
            break
        chosen[best[0]] = None
        covered |= best[1]
    # Fill up with an even sample of the aten schemas (deterministic).
    aten = [str(s) for s in schemas if s.name.startswith("aten::") and str(s) not in chosen]
    step = max(1, len(aten) // max(1, TARGET - len(chosen)))
    for text in aten[::step]:
        if len(chosen) >= TARGET:
            break
        chosen[text] = None
    lines = sorted(chosen)
    assert all("\n" not in line for line in lines)
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} schemas covering {len(covered)} features to {OUT}")


if __name__ == "__main__":
    main()
