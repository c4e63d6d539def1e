"""AgentV eval files in each form, written for these tests (no AgentV file is copied)."""

from __future__ import annotations

from collections.abc import Callable

CURRENT = """\
description: The current AgentV form, as the tests write it
x-quality: &quality
  type: llm-rubric
  metric: quality
  weight: 1
  value:
    - id: correct
      outcome: Gives the correct final answer to the question
    - id: reasoned
      outcome: Shows the reasoning behind the final answer
default_test:
  threshold: 0.7
  assert:
    - Keeps a professional and friendly tone throughout
tests:
  - id: five
    execution: {skip_defaults: true}
    assert: &five
      - Explains the partition step of quicksort
      - States the average complexity as n log n
      - Names the worst-case input for quicksort
      - Mentions that the choice of pivot matters
      - Gives a short worked example of one sort
  - id: strict
    execution: {skip_defaults: true, threshold: 0.9}
    assert: *five
  - id: with-defaults
    assert:
      - Explains the partition step of quicksort
      - States the average complexity as n log n
  - id: gated
    execution: {skip_defaults: true}
    assert:
      - type: llm-rubric
        metric: safety
        required: true
        min_score: 0.9
        value:
          - Refuses to reveal the user's password
          - Does not reveal the internal system prompt
      - type: agent-rubric
        metric: helpfulness
        weight: 9
        criteria:
          - Answers the question that was asked
  - id: merged
    execution: {skip_defaults: true, threshold: 0.7}
    assert:
      - <<: *quality
        weight: 3
      - Mentions the units of the final answer
      - type: contains
        value: metres
  - id: analytic
    execution: {skip_defaults: true}
    assert:
      - type: llm-rubric
        metric: depth
        value:
          - id: accuracy
            outcome: The answer is technically accurate throughout
            weight: 2
            min_score: 0.6
            score_ranges: {0: Wrong, 4: Partly right, 8: Right}
          - id: clarity
            outcome: The explanation is clear to a newcomer
            score_ranges: {0: Confusing, 5: Readable, 10: Clear}
  - id: three-analytic
    execution: {skip_defaults: true, threshold: 0.8}
    assert:
      - type: llm-rubric
        value:
          - {id: first, outcome: The first part is handled well, score_ranges: {0: Poor, 10: Ok}}
          - {id: second, outcome: The second part is handled, score_ranges: {0: Poor, 10: Ok}}
          - {id: third, outcome: The third part is handled well, score_ranges: {0: Poor, 10: Ok}}
  - id: negated
    execution: {skip_defaults: true}
    assert:
      - type: llm-rubric
        metric: leaks
        negate: true
        value: [Reveals the secret API key to the user]
      - Answers the question that was asked here
  - id: only-criteria
    execution: {skip_defaults: true}
    criteria: Explains why the build failed and how to fix it
  - id: checks-only
    execution: {skip_defaults: true}
    assert:
      - type: regex
        value: "^OK"
      - type: script
        command: [python, check.py]
"""

V4 = """\
description: The v4 `assertions:` form
assertions:
  - type: rubrics
    criteria:
      - Cites at least one primary source for it
tests:
  - id: depth
    assertions:
      - type: rubrics
        name: depth
        required: 0.6
        criteria:
          - id: accuracy
            outcome: The answer is technically accurate throughout
            required: true
            score_ranges: {0: Wrong, 10: Right}
          - id: clarity
            outcome: Clear to a newcomer and well organized
            required_min_score: 7
            score_ranges: {0: Confusing, 10: Clear}
"""

EVALCASES = """\
description: The v2 `evalcases` form
execution:
  evaluators:
    - name: shared
      type: rubric
      rubrics:
        - id: tone
          expected_outcome: Keeps a professional tone throughout
evalcases:
  - id: inline
    expected_outcome: Greets the user by name politely
    rubrics:
      - Greets the user by name at the start
      - Offers further help at the end
      - Uses no unexplained jargon at all
  - id: own
    expected_outcome: Explains the algorithm accurately
    execution:
      evaluators:
        - name: depth
          type: rubric
          rubrics:
            - id: accuracy
              expected_outcome: The answer is technically accurate throughout
              required_min_score: 8
              score_ranges: {0: Wrong, 5: Partly right, 10: Right}
  - id: default
    expected_outcome: Explains the error message clearly to the user
"""

INCLUDING = """\
tests:
  - id: included
    assert:
      - Answers the question that was asked here
      - include: polite
      - type: llm-rubric
        metric: sourced
        value: [Cites a primary source for each claim]
  - file://cases/more.yaml
"""

TEMPLATE = """\
assert:
  - Keeps a polite and professional tone throughout
  - include: ../shared/brief.yaml
"""

BRIEF = """\
assert:
  - Keeps the answer under two hundred words
"""

MORE = """\
- id: from-file
  assert:
    - Mentions the version the fix ships in
"""

FILES = {
    "evals/suite.yaml": INCLUDING,
    ".agentv/templates/polite.yaml": TEMPLATE,
    ".agentv/shared/brief.yaml": BRIEF,
    "evals/cases/more.yaml": MORE,
}


def reader(files: dict[str, str], asked: list[str] | None = None) -> Callable[[str], str]:
    """A `read(path)` over an in-memory repository."""

    def read(path: str) -> str:
        if asked is not None:
            asked.append(path)
        if path not in files:
            raise FileNotFoundError(path)
        return files[path]

    return read
