package auditdb

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/tessera-dev/tessera/audit"
)

// crashEnv names the database a child test process appends to until it
// is killed.
const crashEnv = "TESSERA_AUDITDB_CRASH_CHILD"

// TestMain lets the test binary act as the child of TestKillDuringAppends.
func TestMain(m *testing.M) {
	if path := os.Getenv(crashEnv); path != "" {
		crashChild(path, os.Getenv(crashEnv+"_RUN"))
		return
	}
	os.Exit(m.Run())
}

// crashChild appends records from four goroutines for ever, printing the
// id of each record once Append has returned.
func crashChild(path, run string) {
	db, err := Open(context.Background(), "sqlite:"+path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				id := fmt.Sprintf("%s-w%d-%d", run, w, i)
				if err := db.Append(context.Background(), record(id, strings.Repeat("prompt text ", 20))); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
				mu.Lock()
				fmt.Fprintln(out, id)
				out.Flush()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// A record Append acknowledged survives the process being killed with
// SIGKILL mid-write, again and again, and the database opens cleanly
// after each kill with one unbroken chain.
func TestKillDuringAppends(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGKILL on Windows")
	}
	if testing.Short() {
		t.Skip("starts and kills child processes")
	}
	path := filepath.Join(t.TempDir(), "audit.db")
	acked := map[string]bool{}
	for run := range 5 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashEnv+"="+path, fmt.Sprintf("%s_RUN=r%d", crashEnv, run))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		// Kill it once it has acknowledged a number of records that
		// varies from run to run, so the kill lands in different places.
		want, n := 200+137*run, 0
		for n < want && sc.Scan() {
			acked[sc.Text()] = true
			n++
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for sc.Scan() { // what it printed before it died was acknowledged too
			acked[sc.Text()] = true
			n++
		}
		_ = cmd.Wait()
		if n < want {
			t.Fatalf("run %d: the child acknowledged %d records, want %d: %s", run, n, want, stderr.String())
		}
		db, err := Open(context.Background(), "sqlite:"+path)
		if err != nil {
			t.Fatalf("run %d: open after SIGKILL: %v", run, err)
		}
		var check string
		if err := db.sql.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
			t.Fatalf("run %d: integrity check: %q %v", run, check, err)
		}
		have := map[string]bool{}
		err = db.Each(context.Background(), audit.Query{}, func(e audit.Entry) error {
			have[e.Record.CorrelationID] = true
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for id := range acked {
			if !have[id] {
				t.Fatalf("run %d: record %s was acknowledged and is lost (%d acknowledged, %d in the database)", run, id, len(acked), len(have))
			}
		}
		rep, err := db.VerifyChain(context.Background(), nil)
		if err != nil || !rep.OK() {
			t.Fatalf("run %d: chain after SIGKILL: %v %v", run, rep, err)
		}
		t.Logf("run %d: %d acknowledged so far, %d in the database", run, len(acked), len(have))
		db.Close()
	}
}
