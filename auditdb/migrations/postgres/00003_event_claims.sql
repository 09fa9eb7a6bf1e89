-- Which server sends each webhook event that every server sharing the
-- database sees (a new version, seen by each replica's refresh): the one
-- whose insert of the event's key succeeds. For PostgreSQL.

-- +goose Up
CREATE TABLE event_claims (
	event_key  TEXT PRIMARY KEY,
	-- claimed_at is in microseconds since 1970 (UTC).
	claimed_at BIGINT NOT NULL
);

-- +goose Down
DROP TABLE event_claims;
