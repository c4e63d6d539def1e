"""Train the injection detector from public corpora, measure it leave-one-source-out, save it.

    nice -n 10 python benchmarks/train_injection.py --mirrors /work/.mirror --kinds \
        --out src/rubricate/judge/injection_detector.bin --report /tmp/train.json

Every corpus is read at training time from git mirrors (see `injection_corpora`); the JSON
report records each source with its commit. The benign class is the text of `TRAIN_REPOS`
(`FIRST_REPOS` and `MORE_REPOS`). The threshold is chosen on `FIRST_REPOS` only (out of fold,
leaving half of them out at a time, `MORE_REPOS` in every fit: the lowest score at which at
most `TARGET_FP` of their items are flagged; `threshold_repos` says why); with `--kinds` (the
shipped weights) one is also chosen so for each kind of text (`detector_kinds`: PR text,
documents, data files, code) on the items of that kind, and the global one is kept for any
other; the repositories in `bench_injection.MEASURE_REPOS` are never read here.
Leave-one-source-out: for every injection source, a model trained without it flags what share
of its payloads, embedded in each carrier. Needs numpy (the `report` extra); inference needs
nothing but the weights. Other designs (longer n-grams, multiple-instance training, a second
stage, more benign repositories, more written requests) are measured the same way by
`injection_trials`. `--translated` adds public injections in other languages
(`injection_corpora.TRANSLATED_SOURCES`) and translated docs as benign text
(`TRANSLATED_DOCS`, also in the threshold's folds); measured, not shipped: the threshold rose
and the written non-English test set stayed at 2% (see the changelog).
"""

from __future__ import annotations

import argparse
import array
import functools
import json
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np
from injection_calibration import CARRIER_KINDS, group_thresholds, threshold_for
from injection_corpora import (
    TRANSLATED_DOCS,
    Item,
    benign_items,
    evenly,
    injection_items,
    translated_items,
)
from injection_languages import BENIGN, LANGUAGES
from injection_measure import CARRIERS, WAYS, WHERE, verdicts
from injection_tasks import TASK_BENIGN
from injection_written import TRAIN_BENIGN

from rubricate.judge.detector import HASH_BITS, Detector, feature_index, features_of
from rubricate.judge.detector_kinds import KINDS
from rubricate.judge.detector_text import span_tokens

FIRST_REPOS = (
    "anthropics/anthropic-cookbook",
    "dair-ai/Prompt-Engineering-Guide",
    "stanfordnlp/dspy",
    "pallets/flask",
    "BurntSushi/ripgrep",
    "expressjs/express",
    "python/peps",
    "tokio-rs/tokio",
)
"""The benign repositories the detector was first trained on. The trials (`injection_trials`)
choose their thresholds out of fold on these alone, so that their figures compare with every
earlier trial's."""
MORE_REPOS = (
    "microsoft/promptflow",
    "567-labs/instructor",
    "deepset-ai/haystack",
    "fastapi/fastapi",
    "vuejs/core",
    "junegunn/fzf",
    "rails/rails",
    "pydantic/pydantic",
    "axios/axios",
)
"""More benign repositories (LLM libraries with prompts in their docs; web frameworks and tools
in Python, TypeScript, Ruby and Go), none of them measured by `bench_injection`. Added because
the benign text the model saw was thin: out of fold, spans such as `email = email.lower()` or
"A view function is the code you write" scored 0.98-0.99 on one topical word, and the
threshold had to sit above them. Leave-one-source-out (`injection_trials --trial first-repos`
against `base`, both at 1.5% of `FIRST_REPOS` flagged out of fold): 45.2% -> 50.1%, no source
lower. Measured once after that choice: held-out recall (`bench_injection_heldout`) 50.9% ->
54.2%, false positives on `bench_injection.MEASURE_REPOS` 1.14% -> 1.40%."""
TRAIN_REPOS = FIRST_REPOS + MORE_REPOS
L2 = 1e-5
STEPS = 60
RATE = 0.1
FOLDS = 2
MAX_SPANS = 24
"""Spans of one item used in training, taken evenly over it (keeps long items cheap)."""


def span_token_lists(texts: list[str]) -> list[list[list[str]]]:
    """Each text's spans as the detector reads them (at most `MAX_SPANS`), as token lists."""
    return [[tokens for *_where, tokens in evenly(span_tokens(t), MAX_SPANS)] for t in texts]


