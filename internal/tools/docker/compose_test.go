package docker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
)

// TestComposeToolDefs checks the definitions of the compose tools: every
// argument described, in the Compose group, and the ones with side
// effects never run twice.
func TestComposeToolDefs(t *testing.T) {
	tooltest.CheckFamilyIn(t, composeTools(), tool.CategoryDocker, tooltest.Group(groupCompose),
		"compose_up", "compose_down", "compose_ps", "compose_logs", "compose_exec")
	for _, tl := range composeTools() {
		once := tl.Name == "compose_up" || tl.Name == "compose_down" || tl.Name == "compose_exec"
		if once != (tl.MaxRetries() == 0) {
			t.Errorf("%s: retried %d times after a worker death", tl.Name, tl.MaxRetries())
		}
		if !tl.UsesRoots {
			t.Errorf("%s: not sent the allowed roots", tl.Name)
		}
	}
}

// composeProjectName is a project name of this test's own.
func composeProjectName(t *testing.T) string {
	return strings.ReplaceAll(uniq("bhtest"), "-", "")
}

// composeWrite writes a file in dir.
func composeWrite(t *testing.T, dir, name, text string) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// composeTwoServices is the tests' project: web, busybox httpd on port
// 8080 published on 127.0.0.1:port with GREETING from ${BH_GREETING} and
// a healthcheck; worker, which says it is up and sleeps.
func composeTwoServices(port int) string {
	return fmt.Sprintf(`version: "2.4"
services:
  web:
    image: %[1]s
    command: ["sh", "-c", "mkdir -p /www && echo ok > /www/index.html && httpd -f -p 8080 -h /www"]
    ports: ["127.0.0.1:%[2]d:8080"]
    environment:
      GREETING: "${BH_GREETING}"
    healthcheck:
      test: ["CMD", "wget", "-q", "-O", "/dev/null", "http://127.0.0.1:8080/"]
      interval: 1s
      timeout: 2s
      retries: 30
  worker:
    image: %[1]s
    command: ["sh", "-c", "echo worker up; sleep 600"]
    stop_signal: SIGKILL
`, testImage, port)
}

// composeRowsOf is the table of a compose_ps or compose_up answer.
func composeRowsOf(t *testing.T, answer map[string]any) []map[string]any {
	t.Helper()
	raw, ok := answer["services"].([]any)
	if !ok {
		t.Fatalf("no services table in %v", answer)
	}
	rows := make([]map[string]any, len(raw))
	for i, r := range raw {
		rows[i] = r.(map[string]any)
	}
	return rows
}

