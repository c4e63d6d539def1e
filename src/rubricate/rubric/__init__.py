"""The rubric engine: model, dialect loaders, validation and scoring (pure: no I/O)."""
