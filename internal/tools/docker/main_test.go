package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
	"github.com/docker/docker/client"
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

// rootedSession is a session whose calls carry dir as their allowed root,
// as the front sends it.
func rootedSession(t *testing.T, dir string) *tooltest.Session {
	t.Helper()
	s := session(t)
	s.Ctx = tool.WithRoots(context.Background(), []string{dir})
	return s
}

// apiClient is an Engine API client of the tests' daemon, for making and
// checking what the tools must see or leave alone; closed when the test
// ends.
func apiClient(t *testing.T) *client.Client {
	t.Helper()
	cli, err := client.NewClientWithOpts(client.WithHost(testbin.DockerHost(t)), client.WithAPIVersionNegotiation())
	if err != nil {
		t.Fatalf("docker client: %v", err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}

// uniq is a name no other test or run uses: prefix and random hex.
func uniq(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

// freePort is a TCP port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// httpGet GETs url until it answers (a server just started) and answers
// the body.
func httpGet(t *testing.T, url string) string {
	t.Helper()
	var last error
	for range 50 {
		resp, err := http.Get(url)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return string(b)
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("GET %s: %v", url, last)
	return ""
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
