//go:build !linux

package proc

// BecomeSubreaper does nothing where the system has no subreapers (macOS:
// orphans go to launchd, which reaps them).
func BecomeSubreaper() error { return nil }
