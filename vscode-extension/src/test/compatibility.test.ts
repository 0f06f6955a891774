import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseVersion, platformProblem, versionMismatch } from "../common/compatibility";

describe("platformProblem (the platform faked)", () => {
  it("stops on Windows outside WSL, saying to open the folder in WSL", () => {
    for (const remote of [undefined, "ssh-remote", "dev-container"]) {
      const message = platformProblem("win32", remote);
      assert.ok(message, String(remote));
      assert.match(message, /Windows/);
      assert.match(message, /Reopen Folder in WSL/);
    }
  });

  it("lets the server start inside WSL and on Linux and macOS", () => {
    assert.equal(platformProblem("win32", "wsl"), undefined);
    assert.equal(platformProblem("linux", "wsl"), undefined);
    assert.equal(platformProblem("linux", undefined), undefined);
    assert.equal(platformProblem("darwin", undefined), undefined);
  });
});

describe("versionMismatch", () => {
  it("reads major.minor.patch, also of pre-releases", () => {
    assert.deepEqual(parseVersion("0.2.0"), [0, 2, 0]);
    assert.deepEqual(parseVersion("1.4"), [1, 4, 0]);
    assert.deepEqual(parseVersion("0.3.0rc1"), [0, 3, 0]);
    assert.equal(parseVersion("unknown (not installed)"), undefined);
    assert.equal(parseVersion(undefined), undefined);
  });

  it("accepts the same major.minor, whatever the patch", () => {
    assert.equal(versionMismatch("0.2.0", "0.2.0", "/v/bin/python"), undefined);
    assert.equal(versionMismatch("0.2.0", "0.2.3", "/v/bin/python"), undefined);
    assert.equal(versionMismatch("0.2.1", "0.2.0", "/v/bin/python"), undefined);
  });

  it("names both versions, the interpreter and what to do when they differ", () => {
    const older = versionMismatch("0.2.0", "0.1.0", "/v/bin/python");
    assert.ok(older);
    assert.match(older, /extension is 0\.2\.0/);
    assert.match(older, /\(\/v\/bin\/python\) is 0\.1\.0/);
    assert.match(older, /Install miogen 0\.2 into that interpreter/);
    const newer = versionMismatch("0.2.0", "1.0.0", "/v/bin/python");
    assert.ok(newer);
    assert.match(newer, /Update the miogen extension to 1\.0/);
  });

  it("tells a fromEnvironment user to install the matching miogen or use the bundle", () => {
    const older = versionMismatch("0.2.0", "0.1.0", "/v/bin/python", "fromEnvironment");
    assert.ok(older);
    assert.match(older, /Install miogen 0\.2 into that interpreter, or set "miogen\.importStrategy" to "useBundled"/);
  });

  it("with the bundled server, blames what loads another miogen ahead of the bundle, not the user's install", () => {
    assert.equal(versionMismatch("0.2.0", "0.2.1", "/v/bin/python", "useBundled"), undefined);
    const message = versionMismatch("0.2.0", "0.1.0", "/v/bin/python", "useBundled");
    assert.ok(message);
    assert.match(message, /its bundled server, started with \/v\/bin\/python, reports 0\.1\.0/);
    assert.match(message, /"miogen\.importStrategy" to "fromEnvironment"/);
    assert.doesNotMatch(message, /Install miogen/);
  });

  it("does not judge a server that reports no version", () => {
    assert.equal(versionMismatch("0.2.0", undefined, "python3"), undefined);
    assert.equal(versionMismatch("0.2.0", "dev", "python3"), undefined);
  });
});
