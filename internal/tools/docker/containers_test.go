package docker

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
)

// The flow, as a new user meets it: build an image, run it with a
// port and env, read its logs, exec in it, stop and remove it.
func TestBuildRunLogsExecStopRemove(t *testing.T) {
	dir := t.TempDir()
	s := rootedSession(t, dir)
	ctxDir := filepath.Join(dir, "app")
	must(t, os.MkdirAll(filepath.Join(ctxDir, "www"), 0o755))
	must(t, os.WriteFile(filepath.Join(ctxDir, "www", "index.html"), []byte("hello from the image\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ctxDir, "secret.txt"), []byte("must not be sent"), 0o644))
	must(t, os.WriteFile(filepath.Join(ctxDir, ".dockerignore"), []byte("secret.txt\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ctxDir, "Dockerfile"), []byte("FROM "+testImage+"\nARG GREETING=none\nCOPY www /www\nRUN echo \"built with $GREETING\" > /built.txt\nCMD [\"/bin/sh\",\"-c\",\"echo started $MODE; cat /built.txt; ls /secret.txt 2>&1; httpd -f -p 8080 -h /www\"]\n"), 0o644))

	tag := uniq("barrhawk-test/app") + ":1"
	built := tooltest.Object(t, s.MustRun("docker_build", fmt.Sprintf(`{"path":"app","tag":%q,"buildArgs":{"GREETING":"args"}}`, tag)))
	if built["imageId"] == "" || built["steps"].(float64) < 4 {
		t.Fatalf("build: %v", built)
	}
	t.Cleanup(func() { removeImage(t, tag) })

	port := freePort(t)
	name := uniq("bh-web")
	t.Cleanup(func() { s.Run("docker_rm", fmt.Sprintf(`{"container":%q,"force":true}`, name)) })
	run := tooltest.Object(t, s.MustRun("docker_run", fmt.Sprintf(`{"image":%q,"name":%q,"ports":["127.0.0.1:%d:8080"],"env":{"MODE":"test"},"detach":true}`, tag, name, port)))
	if run["state"] != "running" || !strings.Contains(fmt.Sprint(run["ports"]), fmt.Sprintf("127.0.0.1:%d->8080/tcp", port)) {
		t.Fatalf("run: %v", run)
	}
	body := httpGet(t, fmt.Sprintf("http://127.0.0.1:%d/index.html", port))
	if body != "hello from the image\n" {
		t.Errorf("the published port answered %q", body)
	}

	ps := tooltest.Object(t, s.MustRun("docker_ps", fmt.Sprintf(`{"filter":{"name":%q}}`, name)))
	rows := ps["containers"].([]any)
	if len(rows) != 1 {
		t.Fatalf("ps: %v", ps)
	}
	row := rows[0].(map[string]any)
	if row["name"] != name || row["image"] != tag || row["state"] != "running" || row["managed"] != true || !strings.Contains(row["ports"].(string), "->8080/tcp") {
		t.Errorf("ps row: %v", row)
	}

	logs := tooltest.Object(t, s.MustRun("docker_logs", fmt.Sprintf(`{"container":%q}`, name)))
	text := logs["logs"].(string)
	for _, want := range []string{"started test", "built with args", "No such file"} {
		if !strings.Contains(text, want) {
			t.Errorf("logs lack %q: %q", want, text)
		}
	}
	tail := tooltest.Object(t, s.MustRun("docker_logs", fmt.Sprintf(`{"container":%q,"tail":1}`, name)))
	if tail["lines"] != float64(1) {
		t.Errorf("tail 1: %v", tail)
	}

	ex := tooltest.Object(t, s.MustRun("docker_exec", fmt.Sprintf(`{"container":%q,"command":["sh","-c","echo out; echo err >&2; echo $X; exit 7"],"env":{"X":"set"},"workdir":"/www"}`, name)))
	if ex["exitCode"] != float64(7) || ex["stdout"] != "out\nset\n" || ex["stderr"] != "err\n" {
		t.Errorf("exec: %v", ex)
	}
	pwd := tooltest.Object(t, s.MustRun("docker_exec", fmt.Sprintf(`{"container":%q,"command":"pwd","workdir":"/www"}`, name)))
	if pwd["stdout"] != "/www\n" || pwd["exitCode"] != float64(0) {
		t.Errorf("exec of a string in workdir: %v", pwd)
	}

	insp := tooltest.Object(t, s.MustRun("docker_inspect", fmt.Sprintf(`{"target":%q}`, name)))
	if insp["type"] != "container" || insp["image"] != tag || insp["state"].(map[string]any)["running"] != true {
		t.Errorf("inspect: %v", insp)
	}
	val := tooltest.Object(t, s.MustRun("docker_inspect", fmt.Sprintf(`{"target":%q,"format":"{{.State.Status}} {{index .Config.Labels \"io.barrhawk.managed\"}}"}`, name)))
	if val["value"] != "running true" {
		t.Errorf("inspect format: %v", val)
	}
	s.MustFail("docker_inspect", fmt.Sprintf(`{"target":%q,"format":"{{.Nope.Status}}"}`, name), tool.CodeInvalidArgs)

	stop := tooltest.Object(t, s.MustRun("docker_stop", fmt.Sprintf(`{"container":%q,"timeout":1}`, name)))
	if stop["state"] != "exited" {
		t.Errorf("stop: %v", stop)
	}
	s.MustRun("docker_rm", fmt.Sprintf(`{"container":%q}`, name))
	s.MustFail("docker_logs", fmt.Sprintf(`{"container":%q}`, name), tool.CodeNotFound)
}

// An attached run waits for the exit and answers the code and the output.
func TestRunToExit(t *testing.T) {
	s := rootedSession(t, t.TempDir())
	out := tooltest.Object(t, s.MustRun("docker_run", `{"image":"`+testImage+`","command":["sh","-c","echo to-out; echo to-err >&2; exit 3"],"rm":true}`))
	if out["exitCode"] != float64(3) || out["stdout"] != "to-out\n" || out["stderr"] != "to-err\n" || out["removed"] != true {
		t.Errorf("run to exit: %v", out)
	}
	// A command given as a string runs with sh -c.
	out = tooltest.Object(t, s.MustRun("docker_run", `{"image":"`+testImage+`","command":"echo $((6*7))","rm":true}`))
	if out["stdout"] != "42\n" {
		t.Errorf("string command: %v", out)
	}
}

// Output past maxBytes is cut in the middle with a note; the end stays.
func TestRunOutputBounded(t *testing.T) {
	s := rootedSession(t, t.TempDir())
	out := tooltest.Object(t, s.MustRun("docker_run", `{"image":"`+testImage+`","command":"seq 1 200000; echo the-end","rm":true,"maxBytes":2000}`))
	text := out["stdout"].(string)
	if len(text) > 2200 || !strings.Contains(text, "bytes left out") || !strings.HasSuffix(text, "the-end\n") || !strings.HasPrefix(text, "1\n2\n") {
		t.Errorf("bounded output (%d bytes): %q", len(text), text)
	}
}

// The safety rules refuse, naming the setting that would allow it.
func TestRunRefusesWhatReachesTheHost(t *testing.T) {
	dir := t.TempDir()
	s := rootedSession(t, dir)
	for _, c := range []struct{ args, mention string }{
		{`{"image":"` + testImage + `","privileged":true}`, "docker.allowPrivileged"},
		{`{"image":"` + testImage + `","network":"host"}`, "docker.allowPrivileged"},
		{`{"image":"` + testImage + `","pid":"host"}`, "docker.allowPrivileged"},
		{`{"image":"` + testImage + `","capAdd":["SYS_ADMIN"]}`, "docker.allowPrivileged"},
		{`{"image":"` + testImage + `","volumes":["/:/host"]}`, "docker.allowedMounts"},
		{`{"image":"` + testImage + `","volumes":["/var/run/docker.sock:/var/run/docker.sock"]}`, "docker.allowPrivileged"},
		{`{"image":"` + testImage + `","volumes":["/etc:/x:ro"]}`, "docker.allowedMounts"},
	} {
		e := s.MustFail("docker_run", c.args, tool.CodeForbidden)
		if !strings.Contains(e.Message, c.mention) {
			t.Errorf("%s: %s does not name %s", c.args, e.Message, c.mention)
		}
	}
	s.MustFail("docker_exec", `{"container":"x","command":"id","privileged":true}`, tool.CodeForbidden)

	// Inside the roots a bind mount works; docker.allowedMounts widens them.
	must(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte("from the host"), 0o644))
	out := tooltest.Object(t, s.MustRun("docker_run", fmt.Sprintf(`{"image":%q,"volumes":["%s:/data:ro"],"command":"cat /data/f.txt","rm":true}`, testImage, dir)))
	if out["stdout"] != "from the host" {
		t.Errorf("bind mount inside the roots: %v", out)
	}
	other := t.TempDir()
	s.MustFail("docker_run", fmt.Sprintf(`{"image":%q,"volumes":["%s:/o"],"rm":true}`, testImage, other), tool.CodeForbidden)
	Configure(Settings{Host: settings.Get().Host, AllowedMounts: []string{other}})
	defer Configure(Settings{Host: settings.Get().Host})
	s.MustRun("docker_run", fmt.Sprintf(`{"image":%q,"volumes":["%s:/o"],"command":"true","rm":true}`, testImage, other))
}

// Bad arguments say what was wrong and what to write.
func TestBadArguments(t *testing.T) {
	s := rootedSession(t, t.TempDir())
	for _, c := range []struct{ tool, args, code, mention string }{
		{"docker_run", `{"image":"` + testImage + `","ports":["abc"]}`, tool.CodeInvalidArgs, "ports"},
		{"docker_run", `{"image":"` + testImage + `","restart":"sometimes"}`, tool.CodeInvalidArgs, "on-failure"},
		{"docker_run", `{"image":"` + testImage + `","volumes":["a:b:c:d"]}`, tool.CodeInvalidArgs, "source:target"},
		{"docker_ps", `{"filter":"nokey"}`, tool.CodeInvalidArgs, "key=value"},
		{"docker_logs", `{"container":"x","tail":-1}`, tool.CodeInvalidArgs, "tail"},
		{"docker_logs", `{"container":"no-such-container-here"}`, tool.CodeNotFound, "docker_ps"},
		{"docker_exec", `{"container":"no-such-container-here","command":"id"}`, tool.CodeNotFound, "docker_ps"},
		{"docker_exec", `{"container":"x","command":[]}`, tool.CodeInvalidArgs, "command"},
		{"docker_inspect", `{"target":"no-such-thing-anywhere"}`, tool.CodeNotFound, "docker_images"},
		{"docker_build", `{"path":"missing-dir"}`, tool.CodeInvalidArgs, "path"},
		{"docker_build", `{"path":"/etc"}`, tool.CodeForbidden, "docker.allowedMounts"},
	} {
		e := s.MustFail(c.tool, c.args, c.code)
		if !strings.Contains(e.Message, c.mention) {
			t.Errorf("%s %s: %q does not mention %q", c.tool, c.args, e.Message, c.mention)
		}
	}
}

// A failed build step answers its error and the step's last lines.
func TestBuildFailureShowsTheStep(t *testing.T) {
	dir := t.TempDir()
	s := rootedSession(t, dir)
	must(t, os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM "+testImage+"\nRUN echo preparing && echo about to fail && exit 4\n"), 0o644))
	e := s.MustFail("docker_build", `{"path":"."}`, tool.CodeToolError)
	for _, want := range []string{"step 2", "returned a non-zero code: 4", "about to fail"} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("build failure lacks %q: %s", want, e.Message)
		}
	}
}

// With no network, a pull answers a clear error within the call's time.
func TestPullWithoutNetwork(t *testing.T) {
	s := rootedSession(t, t.TempDir())
	ctx, cancel := context.WithTimeout(s.Ctx, 60*time.Second)
	defer cancel()
	s.Ctx = ctx
	started := time.Now()
	_, e := s.Run("docker_pull", `{"image":"registry.invalid/nothing/here:1"}`)
	if e == nil || !strings.Contains(e.Message, "registry.invalid") || !(strings.Contains(e.Message, "could not be reached") || e.Code == tool.CodeTimeout) {
		t.Fatalf("pull without network: %v", e)
	}
	if time.Since(started) > 61*time.Second {
		t.Errorf("the pull outlived its call")
	}
}

// No daemon: one clear error saying how to start one.
func TestNoDaemon(t *testing.T) {
	host := settings.Get().Host
	defer Configure(Settings{Host: host})
	Configure(Settings{Host: "unix://" + filepath.Join(t.TempDir(), "nothing.sock")})
	e := tooltest.MustFail(t, Tools(), "docker_ps", `{}`, tool.CodeConnectionFailed)
	for _, want := range []string{"no Docker daemon answers", "nothing.sock", "docker.io", "DOCKER_HOST"} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("no daemon: %q lacks %q", e.Message, want)
		}
	}
}

