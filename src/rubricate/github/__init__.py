"""The GitHub shell: the PyGithub adapter, its client and the REST listings it reads."""
