"""The data-named-write guards (patch, archives, downloads, copies, remote copies, runners) never raise: any
argument list gets a decision (a broken check would deny, and say so)."""

from __future__ import annotations

import io
import os
import tarfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agent.core.permission_types import PermissionAllow, PermissionAsk, PermissionDeny
from jupyter_agent.permissions.bash import check_bash_permission
from tests.permissions.tools import make_ctx

PROGRAMS = ["tar", "bsdtar", "unzip", "7z", "cpio", "patch", "wget", "curl", "cp", "rsync", "scp",
            "python -m tarfile", "python -m zipfile", "uv run", "npx", "docker run", "git rebase", "sed", "ssh",
            "aria2c", "docker cp", "kubectl cp", "aws s3 cp", "aws s3 sync", "gsutil mv", "rclone copy", "rclone move",
            "awk", "gawk -e", "printf -v", "declare", "shopt -s", "compgen -W"]
WORDS = ["-x", "-xf", "xf", "xfC", "-f", "-C", "-d", "-o", "-O", "-p1", "-p", "-i", "-e", "-r", "-a", "--", "-",
         "a.tar", "a.zip", "a.patch", "junk", "sub", ".claude", "host:x", "host:.mcp.json", "https://h/.mcp.json",
         "--file=a.tar", "--directory", "--output-dir", "-J", "--exec", "-x", "'1e ls'", "$X", "*.tar", "-oout",
         "--remote-name-all", "--to-command=ls", "-I", "ProxyCommand=ls", "-t", "=", "''", "../x", "/etc/x",
         "c:/app/.", "ns/p:/x", "s3://b/.mcp.json", "gs://b/", "r:x", "file://sub", ".", "--recursive",
         "--follow-torrent=false", "--out=x",
         "'BEGIN{system(\"ls\")}'", "'{print > \"o\"}'", "'{print | \"sort\"}'", "'a[$(ls)]'", "'a[0]'",
         "dotglob", "'\"date\" | getline'", "'/a|b/'", "-F:", "-f"]


def _files(project):
    with tarfile.open(project / "a.tar", "w") as t:
        info = tarfile.TarInfo("x/y.txt")
        info.size = 1
        t.addfile(info, io.BytesIO(b"x"))
    (project / "a.zip").write_bytes(b"PK\x05\x06" + b"\x00" * 18)  # an empty zip
    (project / "a.patch").write_text("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n")
    (project / "junk").write_bytes(b"\x00\xff" * 50)
    (project / "sub").mkdir(exist_ok=True)


@settings(max_examples=int(os.environ.get("GUARD_FUZZ_EXAMPLES", "300")), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(program=st.sampled_from(PROGRAMS), words=st.lists(st.sampled_from(WORDS), max_size=6))
def test_guards_always_decide(tmp_path, program, words):
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    _files(project)
    line = " ".join([program, *words])
    for mode in ("default", "bypassPermissions"):
        ctx = make_ctx(project, allow=(f"Bash({program.split()[0]}:*)",), deny=("Bash(rm:*)",), mode=mode)
        verdict = check_bash_permission(line, ctx)
        assert isinstance(verdict, PermissionAllow | PermissionAsk | PermissionDeny), line


def test_a_check_that_fails_asks_in_every_mode(tmp_path, monkeypatch):
    """A guard raising on some input (urlsplit did on `wget 'a[$(ls)]'`) must not end the decision
    with an exception, nor allow: it asks, even in bypassPermissions mode."""
    from jupyter_agent.permissions import bash_paths

    def broken(*args):
        raise ValueError("boom")

    monkeypatch.setattr(bash_paths, "download_guard", broken)
    for mode in ("default", "bypassPermissions"):
        ctx = make_ctx(tmp_path, allow=("Bash(wget:*)",), mode=mode)
        verdict = check_bash_permission("wget https://example.com/a", ctx)
        assert isinstance(verdict, PermissionAsk) and "ValueError: boom" in verdict.message, verdict
