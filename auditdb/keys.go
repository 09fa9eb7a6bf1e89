package auditdb

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Key is an API key pair's public half and what it may do.
type Key struct {
	Public string
	// Role is "viewer", "member" or "admin".
	Role    string
	Created time.Time
}

// Roles are the roles a key may have, least to most.
var roles = []string{"viewer", "member", "admin"}

// PutKey stores a key pair with role, replacing the secret and role of a
// pair with the same public key. The secret is stored as a salted
// SHA-256, never in clear.
func (db *DB) PutKey(ctx context.Context, public, secret, role string) error {
	if public == "" || len(public) > 256 || strings.ContainsAny(public, ": \t\r\n") {
		return fmt.Errorf("API key: the public key %q must be 1 to 256 bytes without ':' or spaces", public)
	}
	if len(secret) < 16 {
		return fmt.Errorf("API key %s: the secret is %d bytes; use at least 16 random bytes, such as the output of `openssl rand -hex 24`", public, len(secret))
	}
	ok := false
	for _, r := range roles {
		ok = ok || r == role
	}
	if !ok {
		return fmt.Errorf("API key %s: role %q is not one of %s", public, role, strings.Join(roles, ", "))
	}
	var salt [16]byte
	_, _ = rand.Read(salt[:]) // crypto/rand.Read never fails
	if _, err := db.sql.ExecContext(ctx, db.q.putKey, public, hashSecret(salt[:], secret), role, time.Now().UnixMicro()); err != nil {
		return fmt.Errorf("audit database %s: store API key %s: %w", db.name, public, err)
	}
	return nil
}

// hashSecret is how a secret is stored: "sha256:" SALT ":" SHA-256(SALT ||
// secret), in hex.
func hashSecret(salt []byte, secret string) string {
	h := sha256.New()
	h.Write(salt)
	h.Write([]byte(secret))
	return "sha256:" + hex.EncodeToString(salt) + ":" + hex.EncodeToString(h.Sum(nil))
}

// dummyHash is compared against when a public key is unknown, so that an
// unknown key takes as long to refuse as a wrong secret.
const dummyHash = "sha256:00000000000000000000000000000000:0000000000000000000000000000000000000000000000000000000000000000"

// Authenticate returns the key whose pair is public and secret, or an
// error wrapping ErrUnauthorized. The secret is compared in constant time,
// and an unknown public key costs what a wrong secret does.
func (db *DB) Authenticate(ctx context.Context, public, secret string) (Key, error) {
	var stored, role string
	var created int64
	err := db.sql.QueryRowContext(ctx, db.q.getKey, public).Scan(&stored, &role, &created)
	known := true
	if errors.Is(err, sql.ErrNoRows) {
		stored, known = dummyHash, false
	} else if err != nil {
		return Key{}, fmt.Errorf("audit database %s: look up API key: %w", db.name, err)
	}
	parts := strings.Split(stored, ":")
	salt, _ := hex.DecodeString(parts[1%len(parts)])
	got := hashSecret(salt, secret)
	if subtle.ConstantTimeCompare([]byte(got), []byte(stored)) != 1 || !known {
		return Key{}, ErrUnauthorized
	}
	return Key{Public: public, Role: role, Created: time.UnixMicro(created).UTC()}, nil
}
