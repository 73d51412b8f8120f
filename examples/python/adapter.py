#!/usr/bin/python3
# python-etcd3's Lock (Debian's python3-etcd3 0.12) as its README uses it,
# behind etcdsim's process protocol (docs/protocol.md). Debian's python only:
# the module is in Debian's dist-packages, not in pyenv's python3.
import json, sys, threading, time
import etcd3

out = threading.Lock()  # one line at a time on stdout
held, st = {}, {}       # handle -> Lock; the client, lock name and TTL


def send(m):
    with out:
        sys.stdout.write(json.dumps(m) + "\n")
        sys.stdout.flush()


def init(m):  # 0.12 has no multi-endpoint client: one endpoint, m0's
    host, port = m["endpoints"][0].split("//")[1].split(":")
    st.update(c=etcd3.client(host, int(port), timeout=m["rpc_timeout_ms"] / 1000), name=m["name"], ttl=m["ttl"])
    return {"recipe": "python-etcd3-0.12-lock", "features": ["lease"], "unfenced": "python-etcd3's Lock has no token"}


def acquire(m):
    lock, end = st["c"].lock(st["name"], ttl=st["ttl"]), time.monotonic() + m.get("timeout_ms", 10000) / 1000
    while not lock.acquire(timeout=0):  # acquire(timeout>0) raises TypeError under tenacity 8
        if time.monotonic() > end:
            return {"ok": False, "error": "timeout"}
        time.sleep(0.05)
    held["h%d" % m["id"]] = lock
    # No fencing token, and no refresh() (the README calls none): token 0, no "done".
    return {"handle": "h%d" % m["id"], "key": lock.key, "token": 0, "lease": str(lock.lease.id)}


def release(m):
    lock = held.pop(m["handle"], None)
    return {} if lock is not None and lock.release() else {"ok": False, "error": "not_held"}


OPS = {"init": init, "ping": lambda m: {}, "acquire": acquire, "release": release}


def serve(m):
    try:
        a = dict({"ok": True}, **OPS[m["op"]](m)) if m["op"] in OPS else {"ok": False, "error": "unsupported"}
    except Exception as e:  # the library's errors: the outcome is unknown
        a = {"ok": False, "error": "unavailable", "text": "%s: %s" % (type(e).__name__, e)}
    send(dict(a, id=m["id"]))


for line in sys.stdin:
    m = json.loads(line)
    if m["op"] == "init":
        serve(m)  # before anything else is read
    elif m["op"] != "cancel":  # nothing of the library's can be stopped
        threading.Thread(target=serve, args=(m,)).start()
