import { z } from 'zod';
import { INTERACTIVE_MAX_CALLS, PRIORITY_CLASS_NAMES } from './run-priority';

/*
 * Columns of `runs` the Run resource returns as stored, under the same name: declared once, here.
 * The row schema (src/db/run-row.ts) and the Run response schema (src/http/routes/runs/schemas.ts)
 * both spread this object, and the presenter copies the fields with returnedRunColumns. A new
 * stored and returned Run field is an entry here plus its migration (docs/openapi.md); the
 * compiler then asks insertRun for its value.
 */
export const RUN_RETURNED_COLUMNS = {
  priority_class: z
    .enum(PRIORITY_CLASS_NAMES)
    .nullable()
    .describe(
      'the class the run is dispatched in, first served first: `interactive` (a small run triggered through the API), `scheduled` (as small, fired by a schedule), ' +
        `\`campaign\` (bound by duration_s, or more than ${INTERACTIVE_MAX_CALLS.toLocaleString('en-US')} calls in all), \`sweep\` (a capacity sweep); null for runs requested before it was recorded`,
    ),
};

type Returned = { [K in keyof typeof RUN_RETURNED_COLUMNS]: z.output<(typeof RUN_RETURNED_COLUMNS)[K]> };

/** The returned-as-stored fields of a run row. */
export function returnedRunColumns(row: Returned): Returned {
  return Object.fromEntries(Object.keys(RUN_RETURNED_COLUMNS).map((k) => [k, row[k as keyof Returned]])) as Returned;
}
