import { isGrpcServiceError, type Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { SEARCH_ATTRIBUTE_KEYS } from './constants';

/** temporal.api.enums.v1.IndexedValueType of the types our keys use (Keyword, and KeywordList for RvsRegions). */
const INDEXED_VALUE_TYPE: Partial<Record<SearchAttributeType, number>> = {
  [SearchAttributeType.KEYWORD]: 2,
  [SearchAttributeType.KEYWORD_LIST]: 7,
};
/** gRPC status ALREADY_EXISTS: another process registered the same attribute in between. */
const GRPC_ALREADY_EXISTS = 6;

/**
 * Registers the run workflows' search attributes in `namespace` where they are missing. Temporal
 * refuses to start a workflow that sets an unregistered attribute, and `temporal server start-dev
 * --search-attribute` registers them only when it creates its database file, so a file from an
 * older start made every trigger a 503. Safe to run on every start and from several processes.
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.values(SEARCH_ATTRIBUTE_KEYS).filter((key) => !(key.name in (listed.customAttributes ?? {})));
  if (missing.length === 0) return [];
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((key) => [key.name, INDEXED_VALUE_TYPE[key.type]!])),
    });
  } catch (error) {
    if (!(isGrpcServiceError(error) && error.code === GRPC_ALREADY_EXISTS)) throw error;
  }
  return missing.map((key) => key.name);
}
