package registry_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/presets"
	"github.com/tessera-dev/tessera/serve/gittest"
	"github.com/tessera-dev/tessera/serve/registry"
)

// sshServer is a Git server over SSH on loopback, for one bare
// repository: it takes one user key, and runs git upload-pack and git
// receive-pack (the git binary) for the commands clients send.
type sshServer struct {
	addr      string
	hostKey   ssh.PublicKey
	userKey   string // the user's private key file
	knownHost string // a known_hosts file holding the host key
	wg        sync.WaitGroup
}

// newKey makes an ed25519 key pair: its signer and its OpenSSH private
// key file's bytes.
func newKey(t *testing.T) (ssh.Signer, []byte) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	return signer, pem.EncodeToMemory(block)
}

// gitSSH serves the bare repository at dir over SSH on loopback, with
// throw-away host and user keys; the test skips without the git binary
// (fails under CI=true).
func gitSSH(t *testing.T, dir string) *sshServer {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("needs git for the SSH server's upload-pack and receive-pack: %v", err)
		}
		t.Skipf("needs git for the SSH server's upload-pack and receive-pack: %v", err)
	}
	host, _ := newKey(t)
	user, userPEM := newKey(t)
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			if bytes.Equal(key.Marshal(), user.PublicKey().Marshal()) {
				return nil, nil
			}
			return nil, errors.New("unknown key")
		},
	}
	cfg.AddHostKey(host)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &sshServer{addr: ln.Addr().String(), hostKey: host.PublicKey()}
	tmp := t.TempDir()
	s.userKey = filepath.Join(tmp, "id_ed25519")
	s.knownHost = filepath.Join(tmp, "known_hosts")
	if err := os.WriteFile(s.userKey, userPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.knownHost, []byte(knownhosts.Line([]string{s.addr}, host.PublicKey())+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ln.Close()
		s.wg.Wait()
	})
	s.wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Go(func() { s.serveConn(t, conn, cfg, dir) })
		}
	})
	return s
}

// serveConn serves one SSH connection: each session runs one git command
// on the repository at dir.
func (s *sshServer) serveConn(t *testing.T, conn net.Conn, cfg *ssh.ServerConfig, dir string) {
	defer conn.Close()
	sc, chans, reqs, err := ssh.NewServerConn(conn, cfg)
	if err != nil {
		return // a client that did not log in
	}
	defer sc.Close()
	go ssh.DiscardRequests(reqs)
	var wg sync.WaitGroup
	defer wg.Wait()
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.UnknownChannelType, "sessions only")
			continue
		}
		ch, reqs, err := nc.Accept()
		if err != nil {
			return
		}
		wg.Go(func() { s.session(t, ch, reqs, dir) })
	}
}

// session runs the exec request of one session: git-upload-pack or
// git-receive-pack of the repository at dir, and nothing else.
func (s *sshServer) session(t *testing.T, ch ssh.Channel, reqs <-chan *ssh.Request, dir string) {
	defer ch.Close()
	for req := range reqs {
		if req.Type != "exec" {
			req.Reply(req.Type == "env", nil)
			continue
		}
		var payload struct{ Command string }
		if err := ssh.Unmarshal(req.Payload, &payload); err != nil {
			req.Reply(false, nil)
			return
		}
		prog, arg, _ := strings.Cut(payload.Command, " ")
		if (prog != "git-upload-pack" && prog != "git-receive-pack") || strings.Trim(arg, "'") != dir {
			t.Errorf("the SSH server was asked to run %q", payload.Command)
			req.Reply(false, nil)
			return
		}
		req.Reply(true, nil)
		cmd := exec.Command("git", strings.TrimPrefix(prog, "git-"), dir)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return
		}
		cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
		status := uint32(0)
		if err := cmd.Start(); err != nil {
			status = 127
		} else {
			go func() {
				io.Copy(stdin, ch)
				stdin.Close()
			}()
			if err := cmd.Wait(); err != nil {
				status = 1
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					status = uint32(ee.ExitCode())
				}
			}
		}
		ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{status}))
		return
	}
}

