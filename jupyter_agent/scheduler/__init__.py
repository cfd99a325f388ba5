"""Cron-style scheduling of prompts the session submits to itself while the kernel lives."""

from .jobs import CronJob, next_fire, validate_cron
from .scheduler import Clock, CronScheduler, CronSubmit, get_scheduler, install_scheduler

__all__ = [
    "Clock",
    "CronJob",
    "CronScheduler",
    "CronSubmit",
    "get_scheduler",
    "install_scheduler",
    "next_fire",
    "validate_cron",
]
