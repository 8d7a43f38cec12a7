//go:build !linux

package proc

// TrimText does nothing here: it is Linux's /proc and madvise.
func TrimText() (int64, error) { return 0, nil }
