/**
 * The registry area's migrations (applied by src/storage/migrate.ts at open,
 * recorded in schema_version under area "registry"). Append only: never edit
 * a released migration, add the next version.
 *
 * Each migration is written per dialect (docs/storage.md, "PostgreSQL"): the
 * PostgreSQL text differs only where the dialects do — identity columns for
 * AUTOINCREMENT, BIGINT where a value passes 2^31 (deadline_ms, weight), and
 * `col::jsonb IS NOT NULL` for json_valid (the columns stay TEXT, so a row
 * reads back as the same string on both).
 */
import type { Migration } from '../../storage/storage.ts';

export const REGISTRY_MIGRATIONS: Migration[] = [
  {
    version: 1,
    description: 'api keys, sample designs, domains, proposals, votes, idempotency',
    sql: {
      sqlite: `
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  did TEXT NOT NULL,
  roles TEXT NOT NULL,
  label TEXT,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE TABLE designs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  design_id TEXT NOT NULL UNIQUE,
  project_id TEXT NOT NULL,
  version INTEGER NOT NULL CHECK (version >= 1),
  previous_id TEXT REFERENCES designs(design_id),
  status TEXT NOT NULL CHECK (status IN ('draft','submitted','approved','rejected')),
  record TEXT NOT NULL CHECK (json_valid(record)),
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX designs_project ON designs(project_id, seq);
CREATE UNIQUE INDEX designs_one_successor ON designs(previous_id) WHERE previous_id IS NOT NULL;
CREATE TABLE domains (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  class TEXT,
  state TEXT NOT NULL CHECK (state IN ('registered','pending_verification','verified','verification_rejected','deactivated')),
  version INTEGER NOT NULL CHECK (version >= 1),
  also_known_as TEXT,
  name TEXT,
  controllers TEXT NOT NULL CHECK (json_valid(controllers)),
  record TEXT NOT NULL CHECK (json_valid(record)),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX domains_aka ON domains(coalesce(class, ''), also_known_as) WHERE also_known_as IS NOT NULL AND state <> 'deactivated';
CREATE INDEX domains_type ON domains(type, seq);
CREATE INDEX domains_class ON domains(class, seq);
CREATE TABLE proposals (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  domain_id TEXT NOT NULL REFERENCES domains(id),
  status TEXT NOT NULL CHECK (status IN ('open','passed','executed','rejected','vetoed','expired','cancelled')),
  snapshot TEXT NOT NULL CHECK (json_valid(snapshot)),
  rule TEXT NOT NULL CHECK (json_valid(rule)),
  revoting INTEGER NOT NULL,
  deadline TEXT NOT NULL,
  deadline_ms INTEGER NOT NULL,
  package TEXT NOT NULL CHECK (json_valid(package)),
  description TEXT,
  proposer TEXT NOT NULL,
  created_at TEXT NOT NULL,
  closed_at TEXT
);
CREATE UNIQUE INDEX proposals_one_open ON proposals(domain_id) WHERE status = 'open';
CREATE TABLE votes (
  proposal_id TEXT NOT NULL REFERENCES proposals(id),
  voter TEXT NOT NULL,
  option TEXT NOT NULL CHECK (option IN ('yes','no','abstain','veto')),
  weight INTEGER NOT NULL,
  cast_at TEXT NOT NULL,
  PRIMARY KEY (proposal_id, voter)
);
CREATE TABLE idempotency (
  principal TEXT NOT NULL,
  key TEXT NOT NULL,
  route TEXT NOT NULL,
  body_hash TEXT NOT NULL,
  status_code INTEGER NOT NULL,
  response TEXT NOT NULL,
  location TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (principal, key)
);
`,
      postgres: `
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  did TEXT NOT NULL,
  roles TEXT NOT NULL,
  label TEXT,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE TABLE designs (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  design_id TEXT NOT NULL UNIQUE,
  project_id TEXT NOT NULL,
  version INTEGER NOT NULL CHECK (version >= 1),
  previous_id TEXT REFERENCES designs(design_id),
  status TEXT NOT NULL CHECK (status IN ('draft','submitted','approved','rejected')),
  record TEXT NOT NULL CHECK (record::jsonb IS NOT NULL),
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX designs_project ON designs(project_id, seq);
CREATE UNIQUE INDEX designs_one_successor ON designs(previous_id) WHERE previous_id IS NOT NULL;
CREATE TABLE domains (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  class TEXT,
  state TEXT NOT NULL CHECK (state IN ('registered','pending_verification','verified','verification_rejected','deactivated')),
  version INTEGER NOT NULL CHECK (version >= 1),
  also_known_as TEXT,
  name TEXT,
  controllers TEXT NOT NULL CHECK (controllers::jsonb IS NOT NULL),
  record TEXT NOT NULL CHECK (record::jsonb IS NOT NULL),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX domains_aka ON domains(coalesce(class, ''), also_known_as) WHERE also_known_as IS NOT NULL AND state <> 'deactivated';
CREATE INDEX domains_type ON domains(type, seq);
CREATE INDEX domains_class ON domains(class, seq);
CREATE TABLE proposals (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  domain_id TEXT NOT NULL REFERENCES domains(id),
  status TEXT NOT NULL CHECK (status IN ('open','passed','executed','rejected','vetoed','expired','cancelled')),
  snapshot TEXT NOT NULL CHECK (snapshot::jsonb IS NOT NULL),
  rule TEXT NOT NULL CHECK (rule::jsonb IS NOT NULL),
  revoting INTEGER NOT NULL,
  deadline TEXT NOT NULL,
  deadline_ms BIGINT NOT NULL,
  package TEXT NOT NULL CHECK (package::jsonb IS NOT NULL),
  description TEXT,
  proposer TEXT NOT NULL,
  created_at TEXT NOT NULL,
  closed_at TEXT
);
CREATE UNIQUE INDEX proposals_one_open ON proposals(domain_id) WHERE status = 'open';
CREATE TABLE votes (
  proposal_id TEXT NOT NULL REFERENCES proposals(id),
  voter TEXT NOT NULL,
  option TEXT NOT NULL CHECK (option IN ('yes','no','abstain','veto')),
  weight BIGINT NOT NULL,
  cast_at TEXT NOT NULL,
  PRIMARY KEY (proposal_id, voter)
);
CREATE TABLE idempotency (
  principal TEXT NOT NULL,
  key TEXT NOT NULL,
  route TEXT NOT NULL,
  body_hash TEXT NOT NULL,
  status_code INTEGER NOT NULL,
  response TEXT NOT NULL,
  location TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (principal, key)
);
`,
    },
  },
];
