"""`rubricate serve` and `rubricate worker`: the GitHub App on PostgreSQL (shell).

DESIGN.md §4 and §6 give the rules; docs/app.md how to run them.
"""
