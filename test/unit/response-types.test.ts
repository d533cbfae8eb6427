import Fastify from 'fastify';
import { serializerCompiler, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validatorCompiler } from '../../src/http/error-handler';
import { Run } from '../../src/http/routes/runs/schemas';
import { exact } from '../../src/http/routes/shared/exact';
import { operation } from '../../src/http/routes/shared/operation';
import type { RunResponse } from '../../src/services/runs/present';

/*
 * Response types bound to their schemas, checked by the compiler: `npm run typecheck` covers this
 * file, and every `@ts-expect-error` below fails the typecheck if its line ever compiles (a
 * presenter lacking a field, misspelling one, answering a loose `string` for an enum, or carrying
 * a field its schema lacks). The runtime tests show what each would otherwise be.
 */

const Thing = z.object({
  id: z.string(),
  status: z.enum(['queued', 'done']),
  items: z.array(z.object({ name: z.string(), size: z.number().int() })),
  labels: z.record(z.string(), z.string()),
});

const get = (operationId: string) =>
  operation({ method: 'GET', scope: 'public', operationId, summary: operationId, tag: 'meta', success: { status: 200, description: 'a thing', schema: Thing } });

const complete = () => ({ id: 't1', status: 'done' as const, items: [{ name: 'a', size: 1 }], labels: { any: 'key' } });
const lacking = () => ({ id: 't1', status: 'done' as const, labels: {} });
const misspelled = () => ({ id: 't1', status: 'done' as const, itmes: [], labels: {} });
const looseStatus = (): { id: string; status: string; items: []; labels: Record<string, string> } => ({ id: 't1', status: 'done', items: [], labels: {} });
const surplus = () => ({ ...complete(), secret: 'must not leave' });
const nestedSurplus = () => ({ ...complete(), items: [{ name: 'a', size: 1, secret: 'must not leave' }] });

const routes: FastifyPluginAsyncZod = async (app) => {
  app.get('/complete', get('complete'), async () => exact(Thing, complete()));
  // @ts-expect-error a presenter lacking a field of the schema does not compile
  app.get('/lacking', get('lacking'), async () => lacking());
  // @ts-expect-error nor one that misspells a field
  app.get('/misspelled', get('misspelled'), async () => misspelled());
  // @ts-expect-error nor one typing an enum field as string
  app.get('/loose', get('loose'), async () => looseStatus());
  // Without exact(), a field the schema lacks compiles (the serializer strips it without a word)…
  app.get('/surplus', get('surplus'), async () => surplus());
  // @ts-expect-error …with it, it does not
  app.get('/surplus-exact', get('surplusExact'), async () => exact(Thing, surplus()));
  // @ts-expect-error at any depth, arrays included
  app.get('/nested-surplus-exact', get('nestedSurplusExact'), async () => exact(Thing, nestedSurplus()));
};

/** The run presenter's type against the Run component, both ways. */
export function runPresenterBound(run: RunResponse) {
  exact(Run, run);
  const withoutLink: Omit<RunResponse, 'dashboard_url'> = run;
  // @ts-expect-error the run presenter without a field of Run
  exact(Run, withoutLink);
  // @ts-expect-error the run presenter with a field Run lacks
  exact(Run, { ...run, workflow_started_at: new Date() });
  // @ts-expect-error a target's field Run lacks
  exact(Run, { ...run, targets: run.targets.map((t) => ({ ...t, url_encrypted: 'x' })) });
}

describe('response types bound to their schemas', () => {
  it('exact() returns its value as it is', () => {
    const value = complete();
    expect(exact(Thing, value)).toBe(value);
  });

  it('what the compiler refuses above is, at run time, a 500 or a silently dropped field', async () => {
    const app = Fastify({ logger: false });
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await app.register(routes);
    const answer = async (url: string) => app.inject({ method: 'GET', url });
    expect((await answer('/complete')).statusCode).toBe(200);
    for (const url of ['/lacking', '/misspelled']) expect((await answer(url)).statusCode).toBe(500);
    const surplusAnswer = await answer('/surplus');
    expect(surplusAnswer.statusCode).toBe(200);
    expect(surplusAnswer.body).not.toContain('secret');
    await app.close();
  });
});
