import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { forbidden } from '../../../errors';
import type { Deps } from '../../../services/context';
import { dashboardAccessAllowed, dashboardTenantEnabled, getDashboardData, getDashboardHeads, getDashboardSuiteTrend } from '../../../services/dashboard';
import { listHeadsQuery } from '../../../services/runs/heads';
import { HeadArrivalPage } from '../runs/schemas';
import { limitDashboardRequest } from '../../rate-limit';
import { exact } from '../shared/exact';
import { operation } from '../shared/operation';
import { DashboardData, DashboardSuiteTrend } from './schemas';

/** The page's static files (src/dashboard/), read once at startup and served from memory. */
const ASSET_DIR = path.join(__dirname, '..', '..', '..', 'dashboard');

/**
 * Only our own origin, and no inline code at all: the data shown comes from endpoint names, run
 * metadata and node responses, so even a missed escape must not be able to run a script.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The token is in the URL: no referrer, no cache, no framing, no sniffing. */
const PAGE_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'x-robots-tag': 'noindex, nofollow',
};

interface Asset {
  url: string;
  contentType: string;
  body: string;
}

function loadAsset(file: string, contentType: string): Asset {
  const body = readFileSync(path.join(ASSET_DIR, file), 'utf8');
  // The content hash in the URL lets browsers cache an asset without ever using a stale one.
  const version = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { url: `/dashboard/assets/${file}?v=${version}`, contentType, body };
}

const CONTENT_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

/**
 * Reads a page and the assets it names as `{{asset:file}}` (a file of src/dashboard/), replacing
 * each with the asset's versioned URL. The pages are the list of what is served: the run page's
 * script tags are its modules in load order, one per verdict check among them.
 */
function loadPage(file: string, assets: Map<string, Asset>): string {
  return readFileSync(path.join(ASSET_DIR, file), 'utf8').replace(/\{\{asset:([^}]*)\}\}/g, (_whole, name: string) => {
    let asset = assets.get(name);
    if (!asset) {
      const extension = /^[a-z0-9-]+\.(js|css|svg)$/.exec(name)?.[1];
      if (!extension) throw new Error(`${file} names an asset that is not a .js, .css or .svg file of src/dashboard: ${name}`);
      asset = loadAsset(name, CONTENT_TYPES[extension]!);
      assets.set(name, asset);
    }
    return asset.url;
  });
}

function tokenOf(request: FastifyRequest): unknown {
  return (request.query as Record<string, unknown> | undefined)?.token;
}

/**
 * The run dashboard: an HTML page, its scripts and stylesheet, and the JSON it renders. The link's
 * token is the only credential (routes are `scope: 'public'` for the API-key hook); it is signed
 * for one run and expires (services/dashboard-token.ts).
 */
