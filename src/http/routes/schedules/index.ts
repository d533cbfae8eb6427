import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as schedules from '../../../services/schedules';
import { ctxOf } from '../../auth';
import { exact } from '../shared/exact';
import { operation } from '../shared/operation';
import { suiteParams } from '../suites/schemas';
import { ScheduleTriggered, SuiteSchedule } from './schemas';

const noSchedule = '`conflict`: the suite has no schedule';
const unavailable = '`service_unavailable`: Temporal could not be reached; nothing was changed';
const needsRuns = 'the credential lacks the scope `runs:write`: a schedule starts runs, so firing one needs it too';

/** A suite's schedule: pause, resume, fire now (the schedule itself is set on the suite). */
export const scheduleRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/suites/:suiteId/schedule/pause',
    operation({
      method: 'POST',
      scope: 'suites:write',
      operationId: 'pauseSuiteSchedule',
      summary: 'Pause a suite\'s schedule',
      tag: 'suites',
      params: suiteParams,
      success: { status: 200, description: 'the paused schedule', schema: SuiteSchedule },
      errors: { 409: [noSchedule], 503: [unavailable] },
    }),
    async (request) => exact(SuiteSchedule, await schedules.setPaused({ ctx: ctxOf(request), input: { suiteId: request.params.suiteId, paused: true } })),
  );
  app.post(
    '/v1/suites/:suiteId/schedule/resume',
    operation({
      method: 'POST',
      scope: 'suites:write',
      operationId: 'resumeSuiteSchedule',
      summary: 'Resume a suite\'s paused schedule',
      description: 'Needs `runs:write` as well as `suites:write`: a running schedule starts runs.',
      tag: 'suites',
      params: suiteParams,
      success: { status: 200, description: 'the running schedule with its next fire times', schema: SuiteSchedule },
      errors: { 403: [needsRuns], 409: [noSchedule], 503: [unavailable] },
    }),
    async (request) => exact(SuiteSchedule, await schedules.setPaused({ ctx: ctxOf(request), input: { suiteId: request.params.suiteId, paused: false } })),
  );
  app.post(
    '/v1/suites/:suiteId/schedule/trigger',
    operation({
      method: 'POST',
      scope: 'suites:write',
      operationId: 'triggerSuiteSchedule',
      summary: 'Fire a suite\'s schedule now',
      description:
        'Needs `runs:write` as well as `suites:write`, and counts as a run trigger of the credential and its tenant. The fire goes the way of every scheduled fire: a run with triggered_by "schedule", counted in the tenant\'s schedule quota, skipped while the previous scheduled run is unfinished. The run is created asynchronously; list the suite\'s runs to find it.',
      tag: 'suites',
      params: suiteParams,
      success: { status: 202, description: 'the fire was requested', schema: ScheduleTriggered },
      errors: { 403: [needsRuns], 409: [noSchedule, '`conflict`: the schedule is paused (it would start no run); resume it first'], 503: [unavailable] },
    }),
    async (request, reply) => reply.code(202).send(exact(ScheduleTriggered, await schedules.triggerNow({ ctx: ctxOf(request), input: request.params }))),
  );
};
