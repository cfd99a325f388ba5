"""The live-notebook protocol, kernel side; mirrors ``labextension/src/protocol.ts`` one-to-one.

kernel → frontend: ``comm_open {protocol, version}``; frontend → kernel: ``Hello``; then
``Request`` (addressed to one ``client_id``) and exactly one ``Response`` per request; and,
unasked, ``CellsRemoved`` when the user deletes cells, ``OutputsCleared`` when the user clears
cells' outputs and ``OpenNotebooks`` when the notebooks open in the page change.  Bump ``PROTOCOL_VERSION`` on any change
that a peer cannot ignore, on both sides (a message a peer does not know it ignores).
"""

from __future__ import annotations

from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

COMM_TARGET = "jupyter_agent.notebook"
PROTOCOL_VERSION = 1

CellType = Literal["code", "markdown", "raw"]
Op = Literal[
    "get_notebook",
    "insert_cells",
    "replace_cell",
    "delete_cells",
    "move_cells",
    "execute_cells",
    "reveal_cell",
    "notify",
    "dismiss_notification",
    "show_output",
    "list_open",
]
ErrorName = Literal[
    "bad_request", "unknown_op", "not_found", "stale_cell", "no_model", "execution_failed", "internal",
    "not_open",
]
# What a frontend can do beyond version 1, named in its hello (a peer ignores what it does not know).
# "paths": a request may name another notebook open in the same JupyterLab page (``path``), and
# ``list_open`` lists them (and the page says which are open unasked: ``Hello.open``, then
# ``OpenNotebooks`` on every change).
FEATURE_PATHS = "paths"


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Hello(_Wire):
    type: Literal["hello"] = "hello"
    version: int
    client_id: str
    path: str
    server_root: str = ""
    features: list[str] = Field(default_factory=list)
    # the notebooks open in the page (server-relative), when it says so; None: ask (list_open)
    open: list[str] | None = None


class CellsRemoved(_Wire):
    """The user deleted these cells (the agent's own edits and moved cells are not reported)."""

    type: Literal["cells_removed"] = "cells_removed"
    client_id: str = ""
    cell_ids: list[str]


class OutputsCleared(_Wire):
    """The user cleared these cells' outputs (not a cell being run again, which clears them too)."""

    type: Literal["outputs_cleared"] = "outputs_cleared"
    client_id: str = ""
    cell_ids: list[str]


class OpenNotebooks(_Wire):
    """The notebooks open in the view's page now (server-relative): sent when that changes."""

    type: Literal["open_notebooks"] = "open_notebooks"
    client_id: str = ""
    paths: list[str]


class NewCell(_Wire):
    id: str | None = None
    cell_type: CellType
    source: str


# -- op arguments ---------------------------------------------------------------------------


class GetNotebookArgs(_Wire):
    pass


class InsertCellsArgs(_Wire):
    after_cell_id: str | None
    cells: list[NewCell] = Field(min_length=1)


class ReplaceCellArgs(_Wire):
    cell_id: str
    source: str
    cell_type: CellType | None = None
    expected_hash: str | None = None


class DeleteCellsArgs(_Wire):
    cell_ids: list[str] = Field(min_length=1)
    expected_hashes: dict[str, str] = Field(default_factory=dict)


class MoveCellsArgs(_Wire):
    cell_ids: list[str] = Field(min_length=1)
    after_cell_id: str | None = None


class ExecuteCellsArgs(_Wire):
    cell_ids: list[str] = Field(min_length=1)


class RevealCellArgs(_Wire):
    cell_id: str


class NotifyArgs(_Wire):
    """Tell the user the agent waits for them (a JupyterLab notification with a Show button),
    unless what it waits on is in view; the result's ``id`` is null then."""

    message: str
    cell_id: str


class DismissNotificationArgs(_Wire):
    id: str


class ListOpenArgs(_Wire):
    """The notebooks open in the page (paths relative to the server root)."""


