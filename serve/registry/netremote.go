package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/revlist"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
)

// A remote over the network is spoken to with go-git's transports, below
// its Fetch and Push: a push must send each ref's old value as the value
// this server last read (absent included), which the receiving Git
// compares under its ref lock; go-git's Push sends the value the remote
// advertised instead.

// DefaultRemoteTimeout is Options.RemoteTimeout's default.
const DefaultRemoteTimeout = 30 * time.Second

// remoteTimeout returns how long an exchange with the remote may take.
func (r *Registry) remoteTimeout() time.Duration {
	if r.opts.RemoteTimeout > 0 {
		return r.opts.RemoteTimeout
	}
	return DefaultRemoteTimeout
}

// lockWait returns how long a move waits for another writer's ref lock.
func (r *Registry) lockWait() time.Duration {
	if r.opts.LockWait > 0 {
		return r.opts.LockWait
	}
	return DefaultLockWait
}

// endpoint is the remote at u and the transport that speaks to it.
func endpoint(u string) (transport.Transport, *transport.Endpoint, error) {
	ep, err := transport.NewEndpoint(u)
	if err != nil {
		return nil, nil, err
	}
	c, err := client.NewClient(ep)
	if err != nil {
		return nil, nil, err
	}
	return c, ep, nil
}

// uploadSession opens a fetch from the remote.
func (rm *remote) uploadSession() (transport.UploadPackSession, error) {
	c, ep, err := endpoint(rm.url)
	if err != nil {
		return nil, err
	}
	return c.NewUploadPackSession(ep, rm.auth)
}

// receiveSession opens a push to the remote.
func (rm *remote) receiveSession() (transport.ReceivePackSession, error) {
	c, ep, err := endpoint(rm.url)
	if err != nil {
		return nil, err
	}
	return c.NewReceivePackSession(ep, rm.auth)
}

// sshAuth is how the server logs in to the ssh remote at ep: with the
// key file o names, or the SSH agent's keys, checking the remote's host
// key against the known_hosts files o names (or SSH_KNOWN_HOSTS's, or
// the user's and the system's).
func sshAuth(ep *transport.Endpoint, o SSHOptions) (transport.AuthMethod, error) {
	user := ep.User
	if user == "" {
		user = "git"
	}
	db, err := gitssh.NewKnownHostsDb(o.KnownHosts...)
	if err != nil {
		return nil, fmt.Errorf("reading the known hosts (%s): %w: give a known_hosts file holding the remote's host key (for tessera serve, in TESSERA_SSH_KNOWN_HOSTS), as ssh-keyscan -p PORT HOST prints it", knownHostsFiles(o), err)
	}
	port := ep.Port
	if port <= 0 {
		port = gitssh.DefaultPort
	}
	helper := gitssh.HostKeyCallbackHelper{HostKeyCallback: db.HostKeyCallback(), HostKeyAlgorithms: db.HostKeyAlgorithms(net.JoinHostPort(ep.Host, strconv.Itoa(port)))}
	if o.KeyFile != "" {
		keys, err := gitssh.NewPublicKeysFromFile(user, o.KeyFile, o.KeyPassphrase)
		if err != nil {
			return nil, fmt.Errorf("SSH key %s: %w: give an OpenSSH or PEM private key file (and, for tessera serve, its passphrase in TESSERA_SSH_KEY_PASSPHRASE when it has one)", o.KeyFile, err)
		}
		keys.HostKeyCallbackHelper = helper
		return keys, nil
	}
	agent, err := gitssh.NewSSHAgentAuth(user)
	if err != nil {
		return nil, fmt.Errorf("no SSH key: %w: give a private key file (for tessera serve, in TESSERA_SSH_KEY), or run an SSH agent holding the key and set SSH_AUTH_SOCK", err)
	}
	agent.HostKeyCallbackHelper = helper
	return agent, nil
}

// knownHostsFiles names the known_hosts files o reads, for messages.
func knownHostsFiles(o SSHOptions) string {
	if len(o.KnownHosts) > 0 {
		return strings.Join(o.KnownHosts, ", ")
	}
	if env := os.Getenv("SSH_KNOWN_HOSTS"); env != "" {
		return "SSH_KNOWN_HOSTS=" + env
	}
	return "~/.ssh/known_hosts, /etc/ssh/ssh_known_hosts"
}

