import type { z } from 'zod';

/*
 * operation() types a route's reply as its success schema's output, so a presented object that
 * lacks a field, or misspells one, does not compile. A field the schema lacks still would
 * (TypeScript checks excess fields of object literals only), and the serializer would drop it
 * without a word: `exact(schema, value)` makes that a compile error too, at any depth.
 */

type KeyOf<T> = T extends unknown ? keyof T : never;
type FieldOf<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;
type Leaf = string | number | boolean | bigint | symbol | null | undefined | Date;

/** The paths of the fields of T (a value presented) that S (a schema's output) has no place for. */
export type ExtraFields<T, S, At extends string = ''> = T extends Leaf
  ? never
  : T extends readonly (infer Item)[]
    ? ExtraFields<Item, S extends readonly (infer Allowed)[] ? Allowed : never, `${At}[]`>
    : string extends KeyOf<S>
      ? never // a free-form object (Record<string, …>): any field fits
      : {
          [K in keyof T & string]: K extends KeyOf<S> ? ExtraFields<T[K], FieldOf<S, K>, `${At}${At extends '' ? '' : '.'}${K}`> : `${At}${At extends '' ? '' : '.'}${K}`;
        }[keyof T & string];

/** What `exact` demands beyond the schema's type: nothing, or a field naming the extra paths. */
type NoExtraFields<T, S> = [ExtraFields<T, S>] extends [never] ? unknown : { fields_the_schema_lacks: ExtraFields<T, S> };

/** The value, checked at compile time to have exactly the schema's fields; nothing happens at run time. */
export function exact<Schema extends z.ZodType, T extends z.output<Schema>>(_schema: Schema, value: T & NoExtraFields<T, z.output<Schema>>): z.output<Schema> {
  return value;
}
