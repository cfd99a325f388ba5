"""Workflow engines whose steps are shell commands in files this analyzer does not read.

``nextflow run main.nf`` runs each process's ``script:`` block (bash, in a Groovy file);
``cwltool wf.cwl`` (``cwl-runner``, ``toil-cwl-runner``) runs each tool's ``baseCommand`` and
``arguments``; ``miniwdl run``/``cromwell run`` run WDL's ``command`` blocks; ``ploomber build``
runs a pipeline's tasks (shell scripts among them); ``go generate`` runs the ``//go:generate``
comments of the packages it names.  What they run is code only known at run time: with no deny
or ask rule it runs as the engine does (what lets the line run it covers it), and under one it
asks — as ``nx``'s targets do (``package_scripts.monorepo_scripts``).  (Snakemake's rules are
read: ``snakemake_rules.py``.)  Their listing, checking and help commands run nothing.
"""

from __future__ import annotations

from .bash_analysis import CommandInfo
from .bash_words import Word
from .script_files import Script, scripts_of_forms

# engine → (the subcommands that run a workflow; None: any invocation with an operand, why)
_ENGINES: dict[str, tuple[frozenset[str] | None, str]] = {
    "nextflow": (frozenset({"run"}), "nextflow runs the script: blocks of the pipeline's processes"),
    "cwltool": (None, "cwltool runs the command-line tools the CWL workflow describes"),
    "cwl-runner": (None, "cwl-runner runs the command-line tools the CWL workflow describes"),
    "toil-cwl-runner": (None, "toil-cwl-runner runs the command-line tools the CWL workflow describes"),
    "miniwdl": (frozenset({"run"}), "miniwdl runs the command blocks of the WDL tasks"),
    "cromwell": (frozenset({"run", "server"}), "cromwell runs the command blocks of the WDL tasks"),
    "ploomber": (frozenset({"build", "task", "interact"}), "ploomber runs the pipeline's tasks"),
    "go": (frozenset({"generate"}), "go generate runs the //go:generate commands of the packages' files"),
}
WORKFLOW_ENGINES = frozenset(_ENGINES)
_QUIET = frozenset({"-h", "--help", "--version", "-version", "--validate", "--print-dot", "--print-rdf",
                    "--print-deps", "--print-subgraph", "--print-targets", "--print-input-deps", "--pack",
                    "--make-template", "-n", "--dry-run", "-preview"})


def workflow_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """An unknown script for each form of this command that runs a workflow."""
    return scripts_of_forms(info, cwds, memo, WORKFLOW_ENGINES, _of_form, per_folder=False)


def _of_form(form: tuple[Word, ...], _cwds: list[str], _cwd_unknown: bool) -> list[Script]:
    engine = form[0].literal or ""
    subcommands, why = _ENGINES[engine]
    words = [w.literal for w in form[1:]]
    if any(w in _QUIET for w in words):
        return []
    operands = [w for w in words if w is None or not w.startswith("-")]
    if engine == "go":  # go [-C DIR] generate …
        runs = any(w is None or w == "generate" for w in words[:3])
    elif subcommands is None:
        runs = bool(operands)
    else:
        runs = bool(operands) and (operands[0] is None or operands[0] in subcommands)
    return [Script(f"the commands {engine} runs", None, why)] if runs else []


__all__ = ["WORKFLOW_ENGINES", "workflow_scripts"]
