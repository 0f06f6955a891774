import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_SETTINGS, effectsOfChange, expandPath, readSettings, SERVER_KEYS, toServerSettings } from "../common/settings";

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
      budgetSeconds: 12.5,
      testsDirectory: "test/unit",
      testFilePattern: "{module}_test.py",
      diagnosticSeverity: "Warning",
      showCoveredBranches: false,
      maxParallelJobs: 3,
      gutterStyle: "gutter",
      showGutter: false,
    });
    assert.equal(s.interpreter, "/opt/py/bin/python");
    assert.equal(s.onSave, false);
    assert.equal(s.budgetSeconds, 12.5);
    assert.equal(s.testsDirectory, "test/unit");
    assert.equal(s.testFilePattern, "{module}_test.py");
    assert.equal(s.diagnosticSeverity, "warning");
    assert.equal(s.maxParallelJobs, 3);
    assert.equal(s.gutterStyle, "gutter");
    assert.equal(s.showGutter, false);
  });

  it("falls back to the default for wrong types and out-of-range values", () => {
    const s = from({
      onSave: "yes",
      budgetSeconds: -1,
      testsDirectory: "  ",
      testFilePattern: "tests.txt",
      diagnosticSeverity: "fatal",
      maxParallelJobs: 1.5,
      gutterStyle: "icons",
    });
    assert.deepEqual(s, DEFAULT_SETTINGS);
  });

  it("refuses what the server would refuse: absolute test folders, patterns without {module} or with a path", () => {
    for (const testsDirectory of ["/abs/tests", "C:\\tests", "\\\\share\\tests"]) {
      assert.equal(from({ testsDirectory }).testsDirectory, "tests", testsDirectory);
    }
    for (const testFilePattern of ["test_all.py", "sub/test_{module}.py", "sub\\test_{module}.py"]) {
      assert.equal(from({ testFilePattern }).testFilePattern, "test_{module}.py", testFilePattern);
    }
    assert.equal(from({ testsDirectory: "src/tests" }).testsDirectory, "src/tests");
  });
});

describe("toServerSettings", () => {
  it("sends exactly the server keys of the protocol, camelCase, without client-only ones", () => {
    const server = toServerSettings(from({ interpreter: "/x/python", budgetSeconds: 9, gutterStyle: "line" }));
    assert.deepEqual(Object.keys(server).sort(), [
      "budgetSeconds",
      "diagnosticSeverity",
      "maxParallelJobs",
      "onSave",
      "showCoveredBranches",
      "testFilePattern",
      "testsDirectory",
    ]);
    assert.deepEqual(server, {
      onSave: true,
      budgetSeconds: 9,
      testsDirectory: "tests",
      testFilePattern: "test_{module}.py",
      diagnosticSeverity: "information",
      showCoveredBranches: true,
      maxParallelJobs: 1,
    });
    assert.equal(SERVER_KEYS.length, 7);
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
