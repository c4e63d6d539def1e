"""Path globs and file kinds used by the evidence checks (pure: string matching only).

Globs match the whole repository-relative path: `*` and `?` stay within one path segment,
`**` spans segments (`**/` also matches no directory at all), `[abc]`/`[!abc]` are classes,
and a trailing `/` matches everything below that directory.

`not_authored` tells generated, vendored and lock files from hand-written changes: a file
counts as generated when its first 2 KB carry a common marker (`@generated`, `DO NOT EDIT`,
`DO NOT MODIFY`, `Code generated ... DO NOT EDIT.`, "automatically generated", "File generated
from ..."), as vendored when a folder on its path is `vendor`, `vendored`, `third_party` or
`node_modules`, or it lies in a library's folder inside `deps/` at the repository root
(`deps/pcre2/…`, as Linguist reads it; a file directly in `deps/` is the project's own), as
minified when named `*.min.js` or `*.min.css` and its content is (a line over 500 characters,
or lines over 200 on average), and lockfiles are named by `is_lockfile`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rubricate.evidence.snapshot import FileChange


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of a text, as a set."""
    return frozenset(text.split())


TEST_DIRS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testing", "e2e"})
FIXTURE_DIRS = frozenset(
    {"fixtures", "fixture", "testdata", "__snapshots__", "snapshots", "golden"}
)
EXAMPLE_DIRS = frozenset({"examples", "example", "demo", "demos", "samples", "sample"})
SUPPORT_DIRS = frozenset({"docs", "doc", "scripts", "tools", "data-raw"})
"""Folders of code that serves the project (documentation examples and recipes, docs builds,
release and maintenance scripts, an R package's `data-raw/` scripts that build its data sets)
rather than being the program."""
SKILL_FILE = "SKILL.md"
"""An agent skill (the Agent Skills format): a folder holding this file, with the scripts and
references a coding agent uses; its code is a tool of the project, not the program, unless the
folder is a package (`skill_folders`) or the code lies below a code root in it."""
CODE_ROOTS = frozenset({"src", "lib", "internal", "pkg", "app"})
"""Folders that hold the program: a `docs/` or `tools/` below them is a part of it."""
SOURCE_EXTS = words(
    "py pyi js jsx mjs cjs ts tsx go rs java kt kts rb c h cc cpp cxx hpp cs swift php scala"
    " sh bash lua r jl ex exs erl hs ml clj dart vue svelte sql zig"
)
DOC_EXTS = frozenset({"md", "markdown", "rst", "txt", "adoc", "org"})
MARKUP_EXTS = words(
    "html htm xhtml xml svg j2 jinja jinja2 hbs handlebars mustache tmpl tpl erb liquid njk ejs"
)
"""Markup and templates: brackets in their text are not syntax."""
DATA_EXTS = words(
    "csv tsv jsonl ndjson parquet npy npz h5 hdf5 pkl pickle zip gz tgz bz2 xz zst feather arrow"
    " sqlite db bin xlsx xls avro orc tar"
)
STRUCTURED_EXTS = {"json": "json", "yml": "yaml", "yaml": "yaml", "toml": "toml"}
LOCKFILES = words(
    "poetry.lock uv.lock pdm.lock pipfile.lock package-lock.json npm-shrinkwrap.json yarn.lock"
    " pnpm-lock.yaml bun.lockb cargo.lock go.sum gemfile.lock composer.lock conda-lock.yml"
    " flake.lock mix.lock pubspec.lock"
)
MANIFESTS = words(
    "pyproject.toml setup.py setup.cfg pipfile package.json cargo.toml go.mod gemfile composer.json"
    " environment.yml environment.yaml pubspec.yaml mix.exs build.gradle build.gradle.kts pom.xml"
    " package.swift"
)
CHECKSUM_NAMES = re.compile(
    r"(^|[._-])(sha\d*sums?|md5sums?|checksums?)([._-]|$)|\.(sha\d+|md5)$", re.I
)
JSONC_NAMES = re.compile(
    r"(^|/)(tsconfig[^/]*|jsconfig[^/]*|\.vscode/[^/]*|devcontainer)\.json$|\.jsonc$"
)
TOOL_CONFIG_NAMES = re.compile(
    r"^[\w.-]+\.config\.[cm]?[jt]sx?$|^\.[\w-]+rc\.[cm]?js$|^(gulpfile|gruntfile)\.[cm]?[jt]s$"
    r"|^(noxfile|fabfile|dodo)\.py$|^build\.(rs|zig)$|^settings\.gradle(\.kts)?$",
    re.I,
)
"""Build and tool configs written in a programming language (a Cargo `build.rs` or Zig
`build.zig` build script and a Gradle `settings.gradle.kts` among them): not program source to
test. A hidden file (`.php-cs-fixer.dist.php`, `.eslintrc.cjs`) is one too, outside the
program's code roots."""
TEST_NAMES = re.compile(r"^(test_|conftest\.py$)|([_-]test|[_-]spec|Tests?)\.[^.]+$")
"""Test file names: `test_app.py`, `app_test.go`, `app-spec.rb`, `AppTests.swift`."""
TEST_HELPER_NAMES = re.compile(r"^test-?(?:[Uu]tils?|[Hh]elpers?|[Ss]etup|[Ss]upport)\.[^.]+$")
"""Test helpers named for what they are (`test-utils.ts`, `testHelpers.js`, `test-setup.ts`,
Go's `testutil.go`): code that serves tests, or a product's testing module (React's
`test-utils.js`), by its name. Another `test-` name is no helper by its name: an R package's
`R/test-that.R` is the program (its tests lie in `tests/testthat/`)."""
EMPTY_OK_NAMES = frozenset(
    {"__init__.py", "py.typed", ".gitkeep", ".keep", ".nojekyll", ".gitignore"}
)
"""Files empty by convention: package markers and placeholders that keep a folder."""
TERRAFORM_MODULE_FILES = frozenset({"main.tf", "variables.tf", "outputs.tf"})
"""The files of Terraform's standard module structure, which it asks for even when empty: a
file added empty may stay so (a file a change empties is no placeholder), and `main.tf` only
when another `.tf` file of its folder, not one of these, holds the module's code
(`empty_by_convention`)."""


