from __future__ import annotations

import pytest

from jupyter_agent.lsp.manager import SERVERS_ENV, LspSettings, parse_servers


def test_servers_from_env_are_merged_over_the_default(monkeypatch, tmp_path):
    monkeypatch.setenv(SERVERS_ENV, '{"rust": {"command": ["rust-analyzer"], "extensions": [".rs"]}}')
    settings = LspSettings.from_env()
    assert settings.for_path(tmp_path / "main.rs")[1].command == ("rust-analyzer",)
    assert settings.for_path(tmp_path / "m.PY")[0] == "python"
    assert settings.for_path(tmp_path / "notes.txt") is None


@pytest.mark.parametrize("raw", ['[]', '{"x": {"command": []}}', '{"x": {"command": ["a"], "extensions": "rs"}}', "{"])
def test_bad_server_config_is_refused(raw):
    with pytest.raises(ValueError):
        parse_servers(raw)


def test_available_only_when_a_server_program_exists(tmp_path):
    from jupyter_agent.lsp.manager import ServerConfig

    missing = LspSettings(servers={"x": ServerConfig(("no-such-server-anywhere",), (".x",), "x")})
    assert not missing.available()
    real = tmp_path / "srv"
    real.write_text("")
    assert LspSettings(servers={"x": ServerConfig((str(real),), (".x",), "x")}).available()
