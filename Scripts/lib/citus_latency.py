#!/usr/bin/env python3
"""Sequential latency of four hot calls against a running server (stdlib only): the figures of
docs/scaling.md for a single node beside the Citus cluster of Scripts/citus.
Usage: citus_latency.py PORT   (registers a fresh account first)"""
import http.client, json, sys, time, random
port = int(sys.argv[1])
def call(conn, method, path, body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token: headers["Authorization"] = "Bearer " + token
    conn.request(method, "/api/v1" + path, body=json.dumps(body) if body is not None else None, headers=headers)
    r = conn.getresponse(); data = r.read(); return r.status, data
conn = http.client.HTTPConnection("127.0.0.1", port)
status, data = call(conn, "POST", "/auth/register", {"email": f"bench{random.randint(0,10**9)}@example.com", "password": "bench password 1"})
token = json.loads(data)["token"]
def run(label, n, fn):
    times = []
    for i in range(n):
        t = time.perf_counter(); status, _ = fn(i); times.append((time.perf_counter() - t) * 1000)
        assert status < 300, (label, status, _)
    times.sort()
    print(f"{label}: median {times[n//2]:.2f} ms, p95 {times[int(n*0.95)]:.2f} ms over {n} sequential requests")
run("GET /me", 400, lambda i: call(conn, "GET", "/me", token=token))
run("POST /nutrition/entries", 200, lambda i: call(conn, "POST", "/nutrition/entries", {"entry_date": "2026-11-20", "meal_type": "lunch", "name": "Rice", "calories": 200, "protein_g": 4, "carbs_g": 44, "fat_g": 1, "source": "manual"}, token))
run("GET /training/sessions", 400, lambda i: call(conn, "GET", "/training/sessions", token=token))
run("GET /nutrition/daily", 400, lambda i: call(conn, "GET", "/nutrition/daily?date=2026-11-20", token=token))
