"""AgentV checks that AgentV itself refuses: its unsupported promptfoo types (pure: data).

EntityProcess/agentv, `packages/core/src/evaluation/loaders/grader-parser.ts`: head (58f316c)
lines 76-121 and 220-229, v4 (v4.42.4) lines 54-114. A file that uses one of these types is
refused by AgentV with "Unsupported promptfoo assertion type ... This type is future scope in
AgentV and is not accepted as a custom assertion", and `not-TYPE` is refused the same way.
"""

from __future__ import annotations

UNSUPPORTED_HEAD = frozenset(
    {
        "answer-relevance",
        "bleu",
        "classifier",
        "contains-html",
        "contains-json",
        "contains-sql",
        "contains-xml",
        "context-faithfulness",
        "context-recall",
        "context-relevance",
        "conversation-relevance",
        "factuality",
        "finish-reason",
        "gleu",
        "guardrails",
        "is-html",
        "is-refusal",
        "is-sql",
        "is-valid-function-call",
        "is-valid-openai-function-call",
        "is-valid-openai-tools-call",
        "is-xml",
        "levenshtein",
        "meteor",
        "model-graded-closedqa",
        "model-graded-factuality",
        "moderation",
        "perplexity",
        "perplexity-score",
        "pi",
        "rouge-n",
        "ruby",
        "similar:cosine",
        "similar:dot",
        "similar:euclidean",
        "select-best",
        "human",
        "max-score",
        "tool-call-f1",
        "trace-error-spans",
        "trace-span-count",
        "trace-span-duration",
        "search-rubric",
        "word-count",
    }
)
UNSUPPORTED_V4 = UNSUPPORTED_HEAD | {
    "skill-used",
    "trajectory:goal-success",
    "trajectory:tool-args-match",
    "trajectory:step-count",
    "trajectory:tool-sequence",
    "trajectory:tool-used",
}
UNSUPPORTED = {"assert": UNSUPPORTED_HEAD, "assertions": UNSUPPORTED_V4}


def unsupported_message(form: str, kind: str) -> str | None:
    """AgentV's refusal of an assertion type in this form, or None when AgentV accepts it."""
    base = kind.removeprefix("not-")
    if base not in UNSUPPORTED.get(form, frozenset()):
        return None
    return (
        f"unsupported assertion type {kind!r}: AgentV refuses it as future scope, not accepted "
        "as a custom assertion; remove it or write it as a script grader"
    )
