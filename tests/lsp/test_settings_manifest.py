"""The extension's manifest declares exactly the settings the server reads, and docs/vscode.md's table
is what scripts/settings-table.py makes of the manifest."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from miogen.common.records import Algorithm, to_json
from miogen.host import config
from miogen.lsp.settings import KEYS, Settings

REPO = Path(__file__).resolve().parents[2]
MANIFEST = json.loads((REPO / "vscode-extension" / "package.json").read_text(encoding="utf-8"))
PROPERTIES: dict[str, dict[str, Any]] = MANIFEST["contributes"]["configuration"]["properties"]
# What only the extension reads: the server never sees these (vscode-extension/src/common/settings.ts).
CLIENT_ONLY = {"interpreter", "importStrategy", "gutterStyle", "showGutter", "testingView"}
WINDOW_SCOPED = {"maxParallelJobs", "gutterStyle", "showGutter"}  # one value for the whole window


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "settings_table", REPO / "scripts" / "settings-table.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def declared() -> set[str]:
    assert all(key.startswith("miogen.") for key in PROPERTIES)
    return {key.removeprefix("miogen.") for key in PROPERTIES}


def test_the_manifest_declares_exactly_the_server_keys_and_the_clients_own() -> None:
    assert declared() - CLIENT_ONLY == set(config.KEYS)
    assert declared() & CLIENT_ONLY == CLIENT_ONLY


@pytest.mark.parametrize("key", sorted(config.KEYS))
def test_each_server_setting_has_the_servers_default_a_description_and_a_scope(key: str) -> None:
    spec = PROPERTIES[f"miogen.{key}"]
    default = to_json(getattr(Settings(), KEYS[key][0]))
    assert spec["default"] == default, "the Settings UI shows what the server does when unset"
    if default is not None:
        assert config.KEYS[key].check(spec["default"]) == getattr(Settings(), KEYS[key][0])
    description = spec.get("markdownDescription") or spec.get("description") or ""
    assert len(description) > 20
    assert spec["scope"] == ("window" if key in WINDOW_SCOPED else "resource")
    assert "type" in spec


def test_enums_offer_what_the_server_accepts() -> None:
    def enum(key: str) -> list[str]:
        return PROPERTIES[f"miogen.{key}"]["enum"]

    assert enum("generateOnSave") == list(config.SAVE_MODES)
    assert enum("diagnosticSeverity") == list(config.SEVERITIES)
    assert enum("configurationPreference") == list(config.PREFERENCES)
    assert set(enum("algorithm")) == {a.value for a in Algorithm}
    for key in ("generateOnSave", "diagnosticSeverity", "algorithm", "configurationPreference"):
        spec = PROPERTIES[f"miogen.{key}"]
        assert len(spec.get("enumDescriptions", spec["enum"])) == len(spec["enum"])


def test_on_save_is_deprecated_for_generate_on_save_and_still_turns_it_off() -> None:
    spec = PROPERTIES["miogen.onSave"]
    assert "generateOnSave" in spec["markdownDeprecationMessage"]
    assert spec["deprecationMessage"]
    assert "deprecationMessage" not in PROPERTIES["miogen.generateOnSave"]
    values, _ = config.read_values({"onSave": False, "generateOnSave": "changed"})
    assert Settings(**values).save_mode == "off"  # the one place that maps it (Settings.save_mode)


def test_the_settings_page_table_is_the_generators_output() -> None:
    settings_table = generator()
    readme = (REPO / "docs" / "vscode.md").read_text(encoding="utf-8")
    table = settings_table.table(MANIFEST)
    assert settings_table.with_table(readme, table) == readme, "run npm run docs:settings"
    rows = table.splitlines()[2:]
    assert [row.split("`")[1] for row in rows] == [k.removeprefix("miogen.") for k in PROPERTIES]


def test_the_generator_writes_default_enum_and_first_sentence() -> None:
    settings_table = generator()
    manifest = {
        "contributes": {
            "configuration": {
                "properties": {
                    "miogen.mode": {
                        "type": "string",
                        "enum": ["a", "b"],
                        "default": "b",
                        "markdownDescription": "Picks one of `#miogen.x#`. More | text.",
                        "deprecationMessage": "gone",
                    },
                    "miogen.path": {"type": "string", "default": "", "description": "A path"},
                }
            }
        }
    }
    assert settings_table.table(manifest).splitlines()[2:] == [
        "| `mode` | `b` (`a`) | Deprecated. Picks one of `miogen.x`. |",
        "| `path` | (empty) | A path. |",
    ]
    before = "intro\n<!-- settings-table:start -->\nold\n<!-- settings-table:end -->\nrest\n"
    assert settings_table.with_table(before, "new") == (
        "intro\n<!-- settings-table:start -->\nnew\n<!-- settings-table:end -->\nrest\n"
    )