class Spans:
    """Every span of every item, hashed once: item -> span rows, and the sparse matrix.

    `features` gives a span's features from its tokens (the detector's `features_of`; the
    trials in `injection_trials` pass others)."""

    def __init__(
        self,
        tokenized: list[list[list[str]]],
        features: Callable[[list[str]], list[str]] = features_of,
    ) -> None:
        index = functools.lru_cache(maxsize=1 << 20)(feature_index)
        rows = array.array("i")
        cols = array.array("i")
        span_values: list[float] = []
        self.item_rows: list[list[int]] = []
        for item_spans in tokenized:
            mine = []
            for tokens in item_spans:
                found = features(tokens)
                if not found:
                    continue
                cols.extend(map(index, found))
                rows.extend([len(span_values)] * len(found))
                mine.append(len(span_values))
                span_values.append(1.0 / len(found) ** 0.5)
            self.item_rows.append(mine)
        self.rows = np.frombuffer(rows, dtype=np.int32).astype(np.int64)
        self.cols = np.frombuffer(cols, dtype=np.int32).astype(np.int64)
        self.vals = np.array(span_values)[self.rows]
        self.count = len(span_values)
        self.dense: np.ndarray | None = None
        """Dense columns beside the hashed features (`injection_meaning`), one row a span;
        their weights follow the hashed ones."""

    def margins(self, weights: np.ndarray, bias: float) -> np.ndarray:
        products = weights[self.cols] * self.vals
        found = np.bincount(self.rows, weights=products, minlength=self.count) + bias
        if self.dense is not None:
            found += self.dense @ weights[1 << HASH_BITS :]
        return np.asarray(found)

    def probabilities(self, weights: np.ndarray, bias: float) -> np.ndarray:
        return np.asarray(1 / (1 + np.exp(-np.clip(self.margins(weights, bias), -60, 60))))

    def item_scores(self, weights: np.ndarray, bias: float) -> np.ndarray:
        probabilities = self.probabilities(weights, bias)
        return np.array(
            [max((probabilities[r] for r in rows), default=0.0) for rows in self.item_rows]
        )


def fit(data: Spans, labels: np.ndarray, sample: np.ndarray) -> tuple[np.ndarray, float]:
    """Weighted L2 logistic regression by full-batch Adam on the spans with sample > 0 (over
    the hashed features, and `data.dense`'s columns when a trial sets them).

    The features are stored row after row, so a span's margin is one `reduceat` over its run
    of features and the residuals are spread back with `repeat` (no random gathers)."""
    size = 1 << HASH_BITS
    dense = np.zeros((data.count, 0)) if data.dense is None else data.dense
    columns = dense.shape[1]
    weights = np.zeros(size, dtype=np.float32)
    extra = np.zeros(columns)
    bias = 0.0
    m = np.zeros(size + columns + 1)
    v = np.zeros(size + columns + 1)
    keep = sample[data.rows] > 0
    rows, cols = data.rows[keep], data.cols[keep]
    vals = data.vals[keep].astype(np.float32)
    starts = np.flatnonzero(np.diff(rows, prepend=-1))
    lengths = np.diff(np.append(starts, len(rows)))
    kept = rows[starts]
    labels, sample = labels[kept], sample[kept]
    dense = dense[kept]
    total = sample.sum()
    for step in range(1, STEPS + 1):
        margin = np.add.reduceat(weights[cols] * vals, starts).astype(np.float64) + bias
        margin += dense @ extra
        residual = (1 / (1 + np.exp(-np.clip(margin, -60, 60))) - labels) * sample / total
        spread = np.repeat(residual.astype(np.float32), lengths) * vals
        grad = np.bincount(cols, weights=spread, minlength=size) + L2 * weights
        full = np.concatenate([grad, dense.T @ residual + L2 * extra, [residual.sum()]])
        m = 0.9 * m + 0.1 * full
        v = 0.999 * v + 0.001 * full * full
        update = RATE * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
        weights -= update[:size].astype(np.float32)
        extra -= update[size:-1]
        bias -= float(update[-1])
    return np.concatenate([weights.astype(np.float64), extra]), bias


