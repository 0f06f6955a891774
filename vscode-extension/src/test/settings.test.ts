import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DEFAULT_SETTINGS,
  effectsOfChange,
  expandPath,
  isSetByUser,
  readSettings,
  SERVER_KEYS,
  toServerSettings,
} from "../common/settings";

function from(values: Record<string, unknown>) {
  return readSettings((key) => values[key]);
}

describe("readSettings", () => {
  it("gives the defaults when nothing is set", () => {
    assert.deepEqual(from({}), DEFAULT_SETTINGS);
  });

  it("keeps valid values", () => {
    const s = from({
      interpreter: " /opt/py/bin/python ",
      onSave: false,
      generateOnSave: "Changed",
      budgetSeconds: 12.5,
      testsDirectory: "test/unit",
      testFilePattern: "{module}_test.py",
      diagnosticSeverity: "Warning",
      showCoveredBranches: false,
      maxParallelJobs: 3,
      configurationPreference: "filesystemFirst",
      gutterStyle: "gutter",
      showGutter: false,
      evaluations: 2000,
      algorithm: "DynaMOSA",
      criteria: "branch,exception",
      seed: 7,
      performance: false,
      testTimeout: 2.5,
      mutationShare: 0,
      previewTests: false,
    });
    assert.equal(s.interpreter, "/opt/py/bin/python");
    assert.equal(s.previewTests, false);
    assert.deepEqual(
      [s.evaluations, s.algorithm, s.criteria, s.seed, s.performance, s.testTimeout, s.mutationShare],
      [2000, "dynamosa", "branch,exception", 7, false, 2.5, 0],
    );
    assert.equal(s.onSave, false);
    assert.equal(s.generateOnSave, "changed");
    assert.equal(s.budgetSeconds, 12.5);
    assert.equal(s.testsDirectory, "test/unit");
    assert.equal(s.testFilePattern, "{module}_test.py");
    assert.equal(s.diagnosticSeverity, "warning");
    assert.equal(s.maxParallelJobs, 3);
    assert.equal(s.configurationPreference, "filesystemFirst");
    assert.equal(s.gutterStyle, "gutter");
    assert.equal(s.showGutter, false);
  });

  it("falls back to the default for wrong types and out-of-range values", () => {
    const s = from({
      onSave: "yes",
      generateOnSave: "always",
      budgetSeconds: -1,
      testsDirectory: "  ",
      testFilePattern: "tests.txt",
      diagnosticSeverity: "fatal",
      maxParallelJobs: 1.5,
      configurationPreference: "projectFirst",
      gutterStyle: "icons",
      evaluations: 0.5,
      algorithm: "genetic",
      criteria: " ",
      seed: -1,
      performance: "yes",
      testTimeout: 0,
      mutationShare: 1,
    });
    assert.deepEqual(s, DEFAULT_SETTINGS);
  });

  it("refuses what the server would refuse: absolute test folders, patterns without {module} or with a path", () => {
    for (const testsDirectory of ["/abs/tests", "C:\\tests", "\\\\share\\tests"]) {
      assert.equal(from({ testsDirectory }).testsDirectory, "", testsDirectory);
    }
    for (const testFilePattern of ["test_all.py", "sub/test_{module}.py", "sub\\test_{module}.py"]) {
      assert.equal(from({ testFilePattern }).testFilePattern, "test_{module}_miogen.py", testFilePattern);
    }
    assert.equal(from({ testsDirectory: "src/tests" }).testsDirectory, "src/tests");
  });
});

