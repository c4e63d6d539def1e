"""User-facing text of the bot, kept as data (pure: constants only)."""

from __future__ import annotations

STATUS = {
    "pending": "Waiting for a reviewer's /approve of v{version}",
    "passed": "v{version} approved: {total}, the rubric passes",
    "overridden": "v{version} approved with an override: {total} fails the rubric",
    "failed": "v{version} approval fails the rubric ({total}); a maintainer can /override <reason>",
}

REPLY = {
    "no_version": (
        "rubricate has not recorded a version of this pull request yet; it records one when the "
        "pull request is opened, reopened, marked ready for review or pushed to"
    ),
    "closed": "the pull request is closed",
    "merged": "the pull request is already merged; after a merge only `/rate` and `/dispute` apply",
    "not_merged": "`{command}` is accepted only after the pull request is merged",
    "missing": (
        "every criterion must be scored before an approval; missing: {missing}. "
        "For example: `{example}`"
    ),
    "approval_fails": (
        "the approval of v{version} is recorded, but it fails the rubric: {why}. The "
        "`rubricate/approval` status is red; a maintainer can turn it green with "
        "`/override <reason>` (a reason of at least {min_reason} characters)."
    ),
    "nothing_to_override": "there is no approval of v{version} to override; `/approve` it first",
    "already_passes": "the approval of v{version} already passes; there is nothing to override",
    "already_overridden": "the approval of v{version} was already overridden by {actor}",
    "given_twice": "`{criterion}` is given twice",
    "stale_review": (
        "this review is of commit {commit}, which is not a head of the current version v{version}: "
        "a new version was pushed. Please re-check v{version} and review again"
    ),
    "stale_comment": (
        "a new version, v{version}, was pushed after this comment was written. Please re-check "
        "v{version} and comment again"
    ),
}

REPLY_HEADER = "@{actor} rubricate could not apply {count}:"
REPLY_INFO_HEADER = "@{actor}"
FAIL_TOTAL = "the weighted total {total} is below {bar}"
FAIL_BEST = "even top scores for the missing criteria reach only {total}, below {bar}"
ALREADY_FAILS = " Whatever the missing scores, it already fails the rubric: {why}."
FAIL_CRITERIA = "below the bar: {criteria}"
HELP_INTRO = (
    "rubricate reads commands at the start of a line in a pull-request comment or review. "
    "Code blocks, quotes and HTML comments are skipped. Criterion ids accept unique prefixes "
    "(`spec=4`)."
)
CHECK_NOTE = (
    "The automatic score is informational: it never gates the merge. "
    "The gate is the `rubricate/approval` status, set by a reviewer's `/approve`."
)
