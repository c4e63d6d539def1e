"""rubricate.ledger."""
