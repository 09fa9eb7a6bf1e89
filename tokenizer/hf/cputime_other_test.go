//go:build !unix

package hf

import "time"

// processCPU is not measured here; cpu-MB/s is then left out.
func processCPU() time.Duration { return 0 }