def span_weights(items: list[Item], data: Spans, used: set[str]) -> tuple[np.ndarray, np.ndarray]:
    """Labels and sample weights: each source weighs the same within its class."""
    labels = np.zeros(data.count)
    sample = np.zeros(data.count)
    per_source: dict[str, int] = defaultdict(int)
    for item, rows in zip(items, data.item_rows, strict=True):
        if item.source in used:
            per_source[item.source] += len(rows)
    positive = {i.source for i in items if i.carrier == "payload"}
    classes = [len([s for s in per_source if (s in positive) == flag]) for flag in (False, True)]
    for item, rows in zip(items, data.item_rows, strict=True):
        if item.source not in used or not rows:
            continue
        is_positive = item.source in positive
        share = 1.0 / (per_source[item.source] * max(classes[is_positive], 1))
        for row in rows:
            labels[row] = 1.0 if is_positive else 0.0
            sample[row] = share
    return labels, sample


def threshold_repos(translated: bool) -> tuple[str, ...]:
    """The repositories the thresholds are chosen on, out of fold: `FIRST_REPOS`, and with
    `translated` the `TRANSLATED_DOCS` repositories too (the folds of `choose_threshold` take
    every other repository, so each fold leaves half of the translated ones out). `MORE_REPOS`
    are in every fold's fit and never in its measure: one of them (microsoft/promptflow) holds
    hundreds of descriptions sharing one pull-request template, whose single score would set
    the threshold alone, and the trials measure on `FIRST_REPOS` too."""
    return FIRST_REPOS + (tuple(TRANSLATED_DOCS) if translated else ())


def training_items(
    mirrors: Path, sources: dict[str, str], translated: bool = False, instructions: bool = False
) -> list[Item]:
    """Every training item: the injection sources' payloads, the benign repositories'
    PR-shaped text (non-English docs for `TRANSLATED_DOCS`) and the written benign examples
    (`sources` records where each came from)."""
    items = injection_items(mirrors, sources, translated, instructions)
    for repo in TRAIN_REPOS + (tuple(TRANSLATED_DOCS) if translated else ()):
        read = translated_items if repo in TRANSLATED_DOCS else benign_items
        items += read(mirrors, repo, sources)
    items += [
        Item("rubricate-written-benign", "description", t) for t in (*TRAIN_BENIGN, *TASK_BENIGN)
    ]
    items += [
        Item("rubricate-written-benign", "description", t)
        for language in LANGUAGES
        for t in BENIGN[language]
    ]
    return items


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--out", type=Path, help="write the weights here (else no final fit)")
    parser.add_argument("--report", type=Path)
    parser.add_argument("--no-loso", action="store_true", help="train once, no measurement")
    parser.add_argument(
        "--threshold", type=float, help="use this threshold instead of choosing one out of fold"
    )
    parser.add_argument(
        "--translated",
        action="store_true",
        help="add the machine-translated injection sources and translated docs (not shipped)",
    )
    parser.add_argument(
        "--kinds",
        action="store_true",
        help="a threshold per kind of text (prose, docs, data, code), each chosen out of fold",
    )
    args = parser.parse_args(argv)
    started = time.monotonic()
    sources: dict[str, str] = {}
    items = training_items(args.mirrors, sources, args.translated)
    data = Spans(span_token_lists([i.text for i in items]))
    everything = {i.source for i in items}
    report: dict[str, object] = {"sources": sources, "spans": data.count, "items": len(items)}
    print(f"{len(items)} items, {data.count} spans", file=sys.stderr)

    threshold = args.threshold
    kinds: dict[str, float] = {}
    if threshold is None:
        repos = threshold_repos(args.translated)
        threshold, spans = choose_threshold(items, data, everything, report, repos)
        if args.kinds:
            kinds, counts = kind_thresholds(items, data, spans, repos)
            report["thresholds_per_kind"] = {k: round(v, 4) for k, v in kinds.items()}
            report["items_per_kind"] = counts
        print(f"{time.monotonic() - started:.0f}s", file=sys.stderr)
    elif args.kinds:
        parser.error("--kinds chooses its thresholds out of fold: leave out --threshold")
    report["threshold"] = threshold
    print(f"threshold {threshold:.3f} {kinds}", file=sys.stderr)

    if not args.no_loso:
        report["leave_one_source_out"] = leave_one_out(items, data, everything, threshold, kinds)
    if args.out:
        labels, sample = span_weights(items, data, everything)
        weights, bias = fit(data, labels, sample)
        detector = Detector([float(w) for w in weights], bias, threshold, thresholds=kinds)
        args.out.write_bytes(detector.to_bytes())
        report["weights_bytes"] = args.out.stat().st_size
    report["seconds"] = round(time.monotonic() - started, 1)
    text = json.dumps(report, indent=2, ensure_ascii=False)
    if args.report:
        args.report.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


