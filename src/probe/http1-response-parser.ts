/**
 * Pure, incremental parser of HTTP/1.1 responses, one at a time (the probe never pipelines).
 * Bytes go in as they arrive; a response comes out when its message is complete. Frames a body by
 * Content-Length, chunked transfer coding or the connection closing (RFC 9112 §6.3), skips 1xx
 * interim responses, and fails — never guesses — on anything malformed or over the size cap.
 */

export type HttpParseErrorCode = 'RVS_INVALID_HTTP' | 'RVS_RESPONSE_TOO_LARGE';

export class HttpParseError extends Error {
  constructor(
    readonly code: HttpParseErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HttpParseError';
  }
}

export interface HttpResponse {
  status: number;
  body: Buffer;
  /** Whether the connection may carry another request after this response. */
  keepAlive: boolean;
  /** The server's `Keep-Alive: timeout=N`, in ms: when it will close an idle connection. */
  keepAliveTimeoutMs: number | null;
}

/**
 * Status lines and headers of a response, its 1xx interim heads and its trailers together; real
 * servers send well under 8 KiB.
 */
export const MAX_HEAD_BYTES = 64 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
const MAX_CHUNK_LINE_BYTES = 4 * 1024;
const CRLF = Buffer.from('\r\n');
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/;
const DIGITS = /^\d+$/;
const CHUNK_SIZE = /^([0-9a-fA-F]{1,15})[ \t]*(?:;.*)?$/;
const EMPTY: Buffer = Buffer.alloc(0);

const enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  UntilClose,
  Done,
}

export class Http1ResponseParser {
  private state = State.Head;
  /** Bytes not consumed yet: an incomplete chunk-size line or trailer. */
  private pending: Buffer | null = null;
  /** An incomplete head, in the pieces it came in, and its last 3 bytes. */
  private headParts: Buffer[] | null = null;
  private headPartsLength = 0;
  private headTail: Buffer = EMPTY;
  /** Bytes of heads and trailers so far, against MAX_HEAD_BYTES. */
  private headBytes = 0;
  private parts: Buffer[] = [];
  private bodyBytes = 0;
  /** Body bytes still expected: of the Content-Length, or of the current chunk. */
  private remaining = 0;
  private status = 0;
  private keepAlive = true;
  private keepAliveTimeoutMs: number | null = null;

  constructor(private readonly maxBodyBytes: number) {}

  /**
   * Feeds the next bytes of the connection. Returns the response once it is complete, else null;
   * throws HttpParseError on a malformed or oversized response. Bytes after a complete response
   * (which a server must not send unasked) make it not reusable.
   */
  push(chunk: Buffer): HttpResponse | null {
    let data: Buffer;
    if (this.headParts !== null) {
      if (!this.completesHead(chunk)) return null;
      data = Buffer.concat([...this.headParts, chunk]);
      this.headParts = null;
    } else {
      data = this.pending === null ? chunk : Buffer.concat([this.pending, chunk]);
      this.pending = null;
    }
    while (data.length > 0) {
      switch (this.state) {
        case State.Head:
          data = this.parseHead(data);
          break;
        case State.Length:
          data = this.takeBody(data, State.Done);
          break;
        case State.ChunkSize:
          data = this.parseChunkSize(data);
          break;
        case State.ChunkData:
          data = this.takeBody(data, State.ChunkDataEnd);
          break;
        case State.ChunkDataEnd:
          if (data.length < 2) {
            this.pending = data;
            return null;
          }
          if (data[0] !== 0x0d || data[1] !== 0x0a) throw invalid('chunk data not followed by CRLF');
          data = data.subarray(2);
          this.state = State.ChunkSize;
          break;
        case State.Trailers:
          data = this.parseTrailers(data);
          break;
        case State.UntilClose:
          this.addBody(data);
          data = EMPTY;
          break;
        case State.Done:
          this.keepAlive = false;
          data = EMPTY;
          break;
      }
      if (this.pending !== null || this.headParts !== null) return null;
    }
    return this.state === State.Done ? this.finish() : null;
  }

  /** The connection closed: a body delimited by the close is complete now; anything else is truncated (null). */
  end(): HttpResponse | null {
    if (this.state === State.UntilClose || this.state === State.Done) return this.finish();
    return null;
  }

  /**
   * Whether `chunk` ends the incomplete head. The end is looked for only where it can be (across
   * the seam and in the new bytes), and the pieces are joined once: a head arriving in many small
   * pieces costs linear time, not quadratic.
   */
  private completesHead(chunk: Buffer): boolean {
    const seam = Buffer.concat([this.headTail, chunk.subarray(0, 3)]);
    if (seam.indexOf(HEAD_END) >= 0 || chunk.indexOf(HEAD_END) >= 0) return true;
    this.holdHead(chunk);
    return false;
  }

  private holdHead(piece: Buffer): void {
    (this.headParts ??= []).push(piece);
    this.headPartsLength += piece.length;
    if (this.headBytes + this.headPartsLength > MAX_HEAD_BYTES) throw invalid('response head too large');
    this.headTail = piece.length >= 3 ? piece.subarray(piece.length - 3) : Buffer.concat([this.headTail, piece]).subarray(-3);
  }

