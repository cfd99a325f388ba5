"""Copies from containers and buckets write local files named over there: under
``Bash(docker cp:*)``, ``docker cp c:/app/. .`` fills the project with whatever the container's
folder holds (``.claude/settings.local.json`` among it, for all a rule can tell), and an Edit deny
rule must stop ``aws s3 cp s3://b/k locked/y`` as it stops ``cp k locked/y``.

The rows follow each program's documented syntax (none of these programs runs here): docker's
``CONTAINER:PATH``, kubectl's ``NS/POD:PATH``, ``s3://``/``gs://`` URLs, rclone's ``REMOTE:PATH``.
"""

from __future__ import annotations

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ALLOW = ("Bash(docker:*)", "Bash(podman:*)", "Bash(kubectl:*)", "Bash(oc:*)", "Bash(aws:*)", "Bash(gsutil:*)",
         "Bash(gcloud:*)", "Bash(rclone:*)", "Bash(azcopy:*)")
DENY = ("Edit(./locked/**)",)


@pytest.fixture
def project(world):
    p = world.project
    (p / "locked").mkdir()
    (p / "locked" / "a.txt").write_text("x")
    (p / "logs").mkdir()
    (p / "data").mkdir()
    (p / "data" / "old.csv").write_text("1\n")
    return p


ROWS = [
    # an Edit deny rule covers where the copy lands
    ("docker cp c:/x locked/y", "deny"),
    ("docker cp -a c:/x locked/y", "deny"),
    ("docker container cp c:/x locked/", "deny"),
    ("podman cp c:/x locked/y", "deny"),
    ("kubectl cp ns/p:/x locked/y", "deny"),
    ("kubectl cp -c main ns/p:/x locked/y", "deny"),
    ("oc rsync p:/data locked", "ask"),  # a folder lands where the rule may match below
    ("aws s3 cp s3://b/k locked/y", "deny"),
    ("aws --profile p s3 cp s3://b/k locked/y", "deny"),
    ("aws s3 cp s3://b/k locked/y --region eu-west-1", "deny"),
    ("aws s3 cp s3://b/k locked/", "deny"),
    ("aws s3 cp s3://b/k locked", "deny"),  # an existing folder: locked/k
    ("aws s3 mv ./locked/a.txt s3://b/k", "deny"),  # a move removes its local source
    ("gsutil cp gs://b/k locked/y", "deny"),
    ("gsutil cp gs://b/k file://locked/y", "deny"),
    ("gcloud storage cp gs://b/k locked/y", "deny"),
    ("rclone copyto r:x/f locked/f", "deny"),
    ("rclone move ./locked/a.txt r:bak", "deny"),
    ("azcopy copy https://a.blob.core.windows.net/c/k locked/y", "deny"),
    ("aws s3 sync s3://b locked", "ask"),
    ("rclone copy r:x locked", "ask"),
    # names that come from over there
    ("aws s3 cp s3://b/.mcp.json .", "ask"),
    ("docker cp c:/app/.mcp.json .", "ask"),
    ("gsutil cp gs://b/.bashrc ~/", "ask"),
    ("docker cp c:/app/. .", "ask"),  # a folder's contents into the project
    ("kubectl cp ns/p:/data . -c main", "ask"),
    ("aws s3 sync s3://b .", "ask"),
    ("gsutil -m cp -r gs://b/d .", "ask"),
    ("rclone sync r:site ..", "ask"),  # the project's parent holds the project
    ("docker cp c:/app/. logs/.git", "ask"),
    # outside the working directories, or a word known only at run time
    ("docker cp c:/etc/passwd /tmp/x", "ask"),
    ("docker cp c:/x $DEST", "ask"),
    ("aws s3 cp $SRC .", "ask"),
    ("rclone copyurl -a https://x/y .", "ask"),
    # allowed: a file or a new folder lands where nothing guards it; uploads; standard output
    ("docker cp c:/app/log.txt logs/", "allow"),
    ("docker cp c:/app out", "allow"),
    ("docker cp c:/app/. data", "allow"),  # a folder that holds nothing protected
    ("kubectl cp ns/p:/data ./newdata -c main", "allow"),
    ("aws s3 cp s3://b/k .", "allow"),
    ("aws s3 cp s3://b/k ./y --region eu-west-1", "allow"),
    ("aws s3 cp s3://b/k -", "allow"),
    ("docker cp c:/x -", "allow"),
    ("aws s3 cp ./a s3://b/k", "allow"),
    ("aws s3 sync . s3://b", "allow"),
    ("aws s3 sync s3://b ./fresh", "allow"),
    ("rclone copy r:x ./fresh", "allow"),
    ("rclone copyurl https://x/y ./y", "allow"),
    ("docker cp ./a c:/x", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_remote_copies_are_checked(project, command, expected):
    verdict = await decide_bash(make_ctx(project, allow=ALLOW, deny=DENY), command)
    assert verdict_name(verdict) == expected, verdict


@pytest.mark.parametrize("command", ["aws s3 cp s3://b/.mcp.json .", "docker cp c:/app/. .", "aws s3 sync s3://b ."])
async def test_bypass_mode_still_asks(project, command):
    """Protected paths ask in every mode."""
    verdict = await decide_bash(make_ctx(project, mode="bypassPermissions"), command)
    assert verdict_name(verdict) == "ask", verdict
