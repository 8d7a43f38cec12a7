//go:build !unix

package igor

// setSoftAddressLimit does nothing where there is no RLIMIT_AS: the GC's
// limit and the watchdog still bound the Igor.
func setSoftAddressLimit(uint64) error { return nil }
