/** What became of one probe call (DESIGN §6): a sample's `outcome`. Only `ok` is a success. */
export const SAMPLE_OUTCOMES = ['ok', 'http_error', 'rpc_error', 'timeout', 'connection_error', 'invalid_response'] as const;
export type SampleOutcome = (typeof SAMPLE_OUTCOMES)[number];
