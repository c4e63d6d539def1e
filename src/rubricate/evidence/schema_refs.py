"""Resolve `$ref`s between deliverable schemas in the base tree (pure: files in, registry out).

jsonschema's own `referencing` registry does the resolving; this module only tells it where a
URI's file is. A schema file at `PATH` has the base URI `file:///PATH`, so a relative ref
(`common/user.schema.json`, `../defs.json#/$defs/id`) names a file beside it. A file that is
not there is looked for in each parent directory in turn, which covers schemas whose `$id`s are
relative to a schema root (octokit/webhooks' `common/*.schema.json`). An `http(s)://` ref is
never fetched: it maps to a file when it starts with the directory of the root schema's own
absolute `$id`, or with a prefix of `url_map`; else to a schema of the repository whose `$id` it
is (`same_id`: with or without `.json`, `http` or `https`, and on any host of one collection,
`json.example.org` and `www.example.org`), looked for by name in the folders of the schemas
read so far; otherwise it is an error that names it. A ref without `.json` (`feed-1`) also
names `feed-1.json`.
Each file is read and parsed once per `SchemaFiles`, and every ref is resolved when a schema is
compiled, so a broken ref fails `rubricate validate`, not a later score.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from posixpath import dirname, normpath
from typing import Any
from urllib.parse import quote, unquote, urldefrag, urlsplit

import yaml
from jsonschema_specifications import REGISTRY as METASCHEMAS  # type: ignore[import-untyped]
from referencing import Registry, Resource, Specification
from referencing.exceptions import NoSuchResource, Unresolvable

from rubricate.errors import ConfigError
from rubricate.errors import SchemaRefError as RefProblem
from rubricate.evidence.yaml12 import Yaml12Loader, without_prefix_boms

ROOT = "file:///"
"""The base URI of the repository root (a scheme `urljoin` resolves relative refs against)."""
FileReader = Callable[[str], "bytes | None"]


def file_uri(path: str) -> str:
    """The base URI of a schema file at a repository path (`#`, `%`, `?` and spaces escaped)."""
    return ROOT + quote(path.lstrip("/"), safe="/")


class SchemaFiles:
    """The schema files of the base tree as `referencing` resources, each parsed once."""

    def __init__(
        self, read: Mapping[str, bytes] | FileReader, url_map: Mapping[str, str] | None = None
    ) -> None:
        self._read: FileReader = read.get if isinstance(read, Mapping) else read
        self._url_map = dict(url_map or {})
        self._parsed: dict[str, Any] = {}
        self._missing: set[str] = set()
        self.retrieved: dict[str, Any] = {}
        """Every URI retrieved so far and its contents (to preload validators' registries)."""
        self._url_now = dict(self._url_map)
        self._registries: dict[str, Registry[Any]] = {}
        self._known: dict[str, set[str]] = {}
        self.checked: set[int] = set()
        """The (sub)schemas whose refs were already resolved, by object identity."""

    def contents(self, path: str) -> Any | None:
        """The parsed schema file at a repository path (None when absent)."""
        if path in self._parsed:
            return self._parsed[path]
        if path in self._missing:
            return None
        raw = self._read(path)
        if raw is None:
            self._missing.add(path)
            return None
        self._parsed[path] = parse_schema_text(raw, path)
        return self._parsed[path]

    def registry(self, spec: Specification[Any]) -> Registry[Any]:
        """A crawled registry that holds every file retrieved so far and retrieves the rest."""
        name = spec.name
        registry = self._registries.get(name)
        if registry is None:

            def retrieve(uri: str) -> Resource[Any]:
                contents = self._retrieve(uri)
                if not isinstance(contents, (dict, bool)):
                    raise RefProblem(f"$ref {_shown(uri)} names a file that is not a schema")
                self.retrieved[uri] = contents
                return _resource(contents, spec)

            registry = Registry(retrieve=retrieve).combine(METASCHEMAS)  # type: ignore[call-arg]
        known = self._known.setdefault(name, set())
        new = [(u, _resource(c, spec)) for u, c in self.retrieved.items() if u not in known]
        known.update(u for u, _ in new)
        if new:
            try:
                registry = registry.with_resources(new).crawl()
            except (AttributeError, TypeError):  # a subschema that is neither object nor boolean
                registry = registry.with_resources(new)
        self._registries[name] = registry
        return registry

    def use_root(self, path: str, root_id: str | None) -> None:
        """Map URLs under the directory of the root schema's absolute `$id` to its folder."""
        self._url_now = dict(self._url_map)
        if root_id and urlsplit(root_id).scheme in ("http", "https"):
            self._url_now.setdefault(root_id.rsplit("/", 1)[0] + "/", dirname(path) + "/")

    def _retrieve(self, uri: str) -> Any:
        try:
            path = _repo_path(uri, self._url_now)
        except RefProblem:
            found = self._by_id(uri)
            if found is None:
                raise
            return found
        for candidate in _candidates(path):
            for name in (
                candidate,
                *(() if candidate.endswith(".json") else (candidate + ".json",)),
            ):
                found = self.contents(name)
                if found is not None:
                    return found
        found = self._by_id(uri)
        if found is None:
            raise RefProblem(f"$ref {_shown(uri)} names no file in the repository at the base ref")
        return found

    def _by_id(self, uri: str) -> Any | None:
        """The schema whose `$id` (or draft 4 `id`) is this URL, by its name beside a schema
        already read."""
        bare = urldefrag(uri)[0]
        if urlsplit(bare).scheme not in ("http", "https"):
            return None
        name = unquote(bare.rstrip("/").rsplit("/", 1)[-1])
        names = (name,) if name.endswith(".json") else (name, name + ".json")
        folders = dict.fromkeys(dirname(path) for path in list(self._parsed))
        for folder in folders:
            for candidate in (f"{folder}/{n}" if folder else n for n in names):
                found = self.contents(candidate)
                if isinstance(found, dict) and any(
                    isinstance(found.get(key), str) and same_id(found[key], bare)
                    for key in ("$id", "id")
                ):
                    return found
        return None


def _resource(contents: Any, spec: Specification[Any]) -> Resource[Any]:
    """A schema file as a resource of the draft it declares (else the referring schema's)."""
    return Resource.from_contents(contents, default_specification=spec)


def check_refs(
    registry: Registry[Any],
    root: Resource[Any],
    uri: str,
    spec: Specification[Any],
    checked: set[int] | None = None,
) -> None:
    """Resolve every `$ref` reachable from the root; `RefProblem` names the first that fails.

    `checked` holds the schemas already walked (shared between the schemas of one run).
    """
    seen = set() if checked is None else checked
    stack = [(root, registry.resolver(base_uri=uri).in_subresource(root))]
    while stack:
        resource, base = stack.pop()
        for sub, ref in _refs(resource, base):
            try:
                resolved = sub.lookup(ref)
            except Unresolvable as exc:
                raise _problem(ref, exc) from None
            if id(resolved.contents) not in seen:
                seen.add(id(resolved.contents))
                stack.append((spec.create_resource(resolved.contents), resolved.resolver))


def _refs(resource: Resource[Any], resolver: Any) -> Iterator[tuple[Any, str]]:
    """Each `$ref` (and `$dynamicRef`) of a schema with the resolver in scope for it.

    Only objects and booleans are schemas: drafts 4 to 7 let `dependencies` mix schemas with
    arrays of property names, and `referencing` yields those arrays too once the first value
    is a schema."""
    contents = resource.contents
    if isinstance(contents, dict):
        for key in ("$ref", "$dynamicRef"):
            ref = contents.get(key)
            if isinstance(ref, str):
                yield resolver, ref
    for sub in resource.subresources():
        if isinstance(sub.contents, (dict, bool)):
            yield from _refs(sub, resolver.in_subresource(sub))


def _repo_path(uri: str, url_map: Mapping[str, str]) -> str:
    bare, _ = urldefrag(uri)
    if bare.startswith(ROOT):
        return unquote(bare[len(ROOT) :])
    for prefix, folder in sorted(url_map.items(), key=lambda item: -len(item[0])):
        if bare.startswith(prefix):
            return normpath(folder.rstrip("/") + "/" + unquote(bare[len(prefix) :]))
    scheme = urlsplit(bare).scheme
    if scheme in ("http", "https"):
        raise RefProblem(
            f"$ref {_shown(uri)} is a URL, and rubricate never fetches schemas: put the schema "
            "in the repository and $ref it by a relative path, or give the root schema an "
            "$id whose directory the URL starts with"
        )
    if scheme:
        raise RefProblem(f"$ref {_shown(uri)} names no file in the repository")
    return normpath(unquote(bare))


def same_id(first: str, second: str) -> bool:
    """Whether two schema URLs name one schema: the same path with or without `.json`, over
    `http` or `https`, on the same host or another host of its collection (`json.example.org`,
    `www.example.org`: the hosts after their first label, when three or more are left)."""
    return _id_key(first) == _id_key(second)


def _id_key(url: str) -> tuple[str, str]:
    parts = urlsplit(urldefrag(url)[0])
    host = (parts.hostname or "").lower()
    labels = host.split(".")
    collection = ".".join(labels[1:]) if len(labels) >= 3 else host
    return collection, parts.path.removesuffix(".json").rstrip("/")


def _candidates(path: str) -> Iterator[str]:
    """The path, then with parent directories left out (for schema-root-relative `$id`s)."""
    clean = normpath(path).lstrip("/")
    if clean.startswith(".."):
        return
    yield clean
    parts = clean.split("/")
    count = len(parts)
    for block in range(1, count):
        for tail in range(1, count - block + 1):
            yield "/".join(parts[: count - tail - block] + parts[count - tail :])


def _problem(ref: str, exc: Unresolvable) -> ConfigError:
    cause = exc.__cause__
    while cause is not None:
        if isinstance(cause, ConfigError):
            return RefProblem(str(cause))
        cause = cause.__cause__
    if isinstance(exc, NoSuchResource) or type(exc) is Unresolvable:
        return RefProblem(f"$ref {_shown(ref)} cannot be resolved")
    return RefProblem(f"$ref {_shown(ref)} cannot be resolved: {exc}")


def _shown(uri: str) -> str:
    return repr(uri.removeprefix(ROOT))


def parse_schema_text(raw: bytes, path: str) -> Any:
    """A schema file's data: YAML for `.yml`/`.yaml`, else JSON; `ConfigError` when it fails."""
    try:
        text = raw.decode("utf-8")
        if path.endswith((".yml", ".yaml")):
            return yaml.load(without_prefix_boms(text), Loader=Yaml12Loader)
        return json.loads(text)
    except (UnicodeDecodeError, ValueError, yaml.YAMLError) as exc:
        detail = " ".join(str(exc).split())[:300]
        raise ConfigError(f"schema {path} does not parse: {detail}") from None
