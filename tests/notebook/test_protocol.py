"""protocol.py and labextension/src/protocol.ts define the same protocol."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

from jupyter_agent.notebook import protocol as P
from jupyter_agent.notebook.bridge import resolve_hello_path

TS = (Path(__file__).parents[2] / "labextension" / "src" / "protocol.ts").read_text()


def _ts_union(name: str) -> set[str]:
    body = re.search(rf"export type {name} =([^;]+);", TS)
    assert body, name
    return set(re.findall(r"'([a-z_]+)'", body.group(1)))


def test_target_and_version_match():
    assert re.search(r"COMM_TARGET = '([^']+)'", TS).group(1) == P.COMM_TARGET
    assert int(re.search(r"PROTOCOL_VERSION = (\d+)", TS).group(1)) == P.PROTOCOL_VERSION


def test_ops_and_error_names_match():
    ts_ops = set(re.findall(r"^  ([a-z_]+): I\w+Args;$", TS, re.M))
    assert ts_ops == set(typing.get_args(P.Op)) == set(P.OP_OF_ARGS.values())
    assert _ts_union("ErrorName") == set(typing.get_args(P.ErrorName))
    assert _ts_union("CellType") == set(typing.get_args(P.CellType))


@pytest.mark.parametrize("model", list(P.OP_OF_ARGS))
def test_every_args_field_exists_in_typescript(model):
    ts_name = "I" + "".join(w.title() for w in P.OP_OF_ARGS[model].split("_")) + "Args"
    body = re.search(rf"export interface {ts_name} \{{([^}}]*)\}}", TS)
    assert body, ts_name
    ts_fields = set(re.findall(r"^\s+([a-z_]+)[?]?:", body.group(1), re.M))
    assert ts_fields == set(model.model_fields)


def test_frontend_messages_parse():
    hello = P.parse_frontend_message(
        {"type": "hello", "version": 1, "client_id": "a", "path": "x.ipynb", "server_root": "/w"}
    )
    assert isinstance(hello, P.Hello) and hello.path == "x.ipynb"
    ok = P.parse_frontend_message({"type": "response", "id": "1", "ok": True, "result": {"a": 1}})
    assert isinstance(ok, P.OkResponse) and ok.result == {"a": 1}
    err = P.parse_frontend_message(
        {"type": "response", "id": "2", "ok": False, "error": {"name": "stale_cell", "message": "m"}}
    )
    assert isinstance(err, P.ErrorResponse) and err.error.name == "stale_cell"
    broken = P.parse_frontend_message({"type": "response", "id": "3", "ok": False})
    assert isinstance(broken, P.ErrorResponse) and "Malformed" in broken.error.message
    assert P.parse_frontend_message("nonsense") is None
    assert P.parse_frontend_message({"type": "other"}) is None
    removed = P.parse_frontend_message({"type": "cells_removed", "client_id": "a", "cell_ids": ["c1", "c2"]})
    assert isinstance(removed, P.CellsRemoved) and removed.cell_ids == ["c1", "c2"]
    assert P.parse_frontend_message({"type": "cells_removed", "cell_ids": "c1"}) is None  # malformed: ignored
    cleared = P.parse_frontend_message({"type": "outputs_cleared", "client_id": "a", "cell_ids": ["c1"]})
    assert isinstance(cleared, P.OutputsCleared) and cleared.cell_ids == ["c1"]
    opened = P.parse_frontend_message({"type": "open_notebooks", "client_id": "a", "paths": ["x.ipynb", "s/y.ipynb"]})
    assert isinstance(opened, P.OpenNotebooks) and opened.paths == ["x.ipynb", "s/y.ipynb"]
    assert P.parse_frontend_message({"type": "open_notebooks", "client_id": "a", "paths": "x"}) is None
    assert P.parse_frontend_message({"type": ["hello"], "version": 1}) is None  # no key: ignored, no crash
    said = P.parse_frontend_message({"type": "hello", "version": 1, "client_id": "a", "path": "x.ipynb",
                                     "open": ["x.ipynb", "y.ipynb"]})
    assert said.open == ["x.ipynb", "y.ipynb"]
    assert P.parse_frontend_message({"type": "hello", "version": 1, "client_id": "a", "path": "x.ipynb"}).open is None


@pytest.mark.parametrize(("ts_name", "model"), [
    ("ICellsRemoved", P.CellsRemoved), ("IOutputsCleared", P.OutputsCleared), ("IOpenNotebooks", P.OpenNotebooks),
])
def test_the_unasked_events_match_typescript(ts_name, model):
    body = re.search(rf"export interface {ts_name} \{{([^}}]*)\}}", TS)
    assert body and f"type: '{model.model_fields['type'].default}';" in body.group(1)
    assert set(re.findall(r"^\s+([a-z_]+)[?]?:", body.group(1), re.M)) == set(model.model_fields)


@pytest.mark.parametrize(("ts_name", "model"), [("IHello", P.Hello), ("IRequest", P.Request)])
def test_the_envelopes_match_typescript(ts_name, model):
    body = re.search(rf"export interface {ts_name}(?:<[^>]*>)? \{{(.*?)\n\}}", TS, re.S)
    assert body, ts_name
    assert set(re.findall(r"^  ([a-z_]+)[?]?:", body.group(1), re.M)) == set(model.model_fields)


def test_the_features_match_typescript():
    assert re.search(r"export const FEATURES = \[([^\]]*)\]", TS).group(1) == f"'{P.FEATURE_PATHS}'"
    assert P.parse_frontend_message({"type": "hello", "version": 1, "client_id": "a", "path": "x.ipynb"}).features == []


def test_request_envelope_names_its_op():
    req = P.make_request("r1", "c1", P.ReplaceCellArgs(cell_id="a", source="s", expected_hash="h"))
    assert req.op == "replace_cell" and req.args["expected_hash"] == "h" and req.client_id == "c1"


@pytest.mark.parametrize(
    ("hello", "session", "cwd", "expected"),
    [
        (dict(path="sub/nb.ipynb", server_root="/srv/root"), "", "/x", "/srv/root/sub/nb.ipynb"),
        (dict(path="sub/nb.ipynb", server_root=""), "/home/u/sub/nb.ipynb", "/x", "/home/u/sub/nb.ipynb"),
        (dict(path="sub/nb.ipynb", server_root=""), "", "/home/u/sub", "/home/u/sub/nb.ipynb"),
    ],
)
def test_hello_path_is_made_absolute(hello, session, cwd, expected):
    h = P.Hello(version=1, client_id="c", **hello)
    assert resolve_hello_path(h, session_name=session, cwd=cwd) == expected


def test_server_root_with_tilde():
    h = P.Hello(version=1, client_id="c", path="nb.ipynb", server_root="~/proj")
    assert resolve_hello_path(h) == str(Path.home() / "proj" / "nb.ipynb")
