import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PythonEnvironments } from "../common/pythonApi";
import { activeInterpreter } from "../common/pythonApi";

/** A fake of the Python extension's environments API: one active environment per workspace folder. */
function fakeEnvironments(perFolder: Record<string, string | undefined>): { api: PythonEnvironments; asked: unknown[] } {
  const asked: unknown[] = [];
  const api = {
    getActiveEnvironmentPath(resource?: { uri?: { fsPath: string }; fsPath?: string }) {
      asked.push(resource);
      const key = resource?.uri?.fsPath ?? resource?.fsPath ?? "";
      const folder = Object.keys(perFolder).find((f) => key === f || key.startsWith(`${f}/`)) ?? "";
      return { id: folder, path: perFolder[folder] ?? "python" };
    },
    async resolveEnvironment(environment: { id: string; path: string }) {
      const executable = perFolder[environment.id];
      return executable === undefined ? undefined : { executable: { uri: executable ? { fsPath: executable } : undefined } };
    },
    onDidChangeActiveEnvironmentPath: () => ({ dispose() {} }),
  };
  return { api: api as unknown as PythonEnvironments, asked };
}

describe("activeInterpreter (the Python extension's API, per workspace folder)", () => {
  const { api, asked } = fakeEnvironments({ "/ws/a": "/ws/a/.venv/bin/python", "/ws/b": "/envs/b/bin/python", "/ws/c": "" });

  it("gives each folder its own environment's executable", async () => {
    assert.equal(await activeInterpreter(api, { uri: { fsPath: "/ws/a" } } as never), "/ws/a/.venv/bin/python");
    assert.equal(await activeInterpreter(api, { uri: { fsPath: "/ws/b" } } as never), "/envs/b/bin/python");
    assert.equal(asked.length, 2, "asked once per folder, with the folder as the resource");
  });

  it("resolves a file to its folder's environment", async () => {
    assert.equal(await activeInterpreter(api, { fsPath: "/ws/b/pkg/mod.py" } as never), "/envs/b/bin/python");
  });

  it("gives undefined when the environment does not resolve or has no executable", async () => {
    assert.equal(await activeInterpreter(api, { uri: { fsPath: "/elsewhere" } } as never), undefined);
    assert.equal(await activeInterpreter(api, { uri: { fsPath: "/ws/c" } } as never), undefined);
  });
});
