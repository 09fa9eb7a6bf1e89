//go:build linux

package guard

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// cpuClock measures the CPU time of the benchmark's thread, which other
// processes on a busy machine change far less than they change the
// wall-clock time.
type cpuClock struct{ start time.Duration }

func threadCPU() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// startCPU locks the goroutine to its thread and starts the clock.
func startCPU() cpuClock {
	runtime.LockOSThread()
	return cpuClock{threadCPU()}
}

// report unlocks the thread and reports "cpu-MB/s": the bytes of n
// operations of size bytes each, by the thread's CPU time.
func (c cpuClock) report(b *testing.B, n, size int) {
	d := threadCPU() - c.start
	runtime.UnlockOSThread()
	if d > 0 && n > 0 {
		b.ReportMetric(float64(n)*float64(size)/d.Seconds()/1e6, "cpu-MB/s")
	}
}
