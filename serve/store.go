package serve

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tessera-dev/tessera/audit"
)

// Roles of an API key, each allowed what the one before it is.
const (
	// RoleViewer reads prompts, versions, diffs and history.
	RoleViewer = "viewer"
	// RoleMember also renders, replays and moves unprotected labels.
	RoleMember = "member"
	// RoleAdmin also moves protected labels and refreshes the registry.
	RoleAdmin = "admin"
)

// roleRank orders the roles; an unknown role ranks below viewer.
func roleRank(role string) int {
	switch role {
	case RoleViewer:
		return 1
	case RoleMember:
		return 2
	case RoleAdmin:
		return 3
	}
	return 0
}

// CheckRole returns an error unless role is viewer, member or admin.
func CheckRole(role string) error {
	if roleRank(role) == 0 {
		return fmt.Errorf("role %q is not one of viewer, member and admin", role)
	}
	return nil
}

// Key is an API key as the store gives it back: never its secret.
type Key struct {
	Public  string
	Role    string
	Created time.Time
}

// LabelMove is one move of a prompt's label, kept for its history. A
// removal has ToVersion 0; a label set for the first time has
// FromVersion 0.
type LabelMove struct {
	ID                     int64
	Prompt, Label          string
	FromVersion, ToVersion int
	FromCommit, ToCommit   string
	Actor, Reason          string
	At                     time.Time
}

// ErrNotFound is wrapped by a Store's Record for a record that does not
// exist: audit.ErrNotFound, as every audit store wraps it.
var ErrNotFound = audit.ErrNotFound

// ErrBadKey is returned by Store.Authenticate for a key pair it does not
// hold.
var ErrBadKey = errors.New("unknown public key or wrong secret key")

// Store keeps what the server writes: API keys (hashed), the history of
// label moves and the audit records of renders. NewMemStore is the
// in-memory one; a database (package auditdb) satisfies it through a
// thin adapter. Every method is safe for concurrent use.
type Store interface {
	// Append stores audit records.
	Append(ctx context.Context, recs ...*audit.Record) error
	// Record returns the record with correlation id id, or an error
	// wrapping ErrNotFound.
	Record(ctx context.Context, id string) (*audit.Record, error)
	// AddLabelMove stores a move and returns it with its ID set.
	AddLabelMove(ctx context.Context, m LabelMove) (LabelMove, error)
	// LabelMoves returns prompt's moves, newest first, at most limit.
	LabelMoves(ctx context.Context, prompt string, limit int) ([]LabelMove, error)
	// PutKey stores a key pair with its role, the secret hashed.
	PutKey(ctx context.Context, public, secret, role string) error
	// Authenticate returns the key of the pair, or an error wrapping
	// ErrBadKey; the secret is compared in constant time.
	Authenticate(ctx context.Context, public, secret string) (Key, error)
}

// MemStore is a Store in memory, for one process and for tests, and a
// LabelLedger. It keeps at most the newest 110% of MaxRecords audit
// records, so that a long-running server's memory stays bounded;
// everything is lost when the process ends.
type MemStore struct {
	mu      sync.RWMutex
	records map[string]*audit.Record
	order   []string // record ids, oldest first
	moves   []LabelMove
	keys    map[string]memKey
	claims  map[string]bool
	*memLedger
}

// MaxRecords is how many audit records a MemStore keeps.
const MaxRecords = 100_000

type memKey struct {
	hash [sha256.Size]byte
	key  Key
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore {
	s := &MemStore{records: map[string]*audit.Record{}, keys: map[string]memKey{}}
	s.memLedger = newMemLedger(s)
	return s
}

// Append stores the records; a record with an id already held replaces
// it.
func (s *MemStore) Append(ctx context.Context, recs ...*audit.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range recs {
		if r == nil || r.CorrelationID == "" {
			return errors.New("memstore: a record without a correlation id")
		}
		if _, ok := s.records[r.CorrelationID]; !ok {
			s.order = append(s.order, r.CorrelationID)
		}
		s.records[r.CorrelationID] = r
	}
	// Trimmed a tenth at a time, so that a full store does not copy its
	// index on every append.
	if n := len(s.order) - MaxRecords; n > MaxRecords/10 {
		for _, id := range s.order[:n] {
			delete(s.records, id)
		}
		s.order = append(s.order[:0], s.order[n:]...)
	}
	return nil
}

// Record returns the record with correlation id id.
func (s *MemStore) Record(ctx context.Context, id string) (*audit.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.records[id]
	if !ok {
		return nil, fmt.Errorf("audit record %q: %w", id, ErrNotFound)
	}
	return r, nil
}

// AddLabelMove stores m, numbered from 1.
func (s *MemStore) AddLabelMove(ctx context.Context, m LabelMove) (LabelMove, error) {
	if err := ctx.Err(); err != nil {
		return LabelMove{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m.ID = int64(len(s.moves) + 1)
	s.moves = append(s.moves, m)
	return m, nil
}

// LabelMoves returns prompt's moves, newest first, at most limit (all
// when limit is 0 or less).
func (s *MemStore) LabelMoves(ctx context.Context, prompt string, limit int) ([]LabelMove, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []LabelMove
	for _, m := range slices.Backward(s.moves) {
		if m.Prompt != prompt {
			continue
		}
		out = append(out, m)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// PutKey stores the pair, replacing a key with the same public key.
func (s *MemStore) PutKey(ctx context.Context, public, secret, role string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if public == "" || secret == "" {
		return errors.New("memstore: a key pair needs a public and a secret key")
	}
	if err := CheckRole(role); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[public] = memKey{hash: sha256.Sum256([]byte(secret)), key: Key{Public: public, Role: role, Created: time.Now().UTC()}}
	return nil
}

// Authenticate checks the pair. Secrets are random tokens, so one
// SHA-256 is enough to keep them out of memory; the hashes are compared
// in constant time, and an unknown public key costs the same compare.
func (s *MemStore) Authenticate(ctx context.Context, public, secret string) (Key, error) {
	if err := ctx.Err(); err != nil {
		return Key{}, err
	}
	sum := sha256.Sum256([]byte(secret))
	s.mu.RLock()
	k, ok := s.keys[public]
	s.mu.RUnlock()
	if subtle.ConstantTimeCompare(sum[:], k.hash[:]) != 1 || !ok {
		return Key{}, ErrBadKey
	}
	return k.key, nil
}

// ClaimEvent claims event key for the caller: true the first time it is
// claimed, false after, so servers sharing the store send it once.
func (s *MemStore) ClaimEvent(ctx context.Context, key string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.claims[key] {
		return false, nil
	}
	if s.claims == nil {
		s.claims = map[string]bool{}
	}
	s.claims[key] = true
	return true, nil
}
