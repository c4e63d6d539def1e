"""rubricate.render: text renderings of reports."""
