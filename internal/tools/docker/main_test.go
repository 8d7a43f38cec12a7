package docker

import (
	"testing"

	"github.com/barrhawk/barrhawk/internal/testbin"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// session is a tool session against the tests' daemon (testbin.DockerHost:
// DOCKER_HOST, or one scripts/dockerd starts), with the busybox image
// (FROM scratch, Debian's busybox-static) built as testImage.
func session(t *testing.T) *tooltest.Session {
	t.Helper()
	host := testbin.DockerHost(t)
	Configure(Settings{Host: host})
	testbin.BusyboxImage(t, host, testImage)
	return tooltest.NewSession(t, Tools())
}

// testImage is the tests' image: busybox on scratch.
const testImage = "barrhawk-test/busybox:1"
