// Ceiling (a) of the employee_details benchmark: a bare node:http hello-world, nothing else.
import { createServer } from 'node:http';

const body = JSON.stringify({ hello: 'world' });
const server = createServer({ keepAliveTimeout: 65_000 }, (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());
