"""rubricate.evidence."""
