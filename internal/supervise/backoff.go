package supervise

import "time"

// Backoff spaces the starts of a child that keeps failing: the delay
// before the next start after fails failures in a row is
// Base × 2^(fails−Free−1), at most Max, and none for the first Free
// failures. Not safe for concurrent use: its owner guards it.
type Backoff struct {
	Base, Max time.Duration
	// Free is how many failures in a row are followed by a start at once:
	// a child that fails now and then is replaced without delay, one that
	// keeps failing is spaced.
	Free int

	fails int
	next  time.Time
}

// Fail counts a failure and returns the delay before the next start,
// which it sets no earlier than now plus that delay.
func (b *Backoff) Fail() time.Duration {
	b.fails++
	if b.fails <= b.Free {
		b.next = time.Time{}
		return 0
	}
	d := b.Base
	for i := 1; i < b.fails-b.Free && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	b.next = time.Now().Add(d)
	return d
}

// Reset records a success: the count starts again and the next start may
// be at once.
func (b *Backoff) Reset() {
	b.fails = 0
	b.next = time.Time{}
}

// Fails is how many failures came in a row, since the last Reset.
func (b *Backoff) Fails() int { return b.fails }

// Next is the earliest time of the next start; zero when there is no
// delay.
func (b *Backoff) Next() time.Time { return b.next }

// Ready reports whether a start is allowed at now: now is at or after
// Next.
func (b *Backoff) Ready(now time.Time) bool { return !now.Before(b.next) }
