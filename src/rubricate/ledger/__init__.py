"""The append-only ledger: events, fold, reputation, derived files and the data-branch store."""
