import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as acknowledgements from '../../../services/acknowledgements';
import { paginationQuery } from '../../../services/pagination';
import { ctxOf } from '../../auth';
import { exact } from '../shared/exact';
import { operation } from '../shared/operation';
import { Acknowledgement, AcknowledgementPage, acknowledgementParams, oneAcknowledgementParams } from './schemas';

/** Acknowledgements of a run: a person saw its failure (runs.acknowledged_count counts them). */
export const acknowledgementRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/runs/:runId/acknowledgements',
    operation({
      method: 'POST',
      scope: 'runs:write',
      operationId: 'acknowledgeRun',
      summary: 'Acknowledge a failed run',
      description:
        'Records who (the credential), when and a note. While a failure of a suite\'s current failing streak is acknowledged, its `verdict.failed` webhooks are not sent again, until the suite passes.',
      tag: 'runs',
      params: acknowledgementParams,
      body: acknowledgements.acknowledgeRunInput,
      success: { status: 201, description: 'the acknowledgement', schema: Acknowledgement },
      errors: {
        409: [
          '`run_not_finished`: the run has not finished yet',
          '`conflict`: the run\'s verdict passed',
          `\`conflict\`: the run already has ${acknowledgements.MAX_ACKNOWLEDGEMENTS_PER_RUN} acknowledgements (the most a run has)`,
        ],
      },
    }),
    async (request, reply) => {
      const ack = await acknowledgements.acknowledgeRun({ ctx: ctxOf(request), input: { runId: request.params.runId, body: request.body } });
      return reply.code(201).header('location', `/v1/runs/${ack.run_id}/acknowledgements/${ack.id}`).send(exact(Acknowledgement, ack));
    },
  );

  app.get(
    '/v1/runs/:runId/acknowledgements',
    operation({
      method: 'GET',
      scope: 'runs:read',
      operationId: 'listRunAcknowledgements',
      summary: 'Acknowledgements of a run, newest first',
      tag: 'runs',
      params: acknowledgementParams,
      querystring: paginationQuery,
      success: { status: 200, description: 'a page of acknowledgements', schema: AcknowledgementPage },
    }),
    async (request) => exact(AcknowledgementPage, await acknowledgements.listRunAcknowledgements({ ctx: ctxOf(request), input: { ...request.params, ...request.query } })),
  );

  app.get(
    '/v1/runs/:runId/acknowledgements/:acknowledgementId',
    operation({
      method: 'GET',
      scope: 'runs:read',
      operationId: 'getRunAcknowledgement',
      summary: 'Get an acknowledgement of a run',
      tag: 'runs',
      params: oneAcknowledgementParams,
      success: { status: 200, description: 'the acknowledgement', schema: Acknowledgement },
    }),
    async (request) => exact(Acknowledgement, await acknowledgements.getRunAcknowledgement({ ctx: ctxOf(request), input: request.params })),
  );
};
