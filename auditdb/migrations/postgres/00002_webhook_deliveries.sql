-- The webhook delivery log of tessera serve, for PostgreSQL.

-- +goose Up
CREATE TABLE webhook_deliveries (
	id       BIGSERIAL PRIMARY KEY,
	event_id TEXT NOT NULL,
	url      TEXT NOT NULL,
	action   TEXT NOT NULL,
	prompt   TEXT NOT NULL,
	version  INTEGER NOT NULL,
	attempts INTEGER NOT NULL,
	status   INTEGER NOT NULL,
	error    TEXT NOT NULL,
	ok       INTEGER NOT NULL,
	-- at is in microseconds since 1970 (UTC).
	at       BIGINT NOT NULL
);

-- +goose Down
DROP TABLE webhook_deliveries;
