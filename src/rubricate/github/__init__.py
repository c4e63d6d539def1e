"""rubricate.github."""
