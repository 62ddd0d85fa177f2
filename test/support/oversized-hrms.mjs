// A hostile "HRMS" for the response-size tests, run as a child process so that its own memory
// never counts in the RSS of the test process (which runs hrx). Path: /<size>-<where>/...
// with size `big` (200 MB of 'a', chunked, generated as it is sent) or `bomb` (gzip of 200 MB of
// zeros, about 200 KB), where `token` (the token call answers it) or `page` (the token call
// succeeds, the employee page answers it). GET /__stats gives per-scenario request counts and
// body bytes written. Prints its port on stdout once listening.
import http from 'node:http';
import { createGzip } from 'node:zlib';

const TOTAL = 200 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'a');

async function gzipBomb() {
  const gz = createGzip({ level: 9 });
  const out = [];
  gz.on('data', (c) => out.push(c));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < TOTAL / zeros.length; i++) {
    if (!gz.write(zeros)) await new Promise((r) => gz.once('drain', r));
  }
  await new Promise((r) => gz.end(r));
  return Buffer.concat(out);
}

const bomb = await gzipBomb();
const stats = {};
const server = http.createServer((req, res) => {
  res.on('error', () => undefined);
  req.resume();
  if (req.url === '/__stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ stats, bombBytes: bomb.length }));
    return;
  }
  const [, scenario = '', ...rest] = (req.url ?? '').split('/');
  const stat = (stats[scenario] ??= { requests: 0, written: 0 });
  stat.requests++;
  const [size, where] = scenario.split('-');
  if (where === 'page' && rest.join('/').startsWith('oauth/token')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ access_token: 'tok', token_type: 'Bearer', expires_in: 3600 }));
    return;
  }
  const body = size === 'bomb' ? bomb : null;
  res.writeHead(200, { 'content-type': 'application/json', ...(body ? { 'content-encoding': 'gzip' } : {}) });
  const total = body ? body.length : TOTAL;
  let sent = 0;
  const pump = () => {
    while (sent < total && !res.destroyed) {
      const piece = body ? body.subarray(sent, sent + 16 * 1024) : CHUNK;
      sent += piece.length;
      stat.written += piece.length;
      if (!res.write(piece)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
