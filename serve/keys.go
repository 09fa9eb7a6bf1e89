package serve

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
)

// keyBody is the body of POST /api/tessera/v1/keys.
type keyBody struct {
	Public string `json:"public"`
	Secret string `json:"secret"`
	Role   string `json:"role"`
}

var publicKeyRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{3,64}$`)

// minSecretBytes is the shortest secret key accepted.
const minSecretBytes = 16

// parseKeyBody parses and checks a new key's body; an empty secret is
// left for the server to make.
func parseKeyBody(data []byte) (keyBody, error) {
	var b keyBody
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return b, fmt.Errorf("the body is not a JSON object of public, secret and role: %v", err)
	}
	if dec.More() {
		return b, errors.New("the body has more than one JSON value")
	}
	if !publicKeyRE.MatchString(b.Public) {
		return b, fmt.Errorf("public key %q is not valid: use 3 to 64 of A-Z, a-z, 0-9, '_', '.' and '-'", b.Public)
	}
	if err := CheckRole(b.Role); err != nil {
		return b, err
	}
	if b.Secret != "" && (len(b.Secret) < minSecretBytes || len(b.Secret) > 256) {
		return b, fmt.Errorf("the secret key is %d bytes: give 16 to 256 random bytes, or none and one is made", len(b.Secret))
	}
	return b, nil
}

// putKey serves POST /api/tessera/v1/keys: an admin stores a key pair
// with a role (replacing the pair with the same public key), and gets the
// secret back, made here when the body has none. The secret is shown
// this once: the store keeps only its hash.
func (s *Server) putKey(w http.ResponseWriter, r *http.Request) {
	data, ok := readBody(w, r)
	if !ok {
		return
	}
	b, err := parseKeyBody(data)
	if err != nil {
		fail(w, http.StatusBadRequest, "%v", err)
		return
	}
	if b.Secret == "" {
		buf := make([]byte, 24)
		rand.Read(buf)
		b.Secret = "sk-" + hex.EncodeToString(buf)
	}
	if err := s.store.PutKey(r.Context(), b.Public, b.Secret, b.Role); err != nil {
		fail(w, http.StatusInternalServerError, "storing key %s: %v", b.Public, err)
		return
	}
	s.auth.forget(b.Public)
	s.log.Info("key stored", "public", b.Public, "role", b.Role, "by", keyOf(r).Public)
	writeJSON(w, http.StatusCreated, b)
}
