package proc

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

func TestRunning(t *testing.T) {
	if running, _ := Running(os.Getpid()); !running {
		t.Error("this process is not running")
	}
	if runtime.GOOS == "windows" {
		t.Skip("no cheap way to ask about another process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// Without a race-enabled child's second of sleep at exit.
	cmd.Env = append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if running, ok := Running(cmd.Process.Pid); running || !ok {
		t.Errorf("a process that has exited: running %v, ok %v", running, ok)
	}
	if running, _ := Running(os.Getppid()); !running {
		t.Error("the parent process is not running")
	}
}
