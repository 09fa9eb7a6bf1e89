-- What keeps the label history of tessera serve complete, for
-- SQLite. label_refs holds the value of each prompt's label ref when
-- it was last recorded, so that a move made while no server ran is
-- found when one starts; pending_moves holds the moves a server is about
-- to make through the API, written before the ref moves, so that a move
-- whose server stops before recording it is recorded by the next server
-- that reads the ref.

-- +goose Up
CREATE TABLE label_refs (
	ref         TEXT PRIMARY KEY,
	-- commit_hash is "" for a label that was removed.
	commit_hash TEXT NOT NULL,
	-- seq counts the changes of the row, from 1: a change is made only
	-- from the seq the writer read (compare-and-swap).
	seq         INTEGER NOT NULL
);

CREATE TABLE pending_moves (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	ref          TEXT NOT NULL,
	-- old_commit and new_commit are the ref's values before and after the
	-- move, "" for none; the from_ and to_ columns are the move as the
	-- history keeps it (its from may be a label every prompt shares).
	old_commit   TEXT NOT NULL,
	new_commit   TEXT NOT NULL,
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
CREATE INDEX pending_moves_ref ON pending_moves (ref, id);

-- +goose Down
DROP TABLE pending_moves;
DROP TABLE label_refs;