// An exec that outlives its call is killed, not left running.
func TestExecPastItsTimeIsKilled(t *testing.T) {
	s := rootedSession(t, t.TempDir())
	name := uniq("bh-exec")
	t.Cleanup(func() { s.Run("docker_rm", fmt.Sprintf(`{"container":%q,"force":true}`, name)) })
	s.MustRun("docker_run", fmt.Sprintf(`{"image":%q,"name":%q,"command":"sleep 600","detach":true}`, testImage, name))
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	defer cancel()
	s.Ctx = tool.WithRoots(ctx, []string{t.TempDir()})
	out := tooltest.Object(t, s.MustRun("docker_exec", fmt.Sprintf(`{"container":%q,"command":"echo begun; sleep 321"}`, name)))
	if out["timedOut"] != true || out["killed"] != true || out["stdout"] != "begun\n" {
		t.Fatalf("exec past its time: %v", out)
	}
	s.Ctx = tool.WithRoots(context.Background(), []string{t.TempDir()})
	ps := tooltest.Object(t, s.MustRun("docker_exec", fmt.Sprintf(`{"container":%q,"command":"ps"}`, name)))
	if strings.Contains(ps["stdout"].(string), "sleep 321") {
		t.Errorf("the exec still runs: %s", ps["stdout"])
	}
}

