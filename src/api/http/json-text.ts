import type { RequestHandler } from 'express';

/** A JSON answer's text: it ends with a newline, so `curl` output in a terminal does not run into the prompt. */
export const jsonText = (value: unknown): string => `${JSON.stringify(value) ?? ''}\n`;

/**
 * Makes `res.json` send `jsonText`: Express's own writes no newline. `send` sets Content-Length (and
 * the ETag) from the text it is given, newline included.
 */
export const jsonEndsWithNewline: RequestHandler = (_req, res, next) => {
  res.json = (body?: unknown) => {
    if (!res.get('Content-Type')) res.type('application/json');
    return res.send(jsonText(body));
  };
  next();
};
