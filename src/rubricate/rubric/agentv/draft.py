"""A rubric grader as written, and what parsing a grader list needs (pure: no I/O).

The grader lists themselves are read in `graders`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rubricate.rubric.agentv.criteria import CriterionDraft, has_ranges
from rubricate.rubric.agentv.forms import Form
from rubricate.rubric.agentv.refs import References
from rubricate.rubric.located import Located


@dataclass
class GraderDraft:
    """One rubric grader as written: its settings and its criteria."""

    name: str
    type: str
    where: Located
    criteria: list[CriterionDraft] = field(default_factory=list)
    weight: float = 1.0
    required: bool = False
    min_score: float | None = None
    negate: bool = False
    continuous: bool = False

    @property
    def analytic(self) -> bool:
        """AgentV scores a grader 0-10 when any of its criteria has score ranges (head 646)."""
        return any(has_ranges(c.draft) for c in self.criteria)


@dataclass
class Context:
    """What parsing a grader list needs: the form's rules, references, and what was left out."""

    form: Form
    refs: References
    left_out: list[str] = field(default_factory=list)
    criteria_text: str | None = None

    def fresh(self, criteria_text: str | None = None) -> Context:
        """A context for another list: the same form and references, nothing left out yet."""
        return Context(self.form, self.refs, criteria_text=criteria_text)
