"""The attack matrix: each attack on the gate, what must happen, and the test that pins it.

SECURITY.md carries the same table for readers; this test keeps every named test real.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parent
MATRIX: tuple[tuple[str, str, str], ...] = (
    (
        "`git merge -s ours main` after approval (same tree, reverts main's fix)",
        "new version, gate pending",
        "action/test_attack_versions.py::test_a_merge_that_keeps_the_tree_but_reverts_main_is_a_new_version",
    ),
    (
        "rebase onto a newer main, the PR's own diff unchanged",
        "same version, approval kept",
        "action/test_attack_versions.py::test_a_rebase_that_keeps_the_pr_own_diff_keeps_the_approval",
    ),
    (
        "a push that changes only whitespace",
        "new version, gate pending",
        "action/test_attack_versions.py::test_a_change_of_indentation_only_is_a_new_version",
    ),
    (
        "PR into a branch whose config is lenient",
        "graded by the default branch's config",
        "action/test_attack_config.py::test_a_pr_into_a_lenient_branch_is_graded_by_the_default_branch_config",
    ),
    (
        "approve on a lenient base, then retarget to main",
        "new version under main's rules, gate pending",
        "action/test_attack_config.py::test_a_retarget_is_a_new_version_with_the_new_base_rules",
    ),
    (
        "the same retarget under the workflow rubricate ships (the template, the minimal "
        "workflow in the docs)",
        "the workflows subscribe to `edited` and run it when the base changed (edits of the "
        "title or body start no job); without it the retarget never reached rubricate and the "
        "old green stayed",
        "action/test_action_files.py::"
        "test_the_template_delivers_every_pull_request_action_the_bot_acts_on",
    ),
    (
        "approved on a lenient base, converted to a draft, retargeted to main, marked ready",
        "the draft's retarget is a new version under main's rules: gate pending (a draft never "
        "submitted records nothing until it is ready)",
        "action/test_attack_config.py::"
        "test_a_draft_retargeted_to_main_loses_the_green_of_its_old_base",
    ),
    (
        "approved on a lenient base, retargeted to main, and the retarget's run fails before it "
        "sets the gate (the repository cannot be fetched, main's config is broken)",
        "the head's gate is set to failure, never left at the old base's green; a re-run sets "
        "the new version's pending",
        "action/test_attack_config.py::"
        "test_a_retarget_whose_run_fails_does_not_keep_the_old_base_green",
    ),
    (
        "the same failed retarget under `rubricate serve` (main's config is broken: the delivery "
        "fails, no retry)",
        "the publish sets the head's gate to failure, as the Action does",
        "serve/test_worker.py::test_a_failed_retarget_sets_the_heads_gate_to_failure",
    ),
    (
        "approved on a lenient base, retargeted to main, then a force-push back to the approved "
        "head",
        "a new version under main's rules, gate pending: a head recorded under another base does "
        "not bring its version back",
        "action/test_retarget_attacks.py::"
        "test_a_force_push_back_to_the_approved_head_after_a_retarget",
    ),
    (
        "approved on a lenient base, retargeted to main, another push, then a new commit whose "
        "diff is the approved one again (the same against both bases)",
        "a new version, gate pending: the change a version records is bound to its base",
        "action/test_retarget_attacks.py::"
        "test_a_new_commit_with_the_approved_diff_on_the_new_base_is_a_new_version",
    ),
    (
        "approved on a lenient base, retargeted, and a push keeping the change whose run comes "
        "before the retarget's (delivery order)",
        "a new version under main's rules, gate pending; the late retarget run is ignored as older",
        "action/test_retarget_attacks.py::"
        "test_a_push_whose_run_comes_before_the_retargets_does_not_keep_the_old_green",
    ),
    (
        "approved on a lenient base, a retarget run that fails, then a push keeping the change",
        "a new version under main's rules, gate pending",
        "action/test_retarget_attacks.py::test_a_failed_retarget_then_a_push_keeping_the_change",
    ),
    (
        "a re-run or a redelivery of a retarget already recorded, after the new version's approval",
        "nothing changes: the new version and its approval stay",
        "action/test_retarget_attacks.py::"
        "test_a_rerun_of_a_recorded_retarget_keeps_the_new_versions_approval",
    ),
    (
        "`data_branch: main` in the config",
        "run fails before any write",
        "action/test_attack_config.py::test_a_data_branch_that_is_the_default_branch_is_refused",
    ),
    (
        "human commit appending an `approved` line with a made-up id",
        "refused on read, reported by `ledger verify`",
        "ledger/test_trust.py::test_a_made_up_id_is_refused_on_read_and_reported_by_verify",
    ),
    (
        "a job file edited by hand",
        "forged events left out",
        "ledger/test_trust.py::test_a_job_file_edited_by_hand_is_checked_again",
    ),
    (
        "with a ledger key: unsigned or badly signed lines with correct ids",
        "never used for gate or reputation, reported",
        "ledger/test_trust.py::test_with_a_key_events_are_signed_and_unsigned_ones_refused",
    ),
    (
        "`OPENAI_API_KEY=none`",
        "reported as a placeholder; the ledger keeps `none`",
        "action/test_attack_secrets.py::test_a_placeholder_key_is_reported_and_never_redacts_the_ledger",
    ),
    (
        "`rubricate action` outside Actions with a token",
        "token redacted, no `::add-mask::` printed",
        "action/test_action_runtime.py::test_outside_actions_a_secret_is_redacted_but_never_printed_as_a_mask",
    ),
    (
        "`/override` + 20 blank-looking characters or `<b></b>`",
        "refused, with how many characters are missing",
        "bot/test_commands.py::test_an_override_reason_of_invisible_characters_is_too_short",
    ),
    (
        "a payload `head.sha` of `--upload-pack=touch FILE`, remote a local path",
        "clear payload error (exit 2), nothing executed, no status set",
        "action/test_attack_git_args.py::test_an_option_as_head_sha_is_a_clear_error_and_never_runs",
    ),
    (
        "ten lines of 6,400-character unknown commands",
        "one reply under 60,000 characters, echoed text truncated",
        "bot/test_handlers_commands.py::test_ten_huge_unknown_commands_get_one_reply_under_the_limit",
    ),
    (
        "a view state whose `pull.base_sha` is an option",
        "that entry dropped, the rest of the state kept",
        "action/test_attack_git_args.py::"
        "test_a_view_state_with_an_option_as_base_sha_drops_only_the_pull_entry",
    ),
    (
        "a `/approve` inside `<details>`, `<pre>`, `<style>` or a hidden element",
        "not applied: not what a reader sees",
        "action/test_ignored_events.py::test_a_comment_without_a_visible_command_costs_nothing",
    ),
    (
        "a comment or review with no visible command",
        "ignored: exit 0, 0 REST calls, 0 git processes",
        "action/test_ignored_events.py::test_a_review_without_a_visible_command_costs_nothing",
    ),
    (
        "a merge-queue group holding a PR whose gate is not green",
        "`rubricate/approval` failure on the group's commit, naming the PR",
        "action/test_merge_queue.py::test_every_pr_of_a_group_needs_a_green_gate",
    ),
    (
        "a queued head whose approved version is no longer the PR's current change",
        "failure on the group's commit, naming the version",
        "action/test_merge_queue.py::test_an_approval_of_an_older_change_does_not_count",
    ),
    (
        "an unapproved PR queued ahead of an approved one (merge, squash or rebase method)",
        "failure on the group's commit, naming the unapproved PR",
        "action/test_merge_queue.py::test_an_unapproved_pr_ahead_of_an_approved_one_fails_the_group_naming_it",
    ),
    (
        "a group commit that holds more than the PR's approved change",
        "failure naming the commit and the PR",
        "action/test_merge_queue.py::test_an_entry_with_more_than_the_approved_change_fails_closed",
    ),
    (
        "a rebased commit in a group that no queued entry accounts for",
        "failure naming the commit (fails closed)",
        "action/test_merge_queue.py::test_a_rebased_commit_that_no_queued_entry_accounts_for_fails_closed",
    ),
    (
        "after a green, a `/revise` whose status write gets a 5xx",
        "the gate goes down before the ledger changes; the run fails with neither changed, "
        "a re-run applies both",
        "action/test_stale_green.py::test_a_revise_whose_status_write_fails_leaves_no_stale_green",
    ),
    (
        "an `/override` and a `/revise` racing: the green lands after the revise",
        "the green run re-reads the data branch's tip and sets the gate it supports (pending)",
        "action/test_stale_green.py::test_a_green_written_after_a_racing_revise_is_set_again_from_the_tip",
    ),
    (
        "a maintainer's `/override short`",
        "told the reason is too short, not that the role is missing",
        "action/test_attack_responses.py::test_a_maintainer_short_override_is_told_the_real_reason",
    ),
    (
        "a 404 from the collaborator-permission endpoint",
        "the reply says the role could not be read; the comment is left for a re-run",
        "action/test_attack_responses.py::test_a_role_that_cannot_be_read_is_said_and_the_comment_left_for_a_re_run",
    ),
    (
        "a review of the PR's head before its push is recorded",
        "not called stale; applied by a re-run once the version is recorded",
        "action/test_attack_responses.py::test_a_review_of_the_head_before_its_version_is_recorded_is_not_called_stale",
    ),
    (
        "a corrupt `jobs/N.json` on the data branch",
        "the run fails with the file's reason (not a configuration error) and a failing check",
        "action/test_attack_responses.py::test_a_corrupt_job_file_fails_the_run_with_its_reason_and_a_failing_check",
    ),
    (
        "a reply GitHub refuses with 422",
        "given up with a warning; the comment is still marked answered",
        "action/test_attack_responses.py::test_a_reply_github_refuses_is_given_up_and_its_comment_still_answered",
    ),
    (
        "a timed-out POST of a reply that GitHub did create",
        "found by its marker, never posted twice",
        "action/test_attack_responses.py::test_a_lost_answer_to_a_reply_never_posts_it_twice",
    ),
    (
        "a permission answer that is not a JSON object",
        "the role could not be read, no traceback",
        "github/test_adapter_odd_answers.py::test_a_permission_answer_that_is_not_an_object_is_an_unreadable_role",
    ),
    (
        "a comment body with a lone surrogate (`\\udcff`)",
        "replaced by U+FFFD; the command applies",
        "action/test_attack_responses.py::test_a_comment_with_a_lone_surrogate_is_handled",
    ),
    (
        "a PR number of 2^31",
        "a clear payload error (exit 2), no traceback",
        "action/test_attack_responses.py::test_a_pr_number_of_2_to_the_31_is_a_clear_payload_error",
    ),
    (
        "a 2xx from `POST /statuses` without the status",
        "an error: the status is not taken as set",
        "github/test_adapter_odd_answers.py::test_a_2xx_status_answer_without_the_status_is_not_treated_as_set",
    ),
    (
        "a hand-added approval with a correct id in a shard holding a NUL byte, "
        "then `ledger resign`",
        "listed by `--provenance`, left unsigned, refused with the key",
        "ledger/test_resign_provenance.py::test_a_nul_byte_in_the_shard_hides_no_hand_added_line",
    ),
    (
        "an approval pushed while `ledger resign` runs (its first push rejected)",
        "checked again on the new tip: left unsigned, refused with the key",
        "ledger/test_resign_provenance.py::"
        "test_a_line_pushed_while_resign_runs_is_checked_before_it_is_signed",
    ),
    (
        "with a ledger key: `report` or `reputation --recompute` over unsigned lines",
        "refused as `ledger verify` refuses them, and listed",
        "ledger/test_key_readers.py::test_report_refuses_what_verify_refuses",
    ),
    (
        "a 401 body echoing the token, in `ledger verify --provenance`",
        "the token masked in the error",
        "github/test_provenance.py::test_a_token_the_api_echoes_in_an_error_body_is_never_printed",
    ),
    (
        "a permission answer that is not a JSON object, on a command that needs a role",
        "the run fails (exit 1) without applying the command; a re-run applies it",
        "action/test_unreadable_role.py::test_a_permission_answer_that_is_not_an_object_fails_the_run_and_a_re_run_heals",
    ),
    (
        "a comment POST that GitHub acted on but whose answer never came (late, or the "
        "connection dropped), on a real socket",
        "found by its hidden marker, never posted twice",
        "github/test_reply_once.py::test_a_post_acted_on_but_unanswered_is_found_on_a_real_socket",
    ),
    (
        "a re-run of a comment whose reply an earlier run posted",
        "the reply is found by its marker, never posted twice",
        "action/test_answered_comments.py::test_a_re_run_finds_the_reply_an_earlier_run_posted",
    ),
    (
        "a `/approve` inside a tag that spans lines (an image's `alt`, a link's `title`, a "
        '`<div` whose attributes run over lines, a block tag such as `<p title="` that never '
        "closes) or inside a markdown link's title over lines "
        '(`[t](url "…")`, `[label]: url "…"`)',
        "not applied: a tag is markup up to its `>` (a `<` in prose that starts no tag, `i<n`, "
        "hides nothing)",
        "action/test_gate_attacks.py::test_a_command_inside_markup_that_spans_lines_is_not_applied",
    ),
    (
        "roles tightened on the default branch after a PR was opened",
        "the next command is judged by the default branch's current rules",
        "action/test_gate_attacks.py::test_roles_tightened_on_main_apply_to_a_pr_opened_before",
    ),
    (
        "a PR approved against another base (lenient `branches:` rules) queued into main "
        "before its retarget is recorded",
        "failure on the group's commit: the head changes main otherwise than the approved change",
        "action/test_queue_attacks.py::test_an_approval_given_against_another_base_does_not_pass_the_queue",
    ),
    (
        "a merge queue on a base whose name holds slashes (`release/1.x`), several PRs in a "
        "group, and a queue branch of another base whose name starts the same",
        "every PR of the group checked; the other base's branch is no entry",
        "action/test_queue_attacks.py::test_a_queue_on_a_base_with_slashes_checks_every_pr_of_the_group",
    ),
    (
        "with a key set later, `ledger resign` over a bot line edited, moved, re-spaced, its "
        "keys reordered, a passing duplicate key added, or given a made-up signature by hand",
        "left unsigned, refused by the gate and `ledger verify`",
        "ledger/test_resign_attacks.py::test_resign_never_signs_a_bot_line_changed_by_hand",
    ),
    (
        "`ledger resign` over another data branch's bot-written lines merged in by a merge commit",
        "left unsigned: what a merge adds is the merger's",
        "ledger/test_resign_attacks.py::test_resign_never_signs_lines_merged_in_from_another_history",
    ),
    (
        "`ledger append` with the key given a line signed under another key, or edited after "
        "it was signed",
        "refused, nothing appended: only unsigned lines are signed",
        "ledger/test_resign_attacks.py::test_append_with_the_key_never_signs_a_line_signed_otherwise",
    ),
    (
        "a deliverable committed as a symlink out of the tree (absolute or `../..`)",
        "never followed: its target's content appears nowhere",
        "action/test_hostile_repos.py::test_a_symlinked_deliverable_is_never_followed_out_of_the_tree",
    ),
    (
        "a config whose `rubric` names a path outside the repository",
        "the run fails naming it (exit 2), nothing written, no status",
        "action/test_hostile_repos.py::test_a_config_that_points_outside_the_repository_reads_nothing_there",
    ),
    (
        "with a ledger key on earlier runs: a forged unsigned approval, then a run whose key "
        "is missing",
        "the run fails (exit 1) naming the missing key: nothing trusted, written or turned green",
        "action/test_gate_attacks.py::test_a_signed_ledger_read_without_its_key_fails_closed",
    ),
    (
        "a branch opened into main and into `release`: the main PR approved while the release "
        "PR is not",
        "the shared head stays at the release PR's gate (pending), named; green once both are "
        "approved",
        "action/test_queue_attacks.py::test_a_head_shared_with_an_unapproved_pr_is_never_green",
    ),
    (
        "with a ledger key: the view state edited on the data branch (it claims the gate is "
        "already pending, or that future comments were answered), or an older validly signed "
        "state of the PR put back, then a `/revise` of a green PR",
        "the edited state is refused (it is not signed); a gate that is not green is sent on "
        "every run, whatever the view state says: the gate goes down",
        "action/test_gate_attacks.py::test_with_a_key_an_edited_view_state_never_keeps_a_green",
    ),
    (
        "a writer's `/approve` comment while the author's push is not yet recorded (its run "
        "queued, failed or lost)",
        "the approval is the recorded version's: only its head turns green, the pushed head "
        "never does, and is pending once recorded",
        "action/test_event_attacks.py::test_an_approval_before_a_push_is_recorded_never_turns_the_new_head_green",
    ),
    (
        "the `opened` delivery of an approved head, or the approval comment, delivered again "
        "after a push",
        "older than the push: ignored; the new head stays pending",
        "action/test_event_attacks.py::test_a_replayed_delivery_of_the_approved_head_does_not_bring_its_gate_back",
    ),
    (
        "an approved PR closed, pushed to while closed, and reopened",
        "a new version, gate pending; a merge of it is recorded `bypassed`",
        "action/test_event_attacks.py::test_a_pr_closed_then_reopened_on_another_head_is_pending",
    ),
    (
        "an `/approve` in the PR's title, body, a commit message or a file (and in "
        "rubricate's comments that show them), or in a comment on a diff line",
        "never applied: commands come only from new comments and reviews",
        "action/test_event_attacks.py::test_a_command_the_author_writes_in_the_pr_itself_is_never_applied",
    ),
    (
        "command look-alikes: a full-width or division slash, a zero-width joiner or a "
        "Cyrillic letter in the name, a right-to-left override or a no-break space first, a "
        "Unicode line or paragraph separator mid-line",
        "not applied: a command is an ASCII `/name` at the start of a line, and lines end "
        "only at LF, CR or CRLF",
        "action/test_event_attacks.py::test_a_command_look_alike_is_not_applied",
    ),
    (
        "an App's `/approve` (`…[bot]`, or type Bot) where the App is admin",
        "ignored before any API call",
        "action/test_event_attacks.py::test_a_github_app_comment_is_ignored_even_from_a_writer_app",
    ),
    (
        "a reader's `/approve` whose payload says `author_association: OWNER`",
        "refused: the permission endpoint decides",
        "action/test_event_attacks.py::test_author_association_owner_gives_no_role",
    ),
    (
        "with a ledger key: a signed failing approval given passing `scores` and `verdict` "
        "again in the same line, after or before its own",
        "never a pass: every reader takes the last member, so members after break the "
        "signature and members before are overridden",
        "ledger/test_resign_attacks.py::test_with_a_key_a_duplicate_key_never_turns_a_signed_approval_into_a_pass",
    ),
    (
        "with a key set later, `ledger resign` over a bot line given a carriage return, a "
        "trailing space, an escaped character (`\\u0061`), a number written `1e0` or `1.0`, "
        "or duplicate keys in a nested object (JSON that decodes to the same event)",
        "left unsigned, refused by the gate and `ledger verify`: only the bot's exact text "
        "is its own",
        "ledger/test_resign_attacks.py::test_resign_never_signs_a_bot_line_changed_by_hand",
    ),
    (
        "`ledger resign` after a bot line (a revision request that withdraws a passing "
        "approval) was copied by hand into another shard or the same one",
        "the bot's own line signed, the copy left unsigned: the request still withdraws "
        "the approval",
        "ledger/test_resign_attacks.py::test_a_copy_of_a_bot_line_never_keeps_resign_from_signing_the_bot_s_own",
    ),
    (
        "an event's id planted in the id index, with a fold-cache head whose (public) "
        "digests match, before rubricate appends that event",
        "appended all the same: an id the index calls present is skipped only when its "
        "month's shards hold it",
        "ledger/test_cache_attacks.py::test_an_id_planted_in_the_index_never_makes_an_append_skip_the_event",
    ),
    (
        "a push the data branch's remote refuses (a pre-receive hook, a full disk, a hook "
        "that prints a race's words)",
        "the run fails at once (exit 1) with the remote's words, not retried as a race; "
        "nothing written",
        "gitio/test_workspace_push.py::test_a_refused_push_fails_at_once_with_the_remote_s_words",
    ),
    (
        "a push the remote took, the connection dropped before git heard so (and someone "
        "else pushed on top of it at once)",
        "reported written (the branch is read again after a failed push; a tip that moved on "
        "is fetched and written when it holds the commit); a re-run appends nothing twice",
        "gitio/test_workspace_push.py::test_a_push_that_landed_though_git_says_it_failed_is_reported_written",
    ),
    (
        "a push that hangs",
        "a timeout error that says the push may still land and to run it again; the event "
        "ends up once",
        "gitio/test_workspace_push.py::test_a_push_that_hangs_fails_with_a_timeout_and_loses_nothing",
    ),
    (
        "a `ledger append` killed (SIGKILL) while its push waits on the remote",
        "nothing lost or duplicated: a re-run leaves the event once and `ledger verify` clean",
        "gitio/test_workspace_push.py::test_a_writer_killed_while_its_push_waits_loses_and_duplicates_nothing",
    ),
    (
        "the same events imported into PostgreSQL by two processes at once",
        "each event once: one import adds them, the other finds them present",
        "ledger/test_pg_store_attacks.py::test_the_same_events_imported_twice_at_once_land_once",
    ),
    (
        "a PostgreSQL import killed inside its transaction, or its connection dropped",
        "nothing written; a dropped connection is a clear error (exit 1) that says to run "
        "it again, no traceback; the re-run adds every event once",
        "ledger/test_pg_store_attacks.py::test_an_import_stopped_inside_its_transaction_writes_nothing",
    ),
    (
        "a corrupt line in the middle of a shard (truncated JSON, binary garbage, a NUL "
        "byte, a JSON array or string, a byte-order mark)",
        "`ledger verify` and `export` name its file and line; every other event is kept, "
        "and the next append works",
        "ledger/test_corrupt_inputs.py::test_a_corrupt_line_in_the_middle_of_a_shard_is_located_and_nothing_else_is_lost",
    ),
    (
        "a job file that is not JSON, not an object, or holds an entry that is not an event",
        "the reader names the file, the entry and what is wrong, and says `ledger verify "
        "--fix` writes it again",
        "ledger/test_corrupt_inputs.py::test_a_job_file_that_is_not_one_says_where_and_what",
    ),
    (
        "a corrupt `jobs/N.json` read by a merge queue's group run",
        "the run fails (exit 1) with the file's reason, not as a configuration error",
        "action/test_data_branch.py::test_a_corrupt_job_file_fails_a_merge_group_run_as_a_broken_data_branch",
    ),
    (
        "with a ledger key: a copy of a job file without its latest signed event (a "
        "revision request that withdraws a passing approval) planted at another layout's "
        "path that sorts first (`jobs/1234.json` beside `jobs/1k/1234.json`)",
        "the read fails naming both files (two different job files for one job), never a "
        "gate from the planted one; `ledger verify --fix` removes it. Until then every run "
        "on that PR fails before it appends: the event that triggered a run (an `/approve` "
        "comment) is recorded only when the run is re-run after the fix",
        "ledger/test_cache_attacks.py::test_a_job_file_planted_at_another_layout_s_path_never_hides_the_job_s_latest_events",
    ),
)


@pytest.mark.parametrize(("attack", "expected", "test"), MATRIX, ids=[m[0][:40] for m in MATRIX])
def test_every_attack_names_a_real_test(attack: str, expected: str, test: str) -> None:
    path, name = test.split("::")
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    assert name in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}, attack


def test_security_md_lists_every_attack() -> None:
    text = (ROOT.parent / "SECURITY.md").read_text(encoding="utf-8")
    for attack, expected, _ in MATRIX:
        assert f"| {attack} | {expected} |" in text
