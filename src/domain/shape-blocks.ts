import { z } from 'zod';

/*
 * Building blocks of the shapes the domain declares as zod schemas (verdict sections, thresholds,
 * run rows): each stored or returned shape is declared once, its TypeScript type inferred from it,
 * and the HTTP layer's response schemas reuse it (docs/openapi.md, "One declaration per shape").
 */

/** Names a schema as a component of the OpenAPI document (zod's global registry, which the type provider reads). */
export function component<S extends z.ZodType>(id: string, schema: S): S {
  return schema.meta({ id }) as S;
}

export const uuid = z.uuid();
export const int = z.number().int();
export const count = z.number().int().min(0);
