import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { allColorIds, DEFAULT_MARK_STYLE, MARK_KINDS, MARK_STYLES, markLook } from "../common/markStyle";
import { DEFAULT_SETTINGS } from "../common/settings";

const manifest = JSON.parse(readFileSync(path.resolve(__dirname, "..", "..", "package.json"), "utf8"));
const contributed = new Map<string, Record<string, string>>(
  manifest.contributes.colors.map((c: { id: string; defaults: Record<string, string> }) => [c.id, c.defaults]),
);

describe("mark styles", () => {
  it("leave the breakpoint gutter free by default", () => {
    assert.equal(DEFAULT_MARK_STYLE, "line");
    assert.equal(DEFAULT_SETTINGS.gutterStyle, "line");
    for (const kind of MARK_KINDS) {
      const look = markLook(DEFAULT_MARK_STYLE, kind);
      assert.equal(look.gutterIcon, undefined, kind);
      assert.ok(look.backgroundColor, kind);
    }
    for (const kind of MARK_KINDS) assert.equal(markLook("ruler", kind).gutterIcon, undefined);
  });

  it("put icons in the gutter only when asked, each with its SVG", () => {
    for (const kind of MARK_KINDS) assert.equal(markLook("gutter", kind).gutterIcon, `${kind}.svg`);
  });

  it("always mark the overview ruler", () => {
    for (const style of MARK_STYLES) for (const kind of MARK_KINDS) assert.match(markLook(style, kind).rulerColor, /^miogen\./);
  });
});

describe("theme colours", () => {
  it("are contributed in package.json for dark, light and both high-contrast themes", () => {
    const ids = allColorIds();
    assert.equal(ids.length, 12);
    for (const id of ids) {
      const defaults = contributed.get(id);
      assert.ok(defaults, `${id} is contributed`);
      for (const theme of ["dark", "light", "highContrast", "highContrastLight"]) {
        assert.match(defaults[theme] ?? "", /^#[0-9a-f]{6}([0-9a-f]{2})?$/i, `${id} ${theme}`);
      }
    }
    assert.equal(contributed.size, ids.length, "no colour is contributed without use");
  });

  it("draw a visible border on partial and uncovered lines in high-contrast themes only", () => {
    for (const kind of ["partial", "uncovered"]) {
      const border = contributed.get(`miogen.${kind}LineBorder`)!;
      assert.equal(border.dark, "#00000000");
      assert.equal(border.light, "#00000000");
      assert.match(border.highContrast, /^#[0-9a-f]{6}$/i);
      assert.match(border.highContrastLight, /^#[0-9a-f]{6}$/i);
    }
  });

  it("make high-contrast ruler marks opaque", () => {
    for (const kind of MARK_KINDS) {
      const ruler = contributed.get(`miogen.${kind}LineRuler`)!;
      assert.match(ruler.highContrast, /^#[0-9a-f]{6}$/i, kind);
    }
  });
});
