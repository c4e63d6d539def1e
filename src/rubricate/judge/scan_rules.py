"""The injection patterns the scan looks for, kept as data (pure: no I/O)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rubricate.evidence.results import Severity


@dataclass(frozen=True)
class Rule:
    """One line-level injection pattern and the message for a hit."""

    name: str
    pattern: re.Pattern[str]
    message: str
    triggers: tuple[str, ...]
    """Lower-case words one of which must occur for the pattern to match (a fast filter)."""
    in_data_files: bool = True
    in_docs: Severity = "warning"
    """The severity of a hit in a changed documentation file (`scan.DOC_SUFFIXES`): docs that
    discuss scoring or chat templates get a note; code, data, the PR text and the spec warn."""
    folded: re.Pattern[str] = field(init=False, repr=False, compare=False)
    """The pattern without IGNORECASE, for lower-cased text (about twice as fast)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "folded", re.compile(self.pattern.pattern, re.MULTILINE))


def _rx(text: str) -> re.Pattern[str]:
    return re.compile(text, re.IGNORECASE | re.MULTILINE)


def _words(text: str) -> tuple[str, ...]:
    """Trigger words written as the patterns write alternatives, `a|b|c` (spaces kept)."""
    return tuple(text.split("|"))


_GAP = r"(?:[^.\n]|\n(?![ \t]*\n)){0,40}"
"""Up to 40 characters within one sentence and one paragraph (a single line break may split it)."""
_VERB = r"(?:ignore|disregard|forget|override|overrule|bypass|skip|drop|abandon|neglect|discard)"
_PRIOR = r"(?:previous|prior|preceding|above|earlier|your|system|original|initial|former)"
_ANY = r"(?:all|any|every|the|these|those)"
_ORDERS = (
    r"(?:instructions?|prompts?|rules?|directions?|directives?|guidelines?|context|messages?|orders?|"
    r"constraints?|rubric)"
)
_STRONG_ORDERS = r"(?:instructions?|prompts?|directions|directives?|guidelines|rubric)"
_NEAR = r"(?:[^.\n]){0,20}?"
_AUTOMATON = (
    r"(?:automated|automatic|ai|llm|machine|screening|ranking|scoring|grading|evaluation|"
    r"analysis|review(?:ing)?)"
)
_ASSESS = r"(?:scor\w*|grad\w*|ratings?|rank\w*|reviews?|evaluation|assessment|verdict|screening)"
_ACTOR = r"(?:ai|llm|language model|model|assistant|grader|judge|evaluator|scorer|bot|gpt|claude)"
_SCORE_WORD = r"(?:score|rating|grade|verdict|marks?|points?)"
_HIGH = (
    r"(?:(?:5|five|10|ten|100)(?:\s*/\s*\d+)?\b|(?:full|max(?:imum)?|perfect|top|highest|best)\s+"
    r"(?:score|marks?|points?|rating|grade)s?\b)"
)
_TARGET = r"(?:this|it|me|us|the\s+(?:pr|pull\s+request|submission|change|patch|code|diff))"
_LABEL = r"(?:notes?|output|result|verdict|metadata|report|override|decision|assessment|block)"

