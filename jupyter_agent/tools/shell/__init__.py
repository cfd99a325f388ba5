"""Building blocks of the Bash tool: process groups, output files, text cleaning, shell state."""
