import type { HttpResponse } from 'uWebSockets.js';

const REASONS: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Content Too Large',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};
const statusLines = new Map<number, string>();
const statusLine = (status: number): string => {
  let line = statusLines.get(status);
  if (!line) {
    line = `${status} ${REASONS[status] ?? 'Unknown'}`;
    statusLines.set(status, line);
  }
  return line;
};

/** Writes one whole response in a single cork, as uWS wants for responses sent after an await. */
export function writeResponse(
  res: HttpResponse,
  status: number,
  body: string | undefined,
  contentType: string,
  headerSets: ReadonlyArray<Readonly<Record<string, string>> | undefined>,
): void {
  res.cork(() => {
    res.writeStatus(statusLine(status));
    for (const headers of headerSets) {
      if (!headers) continue;
      for (const name in headers) res.writeHeader(name, headers[name] as string);
    }
    if (body === undefined) {
      res.endWithoutBody(0);
    } else {
      res.writeHeader('Content-Type', contentType);
      res.end(body);
    }
  });
}
