/** The OpenAPI document's title: also how `npm start` tells its own API from another server on the port (src/start.ts). */
export const OPENAPI_TITLE = 'Run Verification Service API';
