/**
 * The gutter model of one document: the server's last `miogen/coverage` result, moved along with the
 * user's edits since, as lines to mark (covered / partial / uncovered / stale) with hover texts.
 *
 * Results can lag behind the text: a result is for document version V, and the edits made after V are
 * replayed on top of it. An edit inside a unit's range makes that unit stale at once (its marks are
 * dropped and its range greyed) until a result for a version that includes the edit arrives; edits
 * elsewhere only shift the marks below them. This module has no VS Code dependency so it can be unit-tested.
 */

import type { CoverageParams, CoverageUnit, MissingBranch, Range, UnitState } from "./protocol";

/** Lines `startLine..endLine` (0-based, inclusive) replaced by text holding `newLineCount` line breaks. */
export interface TextChange {
  startLine: number;
  endLine: number;
  newLineCount: number;
}

export interface LineMark {
  line: number;
  /** Markdown. */
  hover: string;
}

export interface StaleSpan {
  unit: string;
  startLine: number;
  endLine: number;
  hover: string;
}

export interface CoverageMarks {
  covered: number[];
  partial: LineMark[];
  uncovered: LineMark[];
  stale: StaleSpan[];
}

export interface UnitView {
  name: string;
  kind: CoverageUnit["kind"];
  startLine: number;
  /** Last line of the unit, inclusive. */
  endLine: number;
  covered: number;
  total: number;
  state: UnitState;
  /** Edited here since the result the state comes from. */
  editedLocally: boolean;
}

export interface CoverageSummary {
  /** Over the units with a current result. */
  covered: number;
  total: number;
  units: number;
  /** Units edited since their last result. */
  stale: number;
}

interface View {
  covered: Set<number>;
  partial: Set<number>;
  uncovered: Set<number>;
  missing: MissingBranch[];
  units: UnitView[];
}

interface LocalEdit {
  version: number | undefined;
  changes: readonly TextChange[];
}

/** The last line a range covers: a range ending at character 0 of line n stops on line n - 1. */
export function lastLine(range: Range): number {
  return range.end.character === 0 && range.end.line > range.start.line ? range.end.line - 1 : range.end.line;
}

export class CoverageDocument {
  private base: CoverageParams | undefined;
  private edits: LocalEdit[] = [];
  private view: View = emptyView();

  constructor(readonly uri: string) {}

  get hasResult(): boolean {
    return this.base !== undefined;
  }

  /** Takes a server result; local edits newer than its version stay applied on top of it. */
  update(params: CoverageParams): void {
    const version = params.version ?? undefined;
    this.base = params;
    this.edits =
      version === undefined ? [] : this.edits.filter((edit) => edit.version !== undefined && edit.version > version);
    this.view = viewOf(params);
    for (const edit of this.edits) {
      for (const change of edit.changes) applyChange(this.view, change);
    }
  }

  /** Records a local edit (the changes of one `onDidChangeTextDocument`, in the order given). */
  edit(version: number | undefined, changes: readonly TextChange[]): boolean {
    if (!this.base || changes.length === 0) return false;
    this.edits.push({ version, changes });
    for (const change of changes) applyChange(this.view, change);
    return true;
  }

  units(): readonly UnitView[] {
    return this.view.units;
  }

  marks(): CoverageMarks {
    const { covered, partial, uncovered, missing, units } = this.view;
    const partialMarks = [...partial].sort(byNumber).map((line) => ({ line, hover: partialHover(line, missing) }));
    const uncoveredMarks = [...uncovered]
      .filter((line) => !partial.has(line))
      .sort(byNumber)
      .map((line) => ({ line, hover: uncoveredHover(line, missing, unitHolding(units, line)) }));
    return {
      covered: [...covered].filter((line) => !partial.has(line) && !uncovered.has(line)).sort(byNumber),
      partial: partialMarks,
      uncovered: uncoveredMarks,
      stale: units.filter(isStale).map((unit) => ({
        unit: unit.name,
        startLine: unit.startLine,
        endLine: unit.endLine,
        hover: staleHover(unit),
      })),
    };
  }

  /**
   * Branches covered / total over the units with a current result; units out of date since an edit are
   * counted apart (`stale`), since their figures no longer describe the code. Undefined when no unit has
   * a result.
   */
  summary(): CoverageSummary | undefined {
    const stale = this.view.units.filter(isStale).length;
    const fresh = this.view.units.filter((unit) => !isStale(unit) && unit.total > 0 && unit.state !== "none");
    if (fresh.length === 0 && stale === 0) return undefined;
    return {
      covered: fresh.reduce((sum, unit) => sum + unit.covered, 0),
      total: fresh.reduce((sum, unit) => sum + unit.total, 0),
      units: fresh.length,
      stale,
    };
  }
}

