//go:build unix

package testbin

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// dockerInstall says what a machine without Docker needs.
const dockerInstall = "install docker.io, docker-compose and busybox-static (apt-get install docker.io docker-compose busybox-static) and run the tests as root, or run scripts/test as root, which does both; or set DOCKER_HOST to a Docker daemon that answers"

var (
	dockerOnce sync.Once
	dockerHost string
	dockerErr  error
)

// DockerHost is the DOCKER_HOST of a real Docker daemon that answers, for
// the tests of the Docker tools: $DOCKER_HOST if its daemon answers, else
// what scripts/dockerd of the repository prints (the system's daemon, or
// one it starts as root and leaves running). It is found once per test
// binary and returned, not set in the environment: pass it on. No daemon
// fails the test, saying what to install.
func DockerHost(t testing.TB) string {
	t.Helper()
	dockerOnce.Do(func() { dockerHost, dockerErr = findDockerHost() })
	if dockerErr != nil {
		t.Fatalf("no Docker daemon: %v; %s", dockerErr, dockerInstall)
	}
	return dockerHost
}

// findDockerHost is $DOCKER_HOST if it answers, else scripts/dockerd's.
func findDockerHost() (string, error) {
	var why string
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		err := dockerPing(h)
		if err == nil {
			return h, nil
		}
		why = fmt.Sprintf("DOCKER_HOST=%s does not answer (%v), and ", h, err)
	}
	root, err := repoRoot()
	if err != nil {
		return "", fmt.Errorf("%sscripts/dockerd cannot be found: %v", why, err)
	}
	script := filepath.Join(root, "scripts", "dockerd")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s%s failed: %v\n%s", why, script, err, strings.TrimSpace(stderr.String()))
	}
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		return "", fmt.Errorf("%s%s printed no DOCKER_HOST\n%s", why, script, strings.TrimSpace(stderr.String()))
	}
	h := fields[len(fields)-1]
	if err := dockerPing(h); err != nil {
		return "", fmt.Errorf("%sthe daemon %s printed, %s, does not answer: %v", why, script, h, err)
	}
	return h, nil
}

// repoRoot is the directory holding go.mod, the working directory or the
// nearest one above it.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod in the working directory or above it")
		}
		dir = up
	}
}

// dockerClient is an HTTP client for the Engine API at host (unix://PATH,
// tcp://HOST:PORT or http://HOST:PORT; no TLS) and the base URL of its
// requests.
func dockerClient(host string) (*http.Client, string, error) {
	scheme, addr, ok := strings.Cut(host, "://")
	if !ok || addr == "" {
		return nil, "", fmt.Errorf("DOCKER_HOST %q is not unix://PATH or tcp://HOST:PORT", host)
	}
	switch scheme {
	case "unix":
		tr := &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, "unix", addr)
			},
		}
		return &http.Client{Transport: tr, Timeout: 5 * time.Second}, "http://docker", nil
	case "tcp", "http":
		return &http.Client{Timeout: 5 * time.Second}, "http://" + strings.TrimSuffix(addr, "/"), nil
	}
	return nil, "", fmt.Errorf("DOCKER_HOST %q: scheme %s is not unix or tcp", host, scheme)
}

// dockerGet GETs path from the Engine API at host: the status and body.
func dockerGet(host, path string) (int, []byte, error) {
	c, base, err := dockerClient(host)
	if err != nil {
		return 0, nil, err
	}
	defer c.CloseIdleConnections()
	resp, err := c.Get(base + path)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, body, err
}

// dockerPing is nil if the daemon at host answers GET /_ping within 5 s.
func dockerPing(host string) error {
	status, body, err := dockerGet(host, "/_ping")
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("GET /_ping: %d %s", status, bytes.TrimSpace(body))
	}
	return nil
}

// busyboxLock is the file whose lock keeps test binaries from building
// the image at the same time.
const busyboxLock = "/tmp/barrhawk-busybox-image.lock"

var (
	imagesMu sync.Mutex
	images   = map[string]*imageBuild{} // by host and tag
)

type imageBuild struct {
	once sync.Once
	err  error
}

