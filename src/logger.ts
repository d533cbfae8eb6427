import pino, { type Logger } from 'pino';

export type { Logger };

interface LoggedRequest {
  method?: string;
  url?: string;
  id?: string;
}

/**
 * One logger for every process. Credentials never reach a log line: requests are logged as
 * method, path (no query string: dashboard links carry a token there) and request id — never
 * headers — and authorization fields are censored wherever else they might appear.
 */
export function createLogger(level: string, name: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    serializers: {
      req: (req: LoggedRequest) => ({ id: req.id, method: req.method, path: req.url?.split('?')[0] }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
      err: pino.stdSerializers.err,
    },
    redact: { paths: ['authorization', '*.authorization', '*.headers'], censor: '****' },
  };
  return destination ? pino(options, destination) : pino(options);
}