def choose_threshold(
    items: list[Item],
    data: Spans,
    everything: set[str],
    report: dict[str, object],
    repos: tuple[str, ...] = FIRST_REPOS,
) -> tuple[float, np.ndarray]:
    """The threshold flagging at most `TARGET_FP` of the benign repositories' items, each
    scored by a model trained without it (`FOLDS` folds of the repositories); and every span's
    out-of-fold probability (those of the benign repositories' spans)."""
    out_of_fold: list[float] = []
    benign_fp: dict[str, float] = {}
    spans = np.zeros(data.count)
    for fold in range(FOLDS):
        left_out = set(repos[fold::FOLDS])
        labels, sample = span_weights(items, data, everything - left_out)
        weights, bias = fit(data, labels, sample)
        probabilities = data.probabilities(weights, bias)
        for number, item in enumerate(items):
            if item.source in left_out:
                spans[data.item_rows[number]] = probabilities[data.item_rows[number]]
        scores = data.item_scores(weights, bias)
        for repo in left_out:
            mine = [float(s) for s, i in zip(scores, items, strict=True) if i.source == repo]
            out_of_fold += mine
            benign_fp[repo] = round(float(np.mean(np.array(mine) >= 0.5)), 4)
    threshold = threshold_for(out_of_fold)
    report["train_repos_out_of_fold_fp_at_0.5"] = benign_fp
    report["threshold_for_out_of_fold_fp"] = {
        str(target): round(threshold_for(out_of_fold, target), 4)
        for target in (0.005, 0.01, 0.015, 0.02, 0.03)
    }
    report["train_repos_out_of_fold_fp_at_threshold"] = round(
        float(np.mean(np.array(out_of_fold) >= threshold)), 4
    )
    return threshold, spans


def kind_thresholds(
    items: list[Item], data: Spans, spans: np.ndarray, repos: tuple[str, ...]
) -> tuple[dict[str, float], dict[str, int]]:
    """A threshold per kind of text (`detector_kinds`), each flagging at most `TARGET_FP` of
    the benign repositories' items of that kind, from their spans' out-of-fold probabilities
    (`choose_threshold`); and how many items each was chosen on."""
    benign = [n for n, item in enumerate(items) if item.source in set(repos)]
    scored = [[("en", float(spans[r])) for r in data.item_rows[n]] for n in benign]
    kinds = [CARRIER_KINDS[items[n].carrier] for n in benign]
    limits, counts = group_thresholds(scored, kinds, "kind")
    return {kind: limits[kind] for kind in KINDS}, counts


def leave_one_out(
    items: list[Item],
    data: Spans,
    everything: set[str],
    threshold: float,
    kinds: dict[str, float] | None = None,
) -> dict[str, dict[str, float]]:
    """Per injection source: the share of its payloads flagged in each carrier by a model
    trained without that source (with these thresholds per kind of text, if any)."""
    results: dict[str, dict[str, float]] = {}
    positive = sorted({i.source for i in items if i.carrier == "payload"})
    for source in positive:
        labels, sample = span_weights(items, data, everything - {source})
        weights, bias = fit(data, labels, sample)
        detector = Detector([float(w) for w in weights], bias, threshold, thresholds=kinds or {})
        payloads = [i.text for i in items if i.source == source][:300]
        row: dict[str, float] = {"payloads": len(payloads)}
        totals = dict.fromkeys(WAYS, 0)
        for carrier, embed in CARRIERS.items():
            found = [verdicts(embed(p), WHERE[carrier], detector) for p in payloads]
            row[carrier] = round(sum(f["detector"] for f in found) / max(len(payloads), 1), 3)
            for way in WAYS:
                totals[way] += sum(f[way] for f in found)
        for way in WAYS:
            row[f"all carriers, {way}"] = round(
                totals[way] / max(len(payloads) * len(CARRIERS), 1), 3
            )
        results[source] = row
        print(source, row, file=sys.stderr)
    return results


if __name__ == "__main__":
    sys.exit(main())
