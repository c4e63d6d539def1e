"""rubricate.action: the GitHub Actions entry point: settings, inputs, orchestration, effects."""
