/**
 * The independent recipe of the package: cookstove-sampling/v1 re-derived
 * with Python's standard library alone (csv, hashlib, hmac, json) from the
 * frame, the commitment and the proof, and the observation table from the
 * observations file (compared with the package's when given its JSON).
 * Tested by running it with python3 (test/e2e/sample-report.test.ts,
 * test/e2e/sample-check.test.ts).
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

/** The observations the precision table is computed from, as the package names them. */
export interface RecipeObservations {
  /** The observations CSV as it was given (household,value[,stratum]). */
  file: string;
  projectId: string;
  /** Monitoring rows matched to the drawn order (only the drawn households count, unless includeUndrawn). */
  matched: boolean;
  includeUndrawn: boolean;
}

/**
 * The precision table recomputed from the observations file: the rows matched to the drawn order as the package
 * matches them (or grouped by their stratum), each stratum's n, mean, SD (n − 1) and r at the frame's N_h, the
 * stratified overall; with the package's JSON as its argument, compared with the table the package states.
 */
function pythonPrecisionTable(o: RecipeObservations): string {
  return String.raw`
# The observation table: n, mean, SD (n - 1) and r = z*s/(mean*sqrt(n))*sqrt(1 - n/N_h) per stratum at the
# frame's N_h, and the stratified overall (Cochran 5.3, 5.7). python3 recipe.py package.json also compares it
# with the table the package states (to 9 significant digits).
import io, math, statistics, sys

OBSERVATIONS, PROJECT = ${py(o.file)}, ${py(o.projectId)}
MATCHED, INCLUDE_UNDRAWN = ${o.matched ? 'True' : 'False'}, ${o.includeUndrawn ? 'True' : 'False'}
Z = statistics.NormalDist().inv_cdf(0.975)
text = open(OBSERVATIONS, encoding="utf-8-sig").read()
semicolons = ";" in text.split("\n", 1)[0] and "," not in text.split("\n", 1)[0]
table = list(csv.reader(io.StringIO(text, newline=""), delimiter=";" if semicolons else ","))
head = [h.strip().lower() for h in table[0]]
col = lambda *names: next(i for i, h in enumerate(head) if h in names)
hi, vi = col("household", "household_id", "id"), col("value")
si = head.index("stratum") if "stratum" in head else -1
def value(raw):  # empty or NA: sampled, not completed
    raw = raw.strip()
    if raw == "" or raw.upper() == "NA":
        return None
    return float(raw.replace(",", ".") if semicolons else raw)
obs = [(r[hi].strip(), value(r[vi]), r[si] if si >= 0 else "") for r in table[1:] if any(x.strip() for x in r)]

values = {n: [] for n in names}
if MATCHED:  # each stratum's sample, then its replacements in rank order while a sampled household is left to replace
    row = {h: v for h, v, _ in obs}
    for s in c["strata"]:
        name, n = s["name"], s["sampleSize"]
        take = lambda h: values[name].append(row[h]) if row[h] is not None else None
        left = 0
        for h in orders[name][:n]:
            if h in row:
                take(h)
            if row.get(h) is None:
                left += 1
        gap = False
        for h in orders[name][n:]:
            if h not in row:
                gap = gap or left > 0
            elif not gap and left > 0:
                take(h)
                left -= row[h] is not None
            elif INCLUDE_UNDRAWN:  # out of rank order, or visited with nothing left to replace
                take(h)
else:
    for h, v, st in obs:
        name = by_key.get(key(st)) if stratified else "all"
        if name is not None and v is not None:
            values[name].append(v)

stats = []
for name in names:
    xs, N = values[name], len(ids[name])
    if not xs:
        continue
    n, mean = len(xs), statistics.fmean(xs)
    sd = statistics.stdev(xs) if n > 1 else float("nan")
    g = {"group": name, "n": n, "mean": mean, "sd": sd, "N": N, "r": None}
    if 1 < n <= N and mean > 0:  # more observations than households: no precision; a census: 0
        g["r"] = Z * sd / (mean * math.sqrt(n)) * math.sqrt(1 - n / N)
    stats.append(g)
if stratified and len(stats) == len(names) and all(1 < g["n"] <= g["N"] for g in stats) and any(g["mean"] > 0 for g in stats):
    N = sum(g["N"] for g in stats)
    mean = sum(g["N"] / N * g["mean"] for g in stats)
    V = sum((g["N"] / N) ** 2 * (1 - g["n"] / g["N"]) * g["sd"] ** 2 / g["n"] for g in stats)
    stats.append({"group": "overall", "n": sum(g["n"] for g in stats), "mean": mean, "N": N, "r": Z * math.sqrt(V) / mean})
for g in stats:
    r = "no precision" if g["r"] is None else "r = %.4f %%" % (100 * g["r"])
    print(g["group"], "n =", g["n"], "of N =", g["N"], "mean = %.6g" % g["mean"], r)

if len(sys.argv) > 1:
    package = json.load(open(sys.argv[1], encoding="utf-8"))
    project = next(x for x in package["projects"] if x["projectId"] == PROJECT)
    stated = {x["group"]: x for x in project["supporting"]["observations"]["stats"]}
    same = lambda a, b: a == b or (a is not None and b is not None and abs(a - b) <= 1e-9 * max(abs(a), abs(b)))
    assert sorted(stated) == sorted(g["group"] for g in stats), "the table's groups: package %s, recomputed %s" % (sorted(stated), sorted(g["group"] for g in stats))
    for g in stats:
        x = stated[g["group"]]
        pairs = (("n", "n"), ("mean", "mean"), ("N", "population"), ("r", "achievedPrecision"))
        for mine, theirs in pairs + ((("sd", "sd"),) if g["group"] != "overall" and g["n"] > 1 else ()):
            assert same(g[mine], x.get(theirs)), "%s %s: the package states %s, recomputed %s" % (g["group"], theirs, x.get(theirs), g[mine])
    print("OK: the package's observation table recomputed from", OBSERVATIONS)
`;
}

export function pythonRecipe(files: {
  frame: string;
  commitment: string;
  proof: string;
  stratified: boolean;
  observations?: RecipeObservations;
}): string {
  return (
    String.raw`# cookstove-sampling/v1 re-derived with Python's standard library only (python3 recipe.py).
# Checks the frame file, frameHash, randomness = sha256(signature), the seed, every
# stratum's sample and replacement order (orderDigest), and prints them; with
# observations, their table too (python3 recipe.py package.json compares it with
# the package's). The BLS
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

orders = {}
for s, ps in zip(c["strata"], p["strata"]):
    name, n = s["name"], s["sampleSize"]
    ticket = {i: hmac.new(seed, (name + "\x1f" + i).encode("utf-8"), hashlib.sha256).hexdigest() for i in ids[name]}
    order = sorted(ids[name], key=lambda i: (ticket[i], i.encode("utf-8")))
    assert [x["household_id"] for x in ps["sample"]] == order[:n], "sample of " + name
    assert [x["ticket"] for x in ps["sample"]] == [ticket[i] for i in order[:n]], "tickets of " + name
    assert hashlib.sha256("".join(i + "\n" for i in order).encode("utf-8")).hexdigest() == ps["orderDigest"], "order of " + name
    orders[name] = order
    print(name, "sample:", " ".join(order[:n]))
    print(name, "replacements in order:", " ".join(order[n:n + 10]), "..." if len(order) > n + 10 else "")
print("OK: frame file, frameHash, seed, sample and replacement order of every stratum recomputed")
` + (files.observations ? pythonPrecisionTable(files.observations) : '')
  );
}
