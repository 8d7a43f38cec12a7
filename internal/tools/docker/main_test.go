package docker

import (
	"testing"

	"github.com/barrhawk/barrhawk/internal/testbin"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// session is a tool session against the tests' daemon (testbin.DockerHost:
// DOCKER_HOST, or one scripts/dockerd starts), with the busybox image
// (FROM scratch, Debian's busybox-static) built as testImage. The test
// shares the daemon with the other tests of every package.
func session(t *testing.T) *tooltest.Session {
	t.Helper()
	return lockedSession(t, false)
}

// exclusiveSession is session for a test that removes what other tests
// made (docker_cleanup, prunes): it runs while no other test uses the
// daemon.
func exclusiveSession(t *testing.T) *tooltest.Session {
	t.Helper()
	return lockedSession(t, true)
}

func lockedSession(t *testing.T, exclusive bool) *tooltest.Session {
	t.Helper()
	testbin.DockerLock(t, exclusive)
	host := testbin.DockerHost(t)
	Configure(Settings{Host: host})
	testbin.BusyboxImage(t, host, testImage)
	return tooltest.NewSession(t, Tools())
}

// testImage is the tests' image: busybox on scratch.
const testImage = "barrhawk-test/busybox:1"