// The whole flow: up (waiting for web's healthcheck), ps with the
// published port, the port answers, logs, exec with an exit code and the
// environment, down; and nothing of the project is left.
func TestComposeFlow(t *testing.T) {
	dir := t.TempDir()
	s := rootedSession(t, dir)
	project := composeProjectName(t)
	port := freePort(t)
	composeWrite(t, dir, "docker-compose.yml", composeTwoServices(port))
	common := fmt.Sprintf(`"file":"docker-compose.yml","project":%q`, project)
	t.Cleanup(func() { s.Run("compose_down", fmt.Sprintf(`{%s,"volumes":true,"timeout":1}`, common)) })

	var mu sync.Mutex
	var progress []string
	s.Ctx = tool.WithProgress(s.Ctx, func(_, _ float64, msg string) {
		mu.Lock()
		progress = append(progress, msg)
		mu.Unlock()
	})
	up := tooltest.Object(t, s.MustRun("compose_up", fmt.Sprintf(`{%s,"env":{"BH_GREETING":"hello from env"},"wait":true}`, common)))
	s.Ctx = tool.WithRoots(context.Background(), []string{dir})
	if up["project"] != project {
		t.Errorf("up: project %v, want %s", up["project"], project)
	}
	if rows := composeRowsOf(t, up); len(rows) != 2 {
		t.Errorf("up: %d rows, want 2: %v", len(rows), up)
	}
	mu.Lock()
	if !strings.Contains(strings.Join(progress, "\n"), "web") {
		t.Errorf("up reported no progress naming web: %q", progress)
	}
	mu.Unlock()
	if out, _ := up["output"].([]any); len(out) == 0 {
		t.Errorf("up: no output lines: %v", up)
	}

	ps := tooltest.Object(t, s.MustRun("compose_ps", fmt.Sprintf(`{%s}`, common)))
	rows := composeRowsOf(t, ps)
	if len(rows) != 2 {
		t.Fatalf("ps: %d rows, want 2: %v", len(rows), ps)
	}
	if ps["project"] != project {
		t.Errorf("ps: project %v, want %s", ps["project"], project)
	}
	byService := map[string]map[string]any{}
	for _, r := range rows {
		byService[r["service"].(string)] = r
		if r["state"] != "running" || len(r["id"].(string)) != 12 || r["image"] != testImage || !strings.HasPrefix(r["status"].(string), "Up ") {
			t.Errorf("ps row: %v", r)
		}
		if _, ok := r["exitCode"]; ok {
			t.Errorf("ps row of a running container has an exit code: %v", r)
		}
	}
	web, worker := byService["web"], byService["worker"]
	if web == nil || worker == nil {
		t.Fatalf("ps: services %v, want web and worker", rows)
	}
	if want := fmt.Sprintf("127.0.0.1:%d->8080/tcp", port); web["ports"] != want {
		t.Errorf("web ports %q, want %q", web["ports"], want)
	}
	if web["health"] != "healthy" {
		t.Errorf("web health %q after up with wait, want healthy", web["health"])
	}
	if worker["health"] != "" || worker["ports"] != "" {
		t.Errorf("worker row: %v", worker)
	}
	only := tooltest.Object(t, s.MustRun("compose_ps", fmt.Sprintf(`{%s,"services":["worker"]}`, common)))
	if r := composeRowsOf(t, only); len(r) != 1 || r[0]["service"] != "worker" {
		t.Errorf("ps of worker: %v", only)
	}

	if body := httpGet(t, fmt.Sprintf("http://127.0.0.1:%d/index.html", port)); body != "ok\n" {
		t.Errorf("the published port answered %q", body)
	}

	var logs map[string]any
	for deadline := time.Now().Add(10 * time.Second); ; {
		logs = tooltest.Object(t, s.MustRun("compose_logs", fmt.Sprintf(`{%s}`, common)))
		if strings.Contains(logs["logs"].(string), "worker up") || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !regexp.MustCompile(`(?m)^worker-1 +\| worker up$`).MatchString(logs["logs"].(string)) {
		t.Errorf("logs lack \"worker-1 | worker up\": %q", logs["logs"])
	}
	if logs["lines"].(float64) < 1 || logs["cut"] != nil {
		t.Errorf("logs: %v", logs)
	}
	if e := s.MustFail("compose_logs", fmt.Sprintf(`{%s,"since":"yesterday"}`, common), tool.CodeInvalidArgs); !strings.Contains(e.Message, `"since"`) {
		t.Errorf("a bad since: %q does not name the argument", e.Message)
	}
	recent := tooltest.Object(t, s.MustRun("compose_logs", fmt.Sprintf(`{%s,"services":["worker"],"since":"10m","tail":5}`, common)))
	if !strings.Contains(recent["logs"].(string), "worker up") || strings.Contains(recent["logs"].(string), "web-1") {
		t.Errorf("logs of worker since 10m: %v", recent)
	}

	ex := tooltest.Object(t, s.MustRun("compose_exec", fmt.Sprintf(`{%s,"service":"web","command":["sh","-c","echo $GREETING; echo $EXTRA >&2; exit 3"],"execEnv":{"EXTRA":"extra value"}}`, common)))
	if ex["exitCode"] != float64(3) || ex["stdout"] != "hello from env\n" || ex["stderr"] != "extra value\n" {
		t.Errorf("exec: %v", ex)
	}
	ex = tooltest.Object(t, s.MustRun("compose_exec", fmt.Sprintf(`{%s,"service":"web","command":"pwd","workdir":"/www"}`, common)))
	if ex["exitCode"] != float64(0) || ex["stdout"] != "/www\n" {
		t.Errorf("exec of a string in a workdir: %v", ex)
	}

	down := tooltest.Object(t, s.MustRun("compose_down", fmt.Sprintf(`{%s,"timeout":1}`, common)))
	if down["project"] != project {
		t.Errorf("down: project %v, want %s", down["project"], project)
	}
	if removed, _ := down["removed"].([]any); len(removed) < 2 {
		t.Errorf("down removed %v: %v", down["removed"], down)
	}
	after := tooltest.Object(t, s.MustRun("compose_ps", fmt.Sprintf(`{%s}`, common)))
	if rows := composeRowsOf(t, after); len(rows) != 0 {
		t.Errorf("ps after down: %v", after)
	}
	left, err := apiClient(t).ContainerList(context.Background(), container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", composeProjectLabel+"="+project))})
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("containers of %s left after down: %v", project, left)
	}
}

// The errors: a missing file names the argument and the path; exec in a
// service that is not there names it; exec in a stopped container says so.
func TestComposeErrors(t *testing.T) {
	dir := t.TempDir()
	s := rootedSession(t, dir)
	missing := filepath.Join(dir, "missing.yml")
	tooltest.MustFailWith(t, Tools(), "compose_ps", fmt.Sprintf(`{"file":%q}`, missing), tool.CodeInvalidArgs, `"file"`, missing)
	tooltest.MustFailWith(t, Tools(), "compose_up", `{"files":["/nonexistent/override.yml"]}`, tool.CodeInvalidArgs, `"files"`, "/nonexistent/override.yml")
	tooltest.MustFailWith(t, Tools(), "compose_exec", `{"service":"web","command":"   "}`, tool.CodeInvalidArgs, `"command"`, "empty")
	tooltest.MustFailWith(t, Tools(), "compose_up", fmt.Sprintf(`{"projectDirectory":%q}`, composeWrite(t, dir, "plain.txt", "")), tool.CodeInvalidArgs, `"projectDirectory"`, "not a directory")

	// No file in the root: compose's own error, and where it looked.
	e := s.MustFail("compose_ps", `{"project":"bhtestnofile"}`, tool.CodeToolError)
	if !strings.Contains(e.Message, dir) {
		t.Errorf("no compose file: %q does not say it looked in %s", e.Message, dir)
	}

	project := composeProjectName(t)
	composeWrite(t, dir, "docker-compose.yml", fmt.Sprintf(`version: "2.4"
services:
  one:
    image: %s
    command: ["sh", "-c", "sleep 600"]
    stop_signal: SIGKILL
`, testImage))
	common := fmt.Sprintf(`"project":%q`, project)
	t.Cleanup(func() { s.Run("compose_down", fmt.Sprintf(`{%s,"timeout":0}`, common)) })
	s.MustRun("compose_up", fmt.Sprintf(`{%s}`, common))

	e = s.MustFail("compose_exec", fmt.Sprintf(`{%s,"service":"nope","command":["true"]}`, common), tool.CodeToolError)
	if !strings.Contains(e.Message, `"nope"`) {
		t.Errorf("exec in an unknown service: %q does not name it", e.Message)
	}
	e = s.MustFail("compose_exec", fmt.Sprintf(`{%s,"service":"one","index":2,"command":["true"]}`, common), tool.CodeInvalidArgs)
	if !strings.Contains(e.Message, `"index"`) {
		t.Errorf("exec at an index the service lacks: %q", e.Message)
	}

	// An exec past the call's time is killed, with compose. The call's
	// time leaves compose room to start the exec on a loaded machine
	// (under CI's load it took over 2 s before "begun" was printed, and
	// an exec that never began has no process to kill).
	const within = 8 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	s.Ctx = tool.WithRoots(ctx, []string{dir})
	started := time.Now()
	late := tooltest.Object(t, s.MustRun("compose_exec", fmt.Sprintf(`{%s,"service":"one","command":"echo begun; sleep 321"}`, common)))
	s.Ctx = tool.WithRoots(context.Background(), []string{dir})
	if late["timedOut"] != true || late["killed"] != true || late["stdout"] != "begun\n" || time.Since(started) > within {
		t.Errorf("exec past its time (%s): %v", time.Since(started), late)
	}
	procs := tooltest.Object(t, s.MustRun("compose_exec", fmt.Sprintf(`{%s,"service":"one","command":["ps"]}`, common)))
	if strings.Contains(procs["stdout"].(string), "sleep 321") {
		t.Errorf("the exec still runs: %s", procs["stdout"])
	}

	// Compose creates its exec, then starts it: an exec seen created and
	// not yet started is looked at again, and found once it runs (the
	// watch above once missed it on a loaded machine).
	r, err := prepareCompose(s.Ctx, &tool.Call{Resources: s.Res}, composeCommon{Project: project})
	if err != nil {
		t.Fatal(err)
	}
	command := []string{"sleep", "322"}
	watch := r.watchExec(context.Background(), "one", 0, command)
	api := apiClient(t)
	rows := composeRowsOf(t, tooltest.Object(t, s.MustRun("compose_ps", fmt.Sprintf(`{%s}`, common))))
	created, err := api.ContainerExecCreate(context.Background(), rows[0]["id"].(string), container.ExecOptions{Cmd: command})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // the watch sees it created, with no process
	if err := api.ContainerExecStart(context.Background(), created.ID, container.ExecStartOptions{Detach: true}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // the watch looks at most every 0.5 s
	tracked := watch.end()
	if tracked == nil {
		t.Fatal("an exec started after the watch saw it created was not found")
	}
	if !tracked.kill() {
		t.Error("the exec found could not be killed")
	}
	tracked.done()

	ps := tooltest.Object(t, s.MustRun("compose_ps", fmt.Sprintf(`{%s}`, common)))
	id := composeRowsOf(t, ps)[0]["id"].(string)
	if err := apiClient(t).ContainerStop(context.Background(), id, container.StopOptions{}); err != nil {
		t.Fatal(err)
	}
	e = s.MustFail("compose_exec", fmt.Sprintf(`{%s,"service":"one","command":["true"]}`, common), tool.CodeToolError)
	if !strings.Contains(e.Message, "Exited") || !strings.Contains(e.Message, "compose_up") {
		t.Errorf("exec in a stopped container: %q", e.Message)
	}
	stopped := composeRowsOf(t, tooltest.Object(t, s.MustRun("compose_ps", fmt.Sprintf(`{%s}`, common))))
	if len(stopped) != 1 || stopped[0]["state"] != "exited" || stopped[0]["exitCode"] != float64(137) {
		t.Errorf("ps of a stopped container: %v", stopped)
	}
}

// Attached, up runs until a container exits and answers its output.
func TestComposeUpAttached(t *testing.T) {
	dir := t.TempDir()
	s := rootedSession(t, dir)
	project := composeProjectName(t)
	composeWrite(t, dir, "job.yml", fmt.Sprintf(`version: "2.4"
services:
  job:
    image: %s
    command: ["sh", "-c", "echo job ran; seq 1 500"]
`, testImage))
	common := fmt.Sprintf(`"file":"job.yml","project":%q`, project)
	t.Cleanup(func() { s.Run("compose_down", fmt.Sprintf(`{%s,"timeout":0}`, common)) })
	up := tooltest.Object(t, s.MustRun("compose_up", fmt.Sprintf(`{%s,"detach":false}`, common)))
	if !strings.Contains(up["logs"].(string), "job ran") || up["exitCode"] != float64(0) {
		t.Errorf("attached up: %v", up)
	}
	rows := composeRowsOf(t, up)
	if len(rows) != 1 || rows[0]["state"] != "exited" || rows[0]["exitCode"] != float64(0) {
		t.Errorf("attached up's table: %v", rows)
	}
	tooltest.MustFailWith(t, Tools(), "compose_up", fmt.Sprintf(`{%s,"detach":false,"wait":true}`, common), tool.CodeInvalidArgs, `"wait"`)
	if e := s.MustFail("compose_up", fmt.Sprintf(`{%s,"env":{"DOCKER_HOST":"tcp://elsewhere:2375"}}`, common), tool.CodeInvalidArgs); !strings.Contains(e.Message, `"env"`) || !strings.Contains(e.Message, "docker.host") {
		t.Errorf("env setting DOCKER_HOST: %q", e.Message)
	}

	// Logs over the bound keep the latest lines, and say so.
	logs := tooltest.Object(t, s.MustRun("compose_logs", fmt.Sprintf(`{%s,"maxBytes":1000}`, common)))
	text := logs["logs"].(string)
	if logs["cut"] == nil || len(text) > 1100 || !strings.HasSuffix(text, "job-1 | 500\n") || strings.Contains(text, "job ran") || !strings.Contains(text, "lines left out") {
		t.Errorf("logs over the bound (%d bytes): %v", len(text), logs)
	}
	// Whole lines only: the kept numbers run on without a gap (a line cut
	// in its middle would show 23 before 124).
	last := 0
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		n, err := strconv.Atoi(strings.TrimPrefix(l, "job-1 | "))
		if err != nil {
			continue // the note of what was left out
		}
		if last != 0 && n != last+1 {
			t.Errorf("logs over the bound: %d after %d, a partial line kept:\n%s", n, last, text)
		}
		last = n
	}
	all := tooltest.Object(t, s.MustRun("compose_logs", fmt.Sprintf(`{%s,"tail":3}`, common)))
	if all["logs"] != "job-1 | 498\njob-1 | 499\njob-1 | 500\n" || all["lines"] != float64(3) {
		t.Errorf("logs with tail 3: %v", all)
	}

	// Still running when the call's time is nearly out: compose is stopped,
	// and stops the containers, within the call.
	long := composeProjectName(t)
	composeWrite(t, dir, "long.yml", fmt.Sprintf(`version: "2.4"
services:
  long:
    image: %s
    command: ["sh", "-c", "echo long begun; sleep 600"]
`, testImage))
	longArgs := fmt.Sprintf(`"file":"long.yml","project":%q`, long)
	t.Cleanup(func() { s.Run("compose_down", fmt.Sprintf(`{%s,"timeout":0}`, longArgs)) })
	// 15 s: stopped 7 s in (the answer margin, the stop's grace and the
	// read after it kept), time enough for the container to start and
	// print on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	s.Ctx = tool.WithRoots(ctx, []string{dir})
	late := tooltest.Object(t, s.MustRun("compose_up", fmt.Sprintf(`{%s,"detach":false}`, longArgs)))
	s.Ctx = tool.WithRoots(context.Background(), []string{dir})
	if late["timedOut"] != true || !strings.Contains(late["logs"].(string), "long begun") {
		t.Errorf("attached up past its time: %v", late)
	}
	if rows := composeRowsOf(t, late); len(rows) != 1 || rows[0]["state"] != "exited" {
		t.Errorf("attached up past its time left %v", rows)
	}
}

// A docker.compose setting that does not answer is NOT_FOUND naming it.
func TestComposeBadSetting(t *testing.T) {
	dir := t.TempDir()
	s := rootedSession(t, dir)
	composeWrite(t, dir, "docker-compose.yml", "services: {}\n")
	host := settings.Get().Host
	t.Cleanup(func() { Configure(Settings{Host: host}) })
	Configure(Settings{Host: host, Compose: "nonexistent-compose"})
	e := s.MustFail("compose_ps", `{}`, tool.CodeNotFound)
	for _, want := range []string{"docker.compose", "nonexistent-compose", "docker-compose", "apt-get install"} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("bad docker.compose: %q lacks %q", e.Message, want)
		}
	}
}

