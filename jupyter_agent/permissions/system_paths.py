"""System files whose contents run commands, grant rights or redirect traffic: writing one asks.

The protected names cover a user's own start-up and configuration files.  An agent in a
container often runs as root, and then ``/etc`` is writable too: a line in ``/etc/cron.d`` runs
every minute, ``/etc/ld.so.preload`` loads a library into every process, ``/etc/sudoers.d``
grants root, ``/etc/gitconfig`` gives every git command a ``core.fsmonitor`` to run, an APT
hook runs with the next ``apt-get``, ``/etc/hosts`` sends ``pypi.org`` elsewhere.  ``crontab
FILE`` and ``systemctl enable`` already ask (``implicit_writes.py``); writing the files they
manage directly asks too, in every mode, like a protected path.  Also, anywhere: git's and
npm's configuration of an installation (``PREFIX/etc/gitconfig``, ``PREFIX/etc/npmrc``: a conda
environment's git reads its own) and pyenv's, rbenv's and nodenv's hook folders (``pyenv.d``:
every ``python`` run through pyenv's shims sources its ``exec`` hooks).  On macOS ``/etc`` is
``/private/etc``; both spellings count.
"""

from __future__ import annotations

import os

# what a file there does, said of one file and of a folder's files
_SCHEDULED = ("runs commands on a schedule, at boot or at log-in", "run commands on a schedule, at boot or at log-in")
_RIGHTS = ("decides who may log in or become root", "decide who may log in or become root")
_LOADED = ("is loaded into every program that starts", "are loaded into every program that starts")
_SOURCES = ("decides where names, packages and images come from", "decide where names, packages and images come from")
_PROGRAMS = ("makes a program run commands when it starts", "make a program run commands when it starts")

SYSTEM_DIRS: dict[str, tuple[str, str]] = {
    **dict.fromkeys(("/etc/cron.d", "/etc/cron.hourly", "/etc/cron.daily", "/etc/cron.weekly",
                     "/etc/cron.monthly", "/etc/cron.yearly", "/var/spool/cron", "/etc/systemd",
                     "/usr/lib/systemd", "/lib/systemd", "/run/systemd/system", "/etc/init.d", "/etc/init",
                     "/etc/rc.d", "/etc/rc0.d", "/etc/rc1.d", "/etc/rc2.d", "/etc/rc3.d", "/etc/rc4.d",
                     "/etc/rc5.d", "/etc/rc6.d", "/etc/rcS.d", "/etc/update-motd.d", "/etc/X11/Xsession.d",
                     "/etc/X11/xinit", "/etc/xdg/autostart", "/etc/logrotate.d", "/etc/udev", "/usr/lib/udev",
                     "/lib/udev", "/etc/modprobe.d", "/etc/NetworkManager/dispatcher.d", "/etc/network",
                     "/etc/environment.d", "/usr/share/applications"), _SCHEDULED),
    **dict.fromkeys(("/etc/sudoers.d", "/etc/pam.d", "/etc/security", "/etc/ssh", "/etc/polkit-1"), _RIGHTS),
    "/etc/ld.so.conf.d": _LOADED,
    **dict.fromkeys(("/etc/apt", "/etc/yum.repos.d", "/etc/dnf", "/etc/yum", "/etc/zypp", "/etc/pacman.d",
                     "/etc/apk", "/etc/docker", "/etc/containers"), _SOURCES),
    **dict.fromkeys(("/etc/vim", "/usr/share/vim", "/etc/emacs", "/etc/R", "/usr/lib/R/etc", "/etc/mercurial",
                     "/usr/share/bash-completion", "/etc/mysql",
                     "/etc/postgresql-common"), _PROGRAMS),
}
SYSTEM_FILES: dict[str, tuple[str, str]] = {
    **dict.fromkeys(("/etc/crontab", "/etc/anacrontab", "/etc/rc.local"), _SCHEDULED),
    **dict.fromkeys(("/etc/sudoers", "/etc/sudo.conf", "/etc/doas.conf", "/etc/passwd", "/etc/shadow",
                     "/etc/group", "/etc/gshadow"), _RIGHTS),
    **dict.fromkeys(("/etc/ld.so.preload", "/etc/ld.so.conf"), _LOADED),
    **dict.fromkeys(("/etc/hosts", "/etc/resolv.conf", "/etc/nsswitch.conf"), _SOURCES),
    **dict.fromkeys(("/etc/inputrc", "/etc/wgetrc", "/etc/tmux.conf", "/etc/screenrc", "/etc/vimrc", "/etc/gvimrc",
                     "/etc/gemrc", "/etc/psqlrc", "/etc/hgrc", "/etc/my.cnf"), _PROGRAMS),
}
_ROOTS = ("/etc/", "/var/spool/", "/usr/", "/lib/", "/run/", "/private/")
ETC_NAMES = frozenset({"gitconfig", "npmrc"})  # PREFIX/etc/<name>: an installation's git and npm settings
HOOK_DIRS = frozenset({"pyenv.d", "rbenv.d", "nodenv.d"})


def system_reason(form: str) -> str | None:
    """Why writing the absolute path ``form`` always asks (see the module), or None."""
    if "env.d" in form:
        for part in form.split(os.sep)[:-1]:
            if part in HOOK_DIRS:
                return f"{form} is inside {part}/, whose hooks {part[:-2]} runs with every command (a protected folder)"
    folder, _, name = form.rpartition(os.sep)
    if name in ETC_NAMES and folder.endswith(os.sep + "etc"):
        return f"{form} is an installation's {'git' if name == 'gitconfig' else 'npm'} configuration (a protected file)"
    if not form.startswith(_ROOTS):
        return None
    key = form[len("/private"):] if form.startswith(("/private/etc/", "/private/var/")) else form
    why = SYSTEM_FILES.get(key)
    if why is not None:
        return f"{form} {why[0]} (a protected system file)"
    while key:
        why = SYSTEM_DIRS.get(key)
        if why is not None:
            return f"{form} is in {key}, a protected system folder: its files {why[1]}"
        key = key.rpartition(os.sep)[0]
    return None


__all__ = ["SYSTEM_DIRS", "SYSTEM_FILES", "system_reason"]