// advertised lists the hash refs of an advertisement.
func advertised(ar *packp.AdvRefs) (map[plumbing.ReferenceName]plumbing.Hash, error) {
	refs, err := ar.AllReferences()
	if err != nil {
		return nil, err
	}
	out := map[plumbing.ReferenceName]plumbing.Hash{}
	for name, ref := range refs {
		if ref.Type() == plumbing.HashReference {
			out[name] = ref.Hash()
		}
	}
	return out, nil
}

// fetchNet reads the remote's refs and brings the objects of those the
// local repository mirrors and lacks, in one packfile. It returns the
// remote's refs.
func (r *Registry) fetchNet(ctx context.Context) (map[plumbing.ReferenceName]plumbing.Hash, error) {
	ctx, cancel := context.WithTimeout(ctx, r.remoteTimeout())
	defer cancel()
	sess, err := r.remote.uploadSession()
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w", r.remote.flag, err)
	}
	defer sess.Close()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return map[plumbing.ReferenceName]plumbing.Hash{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("remote %s: reading its refs: %w", r.remote.flag, err)
	}
	theirs, err := advertised(ar)
	if err != nil {
		return nil, fmt.Errorf("remote %s: reading its refs: %w", r.remote.flag, err)
	}
	var wants, haves []plumbing.Hash
	r.mu.Lock()
	have, err := r.localRefs()
	if err == nil {
		seen := map[plumbing.Hash]bool{}
		for _, name := range slices.Sorted(maps.Keys(theirs)) {
			h := theirs[name]
			if _, ok := mirrored(name); ok && !seen[h] && r.repo.Storer.HasEncodedObject(h) != nil {
				wants = append(wants, h)
			}
			seen[h] = true
		}
		for _, h := range have {
			if !seen[h] {
				haves = append(haves, h)
				seen[h] = true
			}
		}
	}
	r.mu.Unlock()
	if err != nil || len(wants) == 0 {
		return theirs, err
	}
	req := packp.NewUploadPackRequestFromCapabilities(ar.Capabilities)
	if ar.Capabilities.Supports(capability.NoProgress) {
		req.Capabilities.Set(capability.NoProgress)
	}
	req.Wants = wants
	slices.SortFunc(haves, func(a, b plumbing.Hash) int { return bytes.Compare(a[:], b[:]) })
	req.Haves = haves
	resp, err := sess.UploadPack(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("remote %s: fetching: %w", r.remote.flag, err)
	}
	defer resp.Close()
	// The pack is read in full before the local repository is locked.
	var pack bytes.Buffer
	if _, err := io.Copy(&pack, demux(req.Capabilities, resp)); err != nil {
		return nil, fmt.Errorf("remote %s: fetching: %w", r.remote.flag, err)
	}
	r.mu.Lock()
	err = packfile.UpdateObjectStorage(r.repo.Storer, &pack)
	r.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("remote %s: storing what it sent: %w", r.remote.flag, err)
	}
	return theirs, nil
}

// demux strips the side-band of a packfile stream, when there is one.
func demux(caps *capability.List, rd io.Reader) io.Reader {
	switch {
	case caps.Supports(capability.Sideband64k):
		return sideband.NewDemuxer(sideband.Sideband64k, rd)
	case caps.Supports(capability.Sideband):
		return sideband.NewDemuxer(sideband.Sideband, rd)
	}
	return rd
}

