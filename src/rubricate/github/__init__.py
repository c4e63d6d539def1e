"""The GitHub shell: the PyGithub adapter and the effect executor."""
