"""What `rubricate init` prints after writing: the pin and the next steps (pure).

rubricate's docs are not in the user's repository, so the next steps link them by URL: at the
commit `--action` pins, else in the repository the installed package names, else in a
placeholder repository the text says to replace.
"""

from __future__ import annotations

from importlib import metadata

ACTION_PLACEHOLDER = "OWNER/rubricate@" + "0" * 40
"""The templates' `uses:` pin: a SHA no commit can have, so an unedited workflow never resolves."""
PIN_STEP = f"""\
  0. Pin rubricate in the workflow(s): replace {ACTION_PLACEHOLDER}
     with the repository you take rubricate from and the full commit SHA you reviewed
     (or run init again with --force --action OWNER/REPO@SHA). Until then the step cannot run.
"""
NEXT_STEPS = """\
  1. Commit these files on the default branch.
  2. Make `rubricate/approval` a required status check (a ruleset; with a merge queue too, see
     docs/workflows.md).
  3. Restrict pushes to the `rubricate-data` branch, so only the workflow writes it: save this
     ruleset as ruleset.json (15368 is the GitHub Actions app; a GitHub App of your own is
     stronger, see SECURITY.md), then run
     gh api --method POST repos/OWNER/REPO/rulesets --input ruleset.json
     {
       "name": "rubricate data branch",
       "target": "branch",
       "enforcement": "active",
       "bypass_actors": [{"actor_id": 15368, "actor_type": "Integration", "bypass_mode": "always"}],
       "conditions": {"ref_name": {"include": ["refs/heads/rubricate-data"], "exclude": []}},
       "rules": [
         {"type": "creation"},
         {"type": "update"},
         {"type": "deletion"},
         {"type": "non_fast_forward"}
       ]
     }
  4. Add the badge to your README (see docs/badges.md; private repositories use the SVG):
     ![rubric quality](https://img.shields.io/endpoint?url=https://raw.githubusercontent.com/OWNER/REPO/rubricate-data/badges/repo.json)
  5. Check the config: rubricate validate .github/rubricate.yml
"""
PROJECT = "https://github.com/OWNER/rubricate"
"""Where rubricate's docs are when neither `--action` nor the install names its repository."""


def docs_url(page: str, action: str | None = None, project: str | None = None) -> str:
    """The URL of one of rubricate's own docs (they are not in the user's repository): at the
    pinned commit of `--action`, else on the default branch of the project's repository."""
    if action:
        repo, _, sha = action.partition("@")
        return f"https://github.com/{repo}/blob/{sha}/{page}"
    return f"{(project or PROJECT).rstrip('/')}/blob/HEAD/{page}"


def next_steps(action: str | None, project: str | None = None) -> str:
    """The next steps, linking rubricate's docs by URL (pure)."""
    text = NEXT_STEPS
    for page in ("docs/workflows.md", "SECURITY.md", "docs/badges.md"):
        text = text.replace(page, docs_url(page, action, project))
    if not action and project is None:
        text += f"  (Replace OWNER in {PROJECT} with the repository you take rubricate from.)\n"
    return text


def project_url() -> str | None:
    """The repository URL the installed rubricate names in its metadata, if any."""
    try:
        urls = metadata.metadata("rubricate").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    for entry in urls:
        label, _, url = str(entry).partition(",")
        url = url.strip()
        labelled = label.strip().lower() in ("source", "repository", "homepage", "code")
        if labelled and url.startswith("https://github.com/"):
            return url
    return None
