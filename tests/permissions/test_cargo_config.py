"""The programs Cargo's configuration files name (``cargo_config.py``): under ``Bash(rm:*)``
denied and ``Bash(*)`` allowed in bypass, ``cargo run`` with a ``.cargo/config.toml`` whose runner
is ``rm -rf x`` ran rm unasked; each row below that asks did."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from .conftest import verdict_name
from .tools import decide_bash, make_ctx

_RULES = {"allow": ("Bash(*)",), "deny": ("Bash(rm:*)",), "mode": "bypassPermissions"}
RUNNER = (
    "[target.'cfg(unix)']\nrunner = \"rm -rf x\"\n"
    "[alias]\nxr = \"run --release\"\nloop = \"loop\"\n"
    "[doc]\nbrowser = [\"rm\", \"y\"]\n"
)
BUILD = "[build]\nrustc-wrapper = \"./tools/wrap.sh\"\n"

ROWS = [
    (RUNNER, "cargo run", "ask"), (RUNNER, "cargo r --release", "ask"), (RUNNER, "cargo test", "ask"),
    (RUNNER, "cargo bench", "ask"), (RUNNER, "cargo +nightly -q run", "ask"), (RUNNER, "cargo xr", "ask"),
    (RUNNER, "cd sub && cargo run", "ask"),  # the file of a folder above
    (RUNNER, "timeout 600 cargo run", "ask"), (RUNNER, "cargo doc --open", "ask"),
    (RUNNER, "cargo build", "allow"), (RUNNER, "cargo check", "allow"), (RUNNER, "cargo doc", "allow"),
    (RUNNER, "cargo fmt", "allow"), (RUNNER, "cargo loop", "allow"),  # an alias of itself: no build
    (RUNNER, "cargo install ripgrep", "allow"),  # cargo install reads only $CARGO_HOME's file
    (BUILD, "cargo build", "ask"), (BUILD, "cargo check", "ask"), (BUILD, "cargo clippy", "ask"),
    (BUILD, "cargo run", "ask"), (BUILD, "cargo fmt", "allow"),
    ("[target.x86_64-unknown-linux-gnu]\nlinker = \"rm\"\n", "cargo build", "ask"),
    ("[target.x86_64-unknown-linux-gnu]\nlinker = \"cc\"\n", "cargo build", "allow"),
    ("this is [ not toml", "cargo build", "ask"),  # a file that cannot be read
    ("this is [ not toml", "cargo fmt", "ask"),  # (what an alias means is not known either)
]


@pytest.mark.parametrize(("config", "command", "expected"), ROWS)
async def test_programs_cargo_configuration_names(world, monkeypatch, tmp_path, config, command, expected):
    monkeypatch.setenv("CARGO_HOME", str(tmp_path / "cargo-home"))
    (world.project / ".cargo").mkdir()
    (world.project / ".cargo" / "config.toml").write_text(config)
    (world.project / "sub").mkdir(exist_ok=True)
    (world.project / "tools").mkdir()
    (world.project / "tools" / "wrap.sh").write_text("rm -rf z\n")
    verdict = await decide_bash(make_ctx(world.project, **_RULES), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))


async def test_the_home_configuration_counts(world, monkeypatch, tmp_path):
    home = tmp_path / "cargo-home"
    home.mkdir()
    (home / "config.toml").write_text("[build]\nrustc-wrapper = \"rm\"\n")
    monkeypatch.setenv("CARGO_HOME", str(home))
    ctx = make_ctx(world.project, **_RULES)
    for command in ("cargo build", "cargo install ripgrep"):
        verdict = await decide_bash(ctx, command)
        assert verdict_name(verdict) == "ask" and "rustc-wrapper" in verdict.message, command


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_cargo_really_runs_the_runner_its_configuration_names(tmp_path):
    """The ground truth of the rows: the runner runs, with the built program after it."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.rs").write_text("fn main() {}\n")
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "a"\nversion = "0.1.0"\nedition = "2021"\n')
    (tmp_path / ".cargo").mkdir()
    (tmp_path / ".cargo" / "config.toml").write_text("[target.'cfg(unix)']\nrunner = \"touch ran\"\n")
    subprocess.run(["cargo", "run", "-q", "--offline"], cwd=tmp_path, check=True, timeout=300,
                   capture_output=True)
    assert (tmp_path / "ran").exists()
