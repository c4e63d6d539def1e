"""Deliverable schemas that `$ref` other files of the base tree, resolved with `referencing`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rubricate.cli.main import main
from rubricate.config import Config, Deliverable
from rubricate.errors import ConfigError
from rubricate.evidence.deliverable_schemas import compile_deliverable_schemas
from rubricate.evidence.schema_refs import same_id

from .gitrepo import make_change

DRAFT7 = "http://json-schema.org/draft-07/schema"


def dump(data: Any) -> bytes:
    return json.dumps(data).encode()


def compile_one(files: dict[str, bytes], schema: str) -> Any:
    """The compiled schema; `ConfigError` with its problem when it cannot be used."""
    config = Config(deliverables=(Deliverable(glob="out/*.json", schema=schema),))
    compiled = compile_deliverable_schemas(config, files)[0]
    if compiled.problem is not None:
        raise ConfigError(compiled.problem)
    return compiled


def test_a_relative_ref_with_a_defs_pointer_resolves() -> None:
    files = {
        "schemas/result.json": dump(
            {"type": "object", "properties": {"id": {"$ref": "defs/common.json#/$defs/id"}}}
        ),
        "schemas/defs/common.json": dump({"$defs": {"id": {"type": "integer", "minimum": 1}}}),
    }
    schema = compile_one(files, "schemas/result.json")
    assert schema.issues({"id": 3}) == []
    assert [i.pointer for i in schema.issues({"id": 0})] == ["/id"]


def test_schema_root_relative_ids_resolve_from_a_parent_folder() -> None:
    """The layout of octokit/webhooks: `$id`s relative to the schema root, `common/` beside."""
    files = {
        "payload-schemas/api/check_run/completed.schema.json": dump(
            {
                "$schema": DRAFT7,
                "$id": "check_run$completed",
                "type": "object",
                "required": ["sender"],
                "properties": {"sender": {"$ref": "common/user.schema.json"}},
            }
        ),
        "payload-schemas/api/common/user.schema.json": dump(
            {
                "$schema": DRAFT7,
                "$id": "common/user.schema.json",
                "type": "object",
                "required": ["login"],
                "properties": {"login": {"type": "string"}, "org": {"$ref": "org.schema.json"}},
            }
        ),
        "payload-schemas/api/common/org.schema.json": dump(
            {"$schema": DRAFT7, "$id": "common/org.schema.json", "type": "object"}
        ),
    }
    schema = compile_one(files, "payload-schemas/api/check_run/completed.schema.json")
    assert schema.issues({"sender": {"login": "octocat", "org": {}}}) == []
    issues = schema.issues({"sender": {"org": 3}})
    assert sorted(i.pointer for i in issues) == ["/sender", "/sender/org"]


def test_an_http_ref_is_never_fetched() -> None:
    files = {"s.json": dump({"$ref": "https://example.com/schemas/x.json"})}
    with pytest.raises(ConfigError, match=r"https://example\.com/schemas/x\.json' is a URL"):
        compile_one(files, "s.json")


def test_an_http_ref_under_the_root_id_maps_to_the_schema_folder() -> None:
    files = {
        "schemas/result.json": dump(
            {
                "$id": "https://example.com/schemas/result.json",
                "properties": {"n": {"$ref": "https://example.com/schemas/num.json"}},
            }
        ),
        "schemas/num.json": dump({"type": "number"}),
    }
    schema = compile_one(files, "schemas/result.json")
    assert [i.pointer for i in schema.issues({"n": "x"})] == ["/n"]


def test_a_ref_names_a_schema_by_its_id_without_json() -> None:
    """SchemaStore's layout: `feed.json` (id `.../feed`) refs `feed-1#/definitions/author`."""
    draft4 = "http://json-schema.org/draft-04/schema#"
    files = {
        "src/json/feed.json": dump(
            {
                "$schema": draft4,
                "id": "https://json.example.org/feed",
                "properties": {"author": {"$ref": "feed-1#/definitions/author"}},
            }
        ),
        "src/json/feed-1.json": dump(
            {
                "$schema": draft4,
                "id": "https://json.example.org/feed-1",
                "definitions": {"author": {"type": "object", "required": ["name"]}},
            }
        ),
    }
    schema = compile_one(files, "src/json/feed.json")
    assert schema.issues({"author": {"name": "a"}}) == []
    assert [i.pointer for i in schema.issues({"author": {}})] == ["/author"]


def test_a_ref_to_another_host_of_the_collection_finds_the_schema_by_its_id() -> None:
    files = {
        "src/json/app.json": dump(
            {
                "$id": "https://json.example.org/app.json",
                "properties": {"base": {"$ref": "https://www.example.org/base.json#/$defs/n"}},
            }
        ),
        "src/json/base.json": dump(
            {"$id": "https://www.example.org/base.json", "$defs": {"n": {"type": "integer"}}}
        ),
    }
    schema = compile_one(files, "src/json/app.json")
    assert schema.issues({"base": 1}) == []
    assert [i.pointer for i in schema.issues({"base": "x"})] == ["/base"]
    # a file of that name whose $id is not the URL is not taken for it
    files["src/json/base.json"] = dump({"$id": "https://other.org/base.json"})
    with pytest.raises(ConfigError, match=r"https://www\.example\.org/base\.json.* is a URL"):
        compile_one(files, "src/json/app.json")


