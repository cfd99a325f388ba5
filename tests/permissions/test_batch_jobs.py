"""Batch schedulers run job scripts on nodes sharing the cluster's files (``batch_jobs.py``, session 40).

``sbatch job.sh`` (SLURM), ``qsub job.sh`` / ``qsub -b y CMD`` / ``qsub -- CMD`` (SGE, PBS,
Torque) and ``condor_submit job.sub`` (HTCondor) ran the job's ``rm`` under ``Bash(rm:*)`` in
bypassPermissions: only ``sbatch --wrap``, ``srun`` and ``bsub CMD`` were read.  The job's
commands are now checked as a script the line runs — in the submit folder (SLURM, ``qsub
-cwd``), the folder named (``-D``, ``-wd``, ``-d``, ``initialdir``) or the home folder (qsub's
default).  A job read from standard input asks under a deny rule.  (No scheduler is installed
here; the rows follow the schedulers' documentation.)
"""

from __future__ import annotations

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

FILES = {
    "job.sh": "#!/bin/bash\n#SBATCH -N 1\nmodule load python\nrm -rf scratch\n",
    "ok.sh": "#!/bin/bash\n#SBATCH --gres=gpu:1\npython train.py > out.log\n",
    "secret.sh": "#!/bin/bash\ncat .env\n",
    "job.sub": "executable = /bin/rm\narguments = -rf scratch\nqueue\n",
    "ok.sub": "executable = train.sh\narguments = \"--epochs 3\"\nqueue 4\n",
    "macro.sub": "executable = /bin/rm\narguments = x_$(Process)\nqueue 4\n",
}
ROWS = [
    ("sbatch job.sh", "deny"),
    ("sbatch -p gpu --gres=gpu:1 -t 01:00:00 job.sh", "deny"),
    ("sbatch --chdir=sub job.sh", "deny"),
    ("qsub job.sh", "deny"),
    ("qsub -cwd -N run1 -pe smp 4 job.sh", "deny"),
    ("qsub -b y rm -rf scratch", "deny"),  # SGE binary mode: the command itself
    ("qsub -l walltime=1:00:00 -- /bin/rm -rf scratch", "deny"),  # PBS: the command after --
    ("condor_submit job.sub", "deny"),
    ("bsub < job.sh", "ask"),  # the job comes from standard input
    ("sbatch", "ask"),
    ("condor_submit macro.sub", "ask"),  # macros filled in at submit time
    ("qsub -unknown x job.sh", "ask"),
    ('sbatch "$JOB"', "ask"),
    ("sbatch --wrap 'rm -rf scratch'", "deny"),  # (read before, by the runner table)
    ("sbatch ok.sh", "allow"),
    ("qsub -cwd ok.sh", "allow"),
    ("condor_submit ok.sub", "allow"),
    ("sbatch --test-only job.sh", "allow"),
    ("sbatch missing.sh", "allow"),  # no such file: sbatch stops
    ("squeue -u me", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_job_scripts_meet_the_deny_rules(tmp_path, command, expected):
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "sub").mkdir()
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)


async def test_the_job_runs_where_the_scheduler_puts_it(tmp_path):
    """qsub runs a job in the home folder unless -cwd: the job's cat .env reads the project's .env
    only from the submit folder."""
    (tmp_path / "secret.sh").write_text(FILES["secret.sh"])
    (tmp_path / ".env").write_text("KEY=1\n")
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "sbatch secret.sh")) == "deny"
    assert verdict_name(await decide_bash(ctx, "qsub -cwd secret.sh")) == "deny"
    assert verdict_name(await decide_bash(ctx, "qsub secret.sh")) == "allow"  # ~/.env, not the project's
