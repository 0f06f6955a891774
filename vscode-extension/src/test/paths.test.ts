import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { folderOf, pathsSummary, pathsTitle, selectedUris } from "../common/paths";
import type { PathsResult } from "../common/protocol";

const result = (over: Partial<PathsResult>): PathsResult => ({
  uris: ["file:///p/a.py"],
  written: [],
  units: 2,
  ran: 2,
  tests: 0,
  covered: 0,
  total: 0,
  warnings: [],
  exitCode: 0,
  cancelled: false,
  message: "",
  ...over,
});

describe("selectedUris", () => {
  it("takes the explorer's multi-selection when it holds the clicked resource", () => {
    assert.deepEqual(selectedUris("file:///p/a.py", ["file:///p/a.py", "file:///p/b.py"]), ["file:///p/a.py", "file:///p/b.py"]);
  });

  it("takes the clicked resource alone when the selection is elsewhere or absent", () => {
    assert.deepEqual(selectedUris("file:///p/c.py", ["file:///p/a.py"]), ["file:///p/c.py"]);
    assert.deepEqual(selectedUris("file:///p/c.py", undefined), ["file:///p/c.py"]);
    assert.deepEqual(selectedUris(undefined, undefined), []);
  });

  it("leaves out what a selected folder holds (its run covers it), not a sibling with a longer name", () => {
    const picked = ["file:///p/pkg", "file:///p/pkg/a.py", "file:///p/pkg2/b.py", "file:///p/pkg"];
    assert.deepEqual(selectedUris("file:///p/pkg", picked), ["file:///p/pkg", "file:///p/pkg2/b.py"]);
  });
});

describe("folderOf and pathsTitle", () => {
  it("gives a file's folder", () => {
    assert.equal(folderOf("file:///p/pkg/a.py"), "file:///p/pkg");
    assert.equal(folderOf("file:///a.py"), "file:///a.py");
  });

  it("names the first three selected resources", () => {
    assert.equal(pathsTitle(["file:///p/a%20b.py"]), "miogen: generating tests for a b.py");
    const four = ["file:///p/a.py", "file:///p/b.py", "file:///p/c", "file:///p/d.py"];
    assert.equal(pathsTitle(four), "miogen: generating tests for a.py, b.py, c and 1 more");
  });
});

describe("pathsSummary", () => {
  it("counts the tests, files and branches of a run", () => {
    const summary = pathsSummary(result({ written: ["file:///p/tests/test_a_miogen.py"], tests: 4, covered: 6, total: 8 }));
    assert.deepEqual(summary, { text: "miogen: 4 tests added to 1 test file; 6/8 branches covered (coverage.py).", warn: false });
  });

  it("warns when the run has warnings or failed, and says when nothing was written", () => {
    const summary = pathsSummary(result({ warnings: ["tests/x.py: tests not written: outside"], exitCode: 4 }));
    assert.equal(summary.warn, true);
    assert.match(summary.text, /no test file written \(2 classes and functions\); 1 warnings in the log/);
    assert.equal(pathsSummary(result({ exitCode: 1 })).warn, true);
  });

  it("says a cancelled run changed nothing", () => {
    assert.match(pathsSummary(result({ cancelled: true })).text, /cancelled/);
  });
});