describe("toServerSettings", () => {
  const values: Record<string, unknown> = {
    interpreter: "/x/python",
    budgetSeconds: 9,
    testsDirectory: "tests",
    gutterStyle: "ruler",
    configurationPreference: "filesystemFirst",
  };
  const get = (key: string) => values[key] ?? (DEFAULT_SETTINGS as unknown as Record<string, unknown>)[key];

  it("sends only the server settings the user set, so that the project file decides the rest", () => {
    const set = new Set(["interpreter", "budgetSeconds", "gutterStyle", "configurationPreference"]);
    assert.deepEqual(
      toServerSettings(get, (key) => set.has(key)),
      { budgetSeconds: 9, configurationPreference: "filesystemFirst" },
      "client-only settings stay in the client; testsDirectory is at its default, so unsent",
    );
    assert.deepEqual(toServerSettings(get, () => false), {}, "nothing set: nothing overrides [tool.miogen]");
  });

  it("sends a set value as written even when it equals the default (set explicitly, it wins)", () => {
    assert.deepEqual(toServerSettings(get, (key) => key === "testsDirectory"), { testsDirectory: "tests" });
  });

  it("knows every server key of the protocol, camelCase, without client-only ones", () => {
    assert.deepEqual(
      Object.keys(toServerSettings(get, () => true)).sort(),
      [
        "algorithm",
        "budgetSeconds",
        "configurationPreference",
        "criteria",
        "diagnosticSeverity",
        "evaluations",
        "generateOnSave",
        "joinTests",
        "maxParallelJobs",
        "mutationShare",
        "onSave",
        "performance",
        "previewTests",
        "seed",
        "showCoveredBranches",
        "testFilePattern",
        "testTimeout",
        "testsDirectory",
      ],
    );
    assert.equal(SERVER_KEYS.length, 18);
  });
});

describe("isSetByUser", () => {
  it("is true for a value in user, workspace or folder settings, also a language's", () => {
    assert.equal(isSetByUser({ globalValue: 3 }), true);
    assert.equal(isSetByUser({ workspaceValue: false }), true);
    assert.equal(isSetByUser({ workspaceFolderValue: "tests" }), true);
    assert.equal(isSetByUser({ workspaceFolderLanguageValue: 2 }), true);
  });

  it("is false for a setting left at its default", () => {
    assert.equal(isSetByUser({}), false);
    assert.equal(isSetByUser(undefined), false);
    assert.equal(isSetByUser({ defaultValue: 5 } as never), false);
  });
});

describe("effectsOfChange", () => {
  const changed = (...keys: string[]) => effectsOfChange((key) => keys.some((k) => k === key || k.startsWith(`${key}.`) || key.startsWith(`${k}.`)));

  it("restarts the server for a new interpreter", () => {
    assert.deepEqual([...changed("miogen.interpreter")], ["restart"]);
  });

  it("notifies the server of server settings without restarting", () => {
    assert.deepEqual([...changed("miogen.budgetSeconds")], ["notifyServer"]);
    assert.deepEqual([...changed("miogen.onSave", "miogen.maxParallelJobs")], ["notifyServer"]);
    assert.deepEqual([...changed("miogen.configurationPreference")], ["notifyServer"]);
  });

  it("only repaints for gutter settings", () => {
    assert.deepEqual([...changed("miogen.gutterStyle")], ["repaint"]);
    assert.deepEqual([...changed("miogen.showGutter")], ["repaint"]);
  });

  it("does everything when the whole section changes and nothing for other sections", () => {
    assert.deepEqual([...changed("miogen")].sort(), ["notifyServer", "repaint", "restart"]);
    assert.deepEqual([...changed("python.defaultInterpreterPath")], []);
  });
});

describe("expandPath", () => {
  const vars = { workspaceFolder: "/ws", home: "/home/u", env: { VENV: "/venvs/a" } };

  it("expands ~, ${workspaceFolder}, ${userHome} and ${env:NAME}", () => {
    assert.equal(expandPath("~/py/bin/python", vars), "/home/u/py/bin/python");
    assert.equal(expandPath("${workspaceFolder}/.venv/bin/python", vars), "/ws/.venv/bin/python");
    assert.equal(expandPath("${userHome}/x", vars), "/home/u/x");
    assert.equal(expandPath("${env:VENV}/bin/python", vars), "/venvs/a/bin/python");
    assert.equal(expandPath("${env:NOPE}/bin/python", vars), "/bin/python");
  });

  it("leaves an unknown workspace folder as written", () => {
    assert.equal(expandPath("${workspaceFolder}/python", {}), "${workspaceFolder}/python");
  });
});
