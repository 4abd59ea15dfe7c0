import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { httpMetrics, serveMetrics } from '../../../src/api';
import { freePort } from '../../../src/net/free-port';
import { PROJECT_ROOT } from '../../../src/paths';
import { installTemporalRuntime, serveWorkerHttp, workerMetrics } from '../../../src/worker/telemetry';
import { eventually } from '../../support/helpers';
import { messageSentAndAssignmentExpiring, startTestStack, type TestStack } from '../../support/stack';

/**
 * The Grafana dashboard and the Prometheus alert rules in deploy/ use only metrics the processes export:
 * the API's metrics port, and the worker's /metrics with the Temporal SDK's own metrics in it, scraped
 * after a message was sent and an assignment expired (so the SDK has recorded what it only reports once seen).
 */
const dashboard = JSON.parse(readFileSync(join(PROJECT_ROOT, 'deploy/grafana/crm-messaging.json'), 'utf8'));
const alerts = yaml.load(readFileSync(join(PROJECT_ROOT, 'deploy/prometheus/alerts.yml'), 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] };
/** Prometheus's own, for every scrape target: the only metric the rules use that no process exports. */
const SCRAPE_METRICS = ['up'];
const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset']);

/** The metric names a PromQL expression reads: what is left once strings, matchers, ranges, groupings and functions are gone. */
function metricsIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  return [...bare.matchAll(/(?<![\w:.$])([A-Za-z_:][\w:]*)(?![\w:]|\s*\()/g)].map((m) => m[1]).filter((word) => !PROMQL_WORDS.has(word));
}

interface Panel {
  targets?: { expr: string }[];
  /** A row's panels. */
  panels?: Panel[];
}
function dashboardExprs(): string[] {
  const panels = (dashboard.panels as Panel[]).flatMap((panel) => [panel, ...(panel.panels ?? [])]);
  return panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
}
const alertExprs = () => alerts.groups.flatMap((group) => group.rules.map((rule) => rule.expr));

/** Every sample name of a Prometheus text exposition, plus the series a histogram or summary declares. */
function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const declared = /^# TYPE (\S+) (\S+)/.exec(line);
    if (declared) {
      names.add(declared[1]);
      if (declared[2] === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${declared[1]}${suffix}`);
      if (declared[2] === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${declared[1]}${suffix}`);
    } else if (line && !line.startsWith('#')) names.add(line.split(/[{ ]/)[0]);
  }
  return names;
}

let stack: TestStack;
let sdkMetricsUrl: string;
beforeAll(async () => {
  const address = `127.0.0.1:${await freePort()}`;
  installTemporalRuntime(address);
  sdkMetricsUrl = `http://${address}/metrics`;
  stack = await startTestStack();
});
afterAll(() => stack.stop());

test('every metric the dashboard and the alert rules use is one the API or the worker exports', async () => {
  // Work that makes the SDK record its metrics: a message's workflow task, and an expiry run woken from its sleep (a sticky cache hit).
  const token = stack.token('ops-user');
  const { assigned } = await messageSentAndAssignmentExpiring(stack, token, 'metrics');
  expect(assigned.status).toBe(200);

  const api = httpMetrics();
  const apiMetrics = await serveMetrics(api.registry, 0);
  const worker = await serveWorkerHttp({ port: 0, metrics: workerMetrics(stack.prisma).registry, sdkMetricsUrl, running: () => true });
  try {
    const scrape = async (port: number) => exportedNames(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
    const exported = await eventually(async () => {
      const names = new Set([...(await scrape(apiMetrics.port)), ...(await scrape(worker.port)), ...SCRAPE_METRICS]);
      return names.has('temporal_sticky_cache_hit') ? names : undefined;
    });

    const used = [...dashboardExprs(), ...alertExprs()].flatMap(metricsIn);
    expect(used.filter((name) => !exported.has(name))).toEqual([]);
    // What the issue asks the two files to show and watch.
    expect(new Set(dashboardExprs().flatMap(metricsIn))).toEqual(
      new Set([
        'http_requests_total',
        'http_request_duration_seconds_bucket',
        'crm_messages',
        'crm_message_delivery_lateness_seconds_bucket',
        'crm_webhook_deliveries_pending',
        'crm_webhook_oldest_pending_delivery_age_seconds',
        'temporal_workflow_task_schedule_to_start_latency_bucket',
        'temporal_sticky_cache_hit',
        'temporal_sticky_cache_size',
      ]),
    );
    expect(alerts.groups.flatMap((group) => group.rules.map((rule) => rule.alert))).toEqual(['CrmDeliveryLatenessP99High', 'CrmWebhookBacklogGrowing', 'CrmApi5xxRate', 'CrmWorkerDown']);
  } finally {
    await apiMetrics.stop();
    await worker.stop();
  }
});

test('the check can fail: the names are read out of PromQL, and a name no process exports is found', () => {
  expect(metricsIn('histogram_quantile(0.99, sum by (le) (rate(crm_x_bucket{job="a", s=~"5.."}[$__rate_interval]))) > 60 and up == 0 or absent(up{job="w"})')).toEqual([
    'crm_x_bucket',
    'up',
    'up',
  ]);
  expect(exportedNames('# HELP a_seconds t\n# TYPE a_seconds histogram\nb_total{x="1"} 3\n')).toEqual(new Set(['a_seconds', 'a_seconds_bucket', 'a_seconds_sum', 'a_seconds_count', 'b_total']));
});
