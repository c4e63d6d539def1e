"""The injection patterns the scan looks for, kept as data (pure: no I/O)."""

from __future__ import annotations

import re
from dataclasses import dataclass

DATA_FILE_SUFFIXES = (".yml", ".yaml", ".toml", ".ini", ".cfg", ".json", ".env", ".properties")

INVISIBLE_CLASS = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b\u200c\u200e\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0e\ufeff\uffa0\ufff9-\ufffb"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef\U0001d173-\U0001d17a"
)
_JOINERS = "\u200d\ufe0f"
_EMOJI_BASE = f"[^\\x00-\\x7f{INVISIBLE_CLASS}{_JOINERS}]"
INVISIBLE = re.compile(f"[{INVISIBLE_CLASS}]|(?<!{_EMOJI_BASE})[{_JOINERS}]")
"""Invisible, bidi and tag characters; ZWJ and VS16 count only where no emoji precedes them."""
CONTROL = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
MD_COMMENT = re.compile(
    r"^[ \t]*\[[^\]\n]*\]:[ \t]*(?:#|<>)[ \t]*(?:\([^\n]*\)|\"[^\n]*\")[ \t]*$", re.M
)
CONFUSABLES = str.maketrans(
    "аеорсухіјѕԁԛԝһӏɡАВЕКМНОРСТХУІЈЅԌԚԜοαενρτυικχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "aeopcyxijsdqwhlgABEKMHOPCTXYIJSGQWoaevptuikxABEZHIKMNOPTYX",
)
"""Cyrillic and Greek letters that look Latin, mapped to Latin for the rules (not for display)."""
SUSPICIOUS_WORDS = re.compile(
    r"\b(?:ignore|disregard|instruction|prompt|system|assistant|score|grade|rating|grader|judge|"
    r"evaluator|rubric|approve|llm|ai)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Rule:
    """One line-level injection pattern and the message for a hit."""

    name: str
    pattern: re.Pattern[str]
    message: str
    triggers: tuple[str, ...]
    """Lower-case words one of which must occur for the pattern to match (a fast filter)."""
    in_data_files: bool = True


def _rx(text: str) -> re.Pattern[str]:
    return re.compile(text, re.IGNORECASE | re.MULTILINE)


_GAP = r"(?:[^.\n]|\n(?![ \t]*\n)){0,40}"
"""Up to 40 characters within one sentence and one paragraph (a single line break may split it)."""
_VERB = r"(?:ignore|disregard|forget|override|overrule|bypass|skip|drop|abandon|neglect|discard)"
_PRIOR = (
    r"(?:previous|prior|preceding|above|earlier|all|any|every|the|your|these|those|system|original)"
)
_ORDERS = (
    r"(?:instructions?|prompts?|rules?|directions?|directives?|guidelines?|context|messages?|orders?|"
    r"constraints?|rubric)"
)
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
        _rx(rf"\b{_VERB}\b{_GAP}\b{_PRIOR}\b{_GAP}\b{_ORDERS}\b"),
        "text tries to override the judge's instructions",
        (
            "ignore",
            "disregard",
            "forget",
            "overrid",
            "overrul",
            "bypass",
            "skip",
            "drop",
            "abandon",
            "neglect",
            "discard",
        ),
    ),
    Rule(
        "new-instructions",
        _rx(
            r"\b(?:new|updated|real|actual|true|hidden|secret)\s+(?:system\s+)?"
            r"(?:instructions?|prompt|task|rules)\s*(?::|are\b|follow)"
        ),
        "text announces new instructions",
        ("instruction", "prompt", "task", "rules"),
    ),
    Rule(
        "persona",
        _rx(
            r"\b(?:you\s+are\s+now|from\s+now\s+on\s*,?\s+you|act\s+as\s+(?:a|an|the)\s+\w*\s*"
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
        (
            "ai",
            "llm",
            "model",
            "assistant",
            "grader",
            "judge",
            "evaluator",
            "scorer",
            "bot",
            "gpt",
            "claude",
        ),
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
        (
            "give",
            "assign",
            "award",
            "grant",
            "rate",
            "score",
            "mark",
            "grade",
            "deserve",
            "should",
            "criteria",
        ),
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
        ("score", "rating", "grade", "verdict", "mark", "point", "weighted_total"),
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
        ("grader", "judge", "evaluat", "rubricate", "grading", "metadata", "review", "llm"),
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
            r"\[/?INST\]|<</?SYS>>|</?\s*(?:system|assistant|untrusted[\w-]*|instructions?|scores?)\s*>"
        ),
        "text contains chat-template or wrapper tags",
        (
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
)