export const dashboardRoutes: FastifyPluginAsyncZod<{ deps: Deps }> = async (app, { deps }) => {
  const assets = new Map<string, Asset>();
  const page = loadPage('dashboard.html', assets);
  const suitePage = loadPage('suite.html', assets);
  const forbiddenPage = loadPage('forbidden.html', assets);

  const secureHeaders = async (_request: FastifyRequest, reply: FastifyReply) => {
    void reply.headers(PAGE_HEADERS);
  };
  // Links are public (pasted into pull requests) and each data poll runs ~10 aggregate queries.
  // An onRequest hook: it runs before the params are validated.
  const rateLimit = async (request: FastifyRequest, reply: FastifyReply) => {
    const token = tokenOf(request);
    const { runId } = request.params as { runId: string };
    const verified = typeof token === 'string' && dashboardAccessAllowed(deps, runId, token) ? runId : null;
    await limitDashboardRequest(deps, request, reply, deps.config.rateLimits, verified);
  };
  const hidden = { hide: true } as Record<string, unknown>;

  for (const asset of assets.values()) {
    app.get(asset.url.split('?')[0]!, { config: { scope: 'public' }, schema: hidden }, async (_request, reply) =>
      reply
        .headers({ 'x-content-type-options': 'nosniff', 'cross-origin-resource-policy': 'same-origin' })
        .header('cache-control', 'public, max-age=3600')
        .type(asset.contentType)
        .send(asset.body),
    );
  }

  // The run page, and the suite page of a run's link (the trend of that run's suite, authorised by
  // the same token). Neither page carries data: its script fetches it with the token.
  for (const [url, html] of [
    ['/dashboard/runs/:runId', page],
    ['/dashboard/runs/:runId/suite', suitePage],
  ] as const) {
    app.get<{ Params: { runId: string } }>(
      url,
      { config: { scope: 'public' }, schema: hidden, onRequest: [secureHeaders, rateLimit] },
      async (request, reply) => {
        const allowed = dashboardAccessAllowed(deps, request.params.runId, tokenOf(request));
        // A valid link of a disabled tenant's run: 401 like every other credential of that tenant.
        const status = !allowed ? 403 : (await dashboardTenantEnabled(deps, request.params.runId)) ? 200 : 401;
        return reply
          .code(status)
          .type('text/html; charset=utf-8')
          .send(status === 200 ? html : forbiddenPage);
      },
    );
  }

  // Any string: a run id that is not a UUID is answered like any other link that is not valid (403).
  const params = z.object({ runId: z.string().meta({ format: 'uuid' }).describe('the run the link was signed for') });
  const dashboardHooks = { onRequest: [secureHeaders, rateLimit] };

  app.get(
    '/dashboard/api/runs/:runId/suite',
    {
      ...operation({
        method: 'GET',
        scope: 'public',
        dashboardLink: true,
        operationId: 'getDashboardSuiteTrend',
        summary: 'The trend of the run\'s suite, for the suite page',
        description:
          'Read by the page at /dashboard/runs/{runId}/suite?token=…, linked from the run page. The run\'s link token also ' +
          'authorises this: the last 100 finished runs of that run\'s suite (the suite is the run\'s own, never a parameter), ' +
          'each with a link to its own page (`run_links`), read-only and expiring with the token used.',
        tag: 'dashboard',
        params,
        success: { status: 200, description: 'the suite and its trend page', schema: DashboardSuiteTrend },
      }),
      ...dashboardHooks,
    },
    async (request) => {
      if (!dashboardAccessAllowed(deps, request.params.runId, tokenOf(request))) {
        throw forbidden('this dashboard link is invalid or has expired');
      }
      return exact(DashboardSuiteTrend, await getDashboardSuiteTrend(deps, request.params.runId, tokenOf(request) as string));
    },
  );

  // Loose: the link's token rides in the same query string (documented by the dashboardLink scheme).
  const headsQuery = listHeadsQuery
    .extend({
      target_id: listHeadsQuery.shape.target_id.describe('only heads of this target'),
    })
    .loose();
  app.get(
    '/dashboard/api/runs/:runId/heads',
    {
      ...operation({
        method: 'GET',
        scope: 'public',
        dashboardLink: true,
        operationId: 'getDashboardHeads',
        summary: 'The heads the run\'s head watch stored, for the run page\'s arrival-lag chart',
        description:
          'Read by the page at /dashboard/runs/{runId}?token=… when the run watched heads (config.freshness): the same pages as ' +
          '`GET /v1/runs/{runId}/heads`, authorised by the run\'s link token (read-only, expiring).',
        tag: 'dashboard',
        params,
        querystring: headsQuery,
        success: { status: 200, description: 'a page of head arrivals', schema: HeadArrivalPage },
      }),
      ...dashboardHooks,
    },
    async (request) => {
      if (!dashboardAccessAllowed(deps, request.params.runId, tokenOf(request))) {
        throw forbidden('this dashboard link is invalid or has expired');
      }
      const { limit, offset, target_id } = request.query;
      return exact(HeadArrivalPage, await getDashboardHeads(deps, request.params.runId, { limit, offset, target_id }));
    },
  );

  app.get(
    '/dashboard/api/runs/:runId',
    {
      ...operation({
        method: 'GET',
        scope: 'public',
        dashboardLink: true,
        operationId: 'getDashboardData',
        summary: 'Everything the run dashboard page shows',
        description:
          'Read by the page at /dashboard/runs/{runId}?token=…, the `dashboard_url` of a verdict. The token in that link is the ' +
          'only credential: signed for one run, read-only, expiring.',
        tag: 'dashboard',
        params,
        success: { status: 200, description: 'run, verdict (without dashboard_url), metrics and latency histogram', schema: DashboardData },
      }),
      ...dashboardHooks,
    },
    async (request) => {
      if (!dashboardAccessAllowed(deps, request.params.runId, tokenOf(request))) {
        throw forbidden('this dashboard link is invalid or has expired');
      }
      const data = await getDashboardData(deps, request.params.runId);
      return exact(DashboardData, data);
    },
  );
};