@lru_cache(maxsize=512)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """The compiled regular expression of a repository glob."""
    text = pattern.strip().lstrip("/")
    if text.startswith("./"):
        text = text[2:]
    if text.endswith("/"):
        text += "**"
    return re.compile(_translate(text) + r"\Z", re.S)


def _translate(pattern: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end]
            negate = body.startswith("!")
            body = re.escape(body[1:] if negate else body).replace("\\-", "-")
            out.append(f"[{'^/' if negate else ''}{body}]")
            i = end + 1
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


def glob_escape(path: str) -> str:
    """A glob that matches exactly this path: `[`, `*` and `?` in a name become classes."""
    return "".join(f"[{char}]" if char in "[*?" else char for char in path)


def glob_match(pattern: str, path: str) -> bool:
    """True when the repository-relative path matches the glob."""
    return glob_regex(pattern).match(path) is not None


def is_glob(pattern: str) -> bool:
    """True when the pattern has glob characters (else it names one path or a directory)."""
    return any(ch in pattern for ch in "*?[") or pattern.endswith("/")


def extension(path: str) -> str:
    """The lower-case last extension, without the dot ('' when none)."""
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[-1].lower() if "." in name.lstrip(".") else ""


def _parts(path: str) -> list[str]:
    return [part for part in path.split("/") if part and part != "."]


def basename(path: str) -> str:
    """The last path segment."""
    return path.rsplit("/", 1)[-1]


def is_test(path: str) -> bool:
    """True for test files: a test directory or a test file-name convention."""
    name = basename(path).lower()
    if any(part.lower() in TEST_DIRS for part in _parts(path)[:-1]):
        return True
    return TEST_NAMES.search(basename(path)) is not None or any(
        mark in name for mark in (".test.", ".spec.", ".test-d.")
    )


def is_test_helper(path: str) -> bool:
    """True for a test helper outside a test folder (`TEST_HELPER_NAMES`): neither source that
    needs a test nor a test change that tests other source."""
    return TEST_HELPER_NAMES.search(basename(path)) is not None and not is_test(path)


def is_type_test(path: str) -> bool:
    """True for TypeScript type tests and declarations (`*.test-d.ts`, `*.d.ts`): type-checked,
    never run."""
    return re.search(r"\.(test-d|d)\.[cm]?tsx?$", basename(path)) is not None


def is_fixture(path: str) -> bool:
    """True for test fixtures and golden or snapshot data."""
    return basename(path) == "conftest.py" or any(
        p.lower() in FIXTURE_DIRS for p in _parts(path)[:-1]
    )


OUTPUT_DIRS = frozenset({"testdata", "golden", "__snapshots__"})
"""Folders of recorded output that tests compare against (golden files, snapshots)."""
OUTPUT_EXTS = frozenset({"golden", "snap"})


def is_recorded_output(path: str) -> bool:
    """True for golden or snapshot output a test compares against, which may end anywhere: a
    `.golden` or `.snap` file, or a file in a `testdata/`, `golden/` or `__snapshots__/` folder
    that is neither source code nor JSON, YAML or TOML data (`testdata/TestView.golden`, not
    `src/golden/compare.go` nor `testdata/user.json`)."""
    if extension(path) in OUTPUT_EXTS:
        return True
    return (
        any(part.lower() in OUTPUT_DIRS for part in _parts(path)[:-1])
        and extension(path) not in SOURCE_EXTS
        and extension(path) not in STRUCTURED_EXTS
    )


