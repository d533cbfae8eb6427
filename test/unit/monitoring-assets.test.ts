import { describe, expect, it } from 'vitest';
import { loadDashboard, loadRuleGroups, metricNamesOf, shippedExpressions } from '../helpers/monitoring-assets';

describe('metricNamesOf', () => {
  it.each([
    ['sum by (status, verdict) (rate(rvs_runs_finished_total{job=~"$worker_job"}[$__rate_interval])) * 60', ['rvs_runs_finished_total']],
    ['histogram_quantile(0.95, sum by (le) (rate(temporal_activity_schedule_to_start_latency_seconds_bucket{job="w"}[5m])))', ['temporal_activity_schedule_to_start_latency_seconds']],
    ['rvs:runs_infra_failed:ratio_rate30m > 0.1 and sum(increase(rvs_runs_finished_total{status="failed"}[30m])) >= 3', ['rvs:runs_infra_failed:ratio_rate30m', 'rvs_runs_finished_total']],
    ['absent(up{job="rvs-worker"} == 1)', ['up']],
    ['a / on (instance) group_left (x) b', ['a', 'b']],
  ])('%s', (expr, names) => {
    expect(metricNamesOf(expr).sort()).toEqual([...names].sort());
  });
});

describe('deploy/grafana/rvs.json', () => {
  const dashboard = loadDashboard();

  it('is a Grafana dashboard model: title, uid, schema version, unique panel ids inside the 24-column grid', () => {
    expect(dashboard.title).toBe('Run Verification Service');
    expect(dashboard.uid).toMatch(/^[a-z0-9-]{1,40}$/);
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels) {
      expect(['row', 'timeseries', 'stat', 'gauge', 'table']).toContain(panel.type);
      expect(panel.title.length).toBeGreaterThan(0);
      expect(panel.gridPos.x + panel.gridPos.w).toBeLessThanOrEqual(24);
    }
  });

  it('queries through the datasource variable, every target with a distinct refId and an expression', () => {
    const variables = dashboard.templating.list.map((v) => v.name);
    for (const panel of dashboard.panels.filter((p) => p.type !== 'row')) {
      expect(panel.targets!.length, panel.title).toBeGreaterThan(0);
      expect(new Set(panel.targets!.map((t) => t.refId)).size).toBe(panel.targets!.length);
      for (const target of panel.targets!) {
        expect(target.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
        expect(metricNamesOf(target.expr).length, target.expr).toBeGreaterThan(0);
        for (const used of target.expr.matchAll(/\$(\w+)/g)) {
          if (used[1] !== '__rate_interval') expect(variables, target.expr).toContain(used[1]);
        }
      }
    }
  });
});

describe('deploy/prometheus/rules.yml', () => {
  it('uses only recording rules it defines (names with a colon)', () => {
    const recorded = new Set(loadRuleGroups().flatMap((g) => g.rules.flatMap((r) => ('record' in r ? [r.record] : []))));
    for (const expr of shippedExpressions()) {
      for (const name of metricNamesOf(expr).filter((n) => n.includes(':'))) expect(recorded, name).toContain(name);
    }
  });
});
