"""The optional LLM judge (pure: prompt, reply, budget, scan, quotes, guards; shell: `adapter/`,
`cache.py`, `client_detector.py`, `step.py`, `service.py`).

Entry point: `rubricate.judge.service.judge_report`. Only `adapter/` imports `openai`, lazily.
"""