// composeFitSections shares the bound fairly and keeps the latest lines.
func TestComposeFitSections(t *testing.T) {
	mk := func(prefix string, n int) composeSection {
		s := composeSection{prefix: prefix}
		for i := range n {
			l := fmt.Sprintf("line %03d", i)
			s.lines = append(s.lines, l)
			s.size += len(prefix) + len(l) + 1
		}
		return s
	}
	ss := []composeSection{mk("a | ", 2), mk("b | ", 100)} // 13 bytes a line
	composeFitSections(ss, 26+13*10)
	if len(ss[0].lines) != 2 || ss[0].dropped != 0 {
		t.Errorf("the small section lost lines: %+v", ss[0])
	}
	if len(ss[1].lines) != 10 || ss[1].dropped != 90 || ss[1].lines[9] != "line 099" {
		t.Errorf("the big section: %d lines, %d dropped, last %q", len(ss[1].lines), ss[1].dropped, ss[1].lines[len(ss[1].lines)-1])
	}
}

// composeProgressLines keeps the last state of each of v1's steps, and
// composeSplitWarnings takes compose's warnings off an exec's stderr.
func TestComposeOutputLines(t *testing.T) {
	v1 := "Creating network \"p_default\" with the default driver\nCreating p_web_1 ... \r\nCreating p_worker_1 ... \r\nCreating p_web_1    ... done\r\nCreating p_worker_1 ... \x1b[32mdone\x1b[0m\r\n"
	got := composeProgressLines(v1)
	want := []string{`Creating network "p_default" with the default driver`, "Creating p_web_1 ... done", "Creating p_worker_1 ... done"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("progress lines %q, want %q", got, want)
	}
	output, warned := composeSplitOutput("WARNING: Some networks were defined but are not used\nStopping p_web_1 ... done\n")
	if len(output) != 1 || len(warned) != 1 {
		t.Errorf("split output: %q, %q", output, warned)
	}
	rest, warnings := composeSplitWarnings("The FOO variable is not set. Defaulting to a blank string.\n" +
		`time="2024-05-01T10:00:00Z" level=warning msg="The \"BAR\" variable is not set. Defaulting to a blank string."` + "\nWARNING: the command's own\n")
	if rest != "WARNING: the command's own\n" || len(warnings) != 2 {
		t.Errorf("split warnings: %q, %q", rest, warnings)
	}
}
