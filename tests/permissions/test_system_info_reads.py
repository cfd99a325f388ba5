"""What the machine is — ``/proc/meminfo``, ``/proc/cpuinfo``, ``/etc/os-release``, the cgroup's
memory and CPU limits — is read without a question from outside the working directories (by
Bash's read-only commands and by the Read tool): everyone may read it and it holds no secret.
Anything else there still asks (``/proc/self/environ`` holds the kernel's credentials), a
``Read`` deny rule still denies, and blocking outside reads still blocks."""

from __future__ import annotations

import os

import pytest

from jupyter_agent.permissions.decide import has_permission_to_use_tool
from jupyter_agent.permissions.filesystem import SYSTEM_INFO
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import PathInput, ReadLike, decide_bash, make_ctx, with_permissions

ROWS = [
    ("cat /proc/meminfo", "allow"), ("grep -c processor /proc/cpuinfo", "allow"), ("cat /etc/os-release", "allow"),
    ("head -3 /proc/meminfo && nproc", "allow"), ("cat /sys/fs/cgroup/memory.max", "allow"),
    ("cat /proc/self/environ", "ask"), ("cat /proc/1/cmdline", "ask"), ("cat /etc/passwd", "ask"),
    ("cat /proc/meminfo /etc/shadow", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_bash(world, command, expected):
    assert verdict_name(await decide_bash(make_ctx(world.project), command)) == expected


@pytest.mark.parametrize(("path", "expected"), [("/proc/meminfo", "allow"), ("/etc/os-release", "allow"),
                                                ("/proc/self/environ", "ask"), ("/etc/hostname", "ask")])
async def test_read_tool(world, path, expected):
    tool = ReadLike()
    verdict = await has_permission_to_use_tool(tool, PathInput(file_path=path), make_ctx(world.project))
    assert verdict_name(verdict) == expected


async def test_rules_and_the_block_still_hold(world):
    denied = make_ctx(world.project, deny=("Read(//proc/**)",))
    assert verdict_name(await decide_bash(denied, "cat /proc/meminfo")) == "deny"
    blocked = with_permissions(make_ctx(world.project), block_outside_reads=True)
    assert verdict_name(await decide_bash(blocked, "cat /proc/meminfo")) == "ask"


def test_exact_real_paths():
    assert all(os.path.isabs(p) and os.path.normpath(p) == p for p in SYSTEM_INFO)
    assert not any(p.startswith(("/proc/self", "/proc/thread-self")) or "environ" in p for p in SYSTEM_INFO)
