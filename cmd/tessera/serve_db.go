package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/auditdb"
	"github.com/tessera-dev/tessera/serve"
)

// memoryDB is the --db value that keeps everything in memory.
const memoryDB = "memory"

// defaultDB is the database serve uses without --db: a SQLite file in the
// catalog's .tessera directory.
func defaultDB(root string) string {
	return "sqlite:" + filepath.Join(root, ".tessera", "serve.db")
}

// openStore opens the store --db names: "memory", or an audit database
// URL (auditdb.Open). close releases it.
func openStore(ctx context.Context, url string) (store serve.Store, close func() error, err error) {
	if url == memoryDB {
		return serve.NewMemStore(), func() error { return nil }, nil
	}
	db, err := auditdb.Open(ctx, url)
	if err != nil {
		return nil, nil, fmt.Errorf("--db %s: %w", redactURL(url), err)
	}
	return dbStore{db}, db.Close, nil
}

// redactURL hides a password in a database URL.
func redactURL(u string) string {
	at := strings.LastIndex(u, "@")
	scheme := strings.Index(u, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return u
	}
	creds := u[scheme+3 : at]
	if user, _, ok := strings.Cut(creds, ":"); ok {
		return u[:scheme+3] + user + ":***" + u[at:]
	}
	return u
}

// dbStore is an audit database as serve's Store: the same methods, with
// serve's types for keys and label moves.
type dbStore struct{ db *auditdb.DB }

func (s dbStore) Append(ctx context.Context, recs ...*audit.Record) error {
	return s.db.Append(ctx, recs...)
}

func (s dbStore) Record(ctx context.Context, id string) (*audit.Record, error) {
	return s.db.Record(ctx, id)
}

func (s dbStore) AddLabelMove(ctx context.Context, m serve.LabelMove) (serve.LabelMove, error) {
	got, err := s.db.AddLabelMove(ctx, auditdb.LabelMove(m))
	return serve.LabelMove(got), err
}

func (s dbStore) LabelMoves(ctx context.Context, prompt string, limit int) ([]serve.LabelMove, error) {
	ms, err := s.db.LabelMoves(ctx, prompt, limit)
	out := make([]serve.LabelMove, len(ms))
	for i, m := range ms {
		out[i] = serve.LabelMove(m)
	}
	return out, err
}

func (s dbStore) PutKey(ctx context.Context, public, secret, role string) error {
	return s.db.PutKey(ctx, public, secret, role)
}

func (s dbStore) Authenticate(ctx context.Context, public, secret string) (serve.Key, error) {
	k, err := s.db.Authenticate(ctx, public, secret)
	if errors.Is(err, auditdb.ErrUnauthorized) {
		return serve.Key{}, serve.ErrBadKey
	}
	return serve.Key(k), err
}

// Kind names the database's dialect in serve's metrics.
func (s dbStore) Kind() string { return s.db.Dialect() }

