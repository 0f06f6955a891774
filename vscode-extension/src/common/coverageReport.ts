/**
 * coverage.py's JSON report (format 3, `coverage json`) as what VS Code's Test Coverage API shows:
 * per file, statements with their branches (coverage.py's arcs from that line) and declarations
 * (functions and methods, when the report has `start_line`, coverage.py 7.6+).
 */

export interface BranchDetail {
  executed: boolean;
  /** 0-based line the branch jumps to; undefined when it leaves the function. */
  toLine?: number;
  label: string;
}

export interface StatementDetail {
  /** 0-based. */
  line: number;
  executed: boolean;
  branches: BranchDetail[];
}

export interface DeclarationDetail {
  name: string;
  /** 0-based line of its `def`. */
  line: number;
  executed: boolean;
}

export interface FileCoverageData {
  /** As the report names it (relative to where `coverage json` ran, or absolute). */
  path: string;
  statements: StatementDetail[];
  declarations: DeclarationDetail[];
  covered: number;
  total: number;
  coveredBranches: number;
  totalBranches: number;
}

interface RawFunction {
  executed_lines?: number[];
  start_line?: number;
}

interface RawFile {
  executed_lines?: number[];
  missing_lines?: number[];
  executed_branches?: [number, number][];
  missing_branches?: [number, number][];
  functions?: Record<string, RawFunction>;
}

/** Parses the report; throws with a clear message if it is not coverage.py's JSON. */
export function parseCoverageJson(text: string): FileCoverageData[] {
  const report = JSON.parse(text) as { files?: Record<string, RawFile> };
  if (!report || typeof report.files !== "object") throw new Error("not a coverage.py JSON report (no 'files')");
  return Object.entries(report.files).map(([path, raw]) => fileData(path, raw));
}

function fileData(path: string, raw: RawFile): FileCoverageData {
  const executed = new Set(raw.executed_lines ?? []);
  const lines = [...executed, ...(raw.missing_lines ?? [])].sort((a, b) => a - b);
  const branches = new Map<number, BranchDetail[]>();
  const addArcs = (arcs: [number, number][] | undefined, taken: boolean) => {
    for (const [from, to] of arcs ?? []) {
      const list = branches.get(from) ?? [];
      list.push({ executed: taken, toLine: to > 0 ? to - 1 : undefined, label: branchLabel(to) });
      branches.set(from, list);
    }
  };
  addArcs(raw.executed_branches, true);
  addArcs(raw.missing_branches, false);
  const statements = lines.map((line) => ({
    line: line - 1,
    executed: executed.has(line),
    branches: (branches.get(line) ?? []).sort((a, b) => (a.toLine ?? Infinity) - (b.toLine ?? Infinity)),
  }));
  const allBranches = [...branches.values()].flat();
  return {
    path,
    statements,
    declarations: declarations(raw.functions ?? {}),
    covered: executed.size,
    total: lines.length,
    coveredBranches: allBranches.filter((b) => b.executed).length,
    totalBranches: allBranches.length,
  };
}

function branchLabel(to: number): string {
  return to > 0 ? `jump to line ${to}` : "exit from the function";
}

function declarations(functions: Record<string, RawFunction>): DeclarationDetail[] {
  return Object.entries(functions)
    .filter(([name, fn]) => name !== "" && typeof fn.start_line === "number")
    .map(([name, fn]) => ({ name, line: fn.start_line! - 1, executed: (fn.executed_lines ?? []).length > 0 }))
    .sort((a, b) => a.line - b.line);
}

/** The span to highlight for a statement: from its first non-blank character to the end of its line. */
export function lineSpan(lines: readonly string[], line: number): { start: number; end: number } {
  const text = lines[line] ?? "";
  const start = text.length - text.trimStart().length;
  return { start, end: Math.max(start, text.trimEnd().length) };
}
