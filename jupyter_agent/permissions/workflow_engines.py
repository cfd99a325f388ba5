"""Workflow engines whose steps are shell commands in files this analyzer does not read.

``nextflow run main.nf`` runs each process's ``script:`` block (bash, in a Groovy file);
``cwltool wf.cwl`` (``cwl-runner``, ``toil-cwl-runner``) runs each tool's ``baseCommand`` and
``arguments``; ``miniwdl run``/``cromwell run`` run WDL's ``command`` blocks; ``ploomber build``
runs a pipeline's tasks (shell scripts among them); ``go generate`` runs the ``//go:generate``
comments of the packages it names; ``bazel``/``bazelisk``, ``buck``/``buck2``, ``pants`` and
``please`` run their rules' shell commands (genrule's ``cmd``); ``act`` runs the ``run:`` steps of
the GitHub workflows, ``earthly`` an Earthfile's ``RUN`` commands, ``gitlab-runner exec`` a job's
``script:``.  What they run is code only known at run time: with no deny
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
    # build systems whose rules hold shell commands (genrule's cmd, run_shell_command, .bazelrc's --run_under)
    **{name: (frozenset({"build", "run", "test", "coverage", "fetch", "sync"}),
              f"{name} runs the shell commands of the BUILD files' rules and .bazelrc's --run_under")
       for name in ("bazel", "bazelisk")},
    **{name: (frozenset({"build", "run", "test", "install"}), f"{name} runs the shell commands of its rules")
       for name in ("buck", "buck2")},
    "pants": (None, "pants runs the shell commands of the BUILD files' targets (shell_command …)"),
    **{name: (frozenset({"build", "run", "test", "cover", "exec"}),
              f"{name} runs the shell commands of its rules") for name in ("please", "plz")},
    # CI runners that run a pipeline's steps here: act the GitHub workflows' run: steps (even with no operand)
    "act": (frozenset(), "act runs the run: steps of the GitHub workflows"),
    "earthly": (None, "earthly runs the RUN commands of the Earthfile's targets (LOCALLY: on this machine)"),
    "gitlab-runner": (frozenset({"exec"}), "gitlab-runner exec runs the script: of a .gitlab-ci.yml job"),
}
WORKFLOW_ENGINES = frozenset(_ENGINES)
_QUIET = frozenset({"-h", "--help", "--version", "-version", "--validate", "--print-dot", "--print-rdf",
                    "--print-deps", "--print-subgraph", "--print-targets", "--print-input-deps", "--pack",
                    "--make-template", "-n", "--dry-run", "-preview", "-l", "--list", "-g", "--graph",
                    "--dryrun"})


def workflow_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]
                     ) -> list[Script]:
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
    elif not subcommands:  # act: any invocation runs the workflows
        runs = True
    else:
        runs = bool(operands) and (operands[0] is None or operands[0] in subcommands)
    return [Script(f"the commands {engine} runs", None, why)] if runs else []


__all__ = ["WORKFLOW_ENGINES", "workflow_scripts"]
