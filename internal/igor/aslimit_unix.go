//go:build unix

package igor

import "golang.org/x/sys/unix"

// setSoftAddressLimit sets the soft RLIMIT_AS, keeping the hard one (raised
// to soft if lower).
func setSoftAddressLimit(soft uint64) error {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &lim); err != nil || lim.Max < soft {
		lim.Max = soft
	}
	return unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: soft, Max: lim.Max})
}
