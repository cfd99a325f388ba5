"""The verdict a Bash line's checks build (deny > sticky ask > ask), and the per-decision
memo of filesystem answers they share."""

from __future__ import annotations

from .paths import BadPath, resolve_below


class Verdict:
    """What the parts of a line want; the strongest one wins (deny > sticky ask > ask)."""

    __slots__ = ("deny", "sticky", "soft", "prefixes", "checked", "memo", "folders", "notes", "script", "cwds")

    def __init__(self) -> None:
        self.deny: str | None = None
        self.sticky: list[str] = []
        self.soft: list[str] = []
        self.prefixes: list[str] = []
        self.folders: dict[str, str] = {}  # soft reason → the Edit(…) rule that would lift it
        self.notes: list[str] = []  # what the user is shown when asked (what a script it runs does)
        self.checked: set[tuple[str, str, bool]] | None = None  # (path, cwd, write) done
        self.memo: dict[tuple[object, ...], object] | None = None  # filesystem answers, this decision only
        # the checks of a script's or task file's code: its variables may be the file's own, not
        # the user's environment (`cp hook.sh $npm_package_config_dst`)
        self.script = False
        self.cwds: tuple[str, ...] = ()  # the folders the commands may run in (the rule checks read files there)

    def first_time(self, path: str, cwd: str, write: bool) -> bool:
        key = (path, cwd, write)
        if self.checked is None:
            self.checked = {key}
            return True
        if key in self.checked:
            return False
        self.checked.add(key)
        return True


def resolved_once(value: str, cwd: str, v: Verdict) -> tuple[str, str] | None:
    """``resolve_below(value, cwd)``, once per decision (long lines repeat their arguments)."""
    memo = v.memo if v.memo is not None else new_memo(v)
    key = ("resolved", value, cwd)
    if key not in memo:
        try:
            memo[key] = resolve_below(value, cwd)
        except BadPath:
            memo[key] = None
    return memo[key]  # type: ignore[return-value]


def new_memo(v: Verdict) -> dict[tuple[object, ...], object]:
    """Give ``v`` its (empty) memo, made on first use."""
    v.memo = {}
    return v.memo


__all__ = ["Verdict", "new_memo", "resolved_once"]
