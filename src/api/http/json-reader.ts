import express, { type RequestHandler } from 'express';
import { MAX_BODY_DEPTH, MAX_BODY_VALUES, tooDeepBody, tooManyValues } from '../../use-cases/input/storable';

/** What a body other than a campaign's may weigh, decompressed. */
export const BODY_LIMIT = 100 * 1024;

const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** The index of the quote that closes the string opened at `start`, or -1 when none does. */
function endOfString(text: string, start: number): number {
  for (let end = text.indexOf('"', start + 1); end !== -1; end = text.indexOf('"', end + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
  }
  return -1;
}

/**
 * Refuses a JSON text nested deeper than MAX_BODY_DEPTH or holding more than MAX_BODY_VALUES array
 * elements and object members, from the text itself: one pass that allocates nothing, before the parser
 * builds a single value. A non-empty container holds one value more than it has commas. Text that is
 * not JSON is left to the parser.
 */
export function checkJsonTextBounds(text: string): void {
  let depth = 0;
  let values = 0;
  let opened = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === SPACE || code === LINE_FEED || code === CARRIAGE_RETURN || code === TAB) continue;
    if (opened) {
      opened = false;
      if (code !== CLOSE_ARRAY && code !== CLOSE_OBJECT && ++values > MAX_BODY_VALUES) throw tooManyValues();
    }
    if (code === QUOTE) {
      i = endOfString(text, i);
      if (i === -1) return;
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > MAX_BODY_DEPTH) throw tooDeepBody();
      opened = true;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
    } else if (code === COMMA && ++values > MAX_BODY_VALUES) {
      throw tooManyValues();
    }
  }
}

/**
 * The body's text as the scan reads it: UTF-8 bytes one character each (the JSON syntax is ASCII, and
 * no byte of a multi-byte character is), another UTF as decoded; undefined for a UTF the platform
 * cannot decode, whose values the walk of the parsed body counts instead.
 */
function textOf(body: Buffer, encoding: string | null): string | undefined {
  if (encoding === null || encoding === 'utf-8' || encoding === 'utf8') return body.toString('latin1');
  try {
    return new TextDecoder(encoding).decode(body);
  } catch {
    return undefined;
  }
}

/**
 * express.json with the body's bounds checked on its text before it is parsed. The limit holds for the
 * decompressed body too: a gzip, deflate or br body is read through the decompressor and refused (413)
 * as soon as its inflated bytes pass `limit`, without inflating the rest.
 * strict: false lets a JSON `null` or scalar body reach the route, which answers with its own 400 text.
 */
export function jsonReader(limit: number): RequestHandler {
  return express.json({
    limit,
    type: () => true,
    strict: false,
    verify: (_req, _res, body, encoding) => {
      const text = textOf(body, encoding);
      if (text !== undefined) checkJsonTextBounds(text);
    },
  });
}
