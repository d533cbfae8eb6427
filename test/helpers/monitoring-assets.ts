import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

/** The monitoring files the repository ships (deploy/prometheus, deploy/grafana). */
const ROOT = path.resolve(__dirname, '../..');
export const RULES_FILE = path.join(ROOT, 'deploy/prometheus/rules.yml');
export const DASHBOARD_FILE = path.join(ROOT, 'deploy/grafana/rvs.json');

export interface DashboardPanel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: { expr: string; refId: string; datasource?: { type: string; uid: string } }[];
}

export function loadDashboard(): { title: string; uid: string; schemaVersion: number; panels: DashboardPanel[]; templating: { list: { name: string }[] } } {
  return JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8'));
}

export interface RuleGroup {
  name: string;
  rules: ({ record: string; expr: string } | { alert: string; expr: string; for?: string; labels?: Record<string, string> })[];
}

export function loadRuleGroups(): RuleGroup[] {
  return (parseYaml(readFileSync(RULES_FILE, 'utf8')) as { groups: RuleGroup[] }).groups;
}

/** Every PromQL expression of the dashboard's panels and of the rules. */
export function shippedExpressions(): string[] {
  const dashboard = loadDashboard().panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
  const rules = loadRuleGroups().flatMap((g) => g.rules.map((r) => r.expr));
  return [...dashboard, ...rules];
}

const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);

/**
 * The metric names a PromQL expression selects (recording-rule names, with a colon, included),
 * histogram series reduced to their family (`_bucket`, `_sum`, `_count` dropped). A bounded scan of
 * our own files, not a PromQL parser: strings, label matchers, ranges and grouping clauses are cut
 * out first, then every identifier not called as a function nor a keyword is a metric name.
 */
export function metricNamesOf(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const after = stripped.slice(match.index + match[0].length).trimStart();
    if (after.startsWith('(') || KEYWORDS.has(match[0])) continue;
    names.add(match[0].replace(/_(bucket|sum|count)$/, ''));
  }
  return [...names];
}