def test_same_id_ignores_json_scheme_and_the_collection_host() -> None:
    assert same_id("https://json.example.org/x.json", "http://www.example.org/x")
    assert same_id("https://json.example.org/x#", "https://json.example.org/x.json")
    assert not same_id("https://json.example.org/x.json", "https://json.other.org/x.json")
    assert not same_id("https://example.org/x.json", "https://example.org/y.json")


def test_a_draft4_subschema_is_named_by_its_own_id() -> None:
    files = {
        "s/base.json": dump(
            {
                "$schema": "http://json-schema.org/draft-04/schema#",
                "id": "https://example.org/base.json",
                "definitions": {
                    "path": {"id": "path", "type": "string"},
                    "either": {"id": "either", "oneOf": [{"$ref": "path"}, {"type": "null"}]},
                },
                "properties": {"p": {"$ref": "either"}},
            }
        )
    }
    schema = compile_one(files, "s/base.json")
    assert schema.issues({"p": None}) == []
    assert [i.pointer for i in schema.issues({"p": 3})] == ["/p"]


def test_a_missing_ref_target_fails_at_compile_time_with_its_name() -> None:
    files = {"schemas/a.json": dump({"properties": {"x": {"$ref": "nope.json"}}})}
    with pytest.raises(ConfigError, match=r"schema schemas/a\.json: \$ref 'schemas/nope\.json'"):
        compile_one(files, "schemas/a.json")


def test_a_ref_outside_the_repository_is_refused() -> None:
    files = {"a.json": dump({"$ref": "../../etc/passwd"})}
    with pytest.raises(ConfigError, match="names no file"):
        compile_one(files, "a.json")


def test_each_file_is_read_once_per_run() -> None:
    reads: list[str] = []
    common = dump({"$defs": {"n": {"type": "integer"}}})

    class Counting(dict[str, bytes]):
        def get(self, key: str, default: Any = None) -> Any:
            reads.append(key)
            return super().get(key, default)

    files = Counting(
        {
            "s/a.json": dump({"$ref": "common.json#/$defs/n"}),
            "s/b.json": dump({"$ref": "common.json#/$defs/n"}),
            "s/common.json": common,
        }
    )
    config = Config(
        deliverables=(
            Deliverable(glob="a/*.json", schema="s/a.json"),
            Deliverable(glob="b/*.json", schema="s/b.json"),
        )
    )
    compiled = compile_deliverable_schemas(config, files)
    assert compiled[0].issues(1) == []
    assert compiled[1].issues("x") != []
    assert sorted(reads) == ["s/a.json", "s/b.json", "s/common.json"]


def test_validate_resolves_the_config_schemas(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / "schemas").mkdir()
    config = tmp_path / ".github" / "rubricate.yml"
    config.write_text('deliverables:\n  - glob: "out/*.json"\n    schema: schemas/r.json\n')
    (tmp_path / "schemas" / "r.json").write_text('{"$ref": "gone.json"}')
    assert main(["validate", str(config)]) != 0
    out = capsys.readouterr().out
    assert "$ref 'schemas/gone.json' names no file" in out
    (tmp_path / "schemas" / "gone.json").write_text('{"type": "object"}')
    assert main(["validate", str(config)]) == 0


def test_score_reads_referenced_schemas_from_the_base_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    base = {
        ".github/rubricate.yml": 'deliverables:\n  - glob: "out/*.json"\n    schema: s/r.json\n',
        "s/r.json": '{"properties": {"n": {"$ref": "common/n.json"}}}',
        "s/common/n.json": '{"type": "integer"}',
    }
    change = make_change(tmp_path, base, {"out/a.json": '{"n": "x"}'})
    main(["score", "--repo", str(change.repo), "--format", "json", "--judge", "none"])
    data = json.loads(capsys.readouterr().out)
    fmt = next(c for c in data["checks"] if c["id"] == "format")
    assert fmt["findings"][0]["message"].startswith("/n: 'x' is not of type 'integer'")


def _score_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str, data: bytes
) -> Any:
    schema = '{"type": "array", "items": {"type": "integer"}}'
    base = {".github/rubricate.yml": config, "s.json": schema}
    change = make_change(tmp_path, base, {"out/big.json": data})
    main(["score", "--repo", str(change.repo), "--format", "json", "--judge", "none"])
    return json.loads(capsys.readouterr().out)


BIG_CONFIG = 'deliverables:\n  - glob: "out/*.json"\n    schema: s.json\n'


def test_a_deliverable_over_1_mib_is_validated_up_to_max_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = b"[" + b"1," * (1024 * 1024) + b"1]"
    result = _score_json(tmp_path, capsys, BIG_CONFIG, data)
    fmt = next(c for c in result["checks"] if c["id"] == "format")
    assert fmt["status"] == "pass"
    assert "deliverables valid: out/big.json" in fmt["evidence"]


def test_a_deliverable_over_max_bytes_is_not_validated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = BIG_CONFIG + "    max_bytes: 10\n"
    result = _score_json(tmp_path, capsys, config, b"[1, 2, 3, 4, 5]")
    fmt = next(c for c in result["checks"] if c["id"] == "format")
    assert fmt["findings"][0]["message"] == "not validated (size): 15 bytes, over max_bytes 10"
    scored = {c["id"]: c["score"] for c in result["criteria"]}
    assert scored["format_correctness"] == 1.0
