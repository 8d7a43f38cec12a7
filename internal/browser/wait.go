package browser

import (
	"time"
)

// NoTimeout, as a FindOptions.Timeout, gives a wait no bound of its own:
// it lasts as long as the call may, ending a moment before the call's own
// deadline (tools.defaultTimeout) to say what it found. It is what a
// tool's timeout of 0 means, as Playwright's timeout: 0 does.
const NoTimeout time.Duration = -1

// TimeoutZeroDoc ends the description of every timeout argument of the
// browser tools and assertions: what 0 does.
const TimeoutZeroDoc = "; 0 waits as long as the call may (until a moment before its own timeout, tools.defaultTimeout)"

// unbounded is the bound of a wait of NoTimeout: longer than any call, and
// still a time a deadline can be added to.
const unbounded = time.Duration(1 << 62)

// TimeoutArg turns a tool's timeout argument, in milliseconds, into a
// wait's timeout: absent (nil) is 0, the wait's default (DefaultTimeout
// for an element); 0 is NoTimeout; more is that many milliseconds. (The
// tools' schemas refuse a negative one.)
func TimeoutArg(ms *int64) time.Duration {
	switch {
	case ms == nil:
		return 0
	case *ms <= 0:
		return NoTimeout
	}
	return time.Duration(*ms) * time.Millisecond
}

// Bound is how long a wait of timeout d lasts: def for 0, no bound of its
// own for NoTimeout (the call's deadline ends it), else d.
func Bound(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return unbounded
	}
	return d
}
