"""`rubricate report`: reputation dashboard and calibration pages.

The core (`timeline`, `stats`, `calibration`, `scores`, `audit`, `model`, `charts`, `html`,
`markdown`) is pure: events in, numbers, SVG and text out. `site` is the shell that writes files.
The charts need the optional extra `rubricate[report]` (pygal and numpy).
"""
