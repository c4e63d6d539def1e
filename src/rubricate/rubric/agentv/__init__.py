"""The AgentV dialects: an eval file's forms, tests, graders and criteria, and AgentV's scoring.

`eval_file.agentv_rubrics` loads one rubric per test; `score` scores a test per grader. The rules
and their sources in AgentV are in each module; see DESIGN.md section 2 for the scoring.
"""
