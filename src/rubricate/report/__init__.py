"""`rubricate report`: reputation dashboard and calibration pages.

The core is pure: `model` (the report document, reputation over time, audit), `scores` (who
scored what, distributions, review change, weights evidence), `stats` (calibration, kappa,
Spearman, bootstrap), `charts` (pygal SVG), `pages` and `sections` (HTML). `site` is the shell
that writes the site, the markdown summary (rendered there) or JSON. The charts need the
optional extra `rubricate[report]` (pygal and numpy).
"""
