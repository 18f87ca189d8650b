// Requests Node's HTTP parser refuses before Fastify sees them (a URL or headers over 16 KiB, a malformed request
// line) are answered as OAuth errors too, not with Fastify's own body (RFC 6749 5.2).
import http from 'node:http';
import type { Socket } from 'node:net';

export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, description] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'the request line or headers are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'the request took too long to arrive']
        : [400, 'the request is malformed'];
  const body = JSON.stringify({ error: 'invalid_request', error_description: description });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        'Cache-Control: no-store\r\n' +
        'X-Content-Type-Options: nosniff\r\n' +
        'Connection: close\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