def is_example(path: str) -> bool:
    """True for files under an examples or demo directory."""
    return any(part.lower() in EXAMPLE_DIRS for part in _parts(path)[:-1])


def support_folder(
    path: str, package_roots: frozenset[str] = frozenset(), skills: frozenset[str] = frozenset()
) -> str | None:
    """The documentation, scripts or hidden tool folder the path lies in (`docs/`, `.github/`,
    `.vitepress/`), or the agent skill folder (one of `skills`, see `skill_folders`), or None.
    A documentation, scripts or hidden folder serves the project only at the repository root
    or directly in a workspace package's root (a folder of `package_roots`, those holding a
    manifest); below a `src/`, `lib/`, `internal/`, `pkg/` or `app/` folder, or anywhere else,
    it is a part of the program. A skill folder holds its tools only outside such a code root,
    above and below it (`skills/x/review.py`, not `agent/app/main.py` beside `agent/SKILL.md`)."""
    parts = _parts(path)[:-1]
    for index, part in enumerate(parts):
        if part.lower() in CODE_ROOTS:
            return None
        folder = "/".join(parts[: index + 1])
        if (folder in skills and not CODE_ROOTS & {p.lower() for p in parts[index + 1 :]}) or (
            (part.lower() in SUPPORT_DIRS or _hidden(part))
            and (index == 0 or "/".join(parts[:index]) in package_roots)
        ):
            return folder + "/"
    return None


def skill_folders(paths: frozenset[str]) -> frozenset[str]:
    """The folders that hold an agent skill's `SKILL.md` and no package manifest (head tree
    paths): a folder with a `package.json` or `pyproject.toml` is a package, which a
    `SKILL.md` documents for agents; a `requirements.txt` lists a script's needs."""
    packages = frozenset(p.rsplit("/", 1)[0] for p in paths if "/" in p and _declares_package(p))
    found = (p.rsplit("/", 1)[0] for p in paths if "/" in p and basename(p) == SKILL_FILE)
    return frozenset(folder for folder in found if folder not in packages)


def _declares_package(path: str) -> bool:
    """True for a manifest that declares a package (not a requirements or conda environment
    file, which list what a script needs)."""
    name = basename(path).lower()
    return is_manifest(path) and not name.startswith(("requirements", "environment."))


def _hidden(name: str) -> bool:
    """True for a hidden file or folder name (`.github`, `.eslintrc.js`; not `.` or `..`)."""
    return name.startswith(".") and name.strip(".") != ""


def package_roots(paths: frozenset[str]) -> frozenset[str]:
    """The folders below the repository root that hold a manifest (workspace packages)."""
    return frozenset(path.rsplit("/", 1)[0] for path in paths if "/" in path and is_manifest(path))


def is_source(path: str) -> bool:
    """True for program source that is not a test, a test helper, a manifest (`setup.py`,
    `Package.swift`, `build.gradle.kts`, ...) nor a build or tool config."""
    if (
        TOOL_CONFIG_NAMES.search(basename(path))
        or (_hidden(basename(path)) and not CODE_ROOTS & {p.lower() for p in _parts(path)})
        or is_manifest(path)
        or path.endswith("docs/conf.py")
    ):
        return False
    return extension(path) in SOURCE_EXTS and not is_test(path) and not is_test_helper(path)


POLICY_NAMES = words(
    "security contributing code_of_conduct governance support pull_request_template"
)
"""Documents that state the project's own rules (how to report a vulnerability, to contribute,
to get help), by name without extension, where GitHub reads them: at the repository root or
in `.github/` in any case, in `docs/` as GitHub spells them (`docs/SUPPORT.md`; a lower-case
`docs/support.md` is a page of the project's documentation). There is nothing in them to
cite."""
AGENT_NAMES = frozenset({"AGENTS", "CLAUDE"})
"""Instructions for coding agents (`AGENTS.md`, `CLAUDE.md`), by their exact upper-case name in
any folder."""
TEMPLATE_FOLDER = ".github/pull_request_template"
"""Where GitHub reads several pull request templates, each by its own name."""


def is_policy(path: str) -> bool:
    """True for a project's policy documents (`SECURITY.md`, `.github/CONTRIBUTING.md`,
    `docs/CODE_OF_CONDUCT.md`, `.github/PULL_REQUEST_TEMPLATE/fix.md`, `AGENTS.md` in any
    folder); not `docs/guide/security.md` nor `docs/support.md`."""
    if not is_doc(path):
        return False
    stem = basename(path).rsplit(".", 1)[0]
    folder = "/".join(_parts(path)[:-1]).lower()
    if stem in AGENT_NAMES or folder == TEMPLATE_FOLDER:
        return True
    if folder == "docs":
        return stem.isupper() and stem.lower() in POLICY_NAMES
    return folder in ("", ".github") and stem.lower() in POLICY_NAMES


