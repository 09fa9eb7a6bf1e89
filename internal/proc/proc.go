// Package proc asks whether a process is still running, so that the
// temporary files a killed process left behind can be told from those of
// one still at work.
package proc
