"""rubricate.cli."""