// removeImage removes the image a test built (docker_cleanup would remove
// what other tests built too).
func removeImage(t *testing.T, ref string) {
	if _, err := apiClient(t).ImageRemove(context.Background(), ref, image.RemoveOptions{Force: true}); err != nil {
		t.Errorf("removing %s: %v", ref, err)
	}
}

// An exec whose Igor was killed after starting it but before finding its
// process is still ended by the next Igor: the record made before the
// start names the exec, and the daemon says its process.
func TestExecOfAKilledIgorIsSwept(t *testing.T) {
	s := session(t)
	name := uniq("bh-orphan")
	t.Cleanup(func() { s.Run("docker_rm", fmt.Sprintf(`{"container":%q,"force":true}`, name)) })
	s.MustRun("docker_run", fmt.Sprintf(`{"image":%q,"name":%q,"command":"sleep 600","detach":true}`, testImage, name))
	ctx := context.Background()
	e, err := engineOf(ctx, &tool.Call{Resources: s.Res})
	must(t, err)
	info, err := e.cli.ContainerInspect(ctx, name)
	must(t, err)
	created, err := e.cli.ContainerExecCreate(ctx, info.ID, container.ExecOptions{Cmd: []string{"sleep", "4321"}})
	must(t, err)
	tracked := e.recordExec(info.ID, created.ID)
	must(t, e.cli.ContainerExecStart(ctx, created.ID, container.ExecStartOptions{Detach: true}))
	// The Igor dies here: its record is left under its (now dead) pid.
	dead := exec.Command("true")
	must(t, dead.Run())
	orphan := filepath.Join(execDir(), strconv.Itoa(dead.Process.Pid)+"."+shortID(created.ID))
	must(t, os.Rename(tracked.file, orphan))
	SweepOrphanExecs()
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("the orphan's record is left: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		ps := tooltest.Object(t, s.MustRun("docker_exec", fmt.Sprintf(`{"container":%q,"command":"ps"}`, name)))
		if !strings.Contains(ps["stdout"].(string), "sleep 4321") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the exec of the killed Igor still runs: %s", ps["stdout"])
		}
		time.Sleep(100 * time.Millisecond)
	}
}
