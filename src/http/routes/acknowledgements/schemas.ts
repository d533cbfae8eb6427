import { z } from 'zod';
import { component, pageOf, timestamp, uuid, uuidParam } from '../shared/schemas';

export const acknowledgementParams = uuidParam('runId');
export const oneAcknowledgementParams = z.strictObject({
  runId: z.uuid('runId must be a UUID'),
  acknowledgementId: z.uuid('acknowledgementId must be a UUID'),
});

/** An acknowledgement as services/acknowledgements.ts presents it. */
export const Acknowledgement = component(
  'Acknowledgement',
  z.object({
    id: uuid,
    run_id: uuid,
    acknowledged_by: z
      .object({
        kind: z.enum(['api_key', 'user']),
        id: z.string().describe('the API key id, or the JWT subject'),
        name: z.string(),
      })
      .describe('the credential that acknowledged'),
    note: z.string(),
    created_at: timestamp,
  }),
);

export const AcknowledgementPage = pageOf('AcknowledgementPage', Acknowledgement);
