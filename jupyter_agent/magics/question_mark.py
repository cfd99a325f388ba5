"""``%agent what is x?`` must reach the agent, not IPython's help.

IPython reads a line that ends in ``name?`` as a request for help on ``name``
(``%agent what is x?`` became ``%pinfo x``: "Object `x` not found." and no agent), and
questions are what people type.  A cleanup transform, which runs before IPython's own, turns
such an ``%agent`` line into the call IPython would make for it,
``get_ipython().run_line_magic('agent', 'what is x?')``.  Lines are found with IPython's own
tokenizer, so an ``%agent`` line inside a string is left alone; ``%agent?`` (help on the magic)
and lines that do not end in ``?`` are left to IPython.
"""

from __future__ import annotations

import tokenize
from typing import Any

_SKIP = (tokenize.INDENT, tokenize.DEDENT, tokenize.NL, tokenize.COMMENT)


def keep_questions(lines: list[str]) -> list[str]:
    """The cleanup transform (IPython's ``input_transformers_cleanup``)."""
    if not any("%agent" in line and line.rstrip().endswith("?") for line in lines):
        return lines  # every other cell: one scan, nothing tokenized
    try:
        from IPython.core.inputtransformer2 import make_tokens_by_line

        logical = make_tokens_by_line(lines)
    except Exception:  # what IPython cannot tokenize it reports itself
        return lines
    out = list(lines)
    for tokens in logical:
        row = _magic_row(tokens)
        if row is not None and row < len(out):
            out[row] = _as_call(out[row])
    return out


def _magic_row(tokens: list[Any]) -> int | None:
    """The physical line (0-based) of a one-line ``%agent …`` statement, else None."""
    toks = [t for t in tokens if t.type not in _SKIP and t.string]
    if len(toks) < 2 or toks[0].string != "%" or toks[1].string != "agent":
        return None
    start = toks[0].start
    if toks[1].start != (start[0], start[1] + 1):  # "% agent" is not the magic
        return None
    if any(t.start[0] != start[0] or t.end[0] != start[0] for t in toks):  # continued lines: left alone
        return None
    return start[0] - 1


def _as_call(line: str) -> str:
    body = line.rstrip()
    indent = line[: len(line) - len(line.lstrip())]
    rest = body.lstrip()[len("%agent"):]
    prompt = rest.strip()
    if not body.endswith("?") or not rest[:1].isspace() or prompt.strip("?") == "":
        return line  # not a question to the agent (``%agent?`` asks IPython about the magic)
    newline = "\n" if line.endswith("\n") else ""
    return f"{indent}get_ipython().run_line_magic('agent', {prompt!r}){newline}"