def is_doc(path: str) -> bool:
    """True for prose documents."""
    return extension(path) in DOC_EXTS and not is_lockfile(path)


def is_data(path: str) -> bool:
    """True for data files that a checksum should accompany."""
    return extension(path) in DATA_EXTS


def is_lockfile(path: str) -> bool:
    """True for dependency lockfiles."""
    name = basename(path).lower()
    return name in LOCKFILES or (
        name.startswith("requirements") and name.endswith((".lock", ".txt.lock"))
    )


def is_manifest(path: str) -> bool:
    """True for files that declare dependencies."""
    name = basename(path).lower()
    return name in MANIFESTS or (name.startswith("requirements") and name.endswith((".txt", ".in")))


def is_checksum(path: str) -> bool:
    """True for checksum files (SHA256SUMS, *.sha256, checksums.txt, ...)."""
    return CHECKSUM_NAMES.search(basename(path)) is not None


def structured_kind(path: str) -> str | None:
    """'json', 'yaml' or 'toml' for files of those formats (JSON with comments excluded)."""
    kind = STRUCTURED_EXTS.get(extension(path))
    if kind == "json" and JSONC_NAMES.search(path):
        return None
    return kind


HEAD_BYTES = 2048
MARKER = re.compile(
    r"@generated\b|\bDO NOT (?:EDIT|MODIFY)\b|\bCode generated\b.*\bDO NOT EDIT\b"
    r"|(?<![/\w-])(?i:auto(?:matically)?[- ]?generated|generated automatically)\b"
    r"|(?i:\b(?:this )?file (?:is |was |has been )?(?:auto-?|automatically )?generated"
    r" (?:from|by|with)\b)"
)
"""Markers as tools write them: `DO NOT EDIT` in capitals (a prose "do not edit" is no marker),
"automatically generated" in any case but not inside a URL or a slug, and a file that says of
itself that it was generated from, by or with something ("File generated from our OpenAPI
spec", "This file was generated by ...")."""
MINIFIED = re.compile(r"[.-]min\.[cm]?(js|css)$", re.I)
"""A minified bundle's name (`bootstrap.bundle.min.js`): built, not written by hand, when its
content is minified too (`minified_text`)."""
MINIFIED_LINE, MINIFIED_AVERAGE = 500, 200
"""A minified file has a line over 500 characters, or lines over 200 on average."""
VENDOR_DIRS = frozenset({"vendor", "vendored", "third_party", "third-party", "node_modules"})
ROOT_VENDOR_DIRS = frozenset({"deps"})
"""Vendored only at the repository root and only in a library's folder inside them, as GitHub's
Linguist reads them: `deps/<lib>/` holds a C library a project copies in (libgit2's
`deps/pcre2/`, Node's `deps/v8/`); a file directly in `deps/` is the project's own (Julia's
`deps/build.jl`)."""


def not_authored(change: FileChange) -> str | None:
    """Why a changed file is not a hand-written change (generated, vendored, lockfile), or None.

    The base's `.gitattributes` decide first (a change cannot mark its own files):
    `linguist-generated`, `linguist-vendored` and `-diff` leave a file out;
    `linguist-generated=false` (or `linguist-vendored=false`) keeps in a file the markers,
    lockfile names (or vendor folders) would leave out.
    """
    marks = change.attributes
    if marks.generated:
        return "generated: linguist-generated in .gitattributes"
    if marks.vendored:
        return "vendored: linguist-vendored in .gitattributes"
    if not marks.diff:
        return "not diffed: -diff in .gitattributes"
    if marks.generated is None and is_lockfile(change.path):
        return "lockfile"
    if marks.generated is None and MINIFIED.search(basename(change.path)) and _minified(change):
        return "minified"
    folders = change.path.split("/")[:-1]
    if marks.vendored is None and (
        any(part.lower() in VENDOR_DIRS for part in folders)
        or (len(folders) > 1 and folders[0].lower() in ROOT_VENDOR_DIRS)
    ):
        return "vendored"
    head = (change.content or b"")[:HEAD_BYTES].decode("utf-8", "replace")
    if marks.generated is None and _marked(head):
        return "generated"
    return None


def _minified(change: FileChange) -> bool:
    """True when a file's content reads as minified (unread content, over 1 MiB, counts)."""
    if change.content is None:
        return True
    lines = change.content.splitlines() or [b""]
    longest = max(len(line) for line in lines)
    return longest > MINIFIED_LINE or len(change.content) / len(lines) > MINIFIED_AVERAGE


def _marked(head: str) -> bool:
    """A generated marker in a file's head; every marker has "generat" or "do not" in it."""
    lowered = head.lower()
    return ("generat" in lowered or "do not" in lowered) and MARKER.search(head) is not None
