"""The optional LLM judge (pure: prompt, reply parsing, budget, guards; shell: `client*.py`).

Entry point: `rubricate.judge.service.judge_report`. Only `client.py` imports `openai`, lazily.
"""
