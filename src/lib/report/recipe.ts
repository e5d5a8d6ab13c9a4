/**
 * The independent recipe of the package: cookstove-sampling/v1 re-derived
 * with Python's standard library alone (csv, hashlib, hmac, json) from the
 * frame, the commitment and the proof. Tested by running it with python3
 * (test/e2e/sample-report.test.ts).
 */
import { TRIM_CHARS } from '../selection/hash.ts';

/** TRIM_CHARS as a Python string literal (every character escaped but the space). */
export function pyTrim(): string {
  return (
    '"' +
    [...TRIM_CHARS]
      .map((ch) => {
        const c = ch.charCodeAt(0);
        if (c === 0x09) return '\\t';
        if (c === 0x0a) return '\\n';
        if (c === 0x0d) return '\\r';
        if (c === 0x20) return ' ';
        return c < 0x100 ? `\\x${c.toString(16).padStart(2, '0')}` : `\\u${c.toString(16).padStart(4, '0')}`;
      })
      .join('') +
    '"'
  );
}

const py = (s: string): string => JSON.stringify(s);

export function pythonRecipe(files: { frame: string; commitment: string; proof: string; stratified: boolean }): string {
  return String.raw`# cookstove-sampling/v1 re-derived with Python's standard library only (python3 recipe.py).
# Checks the frame file, frameHash, randomness = sha256(signature), the seed, every
# stratum's sample and replacement order (orderDigest), and prints them. The BLS
# signature itself needs a BLS12-381 library (e.g. drand-verify) and the pinned key.
import csv, hashlib, hmac, json

FRAME, COMMITMENT, PROOF = ${py(files.frame)}, ${py(files.commitment)}, ${py(files.proof)}
TRIM = ${pyTrim()}  # "trimmed" = these, both ends

c = json.load(open(COMMITMENT, encoding="utf-8"))
p = json.load(open(PROOF, encoding="utf-8"))
assert hashlib.sha256(open(FRAME, "rb").read()).hexdigest() == c["frame"]["fileSha256"], "frame file"

names = [s["name"] for s in c["strata"]]
stratified = c["design"]["stratification"].get("method") == "proportional"  # ${files.stratified ? 'yes' : 'no'}, here
key = lambda s: s.strip(TRIM).encode("utf-8").lower()  # stratum matching: ASCII A-Z only case-folded
by_key = {key(n): n for n in names}
ids = {n: [] for n in names}
with open(FRAME, newline="", encoding="utf-8-sig") as f:  # RFC 4180; note: csv also ends a line at a lone CR, oraclekit does not
    rows = csv.reader(f)
    header = [h.strip(TRIM).lower() for h in next(rows)]
    hc = header.index("household_id")
    sc = header.index("stratum") if stratified else -1
    for row in rows:
        if not row:  # a blank line
            continue
        cell = lambda i: row[i] if 0 <= i < len(row) else ""
        stratum = by_key[key(cell(sc))] if stratified else "all"
        ids[stratum].append(cell(hc).strip(TRIM))

every = sorted((i for v in ids.values() for i in v), key=lambda i: i.encode("utf-8"))
frame_hash = hashlib.sha256("".join(i + "\n" for i in every).encode("utf-8")).digest()
assert frame_hash.hex() == c["frame"]["frameHash"], "frameHash"
r = p["randomness"]
if r["source"] == "drand":
    assert r["round"] == c["beacon"]["round"], "the committed round"
    assert hashlib.sha256(bytes.fromhex(r["signature"])).hexdigest() == r["randomness"], "randomness = sha256(signature)"
seed = hashlib.sha256(b"cookstove-sampling/v1" + frame_hash + bytes.fromhex(r["randomness"])).digest()
assert seed.hex() == p["seed"], "seed"

for s, ps in zip(c["strata"], p["strata"]):
    name, n = s["name"], s["sampleSize"]
    ticket = {i: hmac.new(seed, (name + "\x1f" + i).encode("utf-8"), hashlib.sha256).hexdigest() for i in ids[name]}
    order = sorted(ids[name], key=lambda i: (ticket[i], i.encode("utf-8")))
    assert [x["household_id"] for x in ps["sample"]] == order[:n], "sample of " + name
    assert [x["ticket"] for x in ps["sample"]] == [ticket[i] for i in order[:n]], "tickets of " + name
    assert hashlib.sha256("".join(i + "\n" for i in order).encode("utf-8")).hexdigest() == ps["orderDigest"], "order of " + name
    print(name, "sample:", " ".join(order[:n]))
    print(name, "replacements in order:", " ".join(order[n:n + 10]), "..." if len(order) > n + 10 else "")
print("OK: frame file, frameHash, seed, sample and replacement order of every stratum recomputed")
`;
}
