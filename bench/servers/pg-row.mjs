// Ceiling (b) of the employee_details benchmark: a bare node:http handler that reads one row of
// the same `employees` table with `pg` (a Pool of the size hrx's API uses, one prepared select per
// request) and answers it as JSON: the stored record, as it is at rest (its envelope, ids beside).
// What hrx adds on top (auth, connection check, audit, decrypt, masking, envelope) is the
// difference to hrx's figure. Before Migration20261123190000 the stored record was the plain
// JSONB `record` and the `sensitive_enc` envelope; this reads their successor, `record_enc`.
import { createServer } from 'node:http';
import pg from 'pg';

const { DATABASE_URL, HRX_DB_SCHEMA, POOL_MAX, ORG_ID, PORT } = process.env;
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: Number(POOL_MAX), options: `-c search_path="${HRX_DB_SCHEMA}"` });
const orgId = Number(ORG_ID);
const text = 'select id, employee_id, record_enc from employees where org_id = $1 and employee_id = $2';

function send(res, status, payload) {
  const body = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  const p = (req.url ?? '/').split('?')[0];
  let id;
  try {
    id = decodeURIComponent(p.slice(p.lastIndexOf('/') + 1));
  } catch {
    return send(res, 400, { error: 'bad id' });
  }
  pool.query({ name: 'bench_employee_row', text, values: [orgId, id] }).then(
    (r) => (r.rows[0] ? send(res, 200, { data: r.rows[0] }) : send(res, 404, { error: 'not found' })),
    (err) => send(res, 500, { error: err.message }),
  );
});
server.listen(Number(PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close(() => pool.end().finally(() => process.exit(0)));
  server.closeAllConnections();
});
