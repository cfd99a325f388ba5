"""The notebook document: live (labextension comm) and on-disk (nbformat) backends."""