// BusyboxImage is tag, an image on the daemon at host built FROM scratch
// with the machine's /bin/busybox (Debian's busybox-static: no image
// registry is reached) installed in /bin with its applets, /bin/sh as its
// command. An image already tagged so is used as it is; else it is built
// with the docker CLI, once per test binary, one test binary at a time
// (a lock on /tmp/barrhawk-busybox-image.lock). A build that fails fails
// the test, saying what to install.
func BusyboxImage(t testing.TB, host, tag string) string {
	t.Helper()
	imagesMu.Lock()
	b := images[host+"\n"+tag]
	if b == nil {
		b = &imageBuild{}
		images[host+"\n"+tag] = b
	}
	imagesMu.Unlock()
	b.once.Do(func() { b.err = buildBusybox(host, tag) })
	if b.err != nil {
		t.Fatalf("busybox image %s on %s: %v", tag, host, b.err)
	}
	return tag
}

// imageExists is whether GET /images/<tag>/json answers 200.
func imageExists(host, tag string) (bool, error) {
	status, body, err := dockerGet(host, "/images/"+tag+"/json")
	switch {
	case err != nil:
		return false, err
	case status == http.StatusOK:
		return true, nil
	case status == http.StatusNotFound:
		return false, nil
	}
	return false, fmt.Errorf("GET /images/%s/json: %d %s", tag, status, bytes.TrimSpace(body))
}

// busyboxDockerfile makes the image of BusyboxImage from a context holding
// the busybox binary.
const busyboxDockerfile = `FROM scratch
COPY busybox /bin/busybox
RUN ["/bin/busybox", "--install", "-s", "/bin"]
CMD ["/bin/sh"]
`

// buildBusybox builds tag on host unless it is there.
func buildBusybox(host, tag string) error {
	if tag == "" {
		return errors.New("no tag given")
	}
	if err := staticBusybox("/bin/busybox"); err != nil {
		return err
	}
	docker, err := exec.LookPath("docker")
	if err != nil {
		return fmt.Errorf("no docker client: %s", dockerInstall)
	}
	lock, err := os.OpenFile(busyboxLock, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("locking %s: %v", busyboxLock, err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)

	if ok, err := imageExists(host, tag); err != nil || ok {
		return err
	}
	dir, err := os.MkdirTemp("", "barrhawk-busybox-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin, err := os.ReadFile("/bin/busybox")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "busybox"), bin, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(busyboxDockerfile), 0o644); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, docker, "-H", host, "build", "-t", tag, dir)
	// The classic builder, which every daemon has: BuildKit would need the
	// buildx plugin beside the client.
	cmd.Env = append(os.Environ(), "DOCKER_BUILDKIT=0")
	cmd.WaitDelay = 5 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("docker build: %v\n%s", err, out)
	}
	ok, err := imageExists(host, tag)
	if err == nil && !ok {
		err = errors.New("docker build succeeded, but the daemon has no such image")
	}
	return err
}

// staticBusybox is nil if path is a statically linked executable, as
// busybox-static's is: a dynamic one cannot run in an image FROM scratch.
func staticBusybox(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("no static busybox at %s (%v): install busybox-static (apt-get install busybox-static)", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked and cannot run in an image FROM scratch: install busybox-static (apt-get install busybox-static), whose busybox is static", path)
		}
	}
	return nil
}

// dockerTestsLock is held by every test that uses the tests' daemon:
// shared by those that touch only what they made, exclusive by those that
// act on what other tests made too (docker_cleanup, prunes), which run
// while no other test of any package uses the daemon.
const dockerTestsLock = "/tmp/barrhawk-docker-tests.lock"

// DockerLock holds the tests' daemon for the rest of t: shared, or
// exclusive for a test that removes what it did not make. Take it before
// creating anything, and once per test (a test holding the shared lock
// that asks for the exclusive one waits for itself).
func DockerLock(t testing.TB, exclusive bool) {
	t.Helper()
	f, err := os.OpenFile(dockerTestsLock, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatalf("the Docker tests' lock: %v", err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		t.Fatalf("locking %s: %v", dockerTestsLock, err)
	}
	t.Cleanup(func() { f.Close() }) // closing releases the lock
}
