# Sourced by Scripts/bench --photos, with the server running ($base, $token, $work, wrk_run):
# a progress photo at the size limit (10 MiB) uploaded and fetched, one request at a time and
# then fetched by $connections clients at once. The photo is a JPEG with an EXIF block that
# holds a location, so each upload pays for finding and zeroing it (docs/photos.md).
echo "== progress photos at the size limit"
python3 - "$base" "$token" "$work" "${BENCH_PHOTO_ROUNDS:-20}" <<'PY'
import hashlib, http.client, os, struct, sys, time, urllib.parse
base, token, work, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
limit = 10 * 1024 * 1024
# EXIF (little-endian TIFF): IFD0 with Orientation and the GPS IFD's offset; the GPS IFD
# with a latitude of three rationals.
tiff = b"II*\x00" + struct.pack("<I", 8)
tiff += struct.pack("<H", 2) + struct.pack("<HHII", 0x0112, 3, 1, 6) + struct.pack("<HHII", 0x8825, 4, 1, 38) + b"\0" * 4
tiff += struct.pack("<H", 1) + struct.pack("<HHII", 2, 5, 3, 56) + b"\0" * 4 + struct.pack("<6I", 52, 1, 31, 1, 1234, 100)
app1 = b"Exif\0\0" + tiff
head = b"\xff\xd8\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + b"\xff\xda\x00\x04\x11\x22"
photo = head + os.urandom(limit - len(head) - 2).replace(b"\xff", b"\xfe") + b"\xff\xd9"
assert len(photo) == limit
url = urllib.parse.urlsplit(base)

def timed(method, path, body=None, headers={}):
    connection = http.client.HTTPConnection(url.hostname, url.port)
    started = time.perf_counter()
    connection.request(method, "/api/v1" + path, body=body, headers={"Authorization": f"Bearer {token}", **headers})
    response = connection.getresponse()
    data = response.read()
    elapsed = (time.perf_counter() - started) * 1000
    connection.close()
    return response.status, data, elapsed

def summary(name, times):
    times = sorted(times)
    print(f"{name:<34} n={len(times):<3} p50 {times[len(times) // 2]:8.1f} ms   max {times[-1]:8.1f} ms")

uploads, ids = [], []
for _ in range(rounds):
    status, data, elapsed = timed("POST", "/progress-photos?pose=front", photo, {"Content-Type": "image/jpeg"})
    assert status == 201, (status, data[:200])
    uploads.append(elapsed)
    ids.append(int(data.split(b'"id": ')[1].split(b",")[0]))
fetches = []
for photo_id in ids:
    status, data, elapsed = timed("GET", f"/progress-photos/{photo_id}/image")
    assert status == 200 and len(data) == limit and b"\x34\x00\x00\x00\x01\x00\x00\x00\x1f" not in data[:200]
    fetches.append(elapsed)
summary("upload, 10 MiB JPEG with GPS", uploads)
summary("fetch, 10 MiB", fetches)
status, _, elapsed = timed("GET", f"/progress-photos/{ids[0]}/image",
                           headers={"If-None-Match": '"' + hashlib.sha256(data).hexdigest() + '"'})
print(f"{'fetch again with If-None-Match':<34} {status} in {elapsed:.1f} ms")
open(f"{work}/photo_id", "w").write(str(ids[0]))
PY
photo_id=$(cat "$work/photo_id")
read -r photo_rps photo_p50 photo_p99 < <(wrk_run "/api/v1/progress-photos/$photo_id/image")
printf "%-34s %s clients: %s req/s (%.0f MiB/s), p50 %s ms, p99 %s ms\n" "fetch, 10 MiB, wrk" "$connections" \
  "$photo_rps" "$(python3 -c "print($photo_rps * 10)")" "$photo_p50" "$photo_p99"
