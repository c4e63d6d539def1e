"""Trial: the detector's threshold chosen per group of spans, leave-one-source-out on the
training sources only; print JSON.

    nice -n 10 python benchmarks/injection_groups.py --mirrors /work/.mirror \
        [--translated | --calibrate-only]

The model is the shipped one (`train_injection.fit` over `detector.features_of`); only where
a span's score is compared changes. Designs (`injection_calibration.group_of`):

- `global`: one threshold, as before `rubricate-injection-4`;
- `language`: one threshold per language group (`injection_language_id.language`);
- `kind`: one per kind of text the span is found in (PR text, document, data file, code):
  shipped (`train_injection.py --kinds`, `judge/detector_kinds.py`);
- `language+kind`: per language, and for English spans per kind.

Each group's threshold is the lowest score flagging at most `TARGET_FP` of the benign
training repositories' items that hold a span of that group (out of fold: `FOLDS` folds of
the repositories, as `train_injection.choose_threshold`); a group with too few such items
takes a pooled one (`injection_calibration.group_thresholds`). Printed: the training
repositories' out-of-fold share flagged for every design (the cost side), and for every
injection source the share of its payloads flagged by a model trained without it, each
payload read in each of the five carriers of `injection_measure.CARRIERS` with that
carrier's kind (mean over the five). Nothing held out is read. `--translated` also trains on
the non-English sources and translated docs of `injection_corpora.TRANSLATED_SOURCES` and
`TRANSLATED_DOCS`; `--calibrate-only` reads them but never trains on them: the docs (the only
benign text of most language groups) only calibrate, the sources are only measured.

Measured on 2026-11-27 with `--calibrate-only` (14 sources; out-of-fold share of the twelve
benign repositories flagged in brackets): `global` 37.3% mean (1.48%), `language` 37.4%
(1.65%), `kind` 39.0% (1.46%), `language+kind` 38.9% (1.65%); the lowest source is 0% in all
(the written non-English injections). Per language, real translated docs set thresholds of
0.76-0.92 (CJK 0.78, Cyrillic 0.76, other Latin-script languages 0.89), not far below the
English 0.94, so the non-English sources gain at most 1-2 points: the global threshold is
not what keeps them low. Per kind, PR text gets 0.84 and documents 0.98 (documentation
quotes prompts; a PR's own description seldom does).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from injection_calibration import CARRIER_KINDS, TARGET_FP, group_of, group_thresholds, names
from injection_corpora import TRANSLATED_DOCS, TRANSLATED_SOURCES, evenly
from injection_language_id import language
from injection_trials import Trial
from train_injection import FOLDS, MAX_SPANS, Spans, threshold_repos, training_items

from rubricate.judge.detector_text import span_tokens

DESIGNS = ("global", "language", "kind", "language+kind")
PAYLOAD_KINDS = ("prose", "docs", "code", "data", "prose")
"""The kinds of `injection_measure.CARRIERS` (description, README, code comment, JSON value,
commit message)."""


class Grouped:
    """The trial's items with each span's language, and the group thresholds of a design."""

    def __init__(self, trial: Trial, langs: list[str], repos: tuple[str, ...]) -> None:
        self.trial = trial
        self.langs = langs
        self.repos = repos
        self.kinds = [CARRIER_KINDS.get(i.carrier, "prose") for i in trial.items]
        self.benign = [n for n, i in enumerate(trial.items) if i.source in set(repos)]
        self._groups: dict[tuple[str, str], np.ndarray] = {}
        self.counts: dict[str, dict[str, int]] = {}

    def span_groups(self, design: str, kind: str) -> np.ndarray:
        """Each span's group index in `names(design)` when found in text of `kind`."""
        found = self._groups.get((design, kind))
        if found is None:
            index = {name: n for n, name in enumerate(names(design))}
            found = np.array([index[group_of(design, lang, kind)] for lang in self.langs])
            self._groups[design, kind] = found
        return found

    def thresholds(self, design: str, out_of_fold: np.ndarray) -> dict[str, float]:
        """Each group's threshold from the out-of-fold span scores of the benign repositories
        (`injection_calibration.group_thresholds`)."""
        rows = self.trial.data.item_rows
        spans = [[(self.langs[r], float(out_of_fold[r])) for r in rows[n]] for n in self.benign]
        kinds = [self.kinds[n] for n in self.benign]
        limits, self.counts[design] = group_thresholds(spans, kinds, design)
        return limits

    def flagged(
        self, design: str, limits: dict[str, float], scores: np.ndarray, kinds: list[str]
    ) -> np.ndarray:
        """Per item: flagged in text of `kinds[item]`'s kind (any span at or above its group's
        threshold)."""
        order = names(design)
        limit = np.array([limits[n] for n in order])
        out = np.zeros(len(self.trial.items), dtype=bool)
        for kind in set(kinds):
            hit = scores >= limit[self.span_groups(design, kind)]
            items = self.trial.item_max(hit.astype(float)) > 0
            mine = np.array([k == kind for k in kinds])
            out[mine] = items[mine]
        return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--translated", action="store_true")
    parser.add_argument(
        "--calibrate-only",
        action="store_true",
        help="read the translated sources and docs but never train on them: the docs only "
        "calibrate the thresholds, the sources are only measured",
    )
    args = parser.parse_args(argv)
    args.translated |= args.calibrate_only
    started = time.monotonic()
    sources: dict[str, str] = {}
    items = training_items(args.mirrors, sources, args.translated)
    read = [evenly(span_tokens(i.text), MAX_SPANS) for i in items]
    tokenized = [[tokens for *_where, tokens in spans] for spans in read]
    langs = [language(text) for spans in read for _f, _l, text, tokens in spans if tokens]
    trial = Trial(items, tokenized, Spans(tokenized))
    assert len(langs) == trial.data.count
    repos = threshold_repos(args.translated)
    untrained = set(TRANSLATED_DOCS) | set(TRANSLATED_SOURCES) if args.calibrate_only else set()
    trained = trial.everything - untrained
    folded = tuple(r for r in repos if r not in untrained)
    grouped = Grouped(trial, langs, repos)
    print(f"{len(items)} items, {trial.data.count} spans", file=sys.stderr, flush=True)

    out_of_fold = np.zeros(trial.data.count)
    for fold in range(FOLDS):
        left_out = set(folded[fold::FOLDS]) | (untrained if fold == 0 else set())
        scores = trial.span_probabilities(*trial.plain(trained - left_out))
        mine = np.isin(trial.owner, np.flatnonzero(trial.of(left_out)))
        out_of_fold[mine] = scores[mine]
    designs: dict[str, dict[str, Any]] = {}
    result: dict[str, object] = {"sources": sources, "target_fp": TARGET_FP, "designs": designs}
    result["never_trained"] = sorted(untrained)
    limits = {d: grouped.thresholds(d, out_of_fold) for d in DESIGNS}
    benign = np.array(grouped.benign)
    for design in DESIGNS:
        flagged = grouped.flagged(design, limits[design], out_of_fold, grouped.kinds)[benign]
        per_repo = {
            repo: round(float(flagged[[items[n].source == repo for n in benign]].mean()), 4)
            for repo in repos
        }
        designs[design] = {
            "thresholds": {k: round(v, 4) for k, v in limits[design].items()},
            "calibration_items": grouped.counts[design],
            "train_repos_flagged_out_of_fold": round(float(flagged.mean()), 4),
            "per_repo": per_repo,
            "per_source": {},
        }
    print(json.dumps(designs, indent=1), file=sys.stderr, flush=True)
    for source in trial.positive:
        scores = trial.span_probabilities(*trial.plain(trained - {source}))
        mine = trial.of({source})
        for design in DESIGNS:
            shares = [
                grouped.flagged(design, limits[design], scores, [kind] * len(items))[mine].mean()
                for kind in PAYLOAD_KINDS
            ]
            share = round(float(np.mean(shares)), 3)
            designs[design]["per_source"][source] = share
        found = {d: designs[d]["per_source"][source] for d in DESIGNS}
        print(source, found, file=sys.stderr, flush=True)
    for row in designs.values():
        values = list(row["per_source"].values())
        row["mean"] = round(float(np.mean(values)), 3)
        row["min"] = min(values)
    result["seconds"] = round(time.monotonic() - started)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
