"""Workflows: ordered steps (tool calls, prompts, subagents) from ``.claude/workflows/*.md|yaml``."""

from .definition import Step, Workflow, WorkflowCatalog, load_workflows, parse_workflow
from .runner import StepReport, WorkflowProgress, WorkflowRun, run_workflow

__all__ = [
    "Step", "StepReport", "Workflow", "WorkflowCatalog", "WorkflowProgress", "WorkflowRun",
    "load_workflows", "parse_workflow", "run_workflow",
]
