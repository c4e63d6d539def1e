"""rubricate.judge."""
