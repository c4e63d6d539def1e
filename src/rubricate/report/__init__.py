"""`rubricate report`: reputation dashboard and calibration pages.

The core is pure: `model` (the report document), `scores`, `summary`, `tallies`, `calibration`
and `stats` (its numbers), `refresh` (its sources when the last report is reused), `charts`
(pygal SVG), `html`, `pages`, `sections` and `author_page` (HTML), `markdown` (the step
summary). The shell writes: `site` (the HTML site), `files` (JSON, markdown), `reuse` (what a
report keeps for the next), `pool` and `workers` (processes). The charts need the optional extra
`rubricate[report]` (pygal and numpy). What each page shows: docs/report.md.
"""