  private parseHead(data: Buffer): Buffer {
    const end = data.indexOf(HEAD_END);
    if (end < 0) {
      this.headPartsLength = 0;
      this.headTail = EMPTY;
      this.holdHead(data);
      return EMPTY;
    }
    this.headPartsLength = 0;
    this.headTail = EMPTY;
    this.headBytes += end + 4;
    if (this.headBytes > MAX_HEAD_BYTES) throw invalid('response head too large');
    const lines = data.toString('latin1', 0, end).split('\r\n');
    const statusLine = STATUS_LINE.exec(lines[0]!);
    if (statusLine === null) throw invalid('malformed status line');
    const status = Number(statusLine[2]);
    const rest = data.subarray(end + 4);
    if (status < 200) {
      // 1xx interim responses (100 Continue, 103 Early Hints) precede the real one; 101 would
      // switch protocols, which the probe never asks for.
      if (status === 101) throw invalid('unexpected protocol switch');
      if (status < 100) throw invalid('malformed status line');
      return rest;
    }
    this.status = status;
    this.keepAlive = statusLine[1] === '1';
    let contentLength: number | null = null;
    let chunked = false;
    let transferEncoded = false;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      if (colon <= 0 || line.charCodeAt(colon - 1) === 0x20 || line.charCodeAt(colon - 1) === 0x09) {
        throw invalid('malformed header line');
      }
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim();
      switch (name) {
        case 'content-length': {
          if (!DIGITS.test(value)) throw invalid('malformed Content-Length');
          const length = Number(value);
          if (contentLength !== null && contentLength !== length) throw invalid('conflicting Content-Length');
          contentLength = length;
          break;
        }
        case 'transfer-encoding': {
          transferEncoded = true;
          const codings = value.toLowerCase().split(',');
          chunked = codings[codings.length - 1]!.trim() === 'chunked';
          break;
        }
        case 'connection': {
          const options = value.toLowerCase().split(',').map((o) => o.trim());
          if (options.includes('close')) this.keepAlive = false;
          else if (options.includes('keep-alive')) this.keepAlive = true;
          break;
        }
        case 'keep-alive': {
          const timeout = /(?:^|,)\s*timeout=(\d+)/i.exec(value);
          if (timeout) this.keepAliveTimeoutMs = Number(timeout[1]) * 1000;
          break;
        }
      }
    }
    if (status === 204 || status === 304) {
      this.state = State.Done;
    } else if (transferEncoded) {
      // Transfer-Encoding overrides Content-Length (RFC 9112 §6.3); a coding other than chunked
      // last is delimited by the close.
      if (chunked) {
        this.state = State.ChunkSize;
      } else {
        this.state = State.UntilClose;
        this.keepAlive = false;
      }
      if (contentLength !== null) this.keepAlive = false;
    } else if (contentLength !== null) {
      if (contentLength > this.maxBodyBytes) throw tooLarge();
      this.remaining = contentLength;
      this.state = contentLength === 0 ? State.Done : State.Length;
    } else {
      this.state = State.UntilClose;
      this.keepAlive = false;
    }
    return rest;
  }

  private parseChunkSize(data: Buffer): Buffer {
    const end = data.indexOf(CRLF);
    if (end < 0) {
      if (data.length > MAX_CHUNK_LINE_BYTES) throw invalid('chunk size line too long');
      this.pending = data;
      return EMPTY;
    }
    const size = CHUNK_SIZE.exec(data.toString('latin1', 0, end));
    if (size === null) throw invalid('malformed chunk size');
    this.remaining = parseInt(size[1]!, 16);
    if (this.bodyBytes + this.remaining > this.maxBodyBytes) throw tooLarge();
    this.state = this.remaining === 0 ? State.Trailers : State.ChunkData;
    return data.subarray(end + 2);
  }

  /** Trailer fields after the last chunk are read and dropped, up to the empty line. */
  private parseTrailers(data: Buffer): Buffer {
    for (;;) {
      const end = data.indexOf(CRLF);
      if (end < 0) {
        if (data.length > MAX_HEAD_BYTES) throw invalid('trailers too large');
        this.pending = data;
        return EMPTY;
      }
      this.headBytes += end + 2;
      if (this.headBytes > MAX_HEAD_BYTES) throw invalid('trailers too large');
      data = data.subarray(end + 2);
      if (end === 0) {
        this.state = State.Done;
        return data;
      }
    }
  }

  /** Up to `remaining` bytes of `data` are body; once they are all in, the parser goes on to `then`. */
  private takeBody(data: Buffer, then: State): Buffer {
    const take = Math.min(this.remaining, data.length);
    this.addBody(take === data.length ? data : data.subarray(0, take));
    this.remaining -= take;
    if (this.remaining === 0) this.state = then;
    return take === data.length ? EMPTY : data.subarray(take);
  }

  private addBody(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.bodyBytes += bytes.length;
    if (this.bodyBytes > this.maxBodyBytes) throw tooLarge();
    this.parts.push(bytes);
  }

  private finish(): HttpResponse {
    const body = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.bodyBytes);
    return { status: this.status, body, keepAlive: this.keepAlive, keepAliveTimeoutMs: this.keepAliveTimeoutMs };
  }
}

function invalid(message: string): HttpParseError {
  return new HttpParseError('RVS_INVALID_HTTP', message);
}

function tooLarge(): HttpParseError {
  return new HttpParseError('RVS_RESPONSE_TOO_LARGE', 'response body over the size cap');
}
