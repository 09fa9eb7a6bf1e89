-- The audit database of Tessera, for SQLite. The PostgreSQL file beside
-- this one holds the same tables; only the column types differ.

-- +goose Up
CREATE TABLE audit_records (
	-- line_no is the record's line in the JSON Lines export, from 1.
	line_no        INTEGER PRIMARY KEY,
	correlation_id TEXT NOT NULL,
	prompt_hash    TEXT NOT NULL,
	assembled_at   TEXT NOT NULL,
	preset         TEXT NOT NULL,
	label          TEXT NOT NULL,
	workflow_id    TEXT NOT NULL,
	node_id        TEXT NOT NULL,
	-- line_hash is audit.LineHash(line): the prev_hash of the next line.
	line_hash      TEXT NOT NULL,
	-- line is the record's JSON line, byte for byte, without its newline.
	line           BLOB NOT NULL
);
CREATE INDEX audit_records_correlation_id ON audit_records (correlation_id);
CREATE INDEX audit_records_prompt_hash ON audit_records (prompt_hash);
CREATE INDEX audit_records_assembled_at ON audit_records (assembled_at);
CREATE INDEX audit_records_preset ON audit_records (preset, label);

CREATE TABLE label_moves (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	prompt       TEXT NOT NULL,
	label        TEXT NOT NULL,
	from_version INTEGER NOT NULL,
	to_version   INTEGER NOT NULL,
	from_commit  TEXT NOT NULL,
	to_commit    TEXT NOT NULL,
	actor        TEXT NOT NULL,
	reason       TEXT NOT NULL,
	-- at is in microseconds since 1970 (UTC).
	at           BIGINT NOT NULL
);
CREATE INDEX label_moves_prompt ON label_moves (prompt, id);

CREATE TABLE api_keys (
	public      TEXT PRIMARY KEY,
	-- secret_hash is "sha256:" SALT ":" SHA-256(SALT || secret), in hex.
	secret_hash TEXT NOT NULL,
	role        TEXT NOT NULL,
	created     BIGINT NOT NULL
);

-- +goose Down
DROP TABLE api_keys;
DROP TABLE label_moves;
DROP TABLE audit_records;
