"""The git adapter (shell): runs the git CLI to read changes and write the data branch."""
