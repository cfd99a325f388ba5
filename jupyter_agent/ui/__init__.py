"""ipywidgets transcript, tool cards, question widgets and pure HTML renderers."""
