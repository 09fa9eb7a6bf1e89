package auditdb

import (
	"bytes"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/tessera-dev/tessera/audit"
)

// ErrNotFound is wrapped by the error of a lookup that finds nothing.
var ErrNotFound = audit.ErrNotFound

// ErrUnauthorized is wrapped by the error of Authenticate when the key
// pair is not known.
var ErrUnauthorized = errors.New("unauthorized")

// ErrClosed is returned by calls on a closed DB.
var ErrClosed = errors.New("audit database is closed")

//go:embed migrations
var migrations embed.FS

type dialect int

const (
	sqliteDB dialect = iota
	postgresDB
)

func (d dialect) String() string {
	if d == postgresDB {
		return "postgres"
	}
	return "sqlite"
}

// DB is an audit database. Its methods are safe for concurrent use.
type DB struct {
	sql     *sql.DB
	dialect dialect
	name    string // for messages, without a password

	q queries

	reqs      chan *writeReq
	quit      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup

	keyMu sync.Mutex
	key   []byte // signs appended records when set
}

// SetKey makes Append sign every record it adds from now on with key,
// the HMAC-SHA256 key of the audit trail (see audit.CheckKey and
// audit.Log.Key), as a keyed log signs its records; nil stops signing.
// VerifyChain and replay check the signatures when given the key.
func (db *DB) SetKey(key []byte) error {
	if key != nil {
		if err := audit.CheckKey(key); err != nil {
			return fmt.Errorf("audit database %s: %w", db.name, err)
		}
	}
	db.keyMu.Lock()
	defer db.keyMu.Unlock()
	db.key = bytes.Clone(key)
	return nil
}

// signingKey is the key appends are signed with, or nil.
func (db *DB) signingKey() []byte {
	db.keyMu.Lock()
	defer db.keyMu.Unlock()
	return db.key
}

// Open opens the database url names and brings its schema up to date:
// "sqlite:PATH", "file:PATH" or a bare PATH is a SQLite file, created
// with its directory when missing and used in WAL mode; "postgres://…" or
// "postgresql://…" is a PostgreSQL server (pgx's connection string). Close
// the DB when done.
func Open(ctx context.Context, url string) (*DB, error) {
	d, dsn, name, err := parseURL(url)
	if err != nil {
		return nil, err
	}
	db := &DB{dialect: d, name: name, reqs: make(chan *writeReq), quit: make(chan struct{})}
	switch d {
	case sqliteDB:
		if dir := filepath.Dir(name); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("audit database %s: %w", name, err)
			}
		}
		db.sql, err = sql.Open("sqlite", dsn)
		if err == nil {
			// One writer (the group-commit goroutine) and a few
			// readers; WAL lets them run side by side.
			db.sql.SetMaxOpenConns(8)
			db.sql.SetMaxIdleConns(8)
		}
	case postgresDB:
		db.sql, err = sql.Open("pgx", dsn)
		if err == nil {
			db.sql.SetMaxOpenConns(16)
			db.sql.SetMaxIdleConns(8)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("audit database %s: %w", name, err)
	}
	if err := db.sql.PingContext(ctx); err != nil {
		db.sql.Close()
		return nil, fmt.Errorf("audit database %s: cannot connect: %w", name, err)
	}
	if err := db.migrate(ctx); err != nil {
		db.sql.Close()
		return nil, fmt.Errorf("audit database %s: migrate the schema: %w", name, err)
	}
	db.q = newQueries(d)
	db.wg.Add(1)
	go db.writer()
	return db, nil
}

// parseURL returns the dialect of url, the driver's data source name and
// the name messages use.
func parseURL(u string) (dialect, string, string, error) {
	switch {
	case strings.HasPrefix(u, "postgres://"), strings.HasPrefix(u, "postgresql://"):
		name := u
		pu, err := url.Parse(u)
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			return 0, "", "", fmt.Errorf("audit database URL %q: %v: write postgres://USER:PASSWORD@HOST:PORT/DATABASE", redact(u), err)
		}
		name = pu.Redacted()
		return postgresDB, u, name, nil
	case u == "":
		return 0, "", "", errors.New(`audit database URL is empty: give a SQLite file (sqlite:PATH, or PATH) or postgres://…`)
	}
	path := u
	for _, p := range []string{"sqlite://", "sqlite:", "file:"} {
		if strings.HasPrefix(path, p) {
			path = path[len(p):]
			break
		}
	}
	if path == "" || strings.ContainsAny(path, "?\x00") {
		return 0, "", "", fmt.Errorf("audit database URL %q: a SQLite path must be non-empty and hold no '?'", u)
	}
	if i := strings.Index(path, "://"); i > 0 && !strings.ContainsAny(path[:i], `/\.`) {
		return 0, "", "", fmt.Errorf("audit database URL %q: unknown scheme %q: use sqlite:PATH, a bare path or postgres://…", u, path[:i])
	}
	params := url.Values{}
	params.Add("_pragma", "journal_mode(WAL)")
	params.Add("_pragma", "synchronous(FULL)")
	params.Add("_pragma", "busy_timeout(10000)")
	params.Add("_pragma", "foreign_keys(1)")
	params.Set("_txlock", "immediate")
	return sqliteDB, path + "?" + params.Encode(), path, nil
}

// redact hides what looks like a password in a URL that did not parse.
func redact(u string) string {
	if at := strings.LastIndexByte(u, '@'); at >= 0 {
		if s := strings.Index(u, "://"); s >= 0 && s < at {
			return u[:s+3] + "…" + u[at:]
		}
	}
	return u
}