class ShowOutputArgs(_Wire):
    """Put a display in a cell's outputs: it replaces the output marked with ``display_id``
    (``metadata.jupyter_agent.display_id``) if the cell has one, else it is added."""

    cell_id: str
    display_id: str
    data: dict[str, Any]


OpArgs = Union[
    GetNotebookArgs,
    InsertCellsArgs,
    ReplaceCellArgs,
    DeleteCellsArgs,
    MoveCellsArgs,
    ExecuteCellsArgs,
    RevealCellArgs,
    NotifyArgs,
    DismissNotificationArgs,
    ShowOutputArgs,
    ListOpenArgs,
]

OP_OF_ARGS: dict[type[BaseModel], Op] = {
    GetNotebookArgs: "get_notebook",
    InsertCellsArgs: "insert_cells",
    ReplaceCellArgs: "replace_cell",
    DeleteCellsArgs: "delete_cells",
    MoveCellsArgs: "move_cells",
    ExecuteCellsArgs: "execute_cells",
    RevealCellArgs: "reveal_cell",
    NotifyArgs: "notify",
    DismissNotificationArgs: "dismiss_notification",
    ShowOutputArgs: "show_output",
    ListOpenArgs: "list_open",
}


class Request(_Wire):
    type: Literal["request"] = "request"
    id: str
    client_id: str
    op: Op
    args: dict[str, Any]
    # another notebook open in the same page (server-relative); only to a view with FEATURE_PATHS
    path: str | None = None


# -- results ----------------------------------------------------------------------------------


class GetNotebookResult(_Wire):
    path: str
    notebook: dict[str, Any]


class ListOpenResult(_Wire):
    paths: list[str]


class EditResult(_Wire):
    cell_ids: list[str]
    cell_type: CellType | None = None
    language: str = "python"
    index: int = 0
    cell_count: int | None = None  # cells after the edit (a frontend built before it says nothing)


class ExecutedCell(_Wire):
    cell_id: str
    execution_count: int | None = None
    outputs: list[dict[str, Any]] = Field(default_factory=list)


class ExecuteCellsResult(_Wire):
    cells: list[ExecutedCell]


class ErrorInfo(_Wire):
    name: ErrorName | str
    message: str


class OkResponse(_Wire):
    type: Literal["response"] = "response"
    id: str
    ok: Literal[True] = True
    result: Any = None


class ErrorResponse(_Wire):
    type: Literal["response"] = "response"
    id: str
    ok: Literal[False] = False
    error: ErrorInfo


Response = Union[OkResponse, ErrorResponse]
_RESPONSE = TypeAdapter(Response)


def make_request(request_id: str, client_id: str, args: OpArgs, path: str | None = None) -> Request:
    """The envelope for ``args`` (its op follows from the args' type); ``path`` names another
    notebook open in the view's page (left out of the message when None)."""
    return Request(
        id=request_id,
        client_id=client_id,
        op=OP_OF_ARGS[type(args)],
        args=args.model_dump(mode="json"),
        path=path,
    )


FrontendMessage = Union[Hello, Response, CellsRemoved, OutputsCleared, OpenNotebooks]
_UNASKED: dict[str, type[_Wire]] = {
    "hello": Hello, "cells_removed": CellsRemoved, "outputs_cleared": OutputsCleared,
    "open_notebooks": OpenNotebooks,
}


def parse_frontend_message(data: object) -> FrontendMessage | None:
    """A message from the frontend (a Hello, a Response or one of the unasked events), or None
    for anything else (ignored)."""
    if not isinstance(data, dict):
        return None
    try:
        kind = data.get("type")
        model = _UNASKED.get(kind) if isinstance(kind, str) else None  # a list is no key
        if model is not None:
            return model.model_validate(data)  # type: ignore[return-value]
        if data.get("type") == "response":
            return _RESPONSE.validate_python(data)
    except ValueError as exc:
        if data.get("type") == "response" and isinstance(data.get("id"), str):
            # Answer the waiting request with the defect instead of letting it time out.
            error = ErrorInfo(name="bad_request", message=f"Malformed response from the frontend: {exc}")
            return ErrorResponse(id=data["id"], error=error)
        return None
    return None
