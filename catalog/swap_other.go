//go:build !linux

package catalog

// exchange reports errNoExchange: only Linux exchanges two names in one
// step, so elsewhere swapDir renames twice.
func exchange(a, b string) error { return errNoExchange }