// migrate runs the schema's migrations.
func (db *DB) migrate(ctx context.Context) error {
	sub, err := fs.Sub(migrations, "migrations/"+db.dialect.String())
	if err != nil {
		return err
	}
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true), goose.WithTableName("tessera_schema_version")}
	gd := goose.DialectSQLite3
	if db.dialect == postgresDB {
		gd = goose.DialectPostgres
		// Replicas starting together take turns.
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(gd, db.sql, sub, opts...)
	if err != nil {
		return err
	}
	_, err = p.Up(ctx)
	return err
}

// Name is the database as messages name it: the SQLite file, or the
// PostgreSQL URL without its password.
func (db *DB) Name() string { return db.name }

// Dialect is "sqlite" or "postgres".
func (db *DB) Dialect() string { return db.dialect.String() }

// Close stops the writer, after the appends it has taken are committed,
// and closes the database. Calls after Close fail with ErrClosed.
func (db *DB) Close() error {
	err := ErrClosed
	db.closeOnce.Do(func() {
		close(db.quit)
		db.wg.Wait()
		err = db.sql.Close()
	})
	if err == ErrClosed {
		return nil
	}
	return err
}

// queries are the statements of a dialect.
type queries struct {
	head, insertRecord, recordByID, linesFrom, byID, byHash, all string
	addMove, moves, movesOf                                      string
	putKey, getKey                                               string
	addDelivery, deliveries                                      string
	claimEvent                                                   string
	labelRefs, insertRef, updateRef, addPending, pending         string
	dropPending                                                  string
}

func newQueries(d dialect) queries {
	q := queries{
		head:         `SELECT line_no, line_hash FROM audit_records ORDER BY line_no DESC LIMIT 1`,
		insertRecord: `INSERT INTO audit_records (line_no, correlation_id, prompt_hash, assembled_at, preset, label, workflow_id, node_id, line_hash, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		recordByID:   `SELECT line FROM audit_records WHERE correlation_id = ? ORDER BY line_no LIMIT 1`,
		linesFrom:    `SELECT line_no, line FROM audit_records WHERE line_no > ? ORDER BY line_no LIMIT ?`,
		byID:         `SELECT line_no, line FROM audit_records WHERE correlation_id = ? AND line_no > ? ORDER BY line_no LIMIT ?`,
		byHash:       `SELECT line_no, line FROM audit_records WHERE prompt_hash = ? AND line_no > ? ORDER BY line_no LIMIT ?`,
		addMove:      `INSERT INTO label_moves (prompt, label, from_version, to_version, from_commit, to_commit, actor, reason, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		moves:        `SELECT id, prompt, label, from_version, to_version, from_commit, to_commit, actor, reason, at FROM label_moves ORDER BY id DESC LIMIT ?`,
		movesOf:      `SELECT id, prompt, label, from_version, to_version, from_commit, to_commit, actor, reason, at FROM label_moves WHERE prompt = ? ORDER BY id DESC LIMIT ?`,
		putKey:       `INSERT INTO api_keys (public, secret_hash, role, created) VALUES (?, ?, ?, ?) ON CONFLICT (public) DO UPDATE SET secret_hash = excluded.secret_hash, role = excluded.role`,
		getKey:       `SELECT secret_hash, role, created FROM api_keys WHERE public = ?`,
		addDelivery:  `INSERT INTO webhook_deliveries (event_id, url, action, prompt, version, attempts, status, error, ok, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		deliveries:   `SELECT id, event_id, url, action, prompt, version, attempts, status, error, ok, at FROM webhook_deliveries ORDER BY id DESC LIMIT ?`,
		claimEvent:   `INSERT INTO event_claims (event_key, claimed_at) VALUES (?, ?) ON CONFLICT (event_key) DO NOTHING`,
		labelRefs:    `SELECT ref, commit_hash, seq FROM label_refs`,
		insertRef:    `INSERT INTO label_refs (ref, commit_hash, seq) VALUES (?, ?, 1) ON CONFLICT (ref) DO NOTHING`,
		updateRef:    `UPDATE label_refs SET commit_hash = ?, seq = seq + 1 WHERE ref = ? AND seq = ?`,
		addPending:   `INSERT INTO pending_moves (ref, old_commit, new_commit, prompt, label, from_version, to_version, from_commit, to_commit, actor, reason, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		pending:      `SELECT id, ref, old_commit, new_commit, prompt, label, from_version, to_version, from_commit, to_commit, actor, reason, at FROM pending_moves ORDER BY id`,
		dropPending:  `DELETE FROM pending_moves WHERE id = ?`,
	}
	if d == postgresDB {
		for _, s := range []*string{&q.head, &q.insertRecord, &q.recordByID, &q.linesFrom, &q.byID, &q.byHash, &q.all, &q.addMove, &q.moves, &q.movesOf, &q.putKey, &q.getKey, &q.addDelivery, &q.deliveries, &q.claimEvent,
			&q.labelRefs, &q.insertRef, &q.updateRef, &q.addPending, &q.pending, &q.dropPending} {
			*s = dollars(*s)
		}
	}
	return q
}

// dollars numbers a statement's ? placeholders as PostgreSQL's $1, $2…
func dollars(s string) string {
	var b strings.Builder
	n := 0
	for _, c := range s {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}