RULES: tuple[Rule, ...] = (
    Rule(
        "override",
        _rx(
            rf"\b{_VERB}\b{_GAP}\b{_PRIOR}\b{_NEAR}\b{_ORDERS}\b|"
            rf"\b{_VERB}\s+(?:{_ANY}\s+)?(?:of\s+)?(?:the\s+|your\s+)?{_STRONG_ORDERS}\b|"
            r"\b(?:ignore|disregard|forget)\s+(?:the\s+)?(?:rest|remainder)\s+of\s+(?:this|the)\b|"
            rf"\b{_VERB}\s+(?:everything|anything)\s+(?:above|before|else|previous)|"
            r"\bstop\s+everything\b"
        ),
        "text tries to override the judge's instructions",
        _words("ignore|disregard|forget|overrid|overrul|bypass|skip|drop|abandon|neglect|discard"),
    ),
    Rule(
        "new-instructions",
        _rx(
            r"\b(?:new|updated|real|actual|true|hidden|secret)\s+(?:system\s+)?"
            r"(?:instructions?|prompt|task)\s*(?::|are\b|follow|\*{2,}|!)|"
            r"\bimportant\s+new\s+instructions\b"
        ),
        "text announces new instructions",
        ("instruction", "prompt", "task", "rules"),
    ),
    Rule(
        "persona",
        _rx(
            r"\b(?:you\s+are\s+now|from\s+now\s+on\s*,?\s+you|i\s+want\s+you\s+to\s+act\s+as|"
            r"act\s+as\s+(?:a|an|the)\s+\w*\s*"
            r"(?:judge|grader|evaluator|reviewer|assistant|ai|model)|pretend\s+(?:to\s+be|you\s+are)|"
            r"roleplay\s+as|developer\s+mode|jailbreak)"
        ),
        "text tries to change the judge's role",
        ("you are now", "from now on", "act as", "pretend", "roleplay", "developer", "jailbreak"),
    ),
    Rule(
        "addressed-to-judge",
        _rx(
            rf"\b(?:note|message|hint|instructions?|reminder)\s+(?:to|for)\s+(?:the\s+|any\s+)?{_ACTOR}s?\b|"
            rf"^[^\w\n]*(?:dear\s+|hey\s+|attention\s*,?\s+)?{_ACTOR}s?\s*[,:]\s*(?:please|you\s+(?:must|should|will)|"
            r"must|should|ignore|give|rate|score)"
        ),
        "text addresses the judge directly",
        _words("ai|llm|model|assistant|grader|judge|evaluator|scorer|bot|gpt|claude"),
    ),
    Rule(
        "score-request",
        _rx(
            rf"\b(?:give|assign|award|grant|rate|score|mark|grade)\s+(?:{_TARGET}\s+)?(?:a\s+|an\s+|the\s+)?"
            rf"(?:score\s+of\s+|rating\s+of\s+)?{_HIGH}|\b(?:deserves|should\s+(?:get|receive|be\s+"
            rf"(?:given|scored|rated)))\s+(?:a\s+|an\s+|the\s+)?(?:score\s+of\s+)?{_HIGH}|"
            r"\ball\s+criteria\s+(?:are\s+|were\s+)?(?:met|pass(?:ed)?|satisfied|fulfilled)\b"
        ),
        "text asks for a particular score",
        _words("give|assign|award|grant|rate|score|mark|grade|deserve|should|criteria"),
    ),
    Rule(
        "fake-score-block",
        _rx(
            rf"\b{_SCORE_WORD}\s*[:=]?\s*\d+(?:\.\d+)?\s*/\s*\d+|"
            r"[\"'](?:score|scores|verdict|weighted_total|grade|rating)[\"']\s*:\s*(?:\d|[\"'](?:pass|approved))|"
            r"\bverdict\s*[:=]\s*[\"']?(?:pass(?:ed)?|approved)\b|"
            r"\b(?:final|overall|total|judge|grader)\s+(?:score|grade|rating|verdict)\s*[:=]"
        ),
        "text looks like a score or verdict block",
        in_docs="info",
        triggers=("score", "rating", "grade", "verdict", "mark", "point", "weighted_total"),
        in_data_files=False,
    ),
    Rule(
        "fake-grader-block",
        _rx(
            r"[\[<]\s*/?\s*(?:grader|judge|evaluator|rubricate|grading|evaluation|metadata)"
            rf"[\s_-]*{_LABEL}?\s*[\]>]|"
            r"^[ \t]*(?:#{1,6}|\*\*|={3,}|-{3,})[ \t]*(?:grader|judge|evaluator|rubricate|"
            rf"automated\s+review|ai\s+review|llm)[\s_-]*{_LABEL}\b|"
            rf"\b(?:grader|judge|evaluator|rubricate)[\s_-]*{_LABEL}\s*[:=]"
        ),
        "text imitates a grader, metadata or review block",
        triggers=_words("grader|judge|evaluat|rubricate|grading|metadata|review|llm"),
        in_data_files=False,
    ),
    Rule(
        "role-line",
        _rx(
            r"^[ \t>*_`#|-]*(?:\[|<\|?|\()?[ \t]*(?:system|assistant|developer|sys)[ \t]*"
            r"(?:prompt|message|override|note)?\s*(?:\]|\|?>|\))?\s*[:：]\s*\S"
        ),
        "a role-play line imitates a system or assistant message",
        ("sys", "assistant", "developer"),
        in_data_files=False,
    ),
    Rule(
        "chat-template-token",
        _rx(
            r"<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id)\|?>|"
            r"\[/?inst\]|<</?sys>>|</?\s*(?:system|assistant|untrusted[\w-]*|instructions?|scores?)\s*>"
        ),
        "text contains chat-template or wrapper tags",
        in_docs="info",
        triggers=(
            "<|",
            "inst]",
            "<<sys",
            "<</sys",
            "system",
            "assistant",
            "untrusted",
            "instruction",
            "score",
        ),
    ),
    Rule(
        "addressed-to-automation",
        _rx(
            r"\b(?:notes?|messages?|instructions?|hints?|reminders?|attention|notice|directive)\s+"
            rf"(?:to|for)\s+(?:the\s+|any\s+|all\s+)?{_AUTOMATON}\b|"
            r"\bfor\s+(?:the\s+)?(?:automated|ai|llm)\s+(?:screen\w*|rank\w*|review\w*|scor\w*|"
            r"grad\w*|evaluat\w*|analy\w*)\s+(?:systems?|tools?|software|readers?|bots?|models?)\b|"
            r"\bfor\s+(?:the\s+)?automated\s+(?:systems?|tools?|software|readers?|scans?|screen\w*|"
            r"analy\w*)\b|"
            r"\b(?:invisible|hidden)\s+(?:to|from)\s+(?:humans?|people|reviewers?|readers?)\b|"
            rf"\battention\s*,?\s+(?:the\s+|all\s+|any\s+)?{_AUTOMATON}\b|"
            r"\bvisible\s+(?:only\s+)?to\s+(?:the\s+)?(?:ai|llms?|models?|machines?|bots?)\b"
        ),
        "text addresses automated screening, review or scoring",
        _words(
            "note|message|instruction|hint|reminder|attention|notice|directive|automated|ai |llm|"
            "invisible|hidden|visible"
        ),
    ),
    Rule(
        "grader-manipulation",
        _rx(
            rf"\b(?:override|overrule|bypass|skip|disregard|ignore)\s+(?:the\s+|any\s+|all\s+)?"
            rf"(?:manual|human|normal|usual|standard|previous|prior|other)\s+{_ASSESS}|"
            r"\b(?:do\s+not|don'?t|never)\s+(?:evaluate|assess|score|grade|rate|judge|analy[sz]e|"
            r"penali[sz]e|criticise|criticize)\s+(?:the|this|my|our|it)\b|"
            r"\b(?:ignore|disregard|overlook|skip)\s+(?:all\s+|any\s+)?(?:negative|bad|critical|weak)\s+"
            r"(?:indicators?|signals?|points?|aspects?|findings?|feedback|issues?|parts?)|"
            r"\b(?:focus|report)\s+(?:exclusively|only)\s+on\s+(?:the\s+)?(?:positive|strengths?|good)|"
            r"\brate\s+(?:this|it|me|us|the\s+\w+)\s+(?:very\s+)?(?:highly|high|positively|favou?rably|"
            r"as\s+(?:excellent|outstanding|perfect|exceptional))\b|"
            r"\b(?:give|assign|award|grant)\s+(?:(?:this|the|my|our)\s+(?:[\w-]+\s+){0,2}|it\s+|me\s+|"
            r"us\s+)?(?:a\s+|an\s+|the\s+)?"
            r"(?:very\s+)?(?:high|higher|highest|positive|favou?rable|glowing|perfect|excellent)\s+"
            r"(?:scores?|ratings?|grades?|marks?|reviews?|evaluations?|rankings?)\b|"
            r"\b(?:positive|favou?rable|glowing)\s+reviews?\s+only\b|"
            r"\brank\s+(?:this|it|me|us|the\s+\w+)\s+(?:first|highest|at\s+the\s+top|above)\b|"
            r"\bpre-?(?:verified|approved|screened|vetted)\s+by\b"
        ),
        "text tries to steer the grader's assessment",
        _words(
            "overrid|overrul|bypass|skip|disregard|ignore|overlook|not |don|never|focus|report|"
            "rate|give|assign|award|grant|review|rank|pre"
        ),
    ),
    Rule(
        "scripted-answer",
        _rx(
            r"\b(?:simply|just|only)\s+(?:respond|reply|answer|say|print|output|write|return)\s+"
            r"(?:with\s+|that\s+)?[\"'“‘<]|"
            r"\b(?:simply|just|only)\s+(?:respond|reply|answer)\s+(?:with|that)\b|"
            r"\bif\s+(?:you\s+are\s+|you're\s+|anyone\s+)?(?:ever\s+)?(?:asked|questioned|queried)\b"
            r"[^.\n]{0,80}?\b(?:respond|reply|answer|report|say|state|output)\b|"
            r"\b(?:please\s+)?repeat\s+(?:the\s+following|after\s+me|this\s+(?:sentence|phrase|text))\b|"
            r"\brespond\s+to\s+every\s+prompt\b|"
            r"\bjust\s+(?:print|say|output|write)\s+[\"'“]"
        ),
        "text scripts the judge's answer",
        ("simply", "just", "only", "asked", "questioned", "queried", "repeat", "every prompt"),
    ),
    Rule(
        "prompt-leak",
        _rx(
            r"\brepeat\s+(?:the\s+|all\s+)?(?:words|text|everything|lines)\s+above\b|"
            r"\bverbatim\b[^.\n]{0,30}\byour\s+(?:\w+\s+)?(?:prompt|instructions)\b|"
            r"\b(?:repeat|reveal|print|show|paste|share|output|display|tell|give|list|leak|dump|put|"
            r"copy|spell\s+check|what\s+(?:is|are))\b[^.\n]{0,40}?(?:\byour\s+(?:\w+\s+){0,2}"
            r"(?:prompt|instructions|configuration|guidelines)|\bthe\s+(?:exact\s+|full\s+)?"
            r"(?:system|initial|original|hidden|previous)\s+(?:prompt|instructions))\b|"
            r"\b(?:i\s*am|i'm|as)\s+your\s+(?:\w+\s+)?(?:developer|creator|maintainer|admin\w*|"
            r"owner|operator|programmer)\b"
        ),
        "text tries to read out or take over the judge's instructions",
        ("prompt", "instruction", "configuration", "guideline", "your", "above"),
    ),
)