export function isStale(unit: UnitView): boolean {
  return unit.editedLocally || unit.state === "stale";
}

function emptyView(): View {
  return { covered: new Set(), partial: new Set(), uncovered: new Set(), missing: [], units: [] };
}

function viewOf(params: CoverageParams): View {
  const view: View = {
    covered: new Set(params.lines?.covered ?? []),
    partial: new Set(params.lines?.partial ?? []),
    uncovered: new Set(params.lines?.uncovered ?? []),
    missing: (params.missing ?? []).map((m) => ({ ...m })),
    units: (params.units ?? []).map((unit) => ({
      name: unit.name,
      kind: unit.kind,
      startLine: unit.range.start.line,
      endLine: lastLine(unit.range),
      covered: unit.covered ?? 0,
      total: unit.total ?? 0,
      state: unit.state ?? "none",
      editedLocally: false,
    })),
  };
  for (const unit of view.units.filter(isStale)) dropLinesOf(view, unit);
  return view;
}

/** Moves every mark after the change by the change's line delta; an edited unit turns stale. */
function applyChange(view: View, change: TextChange): void {
  const { startLine, endLine, newLineCount } = change;
  const delta = newLineCount - (endLine - startLine);
  const move = (line: number): number | undefined =>
    line < startLine ? line : line > endLine ? line + delta : undefined;

  for (const key of ["covered", "partial", "uncovered"] as const) {
    const moved = new Set<number>();
    for (const line of view[key]) {
      const to = move(line);
      if (to !== undefined) moved.add(to);
    }
    view[key] = moved;
  }
  view.missing = view.missing.flatMap((m) => {
    const to = move(m.line);
    return to === undefined ? [] : [{ ...m, line: to }];
  });
  for (const unit of view.units) {
    if (unit.endLine < startLine) continue;
    if (unit.startLine > endLine) {
      unit.startLine += delta;
      unit.endLine += delta;
      continue;
    }
    unit.editedLocally = true;
    unit.startLine = Math.min(unit.startLine, startLine);
    unit.endLine = Math.max(unit.startLine, unit.endLine > endLine ? unit.endLine + delta : startLine + newLineCount);
    dropLinesOf(view, unit);
  }
}

function dropLinesOf(view: View, unit: UnitView): void {
  const inside = (line: number) => line >= unit.startLine && line <= unit.endLine;
  for (const key of ["covered", "partial", "uncovered"] as const) {
    for (const line of [...view[key]]) if (inside(line)) view[key].delete(line);
  }
}

function unitHolding(units: readonly UnitView[], line: number): UnitView | undefined {
  return units.find((unit) => line >= unit.startLine && line <= unit.endLine);
}

function byNumber(a: number, b: number): number {
  return a - b;
}

/** Inline code that survives backticks inside the text. */
export function inlineCode(text: string): string {
  const fence = text.includes("`") ? "``" : "`";
  return `${fence}${fence === "``" ? " " : ""}${text}${fence === "``" ? " " : ""}${fence}`;
}

function describe(m: MissingBranch): string {
  return m.closestMiss ? `${m.description} — closest miss: ${inlineCode(m.closestMiss)}` : m.description;
}

function partialHover(line: number, missing: readonly MissingBranch[]): string {
  const here = missing.filter((m) => m.line === line);
  if (here.length === 0) return "**miogen** · partially covered: a branch on this line is never taken by the generated tests.";
  if (here.length === 1) return `**miogen** · branch not covered: ${describe(here[0])}`;
  return ["**miogen** · branches not covered:", ...here.map((m) => `- ${describe(m)}`)].join("\n");
}

/** For a line never run: the branches missed on it, else the nearest missed branch above it in its unit. */
function uncoveredHover(line: number, missing: readonly MissingBranch[], unit: UnitView | undefined): string {
  const here = missing.filter((m) => m.line === line);
  if (here.length > 0) {
    return ["**miogen** · line not run by the generated tests. Missing:", ...here.map((m) => `- ${describe(m)}`)].join("\n");
  }
  const above = missing
    .filter((m) => m.line < line && (!unit || m.line >= unit.startLine))
    .sort((a, b) => b.line - a.line)[0];
  if (above) {
    return `**miogen** · line not run by the generated tests. Missing branch (line ${above.line + 1}): ${describe(above)}`;
  }
  return "**miogen** · line not run by the generated tests.";
}

function staleHover(unit: UnitView): string {
  return `**miogen** · \`${unit.name}\` changed since its last result; its coverage is out of date until the next one.`;
}