// ListAudit lists the records f selects, newest first, from the
// database's index, for the inspector's search: a prompt's name matches
// a record's label and, when it holds a "/", its workflow and node.
func (s dbStore) ListAudit(ctx context.Context, f serve.AuditFilter) ([]*audit.Record, error) {
	base := auditdb.Filter{ID: f.ID, Hash: f.Hash, Limit: f.Limit}
	queries := []auditdb.Filter{base}
	if f.Prompt != "" {
		byLabel := base
		byLabel.Label = f.Prompt
		queries = []auditdb.Filter{byLabel}
		if wf, node, ok := strings.Cut(f.Prompt, "/"); ok {
			byNode := base
			byNode.WorkflowID, byNode.NodeID = wf, node
			queries = append(queries, byNode)
		}
	}
	seen := map[int]bool{}
	var entries []audit.Entry
	for _, q := range queries {
		got, err := s.db.List(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, e := range got {
			if !seen[e.Line] {
				seen[e.Line] = true
				entries = append(entries, e)
			}
		}
	}
	slices.SortFunc(entries, func(a, b audit.Entry) int { return b.Line - a.Line })
	if f.Limit > 0 && len(entries) > f.Limit {
		entries = entries[:f.Limit]
	}
	out := make([]*audit.Record, len(entries))
	for i, e := range entries {
		out[i] = e.Record
	}
	return out, nil
}

// AddDelivery keeps a webhook delivery in the database, so the delivery
// log outlives the server and every server sharing the database shows it.
func (s dbStore) AddDelivery(ctx context.Context, d serve.Delivery) error {
	_, err := s.db.AddDelivery(ctx, auditdb.Delivery{EventID: d.EventID, URL: d.URL, Action: d.Action, Prompt: d.Prompt, Version: d.Version,
		Attempts: d.Attempts, Status: d.Status, Error: d.Error, OK: d.OK, At: d.At})
	return err
}

// Deliveries returns the webhook deliveries kept, newest first.
func (s dbStore) Deliveries(ctx context.Context, limit int) ([]serve.Delivery, error) {
	ds, err := s.db.Deliveries(ctx, limit)
	if err != nil {
		return nil, err
	}
	out := make([]serve.Delivery, len(ds))
	for i, d := range ds {
		out[i] = serve.Delivery{EventID: d.EventID, URL: d.URL, Action: d.Action, Prompt: d.Prompt, Version: d.Version,
			Attempts: d.Attempts, Status: d.Status, Error: d.Error, OK: d.OK, At: d.At}
	}
	return out, nil
}

// ClaimEvent claims a webhook event in the database, so that of the
// servers sharing it one sends the event.
func (s dbStore) ClaimEvent(ctx context.Context, key string) (bool, error) {
	return s.db.ClaimEvent(ctx, key)
}

// LabelRefs returns the label refs the database recorded.
func (s dbStore) LabelRefs(ctx context.Context) (map[string]serve.LabelRef, error) {
	rows, err := s.db.LabelRefs(ctx)
	out := make(map[string]serve.LabelRef, len(rows))
	for k, r := range rows {
		out[k] = serve.LabelRef(r)
	}
	return out, err
}

// AddPendingMoves keeps moves about to be made in the database.
func (s dbStore) AddPendingMoves(ctx context.Context, ms []serve.PendingMove) ([]serve.PendingMove, error) {
	in := make([]auditdb.PendingMove, len(ms))
	for i, p := range ms {
		in[i] = auditdb.PendingMove{ID: p.ID, Ref: p.Ref, Old: p.Old, New: p.New, Move: auditdb.LabelMove(p.Move)}
	}
	got, err := s.db.AddPendingMoves(ctx, in)
	return pendingMoves(got), err
}

// PendingMoves returns the moves kept as pending in the database.
func (s dbStore) PendingMoves(ctx context.Context) ([]serve.PendingMove, error) {
	got, err := s.db.PendingMoves(ctx)
	return pendingMoves(got), err
}

func pendingMoves(ps []auditdb.PendingMove) []serve.PendingMove {
	out := make([]serve.PendingMove, len(ps))
	for i, p := range ps {
		out[i] = serve.PendingMove{ID: p.ID, Ref: p.Ref, Old: p.Old, New: p.New, Move: serve.LabelMove(p.Move)}
	}
	return out
}

// DropPendingMoves deletes pending moves that were not made.
func (s dbStore) DropPendingMoves(ctx context.Context, ids ...int64) error {
	return s.db.DropPendingMoves(ctx, ids...)
}

// AdvanceLabelRef records a label ref's moves in one transaction, if no
// other server recorded them first.
func (s dbStore) AdvanceLabelRef(ctx context.Context, ref string, seq int64, commit string, moves []serve.LabelMove, done []int64) (bool, error) {
	in := make([]auditdb.LabelMove, len(moves))
	for i, m := range moves {
		in[i] = auditdb.LabelMove(m)
	}
	return s.db.AdvanceLabelRef(ctx, ref, seq, commit, in, done)
}

// sshOptions are the keys of an ssh --remote, from the environment:
// TESSERA_SSH_KEY (a private key file) with TESSERA_SSH_KEY_PASSPHRASE,
// and TESSERA_SSH_KNOWN_HOSTS (known_hosts files, separated as in PATH).
func sshOptions() serve.SSHOptions {
	return serve.SSHOptions{
		KeyFile:       os.Getenv("TESSERA_SSH_KEY"),
		KeyPassphrase: os.Getenv("TESSERA_SSH_KEY_PASSPHRASE"),
		KnownHosts:    filepath.SplitList(os.Getenv("TESSERA_SSH_KNOWN_HOSTS")),
	}
}
