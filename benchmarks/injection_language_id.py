"""The language group of a span of text, for the trial of detector thresholds per language
(`injection_groups`; measured, not shipped).

- its main script when most of its letters are not Latin (`cjk`, `hangul`, `cyrillic`,
  `other`);
- else `latin` when its function words are mostly those of a language other than English,
  else `en`.

The function words are the commonest words of each language, single letters and words that
are also common in English or code left out; they tell languages apart, not injections.
"""

from __future__ import annotations

import re

LANGUAGES = ("en", "latin", "cjk", "hangul", "cyrillic", "other")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_ENGLISH = _words(
    "the and of to is in that it for with this you are be on not as or by an if from your can "
    "will should all was we have has what which when do does any must please these those only "
    "into than then there"
)
_OTHER_LATIN = _words(
    # es
    "de el la los las del que en por para con una como más pero sin sobre este esta todo todas hay "
    "puede cuando muy también sus al "
    # pt
    "não um uma com da dos das em você isso esse essa mais são pelo pela ao "
    # fr
    "le les des est pour dans qui pas sur avec ce vous nous sont du au aux cette mais leur tous "
    "être fait été "
    # de
    "der das und ist nicht ein eine einen mit für auf den dem wird sich auch oder wenn werden "
    "kann sind bitte alle diese dieser noch nach bei über vom zum zur ich wir dein deine "
    # it
    "il di che è non della delle sono gli questo questa anche come più nel alla "
    # nl
    "het een van niet voor zijn wordt ook dat deze bij "
    # tr
    "ve bir bu için ile değil olarak gibi daha çok ama veya sonra önce kadar her senin lütfen tüm "
    # pl
    "nie się jest że oraz jak tak dla może jeśli "
    # id
    "dan yang ini untuk dengan tidak dari itu akan ada atau pada "
    # vi
    "và của là có không được các này cho những một với trong"
)
_WORDS = re.compile(r"[^\W\d_]+")
_LETTERS = re.compile(r"[^\W\d_]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f\u1e00-\u1eff]")
_LATIN_MARKED = re.compile(r"[\u00c0-\u024f\u1e00-\u1eff]")
_SCRIPTS = (
    ("cjk", re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")),
    ("hangul", re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")),
    ("cyrillic", re.compile(r"[\u0400-\u052f]")),
)
LATIN_SHARE = 0.7
"""A span whose letters are at least this share Latin is read as a Latin-script language."""


def language(text: str) -> str:
    """The language group of a span (one of `LANGUAGES`)."""
    if not text.isascii():
        letters = len(_LETTERS.findall(text))
        latin = len(_LATIN.findall(text))
        if letters and latin < LATIN_SHARE * letters:
            counts = [(len(p.findall(text)), name) for name, p in _SCRIPTS]
            found, name = max(counts)
            return name if found * 2 >= letters - latin else "other"
    words = _WORDS.findall(text.lower())
    english = sum(w in _ENGLISH for w in words)
    other = sum(w in _OTHER_LATIN for w in words)
    if other >= 2 and other > english:
        return "latin"
    if other and not english and _LATIN_MARKED.search(text):
        return "latin"
    return "en"
