import { z } from 'zod';
import { component } from '../shared/schemas';

export const Liveness = component('Liveness', z.object({ status: z.literal('ok') }));

export const Readiness = component(
  'Readiness',
  z.object({
    status: z.literal('ready'),
    checks: z.object({ postgres: z.literal('ok'), temporal: z.literal('ok') }),
  }),
);
