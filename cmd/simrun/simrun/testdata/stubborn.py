# A program speaking docs/protocol.md that takes no lock and will not die:
# it ignores SIGTERM, SIGINT and SIGHUP, its stdin closing, and writes that
# fail (its reader gone). The leftovers test runs it to see that it dies
# with its run all the same.
import json, signal, sys, time
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)


def send(a):
    try:
        print(json.dumps(a), flush=True)
    except OSError:
        pass


for line in sys.stdin:
    r = json.loads(line)
    if "id" not in r:
        continue
    if r["op"] in ("ping", "init"):
        a = {"id": r["id"], "ok": True, "recipe": "stub"}
    else:
        time.sleep(min(r.get("timeout_ms", 100), 100) / 1000)
        a = {"id": r["id"], "ok": False, "error": "timeout", "text": "the stub takes nothing"}
    send(a)
while True:
    time.sleep(1)
