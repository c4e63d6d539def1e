"""rubricate.bot."""
