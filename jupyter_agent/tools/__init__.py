"""One module per tool."""
