"""Downloaders, storage clients and backup restores outside the first tables (session 29's probe).

Each row in ``OUTSIDE``, ``SERVER_NAMED`` and ``DENIED`` was allowed under a rule allowing the
program though it wrote outside the working directories, wrote a name the other side chooses, or
wrote where an Edit rule denies: ``s3cmd get s3://b/x /etc/x``, ``mc mirror play/b /etc/d``,
``gdown ID -O /etc/x``, ``restic restore latest --target .``, ``yt-dlp -o '%(title)s.%(ext)s'``
(a title of ``.mcp`` and an extension of ``json`` make ``.mcp.json``), ``lftp -c 'get x'``.
``RUNS``: ``yt-dlp --exec`` runs shell code after each download, and was allowed with
``Bash(rm:*)`` in deny.  ``{out}`` is a folder outside the project.
"""

from __future__ import annotations

import json

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

OUTSIDE = [
    "gdown 1abc -O {out}/x.bin", "gdown --output={out}/x.bin 1abc", "http --download -o {out}/x https://h/x",
    "http -do {out}/x https://h/x", "xh get https://h/x -o {out}/x", "https -o {out}/x h/x", "axel -o {out}/x https://h/a",
    "axel -o {out} https://h/a", "yt-dlp -o {out}/clip.mp4 https://h/v", "yt-dlp -P {out} https://h/v",
    "yt-dlp -P {out} -o clip.mp4 https://h/v", "oras pull reg/x -o {out}/o",
    "s3cmd get s3://b/x {out}/x", "s3cmd get --force s3://b/x {out}/x", "s3cmd sync s3://b/ {out}/d/",
    "b2 file download b2://b/x {out}/x", "b2 download-file-by-name b x {out}/x", "b2 download_file_by_id 4_z1 {out}/x",
    "b2 sync b2://b {out}/d", "mc cp play/b/x {out}/x", "mc get play/b/x {out}/x", "mc mirror play/b {out}/d",
    "mc cp --recursive play/b/d {out}/d", "restic restore latest --target {out}/r", "restic restore latest -t {out}/r",
    "restic -r /srv/repo restore latest --target={out}/r", "duplicity restore s3://b {out}/d",
    "duplicity --no-encryption s3://b {out}/d",
]
# names the other side chooses, or commands from a script: asked in every mode
SERVER_NAMED = [
    "gdown 1abc", "gdown https://drive.google.com/uc?id=1abc", "gdown --folder https://drive/x -O data",
    "gdown 1abc -O data/", "gdown 1abc -O \"$F\"", "http --download https://h/x", "http -d https://h/x",
    "xh -d https://h/x", "https --download h/x", "yt-dlp -o '%(title)s.%(ext)s' https://h/v",
    "yt-dlp --output '%(title)s' https://h/v", "yt-dlp -o 'v/%(uploader)s/%(title)s [%(id)s].%(ext)s' https://h/v",
    "yt-dlp -o 'thumbnail:%(title)s.%(ext)s' https://h/v", "yt-dlp -o \"$T\" https://h/v", "oras pull reg/x",
    "oras --debug pull reg/x", "axel https://h/.mcp.json", "s3cmd get s3://b/.mcp.json", "s3cmd get -r s3://b/d",
    "s3cmd sync s3://b/ .", "mc cp -r play/b/d .", "mc mirror play/b .", "restic restore latest --target .",
    "restic restore latest --target \"$D\"", "borg extract repo::a", "borg extract repo::a src/",
    "duplicity restore s3://b .", "ftp -n host < s.txt", "ftp host", "lftp -c 'get x'", "lftp host",
    "smbclient //h/s -c 'get x'", "tftp host -c get x", "ncftp host", "ncftpget host . x",
    # abbreviated long options (argparse and optparse take them)
    "http --down https://h/x", "yt-dlp --out '%(title)s.%(ext)s' https://h/v", "gdown --fold https://d -O data",
]
INSIDE = [
    "gdown 1abc -O data.bin", "http https://h/x", "http -do out.bin https://h/x", "xh -d -o out.bin https://h/x",
    "axel https://h/data.bin", "axel -o out.bin https://h/a", "yt-dlp https://h/v",
    "yt-dlp -o '%(title)s [%(id)s].%(ext)s' https://h/v", "yt-dlp -o 'clips/%(id)s [%(title)s].%(ext)s' https://h/v",
    "yt-dlp -o clip.mp4 https://h/v", "yt-dlp -f best -P clips https://h/v", "oras push reg/x f.txt",
    "s3cmd get s3://b/x", "s3cmd get s3://b/x out.bin", "s3cmd sync ./data s3://b/", "s3cmd put a.py s3://b/",
    "s3cmd ls s3://b", "b2 file download b2://b/x out.bin", "b2 sync . b2://b", "mc cp a.py play/b/",
    "mc mirror ./sub play/b", "mc cp play/b/x out.bin", "mc ls play/b", "restic snapshots",
    "restic restore latest --target restored", "restic backup .", "borg extract --stdout repo::a f",
    "borg extract --dry-run repo::a", "borg list repo", "duplicity full . s3://b", "duplicity verify s3://b .",
    "duplicity restore s3://b restored", "gdown --out x.bin 1abc", "http --downl -o out.bin https://h/x",
]
DENIED = [
    "gdown 1abc -O locked/x", "http -do locked/x https://h/x", "axel -o locked https://h/a",
    "yt-dlp -o locked/clip.mp4 https://h/v", "yt-dlp -P locked -o clip.mp4 https://h/v",
    "s3cmd get s3://b/x locked/x", "b2 download-file-by-id 4_z1 locked/x", "b2 file download b2://b/x locked/x",
    "mc mv play/b/x locked/x", "mc cp a.py locked/", "mc cp a.py locked/b/",
]
RUNS = [  # (command, allowed programs, expected) with Bash(rm:*) in deny
    ("yt-dlp --exec 'rm x' https://h/v", "", "deny"),
    ("yt-dlp --exec='rm x' https://h/v", "", "deny"),
    ("yt-dlp --exec-before-download 'rm x' https://h/v", "", "deny"),
    ("yt-dlp --exec 'before_dl:rm x' https://h/v", "", "deny"),
    ("youtube-dl --exec 'rm x' https://h/v", "", "deny"),
    ("yt-dlp --downloader rm https://h/v", "", "deny"),
    ("yt-dlp --downloader 'm3u8:rm' https://h/v", "", "deny"),
    ("yt-dlp --external-downloader rm https://h/v", "", "deny"),
    ("yt-dlp --exec 'echo {}' https://h/v", "echo", "allow"),
    ("yt-dlp --exec 'after_move:echo {}' https://h/v", "echo", "allow"),
    ("yt-dlp --exec 'echo \"%(title)s\"' https://h/v", "echo", "ask"),  # the title becomes code
    ("yt-dlp --exec 'foo:rm x' https://h/v", "", "ask"),  # not a stage: a program named foo:rm
    ("yt-dlp --exec \"$X\" https://h/v", "", "ask"),
    ("yt-dlp --config-locations c.conf https://h/v", "", "ask"),
    ("yt-dlp --use-postprocessor 'Exec:exec=rm x' https://h/v", "", "ask"),
    ("yt-dlp --postprocessor-args 'ffmpeg:-y /x' https://h/v", "", "ask"),
    ("yt-dlp --downloader aria2c https://h/v", "aria2c", "allow"),
    ("yt-dlp -f best https://h/v", "", "allow"),
]


