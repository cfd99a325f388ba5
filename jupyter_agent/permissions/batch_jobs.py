"""The commands batch schedulers run later on a cluster's nodes: ``sbatch job.sh``, ``qsub job.sh``.

A job script runs on a compute node that shares the cluster's file systems, so its commands are
checked as a shell script the line runs (``script_files``): SLURM's ``sbatch [options] SCRIPT
[ARGS]`` in the submit folder (``-D``/``--chdir``: there; ``--wrap CODE`` is the runner table's);
SGE/PBS/Torque's ``qsub [options] SCRIPT`` in the home folder, or the submit folder with
``-cwd``, or ``-wd``/``-d DIR``; ``qsub -b y CMD ARGS`` (SGE) and ``qsub … -- CMD ARGS`` (PBS)
run CMD; HTCondor's ``condor_submit job.sub`` runs the file's ``executable`` with its
``arguments``.  A job read from standard input (``qsub`` or ``bsub`` with no script: ``bsub <
job.sh``), a submit file's macros and a word only known at run time are code only known at
run time.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace

from .bash_analysis import CommandInfo
from .bash_words import Word
from .script_files import (
    NotKnown,
    Script,
    located,
    options_of,
    passed_on,
    per_form,
    read_bounded,
    scripts_of_forms,
)

BATCH_SUBMITTERS = frozenset({"sbatch", "qsub", "bsub", "condor_submit"})
_SBATCH_VALUES = frozenset({
    "-A", "--account", "-p", "--partition", "-t", "--time", "-N", "--nodes", "-n", "--ntasks", "-c",
    "--cpus-per-task", "-o", "--output", "-e", "--error", "-J", "--job-name", "-D", "--chdir", "-w", "--nodelist",
    "-x", "--exclude", "-G", "--gpus", "--gres", "-q", "--qos", "-C", "--constraint", "-d", "--dependency", "-a",
    "--array", "-M", "--clusters", "-L", "--licenses", "--mem", "--mem-per-cpu", "--mem-per-gpu", "-i", "--input",
    "--export", "--mail-type", "--mail-user", "--begin", "--deadline", "--reservation", "-F", "--nodefile",
    "--ntasks-per-node", "--gpus-per-node", "--signal", "--comment", "--nice", "--priority", "-S",
    "--core-spec", "--distribution", "-m", "--cpu-freq", "--tmp", "--wckey", "--wrap",
})
_QSUB_VALUES = frozenset({
    "-N", "-q", "-l", "-o", "-e", "-j", "-v", "-wd", "-d", "-S", "-t", "-J", "-hold_jid", "-W", "-M", "-m",
    "-A", "-P", "-r", "-p", "-a", "-c", "-h", "-b", "-R", "-sync", "-now", "-js", "-tc", "-ac", "-dl", "-ar", "-u",
    "-i", "-k", "-C", "-w", "-X",
})
_QSUB_FLAGS = frozenset({"-cwd", "-V", "-notify", "-clear", "-I", "-x", "-z", "-f", "-F", "-verify"})
_MACRO = re.compile(r"\$\([^)]*\)|\$\$\([^)]*\)")


def batch_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The job scripts and commands the submitters of this command queue (every form)."""
    return scripts_of_forms(info, cwds, memo, BATCH_SUBMITTERS, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    program = form[0].literal
    if program == "sbatch":
        return _sbatch(form, cwd, cwd_unknown)
    if program == "qsub":
        return _qsub(form, cwd, cwd_unknown)
    if program == "condor_submit":
        return _condor(form, cwd, cwd_unknown)
    # bsub CMD is the runner table's; with none, bsub reads the job from standard input
    words = [w.literal for w in form[1:]]
    if any(w is not None and w[:1] != "-" for w in words) or any(w in ("-V", "-h", "--help") for w in words):
        return []
    raise NotKnown("bsub reads the job from standard input")


def _sbatch(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    folder: str | None = None
    for option, value, word in options_of(form[1:], _SBATCH_VALUES, "sbatch"):
        if option in ("--wrap", "-h", "--help", "-V", "--version", "--test-only"):
            return []  # --wrap: the runner table reads its code
        if option in ("-D", "--chdir"):
            folder = value
        if not option:
            return _job_script(word, folder, cwd, cwd_unknown)
    raise NotKnown("sbatch reads the job script from standard input")


def _qsub(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    words = form[1:]
    for k, word in enumerate(words):  # -pe NAME SLOTS: SGE's one option with two values
        if word.literal == "-pe":
            words = (*words[:k], *words[k + 3:])
            break
    dashdash = next((k for k, w in enumerate(words) if w.literal == "--"), None)
    options = words if dashdash is None else words[:dashdash]
    folder: str | None = "~"
    binary = False
    for option, value, word in options_of(options, _QSUB_VALUES, "qsub"):
        if option in ("-help", "--help", "-h", "--version"):
            return []
        if option == "-cwd":
            folder = None
        elif option in ("-wd", "-d"):
            folder = value
        elif option == "-b":
            binary = (value or "").lower() in ("y", "yes")
        elif option and option not in _QSUB_VALUES and option not in _QSUB_FLAGS:
            raise NotKnown(f"qsub {option} is an option this does not know")
        elif not option:
            if binary:  # qsub -b y CMD ARGS
                rest = options[next(k for k, w in enumerate(options) if w is word):]
                return [_command(rest, folder, cwd, "qsub -b y")]
            return _job_script(word, folder, cwd, cwd_unknown)
    if dashdash is not None and dashdash + 1 < len(words):  # PBS: qsub … -- CMD ARGS
        return [_command(words[dashdash + 1:], folder, cwd, "qsub --")]
    raise NotKnown("qsub reads the job script from standard input")


def _job_script(word: Word, folder: str | None, cwd: str, cwd_unknown: bool) -> list[Script]:
    runs_in = _folder(folder, cwd, cwd_unknown)
    return [replace(s, cwd=runs_in) for s in located(word, [cwd], search_path=False)]


def _command(words: tuple[Word, ...], folder: str | None, cwd: str, shown: str) -> Script:
    return Script(f"the command {shown} queues", None, code=passed_on(words), cwd=_folder(folder, cwd, False))


def _folder(folder: str | None, cwd: str, cwd_unknown: bool) -> str:
    """Where the job runs: the submit folder (None), the home folder (~) or the folder named."""
    if folder is None:
        if cwd_unknown:
            raise NotKnown("the job runs in a folder only known at run time")
        return cwd
    return os.path.realpath(os.path.join(cwd, os.path.expanduser(folder)))


def _condor(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    files = [w for option, _value, w in options_of(form[1:], frozenset({"-a", "-append", "-name", "-remote",
                                                                     "-pool", "-batch-name", "-queue"}),
                                                     "condor_submit") if not option]
    if not files:
        raise NotKnown("condor_submit reads the submit description from standard input")
    found: list[Script] = []
    for word in files:
        if word.literal is None or cwd_unknown:
            raise NotKnown(f"the submit file {word.text} is only known at run time")
        path = os.path.realpath(os.path.join(cwd, os.path.expanduser(word.literal)))
        data, why = read_bounded(path)
        if data is None:
            if not os.path.lexists(path):
                continue  # no such file: condor_submit stops
            raise NotKnown(f"{path} {why}")
        settings: dict[str, str] = {}
        for line in data.decode("utf-8", "replace").splitlines():
            key, eq, value = line.partition("=")
            if eq and key.strip():
                settings[key.strip().lower()] = value.strip()
        executable = settings.get("executable")
        if executable is None:
            continue
        line = " ".join([executable, settings.get("arguments", "").strip('"')]).strip()
        if _MACRO.search(line):
            raise NotKnown(f"{path}: the job's command has macros filled in at submit time")
        folder = settings.get("initialdir")
        found.append(Script(f"the job of {path}", path, code=line,
                            cwd=os.path.realpath(os.path.join(os.path.dirname(path), folder or "."))))
    return found


_READ = per_form("the job the scheduler runs", _of_form)

__all__ = ["BATCH_SUBMITTERS", "batch_scripts"]
