from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from jupyter_agent.core.context import ToolUseOptions
from jupyter_agent.core.result import data_to_content, image_block
from jupyter_agent.core.tool import Tool


class GrepLikeInput(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    pattern: str = Field(description="Regex")
    case_insensitive: bool | None = Field(None, alias="-i")


class GrepLike(Tool[GrepLikeInput, str]):
    """Search file contents."""

    name = "GrepLike"
    input_schema = GrepLikeInput


async def test_api_tool_uses_wire_names_and_prompt():
    api = await GrepLike().to_api_tool(ToolUseOptions())
    assert api["name"] == "GrepLike" and api["description"] == "Search file contents."
    props = api["input_schema"]["properties"]
    assert set(props) == {"pattern", "-i"}
    assert "title" not in api["input_schema"] and "title" not in props["pattern"]
    assert api["input_schema"]["required"] == ["pattern"]


def test_alias_fields_parse_from_wire_names():
    parsed = GrepLikeInput.model_validate({"pattern": "x", "-i": True})
    assert parsed.case_insensitive is True


def test_defaults_of_optional_members():
    tool = GrepLike()
    inp = GrepLikeInput(pattern="x")
    assert tool.is_read_only(inp) is False and tool.is_concurrency_safe(inp) is False
    assert tool.is_destructive(inp) is False and tool.interrupt_behavior() == "block"
    assert tool.get_path(inp) is None and tool.should_defer is False
    matcher = tool.prepare_permission_matcher(inp)
    assert matcher("GrepLike") and matcher("*") and not matcher("Bash")
    assert tool.backfill_observable_input({"pattern": "x"}) == {"pattern": "x"}
    assert tool.render_tool_use_message(inp) == "GrepLike"


def test_data_to_content():
    assert data_to_content("hi") == [{"type": "text", "text": "hi"}]
    assert data_to_content("") == [{"type": "text", "text": "(no output)"}]
    assert data_to_content({"a": 1}) == [{"type": "text", "text": '{"a": 1}'}]
    img = image_block("image/png", "AAAA")
    assert data_to_content([img]) == [img]
    assert data_to_content(GrepLikeInput(pattern="p", **{"-i": True}))[0]["text"] == '{"pattern":"p","-i":true}'
