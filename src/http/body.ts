import type { HttpResponse } from 'uWebSockets.js';
import { GateError } from '../errors.js';

/**
 * A request body, read as uWebSockets.js delivers it: in chunks through onData, whose ArrayBuffer is
 * only valid during the callback (so each chunk is copied at once). Call it synchronously in the
 * handler, after onAborted is registered (an aborted request never resolves: its answer is not
 * written anyway). More than `maxBytes` — by Content-Length or as it arrives — rejects with 413 at
 * once, without buffering the rest; the connection is then closed by the answer.
 */
export function readBody(res: HttpResponse, maxBytes: number, declaredLength: string | undefined): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const tooLarge = (): GateError => new GateError(413, 'BODY_TOO_LARGE', `The body is larger than ${maxBytes} bytes`);
    if (declaredLength !== undefined && /^\d+$/.test(declaredLength) && Number(declaredLength) > maxBytes) {
      reject(tooLarge());
      // Still consume what arrives, without keeping it, so uWS can finish the request.
      res.onData(() => {});
      return;
    }
    const chunks: Uint8Array[] = [];
    let length = 0;
    let failed = false;
    res.onData((chunk, isLast) => {
      if (failed) return;
      length += chunk.byteLength;
      if (length > maxBytes) {
        failed = true;
        reject(tooLarge());
        return;
      }
      chunks.push(new Uint8Array(chunk.slice(0)));
      if (!isLast) return;
      const body = new Uint8Array(length);
      let offset = 0;
      for (const part of chunks) {
        body.set(part, offset);
        offset += part.byteLength;
      }
      resolve(body);
    });
  });
}
