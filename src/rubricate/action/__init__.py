"""The GitHub Actions entry point: settings, inputs, one orchestration, effects (shell)."""
