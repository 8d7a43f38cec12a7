// Package version holds the BarrHawk release version.
package version

// Version is the BarrHawk release, such as "v1.2.3". It is "dev" in builds
// that do not set it; release builds set it with
//
//	go build -ldflags "-X github.com/barrhawk/barrhawk/internal/version.Version=v1.2.3"
var Version = "dev"
