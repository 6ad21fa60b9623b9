/**
 * The HTTP ceiling: the smallest uWebSockets.js app that answers every GET with the gate's nonce
 * response — same status, same six headers, a body of the same shape and length — and does
 * nothing else. The gate's nonce and re-authentication rates are reported as fractions of this.
 *
 *   PORT=0 node dist/bench/bare-uws.js   → prints "listening http://127.0.0.1:<port>"
 */
import uWS from 'uWebSockets.js';

/** A fixed 51-character base64url string, the length of a real nonce. */
const NONCE = 'AZZ0bVvYhYq3e8Ns1nY5yQ2m4Jq9kS8a7BvRt6xWc1Lp0Ue4GaQ';
const BODY = JSON.stringify({ status: 'nonce_ready', nonce: NONCE, mechanism: 'SERVICE404', expiresIn: 300 });

const app = uWS.App();
app.any('/*', (res) => {
  res.cork(() => {
    res.writeStatus('200 OK');
    res.writeHeader('Access-Control-Expose-Headers', 'X-404-Nonce, X-404-Mechanism');
    res.writeHeader('Access-Control-Allow-Origin', '*');
    res.writeHeader('X-404-Nonce', NONCE);
    res.writeHeader('X-404-Mechanism', 'SERVICE404');
    res.writeHeader('Cache-Control', 'no-store');
    res.writeHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(BODY);
  });
});

app.listen('127.0.0.1', Number(process.env.PORT ?? 0), (socket) => {
  if (!socket) {
    process.stderr.write('bare uWS: cannot listen\n');
    process.exit(1);
  }
  process.stdout.write(`listening http://127.0.0.1:${uWS.us_socket_local_port(socket)}\n`);
});
process.on('SIGTERM', () => process.exit(0));
