import { createHash, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/* The files clients send in the fake carriers' inbound messages, kept by the fake and served from its own origin. */

export interface FakeMediaFile {
  id: string;
  bytes: Buffer;
  contentType: string;
  /** Whose file it is (a Vonage application): a request with another's credentials gets none. */
  owner?: string;
}

/** A client's file: its bytes and type (a small JPEG-ish default). */
export interface ClientFile {
  bytes?: Buffer;
  contentType?: string;
  /** The file's kind as the carrier names it (`image`, `video`, `audio`, `file`, `vcard`, `document`). */
  kind?: string;
  caption?: string;
}

export class FakeMediaStore {
  readonly files = new Map<string, FakeMediaFile>();

  add(file: ClientFile, owner?: string): FakeMediaFile {
    const stored = { id: randomUUID(), bytes: file.bytes ?? Buffer.from(`\xff\xd8\xff picture ${randomUUID()}`, 'latin1'), contentType: file.contentType ?? 'image/jpeg', ...(owner ? { owner } : {}) };
    this.files.set(stored.id, stored);
    return stored;
  }

  /** The carrier removes it (expired): its URL then answers 404. */
  remove(id: string): void {
    this.files.delete(id);
  }

  /** Answers the file's bytes with its type and length. */
  serve(res: ServerResponse, file: FakeMediaFile): void {
    res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.bytes.length) });
    res.end(file.bytes);
  }
}

export const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
