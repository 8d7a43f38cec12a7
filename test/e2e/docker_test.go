package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// dockerImage is the e2e tests' image: busybox on scratch (testbin).
const dockerImage = "barrhawk-test/busybox:1"

// startDocker starts the server against the tests' Docker daemon, shared
// with the other tests of every package.
func startDocker(t testing.TB, yaml string) *server {
	t.Helper()
	return startDockerLocked(t, yaml, false)
}

// startDockerLocked is startDocker, the daemon held exclusive for a test
// that removes what other tests made (docker_cleanup).
func startDockerLocked(t testing.TB, yaml string, exclusive bool) *server {
	t.Helper()
	testbin.DockerLock(t, exclusive)
	host := testbin.DockerHost(t)
	testbin.BusyboxImage(t, host, dockerImage)
	return startConfigured(t, yaml, "DOCKER_HOST="+host)
}

// TestDockerOverMCP: the Docker tools through the front and its Igors, as
// a client meets them: build, run with a port and env, logs, exec, stop,
// remove; a container BarrHawk did not make survives docker_cleanup.
func TestDockerOverMCP(t *testing.T) {
	s := startDockerLocked(t, "", true)
	dir := s.home
	if err := os.MkdirAll(filepath.Join(dir, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app", "Dockerfile"), []byte("FROM "+dockerImage+"\nRUN mkdir /www && echo served > /www/index.html\nCMD [\"/bin/sh\",\"-c\",\"echo up as $ROLE; httpd -f -p 80 -h /www\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tag := fmt.Sprintf("barrhawk-e2e/app:%d", os.Getpid())
	s.mustCall("docker_build", map[string]any{"path": "app", "tag": tag})
	port := freePort(t)
	_, p, _ := strings.Cut(port, ":")
	name := fmt.Sprintf("bh-e2e-%d", os.Getpid())
	run := s.mustCall("docker_run", map[string]any{"image": tag, "name": name, "ports": []string{"127.0.0.1:" + p + ":80"}, "env": map[string]string{"ROLE": "web"}, "detach": true})
	if run["state"] != "running" {
		t.Fatalf("run: %v", run)
	}
	if body := httpGetRetry(t, "http://127.0.0.1:"+p+"/"); body != "served\n" {
		t.Errorf("GET: %q", body)
	}
	if logs := s.mustCall("docker_logs", map[string]any{"container": name}); !strings.Contains(logs["logs"].(string), "up as web") {
		t.Errorf("logs: %v", logs)
	}
	if ex := s.mustCall("docker_exec", map[string]any{"container": name, "command": []string{"cat", "/www/index.html"}}); ex["stdout"] != "served\n" || ex["exitCode"] != float64(0) {
		t.Errorf("exec: %v", ex)
	}

	// A container not made by BarrHawk survives docker_cleanup; ours go.
	foreign := fmt.Sprintf("bh-foreign-%d", os.Getpid())
	docker(t, "run", "-d", "--name", foreign, dockerImage, "sleep", "600")
	t.Cleanup(func() { docker(t, "rm", "-f", foreign) })
	out := s.mustCall("docker_cleanup", map[string]any{"containers": true, "images": true})
	removed := fmt.Sprint(out["removed"])
	if !strings.Contains(removed, name) || strings.Contains(removed, foreign) {
		t.Errorf("cleanup removed %s", removed)
	}
	if st := docker(t, "inspect", "-f", "{{.State.Status}}", foreign); st != "running" {
		t.Errorf("the foreign container is %q after cleanup", st)
	}
	if out, isErr := s.call("docker_inspect", map[string]any{"target": name}); !isErr || !strings.Contains(out, "NOT_FOUND") {
		t.Errorf("our container after cleanup: %s", out)
	}

	// Refusals name the setting that would allow them.
	if out, isErr := s.call("docker_run", map[string]any{"image": dockerImage, "privileged": true}); !isErr || !strings.Contains(out, "docker.allowPrivileged") {
		t.Errorf("privileged: %s", out)
	}
	if out, isErr := s.call("docker_run", map[string]any{"image": dockerImage, "volumes": []string{"/:/host"}}); !isErr || !strings.Contains(out, "docker.allowedMounts") {
		t.Errorf("bind mount of /: %s", out)
	}
}

// TestDockerAllowedByConfig: docker.allowPrivileged and docker.allowedMounts
// in barrhawk.yaml reach the Igors.
func TestDockerAllowedByConfig(t *testing.T) {
	mounts := t.TempDir()
	if err := os.WriteFile(filepath.Join(mounts, "f"), []byte("outside the roots"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startDocker(t, "docker:\n  allowPrivileged: true\n  allowedMounts: ["+mounts+"]\n")
	// (privileged itself cannot start in this sandbox: runc may not apply
	// every capability; the host's pid namespace is refused by default too.)
	out := s.mustCall("docker_run", map[string]any{"image": dockerImage, "pid": "host", "volumes": []string{mounts + ":/m:ro"}, "command": "cat /m/f", "rm": true})
	if out["stdout"] != "outside the roots" || out["exitCode"] != float64(0) {
		t.Errorf("allowed by config: %v", out)
	}
}

// TestDockerExecDiesWithItsIgor: an exec's command does not outlive its
// call: not when its Igor is SIGKILLed (the next Igor ends it), not when
// the Igor is told to stop (SIGTERM), not when the client cancels.
func TestDockerExecDiesWithItsIgor(t *testing.T) {
	s := startDocker(t, "igors:\n  maxWorkers: 1\n")
	name := fmt.Sprintf("bh-e2e-exec-%d", os.Getpid())
	s.mustCall("docker_run", map[string]any{"image": dockerImage, "name": name, "command": "sleep 600", "detach": true})
	t.Cleanup(func() { docker(t, "rm", "-f", name) })

	signal := func(sig syscall.Signal) func(context.CancelFunc) {
		return func(context.CancelFunc) {
			for _, pid := range s.igorPIDs() {
				_ = syscall.Kill(pid, sig)
			}
		}
	}
	for i, end := range []func(cancel context.CancelFunc){
		signal(syscall.SIGKILL),
		signal(syscall.SIGTERM),
		func(cancel context.CancelFunc) { cancel() },
	} {
		marker := strconv.Itoa(4000 + i)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = s.session.CallTool(ctx, &mcp.CallToolParams{Name: "docker_exec", Arguments: map[string]any{"container": name, "command": "sleep " + marker}})
		}()
		pid := waitForProcess(t, "sleep "+marker)
		end(cancel)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("round %d: the exec call did not answer after it was ended", i)
		}
		cancel()
		// The next call starts an Igor if the last one died; it ends what
		// a dead one left.
		s.mustCall("docker_ps", nil)
		deadline := time.Now().Add(15 * time.Second)
		for processAlive(pid) && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if processAlive(pid) {
			t.Errorf("round %d: the exec's process %d still runs after its call ended", i, pid)
		}
	}
}

// waitForProcess is the pid of the process whose command line is cmd.
func waitForProcess(t *testing.T, cmd string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err == nil && strings.TrimRight(strings.ReplaceAll(string(b), "\x00", " "), " ") == cmd {
				return pid
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no process %q appeared", cmd)
	return 0
}

// docker runs the docker CLI against the tests' daemon (for what the test
// sets up or checks outside BarrHawk) and answers its trimmed stdout.
func docker(t testing.TB, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "docker", append([]string{"-H", testbin.DockerHost(t)}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Logf("docker %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// httpGetRetry GETs url until it answers (a server just started).
func httpGetRetry(t *testing.T, url string) string {
	t.Helper()
	var last error
	for range 100 {
		resp, err := http.Get(url)
		if err == nil {
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil {
				return string(b)
			}
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("GET %s: %v", url, last)
	return ""
}

// TestComposeOverMCP: a two-service project through the front: up, ps,
// logs, exec, down, with the real docker-compose.
func TestComposeOverMCP(t *testing.T) {
	s := startDocker(t, "")
	port := freePort(t)
	_, p, _ := strings.Cut(port, ":")
	compose := "services:\n" +
		"  web:\n    image: " + dockerImage + "\n    command: [\"sh\", \"-c\", \"mkdir -p /www && echo web-ok > /www/index.html && httpd -f -p 80 -h /www\"]\n    ports: [\"127.0.0.1:" + p + ":80\"]\n" +
		"  worker:\n    image: " + dockerImage + "\n    command: [\"sh\", \"-c\", \"echo worker $JOB ready; sleep 600\"]\n    environment:\n      JOB: ${JOB:-none}\n"
	if err := os.WriteFile(filepath.Join(s.home, "compose.yaml"), []byte(compose), 0o644); err != nil {
		t.Fatal(err)
	}
	project := fmt.Sprintf("bhe2e%d", os.Getpid())
	args := func(extra map[string]any) map[string]any {
		a := map[string]any{"file": "compose.yaml", "project": project}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}
	t.Cleanup(func() { s.call("compose_down", args(nil)) })
	s.mustCall("compose_up", args(map[string]any{"env": map[string]string{"JOB": "import"}}))
	ps := s.mustCall("compose_ps", args(nil))
	rows := ps["services"].([]any)
	if len(rows) != 2 {
		t.Fatalf("compose_ps: %v", ps)
	}
	for _, r := range rows {
		if row := r.(map[string]any); row["state"] != "running" {
			t.Errorf("compose_ps row: %v", row)
		}
	}
	if body := httpGetRetry(t, "http://127.0.0.1:"+p+"/"); body != "web-ok\n" {
		t.Errorf("GET web: %q", body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		logs := s.mustCall("compose_logs", args(map[string]any{"services": []string{"worker"}}))
		if strings.Contains(logs["logs"].(string), "worker import ready") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("compose_logs: %v", logs)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if ex := s.mustCall("compose_exec", args(map[string]any{"service": "web", "command": "cat /www/index.html; exit 5"})); ex["exitCode"] != float64(5) || ex["stdout"] != "web-ok\n" {
		t.Errorf("compose_exec: %v", ex)
	}
	s.mustCall("compose_down", args(nil))
	if left := docker(t, "ps", "-aq", "--filter", "label=com.docker.compose.project="+project); left != "" {
		t.Errorf("containers left after compose_down: %s", left)
	}
}
