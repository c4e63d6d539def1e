"""rubricate.rubric."""