// TestSSHRemote runs registries on clones of their own over a remote
// served over SSH, with a key file and a known_hosts file: a poll reads
// it, a label move is a push with compare-and-swap (of two moves from one
// state, the second is a conflict), and a commit pushed there is a
// version after the next poll. A remote whose host key is not the one
// known_hosts holds is refused, and so is a user key it does not take.
func TestSSHRemote(t *testing.T) {
	repo, c := history(t)
	bare := repo.Bare()
	srv := gitSSH(t, bare)
	u := fmt.Sprintf("ssh://git@%s%s", srv.addr, bare)
	ctx := t.Context()
	open := func(dir string, o registry.SSHOptions) (*registry.Registry, error) {
		return registry.Open(ctx, registry.Options{Root: dir + "/catalog", Remote: u, SSH: o, Engine: &engine.Engine{Registry: presets.Default()}})
	}
	keys := registry.SSHOptions{KeyFile: srv.userKey, KnownHosts: []string{srv.knownHost}}
	ra, err := open(gittest.Clone(t, bare).Dir, keys)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := open(gittest.Clone(t, bare).Dir, keys)
	if err != nil {
		t.Fatal(err)
	}
	sa, err := ra.Refresh(ctx)
	if err != nil {
		t.Fatalf("a poll over SSH: %v", err)
	}
	sb, err := rb.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ra.Branch() != "main" || len(sa.Versions[pgc]) != 3 {
		t.Fatalf("over SSH: branch %q, %d versions", ra.Branch(), len(sa.Versions[pgc]))
	}
	if _, err := ra.MoveLabels(ctx, sa, pgc, map[string]int{"production": 2}, nil); err != nil {
		t.Fatalf("a move over SSH: %v", err)
	}
	if got := remoteRef(t, bare, registry.PromptRef(pgc, "production")); got != c[2] {
		t.Errorf("the remote's production is %s, want %s", got, c[2])
	}
	if _, err := rb.MoveLabels(ctx, sb, pgc, map[string]int{"production": 3}, nil); !registry.IsConflict(err) {
		t.Errorf("a move from a stale state over SSH: %v, want a conflict", err)
	}
	c6 := pushFourth(t, bare)
	sb, err = rb.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if vs := sb.Versions[pgc]; len(vs) != 4 || vs[3].Commit != c6 {
		t.Fatalf("after a push to the remote: %d versions", len(vs))
	}
	if res, err := rb.ByLabel(ctx, sb, pgc, "production"); err != nil || res.Version != 2 {
		t.Errorf("b's production after a poll: %+v, %v", res, err)
	}
	// The registries refused read nothing: they share a clone.
	spare := gittest.Clone(t, bare).Dir
	// Another host key in known_hosts: refused.
	other, _ := newKey(t)
	wrong := filepath.Join(t.TempDir(), "known_hosts")
	os.WriteFile(wrong, []byte(knownhosts.Line([]string{srv.addr}, other.PublicKey())+"\n"), 0o600)
	r, err := open(spare, registry.SSHOptions{KeyFile: srv.userKey, KnownHosts: []string{wrong}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Refresh(ctx); err == nil || !strings.Contains(err.Error(), "key") {
		t.Errorf("a remote whose host key known_hosts does not hold: %v", err)
	} else {
		t.Logf("a wrong host key: %v", err)
	}
	// A user key the server does not take: refused.
	_, otherPEM := newKey(t)
	otherKey := filepath.Join(t.TempDir(), "id_other")
	os.WriteFile(otherKey, otherPEM, 0o600)
	if r, err = open(spare, registry.SSHOptions{KeyFile: otherKey, KnownHosts: []string{srv.knownHost}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Refresh(ctx); err == nil {
		t.Error("a user key the server does not take was let in")
	}
	// No key file, no known_hosts: said at Open, with what to give.
	if _, err := open(spare, registry.SSHOptions{KeyFile: filepath.Join(t.TempDir(), "missing"), KnownHosts: []string{srv.knownHost}}); err == nil || !strings.Contains(err.Error(), "private key file") {
		t.Errorf("a missing key file: %v", err)
	}
	if _, err := open(spare, registry.SSHOptions{KeyFile: srv.userKey, KnownHosts: []string{filepath.Join(t.TempDir(), "missing")}}); err == nil || !strings.Contains(err.Error(), "known_hosts") {
		t.Errorf("a missing known_hosts: %v", err)
	}
}
