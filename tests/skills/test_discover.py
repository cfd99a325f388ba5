"""Skill and custom-command discovery from real folders, front matter, and argument substitution."""

from __future__ import annotations

from pathlib import Path

from jupyter_agent.skills import discover_commands, expand_command, load_commands, skills_prompt
from jupyter_agent.skills.command import PromptCommand
from jupyter_agent.skills.frontmatter import parse_markdown


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def make_tree(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "proj"
    write(home / ".claude/skills/pdf/SKILL.md",
          "---\nname: pdf\ndescription: User-level PDF skill\n---\nUser PDF instructions")
    write(home / ".claude/skills/notes/SKILL.md",
          "---\nname: notes\ndescription: Take notes\nwhen_to_use: meetings\n---\nWrite notes.")
    write(project / ".claude/skills/pdf/SKILL.md",
          "---\nname: pdf\ndescription: Extract text from PDFs\nallowed-tools: Read, Bash\n---\n"
          "# PDF\nUse pypdf. Files: $ARGUMENTS")
    write(project / ".claude/skills/pdf/reference.md", "extra file")
    write(project / ".claude/commands/review.md",
          "---\ndescription: Review a PR\nargument-hint: <pr-number>\n---\nReview PR #$ARGUMENTS carefully.")
    write(project / ".claude/commands/frontend/component.md", "Create component $1 in $2.")
    write(project / ".claude/commands/plain.md", "Say hello.")
    write(project / ".claude/commands/broken.md", "---\nname: [unclosed\n---\nStill usable body.")
    return home, project


def test_discovery_merges_user_and_project(tmp_path):
    home, project = make_tree(tmp_path)
    found = discover_commands(project, home=home)
    names = set(found.commands)
    assert names == {"pdf", "notes", "review", "frontend:component", "plain", "broken"}
    pdf = found.commands["pdf"]
    assert pdf.source == "project" and pdf.description == "Extract text from PDFs"
    assert pdf.kind == "skill" and pdf.allowed_tools == ("Read", "Bash")
    assert pdf.base_dir == project / ".claude/skills/pdf"
    assert found.commands["notes"].source == "user"
    assert found.commands["review"].argument_hint == "<pr-number>"
    assert found.commands["plain"].description == "Say hello."
    assert found.commands["broken"].body == "Still usable body."
    assert any("broken.md" in e and "YAML" in e for e in found.errors)
    assert {c.name for c in load_commands(project, home=home)} == names


def test_skill_without_description_is_reported(tmp_path):
    write(tmp_path / ".claude/skills/empty/SKILL.md", "---\nname: empty\n---\n")
    found = discover_commands(tmp_path, home=tmp_path / "nohome")
    assert "empty" not in found.commands and "needs a description" in found.errors[0]


def test_render_arguments():
    review = PromptCommand("review", "d", "Review PR #$ARGUMENTS now.")
    assert review.render("123") == "Review PR #123 now."
    comp = PromptCommand("c", "d", "Create $1 in $2 ($3).")
    assert comp.render('Button "src/ui dir"') == "Create Button in src/ui dir ()."
    plain = PromptCommand("p", "d", "Say hello.")
    assert plain.render("") == "Say hello." and plain.render("loudly") == "Say hello.\n\nARGUMENTS: loudly"
    skill = PromptCommand("s", "d", "Do it", kind="skill", path=Path("/x/skills/s/SKILL.md"))
    assert skill.render() == "Base directory for this skill: /x/skills/s\n\nDo it"


def test_expand_command(tmp_path):
    home, project = make_tree(tmp_path)
    commands = load_commands(project, home=home)
    assert expand_command("/review 42", commands) == "Review PR #42 carefully."
    assert expand_command("  /frontend:component Card web/src", commands) == "Create component Card in web/src."
    assert expand_command("/review 7\nwith focus on tests", commands) == (
        "Review PR #7\nwith focus on tests carefully."
    )
    assert expand_command("/unknown x", commands) is None
    assert expand_command("review 42", commands) is None
    assert expand_command("//comment", commands) is None


def test_skills_prompt_lists_skills_only(tmp_path):
    home, project = make_tree(tmp_path)
    text = skills_prompt(load_commands(project, home=home))
    assert "- pdf: Extract text from PDFs" in text and "- notes: Take notes - meetings" in text
    assert "review" not in text
    assert skills_prompt([]) == ""


def test_frontmatter_edge_cases():
    assert parse_markdown("no front matter").body == "no front matter"
    doc = parse_markdown("---\na: 1\n---\nbody")
    assert doc.meta == {"a": 1} and doc.body == "body"
    assert parse_markdown("---\na: 1\nbody").error == "front matter has no closing ---"
    assert parse_markdown("---\n- x\n---\nb").error == "front matter is not a mapping"
