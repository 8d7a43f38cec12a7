//go:build !unix

package browser

// shim is false where there is no address-space limit to lift: the
// browser starts directly.
const shim = false

// ExecIfBrowserStart does nothing here.
func ExecIfBrowserStart() {}