// pushNet sends ups to the remote in one request, each with the old
// value this server last read, atomically when the remote can: the
// receiving Git refuses a command whose ref is not at its old value. A
// ref the remote advertises elsewhere, or a refusal, is a ConflictError.
func (r *Registry) pushNet(ctx context.Context, ups []refUpdate) error {
	ctx, cancel := context.WithTimeout(ctx, r.remoteTimeout())
	defer cancel()
	sess, err := r.remote.receiveSession()
	if err != nil {
		return fmt.Errorf("remote %s: %w", r.remote.flag, err)
	}
	defer sess.Close()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil && !errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return fmt.Errorf("remote %s: reading its refs: %w", r.remote.flag, err)
	}
	theirs := map[plumbing.ReferenceName]plumbing.Hash{}
	caps := capability.NewList()
	if err == nil {
		if theirs, err = advertised(ar); err != nil {
			return fmt.Errorf("remote %s: reading its refs: %w", r.remote.flag, err)
		}
		caps = ar.Capabilities
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(caps)
	var news []plumbing.Hash
	allDelete := true
	for _, u := range ups {
		if got := theirs[u.Name]; got != u.Old {
			return &ConflictError{Ref: u.Name, Want: u.Old, Got: got}
		}
		if !u.New.IsZero() {
			news, allDelete = append(news, u.New), false
		} else if !caps.Supports(capability.DeleteRefs) {
			return fmt.Errorf("remote %s does not take ref deletions (delete-refs)", r.remote.flag)
		}
		req.Commands = append(req.Commands, &packp.Command{Name: u.Name, Old: u.Old, New: u.New})
	}
	if len(ups) > 1 && caps.Supports(capability.Atomic) {
		req.Capabilities.Set(capability.Atomic)
	}
	if !allDelete {
		// The objects the remote lacks, packed under the registry's lock
		// before a byte goes out. As a rule there are none: a label goes
		// on a commit of the remote's branches, which the walk of their
		// commits finds without listing every object of the history.
		var haves []plumbing.Hash
		for _, h := range theirs {
			haves = append(haves, h)
		}
		var hs []plumbing.Hash
		var err error
		if !reachable(ctx, lockedStorer{r.storer(), &r.mu}, haves, news) {
			r.mu.Lock()
			hs, err = revlist.Objects(r.repo.Storer, news, haves)
			r.mu.Unlock()
		}
		var pack bytes.Buffer
		if err == nil {
			r.mu.Lock()
			_, err = packfile.NewEncoder(&pack, r.repo.Storer, !caps.Supports(capability.OFSDelta)).Encode(hs, 10)
			r.mu.Unlock()
		}
		if err != nil {
			return fmt.Errorf("remote %s: packing what to push: %w", r.remote.flag, err)
		}
		req.Packfile = io.NopCloser(&pack)
	}
	status, err := sess.ReceivePack(ctx, req)
	if err == nil && status != nil {
		err = status.Error()
	}
	if err == nil {
		return nil
	}
	// Refused: a conflict if a ref is no longer at its old value.
	if now, lerr := r.listNet(ctx); lerr == nil {
		for _, u := range ups {
			if got := now[u.Name]; got != u.Old && got != u.New {
				return &ConflictError{Ref: u.Name, Want: u.Old, Got: got}
			}
		}
	}
	return fmt.Errorf("remote %s: pushing: %w", r.remote.flag, err)
}

// listNet reads the remote's refs.
func (r *Registry) listNet(ctx context.Context) (map[plumbing.ReferenceName]plumbing.Hash, error) {
	ctx, cancel := context.WithTimeout(ctx, r.remoteTimeout())
	defer cancel()
	sess, err := r.remote.uploadSession()
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		return nil, err
	}
	return advertised(ar)
}

// reachable reports whether every commit of want is one of tips or an
// ancestor of one, walking the commits alone (not their trees) of the
// local repository; a tip or parent it lacks ends that line of the walk.
func reachable(ctx context.Context, s storer.EncodedObjectStorer, tips, want []plumbing.Hash) bool {
	left := map[plumbing.Hash]bool{}
	for _, h := range want {
		left[h] = true
	}
	seen := map[plumbing.Hash]bool{}
	stack := slices.Clone(tips)
	for len(stack) > 0 && len(left) > 0 {
		if ctx.Err() != nil {
			return false
		}
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[h] {
			continue
		}
		seen[h] = true
		delete(left, h)
		c, err := object.GetCommit(s, h)
		if err != nil {
			continue // not a commit (a tag, a tree), or not here
		}
		stack = append(stack, c.ParentHashes...)
	}
	return len(left) == 0
}
