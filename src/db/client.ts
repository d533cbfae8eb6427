import postgres from 'postgres';

export type Sql = postgres.Sql;
/** A handle that can run queries: the pool or a transaction inside it. */
export type Queryable = postgres.Sql | postgres.TransactionSql;

export function createSql(databaseUrl: string, options: { max?: number } = {}): Sql {
  return postgres(databaseUrl, {
    max: options.max ?? 10,
    onnotice: () => undefined,
    transform: { undefined: null },
    connection: { application_name: 'rvs' },
  });
}
