"""rubricate: score pull-request deliverables against rubrics."""

__version__ = "0.1.0"