def _ctx(project, command, mode="default"):
    return make_ctx(project, allow=(f"Bash({command.split()[0]}:*)",), deny=("Edit(./locked/**)",), mode=mode)


@pytest.fixture
def mc_alias(world):
    """mc's configuration names the alias play (and locked, which is also a local folder)."""
    (world.home / ".mc").mkdir()
    (world.home / ".mc" / "config.json").write_text(json.dumps({"version": "10", "aliases": {
        "play": {"url": "https://play.min.io"}, "locked": {"url": "https://x"}}}))
    (world.project / "locked").mkdir()
    return world


@pytest.mark.parametrize("command", OUTSIDE)
async def test_writes_outside_ask(mc_alias, command):
    command = command.format(out=mc_alias.outside)
    assert verdict_name(await decide_bash(_ctx(mc_alias.project, command), command)) == "ask", command


@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
@pytest.mark.parametrize("command", SERVER_NAMED)
async def test_names_chosen_elsewhere_ask(mc_alias, command, mode):
    verdict = await decide_bash(_ctx(mc_alias.project, command, mode), command)
    assert verdict_name(verdict) == "ask", command


@pytest.mark.parametrize("command", INSIDE)
async def test_writes_inside_run_under_the_rule(mc_alias, command):
    (mc_alias.project / "data").mkdir(exist_ok=True)
    assert verdict_name(await decide_bash(_ctx(mc_alias.project, command), command)) == "allow", command


@pytest.mark.parametrize("command", DENIED)
async def test_edit_denied_writes_are_denied(mc_alias, command):
    assert verdict_name(await decide_bash(_ctx(mc_alias.project, command), command)) == "deny", command


async def test_mc_without_aliases_reads_every_path_as_local(world):
    """With no mc configuration, play/b is a local folder: what lands there is checked."""
    (world.project / "locked").mkdir()
    for command, expected in [("mc cp a.py play/b/", "allow"), ("mc cp play/b/x locked/y", "deny"),
                              ("mc mirror play/b " + str(world.outside), "ask")]:
        assert verdict_name(await decide_bash(_ctx(world.project, command), command)) == expected, command


@pytest.mark.parametrize(("command", "allowed", "expected"), RUNS)
async def test_yt_dlp_runs_its_exec_code(world, command, allowed, expected):
    allow = ("Bash(yt-dlp:*)", "Bash(youtube-dl:*)") + tuple(f"Bash({p}:*)" for p in allowed.split())
    ctx = make_ctx(world.project, allow=allow, deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


@pytest.mark.parametrize("mode", ["acceptEdits", "bypassPermissions"])
async def test_yt_dlp_conf_is_protected(world, mode):
    """yt-dlp reads yt-dlp.conf from the folder it runs in, and its --exec runs shell code."""
    command = "printf -- '--exec \"rm -rf x\"' > yt-dlp.conf"
    assert verdict_name(await decide_bash(make_ctx(world.project, mode=mode), command)) == "ask"
