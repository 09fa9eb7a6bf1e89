package provider

import "testing"

// canonicalCases returns the canonical preset's request for the goldens,
// or nil while that preset is not built.
func canonicalCases(t *testing.T) *Request { return nil }
