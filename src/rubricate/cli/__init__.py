"""The command-line interface (shell)."""
