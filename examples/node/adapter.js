#!/usr/bin/env node
// npm etcd3's Lock and Election, a registrar and a resolver on its Lease and
// Watch, and a register on its KV calls, used as its README shows, behind
// etcdsim's process protocol (docs/protocol.md): one JSON request a line on
// stdin, one answer a line on stdout, events ("done", "leader",
// "endpoints") unasked.
'use strict';
const { Etcd3 } = require('etcd3');
const readline = require('readline');

const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const handles = new Map(); // handle → the Lock or the Campaign it stands for
let client, name, ttl, reg;

const ops = {
  init(m) {
    // The library sets no deadline on a call: one sent to a member cut off
    // from the rest would never end. defaultCallOptions is its knob for that.
    client = new Etcd3({ hosts: m.endpoints, dialTimeout: m.rpc_timeout_ms,
      defaultCallOptions: (c) => (c.isStream ? {} : { deadline: Date.now() + m.rpc_timeout_ms }) });
    name = m.name; ttl = m.ttl;
    const features = { election: ['leader', 'lease', 'observe'], lock: ['lease'] }[m.family] || [];
    // Its Lock hands out no fencing token: fencing does not apply.
    const unfenced = m.family === 'lock' ? "npm etcd3's Lock exposes no revision to fence with" : '';
    return { recipe: `npm-etcd3-1.1.2-${m.role || m.family}`, features, unfenced };
  },
  ping: () => ({}),
  // Lock: the library's acquire is a try-lock, so a waiter tries again.
  async acquire(m) {
    const end = Date.now() + (m.timeout_ms || 10000);
    for (;;) {
      const lock = client.lock(name).ttl(ttl);
      try {
        await lock.acquire();
        handles.set('h' + m.id, lock);
        // The Lock hands out no fencing token and tells its holder nothing
        // when its lease is lost: token 0, and no "done" event.
        return { handle: 'h' + m.id, key: name, token: 0, lease: await lock.leaseId() };
      } catch (e) {
        if (e.constructor.name !== 'EtcdLockFailedError') throw e;
        if (Date.now() > end) return { ok: false, error: 'timeout' };
        await sleep(50);
      }
    }
  },
  // release revokes the lease; a lease already gone means the lock was lost.
  release: (m) => take(m).release().then(() => ({}), (e) => (e.constructor.name === 'EtcdLeaseInvalidError'
    ? { ok: false, error: 'not_held', text: e.message } : Promise.reject(e))),
  // Election: a campaign tells of a lost lease by an 'error' event.
  async campaign(m) {
    const c = client.election(name, ttl).campaign(m.value);
    const h = 'l' + m.id;
    let timer;
    const timeout = new Promise((_, no) => { timer = setTimeout(() => no(new Error('timeout')), m.timeout_ms || 10000); });
    try { await Promise.race([c.wait(), timeout]); } catch (e) {
      c.resign().catch(() => {});
      return e.message === 'timeout' ? { ok: false, error: 'timeout' } : Promise.reject(e);
    } finally { clearTimeout(timer); }
    handles.set(h, c);
    c.on('error', () => { if (handles.delete(h)) send({ event: 'done', handle: h }); });
    const lease = (await c.getCampaignKey()).split('/').pop();
    return { handle: h, key: await c.getCampaignKey(), term: Number(c.keyRevision), lease };
  },
  proclaim: (m) => take(m, 'not_leader', false).proclaim(m.value).then(() => ({})),
  resign: (m) => take(m, 'not_leader').resign().then(() => ({})),
  async leader() { // election.leader() gives the value alone; the same read, whole
    const r = await client.getAll().prefix(`election/${name}/`).sort('Create', 'Ascend').limit(1).exec();
    const kv = r.kvs[0];
    if (!kv) return { ok: false, error: 'no_leader' };
    return { key: kv.key.toString(), value: kv.value.toString(), term: Number(kv.create_revision), rev: Number(kv.mod_revision) };
  },
  // The observer tells the new leader's value; the leader read tells the rest.
  // observe() resolves on the observer's first change, before this listener:
  // a leader it found at its start is told here.
  async observe() {
    const obs = await client.election(name).observe();
    const tell = () => ops.leader().then((l) => l.key && send({ event: 'leader', ...l }), () => {});
    obs.on('change', tell);
    if (obs.hasLeader) tell();
    return {};
  },
  // Discovery: a registration is a key on a lease the library keeps alive.
  async register(m) {
    const lease = client.lease(ttl), key = `${name}/${m.addr}`;
    await lease.put(key).value(JSON.stringify({ Op: 0, Addr: m.addr, Metadata: null }));
    lease.on('lost', () => send({ event: 'done' })); // and it is not made again
    reg = lease;
    return { key, lease: await lease.grant() };
  },
  async watch() {
    const r = await client.getAll().prefix(`${name}/`).exec(), set = new Map();
    const show = (rev) => ({ endpoints: [...set].map(([key, addr]) => ({ key, addr })), rev: Number(rev) });
    for (const kv of r.kvs) set.set(kv.key.toString(), JSON.parse(kv.value.toString()).Addr);
    const w = await client.watch().prefix(`${name}/`).startRevision(String(Number(r.header.revision) + 1)).create();
    w.on('put', (kv) => { set.set(kv.key.toString(), JSON.parse(kv.value.toString()).Addr); send({ event: 'endpoints', ...show(kv.mod_revision) }); });
    w.on('delete', (kv) => { set.delete(kv.key.toString()); send({ event: 'endpoints', ...show(kv.mod_revision) }); });
    w.on('disconnected', (e) => send({ event: 'unsure', text: String(e.message) }));
    return show(r.header.revision);
  },
  // Register: the library's KV calls.
  async get(m) {
    const r = await client.get(m.key).serializable(!!m.serializable).exec(), kv = r.kvs[0];
    return kv ? { exists: true, value: kv.value.toString(), mod_rev: Number(kv.mod_revision), header: Number(r.header.revision) }
      : { exists: false, header: Number(r.header.revision) };
  },
  put: (m) => client.put(m.key).value(m.value).exec().then((r) => ({ revision: Number(r.header.revision) })),
  delete: (m) => client.delete().key(m.key).exec().then((r) => ({ deleted: Number(r.deleted), revision: Number(r.header.revision) })),
  cas: (m) => (m.expect_missing ? client.if(m.key, 'Create', '==', 0) : client.if(m.key, 'Value', '==', m.expect))
    .then(client.put(m.key).value(m.value)).commit().then((r) => ({ succeeded: r.succeeded, revision: Number(r.header.revision) })),
};

// take returns the Lock or Campaign of m's handle, and forgets it unless keep.
function take(m, code = 'not_held', forget = true) {
  const h = handles.get(m.handle);
  if (!h) throw Object.assign(new Error(`no ${m.handle}`), { code });
  if (forget) handles.delete(m.handle);
  return h;
}

async function serve(m) {
  if (m.op === 'cancel') return; // nothing of the library's can be stopped
  let a;
  try {
    const op = ops[m.op];
    a = op ? { ok: true, ...(await op(m)) } : { ok: false, error: 'unsupported', text: m.op };
  } catch (e) {
    a = { ok: false, error: e.code === 'not_held' || e.code === 'not_leader' ? e.code : 'unavailable', text: String(e.message) };
  }
  send({ id: m.id, ...a });
}

readline.createInterface({ input: process.stdin })
  .on('line', (l) => serve(JSON.parse(l)))
  .on('close', () => { // a registration goes with its lease
    if (reg) reg.revoke().catch(() => {});
    setTimeout(() => process.exit(0), 500).unref();
  });
